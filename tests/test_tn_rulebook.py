"""Terra Nova rules from the rulebook (shared/seeds/000_800f3b839ecd7a92.txt): its worked
examples, the costs, power, bridges, sailing, power/special actions, drop out and scoring."""

import pytest
from tn_helpers import (
    DATA,
    GAME,
    bowls,
    do,
    finish_round,
    hx,
    mask,
    position,
    setup_game,
    texts,
    vp,
)

from terra_sim.core.power import gain_power, spend_power
from terra_sim.games.terra_nova import scoring
from terra_sim.games.terra_nova.state import replaced

# --- the rulebook's worked examples -------------------------------------------------------------


def test_income_example_16_money_5_power():
    # "Your income is 16 money and 5 power: bonus tile 3 money 3 power, mat 13 money 2 power."
    # Sea Dogs have the default mat: base 2 + houses 3+3+3+2+0 = 13 coins, house 5 gives 2 power.
    s = position(["sea-dogs", "golems"], houses={0: ["E1", "E2", "E3", "E4", "E5"]},
                 bonus={0: "D"})
    assert DATA.bonus_tiles["D"]["coins"] == 3 and DATA.bonus_tiles["D"]["power"] == 3
    assert scoring.income(s, s.players[0]) == (16, 5)
    s.players[0].bonus = ""
    assert scoring.income(s, s.players[0]) == (13, 2)


def test_income_counts_revealed_slots_only():
    s = position(["sea-dogs", "golems"], houses={0: ["E1", "E2"]}, tps={0: ["E4", "E5"]})
    s.players[0].bonus = ""
    # base 2 + houses 3+3 + two trading posts 2+2 coins, 1+1 power
    assert scoring.income(s, s.players[0]) == (12, 2)


def test_power_cycle_example():
    # Gain 3 with 2 in bowl I: 2 move I -> II, then 1 moves II -> III.
    assert gain_power(2, 2, 4, 3) == (0, 3, 5)
    assert spend_power(0, 3, 5, 5) == (5, 3, 0)
    with pytest.raises(ValueError):
        spend_power(0, 3, 5, 6)
    # bowl II charges only once bowl I is empty; gains past a full bowl III are lost
    assert gain_power(3, 1, 4, 2) == (1, 3, 4)
    assert gain_power(0, 1, 7, 5) == (0, 0, 8)
    assert gain_power(0, 0, 8, 3) == (0, 0, 8)


def test_power_cycle_through_the_engine():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]}, bonus={0: "D"})
    p = s.players[0]
    p.gain(3)
    assert bowls(s, 0) == (0, 3, 5)
    do(s, "exchange 5")
    assert bowls(s, 0) == (5, 3, 0) and p.money == 7 + 5


def test_shovel_round_tile_example_4_points():
    # Round tile "shovel" (2 VP per shovel). The 1-free-shovel power action on a desert next to
    # a lake house (lake -> desert is 2 shovels): the second shovel costs 6 money; 4 VP.
    s = position(["water-sprites", "golems"], houses={0: ["E5"]}, round_tile="shovel",
                 money={0: 10})
    assert DATA.round_tiles["shovel"] == ("shovel", 2)
    assert s.shovels(s.players[0], hx("E6")) == 2
    do(s, "pw-spade1-dig E6")
    p = s.players[0]
    assert vp(s, 0, "round") == 4
    assert p.money == 4
    assert bowls(s, 0) == (6, 2, 0)
    assert s.terrain[hx("E6")] == DATA.factions["water-sprites"].home
    assert not s.occupied >> hx("E6") & 1


def test_shovel_round_tile_with_house_scores_shovels_only():
    s = position(["water-sprites", "golems"], houses={0: ["E5"]}, round_tile="shovel",
                 money={0: 20})
    do(s, "pw-spade1-build E6")
    assert vp(s, 0, "round") == 4
    assert s.players[0].money == 20 - 6 - 4
    assert s.players[0].houses == mask(["E5", "E6"])


# --- costs --------------------------------------------------------------------------------------


def test_house_costs_4_on_home_terrain_in_reach():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]}, terrain={"E4": "lake"},
                 money={0: 4})
    assert "build E4" in texts(s)
    assert "build E2" not in texts(s)  # a lake, but not in reach
    do(s, "build E4")
    assert s.players[0].money == 0 and s.players[0].houses == mask(["E4", "E5"])


def test_house_needs_4_money():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]}, terrain={"E4": "lake"},
                 money={0: 3})
    assert "build E4" not in texts(s)


@pytest.mark.parametrize("target,shovels", [("D4", 1), ("D5", 2), ("E6", 2), ("E4", 2)])
def test_shovel_costs_6(target, shovels):
    # lake home: swamp (D4) is 1 step on the ring, wasteland (D5, E4) and desert (E6) are 2
    cost = 6 * shovels
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]}, money={0: cost})
    assert s.shovels(s.players[0], hx(target)) == shovels
    assert f"dig {target}" in texts(s) and f"build {target}" not in texts(s)
    do(s, f"dig {target}")
    assert s.players[0].money == 0
    s2 = position(["sea-dogs", "golems"], houses={0: ["E5"]}, money={0: cost - 1})
    assert f"dig {target}" not in texts(s2)
    s3 = position(["sea-dogs", "golems"], houses={0: ["E5"]}, money={0: cost + 4})
    do(s3, f"build {target}")
    assert s3.players[0].money == 0 and s3.players[0].houses >> hx(target) & 1


def test_trading_post_costs_10_alone_7_next_to_another_faction():
    alone = position(["sea-dogs", "golems"], houses={0: ["E5"], 1: ["A6"]}, money={0: 10})
    do(alone, "upgrade E5")
    assert alone.players[0].money == 0 and alone.players[0].tps == mask(["E5"])
    near = position(["sea-dogs", "golems"], houses={0: ["E5"], 1: ["D5"]}, money={0: 10})
    do(near, "upgrade E5")
    assert near.players[0].money == 3
    poor = position(["sea-dogs", "golems"], houses={0: ["E5"], 1: ["A6"]}, money={0: 9})
    assert "upgrade E5" not in texts(poor)


def test_own_buildings_do_not_make_the_trading_post_cheaper():
    s = position(["sea-dogs", "golems"], houses={0: ["E5", "E4"]}, money={0: 10})
    assert s.tp_cost(s.players[0], hx("E5")) == 10


def test_trading_post_adjacency_across_a_bridge():
    # E3 and C3 are joined by bridge site C3-E3 (two river hexes between them)
    s = position(["sea-dogs", "golems"], houses={0: ["E3"], 1: ["C3"]}, money={0: 30})
    p = s.players[0]
    assert s.tp_cost(p, hx("E3")) == 10
    do(s, "bridge C3-E3")
    assert p.money == 20 and p.bridges == 2
    do(s, "pass A")  # golems drop out; sea dogs keep the turn
    do(s, "upgrade E3")
    assert p.money == 13
    assert bowls(s, 1) == (1, 3, 4)  # golems gain 1 power thanks to others, over the bridge


def test_sailing_reach_does_not_make_the_trading_post_cheaper():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"], 1: ["G5"]}, sail={0: 1})
    assert hx("G5") in [h for h in range(90) if s.reach(s.players[0]) >> h & 1]
    assert s.tp_cost(s.players[0], hx("E5")) == 10


def test_palace_costs_14_and_either_side():
    s = position(["sea-dogs", "golems"], tps={0: ["E5"]}, money={0: 14})
    assert {"palace E5 left", "palace E5 right"} <= texts(s)
    do(s, "palace E5 right")
    p = s.players[0]
    assert p.money == 0 and p.palace_right == mask(["E5"]) and p.tps == 0
    s2 = position(["sea-dogs", "golems"], tps={0: ["E5"]}, money={0: 13})
    assert not any(t.startswith("palace") for t in texts(s2))


def test_second_palace_only_on_the_other_side():
    s = position(["sea-dogs", "golems"], tps={0: ["E4"]}, palaces={0: {"right": "E5"}},
                 money={0: 20})
    assert "palace E4 left" in texts(s) and "palace E4 right" not in texts(s)


def test_sailing_costs_8_and_scores_2_3_4():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]}, money={0: 24})
    s.players[1].passed = True  # the sea dogs take every turn
    p = s.players[0]
    for level, total in ((1, 2), (2, 5), (3, 9)):
        assert "sail" in texts(s)
        do(s, "sail")
        assert p.sail == level and vp(s, 0, "sailing") == total
        assert p.money == 24 - 8 * level
    assert vp(s, 0, "sailing") == 9
    p.money = 50
    assert "sail" not in texts(s) and "pw-sail" not in texts(s)  # the track ends at 3


def test_sailing_extends_reach_across_river_hexes():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]}, money={0: 20})
    p = s.players[0]
    assert not s.reach(p) >> hx("G5") & 1
    p.sail = 1
    assert s.reach(p) >> hx("G5") & 1  # one river hex (F5) between E5 and G5
    assert not s.reach(p) >> hx("H4") & 1
    p.sail = 2
    assert s.reach(p) >> hx("H4") & 1


def test_bonus_tile_c_adds_one_sailing_in_phase_2_only():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]}, bonus={0: "C"})
    p = s.players[0]
    assert s.sailing(p) == 1 and s.sailing(p, final=True) == 0
    assert s.reach(p) >> hx("G5") & 1


def test_bridge_costs_10_only_at_printed_sites_next_to_own_building():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"], 1: ["D7"]}, money={0: 10})
    assert {t for t in texts(s) if t.startswith("bridge")} == {"bridge E5-G5"}
    do(s, "bridge E5-G5")
    p = s.players[0]
    assert p.money == 0 and p.bridges == 2
    assert s.adj[hx("E5")] >> hx("G5") & 1 and s.adj[hx("G5")] >> hx("E5") & 1
    assert s.reach(p) >> hx("G5") & 1
    s2 = position(["sea-dogs", "golems"], houses={0: ["E5"]}, money={0: 9})
    assert not any(t.startswith("bridge") for t in texts(s2))


def test_at_most_3_bridges():
    s = position(["sea-dogs", "golems"], houses={0: ["D7"]}, money={0: 100})
    sites = {"bridge D7-E6", "bridge D7-E9", "bridge D7-F7"}
    assert {t for t in texts(s) if t.startswith("bridge")} == sites
    s.players[1].passed = True  # golems are out: the sea dogs take every turn
    for site in sorted(sites):
        do(s, site)
    p = s.players[0]
    assert p.bridges == 0 and p.money == 70
    assert s.bridge_owner.count(0) == 3
    p.p3, p.p1, p.p2 = 8, 0, 0
    p.houses |= mask(["E6"])  # new sites open next to E6, but no bridge is left
    s.terrain = replaced(s.terrain, hx("E6"), p.faction.home)
    s.occupied |= mask(["E6"])
    assert not any("bridge" in t for t in texts(s))


def test_bridge_built_by_other_faction_site_is_taken():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"], 1: ["G5"]}, money={0: 10, 1: 10},
                 to_move=1)
    do(s, "bridge E5-G5")
    assert s.bridge_owner[DATA.map.bridge_index["E5-G5"]] == 1
    assert not any(t.startswith("bridge") for t in texts(s))
    assert s.tp_cost(s.players[0], hx("E5")) == 7  # golems' G5 is now adjacent


# --- power actions, special actions, exchange ---------------------------------------------------


def test_power_action_once_per_round_for_everyone_and_cleared_at_round_end():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"], 1: ["A6"]})
    assert "pw-coins" in texts(s)
    do(s, "pw-coins")
    assert s.players[0].money == 7 + 7 and bowls(s, 0) == (6, 2, 0)
    assert s.current_player() == 1
    assert "pw-coins" not in texts(s)  # X-token: no one may take it again this round
    assert "pw-sail" in texts(s)
    finish_round(s)
    assert s.round == 2 and s.stage == "actions"
    assert s.used_power == frozenset()
    assert s.current_player() == 1  # golems dropped out first
    assert s.players[1].p3 >= 4 and "pw-coins" in texts(s)


def test_power_actions_need_charged_power():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]}, power={0: (3, 2, 3)})
    t = texts(s)
    assert "pw-bridge3 E5-G5" in t
    assert "pw-coins" not in t and "pw-sail" not in t and "pw-bridge4 E5-G5" not in t
    assert not any(x.startswith("pw-spade2") for x in t)


def test_power_action_costs():
    costs = {pa.id: pa.cost for pa in DATA.power_actions}
    assert costs == {"bridge3": 3, "bridge4": 4, "sail": 4, "coins": 4, "spade1": 4, "spade2": 6}
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]})
    do(s, "pw-sail")
    assert s.players[0].sail == 1 and vp(s, 0, "sailing") == 2 and bowls(s, 0) == (6, 2, 0)


def test_power_action_two_free_shovels_two_targets_one_house():
    # lake home: D4 (swamp) and E4 (wasteland is 2 steps; make it forest = 1 step)
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]}, terrain={"E4": "forest"},
                 power={0: (0, 2, 6)}, money={0: 4})
    t = texts(s)
    assert "pw-spade2-dig2 D4 E4" in t and "pw-spade2-build-dig D4 E4" in t
    assert "pw-spade2-build E6" in t  # one 2-shovel terrain
    do(s, "pw-spade2-build-dig D4 E4")
    p = s.players[0]
    home = p.faction.home
    assert s.terrain[hx("D4")] == home and s.terrain[hx("E4")] == home
    assert p.houses == mask(["E5", "D4"]) and p.money == 0 and bowls(s, 0) == (6, 2, 0)


def test_two_free_shovels_cannot_buy_more():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]}, power={0: (0, 0, 8)}, money={0: 50})
    t = texts(s)
    assert "pw-spade2-dig2 E6 D5" not in t and "pw-spade2-dig2 D5 E6" not in t  # 2 + 2 shovels


def test_special_action_once_per_round():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"], 1: ["A6"]}, bonus={0: "A"},
                 money={0: 4})
    assert "bonus-build D4" in texts(s)  # swamp: 1 shovel, free
    do(s, "bonus-build D4")
    p = s.players[0]
    assert p.money == 0 and p.houses == mask(["E5", "D4"])
    do(s, "pass B")
    p.money = 20
    assert not any(x.startswith("bonus-") for x in texts(s))
    assert "dig D5" in texts(s)


def test_bonus_special_buys_the_second_shovel():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]}, bonus={0: "A"}, money={0: 10})
    do(s, "bonus-build E6")
    assert s.players[0].money == 0


def test_power_exchange_one_to_one_is_free():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"]}, power={0: (2, 2, 4)})
    assert {f"exchange {k}" for k in (1, 2, 3, 4)} <= texts(s) and "exchange 5" not in texts(s)
    do(s, "exchange 3")
    assert s.players[0].money == 10 and bowls(s, 0) == (5, 2, 1)
    assert s.current_player() == 0  # the exchange is not the turn's action
    do(s, "exchange 1")
    do(s, "pass A")
    assert s.current_player() == 1


def test_exchange_at_round_end():
    s = position(["sea-dogs", "golems"], houses={0: ["E5"], 1: ["A6"]})
    do(s, "pass A")
    do(s, "pass B")
    assert s.stage == "exchange" and s.current_player() == 0
    do(s, "exchange 4")
    assert s.players[0].money == 7 + 4
    assert s.current_player() == 1  # seat 0 has no charged power left
    do(s, "done")
    assert s.round == 2 and s.stage == "actions"


def test_exchange_after_the_action_saves_power_a_neighbour_then_gives():
    # "You may perform this additional option at these times: Phase 2: At any point during your
    # turn, before or after your action, even when the action is Drop Out."
    # The leprechauns' house on E5 needs 1 shovel: +2 power fills bowl III; the golems on D5 can
    # then upgrade next to D4 and E5 (+2 power). Exchanging 1 after the action keeps it.
    s = position(["leprechauns", "golems"], houses={0: ["D4"], 1: ["D5"]},
                 power={0: (0, 2, 6)}, money={0: 10, 1: 7})
    do(s, "build E5")
    assert bowls(s, 0) == (0, 0, 8)
    assert s.current_player() == 0
    assert texts(s) == {"done"} | {f"exchange {k}" for k in range(1, 9)}
    do(s, "exchange 1")
    # bowl I now takes the 2 power the golems' one action can bring: the turn is over
    assert s.current_player() == 1
    do(s, "upgrade D5")
    assert bowls(s, 0) == (0, 0, 8) and s.players[0].money == 1
    # declined, the same 2 power are lost
    s = position(["leprechauns", "golems"], houses={0: ["D4"], 1: ["D5"]},
                 power={0: (0, 2, 6)}, money={0: 10, 1: 7})
    do(s, "build E5")
    do(s, "done")
    do(s, "upgrade D5")
    assert bowls(s, 0) == (0, 0, 8) and s.players[0].money == 0


def test_exchange_after_the_action_is_offered_only_where_power_could_be_lost():
    # Later is never worse (the power stays charged) unless others' builds overflow bowl III
    # first: with room for all the golems can give, the turn ends at the action.
    s = position(["leprechauns", "golems"], houses={0: ["D4"], 1: ["D5"]},
                 power={0: (2, 2, 4)}, money={0: 10, 1: 7})
    do(s, "build E5")
    assert bowls(s, 0) == (0, 4, 4) and s.current_player() == 1
    # an action that charges nothing: the same exchange before it gives the same
    s = position(["sea-dogs", "golems"], houses={0: ["E4"], 1: ["D4"]}, power={0: (0, 0, 8)})
    do(s, "pass A")
    assert s.current_player() == 1
    # the last one in the round has nobody to gain power from before the round-end exchange
    s = position(["leprechauns", "golems"], houses={0: ["D4"], 1: ["D5"]},
                 power={0: (0, 2, 6)}, money={0: 10})
    s.players[1].passed = True
    do(s, "build E5")
    assert bowls(s, 0) == (0, 0, 8)
    assert s.current_player() == 0 and s.window == 0 and "pass A" in texts(s)


def test_exchange_after_drop_out():
    # "... before or after your action, even when the action is Drop Out." The druids' left
    # palace charges 2 power per settlement on dropping out (3 settlements: 6, filling bowl III);
    # once out, the golems may upgrade next to them any number of times before the round ends.
    s = position(["druids", "golems"], houses={0: ["C5", "A2", "E1"], 1: ["E5"]},
                 palaces={0: {"left": "D5"}}, power={0: (1, 3, 4)}, money={1: 7})
    do(s, "pass A")
    assert bowls(s, 0) == (0, 0, 8) and s.current_player() == 0
    assert texts(s) == {"done", "druid-vp"} | {f"exchange {k}" for k in range(1, 9)}
    do(s, "exchange 2")
    assert s.current_player() == 0  # out of the round: others may act many times
    do(s, "done")
    do(s, "upgrade E5")  # next to the palace on D5
    assert bowls(s, 0) == (1, 1, 6) and s.players[0].money == 7 + 2


# --- gain power thanks to others ----------------------------------------------------------------


def test_gain_power_thanks_to_others():
    s = position(["sea-dogs", "golems"], houses={0: ["E4"], 1: ["D4", "D5", "A6"]},
                 terrain={"E5": "lake"}, power={0: (2, 2, 4), 1: (4, 2, 2)})
    do(s, "build E5")
    assert bowls(s, 1) == (2, 4, 2)  # D4 and D5 are next to E5: 2 power, A6 gives nothing
    assert bowls(s, 0) == (2, 2, 4)  # E4 is own: nothing
    s.players[1].money = 10
    do(s, "upgrade D4")  # next to E4 and E5 of the sea dogs
    assert bowls(s, 0) == (0, 4, 4)


def test_passed_player_still_gains_power():
    s = position(["sea-dogs", "golems"], houses={0: ["E4"], 1: ["D4"]}, terrain={"E5": "lake"},
                 to_move=1)
    do(s, "pass A")
    do(s, "build E5")
    assert bowls(s, 1) == (1, 3, 4)


# --- drop out -----------------------------------------------------------------------------------


def test_drop_out_swaps_bonus_tile_with_its_coins():
    s = position(["sea-dogs", "golems", "fairies"], houses={0: ["E5"], 1: ["A6"], 2: ["A5"]},
                 bonus={0: "A", 1: "B", 2: "C"}, supply={"D": 2, "E": 0, "F": 1})
    do(s, "pass D")
    p = s.players[0]
    assert p.bonus == "D" and p.money == 9 and p.passed
    assert s.supply == {"A": 0, "E": 0, "F": 1}
    assert s.current_player() == 1
    assert "pass A" in texts(s)  # a tile returned this round may be taken
    assert "pass D" not in texts(s)


def test_first_to_drop_out_starts_next_round_and_coins_on_unclaimed_tiles():
    s = position(["sea-dogs", "golems", "fairies"], houses={0: ["E5"], 1: ["A6"], 2: ["A5"]},
                 bonus={0: "A", 1: "B", 2: "C"}, supply={"D": 0, "E": 0, "F": 2})
    do(s, "pw-coins")  # seat 0 acts
    do(s, "pass D")  # seat 1 drops out first
    do(s, "pass B")  # seat 2
    assert s.current_player() == 0
    do(s, "pass C")
    while s.stage == "exchange":
        do(s, "done")
    assert s.round == 2 and s.current_player() == 1
    assert s.order == (1, 2, 0)
    # seat 0 returned A: every tile next to the board gets 1 more coin at round end
    assert s.supply == {"A": 1, "E": 1, "F": 3}
    assert [p.bonus for p in s.players] == ["C", "D", "B"]
    assert not any(p.passed for p in s.players)


def test_drop_out_bonus_tile_points():
    s = position(["sea-dogs", "golems"], houses={0: ["E1", "E2", "E3"]}, tps={0: ["E5"]},
                 palaces={0: {"right": "E4"}}, sail={0: 2}, bonus={0: "G"})
    do(s, "pass B")
    assert vp(s, 0, "dropout") == 3  # G: 1 per house
    for tile, points in (("F", 2), ("E", 4), ("H", 6)):
        s = position(["sea-dogs", "golems"], houses={0: ["E1", "E2", "E3"]}, tps={0: ["E5"]},
                     palaces={0: {"right": "E4"}}, sail={0: 2}, bonus={0: tile})
        do(s, "pass B")
        assert vp(s, 0, "dropout") == points, tile


def test_last_round_drop_out_still_takes_a_bonus_tile_and_its_coins():
    # Drop Out, step 3: "Then choose one of the available bonus tiles next to the game board and
    # exchange it for your old bonus tile. [...] If the new bonus tile has money on it, add it to
    # your supply." What round 5 skips is phase 3 ("you can skip it in round 5, the last
    # round"), not a step of Drop Out: the coins count in the money scoring.
    s = position(["sea-dogs", "golems"], houses={0: ["E5"], 1: ["A6"]}, bonus={0: "A"},
                 supply={"D": 4, "E": 0, "F": 1}, money={0: 2, 1: 0},
                 power={0: (4, 4, 0), 1: (4, 4, 0)})
    s.round = DATA.rounds
    assert {t for t in texts(s) if t.startswith("pass")} == {"pass D", "pass E", "pass F"}
    do(s, "pass D")
    p = s.players[0]
    assert p.bonus == "D" and p.money == 2 + 4
    assert s.supply == {"A": 0, "E": 0, "F": 1}
    do(s, "pass A")  # the tile the sea dogs returned, as any drop-out may
    assert s.is_over()
    assert vp(s, 0, "money") == 2  # 6 coins; 2 coins without the tile's would score 0


# --- end of game --------------------------------------------------------------------------------


@pytest.mark.parametrize("sizes,expected", [
    ([5, 3, 1, 0], [12, 8, 4, 0]),
    ([5, 5, 3, 1], [10, 10, 4, 0]),
    ([5, 5, 5, 1], [8, 8, 8, 0]),
    ([5, 5, 5, 5], [6, 6, 6, 6]),
    ([6, 3, 3, 1], [12, 6, 6, 0]),
    ([6, 3, 3, 3], [12, 4, 4, 4]),
    ([6, 4, 1, 1], [12, 8, 2, 2]),
    ([2, 2], [10, 10]),
    ([3, 2], [12, 8]),
    ([4, 4, 4], [8, 8, 8]),
    ([1, 4, 4], [4, 10, 10]),
])
def test_territory_ties_split_places(sizes, expected):
    assert scoring.split_places(sizes, DATA.territory_points) == expected
    assert DATA.territory_points == (12, 8, 4, 0)


def test_final_scoring_money_and_territory():
    # seat 0: E4-E5 + D4 connected (3) and a lone A6; seat 1: A2 A3 A4 (3) -> tie for first
    # seat 2: G2 and I2 two river hexes apart: 1 without sailing, 2 with sailing 1.
    s = position(["sea-dogs", "golems", "fairies"],
                 houses={0: ["E4", "E5", "D4", "A6"], 1: ["A2", "A3", "A4"], 2: ["G2", "I2"]},
                 bonus={2: "C"}, money={0: 10, 1: 0, 2: 2},
                 power={0: (0, 3, 5), 1: (8, 0, 0), 2: (8, 0, 0)})
    s.round = DATA.rounds
    assert [scoring.network_size(s, p) for p in s.players] == [3, 3, 1]  # C is not counted
    finish_round(s)
    assert s.is_over()
    b = s.breakdown()
    assert [x["territory"] for x in b] == [10, 10, 4]
    assert [x["money"] for x in b] == [5, 0, 0]  # (10 + 5 power) // 3 = 5; 2 // 3 = 0
    assert s.players[0].money == 15 and bowls(s, 0) == (5, 3, 0)


def test_territory_counts_sailing_reach():
    s = position(["sea-dogs", "golems"], houses={0: ["E5", "G5", "G6"], 1: ["A2"]})
    assert scoring.network_size(s, s.players[0]) == 2
    s.players[0].sail = 1
    assert scoring.network_size(s, s.players[0]) == 3
    s.players[0].sail = 0
    s.players[0].money = 10
    do(s, "bridge E5-G5")
    assert scoring.network_size(s, s.players[0]) == 3


def test_setup_puts_a_coin_on_unclaimed_tiles_and_pays_round_1_income():
    s = setup_game(["golems", "fairies"], ["E4", "C5", "B7", "D5"], ["B", "A"], seed=2)
    assert s.supply == {t: 1 for t in s.bonus_tiles if t not in ("A", "B")}
    assert len(s.supply) == 3  # players + 3 tiles, minus the 2 picked
    # golems: 7 + base 2 + houses 3 + 2 + tile A 2; fairies: 7 + 2 + 3 + 3 + tile B 6, 2 power
    assert [p.money for p in s.players] == [16, 21]
    assert [bowls(s, i) for i in (0, 1)] == [(2, 2, 4), (0, 4, 4)]
    assert s.current_player() == 0


def test_dropout_turn_order_variant():
    s = GAME.new_state(["golems", "fairies", "sea-dogs"], seed=4, turn_order="dropout")
    rng_places = {0: ["E4", "D5"], 1: ["C5", "B7"], 2: ["E5", "E2"]}
    for seat in (0, 1, 2, 2, 1, 0):
        do(s, f"place {rng_places[seat].pop(0)}")
    for _ in range(3):
        s.apply(s.legal_actions()[0])
    assert s.stage == "actions" and s.order == (0, 1, 2)
    do(s, "pw-coins")  # seat 0
    do(s, "sail")  # seat 1
    do(s, f"pass {sorted(s.supply)[0]}")  # seat 2 drops out first
    do(s, "sail")  # seat 0
    do(s, f"pass {sorted(s.supply)[0]}")  # seat 1
    do(s, f"pass {sorted(s.supply)[0]}")  # seat 0
    while s.stage == "exchange":
        do(s, "done")
    # the order of dropping out, not clockwise from the first ([2, 0, 1])
    assert s.round == 2 and s.order == (2, 1, 0) and s.current_player() == 2
