"""Towns: 4+ connected buildings (bridges count) worth at least 7 (6 with the right palace).

Each building belongs to at most one town. A building placed next to one of your towns joins it
(the town expands); founding looks only at buildings outside towns, so a new town never swallows
an old one, and joining two towns costs nothing.

The Sea Dogs may also count buildings one river hex apart as connected, "if and when" they
choose: when that changes what the action's town check gives, the check waits for their decision
(`river-link` or `no-link`) instead of choosing for them.
"""

# terra-sim: compile

from typing import TYPE_CHECKING

from terra_sim.core.hexmap import bits, components, count

if TYPE_CHECKING:
    from terra_sim.games.terra_nova.state import Player, TerraNovaState


# The last river_towns table and the adjacency it was made from: a bot asks for it for every
# state it values, and the adjacency only changes when a bridge is built. Holding the list keeps
# the identity test sound (a freed list's address could be reused).
_river_from: list[int] = []
_river_adj: list[int] = []


def town_adjacency(s: "TerraNovaState", p: "Player") -> list[int]:
    """Adjacency for p's towns when p uses every link it may: neighbours and bridges, plus one
    river hex for river_towns. The caller must not change the list."""
    global _river_from, _river_adj
    if p.eff.get("river_towns"):
        if s.adj is not _river_from:
            _river_adj = [a | r for a, r in zip(s.adj, s.data.map.sail[1], strict=True)]
            _river_from = s.adj
        return _river_adj
    return s.adj


def value(s: "TerraNovaState", p: "Player", mask: int) -> int:
    bv = s.data.building_value
    return (bv["house"] * count(mask & p.houses) + bv["tp"] * count(mask & p.tps)
            + bv["palace"] * count(mask & p.palaces))


def outcome(s: "TerraNovaState", seat: int, river: list[int] | None) -> tuple[int, int]:
    """(p's buildings in towns, towns founded) once the buildings just placed have joined towns
    and new towns are founded; `river` adds the links across one river hex."""
    p = s.players[seat]
    adj = s.adj
    in_towns = p.towns
    for h in p.placed:
        near = adj[h] | river[h] if river is not None else adj[h]
        if near & in_towns:
            in_towns |= 1 << h
    tiles_left = len(s.data.town_tiles) - len(p.tiles_used)
    tiles_left -= sum(1 for d, who in s.pending if d == "town" and who == seat)
    need = p.eff.get("town_value", s.data.town_min_value)
    founded = 0
    loose = p.buildings & ~in_towns
    # most actions leave too few loose buildings, or too little value, for any group of them
    # to be a town: then there is nothing to search
    if (tiles_left <= 0 or count(loose) < s.data.town_min_buildings
            or value(s, p, loose) < need):
        return in_towns, 0
    for group in components(loose, adj, river):
        if founded >= tiles_left:
            break  # no town tile left: no town can be founded
        if count(group) >= s.data.town_min_buildings and value(s, p, group) >= need:
            in_towns |= group
            founded += 1
    return in_towns, founded


def check(s: "TerraNovaState", seat: int) -> None:
    """After seat's action: expand towns by the buildings just placed, then found new towns."""
    p = s.players[seat]
    land = outcome(s, seat, None)
    if p.eff.get("river_towns"):
        river = s.data.map.sail[1]
        loose = p.buildings & ~p.towns
        # no loose building with one of p's buildings across one river hex: the link can't
        # change anything, so the (frequent) check costs nothing more
        if any(river[h] & p.buildings for h in bits(loose)) and outcome(s, seat, river) != land:
            s.pending += (("river", seat),)  # p.placed stays for resolve()
            return
    settle(s, seat, land)


def resolve(s: "TerraNovaState", seat: int, use_river: bool) -> None:
    """The Sea Dogs' answer to a pending ("river", seat): towns with or without river links."""
    settle(s, seat, outcome(s, seat, s.data.map.sail[1] if use_river else None))


def settle(s: "TerraNovaState", seat: int, result: tuple[int, int]) -> None:
    p = s.players[seat]
    p.towns = result[0]
    p.placed = ()
    s.pending += (("town", seat),) * result[1]


def take_tile(s: "TerraNovaState", p: "Player", tile: int) -> None:
    """The reward for a town founded: the chosen tile's bonus, faction and round-tile VP."""
    from terra_sim.games.terra_nova.state import CAT

    t = s.data.town_tiles[tile]
    p.tiles_used = (*p.tiles_used, tile)
    p.score(CAT["town"], t["vp"] + p.eff.get("town_vp", 0))
    p.money += t["coins"]
    s.own_gain(p, t["power"])
    for _ in range(t["sail"]):
        s.advance_sail(p)
    s.round_event(p, "town")
