"""A game plugs in with no change outside its folders: the test game in plugin_game.py, registered
from here, goes through list, play, run (two workers), report, compare and replay, and the
game-agnostic search bot plays it."""

import json

import plugin_game
import polars as pl
import pytest
from click.testing import CliRunner

import strategies
import terra_sim
from terra_sim.cli import cli
from terra_sim.core.errors import UserError

pytestmark = pytest.mark.usefixtures("tally_game")


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_listed_beside_the_shipped_games():
    assert "tally" in terra_sim.game_slugs()
    assert "Tally (a test game)" in invoke("list", "games")
    factions = invoke("list", "factions", "--game", "tally")
    assert factions.splitlines()[0].split() == ["faction", "colour", "knack"]
    assert "hen" in factions
    assert invoke("list", "options", "--game", "tally").split() == ["length", "long,", "short"]


def test_strategy_names_are_per_game():
    tally, tn = strategies.roster("tally"), strategies.roster("terra-nova")
    assert list(tally) == ["random", "mcts", "greedy"]
    assert tally["greedy"] is plugin_game.TallyGreedy and tn["greedy"] is not tally["greedy"]
    assert strategies.default_strategies("tally") == ["greedy"]
    with pytest.raises(UserError, match=r"unknown strategy 'merchant' for tally \(valid: "
                                        r"random, mcts, greedy,"):
        strategies.make_strategy("merchant", None, "tally")
    out = invoke("list", "strategies", "--game", "tally")
    assert "The step worth the most VP" in out and "merchant" not in out


def test_a_terra_nova_bot_named_by_module_refuses_another_game():
    with pytest.raises(UserError, match="plays terra-nova, not tally"):
        strategies.resolve("strategies.terra_nova.greedy:GreedyStrategy", "tally")


def test_play_shows_rounds_setup_and_hides_quiet_actions():
    out = invoke("play", "--game", "tally", "--players", "5", "--strategies", "greedy")
    assert "start player:" in out and "== round 3 ==" in out and "== round 4 ==" not in out
    assert "done" not in out.split("Final score breakdown:")[0]
    assert "done" in invoke("play", "--game", "tally", "--players", "2", "--step")
    assert "== round 2 ==" not in invoke("play", "--game", "tally", "-o", "length=short",
                                         "--players", "2")
    header = out.split("Final score breakdown:")[1].splitlines()[1].split()
    assert header == ["faction", "steps", "bonus", "knack", "total"]


def test_run_report_compare_and_replay(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    invoke("run", "--game", "tally", "--players", "2,5", "--games", "64", "--workers", "2",
           "--out", str(a), "--no-report")
    manifest = json.loads((a / "manifest.json").read_text())
    assert manifest["game"] == "tally" and manifest["categories"] == ["steps", "bonus", "knack"]
    assert manifest["strategies"] == ["greedy"] and manifest["finished_games"] == 64
    assert manifest["approximate_data"] == ["knack values: made up for the test"]
    players = pl.read_parquet(a / "players" / "*.parquet")
    assert {"vp_steps", "vp_bonus", "vp_knack"} <= set(players.columns)
    assert sorted(players["n_players"].unique()) == [2, 5]
    assert set(players["faction"]) == set(plugin_game.FACTIONS)
    games = pl.read_parquet(a / "games" / "*.parquet")
    assert (games["rounds"] == 3).all() and (games["game"] == "tally").all()
    assert all("start_player" in json.loads(s) for s in games["setup"])

    invoke("report", str(a), "--out", str(tmp_path / "ra"))
    report = (tmp_path / "ra" / "report.md").read_text()
    assert "tally" in report and "knack values: made up for the test" in report
    cats = pl.read_csv(tmp_path / "ra" / "tables" / "vp_categories.csv")
    assert {"vp_steps", "vp_bonus", "vp_knack"} <= set(cats.columns)

    invoke("run", "--game", "tally", "--players", "3", "--games", "24", "--workers", "1",
           "--strategies", "greedy,random", "--out", str(b), "--no-report")
    invoke("compare", str(a), str(b), "--out", str(tmp_path / "cmp"))
    assert "## Change by faction" in (tmp_path / "cmp" / "report.md").read_text()
    changes = pl.read_csv(tmp_path / "cmp" / "tables" / "faction_changes.csv")
    assert set(changes["faction"]) <= set(plugin_game.FACTIONS) and changes.height >= 5
    out = invoke("replay", str(a), "5")
    assert "Scores match the log." in out


def test_the_search_bot_plays_a_game_it_has_no_heuristic_for():
    wins = 0
    for seed in range(10):
        seats = ["mcts", "random"] if seed % 2 == 0 else ["random", "mcts"]
        rec = terra_sim.play_game("tally", None, seats, seed, players=2)
        me = seats.index("mcts")
        wins += rec.final_vp[me] > rec.final_vp[1 - me]
        assert terra_sim.replay_game(rec).final_vp == rec.final_vp
    assert wins >= 8
