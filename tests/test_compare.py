"""`compare_runs` and `terra-sim compare` on two small fabricated runs."""

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal
from report_fixtures import STRENGTH, make_run

from terra_sim.analysis import stats, tables
from terra_sim.analysis.compare import change_table, compare_runs, manifest_changes
from terra_sim.core.errors import UserError

OVERRIDE = {"factions": {"halflings": {"start_money": 20}}}
FIXED = dict(STRENGTH, halflings=0)  # the what-if: halflings made as strong as the rest
RECORDED = Path(__file__).parent / "fixtures" / "compare"  # its README says what and why


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("runs")
    a = make_run(base / "base", seed=11, n4=300, n2=60)
    b = make_run(base / "halfling-money", seed=12, n4=300, n2=60, strength=FIXED,
                 overrides=OVERRIDE)
    return a, b


@pytest.fixture(scope="module")
def what_ifs(runs, tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    """Run pairs for each of compare's analyses, by the name of their recorded outputs."""
    a, b = runs
    base = tmp_path_factory.mktemp("more-runs")
    four = make_run(base / "halfling-money-4p", seed=12, n4=300, n2=0, strength=FIXED,
                    overrides=OVERRIDE)
    same_plan = make_run(base / "halfling-money-same-plan", seed=11, n4=300, n2=60,
                         strength=FIXED, overrides=OVERRIDE)  # the seed, so the seatings, of a
    return {"independent": (a, b), "independent-other-counts": (a, four),
            "paired": (a, same_plan)}


def test_change_table_by_hand():
    a = pl.DataFrame({"faction": ["x", "y"], "games": [100, 50], "wins": [20.0, 10.0],
                      "win_share": [0.2, 0.2], "win_lo": [0.0, 0.0], "win_hi": [1.0, 1.0],
                      "expected_share": [0.25, 0.25], "margin_mean": [-1.0, 0.0],
                      "margin_sd": [5.0, 5.0], "margin_lo": [0.0, 0.0], "margin_hi": [0.0, 0.0]})
    b = a.with_columns(pl.Series("wins", [35.0, 10.0]), pl.Series("win_share", [0.35, 0.2]),
                       pl.Series("margin_mean", [2.0, 0.0]))
    ct = change_table(a, b, ["faction"]).sort("faction")
    x = ct.row(0, named=True)
    assert x["win_change"] == pytest.approx(0.15)
    lo, hi = stats.newcombe_diff_interval(20, 100, 35, 100)
    assert (x["win_change_lo"], x["win_change_hi"]) == pytest.approx((float(lo), float(hi)))
    raw = float(stats.two_proportion_test(20, 100, 35, 100))
    assert x["win_change_p"] == pytest.approx(raw)
    assert x["win_change_p_adjusted"] == pytest.approx(min(1.0, 2 * raw))  # Holm, two rows
    assert x["margin_change"] == pytest.approx(3.0)
    y = ct.row(1, named=True)
    assert y["win_change"] == 0 and not y["win_change_significant"]


def test_change_table_keeps_factions_of_one_run():
    cols = {"games": [10], "wins": [3.0], "win_share": [0.3], "win_lo": [0.1],
            "win_hi": [0.6], "expected_share": [0.25], "margin_mean": [1.0], "margin_sd": [2.0],
            "margin_lo": [0.0], "margin_hi": [2.0]}
    a = pl.DataFrame({"faction": ["x"], **cols})
    b = pl.DataFrame({"faction": ["z"], **cols})
    ct = change_table(a, b, ["faction"]).sort("faction")
    assert ct["faction"].to_list() == ["x", "z"]
    assert ct["win_change"].null_count() == 2
    assert not ct["win_change_significant"].any()


def test_manifest_changes_lists_the_override():
    ch = manifest_changes({"master_seed": 1, "overrides": {}},
                          {"master_seed": 1, "overrides": OVERRIDE})
    assert ch.rows() == [("overrides: factions.halflings.start_money", "(unset)", "20")]


def test_compare_finds_the_change(runs, tmp_path):
    a, b = runs
    r = compare_runs(a, b, out=tmp_path / "cmp")
    ct = pl.read_csv(r.out_dir / "tables" / "faction_changes.csv")
    sig = ct.filter(pl.col("win_change_significant"))["faction"].to_list()
    # Stronger halflings also take wins from the others, so others may move too, but
    # halflings must move most, and none of the others may rise significantly.
    assert "halflings" in sig
    assert ct.sort("win_change")["faction"][-1] == "halflings"
    others = ct.filter(pl.col("faction") != "halflings")
    assert not (others["win_change_significant"] & (others["win_change"] > 0)).any()
    h = ct.filter(pl.col("faction") == "halflings").row(0, named=True)
    assert h["win_change"] > 0.08 and h["win_change_lo"] > 0
    assert h["margin_change_significant"] and h["margin_change"] > 8
    md = (r.out_dir / "report.md").read_text()
    html = (r.out_dir / "report.html").read_text()
    for text in (md, html):
        assert "What changed" in text and "factions.halflings.start_money" in text
        assert "Newcombe" in text and "Holm" in text and "human play" in text
        assert text.count("start_money") == 1  # the override is listed once, as a change
    assert {p.name for p in (r.out_dir / "plots").glob("*.png")} == {
        "win_share_change.png", "margin_change.png"}
    assert html.count("data:image/png;base64,") == 2
    assert (r.out_dir / "tables" / "faction_changes_by_player_count.csv").is_file()
    assert "halflings: win share up" in r.summary


def test_compare_default_out(runs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a, b = runs
    r = compare_runs(a, b, formats=("md",))
    assert r.out_dir == Path("reports") / "compare-base-vs-halfling-money"
    assert (tmp_path / r.out_dir / "report.md").is_file()


def test_compare_user_mistakes(runs, tmp_path):
    a, _ = runs
    with pytest.raises(UserError, match="does not exist"):
        compare_runs(a, tmp_path / "missing")
    other = tmp_path / "other"
    other.mkdir()
    (other / "manifest.json").write_text(json.dumps({"game": "terramara"}))
    with pytest.raises(UserError, match="cannot compare"):
        compare_runs(a, other)


def test_cli_compare(runs, tmp_path):
    from terra_sim.cli import cli

    a, b = runs
    res = CliRunner().invoke(cli, ["compare", str(a), str(b), "--out", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    assert "Comparison written to" in res.output
    assert f"open {tmp_path / 'c' / 'report.html'}" in res.output
    assert (tmp_path / "c" / "report.html").is_file()
    bad = CliRunner().invoke(cli, ["compare", str(a), str(tmp_path / "nope")])
    assert bad.exit_code == 2 and "does not exist" in bad.output


@pytest.mark.parametrize("case", ["independent", "independent-other-counts", "paired"])
def test_compare_gives_the_numbers_it_gave_holding_the_runs_in_memory(what_ifs, case,
                                                                      tmp_path):
    r = compare_runs(*what_ifs[case], out=tmp_path / "cmp", formats="md")
    for name in ("faction_changes", "faction_changes_by_player_count"):
        assert_frame_equal(pl.read_csv(r.out_dir / "tables" / f"{name}.csv"),
                           pl.read_csv(RECORDED / case / f"{name}.csv"),
                           rel_tol=1e-9, abs_tol=1e-12)
    assert r.summary + "\n" == (RECORDED / case / "summary.txt").read_text()


def test_compare_collects_aggregates_only(what_ifs, tmp_path, monkeypatch):
    """Neither run's players table is read whole, nor anything with a row per game: every
    collected frame is an aggregate (a row per faction, player count, or one)."""
    games = min(tables.overview(tables.open_run(run))["games"]
                for pair in what_ifs.values() for run in pair)
    sizes = []
    collect = pl.LazyFrame.collect

    def counted(self, *args, **kwargs):  # eager polars calls land here too
        df = collect(self, *args, **kwargs)
        sizes.append(df.height)
        return df

    def held(self):
        raise AssertionError("compare read a players table into memory")

    monkeypatch.setattr(pl.LazyFrame, "collect", counted)
    monkeypatch.setattr(tables.Run, "frame", property(held))
    for case, (a, b) in what_ifs.items():
        compare_runs(a, b, out=tmp_path / case, formats="md")
    assert sizes and max(sizes) < games


def test_runs_whose_seats_are_out_of_order_pair_the_same(what_ifs, tmp_path):
    """Runs as the runner writes them are joined by merging, which needs the seats in order;
    seats in any other order are joined by hashing, to the same numbers."""
    a, b = what_ifs["paired"]
    shuffled = tmp_path / b.name
    shutil.copytree(b, shuffled)
    for part in (shuffled / "players").glob("*.parquet"):
        pl.read_parquet(part).sample(fraction=1.0, shuffle=True, seed=3).write_parquet(part)
    r = compare_runs(a, shuffled, out=tmp_path / "cmp", formats="md")
    for name in ("faction_changes", "faction_changes_by_player_count"):
        assert_frame_equal(pl.read_csv(r.out_dir / "tables" / f"{name}.csv"),
                           pl.read_csv(RECORDED / "paired" / f"{name}.csv"),
                           rel_tol=1e-9, abs_tol=1e-12)
    assert "Analysis: paired" in r.summary
