"""Towns: 4+ connected buildings (bridges count) worth at least 7 (6 with the right palace).

Each building belongs to at most one town. A building placed next to one of your towns joins it
(the town expands); founding looks only at buildings outside towns, so a new town never swallows
an old one, and joining two towns costs nothing.
"""

# terra-sim: compile

from typing import TYPE_CHECKING

from terra_sim.core.hexmap import components

if TYPE_CHECKING:
    from terra_sim.games.terra_nova.state import Player, TerraNovaState


def town_adjacency(s: "TerraNovaState", p: "Player") -> list[int]:
    """Adjacency for p's towns: neighbours and bridges, plus one river hex for river_towns."""
    if p.eff.get("river_towns"):
        return [a | r for a, r in zip(s.adj, s.data.map.sail[1], strict=True)]
    return s.adj


def value(s: "TerraNovaState", p: "Player", mask: int) -> int:
    bv = s.data.building_value
    return (bv["house"] * (mask & p.houses).bit_count() + bv["tp"] * (mask & p.tps).bit_count()
            + bv["palace"] * (mask & p.palaces).bit_count())


def check(s: "TerraNovaState", seat: int) -> None:
    """After seat's action: expand towns by the buildings just placed, then found new towns."""
    p = s.players[seat]
    adj = town_adjacency(s, p)
    for h in p.placed:
        if adj[h] & p.towns:
            p.towns |= 1 << h
    p.placed = []
    tiles_left = len(s.data.town_tiles) - len(p.tiles_used)
    tiles_left -= sum(1 for d, who in s.pending if d == "town" and who == seat)
    need = p.eff.get("town_value", s.data.town_min_value)
    for group in components(p.buildings & ~p.towns, adj):
        if tiles_left <= 0:
            break  # no town tile left: no town can be founded
        if group.bit_count() >= s.data.town_min_buildings and value(s, p, group) >= need:
            p.towns |= group
            s.pending.append(("town", seat))
            tiles_left -= 1


def take_tile(s: "TerraNovaState", p: "Player", tile: int) -> None:
    """The reward for a town founded: the chosen tile's bonus, faction and round-tile VP."""
    from terra_sim.games.terra_nova.state import CAT

    t = s.data.town_tiles[tile]
    p.tiles_used = (*p.tiles_used, tile)
    p.vp[CAT["town"]] += t["vp"] + p.eff.get("town_vp", 0)
    p.money += t["coins"]
    p.gain(t["power"])
    for _ in range(t["sail"]):
        s.advance_sail(p)
    s.round_event(p, "town")
