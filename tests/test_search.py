"""The game-agnostic search bot on the test game (tests/plugin_game.py): the tree it grows, its
determinism and its strength without any game heuristic."""

import math
import random

import plugin_game
import pytest

import terra_sim
from strategies import make_strategy
from strategies.heuristic import Heuristic
from strategies.search import Memo, Node, SearchStrategy
from terra_sim.core.errors import UserError

pytestmark = pytest.mark.usefixtures("tally_game")


def grow(expand_after: int, simulations: int) -> tuple[Node, plugin_game.TallyState]:
    bot = make_strategy(("mcts", {"expand_after": expand_after, "horizon": 0}),
                        random.Random(1), "tally")
    state = plugin_game.Tally().new_state(["ant", "cat", "eel"], 4)
    root = Node(state.current_player(), bot.heuristic.root_moves(state,
                                                                  state.legal_actions()))
    for _ in range(simulations):
        bot.simulate(state, root, math.inf)
    return root, state


def test_without_a_game_heuristic_every_legal_move_is_searched():
    bot = make_strategy("mcts", random.Random(0), "tally")
    assert type(bot.heuristic) is Heuristic
    state = plugin_game.Tally().new_state(["ant", "cat"], 1)
    assert [seq for seq, _ in bot.heuristic.root_moves(state, state.legal_actions())] == [
        [("step", 1)], [("step", 2)], [("step", 3)]]


def test_flat_search_grows_no_tree():
    root, _ = grow(0, 60)
    assert sum(root.visits) == 60 and not root.children


def test_the_tree_grows_below_moves_tried_often_enough():
    root, state = grow(3, 200)
    assert sum(root.visits) == 200
    assert set(root.children) == {i for i, v in enumerate(root.visits) if v >= 3}
    child = next(iter(root.children.values()))
    after = state.clone()
    after.apply(root.moves[next(iter(root.children))][0])
    assert child.seat == after.current_player() != root.seat  # the next seat decides there
    assert sum(child.visits) == root.visits[next(iter(root.children))] - 2
    assert any(c.children for c in root.children.values())  # and deeper still


@pytest.mark.parametrize("expand_after", [0, 3])
def test_search_beats_random_and_replays(expand_after):
    bot = ("mcts", {"expand_after": expand_after, "simulations": 40})
    wins = 0
    for seed in range(8):
        seats = [bot, "random"] if seed % 2 == 0 else ["random", bot]
        rec = terra_sim.play_game("tally", None, seats, seed, players=2)
        me = seats.index(bot)
        wins += rec.final_vp[me] > rec.final_vp[1 - me]
        again = terra_sim.play_game("tally", None, seats, seed, players=2)
        assert again.actions == rec.actions
    assert wins >= 7


def test_bad_parameters_are_user_errors():
    for params, message in [({"expand_after": -1}, "expand_after must be an integer >= 0"),
                            ({"horizon": 1.5}, "horizon must be an integer"),
                            ({"exploration": "wide"}, "exploration must be a number"),
                            ({"exact_first": 1}, "exact_first must be true or false")]:
        with pytest.raises(UserError, match=message):
            make_strategy(("mcts", params), random.Random(0), "tally")
    assert SearchStrategy.kind == "search"


def test_a_budget_short_of_the_root_moves_searches_the_best_of_them():
    """Two simulations over three root moves try the heuristic's first two once each (a budget
    of one plays its first move unsearched)."""
    state = plugin_game.Tally().new_state(["ant", "cat", "eel"], 4)
    for budget, searched in ((2, [2, 2]), (3, [3, 3, 3]), (1, [])):
        bot = make_strategy(("mcts", {"simulations": budget, "horizon": 0}), random.Random(1),
                            "tally")
        calls: list[int] = []
        simulate = bot.simulate

        def counted(s, root, last, simulate=simulate, calls=calls):
            calls.append(len(root.moves))
            simulate(s, root, last)

        bot.simulate = counted  # type: ignore[method-assign]
        a = bot.choose(state, state.legal_actions())
        assert calls == searched and len(bot.options) == 3
        assert a in [seq[0] for seq, _ in bot.options[:max(1, budget)]]


@pytest.mark.parametrize("exact_first", [True, False])
def test_exact_first_plays_each_root_moves_first_playout_without_noise(exact_first):
    bot = make_strategy(("mcts", {"exact_first": exact_first, "horizon": 0}), random.Random(1),
                        "tally")
    h = bot.heuristic
    state = plugin_game.Tally().new_state(["ant", "cat", "eel"], 4)
    root = Node(state.current_player(), h.root_moves(state, state.legal_actions()))
    seen = []
    playout = h.playout

    def noted(s, legal, memo):
        seen.append(h.exact)
        return playout(s, legal, memo)

    h.playout = noted  # type: ignore[method-assign]
    firsts = []
    for _ in range(12):
        firsts.append(not root.visits[root.select(1.0)])  # the move the walk will pick
        seen.clear()
        bot.simulate(state, root, math.inf)
        assert seen and set(seen) == {exact_first and firsts[-1]}
    n = len(root.moves)
    assert firsts[:n] == [True] * n and not any(firsts[n:])


def test_a_game_heuristic_sets_the_search_defaults_and_given_parameters_win():
    """Terra Mystica's search plays two rounds deep at 6 simulations, each root move's first
    playout exact, Terra Nova's at 12; Terramara keeps the bot's own defaults."""
    def params(game: str, given: dict) -> dict:
        return make_strategy(("mcts", given), random.Random(0), game).p

    tm = params("terra-mystica", {})
    assert (tm["horizon"], tm["simulations"], tm["exact_first"]) == (2, 6, True)
    assert params("terra-mystica", {"budget": 30})["simulations"] == 30
    assert params("terra-mystica", {"horizon": 1})["horizon"] == 1
    tn = params("terra-nova", {})
    assert (tn["horizon"], tn["simulations"], tn["exact_first"]) == (2, 12, True)
    tr = params("terramara", {})
    assert {k: tr[k] for k in SearchStrategy.params} == SearchStrategy.params
    with pytest.raises(UserError, match="horizon must be an integer"):
        make_strategy(("mcts", {"horizon": "two"}), random.Random(0), "terra-mystica")


@pytest.mark.parametrize("game", ["terra-mystica", "terra-nova", "terramara"])
def test_the_memo_changes_no_choice(game, monkeypatch):
    """What a search keeps per state it reached (the playout policy's look-ahead, a leaf's
    values) is what it would have computed again: games with and without it are identical."""
    seats = [("mcts", {"simulations": 16}), "greedy"]
    after, reached = Memo.after, []

    def counted(self: Memo, a: object) -> Memo:
        reached.append(a in self.next)
        return after(self, a)

    monkeypatch.setattr(Memo, "after", counted)
    kept = terra_sim.play_game(game, None, seats, 5, players=2)
    # many states are reached again (about half, with these seeds and today's bots)
    assert sum(reached) > len(reached) / 3
    monkeypatch.setattr(Memo, "after", lambda self, a: Memo())  # every state is new
    fresh = terra_sim.play_game(game, None, seats, 5, players=2)
    assert kept.actions == fresh.actions
