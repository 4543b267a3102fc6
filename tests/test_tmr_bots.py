"""Terramara's bot roster: every bot plays every Character at every player count, legally and
reproducibly; each plan shows its focus; each scripted bot beats random; the search bot's
heuristic offers playable moves and mcts finishes a game."""

import random
import warnings

import pytest

from strategies import make_strategy, roster
from strategies.search import SearchStrategy
from strategies.terramara import HEURISTIC, STRATEGIES
from strategies.terramara.bench_bots import (
    SCRIPTED,
    behaviour,
    play_counted,
    roster_jobs,
    run,
    versus_random,
)
from terra_sim import get_game, play_game

GAME = "terramara"
warnings.filterwarnings("ignore", category=RuntimeWarning)  # a stale compiled build


def character_tables() -> list[list[str]]:
    """Nine games seating every Character at 2, 3 and 4 players: per player count, the
    Characters in turn (the last table wraps round), starting cards spread over the deck."""
    g = get_game(GAME)
    chars = sorted(g.data.characters)
    cards = sorted(g.data.starting)
    tables = []
    for n in (2, 3, 4):
        for start in range(0, len(chars), n):
            seated = [chars[(start + k) % len(chars)] for k in range(n)]
            tables.append([f"{c}+{cards[(start + 5 * k + n) % len(cards)]}"
                           for k, c in enumerate(seated)])
    return tables


def test_the_roster_is_registered_as_scripted():
    names = [cls.name for cls in STRATEGIES]
    assert names == SCRIPTED
    bots = roster(GAME)
    for name in SCRIPTED:
        assert bots[name].kind == "scripted"
        assert bots[name].games == (GAME,)


@pytest.mark.parametrize("bot", SCRIPTED)
def test_a_bot_plays_every_character_at_every_player_count_legally(bot):
    tables = character_tables()
    chars = sorted(get_game(GAME).data.characters)
    for n in (2, 3, 4):
        seated = {f.split("+")[0] for t in tables if len(t) == n for f in t}
        assert seated == set(chars)
    for i, factions in enumerate(tables):
        # play_counted raises IllegalAction on any action outside the legal list
        r = play_counted([bot] * len(factions), 40 + i, factions)
        assert r["factions"] == factions
        assert all(v > 30 for v in r["vp"]), (factions, r["vp"])


def test_the_same_seed_gives_the_same_game():
    bots = ["greedy", "raider", "river"]
    a = play_game(GAME, None, bots, 11, players=3)
    b = play_game(GAME, None, bots, 11, players=3)
    c = play_game(GAME, None, bots, 12, players=3)
    assert a.actions == b.actions and a.final_vp == b.final_vp
    assert a.actions != c.actions


@pytest.fixture(scope="module")
def focus():
    """Means per player over twenty 4-player games of the roster, every bot in 16 of them."""
    return behaviour(run(roster_jobs(20, 700), 1))


def test_the_raider_raids_and_fights_more_than_the_river_bot(focus):
    assert focus["raider"]["raids"] > focus["river"]["raids"] + 1
    assert focus["raider"]["military"] > focus["river"]["military"]


# Each plan against the other plans: greedy plays tuned weights, an all-rounder that may match
# a plan at its own game.
PLANS = [b for b in SCRIPTED if b != "greedy"]


def test_the_river_bot_goes_furthest_up_the_river(focus):
    others = [focus[b]["river"] for b in PLANS if b != "river"]
    assert focus["river"]["river"] > max(others)


def test_the_road_runner_travels_furthest(focus):
    others = [focus[b]["road_steps"] for b in PLANS if b != "road-runner"]
    assert focus["road-runner"]["road_steps"] > max(others)
    assert focus["road-runner"]["road"] > focus["raider"]["road"] + 2


def test_the_artifact_collector_hires_workers_and_creates_the_most(focus):
    others = [b for b in PLANS if b != "artifact-collector"]
    assert focus["artifact-collector"]["workers"] > max(focus[b]["workers"] for b in others)
    assert focus["artifact-collector"]["artifacts"] >= max(focus[b]["artifacts"]
                                                           for b in others)


@pytest.mark.parametrize("bot", SCRIPTED)
def test_a_scripted_bot_beats_random_in_most_two_player_games(bot):
    wins, n = versus_random(bot, 10, 500, workers=1)
    assert wins >= 9, f"{bot} won {wins} of {n}"


@pytest.mark.slow
@pytest.mark.parametrize("bot", SCRIPTED)
def test_a_scripted_bot_beats_random_in_95_percent_of_300_games(bot):
    wins, n = versus_random(bot, 300, 10_000, workers=2)
    assert wins / n >= 0.95, f"{bot} won {wins} of {n}"


def test_the_search_heuristic_offers_playable_moves_and_values_every_seat():
    g = get_game(GAME)
    state = g.new_state(["hunter+card03", "sage+card08", "pioneer+card11"], 3)
    h = HEURISTIC(random.Random(1), 4, 0.5)
    checked = 0
    while not state.is_over() and state.round < 3:
        legal = state.legal_actions()
        forced = h.decide(state, legal)
        if forced is None:
            options = h.root_moves(state, legal)
            assert 1 <= len(options) <= 4
            for seq, _ in options:
                probe = state.clone()
                for a in seq:
                    assert a in probe.legal_actions()
                    probe.apply(a)
            checked += 1
            state.apply(options[0][0][0])
        else:
            assert forced in legal
            state.apply(forced)
        assert state.is_over() or state.legal_actions()
        values = h.values(state)
        assert len(values) == 3 and all(isinstance(v, float) for v in values)
    assert checked > 10


def test_mcts_plays_terramara_with_its_heuristic():
    bot = SearchStrategy(random.Random(3), simulations=6, candidates=3)
    r = play_game(GAME, ["warlord+card05", "collector+card09"], [bot, "greedy"], 5)
    assert len(r.final_vp) == 2 and min(r.final_vp) > 30


def test_greedy_takes_weights_by_name_and_refuses_unknown_ones():
    bot = make_strategy(("greedy", {"raw": 0.2, "weights": {"road": 2.0}}), random.Random(1),
                        GAME)
    assert bot.w["raw"] == 0.2 and bot.w["road"] == 2.0
    with pytest.raises(Exception, match="unknown weights"):
        make_strategy(("greedy", {"weights": {"coin": 1.0}}), random.Random(1), GAME)


def test_the_road_is_valued_for_any_weight_a_tuner_tries():
    """A Caravan still at its start is worth nothing on the road, whatever the curve: a negative
    road_rush (which a tuning tried) once raised there on 0 ** -x."""
    from strategies.terramara.valuation import DEFAULT_WEIGHTS, Context, road_value
    from terra_sim.games.terramara.road import next_nodes

    state = get_game(GAME).new_state(["hunter+card03", "sage+card08"], 3)
    p = state.players[0]
    for rush in (-0.5, 0.0, 1.5):
        ctx = Context.of(state, {**DEFAULT_WEIGHTS, "road_rush": rush})
        start = road_value(state, p, ctx)
        ahead = road_value(state, p, ctx, [next_nodes(c, 1)[0] for c in p.caravans])
        assert start >= 0.0 and ahead > start
