"""Bots cannot cheat or hang a game: the play loop checks every decision against its own legal
set, finds what a bot changed in the state it was handed, and interrupts a bot that thinks past
the decision timeout. Each such game is forfeited with a message naming the bot and the deed."""

import random
import sys
import time

import pytest
from hang_limit import hang_limit

import terra_sim
from strategies.base import Strategy
from terra_sim.core.errors import StrategyError, UserError
from terra_sim.core.guard import StateGuard
from terra_sim.run.runner import run_tournament

FACTIONS = ["golems", "fairies", "sand-cats", "sea-dogs"]


# a bot that hangs the loop again must fail this file, not hang the test run
bounded = hang_limit(120)


class Cheat(Strategy):
    """Plays like random, but does `deed(state, legal)` on its first decision."""

    name = "cheat"
    deed = staticmethod(lambda state, legal: None)

    def __init__(self, rng, **params):
        super().__init__(rng, **params)
        self.done = False

    def choose(self, state, legal):
        if not self.done:
            self.done = True
            returned = self.deed(state, legal)
            if returned is not None:
                return returned
        return self.rng.choice(legal)


def cheat(name, deed):
    return type(name, (Cheat,), {"name": name, "deed": staticmethod(deed)})


def seat(state):
    return state.players[state.current_player()]


def play(*bots, **kw):
    return terra_sim.play_game("terra-nova", FACTIONS[:len(bots)], list(bots), 3, **kw)


def forfeit(bot_cls, *others, **kw) -> str:
    with pytest.raises(StrategyError) as e:
        play(bot_cls(random.Random(0)), *(others or ("random",)), **kw)
    return str(e.value)


def test_a_bot_that_adds_vp_to_its_own_score_forfeits():
    # (vp is a tuple the engine replaces: a cheat replaces it too)
    message = forfeit(cheat("vp-thief", lambda s, legal: setattr(seat(s), "vp",
                                                                 (50, *seat(s).vp[1:]))))
    assert "vp-thief" in message and "changed the game state it was handed" in message
    assert "players[0].vp" in message and "50" in message


def test_a_bot_that_prints_money_forfeits():
    def coins(s, legal):
        seat(s).money += 20

    message = forfeit(cheat("forger", coins))
    assert "forger" in message and "players[0].money" in message


def test_a_bot_that_hurts_an_opponent_forfeits():
    def rob(s, legal):
        s.players[1].money -= 5

    assert "players[1].money" in forfeit(cheat("robber", rob))


def test_a_bot_that_returns_an_action_it_appended_to_legal_forfeits():
    def own_move(s, legal):
        legal.append("win-the-game")
        return "win-the-game"

    message = forfeit(cheat("forger", own_move))
    assert "forger" in message and "illegal action 'win-the-game'" in message


def test_a_bot_that_changes_what_clones_share_in_place_forfeits():
    def rewire(s, legal):
        seat(s).eff["extra"] = 3  # each player's ability table, shared with every clone

    assert "players[0].eff (changed in place)" in forfeit(cheat("rewirer", rewire))


def test_a_bot_that_applies_a_move_on_the_real_state_forfeits():
    def peek(s, legal):
        s.apply(legal[0])  # a look-ahead without clone(): a bug, not a cheat, but as harmful

    message = forfeit(cheat("peeker", peek))
    assert "peeker" in message and "changed the game state" in message


def test_honest_bots_that_hold_the_state_play_on():
    class Holder(Strategy):
        name = "holder"

        def __init__(self, rng, **params):
            super().__init__(rng, **params)
            self.held = None

        def choose(self, state, legal):
            assert self.held is None or self.held is state  # the real state, every time
            self.held = state
            c = state.clone()
            c.apply(legal[0])  # looking ahead on a clone is fine
            return self.rng.choice(legal)

    rec = play(Holder(random.Random(0)), "random")
    assert rec.n_decisions > 20


def test_the_guard_finds_nothing_in_an_untouched_state_all_game_long():
    g = terra_sim.get_game("terra-mystica")
    state = g.new_state(["witches", "nomads", "halflings"], 4)
    guard = StateGuard()
    rng = random.Random(4)
    while not state.is_over():
        token = guard.before(state)
        action = rng.choice(state.legal_actions())
        assert guard.changes(state, token) == []
        state.apply(action)
    token = guard.before(state)
    before = list(state.players[2].cults)
    state.players[2].cults[1] += 1
    assert guard.changes(state, token) == [
        f"players[2].cults: {before} -> {state.players[2].cults}"]


class Sleeper(Strategy):
    name = "sleeper"

    def choose(self, state, legal):
        time.sleep(3600)
        return legal[0]


class Spinner(Strategy):
    name = "spinner"

    def choose(self, state, legal):
        while True:  # noqa: ASYNC110 - a bot that never returns, on purpose
            pass


class Stubborn(Strategy):
    """Swallows the first interruptions with a bare except, then gives up."""

    name = "stubborn"

    def choose(self, state, legal):
        for _ in range(3):
            try:
                time.sleep(3600)
            except BaseException:
                pass
        return legal[0]


@pytest.mark.parametrize("bot", [Sleeper, Spinner, Stubborn])
def test_a_bot_that_never_returns_is_interrupted_at_the_timeout(bot):
    message = forfeit(bot, decision_timeout=0.2)
    assert bot.name in message and "still thinking after 0.2s" in message \
        or "took" in message and "limit 0.2s" in message


def test_a_timeout_leaves_no_timer_behind():
    import signal

    forfeit(Sleeper, decision_timeout=0.1)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.default_int_handler,
                                               None)
    rec = play("random", "random", decision_timeout=5)  # a generous limit changes no game
    assert rec.actions == play("random", "random").actions


@pytest.mark.parametrize("value", [0, -1, 0.0])
def test_a_timeout_that_is_not_positive_is_refused(value, tmp_path):
    with pytest.raises(UserError, match="decision_timeout must be a positive number"):
        run_tournament(games=1, strategies="random", workers=1, out=tmp_path / "r",
                       decision_timeout=value)
    with pytest.raises(UserError, match="decision_timeout must be a positive number"):
        play("random", "random", decision_timeout=value)


def test_a_bot_that_calls_sys_exit_forfeits_and_the_run_goes_on(tmp_path):
    bot = tmp_path / "quitter.py"
    bot.write_text("import sys\nfrom strategies.base import Strategy\n\n\n"
                   "class Quitter(Strategy):\n    name = 'quitter'\n\n"
                   "    def choose(self, state, legal):\n        sys.exit(4)\n")
    result = run_tournament(games=4, players=2, workers=2, out=tmp_path / "r",
                            strategies=f"{bot}:Quitter,random", per_seat=True)
    assert result.errors.height == 4
    assert result.errors["message"].str.contains("quitter").all()
    assert result.errors["message"].str.contains("SystemExit: 4").all()
    assert result.manifest["finished_at"] is not None


def test_timeouts_and_cheats_are_logged_in_a_run_that_goes_on(tmp_path):
    bot = tmp_path / "bots.py"
    bot.write_text(
        "import time\nfrom strategies.base import Strategy\n\n\n"
        "class Slow(Strategy):\n    name = 'slow'\n\n"
        "    def choose(self, state, legal):\n"
        "        if state.round == 2:\n            time.sleep(3600)\n"
        "        return self.rng.choice(legal)\n\n\n"
        "class Thief(Strategy):\n    name = 'thief'\n\n"
        "    def choose(self, state, legal):\n"
        "        state.players[state.current_player()].money += 50\n"
        "        return self.rng.choice(legal)\n")
    result = run_tournament(games=6, players=3, workers=2, out=tmp_path / "r",
                            strategies=f"{bot}:Slow,{bot}:Thief,random", per_seat=True,
                            decision_timeout=0.3)
    messages = result.errors["message"].to_list()
    assert len(messages) == 6  # every game has both bots: whoever errs first forfeits it
    assert all("slow" in m or "thief" in m for m in messages)
    assert any("thief" in m and "changed the game state" in m for m in messages)
    assert result.manifest["config"]["decision_timeout"] == 0.3


if sys.platform != "linux":  # pragma: no cover
    pytestmark = pytest.mark.skip("the decision deadline needs setitimer")


@pytest.mark.parametrize("game", ["terra-nova", "terra-mystica"])
def test_our_own_bots_never_change_the_state_so_the_loop_may_trust_them(game):
    """play_game guards user bots only (the guard's cost stays off our bots' games): every bot
    of the game's roster, the search bot on a small budget included, is checked here instead."""
    from strategies import make_strategy, roster
    from terra_sim.core.record import new_game, play
    from terra_sim.core.rng import stream
    from terra_sim.games import get_game

    g = get_game(game)
    names = [n for n in roster(game) if n != "mcts"]
    specs = [*names, ("mcts", {"simulations": 4, "candidates": 2})]
    for i in range(0, len(specs), 2):
        pair = specs[i:i + 2] if len(specs[i:i + 2]) == 2 else [specs[i], "random"]
        state, setup = new_game(g, None, 40 + i, 2, None, {})
        bots = [make_strategy(s, stream(40 + i, "strategy", k), game=game)
                for k, s in enumerate(pair)]
        play(g, state, setup, bots)  # guarded=None: every seat checked; a change would raise


def test_user_bots_are_guarded_and_ours_are_not():
    from strategies import is_shipped, make_strategy

    ours = make_strategy("greedy", random.Random(1), game="terra-nova")
    assert is_shipped(ours, "terra-nova")
    assert not is_shipped(Cheat(random.Random(1)), "terra-nova")
