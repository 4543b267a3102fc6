"""End-of-game scoring and the text's tie-breaks."""

# terra-sim: compile

from typing import TYPE_CHECKING

from terra_sim.games.terramara.data import Outpost
from terra_sim.games.terramara.effects import power_level
from terra_sim.games.terramara.player import Player

if TYPE_CHECKING:
    from terra_sim.games.terramara.state import TerramaraState


def rank_points(values: list[int], points: tuple[int, ...]) -> list[int]:
    """The Military majority: tied players all score their place's points and the places
    they fill score nothing (the text's two examples). A player's place is 1 + the number of
    players strictly ahead."""
    out = []
    for v in values:
        place = sum(1 for w in values if w > v)
        out.append(points[place] if place < len(points) else 0)
    return out


def outpost_value(s: "TerramaraState", p: Player, o: Outpost) -> int:
    if o.require == "military":
        return p.military
    if o.require == "river":
        return p.river
    if o.require == "artifacts":
        return len(p.artifacts)
    if o.require == "workers":
        return sum(p.workers)
    if o.require == "refined":
        return sum(p.ref)
    if o.require == "flags":
        return len(p.flags)
    return sum(1 for i in p.artifacts
               if s.data.artifacts[s.data.artifact_ids[i]].category == o.category)


def outpost_vp(s: "TerramaraState", p: Player, o: Outpost) -> int:
    """The hardest level met: 2, 5 or 10 VP; nothing if not even the easy one."""
    v = outpost_value(s, p, o)
    won = [vp for at, vp in zip(o.at, s.data.rules["outpost_vp"], strict=True) if v >= at]
    return won[-1] if won else 0


def artifact_vp(s: "TerramaraState", p: Player) -> int:
    total = 0
    data = s.data
    level = power_level(s, p.military)
    for i in p.artifacts:
        a = data.artifacts[data.artifact_ids[i]]
        total += a.vp
        e = a.end
        if e:
            total += e.get("per_artifact", 0) * len(p.artifacts)
            total += e.get("per_category", 0) * sum(
                1 for j in p.artifacts if data.artifacts[data.artifact_ids[j]].category
                == a.category)
            total += e.get("per_flag", 0) * len(p.flags)
            total += e.get("per_power_level", 0) * level
            total += e.get("per_worker_level", 0) * sum(p.workers)
    return total


def final_scoring(s: "TerramaraState") -> None:
    rules = s.data.rules
    mil = rank_points([p.military for p in s.players], rules["military_vp"])
    for p, m in zip(s.players, mil, strict=True):
        p.add_vp("military", m)
        p.add_vp("artifacts", artifact_vp(s, p))
        for o in p.flags:
            p.add_vp("outposts", outpost_vp(s, p, s.data.outposts[o]))
        if p.outpost_tile and p.eff("personal_outpost"):
            p.add_vp("outposts", outpost_vp(s, p, s.data.outposts[
                s.data.tiles[p.outpost_tile].outpost]))
        p.add_vp("river", rules["river_vp"][p.river])
        p.add_vp("resources", sum(p.ref) // rules["refined_per_vp"])
        if p.reserved >= 0:
            p.add_vp("reserved", -rules["reserve_penalty"])


def winners(players: list[Player]) -> list[int]:
    """Most VP; then farthest on the River; then highest Military; then a shared victory."""
    def key(p: Player) -> tuple[int, int, int]:
        return (p.total_vp, p.river, p.military)

    best = max(key(p) for p in players)
    return [p.seat for p in players if key(p) == best]
