"""Terra Mystica rules from the rulebook (shared/seeds/002_3c9f94b6fc9bde10.txt), the numbers of
shared/rules/terra_mystica_facts.md and, where the rulebook is silent, the online server's
behaviour (/work/tm_research.md): costs, power and leech, cults, favours, towns, income, bonus
and scoring tiles, turn order, final scoring and every faction's ability and stronghold."""

import pytest
from tm_helpers import (
    DATA,
    bowls,
    do,
    do_all,
    hx,
    mask,
    new_state,
    pass_all,
    position,
    setup_game,
    terrain,
    texts,
    vp,
)

from terra_sim.games.terra_mystica import scoring

# Two forest factions' neighbours on the board: E5 (swamp) touches E4, E6 and F3.
WH_HA = ["witches", "halflings"]


def forest_build(**kw):
    """Witches (seat 0) on E4 may build on E5 (made forest); halflings (seat 1) on E6."""
    kw.setdefault("d", {0: ["E4"], 1: ["E6"]})
    return position(WH_HA, land={"E5": "forest"}, **kw)


# --- power bowls and burning --------------------------------------------------------------------


def test_power_gain_fills_bowl_ii_before_bowl_iii():
    """"If there are Power tokens in Bowl I, for each 1 Power you gain move one token from Bowl
    I to Bowl II. Once Bowl I is empty ... from Bowl II to Bowl III. Once all Power tokens are in
    Bowl III, you cannot gain further Power.\""""
    s = position(WH_HA)
    p = s.players[0]
    assert bowls(s, 0) == (5, 7, 0)
    assert p.gain(7) == 7
    assert bowls(s, 0) == (0, 10, 2)
    assert p.gain(20) == 10
    assert bowls(s, 0) == (0, 0, 12)
    assert p.gain(1) == 0


def test_burning_removes_a_token_for_each_one_moved():
    """"for each Power token moved in this fashion, you need to remove 1 Power token from Bowl II
    from the game. ... (You may not sacrifice Power if you only have 1 Power token in Bowl II).\""""
    s = position(WH_HA, power={0: (5, 3, 0)})
    do(s, "burn")
    assert bowls(s, 0) == (5, 1, 1)
    assert "burn" not in texts(s)


def test_power_spent_returns_to_bowl_i_and_conversions():
    """Conversions (facts s2): 1 PW -> 1 C, 3 PW -> 1 W, 5 PW -> 1 P, 1 W -> 1 C, 1 P -> 1 C,
    1 P -> 1 W; power is spent from bowl III into bowl I."""
    s = position(WH_HA, power={0: (0, 3, 9)}, res={0: {"priests": 1}})
    p = s.players[0]
    do(s, "convert PW P")
    assert bowls(s, 0) == (5, 3, 4) and p.priests == 2
    do(s, "convert PW W")
    assert bowls(s, 0) == (8, 3, 1) and p.workers == 4
    do_all(s, "convert PW C", "convert P W", "convert P C", "convert W C")
    assert (p.coins, p.workers, p.priests, p.p3) == (18, 4, 0, 0)


# --- leech --------------------------------------------------------------------------------------


def test_leech_sums_adjacent_buildings_and_costs_one_vp_less_than_gained():
    """"add up the Power values of their Structures directly adjacent to your newly built
    Structure" and "you need to lose a number of Victory points equal to one fewer than the
    number of Power gained.\""""
    s = forest_build(tp={1: ["F3"]})
    do_all(s, "build E5", "done")
    assert s.current_player() == 1 and s.pending[0][:3] == ("leech", 1, 3)
    do(s, "leech")
    assert bowls(s, 1) == (0, 12, 0)
    assert vp(s, 1, "leech") == -2 and s.players[1].total_vp == 18


def test_declining_power_costs_nothing():
    s = forest_build()
    do_all(s, "build E5", "done", "decline")
    assert bowls(s, 1) == (3, 9, 0) and s.players[1].total_vp == 20


def test_leech_capped_by_bowl_room():
    """"If you have not enough Power tokens in Bowls I and II, gain as many Power as needed to
    move all of them to Bowl III and lose Victory points accordingly.\""""
    s = forest_build(tp={1: ["F3"]}, power={1: (0, 1, 11)})
    do_all(s, "build E5", "done", "leech")
    assert bowls(s, 1) == (0, 0, 12) and vp(s, 1, "leech") == 0


def test_leech_capped_so_vp_never_goes_negative():
    """"you may gain less Power to avoid a negative score. In this case, only gain as many Power
    as needed to end up with 0 Victory points.\""""
    s = forest_build(tp={1: ["F3"]}, vp_start={1: 1})
    do_all(s, "build E5", "done", "leech")
    assert s.players[1].total_vp == 0 and bowls(s, 1) == (1, 11, 0)


def test_no_offer_when_bowls_are_full():
    s = forest_build(power={1: (0, 0, 12)})
    do_all(s, "build E5", "done")
    assert not s.pending and s.current_player() == 1


def test_offers_go_in_seat_order_after_the_builder():
    """"Beginning with the player to the left of the active player and in clockwise order, each
    affected opponent needs to decide whether to actually gain the Power or not.\""""
    s = position(["halflings", "witches", "dwarves"], d={0: ["E6"], 1: ["E4"], 2: ["F3"]},
                 land={"E5": "forest"}, to_move=1)
    do_all(s, "build E5", "done")
    assert [e[1] for e in s.pending if e[0] == "leech"] == [2, 0]
    assert s.current_player() == 2
    do(s, "decline")
    assert s.current_player() == 0
    do(s, "decline")
    assert s.current_player() == 2  # the turn passes on after the offers


def test_a_bridge_makes_buildings_neighbours_for_leech():
    """"Terrain spaces and Structures separated by a River but connected via a Bridge are also
    considered directly adjacent" (leech counts directly adjacent Structures)."""
    s = position(WH_HA, d={0: ["D4"], 1: ["C2"]}, land={"E6": "forest"}, res={0: {"coins": 30}})
    site = DATA.map.bridge_index["C2-D4"]
    assert not DATA.map.neigh[hx("C2")] >> hx("D4") & 1
    do_all(s, "upgrade D4 TP", "done")
    assert not s.pending  # no bridge yet: halflings are not neighbours
    s.build_bridge(s.players[1], site)
    pass_all(s)
    s.turn = s.order.index(0)
    do_all(s, "upgrade D4 TE", "+FAV11", "done")
    assert s.pending[0][:3] == ("leech", 1, 1)


def test_no_power_offers_during_setup():
    """Setup dwellings (facts s4.7): "No leech during the setup dwelling placement.\""""
    s = new_state(WH_HA)
    do_all(s, "place F4", "place E6")
    assert not s.pending and s.current_player() == 1


# --- building costs -----------------------------------------------------------------------------


@pytest.mark.parametrize("faction,home,w,c", [
    ("witches", "forest", 1, 2), ("engineers", "mountains", 1, 1), ("swarmlings", "lakes", 2, 3)])
def test_dwelling_costs(faction, home, w, c):
    """"Each Dwelling costs 1 Worker and 2 Coins. (Exceptions: The Engineers build Dwellings for
    1 Worker and 1 Coin, the Swarmlings for 2 Workers and 3 Coins).\""""
    s = position([faction, "halflings"], d={0: ["E4"]}, land={"E5": home})
    p = s.players[0]
    before = p.workers, p.coins
    do(s, "build E5")
    assert (before[0] - p.workers, before[1] - p.coins) == (w, c)
    assert p.b["D"] == mask(["E4", "E5"])


def test_transforming_costs_3_workers_a_spade_then_2_after_advancing():
    """"Each step between the source and destination terrain on the Transformation cycle ...
    costs 1 Spade" and "At the beginning of the game, this is usually 3 Workers for 1 Spade".
    Swamp -> forest is 2 steps."""
    s = position(WH_HA, d={0: ["E4"]}, res={0: {"workers": 7}})
    assert terrain(s, "E5") == "swamp"
    do(s, "build E5")
    p = s.players[0]
    assert p.workers == 0 and p.coins == 13 and terrain(s, "E5") == "forest"
    s = position(WH_HA, d={0: ["E4"]}, res={0: {"workers": 6}})
    assert "build E5" not in texts(s) and "transform E5" in texts(s)
    s.players[0].dig = 1
    do(s, "transform E5")
    assert s.players[0].workers == 2


def test_transform_may_stop_on_another_terrain():
    """"You do not need to transform a Terrain space into your Home terrain, you may stop at any
    other type of terrain.\""""
    s = position(WH_HA, d={0: ["E4"]})
    do(s, "transform E5 lakes")
    assert terrain(s, "E5") == "lakes" and s.players[0].workers == 0
    assert not s.occupied >> hx("E5") & 1


def test_transform_the_short_way_may_not_cross_home_terrain():
    """Server (research s6): when home terrain lies on the short way round the wheel, the long
    way is paid. Witches (forest): swamp -> mountains is 3 steps through forest, so 4."""
    s = position(WH_HA, d={0: ["E4"]}, res={0: {"workers": 12}})
    assert s.spades_needed(s.players[0], WHEEL_I("swamp"), WHEEL_I("mountains")) == 4
    do(s, "transform E5 mountains")
    assert s.players[0].workers == 0


def WHEEL_I(name: str) -> int:
    return DATA.wheel.index(name)


def test_trading_house_is_cheaper_next_to_an_opponent():
    """"Upgrading a Dwelling to a Trading house costs 2 Workers and 6 Coins. If there is at
    least one opponent's Structure directly adjacent to that Dwelling, you only need to pay 3
    Coins instead of 6.\""""
    s = position(WH_HA, d={0: ["E5", "A3"], 1: ["E6"]})
    p = s.players[0]
    do(s, "upgrade E5 TP")
    assert (p.workers, p.coins) == (1, 12)
    s = position(WH_HA, d={0: ["E5", "A3"], 1: ["E6"]})
    do(s, "upgrade A3 TP")
    assert (s.players[0].workers, s.players[0].coins) == (1, 9)


def test_temple_costs_2w_5c_and_gives_a_favour():
    """"Upgrading a Trading house to a Temple costs 2 Workers and 5 Coins. As a reward,
    immediately choose and take one Favor tile".\""""
    s = position(WH_HA, tp={0: ["E5"]})
    do(s, "upgrade E5 TE")
    assert (s.players[0].workers, s.players[0].coins) == (1, 10)
    assert s.current_player() == 0 and all(t.startswith("+FAV") for t in texts(s))
    assert len(texts(s)) == 12
    do(s, "+FAV9")
    assert s.players[0].favors == ["FAV9"] and s.players[0].cults[0] == 1


def test_upgrade_paths():
    """"There are four possible upgrades": D -> TP, TP -> TE or SH, TE -> SA."""
    s = position(WH_HA, d={0: ["E4"]}, tp={0: ["E5"]}, te={0: ["E6"]},
                 res={0: {"workers": 20, "coins": 40}})
    ups = {t for t in texts(s) if t.startswith("upgrade")}
    assert ups == {"upgrade E4 TP", "upgrade E5 TE", "upgrade E5 SH", "upgrade E6 SA"}


def test_stronghold_and_sanctuary_once_each():
    s = position(WH_HA, tp={0: ["E5", "E4"]}, sh={0: ["A3"]}, te={0: ["E6"]}, sa={0: ["F4"]},
                 res={0: {"workers": 20, "coins": 40}})
    ups = {t for t in texts(s) if t.startswith("upgrade")}
    assert ups == {"upgrade E5 TE", "upgrade E4 TE"}


def test_building_limits():
    """Supply (facts s2): at most 8 dwellings, 4 trading houses, 3 temples."""
    names = ["A3", "A10", "C3", "C4", "D1", "E9", "F2", "F4"]
    s = position(WH_HA, d={0: names}, land={"E5": "forest"}, res={0: {"coins": 40}})
    assert not any(t.startswith("build") for t in texts(s))


def test_advance_shipping():
    """"Your Faction board displays the costs of this Action: 1 Priest and 4 Coins. As a reward
    ... get a number of Victory points as indicated on the Shipping space you move to" (2/3/4)."""
    s = position(WH_HA, d={0: ["E4"]}, res={0: {"priests": 3, "coins": 12}})
    p = s.players[0]
    assert "build F2" not in texts(s)  # F2 forest across river r20
    for level, total in ((1, 2), (2, 5), (3, 9)):
        do_all(s, "advance ship", "done")
        s.turn = 0
        assert p.ship == level and vp(s, 0, "advance") == total
    assert p.coins == 0 and p.priests == 0
    assert "advance ship" not in texts(s)  # level 3 is the last
    p.coins = 2
    assert "build F2" in texts(s)


def test_shipping_reaches_across_rivers():
    """"Terrain spaces and Structures are considered indirectly adjacent ... if they are
    separated by one or more River spaces and your Shipping value is high enough".\""""
    s = position(WH_HA, d={0: ["E4"]}, land={"C2": "forest"})
    assert "build C2" not in texts(s)
    s.players[0].ship = 1
    assert "build C2" in texts(s)


def test_advance_digging():
    """"2 Workers, 5 Coins, and 1 Priest. ... As a reward for taking this Action, you get 6
    Victory points." Halflings pay fewer coins (facts: 2W+1C+1P)."""
    s = position(WH_HA, res={0: {"priests": 1}, 1: {"priests": 1}})
    do_all(s, "advance dig", "done")
    p, q = s.players
    assert (p.dig, p.workers, p.coins, p.priests) == (1, 1, 10, 0)
    assert vp(s, 0, "advance") == 6
    do_all(s, "advance dig", "done")
    assert (q.dig, q.workers, q.coins, q.priests) == (1, 1, 14, 0)


# --- cult board ---------------------------------------------------------------------------------


def test_priest_spots_3_2_2_2_then_one_step():
    """"There are 4 spaces below each of the Cult tracks ... to advance 3 or 2 spaces ...
    alternatively, return him to your supply ... and only advance 1 space.\""""
    s = position(WH_HA, res={0: {"priests": 6}})
    p = s.players[0]
    assert {t for t in texts(s) if t.startswith("send fire")} == {
        "send fire 3", "send fire 2", "send fire 1"}
    for spot in (3, 2, 2, 2):
        do(s, f"send fire {spot}")
        do(s, "done")
        s.turn = 0
    assert p.cults[0] == 9 and p.cult_priests == 4 and p.priests == 2
    assert {t for t in texts(s) if t.startswith("send fire")} == {"send fire 1"}
    do(s, "send fire 1")
    assert p.cult_priests == 4 and p.priests == 1 and p.cults[0] == 9  # no key: stops at 9


def test_cult_power_at_3_5_7_10():
    """"You gain 1/2/2/3 Power when advancing to the 3rd/5th/7th/10th space of a Cult track.
    You only gain this Power once when advancing to or passing by these spaces.\""""
    s = position(WH_HA, power={0: (12, 0, 0)})
    p = s.players[0]
    p.keys = 1
    gains = []
    for _ in range(10):
        before = p.p2
        s.advance_cult(p, 0, 1)
        gains.append(p.p2 - before)
    assert gains == [0, 0, 1, 0, 2, 0, 2, 0, 0, 3]
    q = s.players[1]
    q.p1, q.p2, q.p3 = 12, 0, 0
    s.advance_cult(q, 1, 7)  # 0 -> 7 passes 3, 5 and 7 at once
    assert q.p2 == 5


def test_space_10_needs_a_key_and_holds_one_faction():
    """"Only one player may advance to space 10 of each Cult track. To do so, you also need to
    have founded a Town for each space 10 ... (Without a key, you have to stop at space 9).\""""
    s = position(WH_HA, cults={0: [8, 0, 0, 0], 1: [8, 0, 0, 0]})
    p, q = s.players
    assert s.advance_cult(p, 0, 3) == 1 and p.cults[0] == 9
    p.keys = 1
    assert s.advance_cult(p, 0, 1) == 1 and p.cults[0] == 10
    q.keys = 1
    s.advance_cult(q, 0, 3)
    assert q.cults[0] == 9  # space 10 is taken
    s.advance_cult(p, 1, 10)
    assert p.cults[1] == 9  # the one key is used on fire


def test_priests_in_hand_and_on_cults_at_most_7():
    """"Keep in mind that you only have a total of 7 Priests at your disposal.\""""
    s = position(WH_HA, te={0: ["E5", "E4", "E6"]}, res={0: {"priests": 3, "cult_priests": 3}})
    s.income(s.players[0])
    assert s.players[0].priests == 4
    p = s.players[0]
    p.p3 = 12
    assert "convert PW P" not in texts(s)


# --- favour tiles -------------------------------------------------------------------------------


def favour(tile: str, **kw):
    """Seat 0 (witches) upgrades E5 to a temple and takes `tile`."""
    kw.setdefault("tp", {0: ["E5"]})
    s = position(WH_HA, **kw)
    do_all(s, "upgrade E5 TE", f"+{tile}")
    return s


@pytest.mark.parametrize("tile,track,steps", [
    ("FAV1", 0, 3), ("FAV2", 1, 3), ("FAV3", 2, 3), ("FAV4", 3, 3), ("FAV5", 0, 2),
    ("FAV6", 1, 2), ("FAV7", 2, 2), ("FAV8", 3, 2), ("FAV9", 0, 1), ("FAV10", 1, 1),
    ("FAV11", 2, 1), ("FAV12", 3, 1)])
def test_favour_cult_steps(tile, track, steps):
    """Favour tiles step their cult track at once (facts s4.2: FAV1-4 +3, FAV5-8 +2,
    FAV9-12 +1, tracks fire/water/earth/air in turn)."""
    s = favour(tile)
    start = DATA.factions["witches"].cults[track]
    assert s.players[0].cults[track] == start + steps


def test_favour_tile_at_most_one_copy_each():
    """"You may not take a Favor tile that you already have.\""""
    s = favour("FAV9", tp={0: ["E5", "E4"]}, res={0: {"workers": 4}})
    do(s, "done")
    s.turn = 0
    do(s, "upgrade E4 TE")
    assert "+FAV9" not in texts(s) and "+FAV10" in texts(s)


def test_fav1_has_one_copy():
    s = favour("FAV1")
    assert s.favor_supply["FAV1"] == 0 and s.favor_supply["FAV5"] == 3


def test_fav6_cult_action_once_a_round():
    """FAV6: action, +1 step on any cult, once per round."""
    s = favour("FAV6")
    do(s, "done")
    s.turn = 0
    do_all(s, "action FAV6", "+earth", "done")
    assert s.players[0].cults[2] == 1
    s.turn = 0
    assert "action FAV6" not in texts(s)


@pytest.mark.parametrize("tile,got", [
    ("FAV7", {"W": 1, "PW": 1}), ("FAV8", {"PW": 4}), ("FAV9", {"C": 3})])
def test_favour_income(tile, got):
    s = favour(tile)
    p = s.players[0]
    p.bonus = ""
    before = (p.coins, p.workers, 2 * p.p3 + p.p2)
    s.income(p)
    # witches: one dwelling row worker (base), one temple priest
    assert p.coins - before[0] == got.get("C", 0)
    assert p.workers - before[1] == 1 + got.get("W", 0)
    assert 2 * p.p3 + p.p2 - before[2] == got.get("PW", 0)


def test_fav10_three_vp_per_trading_house():
    s = favour("FAV10", d={0: ["E4"]}, res={0: {"workers": 4}})
    do(s, "done")
    s.turn = 0
    do(s, "upgrade E4 TP")
    assert vp(s, 0, "build") == 3


def test_fav11_two_vp_per_dwelling():
    s = favour("FAV11", land={"E6": "forest"})
    do(s, "done")
    s.turn = 0
    do(s, "build E6")
    assert vp(s, 0, "build") == 2


def test_fav12_pass_vp_by_trading_houses():
    """FAV12: when passing, VP by trading houses on the map [0, 2, 3, 3, 4]."""
    for n, want in ((0, 0), (1, 2), (2, 3), (3, 3), (4, 4)):
        s = favour("FAV12", tp={0: ["E5", "A3", "A10", "C3", "C4"][:n + 1]},
                   res={0: {"workers": 5, "coins": 20}})
        do(s, "done")
        s.turn = 0
        do(s, "pass BON3")
        assert vp(s, 0, "pass") == want


# --- towns --------------------------------------------------------------------------------------


def town_ready(faction="auren", **kw):
    """Seat 0: a trading house on E4, a stronghold on E6, a dwelling on F3 (power 6, in two
    groups); a dwelling on E5 (made forest) joins them: 4 buildings worth 7."""
    kw.setdefault("tp", {0: ["E4"]})
    kw.setdefault("sh", {0: ["E6"]})
    kw.setdefault("d", {0: ["F3"]})
    home = DATA.wheel[DATA.factions[faction].home]
    return position([faction, "halflings"], land={"E5": home}, **kw)


def test_town_of_four_buildings_worth_7():
    """"There are at least 4 Structures of one color directly adjacent to one another" and
    "These Structures have a combined Power value of at least 7.\""""
    s = town_ready()
    do(s, "build E5")
    assert ("town", 0) in s.pending and s.current_player() == 0
    assert texts(s) == {f"+TW{i}" for i in range(1, 6)}
    do(s, "+TW1")
    p = s.players[0]
    assert vp(s, 0, "town") == 5 and p.coins == 15 - 2 + 6 and p.keys == 1
    assert p.town_mask == mask(["E4", "E5", "E6", "F3"])


def test_no_town_with_power_6():
    s = town_ready(tp={}, d={0: ["E4", "F3"]})
    do(s, "build E5")
    assert not any(e[0] == "town" for e in s.pending)


def test_no_town_with_three_buildings_without_sanctuary():
    """Three buildings worth 7 (SH, TE, TE) are no town: 4 structures are needed."""
    s = position(["auren", "halflings"], te={0: ["E4"]}, sh={0: ["E6"]}, tp={0: ["E5"]})
    do(s, "upgrade E5 TE")
    do(s, "+FAV9")
    assert not any(e[0] == "town" for e in s.pending) and s.players[0].town_mask == 0


def test_sanctuary_counts_as_two_buildings():
    """"Exception: Only 3 Structures are required if one of them is a Sanctuary.\""""
    s = town_ready(tp={}, d={}, sa={0: ["E4"]})
    do(s, "build E5")
    assert ("town", 0) in s.pending


def test_fav5_lowers_the_town_power_to_6_at_once():
    """FAV5 (facts s4.2): "town power requirement 7 -> 6 (existing groups are re-checked at
    once)"; the research memo: taking FAV5 re-runs town detection on every own building."""
    s = town_ready(tp={0: ["A3"]}, d={0: ["E4", "F3", "E5"]})
    assert s.check_towns(s.players[0]) is None and not s.pending  # worth 6: no town
    do(s, "upgrade A3 TE")
    do(s, "+FAV5")
    assert s.pending[0] == ("town", 0)
    do(s, "+TW2")
    assert s.players[0].workers == 3 - 2 + 2


def test_building_next_to_a_town_founds_none():
    """"Building new Structures directly adjacent to an existing Town expands that Town rather
    than forming a new one.\""""
    s = town_ready()
    do_all(s, "build E5", "+TW1", "done")
    pass_all(s)
    p = s.players[0]
    p.b["TP"] |= mask(["D3"])  # a new worth-7 neighbourhood around the town
    s.occupied |= mask(["D3"])
    s.terrain[hx("D3")] = p.faction.home
    s.turn = s.order.index(0)
    s.terrain[hx("E3")] = p.faction.home
    do(s, "build E3")
    assert not any(e[0] == "town" for e in s.pending)
    assert p.town_mask >> hx("E3") & 1 and p.town_mask >> hx("D3") & 1


@pytest.mark.parametrize("tile,reward", [
    ("TW1", {"vp": 5, "coins": 6}), ("TW2", {"vp": 7, "workers": 2}),
    ("TW3", {"vp": 9, "priests": 1}), ("TW4", {"vp": 6, "power": 8}),
    ("TW5", {"vp": 8, "cults": 4})])
def test_town_tile_rewards(tile, reward):
    """"Immediately and only once, collect the rewards depicted on the chosen Town tile (either
    +1 space on each of the Cult tracks, 1 Priest, 2 Workers, 6 Coins, or 8 Power)." Each town
    also gives a key."""
    s = town_ready(power={0: (12, 0, 0)})
    do(s, "build E5")
    p = s.players[0]
    before = {"coins": p.coins, "workers": p.workers, "priests": p.priests, "power": p.p2,
              "cults": sum(p.cults)}
    do(s, f"+{tile}")
    after = {"coins": p.coins, "workers": p.workers, "priests": p.priests, "power": p.p2,
             "cults": sum(p.cults)}
    assert vp(s, 0, "town") == reward["vp"] and p.keys == 1
    for k in before:
        assert after[k] - before[k] == reward.get(k, 0), k


def test_town_tiles_run_out():
    """"The total number of Towns for one game is limited to 10" (2 of each base tile)."""
    s = town_ready()
    s.town_supply = {t: 0 for t in s.town_supply}
    s.town_supply["TW3"] = 1
    do(s, "build E5")
    assert texts(s) == {"+TW3"}
    s = town_ready()
    s.town_supply = {t: 0 for t in s.town_supply}
    do(s, "build E5")
    assert "done" in texts(s)


def test_scoring_tile_key_gives_5_vp_per_town():
    """"Get additional Victory points if the current Scoring tile depicts a key" (SCORE2)."""
    s = town_ready(scoring=["SCORE2", "SCORE3", "SCORE4", "SCORE5", "SCORE6", "SCORE7"])
    do_all(s, "build E5", "+TW1")
    assert vp(s, 0, "round") == 5


# --- income -------------------------------------------------------------------------------------


def test_income_by_building_rows():
    """"Workers: ... equal to the number of visible Worker symbols on your Dwelling track" and so
    on (facts s2: totals by count, base 1 worker, TP 2 coins + 1/1/2/2 power, TE 1 priest, SH 2
    power, SA 1 priest)."""
    s = position(WH_HA, d={0: ["E4", "E5", "E6"]}, tp={0: ["A3", "A10"]}, te={0: ["C3"]},
                 sh={0: ["C4"]}, sa={0: ["D1"]}, power={0: (12, 0, 0)})
    p = s.players[0]
    p.bonus = ""
    s.income(p)
    assert (p.workers, p.coins, p.priests) == (3 + 4, 15 + 4, 0 + 2)
    assert bowls(s, 0) == (12 - 2 - 2, 4, 0)


def test_income_table_8th_dwelling_gives_nothing():
    f = DATA.factions["witches"]
    assert f.income["D"]["W"] == (1, 2, 3, 4, 5, 6, 7, 8, 8)
    assert DATA.factions["engineers"].income["D"]["W"] == (0, 1, 2, 2, 3, 4, 4, 5, 6)
    assert DATA.factions["engineers"].income["TE"]["PW"] == (0, 0, 5, 5)


def test_bonus_tile_income():
    s = position(WH_HA)
    p = s.players[0]
    for tile, got in (("BON3", (6, 0, 0)), ("BON5", (0, 1, 0)), ("BON8", (0, 0, 1))):
        p.bonus = tile
        before = p.coins, p.workers, p.priests
        s.income(p)
        assert (p.coins - before[0], p.workers - before[1] - 1, p.priests - before[2]) == got


# --- bonus tiles, passing and turn order -------------------------------------------------------


def test_unclaimed_bonus_tiles_gain_a_coin_each_round():
    """"Put 1 Coin from the general supply on each of the three leftover Bonus cards." Coins on
    a taken card go to the taker when passing."""
    s = setup_game(WH_HA, ["F4", "E6", "A1", "A10"], ["BON1", "BON2"])
    assert s.bonus_supply == {"BON3": 1, "BON4": 1, "BON5": 1}
    coins = s.players[0].coins
    do(s, "pass BON3")
    assert s.players[0].coins == coins + 1
    assert s.players[0].bonus == "BON3"
    assert s.bonus_supply == {"BON2": 0, "BON4": 1, "BON5": 1}  # seat 0 had picked BON2
    do(s, "pass BON4")
    assert s.round == 2 and s.bonus_supply == {"BON1": 1, "BON2": 1, "BON5": 2}


def test_pass_vp_of_the_returned_tile():
    """"When passing and returning the Bonus card ... get 1 Victory point for each of your
    Dwellings" (BON9), 2 per Trading house (BON7), 4 for a Stronghold and 4 for a Sanctuary
    (BON6)."""
    for tile, want in (("BON9", 3), ("BON7", 4), ("BON6", 8)):
        s = position(WH_HA, d={0: ["E4", "E5", "E6"]}, tp={0: ["A3", "A10"]}, sh={0: ["C4"]},
                     sa={0: ["D1"]}, bonus=[tile, "BON1", "BON2", "BON3", "BON4"])
        do(s, "pass BON2")
        assert vp(s, 0, "pass") == want


def test_the_returned_tile_cannot_be_taken_back():
    """"(You may not immediately take the card that you have just returned).\""""
    s = position(WH_HA)
    assert {t for t in texts(s) if t.startswith("pass")} == {"pass BON3", "pass BON4",
                                                               "pass BON5"}


def test_bon4_ship_range_not_for_network():
    """BON4 (facts s4.3): +1 shipping range for the action phase; network scoring uses the
    permanent shipping level (BON4 does not count)."""
    s = position(WH_HA, d={0: ["E4"]}, land={"C2": "forest"},
                 bonus=["BON4", "BON1", "BON2", "BON3", "BON5"])
    assert "build C2" in texts(s)
    do(s, "build C2")
    assert scoring.network_size(s, s.players[0]) == 1


def test_bon1_spade_and_bon2_cult_actions():
    s = position(WH_HA, d={0: ["E4"], 1: ["A1"]}, to_move=0)
    do(s, "action BON1")
    assert "build E5" not in texts(s)  # swamp -> forest is 2 spades; 1 free + 3 workers
    s.players[0].workers = 4
    do_all(s, "build E5", "done")
    assert s.players[0].workers == 0 and terrain(s, "E5") == "forest"
    s2 = position(WH_HA, to_move=1)
    do_all(s2, "action BON2", "+water", "done")
    assert s2.players[1].cults[1] == 1


def test_first_to_pass_starts_next_round():
    """"The first player to pass becomes the Starting player for the next round.\""""
    s = position(["witches", "halflings", "dwarves"], to_move=0)
    s.turn = 1
    do(s, "pass BON4")  # halflings pass first
    do(s, "pass BON5")  # dwarves
    do(s, "pass BON6")
    assert s.round == 2 and s.order == [1, 2, 0] and s.current_player() == 1


def test_variable_turn_order_follows_passing():
    """Option turn_order=variable (server `variable-turn-order`): next round's order is the
    order of passing."""
    s = position(["witches", "halflings", "dwarves"], turn_order="variable", to_move=1)
    do(s, "pass BON4")  # halflings
    do(s, "pass BON5")  # dwarves
    do(s, "pass BON6")  # witches
    assert s.order == [1, 2, 0]
    s = position(["witches", "halflings", "dwarves"], turn_order="variable", to_move=1)
    do(s, "pass BON4")  # halflings
    s.turn = 0
    do(s, "pass BON5")  # witches
    do(s, "pass BON6")  # dwarves
    assert s.order == [1, 0, 2]


def test_round_6_passes_take_no_tile():
    """"Do not take any Bonus cards in the last round of the game - round 6".\""""
    s = position(WH_HA)
    for _ in range(5):
        pass_all(s)
    assert s.round == 6
    assert {t for t in texts(s) if t.startswith("pass")} == {"pass"}


# --- scoring tiles ------------------------------------------------------------------------------


def scored(tile: str, **kw):
    return position(WH_HA, scoring=[tile, "SCORE2", "SCORE3", "SCORE4", "SCORE5", "SCORE6"],
                    **kw)


def test_scoring_tile_vp_for_dwellings_trading_houses_and_strongholds():
    """"If the current Scoring tile depicts a Dwelling, you get 2 Victory points for each
    Dwelling you build"; a Trading house 3; a Stronghold (or Sanctuary) 5."""
    s = scored("SCORE3", d={0: ["E4"]}, land={"E5": "forest"})
    do(s, "build E5")
    assert vp(s, 0, "round") == 2
    s = scored("SCORE6", d={0: ["E4"]})
    do(s, "upgrade E4 TP")
    assert vp(s, 0, "round") == 3
    s = scored("SCORE4", tp={0: ["E4"]}, res={0: {"workers": 4}})
    do(s, "upgrade E4 SH")
    assert vp(s, 0, "round") == 5
    s = scored("SCORE7", te={0: ["E4"]}, res={0: {"workers": 4}})
    do(s, "upgrade E4 SA")
    assert vp(s, 0, "round") == 5


def test_scoring_tile_vp_per_spade():
    """"If the left side of the current Scoring tile depicts a Spade, you get Victory points for
    using Spades" (SCORE1: 2 VP a spade)."""
    s = scored("SCORE1", d={0: ["E4"]}, res={0: {"workers": 7}})
    do(s, "build E5")
    assert vp(s, 0, "round") == 4


def test_cult_bonus_at_round_end():
    """"Each player with enough progress in the depicted Cults gets the depicted reward,
    multiple times if need be" (SCORE3: every 4 water -> 1 priest; SCORE5: 4 fire -> 4 power)."""
    s = scored("SCORE3", cults={0: [0, 9, 0, 0], 1: [0, 3, 0, 0]})
    pass_all(s)
    assert s.round == 2
    assert s.players[0].priests == 2 and s.players[1].priests == 0
    s = scored("SCORE5", cults={0: [8, 0, 0, 0]}, power={0: (12, 0, 0)})
    pass_all(s)
    assert s.players[0].p2 >= 8


def test_cult_bonus_spades_transform_only():
    """"As these Spades are gained outside the Action phase, you may not build a Dwelling
    immediately afterwards, nor do you get to exchange Workers for more Spades" and "You may
    apply these Spades on different adjacent Terrain spaces." (SCORE6: 4 water -> 1 spade.)"""
    s = scored("SCORE6", d={0: ["E4"]}, cults={0: [0, 8, 0, 0]},
               bonus=["BON4", "BON1", "BON2", "BON3", "BON5"])
    do(s, "pass BON5")
    do(s, "pass BON2")
    assert s.round == 2 and s.pending[0][:3] == ("spades", 0, 2)
    legal = texts(s)
    assert not any(t.startswith("build") for t in legal)
    assert "transform E5" in legal  # swamp -> forest uses both spades
    workers = s.players[0].workers
    assert not any(t.startswith("transform C2") for t in legal)  # BON4 range does not count
    assert not any(t.startswith("convert") for t in legal)
    do(s, "transform E5")
    assert terrain(s, "E5") == "forest" and s.players[0].workers == workers
    assert s.current_player() == s.order[0] and not s.pending


def test_no_cult_bonus_after_round_6():
    """"(As indicated by the Game end token, there are no Cult bonuses in the final round).\""""
    s = position(WH_HA, cults={0: [0, 9, 0, 0]},
                 scoring=["SCORE2", "SCORE4", "SCORE5", "SCORE6", "SCORE7", "SCORE3"])
    for _ in range(6):
        pass_all(s)
    assert s.is_over()
    assert s.players[0].priests == 0


# --- final scoring ------------------------------------------------------------------------------


def test_rank_points_split_and_rounded_down():
    """"In case of a tie, evenly divide the Victory points of the respective tiers among the
    tied players (round down if necessary)." and "You cannot gain any Victory points when being
    still on space 0.\""""
    assert scoring.split_places([5, 3, 1], [8, 4, 2]) == [8, 4, 2]
    assert scoring.split_places([5, 5, 1], [8, 4, 2]) == [6, 6, 2]
    assert scoring.split_places([5, 5, 5], [8, 4, 2]) == [4, 4, 4]
    assert scoring.split_places([5, 3, 3, 3], [8, 4, 2]) == [8, 2, 2, 2]
    assert scoring.split_places([0, 0], [8, 4, 2]) == [0, 0]
    assert scoring.split_places([4, 0, 0], [8, 4, 2]) == [8, 0, 0]
    assert scoring.split_places([9, 7, 7, 7, 7], [18, 12, 6]) == [18, 4, 4, 4, 4]


def test_network_counts_shipping_range():
    """"Determine the number of your Structures directly or indirectly adjacent to one another.
    With the proper Shipping value, scattered areas may be indirectly adjacent".\""""
    s = position(WH_HA, d={0: ["E4", "E3", "C2"]})
    assert scoring.network_size(s, s.players[0]) == 2
    s.players[0].ship = 1
    assert scoring.network_size(s, s.players[0]) == 3


def test_final_scoring_network_cults_and_resources():
    """Area scoring 18/12/6, cult scoring 8/4/2 per track, "1 Victory point per 3 Coins. (All
    other resources may be converted to Coins for this purpose)."\""""
    s = position(WH_HA, d={0: ["E4", "E5"], 1: ["A1"]},
                 res={0: {"coins": 5, "workers": 2, "priests": 1},
                      1: {"coins": 0, "workers": 0}},
                 power={0: (0, 5, 1), 1: (12, 0, 0)},
                 cults={0: [3, 0, 0, 2], 1: [0, 0, 4, 2]})
    scoring.final_scoring(s)
    b = s.breakdown()
    assert (b[0]["network"], b[1]["network"]) == (18, 12)
    assert (b[0]["cults"], b[1]["cults"]) == (8 + 6, 8 + 6)
    # 5 C + 2 W + 1 P + 1 (bowl III) + 2 (half of bowl II) = 11 coins -> 3 VP
    assert (b[0]["resources"], b[1]["resources"]) == (3, 0)


def test_a_full_game_ends_after_round_6_with_final_scoring():
    s = setup_game(WH_HA, ["F4", "E6", "A1", "A10"], ["BON1", "BON2"])
    for _ in range(6):
        pass_all(s)
    assert s.is_over() and s.legal_actions() == [] and s.current_player() == -1
    b = s.breakdown()
    assert (b[0]["network"], b[1]["network"]) == (15, 15)  # tied: (18 + 12) // 2
    # halflings (earth 1, air 1) first on earth, second on air behind the witches' 2
    assert (b[0]["cults"], b[1]["cults"]) == (8, 8 + 4)


# --- factions -----------------------------------------------------------------------------------


def test_witches_ride_and_town_bonus():
    """Witches' stronghold: "once per round, build one dwelling on any unoccupied Forest hex
    anywhere on the map, ignoring adjacency, free of cost"; "+5 VP each time they found a town"."""
    s = position(WH_HA, d={0: ["E4"]}, sh={0: ["I6"]}, res={0: {"workers": 0, "coins": 0}})
    assert "action ACTW" in texts(s)
    do(s, "action ACTW")
    assert "build A10" in texts(s) and "build E5" not in texts(s)  # forest only, no transform
    do_all(s, "build A10", "done")
    p = s.players[0]
    assert p.b["D"] >> hx("A10") & 1 and (p.workers, p.coins) == (0, 0)
    s.turn = 0
    assert "action ACTW" not in texts(s)
    t = town_ready("witches")
    do_all(t, "build E5", "+TW1")
    assert vp(t, 0, "town") == 5 and vp(t, 0, "faction") == 5


def test_auren_stronghold_favour_and_two_cult_steps():
    """Auren: "On building SH: immediately take 1 favour tile; then ACTA once per round: +2
    steps on a single cult track".\""""
    s = position(["auren", "halflings"], tp={0: ["E4"]}, res={0: {"workers": 4}})
    do(s, "upgrade E4 SH")
    assert all(t.startswith("+FAV") for t in texts(s))
    do_all(s, "+FAV11", "done")
    s.turn = 0
    do_all(s, "action ACTA", "+fire", "done")
    assert s.players[0].cults == [2, 1, 1, 1]
    s.turn = 0
    assert "action ACTA" not in texts(s)
    assert s.players[0].faction.costs["SA"] == (4, 8)


def test_halflings_spade_vp_and_stronghold_spades():
    """Halflings: "+1 VP per spade"; SH: "3 spades immediately, may transform up to 3 hexes and
    build one dwelling (paying for it) on one of them". The VP come when the spades are gained
    and the dwelling comes last, as on the server (its SH grants `transform => 3, build => 1`)."""
    s = position(["halflings", "witches"], tp={0: ["E6"]}, res={0: {"workers": 5}})
    do(s, "upgrade E6 SH")
    p = s.players[0]
    assert (p.workers, p.coins) == (1, 7)
    assert s.pending[0][:3] == ("spades", 0, 3)
    assert vp(s, 0, "faction") == 3
    do(s, "transform F3")  # desert -> plains: 1 spade
    do(s, "transform D4 desert")  # wasteland -> desert: 1 spade
    assert not any(t.startswith("transform D") and t != "transform D4" for t in texts(s)
                   if len(t.split()) == 3)  # one hex a turn becomes other than home
    do(s, "build E5")  # swamp -> plains: 1 spade
    assert vp(s, 0, "faction") == 3
    assert terrain(s, "F3") == "plains" and terrain(s, "D4") == "desert"
    assert not s.pending or s.pending[0][0] != "spades"


def test_a_stronghold_dwelling_ends_the_follow_up_and_its_spades_buy_no_more():
    """The server settles every spade before the dwelling, and its Halflings' SH spades come
    with no `dig`: a build gives up what is left, and no worker buys a fourth spade."""
    s = position(["halflings", "witches"], tp={0: ["E6"]}, res={0: {"workers": 9}})
    do(s, "upgrade E6 SH")
    # E7 is mountains: 3 spades from plains, so it needs no digging; none needs more
    assert all(s.spades_needed(s.players[0], s.terrain[a.args[0]], s.players[0].faction.home)
               <= 3 for a in s.legal_actions() if a.kind == "build")
    do(s, "build E5")
    assert not s.pending or s.pending[0][0] != "spades"
    assert s.players[0].workers == 9 - 4 - 1


def test_halflings_stronghold_costs_4w_8c():
    s = position(["halflings", "witches"], tp={0: ["E6"]}, res={0: {"workers": 4, "coins": 8}})
    do(s, "upgrade E6 SH")
    assert (s.players[0].workers, s.players[0].coins) == (0, 0)


def cultists_build(**kw):
    """Cultists (seat 0) on E4 build on E5 (made plains); witches (seat 1) on E6."""
    return position(["cultists", "witches"], d={0: ["E4"], 1: ["E6"]}, land={"E5": "plains"},
                    **kw)


def test_cultists_step_when_an_opponent_takes_power():
    """Cultists: "When they build/upgrade and at least one opponent accepts the offered power,
    Cultists advance 1 step on a cult track of their choice".\""""
    s = cultists_build()
    do_all(s, "build E5", "done", "leech")
    assert s.current_player() == 0 and texts(s) == {"+fire", "+water", "+earth", "+air"}
    do(s, "+air")
    assert s.players[0].cults == [1, 0, 1, 1] and s.current_player() == 1


def test_cultists_errata_power_when_all_decline():
    """"With the errata option (default on Snellman): if every opponent who could take power
    declines, Cultists get +1 power instead.\""""
    s = cultists_build()
    do_all(s, "build E5", "done", "decline")
    assert bowls(s, 0) == (4, 8, 0) and s.players[0].cults == [1, 0, 1, 0]
    s = cultists_build(errata_cultists="no")
    do_all(s, "build E5", "done", "decline")
    assert bowls(s, 0) == (5, 7, 0)


def test_cultists_nothing_without_an_offer():
    s = position(["cultists", "witches"], d={0: ["E4"]}, land={"E5": "plains"})
    do_all(s, "build E5", "done")
    assert bowls(s, 0) == (5, 7, 0) and s.current_player() == 1


def test_cultists_stronghold_7_vp():
    s = position(["cultists", "witches"], tp={0: ["E4"]}, res={0: {"workers": 4, "coins": 8}})
    do(s, "upgrade E4 SH")
    assert vp(s, 0, "faction") == 7 and s.players[0].coins == 0


def test_alchemists_trade_vp_and_coins():
    """Alchemists: "Exchange 1 VP -> 1 C and 2 C -> 1 VP at any time during own turn;
    end-game coins -> VP at 2:1".\""""
    s = position(["alchemists", "witches"])
    p = s.players[0]
    do(s, "convert VP C")
    assert (p.total_vp, p.coins) == (19, 16)
    do(s, "convert C VP")
    assert (p.total_vp, p.coins) == (20, 14)
    assert "convert VP C" not in texts(position(["witches", "alchemists"]))
    p.coins, p.workers, p.priests, p.p1, p.p2, p.p3 = 7, 0, 0, 12, 0, 0
    assert scoring.resource_vp(p, p.eff["coins_per_vp"]) == 3


def test_alchemists_stronghold_power_then_power_per_spade():
    """Alchemists: "On building SH: +12 power (one-time); afterwards +2 power per spade".\""""
    s = position(["alchemists", "witches"], tp={0: ["E4"]}, power={0: (12, 0, 0)},
                 res={0: {"workers": 13}})
    do_all(s, "upgrade E4 SH", "done")
    assert bowls(s, 0) == (0, 12, 0)
    s.players[0].p1, s.players[0].p2 = 12, 0
    s.turn = 0
    do(s, "transform E3")  # wasteland -> swamp: 3 spades
    assert bowls(s, 0) == (6, 6, 0)


def test_darklings_dig_with_priests_for_2_vp_a_spade():
    """Darklings: "Spades paid with priests: 1 P per spade, +2 VP per spade; cannot advance
    spade track".\""""
    s = position(["darklings", "witches"], d={0: ["E4"]}, res={0: {"priests": 3}})
    assert "advance dig" not in texts(s)
    do(s, "build E3")  # wasteland -> swamp: 3 spades
    p = s.players[0]
    assert (p.priests, p.workers, p.coins) == (0, 0, 13)
    assert vp(s, 0, "faction") == 6


def test_darklings_stronghold_workers_to_priests_that_turn():
    """Darklings SH: "once, convert up to 3 W -> 3 P 1:1; the special rate is only available
    during that same turn".\""""
    s = position(["darklings", "witches"], tp={0: ["E4"]}, res={0: {"workers": 8}})
    do(s, "upgrade E4 SH")
    p = s.players[0]
    for _ in range(3):
        do(s, "convert W P")
    assert "convert W P" not in texts(s) and p.priests == 4 and p.workers == 1
    s = position(["darklings", "witches"], tp={0: ["E4"]}, res={0: {"workers": 8}})
    do_all(s, "upgrade E4 SH", "done")
    s.turn = 0
    assert "convert W P" not in texts(s)


def test_darklings_workers_to_priests_is_one_conversion():
    """On the server the Darklings' SH conversion is one `convert Nw to Np` (N <= 3), and any
    conversion ends it: its units follow one another, and another conversion first forfeits it."""
    s = position(["darklings", "witches"], tp={0: ["E4"]}, res={0: {"workers": 8}},
                 power={0: (0, 2, 3)})
    do_all(s, "upgrade E4 SH", "convert W P", "burn")
    assert "convert W P" not in texts(s)
    s = position(["darklings", "witches"], tp={0: ["E4"]}, res={0: {"workers": 8}},
                 power={0: (0, 2, 3)})
    do_all(s, "upgrade E4 SH", "burn")  # a burn is not a conversion
    assert "convert W P" in texts(s)
    do(s, "convert PW C")
    assert "convert W P" not in texts(s)


def engineers(**kw):
    return position(["engineers", "witches"], **kw)


def test_engineers_costs():
    """Engineers: D 1W 1C, TP 1W 2C (4C alone), TE 1W 4C, SH/SA 3W 6C."""
    f = DATA.factions["engineers"]
    assert f.costs == {"D": (1, 1), "TP": (1, 2), "TE": (1, 4), "SH": (3, 6), "SA": (3, 6)}
    s = engineers(d={0: ["E4"]})
    do(s, "upgrade E4 TP")
    assert (s.players[0].workers, s.players[0].coins) == (1, 6)


def test_engineers_bridge_for_2_workers_repeatable():
    """Engineers: "action ACTE: pay 2 W -> build 1 bridge; usable repeatedly (not blocked after
    use), each use is a full action".\""""
    s = engineers(d={0: ["C2"]}, res={0: {"workers": 6}})
    do(s, "action ACTE")
    assert {t for t in texts(s)} >= {"bridge C2-D4", "bridge C2-D3", "bridge C2-E5"}
    do_all(s, "bridge C2-D4", "done")
    assert s.players[0].workers == 4 and s.players[0].bridges == 1
    s.turn = 0
    do_all(s, "action ACTE", "bridge C2-D3", "done")
    assert s.players[0].bridges == 2 and s.players[0].workers == 2


def test_three_bridges_at_most():
    s = engineers(d={0: ["C2"]}, res={0: {"workers": 8, "bridges": 3}})
    assert "action ACTE" not in texts(s)


def test_engineers_stronghold_pass_vp_per_bridge():
    """Engineers SH: "On passing: +3 VP per bridge of theirs whose both ends hold Engineer
    buildings".\""""
    s = engineers(d={0: ["C2", "D4", "D3"]}, sh={0: ["E7"]})
    for site in ("C2-D4", "C2-D3"):
        s.build_bridge(s.players[0], DATA.map.bridge_index[site])
    s.build_bridge(s.players[0], DATA.map.bridge_index["C2-E5"])  # E5 is empty
    do(s, "pass BON3")
    assert vp(s, 0, "pass") == 6


def dwarves(**kw):
    kw.setdefault("d", {0: ["E7"]})
    return position(["dwarves", "witches"], land={"E5": "mountains"}, **kw)


def test_dwarves_tunnel_2_workers_4_vp():
    """Dwarves: "may reach one hex further ... costs 2 W extra (1 W after SH) and gives +4 VP";
    "only used if direct adjacency (and shipping) does not already reach".\""""
    s = dwarves(res={0: {"workers": 3}})
    assert "build E5" in texts(s)
    do(s, "build E5")
    p = s.players[0]
    assert (p.workers, p.coins) == (0, 13) and vp(s, 0, "faction") == 4
    s = dwarves(sh={0: ["A2"]}, res={0: {"workers": 2}})
    do(s, "build E5")
    assert s.players[0].workers == 0 and vp(s, 0, "faction") == 4
    s = position(["dwarves", "witches"], d={0: ["E7"]}, land={"E6": "mountains"})
    do(s, "build E6")
    assert s.players[0].workers == 2 and vp(s, 0, "faction") == 0


def test_one_tunnel_a_turn():
    """The server allows one tunnel or carpet flight a turn ("Can't use tunnel / carpet flight
    multiple times in one turn"): after tunnelling to one hex with power action 6's first
    spade, the second spade reaches only what is in direct reach."""
    s = dwarves(res={0: {"workers": 9}}, power={0: (0, 0, 12)})
    do(s, "action ACT6")
    do(s, "transform G3 lakes")  # two hexes from E7: a tunnel, and one spade
    assert s.players[0].workers == 7 and vp(s, 0, "faction") == 4
    assert not any(t.split()[1] in ("C3", "F3", "G2") for t in texts(s)
                   if t.startswith(("transform", "build")))
    assert "transform E6" in texts(s)  # in direct reach


def test_dwarves_cannot_ship():
    assert DATA.factions["dwarves"].ship_max == 0
    s = position(["dwarves", "witches"], d={0: ["E7"]}, res={0: {"priests": 1}})
    assert "advance ship" not in texts(s)


def test_mermaids_river_town_with_connect():
    """"(Exception: The Mermaids may ignore any one River space when founding a Town)".\""""
    s = position(["mermaids", "witches"], sh={0: ["C2"]}, tp={0: ["D3"]}, d={0: ["E4", "E3"]})
    assert "connect R14" in texts(s)
    do(s, "connect r14")
    assert s.pending[0] == ("town", 0)
    do(s, "+TW1")
    assert s.players[0].town_mask == mask(["C2", "D3", "E4", "E3"])


def test_mermaids_stronghold_ship_level():
    """Mermaids SH: "+1 shipping level free (with its VP)"; shipping starts at 1."""
    s = position(["mermaids", "witches"], tp={0: ["E4"]}, res={0: {"workers": 4}})
    assert s.players[0].ship == 1
    do(s, "upgrade E4 SH")
    assert s.players[0].ship == 2 and vp(s, 0, "advance") == 2


def test_swarmlings_town_workers_and_free_trading_house():
    """Swarmlings: "+3 W each time they found a town"; SH: "ACTS once per round: upgrade one
    dwelling to a trading house for free".\""""
    s = town_ready("swarmlings", res={0: {"workers": 2, "coins": 3}})
    do_all(s, "build E5", "+TW1")
    assert s.players[0].workers == 3
    s = position(["swarmlings", "witches"], d={0: ["E4"]}, sh={0: ["A11"]},
                 res={0: {"workers": 0, "coins": 0}},
                 scoring=["SCORE6", "SCORE2", "SCORE3", "SCORE4", "SCORE5", "SCORE7"])
    do(s, "action ACTS")
    do(s, "upgrade E4 TP")
    p = s.players[0]
    assert p.b["TP"] == mask(["E4"]) and (p.workers, p.coins) == (0, 0)
    assert vp(s, 0, "round") == 3


def test_chaos_magicians_start_dwelling_placed_last():
    """"Chaos Magicians place their only one" after everyone, Nomads' third before it."""
    s = new_state(["chaos-magicians", "nomads", "witches"])
    order = []
    for name in ["F3", "A10", "F4", "G4", "B1", "E3"]:
        order.append(s.current_player())
        do(s, f"place {name}")
    assert order == [1, 2, 2, 1, 1, 0]
    assert s.stage == "setup-bonus" and s.current_player() == 2
    assert [s.players[i].count("D") for i in range(3)] == [1, 3, 2]


def test_chaos_magicians_two_favours_per_temple():
    s = position(["chaos-magicians", "witches"], tp={0: ["E4"]})
    do_all(s, "upgrade E4 TE", "+FAV9")
    assert s.current_player() == 0
    do(s, "+FAV10")
    assert s.players[0].favors == ["FAV9", "FAV10"]


def test_chaos_magicians_double_turn():
    """CM SH: "ACTC once per round: double turn (two full actions in a row)".\""""
    s = position(["chaos-magicians", "witches"], d={0: ["D4"]}, sh={0: ["E7"]},
                 land={"E6": "wasteland", "E3": "wasteland"}, res={0: {"priests": 1}})
    do_all(s, "action ACTC", "build E6", "advance ship", "done")
    assert s.players[0].ship == 1 and s.players[0].b["D"] >> hx("E6") & 1
    assert s.current_player() == 1


def test_giants_always_two_spades():
    """"Giants always have to pay exactly 2 Spades to transform any type of terrain into their
    Home terrain"; the server charges 2 for any transform (research s6), so "if the Giants get
    only a single Spade as a Cult bonus, this Spade will be forfeit".\""""
    s = position(["giants", "witches"], d={0: ["D4"]}, res={0: {"workers": 20}})
    p = s.players[0]
    for src in ("E7", "D5"):  # mountains (1 step), lakes (3 steps)
        assert s.spades_needed(p, s.terrain[hx(src)], p.faction.home) == 2
    assert s.spades_needed(p, WHEEL_I("lakes"), WHEEL_I("forest")) == 2
    do(s, "build D5")
    assert p.workers == 20 - 6 - 1


def test_giants_single_cult_spade_is_forfeit():
    s = position(["giants", "witches"], d={0: ["D4"]}, cults={0: [1, 4, 0, 1]},
                 scoring=["SCORE6", "SCORE2", "SCORE3", "SCORE4", "SCORE5", "SCORE7"])
    pass_all(s)
    assert s.round == 2 and not s.pending


def test_giants_stronghold_two_free_spades():
    s = position(["giants", "witches"], d={0: ["D4"]}, sh={0: ["A9"]},
                 res={0: {"workers": 1, "coins": 2}})
    do_all(s, "action ACTG", "build E7", "done")
    assert s.players[0].b["D"] >> hx("E7") & 1 and s.players[0].workers == 0


def fakirs(**kw):
    kw.setdefault("d", {0: ["F3"]})
    return position(["fakirs", "witches"], land={"E4": "desert", "D4": "desert",
                                                 "E3": "desert"}, **kw)


def test_fakirs_carpet_flight():
    """Fakirs: "Carpet Flight ... costs 1 P extra, gives +4 VP; range 1, +1 after SH".\""""
    s = fakirs(res={0: {"priests": 1}})
    assert "build E4" in texts(s)  # two steps away
    assert "build E3" not in texts(s)  # three steps away
    do(s, "build E4")
    assert s.players[0].priests == 0 and vp(s, 0, "faction") == 4
    s = fakirs(res={0: {"priests": 1}}, sh={0: ["A5"]})
    assert "build E3" in texts(s)
    s = fakirs(res={0: {"priests": 0}})
    assert "build E4" not in texts(s)


def test_nomads_three_dwellings_and_sandstorm():
    """Nomads: "Start with 3 dwellings"; ACTN "Sandstorm": "turn one hex directly adjacent ...
    into Desert for free; may then build a dwelling there paying its cost".\""""
    assert DATA.factions["nomads"].dwellings == 3
    s = position(["nomads", "witches"], d={0: ["F3"]}, sh={0: ["A5"]}, res={0: {"workers": 1}})
    do(s, "action ACTN")
    legal = texts(s)
    assert "build E5" in legal and "build G2" in legal and "build E7" not in legal
    do_all(s, "build E5", "done")
    p = s.players[0]
    assert terrain(s, "E5") == "desert" and p.workers == 0 and p.coins == 13


def test_fakirs_cannot_ship_and_dig_once():
    f = DATA.factions["fakirs"]
    assert (f.ship_max, f.dig_max) == (0, 1)


def test_two_power_spades_on_two_hexes_one_dwelling():
    """"When gaining 2 Spades, if you only need one of them to transform a Terrain space into
    your Home terrain, you may apply the second Spade on another Terrain space. However, you may
    not place a Dwelling on this second space.\""""
    s = position(WH_HA, d={0: ["F4"]}, power={0: (0, 6, 6)})
    do(s, "action ACT6")
    do(s, "transform F3 plains")  # desert -> plains: the second spade first, as the server
    assert terrain(s, "F3") == "plains" and s.players[0].workers == 3
    # one hex a turn may become other than home: only home transforms are left
    assert not any(len(t.split()) == 3 for t in texts(s) if t.startswith("transform"))
    do(s, "build E7")  # mountains -> forest: 1 spade
    assert not any(t.startswith(("build", "transform")) for t in texts(s))
    assert s.players[0].b["D"] == mask(["F4", "E7"]) and s.players[0].workers == 2


def test_a_dwelling_built_first_gives_up_the_second_spade():
    """The server settles every spade before the dwelling goes up (it reorders `build X.
    transform Y` so that Y cannot be reached from X): a transform may not follow the build."""
    s = position(WH_HA, d={0: ["F4"]}, power={0: (0, 6, 6)})
    do(s, "action ACT6")
    do(s, "build E7")
    assert not any(t.startswith(("build", "transform")) for t in texts(s))
    assert not s.pending or s.pending[0][0] != "spades"


def test_network_counts_tunnel_and_carpet_range():
    """"Terrain spaces and Structures that Dwarves can reach via Tunneling and Fakirs via Carpet
    Flight are also considered indirectly adjacent" (network: within range + 1 hexes)."""
    s = position(["dwarves", "fakirs"], d={0: ["E7", "E5"], 1: ["F3", "E4", "D5"]})
    assert scoring.network_size(s, s.players[0]) == 2
    assert scoring.network_size(s, s.players[1]) == 2  # F3-E4 two apart, D5 three from F3
    s.players[1].eff = {**s.players[1].eff, "carpet_range": 2}
    assert scoring.network_size(s, s.players[1]) == 3
    w = position(WH_HA, d={0: ["E7", "E5"]})
    assert scoring.network_size(w, w.players[0]) == 1


def test_range_tables_are_symmetric():
    # the valuation's network memo joins a new building to the groups it links to, which is
    # the groups a search finds only if every link between land hexes works both ways
    for table in [*DATA.within, *DATA.map.sail]:
        for h in range(DATA.map.size):
            if not DATA.map.land >> h & 1:
                continue  # buildings stand on land only
            x = table[h]
            while x:
                n = (x & -x).bit_length() - 1
                assert table[n] >> h & 1, (DATA.map.names[h], DATA.map.names[n])
                x &= x - 1


def test_stronghold_actions_need_the_stronghold():
    s = position(["witches", "chaos-magicians"], d={0: ["E4"], 1: ["D4"]})
    assert not any(t.startswith("action ACT") and t[-1] in "WC" for t in texts(s))
    s = position(["engineers", "witches"], d={0: ["C2", "D4"]})
    s.build_bridge(s.players[0], DATA.map.bridge_index["C2-D4"])
    do(s, "pass BON3")
    assert vp(s, 0, "pass") == 0  # the bridge VP needs the stronghold


def test_cultists_one_acceptance_is_enough():
    """One opponent takes power, one declines: a cult step and no errata power."""
    s = position(["cultists", "witches", "darklings"], d={0: ["E4"], 1: ["E6"], 2: ["F3"]},
                 land={"E5": "plains"})
    do_all(s, "build E5", "done", "decline", "leech")
    assert s.current_player() == 0 and "+fire" in texts(s)
    do(s, "+fire")
    assert s.players[0].cults[0] == 2 and bowls(s, 0) == (5, 7, 0)


def test_mermaids_connect_only_when_it_founds_a_town():
    s = position(["mermaids", "witches"], tp={0: ["C2"]}, d={0: ["D3", "E4"]})
    assert not any(t.startswith("connect") for t in texts(s))


def test_town_key_lets_the_town_tiles_cult_step_reach_10():
    """"Each Town provides a key" and TW5 gives "+1 space on each of the Cult tracks"; the key
    comes first, so a track at 9 reaches 10 (and its 3 power)."""
    s = town_ready(cults={0: [9, 1, 0, 1]}, power={0: (12, 0, 0)})
    do_all(s, "build E5", "+TW5")
    p = s.players[0]
    assert p.cults == [10, 2, 1, 2] and s.cult_top[0] == 0 and p.p2 == 3

