"""The bots-beside-people profile (strategies/terra_mystica/profile.py): its measures of a real
game agree with the log's own text and the known final VP, and a bot game's with play_game."""

import random
import re
from pathlib import Path

import pytest

from strategies.terra_mystica import profile
from terra_sim import play_game
from terra_sim.games.terra_mystica.notation import faction_slug, read_log

FIXTURES = Path(__file__).parent / "fixtures" / "terra_mystica"
REAL = FIXTURES / "real-4p-game-c.txt"


def test_a_real_games_measures_agree_with_its_log():
    text = (FIXTURES / "real-5p-game-b.txt").read_text()
    rows = profile.real_game(text)
    factions = read_log(text).factions
    final = {"halflings": 175, "mermaids": 106, "dwarves": 101, "chaos-magicians": 98,
             "witches": 94}
    assert [r["VP"] for r in rows] == [final[f] for f in factions]
    taken = dict.fromkeys(factions, 0)  # the log's own "<Faction>: Leech N" commands
    for line in text.splitlines():
        who, _, rest = line.partition(":")
        if rest and faction_slug(who.strip()) in taken:
            taken[faction_slug(who.strip())] += len(re.findall(r"\bleech\b", rest, re.I))
    assert [r["offers taken"] for r in rows] == [taken[f] for f in factions]
    assert sum(taken.values()) > 20
    acts = {a: text.count(f"action {a.lower()}") for a in profile.POWER_ACTIONS}
    assert {a: sum(r[m] for r in rows) for a, m in profile.POWER_ACTIONS.items()} == acts
    for r in rows:  # the sources, with the start's 20 and the offers' cost, are the whole VP
        assert sum(r[m] for m in profile.SOURCES.values()) == r["VP"] - 20 + r["VP paid for offers"]
        assert sum(r[m] for m in profile.POWER_ACTIONS.values()) == r["board power actions"]
        assert sum(r[m] for m in profile.IN_ROUND) == r[profile.SOURCES["round"]]
        assert r["VP paid for offers"] <= r["offers taken"] * 4  # an offer costs at most 4 VP
        assert 0 < r["buildings at the end"] <= 14


def test_a_bot_games_measures_are_play_games():
    bots = ["greedy", "expander", "cult-runner", "town-builder"]
    out = profile.bot_game(bots, 3, None, 4)
    rec = play_game("terra-mystica", None, bots, 3, players=4)
    assert [r["VP"] for r in out["players"]] == list(rec.final_vp) == out["vp"]
    n = sum(1 for a in rec.actions if a.split(" ")[0].lower() == "leech")
    assert sum(r["offers taken"] for r in out["players"]) == n > 0
    for r in out["players"]:  # the rounds' rows split the round tiles' VP
        assert sum(r[m] for m in profile.IN_ROUND) == r[profile.SOURCES["round"]] > 0
        assert all(r[m] >= 0 for m in profile.IN_ROUND)


def test_the_round_tiles_vp_goes_to_the_round_that_paid_it():
    """Recounted action by action (each action's round-tile VP to the round it was played in),
    and each round's VP a multiple of what its tile pays for one event."""
    from terra_sim.games.terra_mystica.player import CAT

    text = REAL.read_text()
    rows = profile.real_game(text)
    r = profile.replay_log(text)
    s = r.g.new_state(r.log.factions, 0, **r.options)
    recount = [[0] * len(profile.IN_ROUND) for _ in s.players]
    for line in r.actions:
        before, rnd = [p.vp[CAT["round"]] for p in s.players], s.round
        s.apply(s.parse_action(line))
        for seat, p in enumerate(s.players):
            if p.vp[CAT["round"]] != before[seat]:
                recount[seat][rnd - 1] += p.vp[CAT["round"]] - before[seat]
    assert [[row[m] for m in profile.IN_ROUND] for row in rows] == recount
    pays = [s.data.tiles.scoring[t]["vp"] for t in s.scoring_tiles]
    for row in rows:
        assert all(row[m] % vp == 0 for m, vp in zip(profile.IN_ROUND, pays, strict=True))
    assert sum(row[profile.IN_ROUND[-1]] for row in rows) > 0


def test_the_command_prints_every_measure(capsys):
    profile.main(["--games", "2", "--workers", "1", str(REAL)])
    out = capsys.readouterr().out
    assert "1 real games (1 of 4 players)" in out
    for m in profile.MEASURES:
        assert re.search(rf"^  {re.escape(m)}\s+-?\d+\.\d\d\s+-?\d+\.\d\d$", out, re.M), m


def test_a_log_that_does_not_replay_is_one_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text(REAL.read_text().replace("Nomads: Build F3", "Nomads: Build Z99", 1))
    with pytest.raises(SystemExit):
        profile.main(["--games", "1", "--workers", "1", str(bad)])
    err = capsys.readouterr().err
    assert "bad.txt: line " in err and "Traceback" not in err


def test_the_bots_can_be_any_pool(capsys):
    profile.main(["--games", "2", "--workers", "1", "--strategies", "greedy", str(REAL)])
    assert "== per player and game: greedy (2 4-player games, seed 1)" in capsys.readouterr().out
    for bad, said in (("greedy,nope", "unknown strategy 'nope'"),
                      ("mcts:budget=x", "simulations must be an integer"),
                      (" , ", "--strategies names no bot")):
        with pytest.raises(SystemExit):
            profile.main(["--games", "1", "--workers", "1", "--strategies", bad, str(REAL)])
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err


def test_cheap_land_is_the_free_land_next_door_a_spade_or_none_from_home():
    """The round-start count of cheap land, recounted from the terrain wheel and the buildings'
    neighbours (these factions cannot reach farther before they advance shipping)."""
    from collections import defaultdict

    from strategies import make_strategy
    from terra_sim import get_game
    from terra_sim.core.hexmap import bits

    state = get_game("terra-mystica").new_state(["witches", "nomads", "engineers", "darklings"], 3)
    bots = [make_strategy("greedy", random.Random(i), "terra-mystica") for i in range(4)]
    while state.stage != "play":
        state.apply(bots[state.current_player()].choose(state, state.legal_actions()))
    seats = [defaultdict(float) for _ in state.players]
    profile.land_at_start(state, seats)
    free = state.data.map.land & ~state.occupied
    wheel = len(state.data.wheel)
    checked = 0
    for p, c in zip(state.players, seats, strict=True):
        if state.ship_range(p):  # a shipping bonus tile reaches over the river
            continue
        near = [h for h in bits(free) if any(state.adj[b] >> h & 1 for b in bits(p.buildings))]
        home = p.faction.home
        cheap = [h for h in near if min(abs(state.terrain[h] - home),
                                        wheel - abs(state.terrain[h] - home)) <= 1]
        assert c["cheap land, round 1"] == len(cheap)
        assert c["cheap land, rounds 2-6"] == 0
        checked += 1
    assert checked >= 2 and sum(c["cheap land, round 1"] for c in seats) > 0


def test_what_a_player_holds_at_a_pass_is_recounted_from_the_replay():
    """Priests and power in bowls II and III at the passes of rounds 1-5, recounted pass by
    pass from the real game's replay: a round-6 pass carries nothing into another round."""
    text = REAL.read_text()
    rows = profile.real_game(text)
    r = profile.replay_log(text)
    s = r.g.new_state(r.log.factions, 0, **r.options)
    held = [[0, 0, 0] for _ in s.players]
    passes = 0
    for line in r.actions:
        a = s.parse_action(line)
        if a[0] == "pass" and s.round in profile.PASS_ROUNDS:
            p = s.players[s.current_player()]
            for i, v in enumerate((p.priests, p.p2, p.p3)):
                held[p.seat][i] += v
            passes += 1
        s.apply(a)
    assert passes == len(s.players) * len(profile.PASS_ROUNDS)
    n = len(profile.PASS_ROUNDS)
    for row, (priests, p2, p3) in zip(rows, held, strict=True):
        assert row["priests at a pass"] == pytest.approx(priests / n)
        assert row["power II at a pass"] == pytest.approx(p2 / n)
        assert row["power III at a pass"] == pytest.approx(p3 / n)
    assert sum(sum(h) for h in held) > 0
