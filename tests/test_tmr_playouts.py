"""Seeded random Terramara games over every Character and player count: the invariants hold
after every action, the breakdown sums to the VP, the recorded texts replay to the same result
and the same seed plays the same game."""

import random

import pytest
from tmr_helpers import DATA, GAME, check_invariants

from strategies.random_bot import RandomStrategy
from terra_sim.core.record import new_game, play, replay
from terra_sim.games.terramara.actions import parse_action

CHARACTERS = sorted(DATA.characters)
CARDS = sorted(DATA.starting)


def _factions(n: int, k: int) -> list[str]:
    """n factions whose first is Character k, the rest the next Characters round the list."""
    return [f"{CHARACTERS[(k + j) % 7]}+{CARDS[(3 * k + 5 * j) % 12]}" for j in range(n)]


def _playout(factions: list[str], seed: int) -> tuple[list[str], list[int]]:
    rng = random.Random(seed)
    s = GAME.new_state(factions, seed)
    check_invariants(s)
    log = []
    while not s.is_over():
        legal = s.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        a = rng.choice(legal)
        text = s.action_text(a)
        assert parse_action(text) == a
        log.append(text)
        s.apply(a)
        check_invariants(s)
    assert s.current_player() == -1 and s.legal_actions() == [] and s.round == 5
    for p, b in zip(s.players, s.breakdown(), strict=True):
        assert sum(b.values()) == p.total_vp
    assert s.winners()
    return log, s.vp()


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("k", range(7))
def test_random_playouts_keep_the_invariants(n, k):
    _playout(_factions(n, k), 100 * n + k)


def test_the_same_seed_plays_the_same_game():
    f = _factions(4, 2)
    assert _playout(f, 7) == _playout(f, 7)
    a, b = GAME.new_state(f, 7), GAME.new_state(f, 8)
    assert a.setup_info() != b.setup_info()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_recorded_texts_replay_to_the_same_result(n):
    state, setup = new_game(GAME, None, 11 + n, players=n)
    bots = [RandomStrategy(random.Random(s)) for s in range(n)]
    rec = play(GAME, state, setup, bots)
    again = replay(GAME, rec.setup, rec.actions)
    assert again.final_vp == rec.final_vp and again.breakdown == rec.breakdown
    assert again.action_vp == rec.action_vp
