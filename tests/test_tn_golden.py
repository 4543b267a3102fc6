"""Golden counts of legal actions on fixed positions (perft-like).

A change to move generation shows up here as a failing count. The counts were computed once
from the engine and checked by hand against the rules where feasible (see the comments). To
regenerate after an intended rules change, print `len(legal)` and `kinds(state)` at the same
points (same factions, seeds and `stream(seed, "golden")` choices) and re-check them by hand.
"""

from collections import Counter

from tn_helpers import DATA, GAME, do, setup_game, texts

from terra_sim.core.rng import stream

F3 = ["golems", "fairies", "water-sprites"]
PLACES = ["E4", "C5", "E5", "E2", "B7", "D5"]  # snake order: 0 1 2 2 1 0
PICKS = ["C", "B", "G"]  # reverse order: seat 2, 1, 0


def kinds(state) -> dict[str, int]:
    return dict(sorted(Counter(a.kind for a in state.legal_actions()).items()))


def random_steps(state, seed: int, n: int) -> None:
    rng = stream(seed, "golden")
    for _ in range(n):
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])


def test_first_setup_decision_is_every_free_home_hex():
    s = GAME.new_state(F3, seed=11)
    assert s.round_tiles == ["house-2", "tp-1", "shovel", "sail", "house-1"]
    assert s.bonus_tiles == ["B", "C", "D", "E", "G", "H"]  # 3 players: 3 + 3 tiles
    counts = []
    for name in PLACES:
        legal = s.legal_actions()
        assert {a.kind for a in legal} == {"place"}
        counts.append(len(legal))
        do(s, f"place {name}")
    # 12 hexes of each terrain; the 2nd round of placing finds one of its own taken
    assert counts == [12, 12, 12, 11, 11, 11]
    counts = []
    for tile in PICKS:
        counts.append(len(s.legal_actions()))
        do(s, f"pick {tile}")
    assert counts == [6, 5, 4]  # 6 tiles, one fewer per pick
    assert s.stage == "actions"


def test_round_1_first_action_counts():
    s = setup_game(F3, PLACES, PICKS, seed=11)
    assert s.current_player() == 0
    # round 1 income: golems 7 + 2 base + 3 + 2 houses + 2 (G); fairies 7 + 2 + 3 + 3 + 6 (B)
    # and +2 power; water sprites 7 + 2 + 3 + 3 and 3 power (C)
    assert [(p.money, p.p1, p.p2, p.p3) for p in s.players] == [
        (16, 2, 2, 4), (21, 0, 4, 4), (15, 0, 3, 5)]
    assert s.supply == {"D": 1, "E": 1, "H": 1}  # 1 coin on each unclaimed tile after setup
    # golems on E4 and D5: free hexes in reach D4 (swamp, 2 shovels), E3, E6 (desert),
    # F3 (forest): 4 builds (16 money pays 2 shovels + house), 4 digs, the same 8 with the
    # 1-shovel power action; no 2-shovel action (6 power, 4 charged); bridge site C7-D5.
    assert kinds(s) == {
        "bridge": 1, "build": 4, "dig": 4, "exchange": 4, "pass": 3, "pw-bridge3": 1,
        "pw-bridge4": 1, "pw-coins": 1, "pw-sail": 1, "pw-spade1-build": 4,
        "pw-spade1-dig": 4, "sail": 1, "upgrade": 2,
    }
    assert len(s.legal_actions()) == 31
    assert {t for t in texts(s) if t.startswith("pass")} == {"pass D", "pass E", "pass H"}


def test_mid_game_counts_3_players():
    s = setup_game(F3, PLACES, PICKS, seed=11)
    random_steps(s, 11, 20)
    assert (s.round, s.stage, s.current_player()) == (3, "actions", 2)
    p = s.players[2]
    assert (p.money, p.p1, p.p2, p.p3, p.sail) == (12, 6, 2, 0, 0)
    # no charged power: no exchange and no power action; 3 tiles to pass with; 3 houses to
    # upgrade (12 money >= 10)
    assert kinds(s) == {"bridge": 2, "build": 5, "dig": 5, "pass": 3, "sail": 1, "upgrade": 3}
    assert len(s.legal_actions()) == 19


def test_4_player_counts():
    s = GAME.new_state(["sea-dogs", "fire-sprites", "inventors", "druids"], seed=5)
    assert len(s.legal_actions()) == 12
    rng = stream(5, "golden")
    history = []
    while s.stage != "actions":
        legal = s.legal_actions()
        a = legal[rng.randrange(len(legal))]
        history.append(s.action_text(a))
        s.apply(a)
    assert history == ["place I6", "place A10", "place D10", "place H10", "place I5",
                       "place F2", "place I4", "place E2", "pick H", "pick F", "pick C", "pick E"]
    # sea dogs (I6, E2; 15 money, 6 charged): 7 free hexes in reach (H5 H6 I7 E1 E3 D1 F1),
    # 2 of them 1 shovel (H6 swamp, E1 forest): 2 builds at 10 money, the 2-shovel ones cost 16;
    # dig2 pairs {H6, E1}: 1, build-dig ordered: 2; no bridge site touches I6 or E2
    assert kinds(s) == {
        "build": 2, "dig": 7, "exchange": 6, "pass": 3, "pw-coins": 1, "pw-sail": 1,
        "pw-spade1-build": 7, "pw-spade1-dig": 7, "pw-spade2-build": 7,
        "pw-spade2-build-dig": 2, "pw-spade2-dig": 7, "pw-spade2-dig2": 1, "sail": 1,
        "upgrade": 2,
    }
    assert len(s.legal_actions()) == 54
    for _ in range(29):
        legal = s.legal_actions()
        s.apply(legal[rng.randrange(len(legal))])
    assert (s.round, s.current_player()) == (3, 2)
    assert kinds(s) == {
        "bridge": 1, "build": 8, "dig": 7, "exchange": 6, "pass": 3, "pw-bridge3": 1,
        "pw-bridge4": 1, "pw-coins": 1, "pw-sail": 1, "pw-spade1-build": 7,
        "pw-spade1-dig": 7, "pw-spade2-build": 7, "pw-spade2-build-dig": 2,
        "pw-spade2-dig": 7, "pw-spade2-dig2": 1, "sail": 1, "upgrade": 4,
    }
    assert len(s.legal_actions()) == 65


def test_pass_actions_equal_tiles_in_supply():
    s = setup_game(F3, PLACES, PICKS, seed=11)
    rng = stream(3, "golden")
    checked = 0
    rounds_seen = set()
    while not s.is_over():
        legal = s.legal_actions()
        if s.stage == "actions" and not s.pending and s.window != 1:
            passes = [a for a in legal if a.kind == "pass"]
            # the last round too (engine tn-1.1): Drop Out always swaps the bonus tile
            assert sorted(a.args[0] for a in passes) == sorted(s.supply)
            assert len(s.supply) == 3  # players + 3 tiles, one held by each player
            rounds_seen.add(s.round)
            checked += 1
        s.apply(legal[rng.randrange(len(legal))])
    assert checked > 20 and DATA.rounds in rounds_seen
