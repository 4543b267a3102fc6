"""Every faction ability and every palace (left and right) of the 10 Terra Nova factions, as the
rulebook appendix states them, and the town rules (rulebook: Founding a Town, Town Tiles)."""

import pytest
from tn_helpers import (
    DATA,
    GAME,
    MAP,
    bowls,
    do,
    finish_round,
    hx,
    mask,
    position,
    texts,
    vp,
)

from terra_sim.games.terra_nova import scoring

A_SIDE = ["water-sprites", "golems", "leprechauns", "fairies", "sun-worshippers"]
OTHER = {"lake": "golems", "wasteland": "sea-dogs", "swamp": "golems", "forest": "golems",
         "desert": "golems"}


def home(faction: str) -> str:
    return DATA.ring[DATA.factions[faction].home]


def opponent(faction: str) -> str:
    return OTHER[home(faction)]


def town_ready(faction: str, **kw):
    """Trading posts on E4, E5, D4 (value 6); a house on D5 (home terrain, 4 money) makes a
    town of 4 buildings worth 7."""
    kw.setdefault("money", {0: 4})
    return position([faction, opponent(faction)], tps={0: ["E4", "E5", "D4"]},
                    terrain={"D5": home(faction)}, **kw)


def pending_towns(s, seat=0) -> int:
    return sum(1 for d, who in s.pending if d == "town" and who == seat)


# --- towns --------------------------------------------------------------------------------------


def test_town_founded_at_4_buildings_worth_7():
    s = town_ready("golems")
    do(s, "build D5")
    assert s.pending == (("town", 0),) and s.current_player() == 0
    assert texts(s) == {"town 1", "town 2", "town 3", "town 4"}
    do(s, "town 3")
    p = s.players[0]
    assert vp(s, 0, "town") == 9 and p.tiles_used == (3,)
    assert p.towns == mask(["E4", "E5", "D4", "D5"])
    assert s.current_player() == 1


def test_no_town_below_value_7_or_below_4_buildings():
    s = position(["golems", "sea-dogs"], houses={0: ["E4", "E5", "D4"]},
                 terrain={"D5": "wasteland"}, money={0: 4})
    do(s, "build D5")  # 4 buildings worth 4
    assert not s.pending and s.players[0].towns == 0
    s = position(["golems", "sea-dogs"], tps={0: ["E4", "E5"]}, palaces={0: {"left": "D4"}})
    s.players[0].money = 14
    do(s, "pw-coins")  # 3 buildings worth 7: no town
    assert not s.pending and s.players[0].towns == 0


@pytest.mark.parametrize("tile,money,power,points,sail", [
    (1, 6, 0, 5, 0), (2, 0, 8, 6, 0), (3, 0, 0, 9, 0), (4, 0, 0, 4, 1),
])
def test_town_tile_rewards(tile, money, power, points, sail):
    s = town_ready("golems", power={0: (4, 4, 0)})
    do(s, "build D5")
    do(s, f"town {tile}")
    p = s.players[0]
    assert p.money == money
    assert bowls(s, 0) == ((0, 4, 4) if power else (4, 4, 0))
    assert vp(s, 0, "town") == points
    assert p.sail == sail and vp(s, 0, "sailing") == 2 * sail


def test_round_tile_town_5_and_sail_from_town_tile_scores_round_tile_sail():
    s = town_ready("golems", round_tile="town")
    do(s, "build D5")
    do(s, "town 3")
    assert vp(s, 0, "round") == 5
    s = town_ready("golems", round_tile="sail")
    do(s, "build D5")
    do(s, "town 4")
    assert vp(s, 0, "round") == 2 and vp(s, 0, "sailing") == 2


def test_each_town_tile_once():
    s = town_ready("golems")
    s.players[0].tiles_used = (3, 1)
    do(s, "build D5")
    assert texts(s) == {"town 2", "town 4"}
    s = town_ready("golems")
    s.players[0].tiles_used = (1, 2, 3, 4)
    do(s, "build D5")
    assert not s.pending and s.players[0].towns == 0  # no tile left: no town


def test_town_via_a_bridge():
    # E3, E4 (trading posts) and C3 (trading post), B3 (house): 4 buildings worth 7, split by
    # the river; the bridge C3-E3 joins them
    s = position(["golems", "sea-dogs"], tps={0: ["E3", "E4", "C3"]}, houses={0: ["B3"]},
                 money={0: 10})
    assert not s.pending
    do(s, "bridge C3-E3")
    assert s.pending == (("town", 0),)
    do(s, "town 3")
    assert s.players[0].towns == mask(["E3", "E4", "C3", "B3"])


def test_building_next_to_a_town_expands_it_and_cannot_found_a_new_one():
    # town T = D1 E1 E2 F1 (already founded); group G = E4 F3 D4 (3 trading posts, worth 6).
    # E3 touches both: it joins T, so G + E3 (4 buildings, 7) is no new town.
    kw = dict(tps={0: ["E4", "F3", "D4"]}, terrain={"E3": "wasteland"}, money={0: 4})
    s = position(["golems", "sea-dogs"], houses={0: ["D1", "E1", "E2", "F1"]}, **kw)
    p = s.players[0]
    p.towns = mask(["D1", "E1", "E2", "F1"])
    p.tiles_used = (3,)
    do(s, "build E3")
    assert not s.pending
    assert p.towns == mask(["D1", "E1", "E2", "F1", "E3"])
    # control: without the town next door, E3 founds a town with G
    s = position(["golems", "sea-dogs"], **kw)
    do(s, "build E3")
    assert s.pending == (("town", 0),)
    do(s, "town 1")
    assert s.players[0].towns == mask(["E4", "F3", "D4", "E3"])


def test_joining_two_towns_keeps_both_tiles():
    s = position(["golems", "sea-dogs"], houses={0: ["D1", "E1", "E2", "F1"]},
                 tps={0: ["E4", "F3", "D4", "D5"]}, terrain={"E3": "wasteland"}, money={0: 4})
    p = s.players[0]
    p.towns = mask(["D1", "E1", "E2", "F1", "E4", "F3", "D4", "D5"])
    p.tiles_used = (3, 1)
    do(s, "build E3")
    assert not s.pending and p.tiles_used == (3, 1)
    assert p.towns >> hx("E3") & 1
    assert vp(s, 0, "town") == 0


def test_building_that_would_complete_two_towns_founds_one():
    # groups D1 E1 E2 and E4 F3 D4, 3 trading posts each: E3 joins them into ONE town
    s = position(["golems", "sea-dogs"], tps={0: ["D1", "E1", "E2", "E4", "F3", "D4"]},
                 terrain={"E3": "wasteland"}, money={0: 4})
    do(s, "build E3")
    assert pending_towns(s) == 1
    do(s, "town 3")
    assert s.players[0].towns == mask(["D1", "E1", "E2", "E3", "E4", "F3", "D4"])
    assert s.current_player() == 1


def test_upgrade_can_found_a_town():
    s = position(["golems", "sea-dogs"], houses={0: ["E4", "E5"]}, tps={0: ["D4", "D5"]},
                 money={0: 10})
    do(s, "upgrade E4")  # 2 + 1 + 2 + 2 = 7
    assert s.pending == (("town", 0),)


# --- right palace "town value 6" (all A sides) ----------------------------------------------------


@pytest.mark.parametrize("faction", A_SIDE)
def test_right_palace_town_value_6_founded_by_building_the_palace(faction):
    # houses E5 D4 D5 + trading post E4 (value 5); the palace makes it 3 + 3 = 6
    def make():
        return position([faction, opponent(faction)], houses={0: ["E5", "D4", "D5"]},
                        tps={0: ["E4"]}, money={0: 14})
    s = make()
    do(s, "palace E4 right")
    assert s.pending == (("town", 0),)
    assert s.players[0].eff["town_value"] == 6
    s = make()
    do(s, "palace E4 left")
    assert not s.pending  # 6 < 7 without the right palace


@pytest.mark.parametrize("faction", A_SIDE)
def test_right_palace_town_still_needs_4_buildings(faction):
    s = position([faction, opponent(faction)], tps={0: ["E5", "D4"]},
                 palaces={0: {"right": "E4"}})
    s.players[0].money = 10
    do(s, "pw-coins")
    assert not s.pending  # 3 buildings worth 7


@pytest.mark.parametrize("faction", ["sea-dogs", "fire-sprites", "inventors", "druids",
                                     "sand-cats"])
def test_b_side_right_palace_keeps_town_value_7(faction):
    assert "town_value" not in DATA.factions[faction].right_palace
    s = position([faction, opponent(faction)], houses={0: ["E5", "D4", "D5"]},
                 tps={0: ["E4"]}, money={0: 14})
    do(s, "palace E4 right")
    assert not s.pending


# --- Water Sprites ------------------------------------------------------------------------------


def test_water_sprites_4_points_per_town():
    s = town_ready("water-sprites", round_tile="town")
    do(s, "build D5")
    do(s, "town 3")
    assert vp(s, 0, "town") == 9 + 4 and vp(s, 0, "round") == 5


def test_water_sprites_left_palace_lake_house_anywhere_once_per_round():
    s = position(["water-sprites", "golems"], houses={0: ["E5"]}, palaces={0: {"left": "D7"}},
                 money={0: 0}, round_tile="house-1")
    t = texts(s)
    lakes = {f"lake-house {n}" for n in MAP.mask_names(DATA.map.terrain_mask["lake"])
             if n not in ("E5", "D7")}
    assert {x for x in t if x.startswith("lake-house")} == lakes
    assert len(lakes) == 10
    do(s, "lake-house I6")  # far away, no money
    p = s.players[0]
    assert p.houses == mask(["E5", "I6"]) and p.money == 0
    assert vp(s, 0, "round") == 2  # counts as building a house
    do(s, "pass A")
    assert not any(x.startswith("lake-house") for x in texts(s))
    finish_round(s)
    s.turn = s.order.index(0)
    assert any(x.startswith("lake-house") for x in texts(s))


def test_water_sprites_lake_house_only_on_lake():
    s = position(["water-sprites", "golems"], houses={0: ["E5"]}, palaces={0: {"left": "D7"}})
    assert "lake-house I5" not in texts(s) and "lake-house E6" not in texts(s)


def test_water_sprites_left_palace_income_2_power():
    s = position(["water-sprites", "golems"], houses={0: ["E5"]}, bonus={0: "B"})
    base = scoring.income(s, s.players[0])
    s.players[0].activate(DATA.factions["water-sprites"].left_palace)
    assert scoring.income(s, s.players[0]) == (base[0], base[1] + 2)


# --- Sea Dogs -----------------------------------------------------------------------------------


def river_town(faction):
    # E4 E5 (trading posts) | river F5 | G5 (trading post) + a house on G6: value 7
    return position([faction, opponent(faction)], tps={0: ["E4", "E5", "G5"]},
                    terrain={"G6": home(faction)}, money={0: 4})


def test_sea_dogs_town_across_one_river_hex():
    # "You may found cities spanning one river space without connecting the buildings with a
    # bridge. It is up to you if and when you use this ability."
    s = river_town("sea-dogs")
    do(s, "build G6")
    assert s.pending == (("river", 0),) and texts(s) == {"river-link", "no-link"}
    do(s, "river-link")
    assert s.pending == (("town", 0),)
    do(s, "town 3")
    assert s.players[0].towns == mask(["E4", "E5", "G5", "G6"])
    s = river_town("sea-dogs")
    do(s, "build G6")
    do(s, "no-link")
    assert not s.pending and s.players[0].towns == 0 and s.current_player() == 1
    s = river_town("water-sprites")
    do(s, "build G6")
    assert not s.pending


def test_sea_dogs_may_decline_the_river_link_for_more_towns():
    # "It is up to you if and when you use this ability." North E4 E5 D4 and south G6 H5 H6
    # (trading posts, worth 6 each) face each other across one river hex; a house on G5 makes
    # the south a town. Linked, all seven are one town and D5 then only expands it; declined,
    # D5 founds a second town in the north.
    def towns_founded(choice: str) -> int:
        s = position(["sea-dogs", "golems"], tps={0: ["E4", "E5", "D4", "G6", "H5", "H6"]},
                     houses={1: ["A6"]}, terrain={"G5": "lake", "D5": "lake"}, money={0: 8})
        do(s, "build G5")
        assert texts(s) == {"river-link", "no-link"}
        do(s, choice)
        do(s, "town 1")
        do(s, "pass A")
        do(s, "build D5")
        if s.pending:
            do(s, "town 3")
        return len(s.players[0].tiles_used)

    assert towns_founded("river-link") == 1
    assert towns_founded("no-link") == 2


def test_sea_dogs_town_without_the_river_needs_no_decision():
    s = town_ready("sea-dogs")  # E4 E5 D4 D5: no own building across the river
    do(s, "build D5")
    assert s.pending == (("town", 0),)


def test_sea_dogs_town_not_across_two_river_hexes():
    # E5 (trading post) and H4 (G4/F4 river between): two river hexes
    s = position(["sea-dogs", "golems"], tps={0: ["E4", "E5", "H4"]},
                 terrain={"H5": "lake"}, money={0: 4}, sail={0: 2})
    do(s, "build H5")
    assert not s.pending


def test_sea_dogs_left_palace_free_sailing_with_points():
    s = position(["sea-dogs", "golems"], tps={0: ["E5"]}, money={0: 14}, round_tile="sail",
                 bonus={0: "B"})
    do(s, "palace E5 left")
    p = s.players[0]
    assert p.sail == 1 and vp(s, 0, "sailing") == 2 and vp(s, 0, "round") == 2
    assert p.money == 0
    assert p.eff["income_power"] == 4
    assert scoring.income(s, p) == (2 + 6, 4)  # base + bonus B; the palace gives 4 power


def test_sea_dogs_right_palace_free_trading_post_once_per_round():
    s = position(["sea-dogs", "golems"], houses={0: ["E5", "E3"]}, palaces={0: {"right": "E4"}},
                 money={0: 0}, round_tile="tp-1")
    assert {"free-tp E5", "free-tp E3"} <= texts(s)
    do(s, "free-tp E5")
    p = s.players[0]
    assert p.tps == mask(["E5"]) and p.houses == mask(["E3"]) and p.money == 0
    assert vp(s, 0, "round") == 3
    do(s, "pass A")
    assert "free-tp E3" not in texts(s)


# --- Golems -------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_tps,points", [(0, 0), (1, 2), (2, 2), (3, 3), (4, 4)])
def test_golems_drop_out_points_for_trading_posts(n_tps, points):
    s = position(["golems", "sea-dogs"], tps={0: ["E1", "E2", "E3", "E4"][:n_tps]},
                 houses={0: ["A6"]}, bonus={0: "B"})
    do(s, "pass A")
    assert vp(s, 0, "dropout") == points


def test_golems_left_palace_two_shovel_transform_needs_one():
    def make(palace):
        return position(["golems", "sea-dogs"], houses={0: ["E4"]}, round_tile="shovel",
                        palaces={0: {"left": "A6"}} if palace else None, money={0: 12})
    s = make(False)
    assert s.shovels(s.players[0], hx("E5")) == 2  # lake is 2 steps from wasteland
    do(s, "dig E5")
    assert s.players[0].money == 0 and vp(s, 0, "round") == 4
    s = make(True)
    assert s.shovels(s.players[0], hx("E5")) == 1
    assert s.shovels(s.players[0], hx("E3")) == 1  # desert: 1 step anyway
    do(s, "dig E5")
    assert s.players[0].money == 6 and vp(s, 0, "round") == 2
    assert scoring.income(s, s.players[0])[1] >= 4 and s.players[0].eff["income_power"] == 4


# --- Fire Sprites -------------------------------------------------------------------------------


def test_fire_sprites_power_actions_cost_1_less():
    s = position(["fire-sprites", "sea-dogs"], houses={0: ["E4"]}, power={0: (2, 3, 3)})
    assert {"pw-coins", "pw-sail"} <= texts(s)  # 4 - 1 = 3 with 3 in bowl III
    other = position(["golems", "sea-dogs"], houses={0: ["E4"]}, power={0: (2, 3, 3)})
    assert "pw-coins" not in texts(other) and "pw-sail" not in texts(other)
    do(s, "pw-coins")
    assert bowls(s, 0) == (5, 3, 0) and s.players[0].money == 7 + 7
    s = position(["fire-sprites", "sea-dogs"], houses={0: ["E4"]}, power={0: (3, 0, 5)})
    assert any(x.startswith("pw-spade2") for x in texts(s))  # 6 - 1 = 5
    do(s, "pw-spade2-dig E5")
    assert bowls(s, 0) == (8, 0, 0)


def test_fire_sprites_exchange_not_cheaper():
    s = position(["fire-sprites", "sea-dogs"], houses={0: ["E4"]}, power={0: (2, 2, 4)})
    do(s, "exchange 4")
    assert s.players[0].money == 7 + 4 and bowls(s, 0) == (6, 2, 0)


def test_fire_sprites_left_palace_free_edge_house():
    s = position(["fire-sprites", "sea-dogs"], tps={0: ["E4"]}, houses={1: ["A2"]},
                 money={0: 14}, round_tile="house-1")
    do(s, "palace E4 left")
    assert s.pending == (("edge", 0),) and s.current_player() == 0
    edge = {x for x in texts(s) if x.startswith("edge-house")}
    assert len(edge) == 28 - 1 and "edge-house A2" not in edge and "edge-skip" in texts(s)
    assert "edge-house E5" not in edge  # not at the edge
    do(s, "edge-house I5")  # a forest far away, not in reach
    p = s.players[0]
    assert p.houses == mask(["I5"]) and s.terrain[hx("I5")] == p.faction.home
    assert p.money == 0 and vp(s, 0, "round") == 2  # free; counts as building a house
    assert s.current_player() == 1 and not s.pending
    assert p.eff["income_power"] == 4


def test_fire_sprites_edge_house_is_not_a_shovel_and_can_be_skipped():
    s = position(["fire-sprites", "sea-dogs"], tps={0: ["E4"]}, money={0: 14},
                 round_tile="shovel")
    do(s, "palace E4 left")
    do(s, "edge-house I5")
    assert vp(s, 0, "round") == 0
    s = position(["fire-sprites", "sea-dogs"], tps={0: ["E4"]}, money={0: 14})
    do(s, "palace E4 left")
    do(s, "edge-skip")
    assert s.players[0].houses == 0 and s.current_player() == 1


def test_fire_sprites_right_palace_drop_out_per_edge_settlement():
    # settlements: A2-A3 (edge), E1 (edge), E4-E5 (inland, palace on E4): 2 points
    s = position(["fire-sprites", "sea-dogs"], houses={0: ["A2", "A3", "E1", "E5"]},
                 palaces={0: {"right": "E4"}}, bonus={0: "B"})
    do(s, "pass A")
    assert vp(s, 0, "dropout") == 2


# --- Leprechauns --------------------------------------------------------------------------------


def test_leprechauns_2_power_per_shovel_free_ones_included():
    s = position(["leprechauns", "golems"], houses={0: ["D4"]}, round_tile="shovel")
    do(s, "pw-spade1-dig E5")  # lake: 1 shovel, free
    assert bowls(s, 0) == (4, 4, 0)  # spend 4 -> (6, 2, 0), gain 2
    s = position(["leprechauns", "golems"], houses={0: ["D4"]}, money={0: 12})
    do(s, "dig D5")  # wasteland: 2 paid shovels
    assert bowls(s, 0) == (0, 2, 6) and s.players[0].money == 0
    s = position(["golems", "sea-dogs"], houses={0: ["E4"]}, money={0: 12})
    do(s, "dig E5")
    assert bowls(s, 0) == (2, 2, 4)  # no such ability for others


def test_leprechauns_left_palace_6_power_once_and_income():
    s = position(["leprechauns", "golems"], tps={0: ["D4"]}, money={0: 14},
                 power={0: (5, 1, 2)}, bonus={0: "B"})
    before = scoring.income(s, s.players[0])
    do(s, "palace D4 left")
    assert bowls(s, 0) == (0, 5, 3)
    after = scoring.income(s, s.players[0])
    tp1 = DATA.factions["leprechauns"].tp_coins[0], DATA.factions["leprechauns"].tp_power[0]
    assert after == (before[0] - tp1[0] + 5, before[1] - tp1[1] + 2)


# --- Inventors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("factions,gain", [
    (["sea-dogs", "inventors"], 2),
    (["sea-dogs", "inventors", "golems"], 1),
    (["sea-dogs", "inventors", "golems", "fairies"], 1),
])
def test_inventors_gain_power_when_another_faction_builds_a_house(factions, gain):
    s = position(factions, houses={0: ["E5"], 1: ["I1"]}, terrain={"E4": "lake"},
                 power={1: (4, 4, 0)})
    do(s, "build E4")
    assert bowls(s, 1) == (4 - gain, 4 + gain, 0)


def test_inventors_gain_nothing_for_own_house_or_upgrade():
    s = position(["inventors", "sea-dogs"], houses={0: ["D4"], 1: ["I6"]},
                 terrain={"E5": "swamp"}, power={0: (4, 4, 0)}, money={0: 20})
    do(s, "build E5")
    assert bowls(s, 0) == (4, 4, 0)
    s = position(["sea-dogs", "inventors"], houses={0: ["E5"], 1: ["I1"]}, money={0: 10},
                 power={1: (4, 4, 0)})
    do(s, "upgrade E5")
    assert bowls(s, 1) == (4, 4, 0)


def test_inventors_left_palace_trading_post_for_6_power_repeatable():
    s = position(["inventors", "sea-dogs"], houses={1: ["I6"]}, palaces={0: {"left": "D4"}},
                 money={0: 0}, power={0: (0, 0, 8)}, round_tile="tp-1")
    s.players[1].passed = True
    assert "inventor-tp E5" in texts(s)
    do(s, "inventor-tp E5")  # lake -> swamp, trading post, no money
    p = s.players[0]
    assert p.tps == mask(["E5"]) and s.terrain[hx("E5")] == p.faction.home
    assert p.money == 0 and bowls(s, 0) == (6, 0, 2)
    assert vp(s, 0, "round") == 3  # counts as an upgrade to a trading post
    p.p1, p.p3 = 0, 8
    do(s, "inventor-tp E4")  # again in the same round
    assert p.tps == mask(["E5", "E4"]) and vp(s, 0, "round") == 6
    p.p1, p.p3 = 3, 5
    assert not any(x.startswith("inventor-tp") for x in texts(s))


def test_inventors_trading_post_action_is_not_a_shovel():
    s = position(["inventors", "sea-dogs"], palaces={0: {"left": "D4"}}, power={0: (0, 0, 8)},
                 round_tile="shovel")
    do(s, "inventor-tp D5")
    assert vp(s, 0, "round") == 0
    assert s.players[0].eff["income_power"] == 2


def test_inventors_right_palace_2_points_per_house():
    s = position(["inventors", "sea-dogs"], houses={0: ["D4"]}, palaces={0: {"right": "A4"}},
                 terrain={"E5": "swamp"}, money={0: 20})
    do(s, "build E5")
    assert vp(s, 0, "faction") == 2
    do(s, "pass A")
    do(s, "build D5")  # wasteland: 2 shovels and the house
    assert vp(s, 0, "faction") == 4 and s.players[0].money == 0


# --- Fairies ------------------------------------------------------------------------------------


def test_fairies_2_power_income():
    s = position(["fairies", "golems"], houses={0: ["C5"]}, bonus={0: "B"})
    assert scoring.income(s, s.players[0]) == (2 + 3 + 6, 2)


def test_fairies_left_palace_income_and_spade_action_once_per_round():
    s = position(["fairies", "golems"], houses={0: ["C5"]}, palaces={0: {"left": "D5"}},
                 bonus={0: "B"}, money={0: 4}, power={0: (2, 2, 4)}, round_tile="shovel")
    assert scoring.income(s, s.players[0]) == (2 + 3 + 6 + 2, 2 + 3)
    assert "fairy-dig D4" not in texts(s)  # swamp is 2 steps from forest: 1 paid, 6 money
    assert "fairy-build E5" in texts(s)  # lake: 1 step, free shovel, house 4
    do(s, "fairy-build E5")
    p = s.players[0]
    assert p.houses == mask(["C5", "E5"]) and p.money == 0 and bowls(s, 0) == (4, 2, 2)
    assert vp(s, 0, "round") == 2
    do(s, "pass A")
    p.money = 30
    assert not any(x.startswith("fairy-") for x in texts(s))


# --- Druids -------------------------------------------------------------------------------------


def test_druids_3_power_for_2_points_at_exchange_times():
    s = position(["druids", "golems"], houses={0: ["C5"]}, power={0: (0, 1, 7)})
    do(s, "druid-vp")
    do(s, "druid-vp")
    assert vp(s, 0, "faction") == 4 and bowls(s, 0) == (6, 1, 1)
    assert "druid-vp" not in texts(s) and s.current_player() == 0
    p = s.players[0]
    p.p1, p.p3 = 3, 4
    do(s, "pass A")
    do(s, "pass B")
    assert s.stage == "exchange" and "druid-vp" in texts(s)  # at round end
    do(s, "druid-vp")
    assert vp(s, 0, "faction") == 6
    s = position(["druids", "golems"], houses={0: ["C5"]}, power={0: (0, 1, 7)})
    s.round = DATA.rounds
    do(s, "pass A")
    do(s, "pass B")
    assert s.stage == "final-exchange" and texts(s) == {"druid-vp", "done"}
    do(s, "druid-vp")
    do(s, "druid-vp")
    # 1 power left: no more trades; the money scoring takes bowl III and the game ends
    assert s.stage == "over" and vp(s, 0, "faction") == 4
    assert s.players[0].money == 7 + 1 and bowls(s, 0) == (7, 1, 0)


def test_golems_have_no_druid_exchange():
    s = position(["golems", "druids"], houses={0: ["E4"]}, power={0: (0, 0, 8)})
    assert "druid-vp" not in texts(s)


def test_druids_left_palace_2_power_per_settlement_on_drop_out():
    # settlements: C5-D5 (palace), A2, E1: 3 -> 6 power
    s = position(["druids", "golems"], houses={0: ["C5", "A2", "E1"]},
                 palaces={0: {"left": "D5"}}, power={0: (6, 2, 0)}, bonus={0: "B"})
    do(s, "pass A")
    assert bowls(s, 0) == (0, 8, 0)
    assert s.players[0].eff["income_power"] == 4


def test_druids_right_palace_3_points_per_house_to_trading_post():
    s = position(["druids", "golems"], houses={0: ["C5"]}, palaces={0: {"right": "A2"}},
                 money={0: 10})
    do(s, "upgrade C5")
    assert vp(s, 0, "faction") == 3


# --- Sun Worshippers ----------------------------------------------------------------------------


def test_sun_worshippers_third_house_after_everyone():
    s = GAME.new_state(["golems", "sun-worshippers", "fairies"], seed=3)
    seats = []
    while s.stage == "setup-house":
        seats.append(s.current_player())
        s.apply(s.legal_actions()[0])
    assert seats == [0, 1, 2, 2, 1, 0, 1]
    assert s.players[1].houses.bit_count() == 3 and s.players[0].houses.bit_count() == 2
    assert DATA.factions["sun-worshippers"].start_money == 5
    assert s.players[1].money == 5


def test_sun_worshippers_left_palace_same_continent_transform():
    s = position(["sun-worshippers", "golems"], houses={0: ["E3"], 1: ["E2"]},
                 palaces={0: {"left": "A3"}}, money={0: 14}, round_tile="shovel")
    t = {x for x in texts(s) if x.startswith("sun-")}
    assert t == {f"sun-{k} {h}" for k in ("dig", "build") for h in ("E4", "F2", "F3", "A2",
                                                                      "A4", "B2", "B3")}
    do(s, "bridge C3-E3")
    do(s, "pass A")
    t = texts(s)
    assert s.reach(s.players[0]) >> hx("C3") & 1  # in reach over the bridge C3-E3 ...
    assert "sun-dig C3" not in t  # ... but on another continent
    do(s, "sun-build E4")  # wasteland: would need 1 shovel; free here, house 4
    p = s.players[0]
    assert p.money == 0 and p.houses == mask(["E3", "E4"])
    assert vp(s, 0, "round") == 0  # not a shovel
    assert not any(x.startswith("sun-") for x in texts(s))


# --- Sand Cats ----------------------------------------------------------------------------------


@pytest.mark.parametrize("factions,gain", [
    (["sea-dogs", "sand-cats"], 2), (["sea-dogs", "sand-cats", "golems"], 1),
])
def test_sand_cats_money_when_another_faction_upgrades(factions, gain):
    s = position(factions, houses={0: ["E5"], 1: ["I3"]}, tps={0: ["E4"]}, money={0: 24, 1: 0})
    for q in s.players[1:]:
        q.passed = True  # seat 0 takes every turn
    do(s, "upgrade E5")
    assert s.players[1].money == gain
    do(s, "palace E4 right")
    assert s.players[1].money == 2 * gain
    if len(factions) == 3:
        assert s.players[2].money == 7  # golems have no such ability


def test_sand_cats_left_palace_cheaper_trading_posts():
    s = position(["sand-cats", "golems"], houses={0: ["E3", "A3"], 1: ["E4"]},
                 palaces={0: {"left": "I3"}}, money={0: 12})
    p = s.players[0]
    assert s.tp_cost(p, hx("E3")) == 5 and s.tp_cost(p, hx("A3")) == 7
    do(s, "upgrade E3")
    assert p.money == 7


def test_sand_cats_right_palace_points_for_buildings_off_the_river():
    # I4 I5 (inland), I6 palace (inland), E5 (river): 3 points
    s = position(["sand-cats", "golems"], houses={0: ["I4", "I5", "E5"]},
                 palaces={0: {"right": "I6"}}, bonus={0: "B"})
    do(s, "pass A")
    assert vp(s, 0, "dropout") == 3


def test_fire_sprites_edge_house_counts_as_building_a_house_for_others():
    # inventors' I4 is next to I5: 1 power thanks to others + 2 for the inventors' ability (2p)
    s = position(["fire-sprites", "inventors"], tps={0: ["E4"]}, houses={1: ["I4"]},
                 money={0: 14}, power={1: (5, 3, 0)})
    do(s, "palace E4 left")
    do(s, "edge-house I5")
    assert bowls(s, 1) == (2, 6, 0)
