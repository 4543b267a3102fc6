"""Seeded random playouts over every faction, checking invariants after every action."""

import pytest

from terra_sim import get_game, play_game, replay_game
from terra_sim.core.rng import stream
from terra_sim.games.terra_nova.moves import houses_left, tps_left

GAME = get_game("terra-nova")
DATA = GAME.data


def check_invariants(state) -> None:
    seen = state.neutral
    assert state.occupied & DATA.map.river == 0
    for p in state.players:
        assert p.money >= 0, "negative money"
        assert min(p.p1, p.p2, p.p3) >= 0
        assert p.p1 + p.p2 + p.p3 == sum(DATA.start_power), "power tokens not conserved"
        masks = (p.houses, p.tps, p.palace_left, p.palace_right)
        total = 0
        for m in masks:
            assert m & seen == 0, "two buildings on one hex"
            seen |= m
            total += m.bit_count()
        assert houses_left(state, p) >= 0 and tps_left(state, p) >= 0
        assert p.houses.bit_count() + houses_left(state, p) == DATA.houses
        assert p.palace_left.bit_count() <= 1 and p.palace_right.bit_count() <= 1
        assert p.bridges + state.bridge_owner.count(state.players.index(p)) == DATA.bridges
        for h in range(DATA.map.size):
            if p.buildings >> h & 1:
                assert state.terrain[h] == p.faction.home, "building off home terrain"
        assert p.towns & ~p.buildings == 0
        assert 0 <= p.sail <= len(DATA.sailing_vp) - 1
        assert all(v >= 0 for v in p.vp) and p.total_vp < 400
    assert seen == state.occupied, "occupied mask out of sync"


def playout(seed: int, factions: list[str], options: dict, roundtrip: bool = False):
    state = GAME.new_state(factions, seed, **options)
    rng = stream(seed, "test")
    n_actions = 0
    while not state.is_over():
        legal = state.legal_actions()
        assert legal, "a decision with no legal action"
        assert len(set(legal)) == len(legal), "duplicate legal actions"
        if roundtrip:
            for a in legal:
                assert state.parse_action(state.action_text(a)) == a
        if n_actions % 5 == 0:  # a clone shares the board lists until it changes them
            board = (state.terrain[:], state.adj[:], state.bridge_owner[:], state.occupied)
            state.clone().apply(legal[rng.randrange(len(legal))])
            assert (state.terrain, state.adj, state.bridge_owner, state.occupied) == board
        state.apply(legal[rng.randrange(len(legal))])
        check_invariants(state)
        n_actions += 1
        assert n_actions < 5000
    assert state.legal_actions() == [] and state.current_player() == -1
    assert state.round == DATA.rounds
    for b, vp in zip(state.breakdown(), state.vp(), strict=True):
        assert sum(b.values()) == vp
    return state


def all_faction_games(n_players: int, games: int):
    """Seeded faction draws covering every faction."""
    for i in range(games):
        rng = stream(i, "draw", n_players)
        yield i, GAME.random_factions(n_players, rng)


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_random_playouts_keep_invariants(n_players):
    played = set()
    for seed, factions in all_faction_games(n_players, 100):
        playout(seed, factions, {}, roundtrip=seed % 10 == 0)
        played.update(factions)
    assert played == set(DATA.factions)


@pytest.mark.parametrize("options", [
    {"variant": "planner"}, {"variant": "lucky-digger"}, {"turn_order": "dropout"},
])
def test_variant_playouts(options):
    n = 2 if "variant" in options else 4
    for seed, factions in all_faction_games(n, 15):
        state = playout(seed, factions, options)
        if "variant" in options:
            assert state.neutral, "neutral houses were placed"


def test_replay_reproduces_scores():
    for seed in range(20):
        rec = play_game("terra-nova", players=2 + seed % 3, seed=seed)
        again = replay_game(rec)
        assert again.final_vp == rec.final_vp
        assert again.breakdown == rec.breakdown
        assert again.actions == rec.actions


def test_same_seed_same_game():
    a = play_game("terra-nova", players=4, seed=7)
    b = play_game("terra-nova", players=4, seed=7)
    assert a.actions == b.actions and a.final_vp == b.final_vp and a.setup == b.setup
    c = play_game("terra-nova", players=4, seed=8)
    assert c.actions != a.actions
