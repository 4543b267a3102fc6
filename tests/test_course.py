"""When and where an edge arises: VP by round, action mix, build sites and VP sources, checked
by hand on a tiny fabricated run, and the hex-board hooks of the two hex-map games."""

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from terra_sim.analysis import course, plots
from terra_sim.games import get_game

PLAYERS = pl.DataFrame({
    "game_id": [0, 0, 1, 1], "seat": [0, 1, 0, 1], "faction": ["x", "y", "y", "x"],
    "vp": [30, 20, 26, 24], "vp_town": [10, 0, 6, 4], "vp_money": [20, 20, 20, 20],
}).lazy()
ACTIONS = pl.DataFrame({
    "game_id": [0] * 6 + [1] * 6,
    "seat": [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1],
    "round": [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2],
    "action": ["place A1", "place B2", "build C3", "pass", "upgrade C3", "done",
               "place A1", "place B2", "build A2", "build C3", "pass", "upgrade C3"],
    "vp": [0, 0, 5, 3, 12, 4, 0, 0, 4, 6, 8, 10],
}).lazy()


def test_vp_by_round_by_hand():
    vr = course.vp_by_round(ACTIONS, PLAYERS)
    x = {r["round"]: r for r in vr.filter(pl.col("faction") == "x").iter_rows(named=True)}
    # round 1: x has 5 (game 0) and 6 (game 1, seat 1); y has 3 and 4; average 4.5
    assert x[1]["vp_mean"] == pytest.approx(5.5) and x[1]["vs_average"] == pytest.approx(1.0)
    lo, hi = sps.t.interval(0.95, 1, loc=5.5, scale=np.std([5, 6], ddof=1) / np.sqrt(2))
    assert (x[1]["lo"], x[1]["hi"]) == pytest.approx((lo - 4.5, hi - 4.5))
    # round 2: x 12 and 10, y 4 and 8: average 8.5; the final is from the players table
    assert x[2]["vs_average"] == pytest.approx(11 - 8.5)
    assert x[3]["vp_mean"] == pytest.approx(27) and x[3]["vs_average"] == pytest.approx(2.0)
    assert 0 not in x  # setup is left out


def test_action_mix_by_hand():
    mix = course.action_mix(ACTIONS, PLAYERS, quiet=("done",))
    x = {r["kind"]: r for r in mix.filter(pl.col("faction") == "x").iter_rows(named=True)}
    # x: game 0 seat 0 "build", "upgrade"; game 1 seat 1 "build", "upgrade"
    assert x["build"]["per_game"] == pytest.approx(1.0) and x["build"]["share"] == 0.5
    y = {r["kind"]: r for r in mix.filter(pl.col("faction") == "y").iter_rows(named=True)}
    # y: game 0 seat 1 "pass" ("done" is bookkeeping); game 1 seat 0 "build", "pass"
    assert set(y) == {"pass", "build"} and y["pass"]["per_game"] == pytest.approx(1.0)


def test_build_sites_by_hand():
    def site(text: str) -> str | None:
        kind, _, rest = text.partition(" ")
        return rest if kind in ("place", "build", "upgrade") else None

    sites = course.build_sites(ACTIONS, PLAYERS, site)
    x = dict(sites.filter(pl.col("faction") == "x").select("site", "builds").iter_rows())
    # x placed on A1 (game 0) and B2 (game 1), built and upgraded on C3 in both games
    assert x == {"A1": 1, "B2": 1, "C3": 4}
    assert sites.group_by("faction").agg(pl.col("share").sum())["share"].to_list() == \
        pytest.approx([1.0, 1.0])


def test_vp_sources_by_hand():
    src = course.vp_sources(PLAYERS, ["town", "money"])
    x = {r["category"]: r for r in src.filter(pl.col("faction") == "x").iter_rows(named=True)}
    assert x["town"]["vs_average"] == pytest.approx(7 - 5)
    assert x["money"]["vs_average"] == 0 and x["money"]["lo"] == 0  # no spread: exact


def test_hex_games_name_their_build_sites():
    for slug, text, site in (("terra-nova", "pw-spade1-build I4", "I4"),
                             ("terra-nova", "palace F7 left", "F7"),
                             ("terra-mystica", "upgrade F7 TP", "F7")):
        g = get_game(slug)
        assert g.build_site(text) == site
        assert g.build_site("pass") is None and site in g.board_cells()
    tn = get_game("terra-nova")
    assert tn.build_site("dig E5") is None  # terraforming alone builds nothing


def test_plots_draw_from_the_aggregates(tmp_path):
    cells = {"A1": (0.0, 0.0), "B2": (1.5, -1.0), "C3": (2.0, -2.0), "A2": (1.0, 0.0)}
    made = [
        plots.vp_by_round(course.vp_by_round(ACTIONS, PLAYERS), tmp_path / "vr.png"),
        plots.action_mix(course.action_mix(ACTIONS, PLAYERS), tmp_path / "mix.png"),
        plots.build_map(course.build_sites(ACTIONS, PLAYERS, lambda t: t.split()[1]
                                           if t.split()[0] in ("build", "place") else None),
                        tmp_path / "map.png", cells),
        plots.vp_sources(course.vp_sources(PLAYERS, ["town", "money"]), tmp_path / "src.png"),
    ]
    for p in made:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_of_a_real_run_shows_when_and_where(tmp_path):
    from terra_sim.analysis.report import build_report
    from terra_sim.run.runner import run_tournament

    run = run_tournament({"game": "terra-nova", "players": 2, "games": 12, "seed": 3,
                          "workers": 1, "report": False}, out=str(tmp_path / "run")).run_dir
    rep = build_report(run, out=tmp_path / "rep", formats="md")
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## When and where an edge arises" in md and "--no-actions" not in md
    plots_made = {p.name for p in (tmp_path / "rep" / "plots").glob("*.png")}
    assert {"vp_by_round.png", "action_mix.png", "build_map.png", "vp_sources.png"} <= \
        plots_made
    sites = pl.read_csv(tmp_path / "rep" / "tables" / "build_sites.csv")
    assert set(sites["site"]) <= set(get_game("terra-nova").board_cells())
    assert rep.files


def test_report_of_a_run_without_actions_says_so(tmp_path):
    from terra_sim.analysis.report import build_report
    from terra_sim.run.runner import run_tournament

    run = run_tournament({"game": "terra-nova", "players": 2, "games": 6, "seed": 3,
                          "workers": 1, "report": False, "actions": False},
                         out=str(tmp_path / "run")).run_dir
    build_report(run, out=tmp_path / "rep", formats="md")
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "made with `--no-actions`" in md
    assert not (tmp_path / "rep" / "plots" / "vp_by_round.png").exists()
