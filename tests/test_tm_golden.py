"""Golden counts of Terra Mystica legal actions on fixed positions (perft-like).

A change to move generation shows up here as a failing count. The counts were computed once
from the engine and checked by hand against the rules where feasible (see the comments). To
regenerate after an intended rules change, print `len(legal)` and `kinds(state)` at the same
points (same factions, seeds, `stream(seed, "golden")` choices and fixture prefixes) and
re-check them by hand.
"""

from collections import Counter
from pathlib import Path

from tm_helpers import GAME, texts

from terra_sim.core.rng import stream
from terra_sim.games.terra_mystica.notation import read_log, replay_log

FIXTURES = Path(__file__).parent / "fixtures" / "terra_mystica"
F4 = ["witches", "cultists", "engineers", "giants"]


def kinds(state) -> dict[str, int]:
    return dict(sorted(Counter(a.kind for a in state.legal_actions()).items()))


def seeded_setup():
    s = GAME.new_state(F4, 5)
    rng = stream(5, "golden")
    counts, history = [], []
    while s.stage != "play":
        legal = s.legal_actions()
        counts.append(len(legal))
        a = legal[rng.randrange(len(legal))]
        history.append(s.action_text(a))
        s.apply(a)
    return s, counts, history


def test_setup_decisions_of_a_seeded_4_player_game():
    assert GAME.new_state(F4, 5).setup_info() == {
        "bonus_tiles": ["BON1", "BON2", "BON3", "BON4", "BON5", "BON7", "BON8"],
        "scoring_tiles": ["SCORE8", "SCORE4", "SCORE5", "SCORE3", "SCORE7", "SCORE6"]}
    s, counts, history = seeded_setup()
    assert history == ["place I11", "place A7", "place F6", "place I5", "place D7", "place I9",
                       "place E6", "place G3", "pick BON2", "pick BON8", "pick BON4",
                       "pick BON7"]
    # 11 hexes of each terrain; the second dwelling finds one of its own taken; then 4 + 3
    # bonus tiles, one fewer per pick
    assert counts == [11, 11, 11, 11, 10, 10, 10, 10, 7, 6, 5, 4]


def test_round_1_first_action_counts():
    s, _, _ = seeded_setup()
    assert s.current_player() == 0
    p = s.players[0]
    # witches: 3 W + 3 (base and two dwellings) + 1 (BON7) = 7 W
    assert (p.coins, p.workers, p.priests, p.p1, p.p2, p.p3) == (15, 7, 0, 5, 7, 0)
    assert s.bonus_supply == {"BON1": 1, "BON3": 1, "BON5": 1}
    # witches on G3 and I11 reach H4 (lakes, 1 spade), H5 (swamp, 2), H7 (plains, 3), H8
    # (mountains, 1), I10 (lakes, 1), I12 (wasteland, 2): 7 W build on all but H7 (10 W); every
    # transform of at most 2 spades (the way round may not cross forest): 21; both dwellings
    # upgrade alone (2 W 6 C); 3 C -> 1 VP, W -> C; burn; 3 tiles to pass with.
    assert kinds(s) == {"build": 5, "burn": 1, "convert": 2, "pass": 3, "transform": 21,
                        "upgrade": 2}
    assert {t for t in texts(s) if t.startswith("build")} == {
        "build H4", "build H5", "build H8", "build I10", "build I12"}
    assert {t for t in texts(s) if t.startswith("transform H4")} == {
        "transform H4", "transform H4 plains", "transform H4 swamp"}
    assert len(s.legal_actions()) == 34


def replayed(name: str, k: int):
    """The position of a fixture game after its first k action texts."""
    text = (FIXTURES / name).read_text()
    r = replay_log(text, GAME)
    s = GAME.new_state(read_log(text).factions, 0, **r.options)
    for t in r.actions[:k]:
        s.apply(s.parse_action(t))
    return s, r.actions[k]


def test_mid_game_counts_5_player_fixture():
    s, nxt = replayed("real-5p-game-a.txt", 137)
    assert (s.round, s.players[s.current_player()].faction.slug, nxt) == (2, "halflings",
                                                                         "build F5")
    assert kinds(s) == {"build": 7, "burn": 1, "convert": 1, "pass": 3, "transform": 42}
    assert len(s.legal_actions()) == 54
    s, nxt = replayed("real-5p-game-a.txt", 275)
    assert (s.round, s.players[s.current_player()].faction.slug, nxt) == (4, "witches",
                                                                         "action ACTW")
    assert kinds(s) == {"action": 2, "build": 3, "burn": 1, "convert": 1, "pass": 3,
                        "transform": 38}
    assert len(s.legal_actions()) == 48
    s, nxt = replayed("real-5p-game-a.txt", 413)
    assert (s.round, s.players[s.current_player()].faction.slug, nxt) == (5, "fakirs",
                                                                         "pass BON9")
    assert kinds(s) == {"advance": 1, "convert": 4, "pass": 3, "send": 7, "upgrade": 9}
    assert len(s.legal_actions()) == 24


def test_mid_game_counts_4_player_fixture():
    s, nxt = replayed("real-4p-game-c.txt", 101)
    assert (s.round, s.players[s.current_player()].faction.slug, nxt) == (2, "mermaids",
                                                                         "build F2")
    assert kinds(s) == {"action": 1, "build": 2, "burn": 1, "convert": 4, "pass": 3, "send": 10,
                        "transform": 28, "upgrade": 2}
    assert len(s.legal_actions()) == 51
    s, nxt = replayed("real-4p-game-c.txt", 300)
    assert (s.round, s.players[s.current_player()].faction.slug, nxt) == (5, "mermaids",
                                                                         "upgrade E5 TE")
    assert kinds(s) == {"action": 2, "advance": 2, "build": 11, "convert": 6, "pass": 3,
                        "send": 8, "transform": 48, "upgrade": 10}
    assert len(s.legal_actions()) == 90
    s, nxt = replayed("real-4p-game-c.txt", 400)
    # round 6: the only pass takes no tile
    assert (s.round, s.players[s.current_player()].faction.slug, nxt) == (6, "chaos-magicians",
                                                                         "upgrade E8 TP")
    assert kinds(s) == {"action": 1, "convert": 6, "pass": 1, "send": 7, "transform": 66,
                        "upgrade": 5}
    assert len(s.legal_actions()) == 86


def test_pass_actions_equal_tiles_in_supply():
    s, _, _ = seeded_setup()
    rng = stream(3, "golden")
    checked = 0
    while not s.is_over():
        legal = s.legal_actions()
        if s.stage == "play" and not s.pending and s.actions_left:
            passes = [a for a in legal if a.kind == "pass"]
            if s.round < 6:
                assert sorted(a.args[0] for a in passes) == sorted(s.bonus_supply)
                assert len(s.bonus_supply) == 3  # players + 3 tiles, one held by each player
            else:
                assert [a.args for a in passes] == [()]
            checked += 1
        s.apply(legal[rng.randrange(len(legal))])
    assert checked > 20


def test_listed_actions_are_made_once_and_equal_to_actions_made_anew():
    """The engine hands out each map's actions made once (actions.Made): two listings of one
    position give the same objects, each equal to the action parsed from its text, so a log
    or a bot that makes its own actions sees no difference."""
    s, _ = replayed("real-4p-game-c.txt", 300)
    first, again = s.legal_actions(), s.legal_actions()
    assert len(first) == 90 and all(a is b for a, b in zip(first, again, strict=True))
    assert all(a == s.parse_action(s.action_text(a)) for a in first)
    assert {a.kind for a in first} >= {"build", "transform", "upgrade", "send", "pass"}
