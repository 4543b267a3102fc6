"""Final scoring: the largest network, the cult tracks and leftover resources."""

# terra-sim: compile

from typing import TYPE_CHECKING

from terra_sim.core.hexmap import components, largest
from terra_sim.games.terra_mystica.player import Player

if TYPE_CHECKING:
    from terra_sim.games.terra_mystica.state import TerraMysticaState


def split_places(values: list[int], points: list[int]) -> list[int]:
    """Points by rank (a value of 0 scores nothing); tied players share the points of the
    places they cover, rounded down."""
    pts = list(points) + [0] * len(values)
    order = sorted(values, reverse=True)
    out = []
    for v in values:
        if v <= 0:
            out.append(0)
            continue
        first = order.index(v)
        k = order.count(v)
        out.append(sum(pts[first:first + k]) // k)
    return out


def place_points(value: int, others: list[int], points: list[int]) -> int:
    """split_places for one player: the points `value` takes against `others`."""
    if value <= 0:
        return 0
    above = tied = 0
    for v in others:
        if v > value:
            above += 1
        elif v == value:
            tied += 1
    return sum(points[above:above + tied + 1]) // (tied + 1)


def network_size(s: "TerraMysticaState", p: Player) -> int:
    """Buildings in p's largest group: adjacent (bridges count) or within permanent shipping
    range (the shipping bonus tile does not count), or tunnel / carpet range."""
    k = s.jump_range(p)
    extra = s.data.within[k + 1] if k else s.data.map.sail[s.ship_range(p, bonus=False)]
    return largest(components(p.buildings, s.adj, extra))


def resource_vp(p: Player, coins_per_vp: int) -> int:
    """Everything left turns into coins (bowl III, half of bowl II burnt, priests, workers)."""
    coins = p.coins + p.p3 + p.p2 // 2 + p.priests + p.workers
    return coins // coins_per_vp


def final_scoring(s: "TerraMysticaState") -> None:
    rules = s.data.rules
    sizes = [network_size(s, p) for p in s.players]
    for p, pts in zip(s.players, split_places(sizes, rules["network_vp"]), strict=True):
        p.add_vp("network", pts)
    for i in range(len(s.data.cults)):
        pos = [p.cults[i] for p in s.players]
        for p, pts in zip(s.players, split_places(pos, rules["cult_vp"]), strict=True):
            p.add_vp("cults", pts)
    for p in s.players:
        p.add_vp("resources", resource_vp(p, p.eff.get("coins_per_vp", rules["coins_per_vp"])))
