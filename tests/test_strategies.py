"""Strategy protocol, loading, config variants, forfeits, legality and determinism."""

import random
import re
import time
import tomllib
from pathlib import Path

import pytest

import strategies
from strategies import make_strategy, roster, variant_spec
from strategies.base import Strategy
from terra_sim import get_game, play_game
from terra_sim.core.errors import StrategyError, UserError
from terra_sim.games.terra_nova.actions import Action

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "strategies" / "terra_nova" / "examples" / "house_first.py"
SCRIPTED = ["greedy", "expander", "merchant", "town-builder", "power-player", "round-scorer"]
TINY_MCTS = ("mcts", {"simulations": 6, "candidates": 3})
TN = "terra-nova"
GAME = get_game(TN)
REGISTRY = roster(TN)


def faction_sets(n: int, count: int, seed: int) -> list[list[str]]:
    """`count` legal faction line-ups of n players that together use every faction."""
    rng = random.Random(seed)
    out = [GAME.random_factions(n, rng) for _ in range(count)]
    groups = [sorted(g) for g in GAME.exclusive_groups()]
    for side in range(2):  # one line-up with each side of every mat
        picks = [g[side % len(g)] for g in groups]
        out += [picks[i:i + n] for i in range(0, len(picks) - n + 1, n)]
    return out


# ----- protocol and registry ------------------------------------------
def test_registry_has_the_roster_with_descriptions():
    for name in ["random", *SCRIPTED, "mcts"]:
        cls = REGISTRY[name]
        assert cls.name == name
        assert issubclass(cls, Strategy) and cls.description
        bot = cls(random.Random(0))
        assert bot.p == cls.params


def test_list_strategies_shows_every_bot():
    from click.testing import CliRunner

    from terra_sim.cli.listing import list_group

    out = CliRunner().invoke(list_group, ["strategies", "--game", "terra-nova"]).output
    for name in REGISTRY:
        assert re.search(rf"^{re.escape(name)}\s", out, re.M), name
    assert "simulations=12, candidates=5, horizon=2," in out and "top_k=" in out
    # a game's own search defaults are what its listing shows; Terramara's are the bot's own
    tm = CliRunner().invoke(list_group, ["strategies", "--game", "terra-mystica"]).output
    assert "simulations=6, candidates=5, horizon=2," in tm and "exact_first=True" in tm
    tr = CliRunner().invoke(list_group, ["strategies", "--game", "terramara"]).output
    assert "simulations=60, candidates=5, horizon=1," in tr


def test_unknown_parameters_and_weights_are_user_errors():
    with pytest.raises(UserError, match="unknown parameters"):
        make_strategy(("greedy", {"nonsense": 1}), random.Random(0), TN)
    with pytest.raises(UserError, match="unknown weights"):
        make_strategy(("greedy", {"weights": {"moneyy": 1}}), random.Random(0), TN)
    with pytest.raises(UserError, match="must be a number"):
        make_strategy(("merchant", {"money": "lots"}), random.Random(0), TN)
    with pytest.raises(UserError, match="must be an integer"):
        make_strategy(("mcts", {"simulations": -3}), random.Random(0), TN)
    with pytest.raises(UserError, match="unknown strategy"):
        make_strategy("no-such-bot", random.Random(0), TN)


# ----- loading user bots ------------------------------------------
def test_readme_shows_the_example_bot_verbatim():
    readme = (ROOT / "strategies" / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert EXAMPLE.read_text() in blocks
    assert 20 <= len(EXAMPLE.read_text().splitlines()) <= 40


def test_load_bot_from_file_path_and_play(tmp_path):
    readme = (ROOT / "strategies" / "README.md").read_text()
    code = re.findall(r"```python\n(.*?)```", readme, re.S)[0]
    path = tmp_path / "my_bot.py"
    path.write_text(code)
    spec = f"{path}:HouseFirst"
    rec = play_game("terra-nova", None, [spec, "random"], seed=3, players=2)
    assert rec.strategies == ["house-first", "random"]
    assert strategies.load_class(spec) is strategies.load_class(spec)  # executed once


def test_load_bot_from_module_path():
    cls = strategies.resolve("strategies.terra_nova.examples.house_first:HouseFirst", TN)
    assert cls.name == "house-first"
    rec = play_game("terra-nova", None, ["strategies.terra_nova.examples.house_first:HouseFirst",
                                         "greedy"], seed=5, players=2)
    assert rec.final_vp[1] > rec.final_vp[0]


@pytest.mark.parametrize("spec, message", [
    ("missing/file.py:Bot", "not found"),
    ("strategies.terra_nova.examples.house_first:Nope", "not a Strategy subclass"),
    ("no_such_module_xyz:Bot", "cannot load"),
    (":Bot", "expected"),
])
def test_bad_load_specs_are_user_errors(spec, message):
    with pytest.raises(UserError, match=message):
        strategies.resolve(spec, TN)


def test_broken_bot_file_is_a_user_error(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("def oops(:\n")
    with pytest.raises(UserError, match="SyntaxError"):
        strategies.resolve(f"{path}:Bot", TN)


def test_a_strategy_takes_its_parameters_inline():
    split = strategies.split_spec
    assert split("mcts") == ("mcts", {})
    assert split("mcts:budget=30") == ("mcts", {"budget": 30})
    assert split("mcts:simulations=8:rollout_noise=0.2:candidates=3") == (
        "mcts", {"simulations": 8, "rollout_noise": 0.2, "candidates": 3})
    assert split("greedy:tuned=false:label=x") == ("greedy", {"tuned": False, "label": "x"})
    assert split("path/to/bot.py:MyBot") == ("path/to/bot.py:MyBot", {})
    assert split("path/to/bot.py:MyBot:depth=2") == ("path/to/bot.py:MyBot", {"depth": 2})
    assert split("pkg.mod:Bot:depth=2") == ("pkg.mod:Bot", {"depth": 2})
    with pytest.raises(UserError, match="given twice"):
        split("mcts:budget=3:budget=4")
    # `budget` is the search's simulations by their everyday name
    bot = make_strategy("mcts:budget=6:candidates=3", random.Random(0), TN)
    assert type(bot).name == "mcts" and bot.name == "mcts:budget=6:candidates=3"
    assert bot.p["simulations"] == 6 and bot.p["candidates"] == 3
    for spec, message in [("mcts:budget=5:simulations=5", "another name for simulations"),
                          ("mcts:budget=many", "must be an integer"),
                          ("mcts:depth=3", "unknown parameters"),
                          ("nobot:budget=3", "unknown strategy 'nobot'")]:
        with pytest.raises(UserError, match=message):
            make_strategy(spec, random.Random(0), TN)
    # the same game as the (base, params) form, reported by the name it was given
    inline = play_game(TN, None, ["mcts:budget=6:candidates=3", "greedy"], seed=4, players=2)
    table = play_game(TN, None, [TINY_MCTS, "greedy"], seed=4, players=2)
    assert inline.final_vp == table.final_vp and inline.actions == table.actions
    assert inline.strategies == ["mcts:budget=6:candidates=3", "greedy"]
    bot = make_strategy(("mcts:budget=6:candidates=2", {"candidates": 3}), random.Random(0), TN)
    assert bot.p["simulations"] == 6 and bot.p["candidates"] == 3
    # a variant's base may carry parameters too; the table's own win
    assert variant_spec("m", {"base": "mcts:budget=6:candidates=2", "candidates": 3}, TN) == (
        "mcts", {"budget": 6, "candidates": 3})


# ----- config variants ------------------------------------------
def test_variant_spec_validates_and_builds_named_instances():
    assert variant_spec("greedy-tight", {"base": "greedy", "money": 0.5}, TN) == (
        "greedy", {"money": 0.5})
    base, params = variant_spec("g2", {"base": "merchant", "weights": {"tp": 4.0}, "top_k": 3}, TN)
    bot = make_strategy((base, params, "g2"), random.Random(0), TN)
    assert bot.name == "g2" and type(bot).name == "merchant"
    assert bot.w["tp"] == 4.0 and bot.p["top_k"] == 3
    assert make_strategy(("greedy", {"money": 0.5}), random.Random(0), TN).name == "greedy"
    for table, message in [({"money": 1}, "needs base"), ({"base": "nobot"}, "unknown strategy"),
                           ({"base": "greedy", "colour": "red"}, "unknown parameters"),
                           ({"base": "greedy", "weights": {"zzz": 1}}, "unknown weights"),
                           ({"base": "mcts", "simulations": "many"}, "must be an integer")]:
        with pytest.raises(UserError, match=message):
            variant_spec("v", table, TN)


def test_variant_name_is_recorded_in_games():
    spec = ("greedy", {"money": 0.3}, "greedy-loose")
    rec = play_game("terra-nova", None, [spec, "greedy"], seed=11, players=2)
    assert rec.strategies == ["greedy-loose", "greedy"]


# ----- forfeits ------------------------------------------
class Raising(Strategy):
    name = "raising"

    def choose(self, state, legal):
        if state.round >= 2:
            raise RuntimeError("boom")
        return legal[0]


class Illegal(Strategy):
    name = "illegal"

    def choose(self, state, legal):
        return ("build", (999,))


class Slow(Strategy):
    name = "slow"

    def choose(self, state, legal):
        time.sleep(0.02)
        return legal[0]


@pytest.mark.parametrize("bot, message", [
    (Raising(random.Random(0)), "raised RuntimeError: boom"),
    (Illegal(random.Random(0)), "illegal action"),
    (Slow(random.Random(0)), "for one decision"),
])
def test_misbehaving_bots_forfeit_by_strategy_error(bot, message):
    with pytest.raises(StrategyError, match=message) as info:
        play_game("terra-nova", None, ["random", bot], seed=1, players=2,
                  decision_timeout=0.01)
    assert info.value.seat == 1


def test_a_generous_timeout_lets_a_slow_bot_finish():
    rec = play_game("terra-nova", None, ["random", Slow(random.Random(0))], seed=1, players=2,
                    decision_timeout=5.0)
    assert rec.rounds == 5


# ----- legality over many games ------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_bot_plays_only_legal_actions_with_every_faction(n):
    roster = [*SCRIPTED, "random"]
    seen: set[str] = set()
    lineups = faction_sets(n, {2: 40, 3: 30, 4: 30}[n], seed=n)
    for i, factions in enumerate(lineups):
        bots = [roster[(i + k) % len(roster)] for k in range(n)]
        rec = play_game("terra-nova", factions, bots, seed=1000 * n + i)  # checks legality
        assert rec.rounds == 5
        seen.update(factions)
    assert seen == set(GAME.faction_slugs())


@pytest.mark.parametrize("variant", ["planner", "lucky-digger"])
def test_two_player_variants(variant):
    for i in range(6):
        rec = play_game("terra-nova", None, [SCRIPTED[i], SCRIPTED[(i + 2) % 6]], seed=i,
                        players=2, variant=variant, turn_order="dropout" if i % 2 else
                        "clockwise")
        assert any(a.startswith("neutral") for a in rec.actions)


@pytest.mark.parametrize("expand_after", [0, 2])
def test_mcts_plays_legal_games_with_a_tiny_budget(expand_after):
    tiny = (TINY_MCTS[0], {**TINY_MCTS[1], "expand_after": expand_after})
    for i, factions in enumerate(faction_sets(4, 1, seed=9)[:3]):
        bots = [tiny, "greedy", "merchant", "random"]
        rec = play_game("terra-nova", factions, bots[i % 4:] + bots[:i % 4], seed=77 + i)
        assert rec.rounds == 5


# ----- determinism and sense ------------------------------------------
@pytest.mark.parametrize("bot", [*SCRIPTED, TINY_MCTS])
def test_same_seed_same_choices(bot):
    a = play_game("terra-nova", None, [bot, "greedy", "random"], seed=21, players=3)
    b = play_game("terra-nova", None, [bot, "greedy", "random"], seed=21, players=3)
    assert a.actions == b.actions and a.final_vp == b.final_vp


@pytest.mark.parametrize("bot", SCRIPTED)
def test_scripted_bots_beat_random(bot):
    wins = 0
    for seed in range(6):
        seats = [bot, "random"] if seed % 2 == 0 else ["random", bot]
        rec = play_game("terra-nova", None, seats, seed=seed, players=2)
        me = seats.index(bot)
        wins += rec.final_vp[me] > rec.final_vp[1 - me]
    assert wins == 6


def test_bots_do_not_change_the_state_they_are_shown():
    rng = random.Random(4)
    state = GAME.new_state(["druids", "golems", "sea-dogs", "inventors"], 4)
    bots = [make_strategy(name, random.Random(k), TN) for k, name in enumerate(SCRIPTED)]
    while not state.is_over():
        legal = state.legal_actions()
        before = (state.vp(), state.occupied, [(p.money, p.p1, p.p2, p.p3, p.houses)
                                              for p in state.players], state.stage)
        for bot in bots:
            assert bot.choose(state, legal) in legal
        after = (state.vp(), state.occupied, [(p.money, p.p1, p.p2, p.p3, p.houses)
                                             for p in state.players], state.stage)
        assert before == after
        state.apply(legal[rng.randrange(len(legal))] if rng.random() < 0.3
                    else bots[0].choose(state, legal))


@pytest.mark.parametrize("seed", range(3))
def test_the_valuation_memo_gives_what_a_fresh_valuation_gives(seed):
    """Greedy's look-ahead values its candidates through one Context per decision, whose memo
    reuses the first state's groups, reach and terms; each value must equal, to the last bit,
    the one a Context of its own (nothing reused) gives."""
    from strategies.terra_nova.greedy import GreedyStrategy
    from strategies.terra_nova.valuation import Context, valuation

    checked = 0

    class Checking(GreedyStrategy):
        def evaluate(self, state, seat, p, top, extra):
            nonlocal checked
            ctx = Context.of(state, seat, self.weights)
            states = [state]
            for a in top:
                c = state.clone()
                if a in extra:
                    c.apply(Action("exchange", (extra[a],)))
                c.apply(a)
                self.settle(c, seat)
                states.append(c)
            for c in states:
                fresh = Context(seat, self.weights, ctx.fut, ctx.others_network)
                assert valuation(c, seat, ctx) == valuation(c, seat, fresh)
                checked += 1
            return super().evaluate(state, seat, p, top, extra)

    factions = GAME.random_factions(4, random.Random(seed))
    state = GAME.new_state(factions, seed)
    bots = [Checking(random.Random(k)) for k in range(4)]
    while not state.is_over():
        state.apply(bots[state.current_player()].choose(state, state.legal_actions()))
    assert checked > 300


def test_the_prefilter_prices_actions_as_the_engine_charges():
    """money_cost (read from a table per action kind) against the coins apply() takes, for every
    turn action legal at greedy's decisions, with both sides of every faction mat; shovels_used
    counts the hexes' shovels only for the kinds that dig."""
    from strategies.terra_nova.greedy import GreedyStrategy
    from strategies.terra_nova.prefilter import FREE_KINDS
    from strategies.terra_nova.valuation import money_cost, shovels_used
    from terra_sim.games.terra_nova.moves import power_action_of

    kinds = set()
    for side in range(2):
        picks = [sorted(g)[side] for g in GAME.exclusive_groups()]
        for seed in range(4 * len(picks)):  # each line-up leaves one mat out
            out = seed % len(picks)
            state = GAME.new_state(picks[:out] + picks[out + 1:], seed)
            # untuned: their play reaches every action kind these seeds were chosen for
            bots = [GreedyStrategy(random.Random(k), tuned=False) for k in range(4)]
            while not state.is_over():
                legal = state.legal_actions()
                seat = state.current_player()
                p = state.players[seat]
                if state.stage == "actions" and not state.pending and state.window != 1:
                    for a in legal:
                        if a.kind in FREE_KINDS or (a.kind.startswith("pw-") and power_action_of(
                                state, a.kind).effect == "coins"):
                            continue
                        c = state.clone()
                        c.apply(a)
                        assert p.money - c.players[seat].money == money_cost(state, p, a), a
                        digs = a.kind.endswith(("dig", "dig2", "build")) and a.kind[:4] != "sun-"
                        want = sum(state.shovels(p, h) for h in a.args) if digs else 0
                        assert shovels_used(state, p, a) == want, a
                        kinds.add(a.kind)
                state.apply(bots[seat].choose(state, legal))
    assert kinds >= {"build", "dig", "upgrade", "palace", "sail", "bridge", "bonus-build",
                     "bonus-dig", "free-tp", "inventor-tp", "lake-house", "fairy-build",
                     "fairy-dig", "sun-build", "sun-dig", "pw-bridge3", "pw-sail",
                     "pw-spade1-build", "pw-spade2-build-dig", "pw-spade2-dig2"}


def test_druids_turn_power_into_points_and_exchanges_avoid_waste():
    used = 0
    for seed in range(12):
        rec = play_game("terra-nova", ["druids", "golems"], ["greedy", "greedy"], seed=seed)
        druid_actions = [a for a, s in zip(rec.actions, rec.action_seats, strict=True) if s == 0]
        if "druid-vp" in druid_actions:
            used += 1
            assert rec.breakdown[0]["faction"] > 0
    assert used >= 2


def test_readme_variant_config_is_valid():
    readme = (ROOT / "strategies" / "README.md").read_text()
    table = tomllib.loads(re.findall(r"```toml\n(.*?)```", readme, re.S)[0])["strategies"]
    base, params = variant_spec("greedy-tight", table["greedy-tight"], TN)
    bot = make_strategy((base, params, "greedy-tight"), random.Random(0), TN)
    assert bot.name == "greedy-tight" and bot.w["money"] == 0.5


def test_valuation_town_steps_match_the_engine():
    from strategies.terra_nova.valuation import town_steps

    rng = random.Random(7)
    bots = [make_strategy(name, random.Random(k), TN) for k, name in enumerate(SCRIPTED[:4])]
    founded = 0
    for seed in range(3):
        state = GAME.new_state(GAME.random_factions(4, rng), seed)
        while not state.is_over():
            legal = state.legal_actions()
            seat = state.current_player()
            p = state.players[seat]
            a = bots[seat].choose(state, legal)
            if state.stage == "actions" and not state.pending and a.kind != "exchange":
                steps = town_steps(state, p)
                c = state.clone()
                c.apply(a)
                if any(d == "town" and who == seat for d, who in c.pending):
                    founded += 1
                    # +1 value to one group: one step; unless it is a palace whose side lowers
                    # the town threshold (the fairies' right side: 6), which founds a town two
                    # steps off by lowering the bar, as the look-ahead sees once it is built
                    lowers = c.players[seat].eff.get("town_value") != p.eff.get("town_value")
                    if a.kind in ("upgrade", "palace") and not lowers:
                        assert steps == 1
            state.apply(a)
    assert founded >= 3


def test_a_factions_tuned_weights_reach_the_compiled_valuation(monkeypatch):
    """greedy learns its faction on its first decision and takes that faction's tuned file;
    the compiled valuation reads `weights`, not the `w` dict, so both must change."""
    from strategies.terra_nova.greedy import GreedyStrategy
    shared = GreedyStrategy.start_weights()
    own = {**shared, "town": shared["town"] + 1.0}
    monkeypatch.setattr(GreedyStrategy, "start_weights", classmethod(
        lambda cls, faction="", tuned=True, lean=None: own if faction == "golems" else shared))
    bot = GreedyStrategy(random.Random(1))
    assert bot.weights.town == shared["town"]
    bot.seat("golems")
    assert bot.weights.town == own["town"] and bot.w["town"] == own["town"]


@pytest.mark.parametrize("game", ["terra-nova", "terra-mystica"])  # exact_first by default
def test_the_search_plays_each_root_moves_first_playout_by_its_bots_own_line(game):
    """exact_first: a root move's first playout is the tuned bots' own line whatever the
    search's random stream; with noise from the first, two streams play them otherwise."""
    from strategies.search import Node

    g = get_game(game)
    state = g.new_state(g.random_factions(3, random.Random(3)), 3)
    h = make_strategy("mcts", random.Random(0), game).heuristic
    while h.decide(state, legal := state.legal_actions()) is not None or state.round < 2:
        state.apply(h.decide(state, legal) or h.root_moves(state, legal)[0][0][0])

    def first_playouts(seed: int, exact: bool) -> list[float]:
        bot = make_strategy(("mcts", {"exact_first": exact, "horizon": 1}),
                            random.Random(seed), game)
        root = Node(state.current_player(),
                    bot.heuristic.root_moves(state, state.legal_actions()))
        for _ in root.moves:
            bot.simulate(state, root, state.round)
        assert root.visits == [1] * len(root.moves) and len(root.moves) > 1
        return root.total

    assert first_playouts(1, True) == first_playouts(2, True)
    assert first_playouts(1, False) != first_playouts(2, False)
