"""Seeded random Terra Mystica playouts over every faction and player count, checking the
engine's invariants after every action, that action texts round-trip and that the recorded
texts replay the same game."""

import pytest
from tm_helpers import DATA, GAME

from terra_sim.core.rng import stream

LIMITS = DATA.rules["buildings"]
TOKENS = 12  # power tokens every faction starts with (5/7, 3/9, 7/5)


def check_invariants(state, burnt: list[int]) -> None:
    seen = 0
    for seat, p in enumerate(state.players):
        assert min(p.coins, p.workers, p.priests, p.p1, p.p2, p.p3) >= 0, p.info()
        assert p.p1 + p.p2 + p.p3 + burnt[seat] == TOKENS, "power tokens not conserved"
        assert p.priests + p.cult_priests <= DATA.rules["max_priests"]
        assert all(0 <= c <= 10 for c in p.cults)
        assert sum(1 for c in p.cults if c == 10) <= p.keys, "space 10 without a key"
        for kind, m in p.b.items():
            assert m.bit_count() <= LIMITS[kind], f"too many {kind}"
            assert m & seen == 0, "two buildings on one hex"
            seen |= m
        for h in range(DATA.map.size):
            if p.buildings >> h & 1:
                assert state.terrain[h] == p.faction.home, "building off home terrain"
        assert p.town_mask & ~p.buildings == 0
        assert p.bridges <= DATA.rules["bridges"]
        assert p.total_vp >= 0
    assert seen == state.occupied, "occupied mask out of sync"
    assert state.occupied & DATA.map.river == 0
    for track, top in enumerate(state.cult_top):
        at_10 = [s for s, p in enumerate(state.players) if p.cults[track] == 10]
        assert at_10 == ([top] if top >= 0 else []), "more than one faction on space 10"
    for b, vp in zip(state.breakdown(), state.vp(), strict=True):
        assert sum(b.values()) == vp


# A random bot that favours building so that games reach towns, temples and strongholds.
WEIGHTS = {"build": 12.0, "upgrade": 10.0, "send": 2.0, "advance": 2.0, "action": 4.0,
           "transform": 0.5, "convert": 0.3, "burn": 0.3, "bridge": 1.0, "connect": 5.0}


def pick(legal, rng):
    passes = sum(1 for a in legal if a.kind == "pass")
    weights = [0.6 / passes if a.kind == "pass" else WEIGHTS.get(a.kind, 1.0) for a in legal]
    return rng.choices(legal, weights)[0]


def playout(seed: int, factions: list[str], options: dict, roundtrip: bool = False):
    state = GAME.new_state(factions, seed, **options)
    rng = stream(seed, "tm-test")
    burnt = [0] * len(factions)
    record = []
    while not state.is_over():
        legal = state.legal_actions()
        assert legal, "a decision with no legal action"
        assert len(set(legal)) == len(legal), "duplicate legal actions"
        if roundtrip:
            for a in legal:
                assert state.parse_action(state.action_text(a)) == a
        a = pick(legal, rng)
        seat = state.current_player()
        if a.kind == "burn":
            burnt[seat] += 1
        record.append(state.action_text(a))
        state.apply(a)
        check_invariants(state, burnt)
        assert len(record) < 5000
    assert state.legal_actions() == [] and state.current_player() == -1
    assert state.round == DATA.rules["rounds"]
    return state, record


def faction_draws(n_players: int, games: int):
    for i in range(games):
        yield i, GAME.random_factions(n_players, stream(i, "tm-draw", n_players))


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_random_playouts_keep_invariants(n_players):
    played: set[str] = set()
    for seed, factions in faction_draws(n_players, 40):
        playout(seed, factions, {}, roundtrip=seed % 5 == 0)
        played.update(factions)
    if n_players >= 3:
        assert played == set(DATA.factions)


def test_every_faction_plays():
    """Every faction against a fixed opponent (factions sharing a home terrain never meet)."""
    groups = GAME.exclusive_groups()
    for i, slug in enumerate(sorted(DATA.factions)):
        other = next(sorted(g)[0] for g in groups if slug not in g)
        playout(100 + i, [slug, other], {})


@pytest.mark.parametrize("options", [
    {"turn_order": "variable"}, {"errata_cultists": "no"},
    {"mini-expansion": "yes", "shipping-bonus": "yes", "temple-scoring-tile": "yes"}])
def test_option_playouts(options):
    for seed, factions in faction_draws(4, 10):
        playout(seed, factions, options)


def test_recorded_texts_replay_the_same_game():
    for seed, factions in faction_draws(3, 6):
        state, record = playout(seed, factions, {})
        again = GAME.new_state(factions, seed)
        for text in record:
            again.apply(again.parse_action(text))
        assert again.is_over()
        assert again.vp() == state.vp() and again.breakdown() == state.breakdown()


def test_same_seed_same_game_and_clone_is_independent():
    a, rec_a = playout(7, ["witches", "cultists", "darklings"], {})
    b, rec_b = playout(7, ["witches", "cultists", "darklings"], {})
    assert rec_a == rec_b and a.vp() == b.vp()
    s = GAME.new_state(["witches", "cultists"], 3)
    c = s.clone()
    c.apply(c.legal_actions()[0])
    assert s.players[0].b["D"] == 0 and c.players[0].b["D"] != 0
