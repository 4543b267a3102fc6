"""Income, drop-out rewards and final scoring."""

# terra-sim: compile

from typing import TYPE_CHECKING

from terra_sim.core.hexmap import components, count, largest

if TYPE_CHECKING:
    from terra_sim.games.terra_nova.state import Player, TerraNovaState


def mat_income(s: "TerraNovaState", p: "Player") -> tuple[int, int]:
    """(coins, power) from revealed mat slots, palaces and faction: income without the bonus
    tile, which changes every round."""
    f, eff = p.faction, p.eff
    nh, nt = count(p.houses), count(p.tps)
    coins = s.data.base_coins + sum(f.house_coins[:nh]) + sum(f.tp_coins[:nt])
    power = sum(f.house_power[:nh]) + sum(f.tp_power[:nt])
    return coins + eff.get("income_coins", 0), power + eff.get("income_power", 0)


def income(s: "TerraNovaState", p: "Player") -> tuple[int, int]:
    """Phase 1: (coins, power) from the mat and the bonus tile."""
    coins, power = mat_income(s, p)
    if p.bonus:
        tile = s.data.bonus_tiles[p.bonus]
        coins += tile["coins"]
        power += tile["power"]
    return coins, power


def settlements(s: "TerraNovaState", p: "Player") -> list[int]:
    """Groups of p's adjacent buildings (bridges count); a lone building is a settlement too."""
    return components(p.buildings, s.adj)


def dropout_vp(s: "TerraNovaState", p: "Player") -> int:
    """The VP p scores on dropping out now: bonus tile, faction ability and palaces."""
    m, eff = s.data.map, p.eff
    vp = 0
    if p.bonus:
        b = s.data.bonus_tiles[p.bonus]
        vp += (b["dropout_house_vp"] * count(p.houses)
               + b["dropout_tp_vp"] * count(p.tps)
               + b["dropout_palace_vp"] * count(p.palaces)
               + b["dropout_sail_vp"] * p.sail)
    if "dropout_tp_vp" in eff:
        table = eff["dropout_tp_vp"]
        vp += table[min(count(p.tps), len(table) - 1)]
    if "dropout_edge_settlement_vp" in eff:
        vp += eff["dropout_edge_settlement_vp"] * sum(1 for g in settlements(s, p) if g & m.edge)
    if "dropout_inland_vp" in eff:
        vp += eff["dropout_inland_vp"] * count(p.buildings & ~m.river_adjacent)
    return vp


def drop_out(s: "TerraNovaState", seat: int, p: "Player", tile: str) -> None:
    from terra_sim.games.terra_nova.state import CAT

    s.pass_order += (seat,)  # the first to drop out starts the next round
    p.passed = True
    p.score(CAT["dropout"], dropout_vp(s, p))
    if "dropout_settlement_power" in p.eff:
        s.own_gain(p, p.eff["dropout_settlement_power"] * len(settlements(s, p)))
    # The tile is swapped in the last round too: its coins count in the money scoring.
    old = p.bonus
    supply = dict(s.supply)  # replaced, never changed in place: clones share it
    p.money += supply.pop(tile)
    p.bonus = tile
    supply[old] = 0
    s.supply = supply


def network_size(s: "TerraNovaState", p: "Player") -> int:
    """Territory: the biggest group of p's buildings connected by reach (final sailing value)."""
    sail = s.data.map.sail[s.sailing(p, final=True)]
    return largest(components(p.buildings, s.adj, sail))


def split_places(sizes: list[int], points: tuple[int, ...]) -> list[int]:
    """Points by rank; tied players add the points of the places they cover and share them."""
    pts = list(points) + [0] * len(sizes)
    order = sorted(sizes, reverse=True)
    out = []
    for size in sizes:
        first = order.index(size)
        k = order.count(size)
        out.append(sum(pts[first:first + k]) // k)
    return out


def final_scoring(s: "TerraNovaState") -> None:
    """Money scoring (bowl III to coins, 1 VP per 3 coins), then territory scoring."""
    from terra_sim.games.terra_nova.state import CAT

    for p in s.players:
        p.money += p.p3
        p.p1, p.p3 = p.p1 + p.p3, 0
        p.score(CAT["money"], p.money // s.data.coins_per_vp)
    sizes = [network_size(s, p) for p in s.players]
    for p, pts in zip(s.players, split_places(sizes, s.data.territory_points), strict=True):
        p.score(CAT["territory"], pts)

