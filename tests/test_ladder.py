"""The ladder: one plan played at rising bot strength on the plug-in test game. The command writes
its report; its margins, ranks and rank correlations match a recomputation from the rungs'
Parquet tables; every rung deals the same games; bad [ladder] sections are refused in one line
before anything plays; and the same command resumes an interrupted ladder."""

import json
import math
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import plugin_game
import polars as pl
import pytest
from click.testing import CliRunner
from scipy import stats as sps

from terra_sim.analysis import ladder as analysis
from terra_sim.cli import cli
from terra_sim.core.errors import UserError
from terra_sim.games import register_game, unregister_game
from terra_sim.run.ladder import default_budgets, plan, run_ladder
from terra_sim.run.runner import RunInterrupted

RUNGS = ("random", "greedy", "mcts-4")
CONFIG = """
game = "tally"
players = [3, 4]
games = 66
seed = 5

[strategies.mcts-4]
base = "mcts"
simulations = 4

[ladder]
rungs = [
  { name = "random", strategies = ["random"] },
  { name = "greedy", strategies = ["greedy"] },
  { name = "mcts-4", strategies = ["mcts-4"] },
]
"""


@pytest.fixture(scope="module")
def tally():
    """The test game, registered for this module's ladders (the module-scoped run needs it
    before any test's own fixture would register it)."""
    register_game(plugin_game.SLUG, plugin_game.Tally, sys.modules["plugin_game"])
    yield plugin_game.SLUG
    unregister_game(plugin_game.SLUG)


def invoke(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture(scope="module")
def ladder(tally, tmp_path_factory):
    """One ladder played by the command: its folder and what it printed."""
    tmp = tmp_path_factory.mktemp("ladder")
    (tmp / "ladder.toml").write_text(CONFIG)
    out = tmp / "out"
    printed = invoke("ladder", str(tmp / "ladder.toml"), "--out", str(out), "--workers", "2")
    return out, printed


def _players(out, rung) -> pl.DataFrame:
    return pl.read_parquet(out / rung / "players" / "*.parquet")


def test_the_command_writes_the_ladder_report(ladder):
    out, printed = ladder
    last = printed.strip().splitlines()
    assert last[-1] == f"Ladder report: {out / 'ladder.md'}"
    assert last[-2].startswith("Conclusion: ")
    conclusion = last[-2].removeprefix("Conclusion: ").rstrip(".")
    md = (out / "ladder.md").read_text()
    assert f"**Conclusion:** {conclusion}." in md
    assert conclusion.startswith(("the ranking has settled (top two rungs agree, Spearman rho",
                                  "still moving: stronger bots are needed before trusting it"))
    for rung, bots in (("random", "random"), ("greedy", "greedy"), ("mcts-4", "mcts-4")):
        assert f"**{rung}** (bots: {bots})" in md
    assert "mcts-4 = mcts with simulations = 4" in md
    assert (out / "ladder.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    csv = pl.read_csv(out / "ladder.csv")
    assert csv.columns == ["rung", "step", "faction", "games", "margin", "margin_lo",
                           "margin_hi", "rank", "rank_lo", "rank_hi", "verdict"]
    assert csv.height == len(RUNGS) * len(plugin_game.FACTIONS)
    assert csv["rung"].unique(maintain_order=True).to_list() == list(RUNGS)
    assert set(csv["verdict"]) <= {"above fair", "below fair", "consistent with fair"}
    assert ((csv["margin_lo"] <= csv["margin"]) & (csv["margin"] <= csv["margin_hi"])).all()
    assert ((csv["rank_lo"] <= csv["rank"]) & (csv["rank"] <= csv["rank_hi"])).all()


def test_every_rung_is_an_ordinary_run(ladder, tmp_path):
    out, _ = ladder
    for rung, pool in zip(RUNGS, (["random"], ["greedy"], ["mcts-4"]), strict=True):
        manifest = json.loads((out / rung / "manifest.json").read_text())
        assert manifest["strategies"] == pool and manifest["finished_games"] == 66
        assert manifest["master_seed"] == 5
    invoke("report", str(out / "greedy"), "--out", str(tmp_path / "r"), "--format", "md", "-q")
    assert "Balance report: tally" in (tmp_path / "r" / "report.md").read_text()


def _margins(players: pl.DataFrame) -> dict[str, float]:
    """Each faction's mean VP margin, from the VP column in plain Python."""
    vp_by_game = defaultdict(list)
    for r in players.iter_rows(named=True):
        vp_by_game[r["game_id"]].append(r["vp"])
    margins = defaultdict(list)
    for r in players.iter_rows(named=True):
        game = vp_by_game[r["game_id"]]
        margins[r["faction"]].append(r["vp"] - sum(game) / len(game))
    return {f: sum(m) / len(m) for f, m in margins.items()}


def test_numbers_match_a_recomputation_from_the_rungs_tables(ladder):
    out, _ = ladder
    players = {r: _players(out, r) for r in RUNGS}
    found = analysis.analyse(players, seed=5)
    csv = pl.read_csv(out / "ladder.csv")
    assert found.games == 66
    mine = {}
    for rung in RUNGS:
        margins = _margins(players[rung])
        mine[rung] = margins
        order = sorted(margins, key=lambda f: (-margins[f], f))
        for table in (found.factions, csv):
            rows = {r["faction"]: r for r in table.filter(pl.col("rung") == rung)
                    .iter_rows(named=True)}
            assert set(rows) == set(margins)
            for f, m in margins.items():
                assert rows[f]["margin"] == pytest.approx(m, abs=1e-9)
                assert rows[f]["rank"] == order.index(f) + 1
                assert rows[f]["games"] == players[rung].filter(pl.col("faction") == f).height
    md = (out / "ladder.md").read_text()
    pairs = list(found.correlations.iter_rows(named=True))
    assert [(p["rung_a"], p["rung_b"], p["top_two"]) for p in pairs] == [
        ("random", "greedy", False), ("greedy", "mcts-4", True)]
    for p in pairs:
        a, b = mine[p["rung_a"]], mine[p["rung_b"]]
        factions = sorted(a)
        rho = sps.spearmanr([a[f] for f in factions], [b[f] for f in factions]).statistic
        assert p["rho"] == pytest.approx(rho, abs=1e-12)
        assert p["rho_lo"] <= p["rho"] <= p["rho_hi"]
        assert f"{p['rung_a']} -> {p['rung_b']}" in md and f"{rho:.2f} [" in md
    top = pairs[-1]
    settled = top["rho_lo"] >= analysis.SETTLED_RHO
    assert found.settled is settled
    assert found.conclusion.startswith("the ranking has settled" if settled else "still moving")


def test_margin_intervals_agree_with_t_intervals(ladder):
    # The bootstrap resamples games, not seats; for a faction's mean over its own games (one
    # seat per game) it should land near the textbook t interval.
    out, _ = ladder
    players = {r: _players(out, r) for r in RUNGS}
    found = analysis.analyse(players, seed=5)
    for row in found.factions.iter_rows(named=True):
        m = players[row["rung"]].filter(pl.col("faction") == row["faction"])["margin"]
        half = sps.t.ppf(0.975, m.len() - 1) * m.std() / math.sqrt(m.len())
        assert (row["margin_hi"] - row["margin_lo"]) / 2 == pytest.approx(half, rel=0.35)


def test_the_rungs_share_deals(ladder):
    out, _ = ladder
    deals, seeds, bots = {}, {}, {}
    for rung in RUNGS:
        p = _players(out, rung).sort("game_id", "seat")
        deals[rung] = {g: [(r["seat"], r["faction"]) for r in rows.iter_rows(named=True)]
                       for (g,), rows in p.group_by("game_id")}
        games = pl.read_parquet(out / rung / "games" / "*.parquet")
        seeds[rung] = dict(zip(games["game_id"], games["seed"], strict=True))
        bots[rung] = set(p["strategy"])
    assert len(deals["random"]) == 66
    assert deals["random"] == deals["greedy"] == deals["mcts-4"]
    assert seeds["random"] == seeds["greedy"] == seeds["mcts-4"]
    assert bots == {"random": {"random"}, "greedy": {"greedy"}, "mcts-4": {"mcts-4"}}


def test_a_changed_deal_is_caught():
    seats = pl.DataFrame({"game_id": [0, 0, 1, 1], "seat": [0, 1, 0, 1], "n_players": [2] * 4,
                          "faction": ["ant", "cat", "bee", "dog"], "margin": [1.0, -1.0] * 2})
    games = pl.DataFrame({"game_id": [0, 1], "seed": [10, 11]})
    analysis.check_shared_deals({"a": seats, "b": seats}, {"a": games, "b": games})
    swapped = seats.with_columns(pl.Series("faction", ["ant", "cat", "dog", "bee"]))
    with pytest.raises(UserError, match="game 1 seats bee .* in seat 0 in one and dog"):
        analysis.check_shared_deals({"a": seats, "b": swapped}, {"a": games, "b": games})
    reseeded = games.with_columns(pl.Series("seed", [10, 12]))
    with pytest.raises(UserError, match="game 1 has setup seed 11 in one and 12"):
        analysis.check_shared_deals({"a": seats, "b": seats}, {"a": games, "b": reseeded})


def test_identical_rungs_agree_exactly(tally, tmp_path):
    # Two rungs of the same bot play the same games: resampled together, every resample ranks
    # them alike, so rho is 1 with the interval [1, 1] and the ranking has settled. Resampled
    # apart, the interval would fall below 1.
    config = {"game": "tally", "players": [3], "games": 33, "seed": 2,
              "ladder": {"rungs": [{"name": "one", "strategies": ["greedy"]},
                                   {"name": "two", "strategies": ["greedy"]}]}}
    result = run_ladder(config, out=str(tmp_path / "same"), workers=1)
    [pair] = result.ladder.correlations.iter_rows(named=True)
    assert (pair["rho"], pair["rho_lo"], pair["rho_hi"]) == (1.0, 1.0, 1.0)
    assert result.ladder.settled
    assert result.ladder.conclusion == ("the ranking has settled (top two rungs agree, Spearman "
                                        "rho = 1.00 [1.00, 1.00])")
    one, two = (result.ladder.factions.filter(pl.col("rung") == r).drop("rung", "step")
                for r in ("one", "two"))
    assert one.equals(two)
    assert result.ladder.changes.height == 0


def test_a_game_lost_in_one_rung_is_left_out_of_every_rung():
    rng = np.random.default_rng(1)
    factions = ["ant", "bee", "cat", "dog", "eel"]
    rows = [{"game_id": g, "seat": s, "n_players": 3, "faction": factions[(g + 2 * s) % 5],
             "margin": float(rng.normal())} for g in range(30) for s in range(3)]
    a = pl.DataFrame(rows)
    b = a.with_columns(pl.col("margin") * 2).filter(pl.col("game_id") != 7)  # lost to an error
    found = analysis.analyse({"a": a, "b": b}, reps=200, seed=1)
    assert found.games == 29
    kept = a.filter(pl.col("game_id") != 7)
    for r in found.factions.iter_rows(named=True):
        mine = kept.filter(pl.col("faction") == r["faction"])["margin"]
        scale = 2 if r["rung"] == "b" else 1
        assert r["margin"] == pytest.approx(scale * mine.mean())
        assert r["games"] == mine.len()
    [pair] = found.correlations.iter_rows(named=True)
    assert pair["rho"] == pytest.approx(1.0)  # b's margins are a's doubled: the same order


def test_spearman_matches_scipy_with_ties_and_gaps():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, size=(50, 7)).astype(float)  # many ties
    y = rng.integers(0, 4, size=(50, 7)).astype(float)
    x[3, 2] = np.nan  # a faction one resample never drew
    ours = analysis.spearman(x, y)
    for i in range(50):
        seen = ~np.isnan(x[i])
        if np.ptp(x[i, seen]) and np.ptp(y[i, seen]):
            assert ours[i] == pytest.approx(sps.spearmanr(x[i, seen], y[i, seen]).statistic)
        else:
            assert np.isnan(ours[i])
    assert np.isnan(analysis.spearman(np.array([1.0, 2.0]), np.array([2.0, 1.0]))[0])


def test_conclusion_turns_on_the_lower_bound():
    at = analysis.SETTLED_RHO
    assert analysis.conclusion(0.95, at, 0.99) == (
        True, f"the ranking has settled (top two rungs agree, Spearman rho = 0.95 [{at:.2f}, "
              "0.99])")
    settled, line = analysis.conclusion(0.95, at - 0.01, 0.99)
    assert not settled
    assert line.startswith("still moving: stronger bots are needed before trusting it (")
    assert "more games per rung may settle it" in line  # the estimate clears the bar
    assert "more games" not in analysis.conclusion(at - 0.01, 0.2, 0.95)[1]
    assert not analysis.conclusion(math.nan, math.nan, math.nan)[0]


def test_default_rungs_and_folder(tally):
    out, rungs, configs = plan({"game": "tally", "games": 20})
    assert default_budgets("tally") == [60, 120]  # no search_defaults: the bot's own 60
    budgets = ["mcts-60", "mcts-120"]
    assert [r.name for r in rungs] == ["random", "scripted", *budgets]
    assert [c.strategies for c in configs] == [["random"], ["greedy"], *[[b] for b in budgets]]
    assert configs[-1].variants[budgets[-1]] == {"base": "mcts", "simulations": 120}
    assert [c.out for c in configs] == [str(out / r.name) for r in rungs]
    assert out.parent.name == "runs" and out.name.startswith("ladder-tally-")
    assert plan({"game": "tally", "games": 20})[0] == out  # the same ladder, the same folder
    assert plan({"game": "tally", "games": 21})[0] != out


def test_the_default_search_rungs_follow_the_games_search_defaults():
    """Terra Mystica's search is two rounds deep at 6 simulations (30 or 60 there would cost
    several times the default's game), Terra Nova's at 12; Terramara's is the bot's own 60."""
    assert default_budgets("terra-mystica") == [6, 12]
    assert default_budgets("terra-nova") == [12, 24]
    assert default_budgets("terramara") == [60, 120]
    _, rungs, configs = plan({"game": "terra-mystica", "games": 20})
    assert [r.name for r in rungs][-2:] == ["mcts-6", "mcts-12"]
    assert configs[-1].variants["mcts-12"] == {"base": "mcts", "simulations": 12}


def test_a_game_with_tuned_bots_gets_an_untuned_rung_below_them():
    """Terra Nova ships tuned weights: the default ladder plays its scripted bots before their
    tuning (the same names, tuned = false) just below the tuned ones."""
    from strategies import default_strategies

    _, rungs, configs = plan({"game": "terra-nova", "games": 20})
    scripted = default_strategies("terra-nova")
    assert [r.name for r in rungs][:3] == ["random", "untuned", "scripted"]
    assert configs[1].strategies == [f"{n}-untuned" for n in scripted]
    assert configs[1].variants["greedy-untuned"] == {"base": "greedy", "tuned": False}
    assert configs[2].strategies == scripted


@pytest.mark.parametrize(("name", "budgets"), [("ladder.toml", (12, 24)),
                                               ("ladder-terra-mystica.toml", (6, 12))])
def test_the_example_configs_plan(tmp_path, name, budgets):
    from strategies import default_strategies

    root = Path(__file__).resolve().parent.parent
    out, rungs, configs = plan(root / "configs" / name, out=str(tmp_path / "l"))
    top = [f"mcts-{b}" for b in budgets]
    assert [r.name for r in rungs] == ["random", "untuned", "scripted", *top]
    assert configs[-1].variants[top[-1]] == {"base": "mcts", "simulations": budgets[-1]}
    assert configs[2].strategies == default_strategies(configs[2].game)
    assert configs[1].strategies == [f"{n}-untuned" for n in configs[2].strategies]
    assert all(configs[1].variants[n] == {"base": n.removesuffix("-untuned"), "tuned": False}
               for n in configs[1].strategies)
    assert {c.seed for c in configs} == {3} and not out.exists()


def _rungs(*rungs: str) -> str:
    return "[ladder]\nrungs = [" + ", ".join(rungs) + "]\n"


RANDOM = '{ name = "random", strategies = ["random"] }'


@pytest.mark.parametrize("section, message", [
    (_rungs(RANDOM, '{ name = "b", strategies = ["nope"] }'),
     "ladder rung 'b': unknown strategy 'nope' for tally"),
    (_rungs(), "at least 2 rungs, weakest bots first"),
    (_rungs(RANDOM), "at least 2 rungs, weakest bots first"),
    (_rungs(RANDOM, RANDOM), "two ladder rungs are named 'random'"),
    (_rungs(RANDOM, '{ name = "b", strategies = [] }'), "ladder rung 'b' names no strategies"),
    (_rungs(RANDOM, '{ name = "b" }'), "ladder rung 2 takes name and strategies only; it lacks"),
    (_rungs(RANDOM, '{ name = "../b", strategies = ["greedy"] }'), "names its run's folder"),
    ("[ladder]\nsteps = 3\n", "[ladder] holds rungs = [...] only, not 'steps'"),
    ("ladder = 3\n", "[ladder] must be a table"),
    ('strategies = ["greedy"]\n' + _rungs(RANDOM, RANDOM), "a ladder's rungs choose the bots"),
])
def test_bad_ladder_sections_are_refused_in_one_line(tally, tmp_path, section, message):
    path = tmp_path / "bad.toml"
    path.write_text('game = "tally"\ngames = 4\n' + section)
    result = CliRunner().invoke(cli, ["ladder", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1
    assert message in result.output
    assert not (tmp_path / "out").exists()  # refused before any rung played


def _sessions(out, rung) -> int:
    return len(json.loads((out / rung / "manifest.json").read_text())["executors"])


def test_the_same_command_resumes_an_interrupted_ladder(tally, tmp_path, ctrl_c_at_chunk):
    path = tmp_path / "ladder.toml"
    path.write_text(CONFIG.replace("games = 66", "games = 24"))
    whole = tmp_path / "whole"
    invoke("ladder", str(path), "--out", str(whole), "--workers", "1")

    # Chunks of 4 games: the first rung's 6 chunks are written, then Ctrl-C reaches the run as
    # it writes the second rung's third chunk.
    cut = tmp_path / "cut"
    ctrl_c_at_chunk(9)
    with pytest.raises(RunInterrupted) as e:
        run_ladder(path, out=str(cut), workers=1, chunk_size=4)
    assert e.value.run_dir == cut / "greedy" and 0 < e.value.finished < 24
    assert not (cut / "mcts-4").exists() and not (cut / "ladder.md").exists()
    ctrl_c_at_chunk(None)

    invoke("ladder", str(path), "--out", str(cut), "--workers", "1")
    # The finished rung was not played again; the cut one went on in a second session.
    assert [_sessions(cut, r) for r in RUNGS] == [1, 2, 1]
    assert (pl.read_csv(cut / "ladder.csv")).equals(pl.read_csv(whole / "ladder.csv"))
    for rung in RUNGS:
        a, b = (_players(d, rung).sort("game_id", "seat") for d in (whole, cut))
        assert a.equals(b)

    # Once every rung is complete, the command plays nothing and writes the same report.
    before = {p: p.stat().st_mtime_ns for p in cut.rglob("part-*.parquet")}
    printed = invoke("ladder", str(path), "--out", str(cut), "--workers", "1")
    assert [_sessions(cut, r) for r in RUNGS] == [1, 2, 1]
    assert {p: p.stat().st_mtime_ns for p in cut.rglob("part-*.parquet")} == before
    assert printed.strip().splitlines()[-1] == f"Ladder report: {cut / 'ladder.md'}"


def test_a_ladder_grows_to_more_games_per_rung(tally, tmp_path):
    """"More games per rung may settle it": the same command with more games plays only the
    games each rung is missing, and the grown ladder is the ladder played at that size."""
    path = tmp_path / "ladder.toml"
    path.write_text(CONFIG.replace("games = 66", "games = 12"))
    grown = tmp_path / "grown"
    invoke("ladder", str(path), "--out", str(grown), "--workers", "1")
    invoke("ladder", str(path), "--out", str(grown), "--workers", "1", "--games", "24")
    whole = tmp_path / "whole"
    invoke("ladder", str(path), "--out", str(whole), "--workers", "1", "--games", "24")
    assert [_sessions(grown, r) for r in RUNGS] == [2, 2, 2]
    assert (pl.read_csv(grown / "ladder.csv")).equals(pl.read_csv(whole / "ladder.csv"))
    for rung in RUNGS:
        a, b = (_players(d, rung).sort("game_id", "seat") for d in (whole, grown))
        assert a.equals(b)
    out = invoke("ladder", str(path), "--out", str(grown), "--workers", "1", code=2)
    assert "can grow to more games, not shrink to 12" in out
