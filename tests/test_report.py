"""The balance report: tables against hand-computed values, and the rendered report's files."""

import json
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner
from report_fixtures import make_run

from terra_sim.analysis import tables
from terra_sim.analysis.report import build_report, parse_formats
from terra_sim.core.approximate import Approximate, approximate_for
from terra_sim.core.errors import UserError
from terra_sim.run.runner import run_tournament


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    return make_run(tmp_path_factory.mktemp("runs") / "small-run")


@pytest.fixture(scope="module")
def report(run_dir, tmp_path_factory):
    return build_report(run_dir, out=tmp_path_factory.mktemp("out") / "rep")


def _tiny_run(path: Path) -> Path:
    """Three hand-checkable games: a clean win, a two-way tie for first, a 2-player game."""
    rows = [
        # game 0: A 100, B 80, C 60 (3 players)
        (0, 3, 0, "A", "s", 100, 1.0, 1.0), (0, 3, 1, "B", "s", 80, 2.0, 0.0),
        (0, 3, 2, "C", "s", 60, 3.0, 0.0),
        # game 1: A and B tie on 90 for first, C 60
        (1, 3, 0, "B", "s", 90, 1.5, 0.5), (1, 3, 1, "C", "s", 60, 3.0, 0.0),
        (1, 3, 2, "A", "s", 90, 1.5, 0.5),
        # game 2: C 70 beats A 50 (2 players)
        (2, 2, 0, "C", "s", 70, 1.0, 1.0), (2, 2, 1, "A", "s", 50, 2.0, 0.0),
    ]
    df = pl.DataFrame(rows, schema=["game_id", "n_players", "seat", "faction", "strategy", "vp",
                                    "rank", "win_share"], orient="row")
    df = df.with_columns((pl.col("vp") - pl.col("vp").mean().over("game_id")).alias("margin"),
                         pl.col("vp").alias("vp_round"), pl.lit(0, pl.Int64).alias("vp_town"))
    (path / "players").mkdir(parents=True)
    df.write_parquet(path / "players" / "part-0.parquet")
    (path / "manifest.json").write_text(json.dumps({"game": "terra-nova"}))
    return path


def test_tiny_run_by_hand(tmp_path):
    run = tables.open_run(_tiny_run(tmp_path / "tiny"))
    assert run.errors == 0 and run.categories == ["round", "town"]
    ft = tables.faction_table(run).sort("faction")
    a = ft.row(0, named=True)
    # A: a win, half a win, a loss; expected 1/3 + 1/3 + 1/2.
    assert a["games"] == 3 and a["wins"] == pytest.approx(1.5)
    assert a["win_share"] == pytest.approx(0.5)
    assert a["expected_share"] == pytest.approx((1 / 3 + 1 / 3 + 1 / 2) / 3)
    # margins: 100 - 80 = +20, 90 - 80 = +10, 50 - 60 = -10
    assert a["margin_mean"] == pytest.approx(20 / 3)
    assert a["rank_mean"] == pytest.approx((1 + 1.5 + 2) / 3)
    b = ft.row(1, named=True)
    assert b["wins"] == pytest.approx(0.5) and b["margin_mean"] == pytest.approx((0 + 10) / 2)
    h = tables.head_to_head(run)
    ab = h.filter((pl.col("row") == "A") & (pl.col("col") == "B")).row(0, named=True)
    assert ab["games"] == 2 and ab["share"] == pytest.approx(0.75)  # one win, one tie
    ca = h.filter((pl.col("row") == "C") & (pl.col("col") == "A")).row(0, named=True)
    assert ca["games"] == 3 and ca["share"] == pytest.approx(1 / 3)
    cat = tables.vp_categories(run).sort("faction")
    assert cat["vp_round"].to_list() == pytest.approx([80, 85, 190 / 3])


def test_faction_table_recovers_planted_strengths(run_dir):
    run = tables.open_run(run_dir)
    ft = tables.faction_table(run)
    verdict = dict(zip(ft["faction"], ft["verdict"], strict=True))
    assert verdict["witches"] == "too strong" and verdict["halflings"] == "too weak"
    for measure in ("win_verdict", "margin_verdict"):  # both measures find what was planted
        found = dict(zip(ft["faction"], ft[measure], strict=True))
        assert found["witches"] == "above fair" and found["halflings"] == "below fair"
    # Exactly one win is shared out per game, and so is the expected win.
    games = tables.overview(run)["games"]
    assert ft["wins"].sum() == pytest.approx(games)
    assert ft["expected_wins"].sum() == pytest.approx(games)
    assert (ft["win_lo"] <= ft["win_share"]).all() and (ft["win_share"] <= ft["win_hi"]).all()
    # Holm-adjusted p-values are never below the raw ones.
    assert (ft["p_adjusted"] >= ft["p_value"] - 1e-15).all()


def test_seats_show_the_start_player_edge(run_dir):
    st = tables.seat_table(tables.open_run(run_dir))
    four = st.filter(pl.col("n_players") == 4).sort("seat")
    assert four["win_verdict"][0] == "above fair" and four["verdict"][0] == "too strong"
    assert four["margin_mean"][0] > four["margin_mean"][3]
    two = st.filter(pl.col("n_players") == 2)
    assert two["win_share"].sum() == pytest.approx(1.0)  # someone wins every 2-player game


def test_head_to_head_is_complementary(run_dir):
    h = tables.head_to_head(tables.open_run(run_dir))
    back = h.join(h, left_on=["row", "col"], right_on=["col", "row"], suffix="_r")
    assert (back["games"] == back["games_r"]).all()
    assert np.allclose(back["share"] + back["share_r"], 1.0)


def test_strengths_order(run_dir):
    s, fit = tables.strengths(tables.open_run(run_dir))
    assert fit is not None and fit.converged
    f = s.filter(pl.col("block") == "faction").sort("strength")
    assert f["name"][0] == "halflings" and f["name"][-1] == "witches"
    assert f["strength"].sum() == pytest.approx(0, abs=1e-9)
    strat = dict(s.filter(pl.col("block") == "strategy").select("name", "strength").iter_rows())
    assert strat["greedy"] > 0 > strat["random"]
    assert (s["se"] > 0).all()


def test_report_files_and_sections(report):
    out = report.out_dir
    html = (out / "report.html").read_text()
    md = (out / "report.md").read_text()
    headings = ["Verdict", "Caveat", "Factions", "Factions by player count",
                "Which factions differ", "Seat advantage", "Head to head", "Strategies",
                "Faction x strategy", "Strengths (Plackett-Luce)", "Where the points come from",
                "When and where an edge arises", "Power of the sample", "Method", "Run"]
    # The answer first, the run's details last, every section once.
    assert re.findall(r"^## (.+)$", md, re.M) == headings
    assert re.findall(r"<h2[^>]*>([^<]+)</h2>", html) == headings
    for text in (md, html):
        assert "not how they fare in human play" in text
        assert "greedy, random" in text
        assert "Holm" in text and "[95% Wilson]" in text and "[95% t]" in text
        assert "mermaids town bonus (invented)" in text  # data marked approximate
        assert "made with `--no-actions`" in text or "made with <code>--no-actions" in text
    pngs = sorted(p.name for p in (out / "plots").glob("*.png"))
    assert {"factions.png", "seats.png", "head_to_head.png", "strengths.png",
            "faction_strategy.png", "vp_categories.png", "score_distribution.png",
            "game_length.png", "vp_sources.png"} <= set(pngs)
    # Self-contained: every plot is embedded, nothing is fetched.
    assert html.count("src='data:image/png;base64,") == len(pngs)
    assert not re.search(r"(src|href)=['\"]https?:", html)
    for ref in re.findall(r"\]\((plots/[^)]+)\)", md):
        assert (out / ref).is_file()
    csvs = {p.stem for p in (out / "tables").glob("*.csv")}
    assert {"factions", "factions_by_player_count", "seats", "head_to_head", "strategies",
            "faction_strategy", "strengths", "vp_categories", "score_distribution",
            "game_length", "power", "pairwise", "tiers", "faction_strategy_interaction",
            "ranking_agreement", "vp_sources"} <= csvs
    assert all(p.exists() for p in report.files)


def test_report_csv_reads_back(report, run_dir):
    ft = pl.read_csv(report.out_dir / "tables" / "factions.csv")
    ref = tables.faction_table(tables.open_run(run_dir))
    assert ft.sort("faction")["win_share"].to_list() == pytest.approx(
        ref.sort("faction")["win_share"].to_list())
    pw = pl.read_csv(report.out_dir / "tables" / "power.csv").sort("n_players")
    assert pw["n_players"].to_list() == [2, 4]
    assert (pw["mdd_corrected"] > pw["mdd"]).all()
    # Halving a Wilson interval takes roughly four times the appearances: ~3x more games.
    four = pw.filter(pl.col("n_players") == 4).row(0, named=True)
    assert 2.5 * four["games"] < four["more_games_to_halve"] < 3.5 * four["games"]


def test_summary_text(report):
    s = report.summary
    assert "500 games" in s and "2 lost to errors" in s
    assert "witches" in s and "halflings" in s and "[95% Wilson]" in s
    assert "Caveat" in s


def test_md_only_and_default_out(run_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = build_report(run_dir, formats="md")
    assert r.out_dir == Path("reports") / "small-run"
    assert (tmp_path / "reports" / "small-run" / "report.md").is_file()
    assert not (tmp_path / "reports" / "small-run" / "report.html").exists()


def test_bh_correction_named(run_dir, tmp_path):
    r = build_report(run_dir, out=tmp_path / "bh", formats=["md"], correction="bh")
    md = (r.out_dir / "report.md").read_text()
    assert "Benjamini-Hochberg" in md and "p (Benjamini-Hochberg)" in md


def test_user_mistakes(tmp_path, run_dir):
    with pytest.raises(UserError, match="does not exist"):
        build_report(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="not a run directory"):
        build_report(tmp_path / "empty")
    with pytest.raises(UserError, match="unknown report format 'pdf'"):
        build_report(run_dir, out=tmp_path / "x", formats="html,pdf")
    assert parse_formats(" HTML , md,html") == ("html", "md")


def test_run_without_games(tmp_path):
    d = tmp_path / "fresh"
    (d / "players").mkdir(parents=True)
    (d / "manifest.json").write_text(json.dumps({"game": "terra-nova", "strategies": ["greedy"]}))
    r = build_report(d, out=tmp_path / "o")
    assert "No finished games" in r.summary
    assert "nothing to report" in (r.out_dir / "report.md").read_text()


def test_cli_report(run_dir, tmp_path):
    from terra_sim.cli import cli

    runner = CliRunner()
    res = runner.invoke(cli, ["report", str(run_dir), "--out", str(tmp_path / "c"),
                              "--format", "html"])
    assert res.exit_code == 0, res.output
    assert "Report written to" in res.output and "witches" in res.output
    assert f"open {tmp_path / 'c' / 'report.html'}" in res.stdout  # the file to open, named
    assert "report: factions..." in res.stderr  # the stages, as they run
    assert (tmp_path / "c" / "report.html").is_file()
    assert not (tmp_path / "c" / "report.md").exists()
    bad = runner.invoke(cli, ["report", str(tmp_path / "missing")])
    assert bad.exit_code == 2 and "does not exist" in bad.output
    assert "Traceback" not in bad.output
    bad = runner.invoke(cli, ["report", str(run_dir), "--format", "pdf"])
    assert bad.exit_code == 2 and "unknown report format" in bad.output


def test_cli_report_open_and_quiet(run_dir, tmp_path, monkeypatch):
    import webbrowser

    from terra_sim.cli import cli

    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    res = CliRunner().invoke(cli, ["report", str(run_dir), "--out", str(tmp_path / "o"),
                                   "--open", "--quiet"])
    assert res.exit_code == 0, res.output
    assert opened == [(tmp_path / "o" / "report.html").resolve().as_uri()]
    assert res.stderr == ""  # --quiet: no stages
    assert res.stdout.splitlines()[-1].endswith(f"open {tmp_path / 'o' / 'report.html'}")
    md_only = CliRunner().invoke(cli, ["report", str(run_dir), "--out", str(tmp_path / "m"),
                                       "--format", "md", "-q"])
    assert md_only.stdout.splitlines()[-1].endswith(f"open {tmp_path / 'm' / 'report.md'}")


def test_cli_help_text():
    from terra_sim.cli import cli

    runner = CliRunner()
    for name in ("report", "compare"):
        res = runner.invoke(cli, [name, "--help"])
        assert res.exit_code == 0
        assert cli.commands[name].help and "--format" in res.output


def test_one_bot_one_player_count(tmp_path):
    d = make_run(tmp_path / "solo", n4=120, n2=0, errors=0, strategies=["greedy"])
    r = build_report(d, out=tmp_path / "o")
    st = pl.read_csv(r.out_dir / "tables" / "strengths.csv")
    assert set(st["block"]) == {"faction"}  # one bot: no strategy effect to estimate
    assert pl.read_csv(r.out_dir / "tables" / "power.csv")["n_players"].to_list() == [4]
    assert "120 games" in r.summary and "0 lost to errors" in r.summary
    md = (r.out_dir / "report.md").read_text()
    assert "(greedy)" in md
    # One player count: a table by player count would repeat the factions table.
    assert "## Factions by player count" not in md
    assert "players: 4" not in r.headline and "This run finds an edge of " in r.headline


def test_plots_accept_bounds_a_rounding_error_past_the_point(tmp_path):
    """A faction that won its only game has share 1.0 and a Wilson bound that may round to just
    under 1.0; matplotlib rejects the negative whisker unless it is clipped."""
    import numpy as np

    from terra_sim.analysis.plots import _err

    lo, hi = _err(np.array([1.0, 0.5]), np.array([0.2, 0.4]), np.array([1.0 - 1e-16, 0.7]))
    assert (lo >= 0).all() and (hi >= 0).all()
    assert hi[0] == 0.0 and lo[0] == 0.8


def test_approximate_data_is_listed_for_the_runs_that_use_it():
    game = SimpleNamespace(
        approximate=("every game", Approximate("2 players", players=(2,)),
                     Approximate("planner", options={"variant": ("planner",)}),
                     Approximate("standard", options={"variant": ("standard",)})),
        option_names=lambda: {"variant": ("standard", "planner")})
    assert approximate_for(game, [3, 4], {}) == ["every game", "standard"]  # the default
    assert approximate_for(game, [2, 3], {}) == ["every game", "2 players", "standard"]
    assert approximate_for(game, [2], {"variant": "planner"}) == ["every game", "2 players",
                                                                  "planner"]


@pytest.mark.parametrize("players,options,marked", [
    ([3, 4], {}, False),
    ([2], {}, False),  # the standard game does not use the 2-player variants' house spaces
    ([2], {"variant": "planner"}, True),
])
def test_terra_nova_reports_its_stand_in_only_where_the_run_used_it(tmp_path, players, options,
                                                                    marked):
    run = run_tournament({"game": "terra-nova", "players": players, "games": 2 * len(players),
                          "strategies": ["random"], "workers": 1, "actions": False,
                          "options": options, "report": False}, out=str(tmp_path / "run"))
    stand_in = "map: neutral house spaces (2-player variants): INVENTED stand-in"
    assert any(a.startswith(stand_in) for a in run.manifest["approximate_data"]) == marked
    result = build_report(run.run_dir, tmp_path / "rep", formats="md")
    md = (tmp_path / "rep" / "report.md").read_text()
    first = md.split("\n## ")[1]  # the verdict box, before any result
    assert ("**Data marked approximate:** " + stand_in in first) == marked
    assert ("Data marked approximate: " + stand_in in result.summary) == marked
    assert ("**data marked approximate**: none" in md) == (not marked)  # the run details
