"""Terramara rules, one targeted test per rule, on positions written for the rule (the text's
worked examples where it has them)."""

from tmr_helpers import DATA, clear_resources, do, position, space, texts

from terra_sim.games.terramara import artifacts, effects, scoring
from terra_sim.games.terramara.board import SMALL_POSITIONS
from terra_sim.games.terramara.player import CAT, CATEGORIES, FREE
from terra_sim.games.terramara.road import CAMP


def _turn_to(s, seat: int) -> None:
    s.turn = s.order.index(seat)
    s.phase = 0
    s.crafted = False


def _all_to_the_hut(s) -> None:
    """Every clan member still in hand goes to its Hut, so the next `end` can close the round."""
    for q in s.players:
        q.hut += q.avail
        q.avail = 0
        q.chief_at = -2


def _place_and_end(s, text: str) -> None:
    do(s, text)
    while s.pending:  # the space's choices, by their first answer
        s.apply(s.legal_actions()[0])
    do(s, "end")


# ----- placement -----------------------------------------------------------------------------

def test_joining_an_explorer_needs_strictly_higher_military_and_costs_one():
    s = position()
    for seat, m in enumerate((5, 5, 1, 6)):
        s.players[seat].military = m
    _place_and_end(s, "explorer R1-4")  # seat 0 with 5
    _turn_to(s, 1)  # equal Military: no
    assert "explorer R1-4" not in texts(s)
    assert "chief R1-4" in texts(s)  # the Chieftain joins whatever the Military
    _turn_to(s, 3)
    do(s, "explorer R1-4")  # 6 > 5: yes, and 1 Military lost (the text: even down to equal)
    assert s.players[3].military == 5
    _turn_to(s, 2)  # full: two members
    assert not {"explorer R1-4", "chief R1-4"} & texts(s)


def test_the_chieftain_joins_for_free_and_nobody_joins_a_chieftain():
    s = position()
    for seat, m in enumerate((1, 9, 9, 9)):
        s.players[seat].military = m
    _place_and_end(s, "chief R1-1")
    _turn_to(s, 1)
    assert not {"explorer R1-1", "chief R1-1"} & texts(s)  # the Chieftain blocks the space
    s.players[0].military = 1
    _turn_to(s, 0)
    s.players[0].chief_at = FREE
    _place_and_end(s, "explorer R1-2")
    _turn_to(s, 0)
    s.players[0].military = 0
    _turn_to(s, 3)
    s.players[3].military = 0  # lower than the Explorer's owner: the Chieftain still goes
    do(s, "chief R1-2")
    assert s.players[3].military == 0


def test_the_chieftain_never_goes_to_a_future_space_an_explorer_does():
    s = position()
    t = texts(s)
    assert "explorer R3-1" in t and "chief R3-1" not in t
    assert "explorer R6-6" not in t  # round-5 special spaces: nobody before round 5
    assert "chief R1-1" in t


def test_an_explorer_on_a_future_space_comes_back_when_its_round_ends():
    s = position()
    _place_and_end(s, "explorer R2-1")
    i = space(s, "R2-1")
    p = s.players[0]
    _all_to_the_hut(s)
    p.chief_at = FREE
    _turn_to(s, 0)
    _place_and_end(s, "chief hut")
    assert s.round == 2 and s.occ[2 * i] == 0  # still there in round 2
    assert p.avail == p.explorers - 1
    _all_to_the_hut(s)
    p.chief_at = FREE
    _turn_to(s, 0)
    _place_and_end(s, "chief hut")
    assert s.round == 3 and s.occ[2 * i] == -1 and p.avail == p.explorers


def test_raid_and_first_player_are_once_a_round():
    s = position()
    _place_and_end(s, "explorer raid")
    _place_and_end(s, "explorer first")
    assert not {"explorer raid", "chief raid", "explorer first", "chief first"} & texts(s)


def test_hire_a_worker_gives_the_level_of_the_round():
    s = position()
    for r, level in ((1, 1), (2, 1), (3, 2), (4, 2), (5, 3)):
        s.round = r
        before = list(s.players[0].workers)
        effects.take_worker(s, s.players[0], DATA.rules["worker_level_by_round"][r - 1])
        assert s.players[0].workers == before + [level]


# ----- raid ----------------------------------------------------------------------------------

def test_raid_divisors_by_power_level_difference():
    s = position()
    clear_resources(s)
    s.players[0].military = 11  # after losing 1: 10, Power Level 3
    s.players[1].military = 10  # level 3: 1 per 5
    s.players[2].military = 0   # level 1 (two below): 1 per 3
    s.players[3].military = 20  # level 4 (one above): 1 per 6
    for q, k in ((1, 10), (2, 9), (3, 12)):
        s.players[q].raw = [k, 0, 0, 0]
    effects.raid(s, 0)
    assert s.players[0].military == 10
    assert [(d[1], d[2]) for d in s.pending] == [(1, 2), (2, 3), (3, 2)]


def test_raid_worked_example_same_level_one_in_five_weaker_one_in_four():
    # The text: red Power Level 2 raids; blue (level 2) gives 1 per 5, green (level 1) 1 per 4.
    s = position()
    clear_resources(s)
    s.players[0].military = 6   # red: 5 after the raid's cost, level 2
    s.players[1].military = 7   # blue, level 2
    s.players[2].military = 2   # green, level 1
    s.players[3].military = 5   # level 2
    s.players[1].raw = [5, 4, 0, 0]   # 9 resources: 1
    s.players[2].ref = [4, 4, 0, 0]   # 8: 2
    s.players[3].raw = [4, 0, 0, 0]   # fewer than 5: nothing
    effects.raid(s, 0)
    assert [(d[1], d[2]) for d in s.pending] == [(1, 1), (2, 2)]


def test_the_raided_player_chooses_what_to_give():
    s = position()
    clear_resources(s)
    s.players[0].military = 3
    s.players[1].military = 3
    s.players[1].raw = [3, 0, 0, 0]
    s.players[1].ref = [0, 2, 0, 0]
    do(s, "explorer raid")
    assert s.current_player() == 1
    assert texts(s) == {"give livestock", "give ashlar"}
    do(s, "give ashlar")
    assert s.players[0].ref[1] == 1 and s.players[1].ref[1] == 1


# ----- first player --------------------------------------------------------------------------

def test_first_player_travel_and_the_new_order_bonuses():
    s = position()
    third, fourth = s.players[3], s.players[0]
    river, mil = third.river, fourth.military
    _turn_to(s, 1)
    do(s, "explorer first")
    assert s.pending[0][:2] == ("travel", 1)  # 1 Travel for the taker (the trader: +1)
    assert third.river == river + 1 and fourth.military == mil + 2
    _all_to_the_hut(s)
    while s.pending:
        s.apply(s.legal_actions()[0])
    do(s, "end")
    assert s.round == 2 and s.order == [1, 2, 3, 0]


def test_first_player_in_round_five_is_a_choice_of_two():
    s = position()
    s.round = 5
    m = s.players[0].military
    do(s, "explorer first")
    assert texts(s) == {"choose travel", "choose military", "choose culture"}
    do(s, "choose military")
    assert s.players[0].military == m + 2


# ----- river ---------------------------------------------------------------------------------

def test_river_access_reserve_explorer_and_bonus_spaces():
    s = position()
    p = s.players[0]
    p.river = 0
    assert len(artifacts.reachable(s, p)) == 2
    for river, n in ((1, 3), (2, 3), (3, 4), (5, 5), (7, 6), (9, 7), (11, 8), (15, 8)):
        p.river = river
        assert len(artifacts.reachable(s, p)) == n
    p.river = 3
    explorers = p.explorers
    tiles = [b for k in (6, 10, 14) for b in s.board.river_bonus[k]]
    assert [DATA.bonus[b].level for b in tiles] == [1, 2, 2, 3]
    effects.move_canoe(s, p, 5)  # to 8: the level-1 bonus tile at 6, an Explorer at 8
    assert p.river == 8 and p.explorers == explorers + 1 and p.avail == explorers + 1
    p.river = DATA.rules["river_end"] - 1
    vp = p.vp[:]
    effects.move_canoe(s, p, 3)  # beyond the end: 1 VP per Culture
    assert p.river == DATA.rules["river_end"] and sum(p.vp) == sum(vp) + 2


def test_reserve_needs_river_four_and_costs_five_at_the_end():
    s = position()
    p = s.players[0]
    p.river = 3
    do(s, "explorer develop")  # Culture 1: to 4
    assert p.river == 4
    first = DATA.artifact_ids[s.display[0]]
    assert f"reserve {first}" in texts(s)
    do(s, f"reserve {first}")
    assert p.reserved == DATA.artifact_ids.index(first)
    assert DATA.artifact_ids[s.display[0]] != first and len(s.display) == 8
    s.round = 5
    _all_to_the_hut(s)
    do(s, "end")
    assert s.is_over() and s.breakdown()[0]["reserved"] == -5


def test_reserved_artifact_discount_from_river_twelve():
    s = position()
    p = s.players[0]
    clear_resources(s)
    i = next(k for k, a in enumerate(DATA.artifact_ids) if sum(DATA.artifacts[a].cost) == 3)
    cost = list(DATA.artifacts[DATA.artifact_ids[i]].cost)
    p.reserved = i
    p.ref = cost[:]
    k = next(t for t in range(4) if cost[t])
    p.ref[k] -= 1
    p.river = 11
    assert artifacts.payment(s, p, i, True) is None
    p.river = 12
    assert artifacts.payment(s, p, i, True) is not None


# ----- road ----------------------------------------------------------------------------------

def test_travel_the_road_steps_detours_and_outposts_open_after_their_round():
    s = position()
    p = s.players[0]
    p.caravans = [0, 0]
    do(s, "explorer travel")  # 2 Travel (+1 for the trader)
    assert texts(s) == {"road 1 X1", "road 1 B1", "stop"}  # no Outpost in round 1
    do(s, "road 1 B1")  # the detour's bonus tile
    while s.pending and s.pending[0][0] != "travel":
        s.apply(s.legal_actions()[0])
    assert "road 1 X1" in texts(s) and "road 2 X1" in texts(s)
    s.round = 2
    p.caravans = [0, 0]
    assert "road 1 O1" in texts(s)


def test_road_arrival_scoring_one_player_may_take_eight_and_five():
    s = position()
    p, q = s.players[0], s.players[1]
    p.caravans = [18, 18]
    q.caravans = [18, 0]
    for who in (p, p, q):
        who.caravans[who.caravans.index(18)] = CAMP
        effects.arrive(s, who, CAMP)
    road = CAT["road"]
    assert p.vp[road] == 13 and q.vp[road] == DATA.rules["road_arrival_vp"][2]


def test_a_flag_per_outpost_and_player():
    s = position()
    p = s.players[0]
    effects.arrive(s, p, 2)
    effects.arrive(s, p, 2)  # the second Caravan: no second Flag there
    assert p.flags == [s.board.outposts[0]]


def test_crossroads_space_needs_both_caravans_past_its_crossroads():
    s = position()
    s.round = 2
    p = s.players[0]
    p.caravans = [3, 2]
    assert "explorer X1" not in texts(s)
    p.caravans = [3, 6]
    assert "explorer X1" in texts(s)
    assert "explorer R1-1" not in texts(s)  # row 1 was flipped


# ----- outposts, military, tie-breaks --------------------------------------------------------

def test_outposts_score_2_5_10_by_the_hardest_level_met():
    s = position()
    p = s.players[0]
    o = next(o for o in DATA.outposts.values() if o.require == "military")
    for mil, vp in ((o.at[0] - 1, 0), (o.at[0], 2), (o.at[1], 5), (o.at[2], 10), (20, 10)):
        p.military = mil
        assert scoring.outpost_vp(s, p, o) == vp


def test_military_majority_8_5_2_and_the_texts_tie_examples():
    assert scoring.rank_points([9, 7, 5, 3], (8, 5, 2)) == [8, 5, 2, 0]
    # Example 1: blue and yellow tie for first (8 each), no 5; red 2, green nothing.
    assert scoring.rank_points([10, 10, 6, 2], (8, 5, 2)) == [8, 8, 2, 0]
    # Example 2: three tie for first: 8 each, red nothing.
    assert scoring.rank_points([10, 10, 10, 2], (8, 5, 2)) == [8, 8, 8, 0]


def test_military_track_ends_at_twenty_with_a_vp_per_step_beyond():
    s = position()
    p = s.players[0]
    p.military = 19
    vp = sum(p.vp)
    effects.add_military(s, p, 3)
    assert p.military == 20 and sum(p.vp) == vp + 2


def test_tie_breaks_river_then_military_then_shared():
    s = position()
    a, b, c, d = s.players
    for p in s.players:
        p.vp = [10] + [0] * (len(CATEGORIES) - 1)
        p.river = 5
        p.military = 5
    d.vp[0] = 9
    b.river = 6
    assert s.winners() == [1]
    b.river = 5
    c.military = 6
    assert s.winners() == [2]
    c.military = 5
    assert s.winners() == [0, 1, 2]


# ----- characters ----------------------------------------------------------------------------

def test_flip_only_before_the_first_member_of_the_round_and_for_good():
    s = position(["hunter+card01", "collector+card02", "sage+card03", "pioneer+card04"])
    assert "flip" in texts(s)
    hunter = s.players[0]
    do(s, "flip")
    assert hunter.experienced and hunter.explorers == 4 and hunter.avail == 4
    assert "flip" not in texts(s)
    play = CAT["play"]
    vp = hunter.vp[play] + s.board.spaces[space(s, "R1-1")].effects.get("vp", 0)
    _place_and_end(s, "chief R1-1")  # experienced hunter: 5 VP for the Chieftain alone
    assert hunter.vp[play] == vp + 5
    collector = s.players[1]
    assert collector.bonus_tiles and "flip" in texts(s)
    do(s, "explorer develop")
    assert "flip" not in texts(s)


def test_collector_loses_the_bonus_tiles_on_flipping_and_uses_one_a_turn():
    s = position(["collector+card01", "sage+card02"])
    p = s.players[0]
    usable = {f"bonus {b}" for b in p.bonus_tiles if DATA.bonus[b].level == 1}
    assert usable and usable <= texts(s)
    assert not {f"bonus {b}" for b in p.bonus_tiles if DATA.bonus[b].level > 1} & texts(s)
    do(s, sorted(usable)[0])
    while s.pending:
        s.apply(s.legal_actions()[0])
    assert not any(t.startswith("bonus") for t in texts(s))  # one a turn
    do(s, "flip")
    assert p.bonus_tiles == []


def test_trader_and_sage_gain_one_more():
    s = position(["trader+card01", "sage+card02"])
    t, g = s.players
    effects.add_travel(s, t, 1)
    assert s.pending[-1][2] == 2
    r = g.river
    effects.add_culture(s, g, 1)
    assert g.river == r + 2


def test_warlord_keeps_military_and_artisan_pays_with_raw():
    s = position(["warlord+card01", "artisan+card02"])
    w, a = s.players
    w.military = 5
    effects.lose_military(w)
    assert w.military == 5
    clear_resources(s)
    i = s.display[0]
    cost = DATA.artifacts[DATA.artifact_ids[i]].cost
    a.raw = list(cost)
    assert (artifacts.payment(s, a, i, False) is not None) == (sum(cost) <= 2)
    a.ref = list(cost)
    a.ref[cost.index(max(cost))] -= 1
    assert artifacts.payment(s, a, i, False) is not None  # one raw stands in


# ----- workers -------------------------------------------------------------------------------

def test_a_worker_refines_up_to_its_level_once_a_round():
    s = position()
    p = s.players[0]
    clear_resources(s)
    p.workers = [2]
    s.worker_supply[1] -= 1
    p.raw = [3, 1, 0, 0]
    do(s, "work 2")
    assert texts(s) == {"refine livestock", "refine stone", "stop"}
    do(s, "refine livestock")
    do(s, "refine stone")
    assert p.raw == [2, 0, 0, 0] and p.ref == [1, 1, 0, 0]
    assert not any(t.startswith("work") for t in texts(s))
    p.workers = [1, 1]
    p.used_workers = 0
    do(s, "work 1")
    do(s, "stop")  # the unused capacity is lost
    assert texts(s) & {"work 1"}  # the other level-1 Worker is still unused


# ----- artifacts -----------------------------------------------------------------------------

def test_deck_order_display_slides_and_levels_leave_by_round():
    s = position()
    levels = [artifacts.level_of(s, i) for i in s.display + s.deck]
    assert levels == sorted(levels)
    third = s.display[2]
    artifacts.take(s, s.display[1])
    assert s.display[1] == third and len(s.display) == 8
    artifacts.remove_level(s, 1, from_display=False)
    assert all(artifacts.level_of(s, i) > 1 for i in s.deck)
    artifacts.remove_level(s, 1, from_display=True)
    assert all(artifacts.level_of(s, i) == 2 for i in s.display) and len(s.display) == 8


def test_crafting_pays_and_applies_the_card():
    s = position()
    p = s.players[0]
    clear_resources(s)
    i = s.display[0]
    card = DATA.artifacts[DATA.artifact_ids[i]]
    p.ref = [c + 1 for c in card.cost]
    do(s, "explorer develop")
    do(s, f"craft {card.id}")
    assert p.ref == [1, 1, 1, 1] and p.artifacts == [i] and i not in s.display
    assert not any(t.startswith(("craft", "reserve")) for t in texts(s) - {"end"})


# ----- two and three players -----------------------------------------------------------------

def test_three_players_one_neutral_six_explorers_and_fire_on_small_spaces():
    s = position(["trader+card01", "sage+card02", "hunter+card03"], seed=5)
    assert s.board.neutrals == 1 and len(s.neutral_mil) == 1
    neutral = [i for i, c in enumerate(s.occ[::2]) if c >= 0 and c >> 1 == 3]
    assert sorted(s.board.spaces[i].row for i in neutral) == [1, 2, 3, 4, 5, 6]
    fire = [sp for sp in s.board.spaces if sp.fire]
    assert len(fire) == 6 and {sp.row for sp in fire} == set(range(1, 7))
    for sp in fire:
        assert int(sp.name.split("-")[1]) - 1 in SMALL_POSITIONS
        assert f"explorer {sp.name}" not in texts(s)
    assert 1 <= s.neutral_mil[0] <= 4


def test_two_players_two_neutrals_and_the_grouped_raid_space():
    s = position(["trader+card01", "sage+card02"], seed=5)
    assert len(s.neutral_mil) == 2
    neutral = [c >> 1 for c in s.occ[::2] if c >= 2 * 2]
    assert sorted(neutral) == [2] * 6 + [3] * 6
    assert sorted(s.neutral_mil) != [0, 0]
    do(s, "explorer raidfirst")
    assert texts(s) == {"resolve raid", "resolve first"}


def test_joining_a_neutral_explorer_compares_its_military():
    s = position(["trader+card01", "sage+card02", "hunter+card03"], seed=5)
    i = next(i for i, c in enumerate(s.occ[::2]) if c >= 0 and s.board.spaces[i].row == 1)
    name = s.board.spaces[i].name
    seat = s.current_player()
    s.players[seat].military = s.neutral_mil[0]
    assert f"explorer {name}" not in texts(s)
    s.players[seat].military = s.neutral_mil[0] + 1
    assert f"explorer {name}" in texts(s)


# ----- golden counts -------------------------------------------------------------------------

def test_golden_counts_of_legal_actions():
    s = position()
    assert len(s.legal_actions()) == 49  # flip + 2 x (6 homeland/hut + 6 row 1) + 30 future
    s3 = position(["trader+card01", "pioneer+card02", "hunter+card05"], seed=2)
    assert len(s3.legal_actions()) == 37
    s2 = position(["trader+card01", "sage+card02"], seed=5)
    assert len(s2.legal_actions()) == 29
