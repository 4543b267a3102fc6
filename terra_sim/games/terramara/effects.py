"""Gains and the three tracks: resources, Military, Culture (the River), Travel (the Road).

A gain that needs a choice (a resource of choice, refining, Travel steps) becomes a decision of
the gaining player, queued by `state.push`; everything else applies at once. Character bonuses
never apply to the starting resources card (the text), hence `char`.
"""

# terra-sim: compile

from typing import TYPE_CHECKING, Final

from terra_sim.games.terramara.data import RAW, REFINED
from terra_sim.games.terramara.player import PERM, Player
from terra_sim.games.terramara.road import CAMP

if TYPE_CHECKING:
    from terra_sim.games.terramara.state import TerramaraState

RAW_INDEX: Final = {r: i for i, r in enumerate(RAW)}
REFINED_INDEX: Final = {r: i for i, r in enumerate(REFINED)}
# Choices are queued in this order, after the gains that need none.
CHOICES: Final[tuple[str, ...]] = ("raw_any", "refined_any", "refine")


def power_level(s: "TerramaraState", military: int) -> int:
    return sum(1 for t in s.data.rules["power_levels"] if military >= t)


def gain(s: "TerramaraState", seat: int, effects: dict[str, int], char: bool = True) -> None:
    p = s.players[seat]
    travel = 0
    for key, v in effects.items():
        if key in RAW_INDEX:
            p.raw[RAW_INDEX[key]] += v
        elif key in REFINED_INDEX:
            p.ref[REFINED_INDEX[key]] += v
        elif key == "military":
            add_military(s, p, v)
        elif key == "culture":
            add_culture(s, p, v, char)
        elif key == "vp":
            p.add_vp("play", v)
        elif key == "worker":
            take_worker(s, p, v)
        elif key == "travel":
            travel = v
    for key in CHOICES:
        v = effects.get(key, 0)
        if v:
            s.push(("take_raw" if key == "raw_any" else "take_ref" if key == "refined_any"
                    else "refine", seat, v, 0))
    if travel:
        add_travel(s, p, travel, char)


def take_worker(s: "TerramaraState", p: Player, level: int) -> None:
    """A Worker tile from the supply; none when that level's tiles are all taken."""
    if s.worker_supply[level - 1] > 0:
        s.worker_supply[level - 1] -= 1
        p.workers.append(level)


def add_military(s: "TerramaraState", p: Player, v: int) -> None:
    if v <= 0:
        return
    v += p.perm[PERM["military_plus"]]
    top = s.data.rules["military_max"]
    new = p.military + v
    if new > top:  # the text: 1 VP for each Military beyond the track's end
        p.add_vp("military", new - top)
        new = top
    p.military = new


def lose_military(p: Player) -> None:
    if not p.eff("keep_military"):
        p.military = max(0, p.military - 1)


def add_culture(s: "TerramaraState", p: Player, v: int, char: bool = True) -> None:
    if v <= 0:
        return
    v += p.perm[PERM["culture_plus"]]
    if char:
        v += p.eff("culture_plus")
        p.add_vp("play", p.eff("culture_vp"))
    move_canoe(s, p, v)


def move_canoe(s: "TerramaraState", p: Player, steps: int) -> None:
    rules = s.data.rules
    end = rules["river_end"]
    for _ in range(steps):
        if p.river >= end:  # the text: VP for every Culture beyond the River's end
            p.add_vp("river", 1)
            continue
        p.river += 1
        k = p.river
        if k == rules["explorer_at"] and p.explorers < rules["max_explorers"]:
            p.explorers += 1
            p.avail += 1
        for tile in s.board.river_bonus.get(k, ()):
            gain(s, p.seat, s.data.bonus[tile].effects)


def add_travel(s: "TerramaraState", p: Player, v: int, char: bool = True) -> None:
    if v <= 0:
        return
    v += p.perm[PERM["travel_plus"]] + (p.eff("travel_plus") if char else 0)
    s.push(("travel", p.seat, v, 0))


def arrive(s: "TerramaraState", p: Player, pos: int) -> None:
    """What a Caravan finds where one Travel step took it."""
    if pos == CAMP:
        table = s.data.rules["road_arrival_vp"]
        p.add_vp("road", table[s.arrivals] if s.arrivals < len(table) else 0)
        s.arrivals += 1
        return
    k = pos // 3 + (pos % 3 != 0)
    if pos % 3 == 0:
        p.add_vp("play", p.eff("crossroads_vp"))
    elif pos % 3 == 1:
        gain(s, p.seat, s.data.bonus[s.board.road_bonus[k - 1]].effects)
    else:
        outpost = s.board.outposts[k - 1]
        if outpost not in p.flags and len(p.flags) < s.data.rules["flags"]:
            p.flags.append(outpost)
            p.add_vp("play", p.eff("flag_vp"))


def raid(s: "TerramaraState", seat: int) -> None:
    """The raider loses 1 Military, then each other player hands over 1 resource per
    `divisor` held, the divisor 5 moved by the difference of Power Levels (victim's minus
    raider's): 4, 3, 2 for weaker victims, 6, 7, 8 for stronger ones. Victims choose."""
    rules = s.data.rules
    p = s.players[seat]
    lose_military(p)
    mine = power_level(s, p.military)
    n = len(s.players)
    for k in range(1, n):
        q = s.players[(seat + k) % n]
        d = power_level(s, q.military) - mine
        div = min(max(rules["raid_divisor"] + d, rules["raid_divisor_min"]),
                  rules["raid_divisor_max"])
        owed = q.resources // div
        if owed:
            s.push(("give", q.seat, owed, seat))
