"""Terra Nova data: validation errors name the field, overrides change the game, the map facts
(shared/rules/terra_nova_facts.md section 3), and the action text forms round-trip."""

import pytest
from tn_helpers import DATA, GAME, hx

from terra_sim import get_game
from terra_sim.core.errors import DataError, IllegalAction
from terra_sim.core.hexmap import bits, components, join, largest
from terra_sim.core.rng import stream
from terra_sim.games.terra_nova.data import _effects, load_data
from terra_sim.games.terra_nova.state import TerraNovaState

MAP = DATA.map

# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize("override,needle", [
    ({"rules": {"costs": {"housee": 4}}}, "rules.costs.housee: no such field"),
    ({"bogus": {"x": 1}}, "unknown data file ['bogus']"),
    ({"rules": {"costs": {"house": "four"}}}, "costs.house: expected an integer"),
    ({"rules": {"costs": {"palace": True}}}, "costs.palace: expected an integer"),
    ({"rules": {"towns": {"min_value": 0}}}, "towns.min_value: expected an integer in 1.."),
    ({"factions": {"factions": {"golems": {"house_coins": [1, 2, 3]}}}},
     "factions.golems.house_coins: expected 8 integers"),
    ({"factions": {"factions": {"golems": {"tp_power": [1, 1, 1, 1, 1]}}}},
     "factions.golems.tp_power: expected 4 integers"),
    ({"factions": {"factions": {"golems": {"ability": {"dropout_tp_vp": [1, 2]}}}}},
     "factions.golems.ability.dropout_tp_vp: expected 5 integers"),
    ({"factions": {"factions": {"golems": {"ability": {"fly": 1}}}}},
     "factions.golems.ability.fly: no such field"),
    ({"factions": {"factions": {"golems": {"home": "mountain"}}}},
     "factions.golems.home: expected a string (one of lake"),
    ({"factions": {"factions": {"golems": {"color": "purple"}}}}, "factions.golems.color"),
    ({"factions": {"factions": {"fairies": {"right_palace": {"town_value": "six"}}}}},
     "factions.fairies.right_palace.town_value: expected an integer"),
    ({"factions": {"factions": {"sea-dogs": {"ability": {"river_towns": 2}}}}},
     "factions.sea-dogs.ability.river_towns: expected an integer in 0..1"),
    ({"rules": {"mat": {"sailing_vp": [1, 2, 3]}}}, "mat.sailing_vp: expected [0, vp1"),
    ({"rules": {"mat": {"start_power": [2, 2]}}}, "mat.start_power: expected 3 integers"),
    ({"rules": {"territory": {"points": [12, 8, 4]}}}, "territory.points: expected 4 integers"),
    ({"map": {"bridges": {"sites": ["A5-A6"]}}}, "bridge site A5-A6 joins hexes that are already"),
    ({"map": {"bridges": {"sites": ["A1-C5"]}}}, "bridge site A1-C5 must join two land hexes"),
    ({"map": {"grid": {"rows": ["R X F"]}}}, "grid.rows[0]: unknown terrain code 'X'"),
    ({"map": {"neutral_spaces": {"lake": ["A2"]}}}, "neutral_spaces.lake: every hex must be lake"),
])
def test_bad_override_names_the_field(override, needle):
    with pytest.raises(DataError) as e:
        load_data(override)
    assert needle in str(e.value)


def test_unknown_effect_name_is_rejected():
    with pytest.raises(DataError) as e:
        _effects({"fly": 1}, "factions.toml: factions.golems.ability")
    assert "factions.golems.ability.fly: unknown effect" in str(e.value)


def test_unknown_power_effect_and_round_event():
    with pytest.raises(DataError, match=r"power_actions\[0\]\.effect"):
        load_data({"rules": {"power_actions": [{"id": "x", "cost": 3, "effect": "teleport"}]}})
    with pytest.raises(DataError, match=r"round_tiles\[0\]\.event"):
        load_data({"rules": {"round_tiles": [{"id": "x", "event": "dance", "vp": 2}] * 5}})
    with pytest.raises(DataError, match="round_tiles: need at least 5"):
        load_data({"rules": {"round_tiles": [{"id": "x", "event": "house", "vp": 2}]}})


def test_data_error_is_a_user_error_and_base_data_loads():
    from terra_sim.core.errors import UserError

    assert issubclass(DataError, UserError)
    d = load_data()
    assert d.name == "terra-nova-base" and len(d.factions) == 10 and d.overrides == {}


def test_valid_override_changes_the_game():
    over = {"factions": {"factions": {"golems": {"start_money": 9}}}}
    g = get_game("terra-nova", over)
    assert g.data.factions["golems"].start_money == 9
    assert g.data.factions["fairies"].start_money == 7
    assert g.data_hash != GAME.data_hash and g.data.name == "terra-nova-base+overrides"
    s = g.new_state(["golems", "fairies"], seed=1)
    assert [p.money for p in s.players] == [9, 7]
    assert GAME.new_state(["golems", "fairies"], seed=1).players[0].money == 7


def test_override_costs_and_mat_reach_the_engine():
    g = get_game("terra-nova", {"rules": {"costs": {"house": 5}, "mat": {"bridges": 1}}})
    assert g.data.costs["house"] == 5 and g.data.bridges == 1
    assert g.new_state(["golems", "fairies"], seed=1).players[1].bridges == 1
    g = get_game("terra-nova", {"factions": {"default_mat": {"start_money": 11}}})
    s = g.new_state(["golems", "sun-worshippers"], seed=1)
    assert [p.money for p in s.players] == [11, 5]  # the sun worshippers' own 5 stays


# --- map facts ----------------------------------------------------------------------------------


def test_map_counts():
    assert MAP.size == 90
    assert MAP.river.bit_count() == 30
    for t in DATA.ring:
        assert MAP.terrain_mask[t].bit_count() == 12, t
    assert len(MAP.bridge_sites) == 25
    assert MAP.edge.bit_count() == 28
    assert MAP.land.bit_count() == 60


def test_four_continents_of_15_with_3_of_each_terrain():
    assert sorted(c.bit_count() for c in MAP.continents) == [15, 15, 15, 15]
    for c in MAP.continents:
        for t in DATA.ring:
            assert (c & MAP.terrain_mask[t]).bit_count() == 3
    assert MAP.continent_of[hx("E5")] >> hx("C1") & 1  # W/centre continent
    assert not MAP.continent_of[hx("E3")] >> hx("C3") & 1


def test_no_two_adjacent_land_hexes_share_a_terrain_and_river_is_one():
    for h in bits(MAP.land):
        for n in bits(MAP.neigh[h] & MAP.land):
            assert MAP.terrain[h] != MAP.terrain[n], (MAP.names[h], MAP.names[n])
    assert len(components(MAP.river, MAP.neigh)) == 1


def test_land_hexes_take_the_low_ids_in_reading_order():
    # a mask of land hexes then fits a compiled native int (62 bits)
    assert MAP.land == (1 << MAP.land.bit_count()) - 1
    assert MAP.land.bit_length() <= 62
    land = list(bits(MAP.land))
    assert sorted(land, key=MAP.coords.__getitem__) == land
    river = list(bits(MAP.river))
    assert sorted(river, key=MAP.coords.__getitem__) == river
    assert MAP.terrain[hx("A1")] == "river" and MAP.names[0] == "A2"


def test_neighbours_follow_the_shift_rule():
    assert sorted(MAP.mask_names(MAP.neigh[hx("E5")])) == ["D4", "D5", "E4", "E6", "F4", "F5"]
    assert sorted(MAP.mask_names(MAP.neigh[hx("D4")])) == ["C4", "C5", "D3", "D5", "E4", "E5"]
    assert sorted(MAP.mask_names(MAP.neigh[hx("A1")])) == ["A2", "B1"]
    assert all(MAP.land_neigh[h] == MAP.neigh[h] & MAP.land for h in range(MAP.size))
    for h in range(MAP.size):
        for n in bits(MAP.neigh[h]):
            assert MAP.neigh[n] >> h & 1  # symmetric


def test_sailing_reach_is_symmetric():
    # join() and the bots' group memo rely on it: a hex links to a group iff the group links to it
    for d, table in enumerate(MAP.sail):
        for h in range(MAP.size):
            for n in bits(table[h]):
                assert table[n] >> h & 1, (d, MAP.names[h], MAP.names[n])


@pytest.mark.parametrize("seed", range(20))
def test_join_gives_the_groups_a_search_gives(seed):
    rng = stream(seed, "join")
    land = list(bits(MAP.land))
    sail = MAP.sail[rng.randrange(len(MAP.sail))]
    mask = sum(1 << h for h in rng.sample(land, rng.randrange(0, 25)))
    h = rng.choice([x for x in land if not mask >> x & 1])
    joined = join(components(mask, MAP.neigh, sail), h, MAP.neigh[h] | sail[h])
    assert sorted(joined) == sorted(components(mask | 1 << h, MAP.neigh, sail))
    assert largest(joined) == max(g.bit_count() for g in joined)
    assert largest([]) == 0


def test_bridge_sites_cross_two_river_hexes():
    for a, b in MAP.bridge_sites:
        common = MAP.neigh[a] & MAP.neigh[b]
        assert common.bit_count() == 2 and common & ~MAP.river == 0
        assert not MAP.neigh[a] >> b & 1


def test_terrain_ring_distances():
    ring = DATA.ring
    assert ring == ("lake", "forest", "wasteland", "desert", "swamp")
    d = {(a, b): DATA.ring_distance(ring.index(a), ring.index(b)) for a in ring for b in ring}
    assert d["lake", "swamp"] == 1 and d["lake", "forest"] == 1
    assert d["lake", "desert"] == 2 and d["lake", "wasteland"] == 2
    assert max(d.values()) == 2 and all(d[a, a] == 0 for a in ring)


# --- action text forms --------------------------------------------------------------------------


def test_every_action_kind_round_trips_through_parse():
    seen = {}
    for seed in range(300):
        n, opts = 2 + seed % 3, {}
        if seed % 10 == 1:
            n, opts = 2, {"variant": "planner"}
        elif seed % 10 == 2:
            n, opts = 2, {"variant": "lucky-digger"}
        s: TerraNovaState = GAME.new_state(GAME.random_factions(n, stream(seed, "draw-rt")),
                                           seed, **opts)
        rng = stream(seed, "rt")
        while not s.is_over():
            legal = s.legal_actions()
            for a in legal:
                if a.kind not in seen or seed % 25 == 0:
                    text = s.action_text(a)
                    assert s.parse_action(text) == a, text
                    seen.setdefault(a.kind, text)
            s.apply(legal[rng.randrange(len(legal))])
    assert set(seen) == set(GAME.codec.kinds)
    assert len(seen) == 37  # 27 base kinds + 10 from the 6 power actions


@pytest.mark.parametrize("text", [
    "", "fly E5", "build", "build E5 E6", "build Z9", "build 55", "pick Q", "palace E5 up",
    "bridge A5-A6", "exchange x", "sail 3", "pw-spade2-dig2 E5", "pass", "river-link E5",
])
def test_bad_action_text_is_illegal(text):
    with pytest.raises(IllegalAction):
        GAME.codec.parse(text)


def test_text_examples_from_the_docstring():
    c = GAME.codec
    for text in ("place E5", "pick B", "build E5", "pw-spade2-build-dig E5 F3", "palace E5 left",
                 "bridge A5-C5", "pw-bridge3 A5-C5", "exchange 3", "pass C", "town 3",
                 "edge-skip", "druid-vp", "done", "river-link", "no-link"):
        assert c.text(c.parse(text)) == text
    assert c.parse("build e5") == c.parse("build E5")
