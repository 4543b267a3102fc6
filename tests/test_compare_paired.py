"""The paired compare on real runs: two runs of one plan that differ in one override are set
against each other game by game; runs of different plans stay independent samples."""

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from terra_sim.analysis import paired, tables
from terra_sim.analysis.compare import change_table, compare_runs
from terra_sim.run.runner import run_tournament

RUN = {"game": "terra-nova", "players": 2, "games": 90, "seed": 5, "workers": 1,
       "actions": False, "report": False}
RICH = {"factions": {"factions": {"golems": {"start_money": 30}}}}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("paired")
    a = run_tournament(dict(RUN), out=str(base / "a")).run_dir
    b = run_tournament({**RUN, "overrides": RICH}, out=str(base / "b")).run_dir
    other_seed = run_tournament({**RUN, "seed": 6}, out=str(base / "c")).run_dir
    return a, b, other_seed


def holm(p):
    order = np.argsort(p)
    out = np.empty_like(p)
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - k) * p[i]))
        out[i] = running
    return out


def test_paired_changes_match_scipy(runs):
    a, b, _ = runs
    joined, why = paired.pair_games(tables.open_run(a), tables.open_run(b))
    assert joined is not None, why
    assert joined.select(pl.col("game_id").n_unique()).collect().item() == RUN["games"]
    ct = paired.paired_change_table(joined, ["faction"]).sort("faction")
    pa = pl.read_parquet(a / "players" / "*.parquet").sort("game_id", "seat")
    pb = pl.read_parquet(b / "players" / "*.parquet").sort("game_id", "seat")
    assert pa["faction"].to_list() == pb["faction"].to_list()  # same seatings: the plan
    p_win, p_margin = [], []
    for row in ct.iter_rows(named=True):
        mine = (pa["faction"] == row["faction"]).to_numpy()
        for col, key, ps in (("win_share", "win", p_win), ("margin", "margin", p_margin)):
            xa, xb = pa[col].to_numpy()[mine], pb[col].to_numpy()[mine]
            assert row["games_a"] == row["games_b"] == len(xa)
            assert row[f"{key}_change"] == pytest.approx(np.mean(xb - xa))
            if np.all(xb - xa == xb[0] - xa[0]):
                continue  # scipy returns nan for a constant difference; ours is tested apart
            t = sps.ttest_rel(xb, xa)
            lo, hi = t.confidence_interval(0.95)
            assert (row[f"{key}_change_lo"], row[f"{key}_change_hi"]) == pytest.approx((lo, hi))
            assert row[f"{key}_change_p"] == pytest.approx(t.pvalue)
            ps.append((row["faction"], t.pvalue))
    assert len(p_margin) >= ct.height - 1  # the check above ran on (nearly) every faction
    golems = ct.filter(pl.col("faction") == "golems").row(0, named=True)
    assert golems["margin_change"] > 0 and golems["margin_change_significant"]
    # Holm across the factions, by hand, where every row was testable
    if len(p_margin) == ct.height:
        raw = np.array([p for _, p in p_margin])
        assert ct["margin_change_p_adjusted"].to_numpy() == pytest.approx(holm(raw))


def test_compare_says_paired_and_names_the_touched_faction(runs, tmp_path):
    a, b, _ = runs
    res = compare_runs(a, b, out=tmp_path / "cmp", formats="md")
    assert "Analysis: paired" in res.summary
    assert "The change names golems" in res.summary
    md = (tmp_path / "cmp" / "report.md").read_text()
    assert "95% paired t" in md
    csv = pl.read_csv(tmp_path / "cmp" / "tables" / "faction_changes.csv")
    joined, _ = paired.pair_games(tables.open_run(a), tables.open_run(b))
    expected = paired.paired_change_table(joined, ["faction"])
    assert csv.sort("faction")["margin_change"].to_numpy() == pytest.approx(
        expected.sort("faction")["margin_change"].to_numpy())
    # the deal's luck cancels: paired margin intervals are narrower than the independent
    # analysis of the same two runs gives
    independent = change_table(tables.faction_table(tables.open_run(a)),
                               tables.faction_table(tables.open_run(b)), ["faction"])
    assert paired.width_ratio(expected, independent, "margin") < 0.9


def test_runs_of_different_plans_are_independent_samples(runs, tmp_path):
    a, _, other_seed = runs
    joined, why = paired.pair_games(tables.open_run(a), tables.open_run(other_seed))
    assert joined is None and "different master seeds" in why
    res = compare_runs(a, other_seed, out=tmp_path / "cmp", formats="md")
    assert "Analysis: independent samples, because the runs have different master seeds" \
        in res.summary
    assert "95% Newcombe" in (tmp_path / "cmp" / "report.md").read_text()


def test_same_seed_other_seatings_are_not_paired(tmp_path):
    a = run_tournament({**RUN, "games": 10}, out=str(tmp_path / "a")).run_dir
    b = run_tournament({**RUN, "games": 10, "factions": ["golems", "druids", "leprechauns"]},
                       out=str(tmp_path / "b")).run_dir
    joined, why = paired.pair_games(tables.open_run(a), tables.open_run(b))
    assert joined is None and "seats different factions" in why


def test_touched_reads_the_override_paths():
    settings = ["data_hash", "overrides: factions.factions.golems.start_money",
                "config: overrides.factions.factions.golems.start_money"]
    assert paired.touched(["druids", "golems", "fairies"], settings) == ["golems"]
