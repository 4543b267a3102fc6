"""The watchdog: with a decision timeout, a worker stuck in one decision where its own deadline
cannot interrupt the bot (the interruption swallowed, the alarm signal blocked) is killed by the
parent, the game is logged as that bot's forfeit, and the run goes on to its end.

The margin after the timeout is shrunk from seconds to a fraction of one here, so that each test
takes a few seconds; every test is bounded, so that a regression fails instead of hanging."""

import random
import sys

import pytest
from bot_sources import MASKED, SWALLOW
from hang_limit import hang_limit

from strategies.base import Strategy
from terra_sim import play_game
from terra_sim.core.deadline import Heartbeat, post_to, posting
from terra_sim.core.rng import derive_seed
from terra_sim.run import local, runner
from terra_sim.run.replay import replay
from terra_sim.run.runner import run_tournament
from terra_sim.store import schema

if sys.platform != "linux":  # pragma: no cover
    pytestmark = pytest.mark.skip("the decision deadline needs setitimer")

bounded = hang_limit(60)

GAMES = 9
HUNG = {i for i in range(GAMES) if derive_seed(1, "game", i) % 3 == 0}  # where the bots hang


@pytest.fixture(autouse=True)
def short_margin(monkeypatch):
    monkeypatch.setattr(local, "WATCHDOG_MARGIN_S", 0.3)


def hanging_run(tmp_path, source, cls, out="r", **kw):
    bot = tmp_path / f"{cls.lower()}.py"
    bot.write_text(source)
    return run_tournament(out=tmp_path / out, games=GAMES, players=2, workers=2, per_seat=True,
                          strategies=f"{bot}:{cls},random", decision_timeout=0.5, **kw)


@pytest.mark.parametrize("source, cls", [(SWALLOW, "Swallow"), (MASKED, "Masked")],
                         ids=["swallows-the-interruption", "blocks-the-alarm"])
def test_a_bot_the_deadline_cannot_stop_is_killed_and_the_run_finishes(tmp_path, source, cls):
    assert 0 < len(HUNG) < GAMES
    result = hanging_run(tmp_path, source, cls)
    errors = result.errors
    assert set(errors["game_id"]) == HUNG
    assert errors.columns == list(schema.ERRORS_SCHEMA)  # the columns of every error row
    for message in errors["message"]:
        assert message.startswith(f"StrategyError: seat 0 ({cls.lower()}): was still thinking")
        assert "limit of 0.5s for one decision" in message
        assert "killed by the watchdog" in message
    # the stack the worker wrote before it was killed: where the bot hung
    assert errors["traceback"].str.contains(f'{cls.lower()}.py", line').all()
    assert errors["traceback"].str.contains("in choose").all()
    assert set(result.games["game_id"]) == set(range(GAMES)) - HUNG
    assert result.players.height == 2 * (GAMES - len(HUNG))
    assert result.manifest["finished_games"] + result.manifest["failed_games"] == GAMES
    assert result.manifest["finished_at"] is not None
    assert sum("killed by the watchdog" in n for n in result.stats.notes) == len(HUNG)
    lines = []  # replaying a hung game shows where it hung, and does not hang this process
    assert not replay(result.run_dir, min(HUNG), echo=lines.append).matches
    assert "killed by the watchdog" in lines[0] and "in choose" in lines[1]
    assert "Not played again" in lines[2]


def test_a_run_with_hung_games_resumes_after_ctrl_c_to_the_same_tables(tmp_path,
                                                                      ctrl_c_at_chunk):
    whole = hanging_run(tmp_path, MASKED, "Masked", out="whole", chunk_size=2)
    ctrl_c_at_chunk(3)
    with pytest.raises(runner.RunInterrupted):
        hanging_run(tmp_path, MASKED, "Masked", out="cut", chunk_size=2)
    ctrl_c_at_chunk(None)
    resumed = run_tournament(resume=tmp_path / "cut")
    assert resumed.manifest["finished_at"] is not None
    for table in ("games", "players", "actions"):
        got = getattr(resumed, table)
        assert got.drop("duration_s", strict=False).equals(
            getattr(whole, table).drop("duration_s", strict=False)), table
    assert resumed.errors["game_id"].to_list() == whole.errors["game_id"].to_list()


def test_without_a_decision_timeout_there_is_no_watchdog(tmp_path, monkeypatch):
    seen = []
    real = local.WorkerPool

    def pool(*a, **kw):
        seen.append(kw["watchdog"])
        return real(*a, **kw)

    monkeypatch.setattr(local, "WorkerPool", pool)
    run_tournament(out=tmp_path / "a", games=2, strategies="random", workers=1)
    run_tournament(out=tmp_path / "b", games=2, strategies="random", workers=1,
                   decision_timeout=2)
    assert seen == [None, 2 + local.WATCHDOG_MARGIN_S]


def test_a_decision_is_posted_while_the_bot_thinks_and_cleared_after(tmp_path):
    seen = []

    class Looker(Strategy):
        name = "looker"

        def choose(self, state, legal):
            seen.append(posting().stuck())
            return self.rng.choice(legal)

    beat = Heartbeat()
    post_to(beat)
    try:
        beat.game(7)
        rec = play_game("terra-nova", ["golems", "fairies"], [Looker(random.Random(1)),
                                                               "random"], 3,
                        decision_timeout=5)
    finally:
        post_to(None)
    assert len(seen) == sum(s == 0 for s in rec.action_seats)
    assert {(g, s) for g, s, _ in seen} == {(7, 0)}
    assert all(0 <= t < 5 for _, _, t in seen)
    assert beat.stuck() is None  # between decisions: nothing for the watchdog
