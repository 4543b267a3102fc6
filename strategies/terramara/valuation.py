"""Terramara knowledge shared by the scripted bots: what resources, tracks, Workers, Explorers,
Artifacts, Flags and the Character's sides are worth to one player, in VP equivalents.

Everything here reads a TerramaraState and never changes it, and everything is read from the
data set's effect vocabulary (data.GAINS, PERMANENT, END, CHARACTER), never from a card's name:
a real card set replaces the stand-in one. A bot's `weights` (DEFAULT_WEIGHTS) scale the terms,
which is how the plans differ. Worth that only pays in play (resources, track steps, Workers)
fades towards what final scoring pays for it as the game ends.
"""

# terra-sim: compile

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from terra_sim.games.terramara.artifacts import payment
from terra_sim.games.terramara.board import SPECIAL, TERRITORY, round_of_row
from terra_sim.games.terramara.data import Artifact
from terra_sim.games.terramara.effects import power_level
from terra_sim.games.terramara.player import CAT, PERM, Player
from terra_sim.games.terramara.road import CAMP
from terra_sim.games.terramara.scoring import artifact_vp, outpost_vp, rank_points
from terra_sim.games.terramara.state import TerramaraState

DEFAULT_WEIGHTS: Final[dict[str, float]] = {
    "refined": 1.1,  # a refined resource with the whole game ahead (falls to final scoring's)
    "raw": 0.65,
    "artifact_progress": 0.35,  # how close the best reachable Artifact is to affordable
    "worker": 0.45,  # a Worker level, per round still to refine in
    "member": 2.2,  # an Explorer's action in a round to come
    "military": 0.35,  # a Military step beyond what it does for the majority and Power Level
    "majority": 0.8,  # the share of the Military majority VP counted at the current ranks
    "power": 0.8,  # a Power Level: raids cost less and pay more, raided players give less
    "culture": 0.45,  # a River step beyond its final VP: Artifacts in reach, tiles, Explorer
    "road": 1.0,  # scales the Caravans' share of the camp arrival VP
    "road_rush": 1.5,  # > 1: progress is worth more the further a Caravan is (one arrives first)
    "crossroads": 0.9,  # a Crossroads action space opened, per round it can still be used
    "flag": 1.2,  # a Flag beyond what its Outpost scores now: it may score more by the end
    "side": 1.0,  # scales the Character side's worth per round
    "artifact_round": 1.0,  # scales the once-a-round and permanent Artifact effects to come
    "first": 1.2,  # playing first next round
    "reserve_risk": 1.0,  # scales the -5 VP feared for a reserved Artifact left uncreated
    "save_chief": 0.3,  # prefilter: the Chieftain on an empty space forgoes a free join later
    "craft_margin": 0.2,  # an Artifact must add this much to be created or reserved
    "flip_margin": 0.3,  # the experienced side must beat the young one by this much
}

# Per-round worth of one unit of a Character effect (VP equivalents); the keys are the data's
# CHARACTER vocabulary. Effects that are counted elsewhere in the valuation (the extra Explorer
# in the Explorers, the bonus tiles held, the personal Outpost with the Flags) are absent here.
SIDE_WORTH: Final[dict[str, float]] = {
    "travel_plus": 1.3, "culture_plus": 1.4, "keep_military": 0.6, "raw_substitute": 0.5,
    "personal_crossroads": 2.0, "crossroads_vp": 1.1, "culture_vp": 1.3, "power_vp_round": 1.0,
    "craft_vp_low": 0.7, "craft_vp_high": 0.25, "chieftain_join_vp": 0.3,
    "chieftain_empty_vp": 0.8, "flag_vp": 0.5, "crossroads_space_vp": 0.5,
}
# Effects that feed the engine rather than score: they are worth less the later they come.
ENGINE_EFFECTS: Final = frozenset({"travel_plus", "culture_plus", "keep_military", "raw_substitute",
                            "personal_crossroads"})
# Per-round worth of a permanent Artifact effect unit (data.PERMANENT's vocabulary).
PERM_WORTH: Final[dict[str, float]] = {
    "travel_plus": 1.2, "culture_plus": 1.3, "military_plus": 0.9, "craft_vp": 0.8,
    "raw_substitute": 0.5}
# Worth of an end-game Artifact effect unit beyond what it scores now: how much the counted
# thing may still grow (data.END's vocabulary), per round left.
END_GROWTH: Final[dict[str, float]] = {"per_artifact": 0.8, "per_category": 0.3, "per_flag": 0.3,
                                "per_power_level": 0.15, "per_worker_level": 0.5}


@dataclass
class Context:
    """What one decision's valuations share: the weights, how far the game is, the prices."""

    w: dict[str, float]
    t: float  # 0 at the start of the game, near 1 in its last turns
    rounds_after: int  # full rounds after the current one
    refined: float  # a refined resource now
    raw: float

    @staticmethod
    def of(s: TerramaraState, w: dict[str, float]) -> Context:
        rounds = s.data.rules["rounds"]
        r = max(s.round, 1)
        t = min(1.0, (r - 1 + 0.5) / rounds)
        fin = 1.0 / s.data.rules["refined_per_vp"]
        return Context(w, t, rounds - r, fin + (w["refined"] - fin) * (1 - t) ** 0.7,
                       0.15 + (w["raw"] - 0.15) * (1 - t) ** 0.7)


def gains_worth(s: TerramaraState, p: Player, eff: dict[str, int], ctx: Context) -> float:
    """A cheap estimate of a gain's worth to `p` (the prefilter's and the small choices'): the
    valuation's prices for what the gain adds, without playing it."""
    w = ctx.w
    v = 0.0
    for key, n in eff.items():
        if key in ("livestock", "stone", "wood", "ore"):
            v += n * ctx.raw
        elif key in ("leather", "ashlar", "lumber", "metal"):
            v += n * ctx.refined
        elif key == "raw_any":
            v += n * (ctx.raw + 0.1)
        elif key == "refined_any":
            v += n * (ctx.refined + 0.1)
        elif key == "refine":
            v += min(n, sum(p.raw) + eff.get("raw_any", 0)) * (ctx.refined - ctx.raw)
        elif key == "military":
            v += n * (w["military"] + 0.25 * w["majority"] + 0.2 * w["power"])
        elif key == "culture":
            k = n + p.perm[PERM["culture_plus"]] + p.eff("culture_plus")
            v += k * (w["culture"] * (1 - ctx.t) + river_step_vp(s, p)) + p.eff("culture_vp")
        elif key == "travel":
            k = n + p.perm[PERM["travel_plus"]] + p.eff("travel_plus")
            v += k * road_step_worth(s, p, ctx)
        elif key == "vp":
            v += n
        elif key == "worker":
            v += n * w["worker"] * (ctx.rounds_after + 0.5)
    return v


def river_step_vp(s: TerramaraState, p: Player) -> float:
    """The final River VP one more step adds (1 VP a step past the end)."""
    table = s.data.rules["river_vp"]
    return float(table[p.river + 1] - table[p.river]) if p.river + 1 < len(table) else 1.0


def progress(pos: int) -> int:
    """Crossroads passed on the way to the camp: a detour node makes no progress of its own."""
    return 7 if pos == CAMP else pos // 3


def arrival_vp(s: TerramaraState) -> float:
    table = s.data.rules["road_arrival_vp"]
    return float(table[s.arrivals]) if s.arrivals < len(table) else 0.0


def road_step_worth(s: TerramaraState, p: Player, ctx: Context) -> float:
    """One Travel step's worth: the share of the camp VP it brings a Caravan closer, at most."""
    return ctx.w["road"] * max(arrival_vp(s), 2.0) / 7 * (1 - 0.5 * ctx.t) \
        + p.eff("crossroads_vp") * 0.6


def road_value(s: TerramaraState, p: Player, ctx: Context,
               caravans: list[int] | None = None) -> float:
    """The Caravans' progress towards the camp VP, counted as far as the camp is still within
    reach in the rounds left (about three Travel a round for a player who travels), and the
    Crossroads action spaces they open; `caravans` stands in for p's positions (a step tried)."""
    w = ctx.w
    caravans = p.caravans if caravans is None else caravans
    prize = max(arrival_vp(s), 1.0)
    total = 0.0
    rounds_left = ctx.rounds_after + 1
    for pos in caravans:
        if pos == CAMP:
            continue
        done = progress(pos)
        if not done:  # nothing yet, whatever the curve (a tuner may try one bending down)
            continue
        reach = min(1.0, 3.0 * rounds_left / max(1, 7 - done))
        # Convex in progress: one Caravan ahead takes the first arrival's VP.
        total += prize * (done / 7) ** w["road_rush"] * reach
    opened = min(progress(c) for c in caravans)
    rounds = s.data.rules["rounds"]
    # A Crossroads space of row k opens from round k + 1 for both Caravans past Crossroads k.
    usable = sum(max(0, rounds - max(s.round, row + 1) + 1)
                 for row in range(1, min(opened, 4) + 1))
    return w["road"] * total + w["crossroads"] * usable / 2


def artifact_worth(s: TerramaraState, p: Player, a: Artifact, ctx: Context) -> float:
    """What creating Artifact `a` would bring `p`, besides the resources it costs."""
    w = ctx.w
    v = float(a.vp) + gains_worth(s, p, a.instant, ctx)
    if a.round:
        v += w["artifact_round"] * gains_worth(s, p, a.round, ctx) * (ctx.rounds_after + 0.5)
    for key, n in a.permanent.items():
        v += w["artifact_round"] * n * PERM_WORTH.get(key, 0.5) * (ctx.rounds_after + 0.5)
    for key, n in a.end.items():
        v += n * (end_count(s, p, a, key) + END_GROWTH.get(key, 0.3) * ctx.rounds_after)
    v += p.perm[PERM["craft_vp"]]
    v += p.eff("craft_vp_high") if a.level == 3 else p.eff("craft_vp_low")
    return v


def end_count(s: TerramaraState, p: Player, a: Artifact, key: str) -> int:
    """What an end-game effect of `a` would count for `p` now (with `a` created)."""
    if key == "per_artifact":
        return len(p.artifacts) + 1
    if key == "per_category":
        ids, arts = s.data.artifact_ids, s.data.artifacts
        return 1 + sum(1 for i in p.artifacts if arts[ids[i]].category == a.category)
    if key == "per_flag":
        return len(p.flags)
    if key == "per_power_level":
        return power_level(s, p.military)
    if key == "per_worker_level":
        return sum(p.workers)
    return 0


def coverage(p: Player, cost: tuple[int, ...]) -> float:
    """How much of a cost `p` holds: refined resources fully, raw ones half (they need a
    Worker first)."""
    need = sum(cost)
    if not need:
        return 1.0
    have = sum(min(c, p.ref[t] + 0.5 * p.raw[t]) for t, c in enumerate(cost))
    return have / need


def needs(s: TerramaraState, p: Player) -> list[float]:
    """How much `p` wants one more refined resource of each type: the shortfalls of the
    Artifacts in reach (and the reserved one), weighted by what they are worth."""
    ids, arts = s.data.artifact_ids, s.data.artifacts
    access = s.data.rules["river_access"]
    # One space of River ahead: the next card in reach is worth preparing for.
    reach = s.display[:access[min(p.river + 1, len(access) - 1)]]
    if p.reserved >= 0:
        reach = [*reach, p.reserved]
    out = [0.0] * 4
    for i in reach:
        a = arts[ids[i]]
        weight = (a.vp + 1.0) / max(1, sum(a.cost))
        for t, c in enumerate(a.cost):
            short = c - p.ref[t]
            if short > 0:
                out[t] += weight * min(short, 2)
    return out


def members_value(s: TerramaraState, p: Player, ctx: Context) -> float:
    """The Explorers' actions in the rounds to come: an Explorer left on a future round's space
    misses every round until its own ends."""
    rounds = s.data.rules["rounds"]
    locked = [0] * (rounds + 2)
    code = 2 * p.seat  # the player's Explorer (placement.EXPLORER = 0)
    for i, sp in enumerate(s.board.spaces):
        if sp.kind in (TERRITORY, SPECIAL) and (s.occ[2 * i] == code or s.occ[2 * i + 1] == code):
            last = round_of_row(sp.row)
            for r in range(s.round + 1, min(last, rounds) + 1):
                locked[r] += 1
    total = sum(p.explorers - locked[r] for r in range(s.round + 1, rounds + 1))
    return ctx.w["member"] * (total + 0.8 * p.avail)


def side_value(s: TerramaraState, p: Player, ctx: Context) -> float:
    """The Character side in force, for the rounds it still works in (the current one counts
    fully before the player's first member, when the side may still flip)."""
    rounds = ctx.rounds_after + (1.0 if p.placed == 0 else 0.5)
    v = 0.0
    for key, n in p.side.items():
        per = SIDE_WORTH.get(key, 0.0)
        if key == "power_vp_round":
            per = float(power_level(s, p.military))
        if key in ENGINE_EFFECTS:
            per *= 1 - ctx.t
        v += per * n
    v *= ctx.w["side"] * rounds
    if p.bonus_tiles and p.eff("bonus_supply"):
        v += 0.9 * sum(gains_worth(s, p, s.data.bonus[b].effects, ctx) for b in p.bonus_tiles)
    return v


def artifacts_value(s: TerramaraState, p: Player, ctx: Context) -> float:
    """Artifacts held: their final VP as things stand, what their end effects may still grow
    by, and their once-a-round and permanent effects in the rounds to come."""
    w = ctx.w
    ids, arts = s.data.artifact_ids, s.data.artifacts
    v = float(artifact_vp(s, p))
    for i in p.artifacts:
        a = arts[ids[i]]
        if a.round:
            left = ctx.rounds_after + (0 if p.art_used >> i & 1 else 1)
            v += w["artifact_round"] * gains_worth(s, p, a.round, ctx) * left
        for key, n in a.end.items():
            v += n * END_GROWTH.get(key, 0.3) * ctx.rounds_after
    for key, k in PERM.items():
        if p.perm[k]:
            v += w["artifact_round"] * p.perm[k] * PERM_WORTH.get(key, 0.5) * (
                ctx.rounds_after + 0.5)
    if p.reserved >= 0:
        v += reserved_value(s, p, ctx)
    best = 0.0
    for i in s.display[:s.data.rules["river_access"][min(p.river, 11)]]:
        a = arts[ids[i]]
        best = max(best, coverage(p, a.cost) * (a.vp + 1.0))
    return v + w["artifact_progress"] * best


def reserved_value(s: TerramaraState, p: Player, ctx: Context) -> float:
    """A reserved Artifact: its -5 VP, unless it is created in time. The chance of that falls
    with the refined resources still missing and the turns left to gather them (a turn brings
    about one); with no turn left it is gone (a turn creates one Artifact at most)."""
    i = p.reserved
    a = s.data.artifacts[s.data.artifact_ids[i]]
    penalty = ctx.w["reserve_risk"] * s.data.rules["reserve_penalty"]
    turns = p.members + ctx.rounds_after * (p.explorers + 1)
    if not turns:
        return -penalty
    if payment(s, p, i, True) is not None:
        short = 0
    else:
        short = sum(max(0, c - r) for c, r in zip(a.cost, p.ref, strict=True))
        if p.river >= s.data.rules["reserve_discount_at"]:
            short -= 1
    chance = max(0.0, 1.0 - short / (0.9 * turns))
    return chance * (artifact_worth(s, p, a, ctx) + penalty) - penalty


def flags_value(s: TerramaraState, p: Player, ctx: Context) -> float:
    """The Outposts flagged (and a personal one): what they score now, plus a little for what
    they may score by the end."""
    outposts = s.data.outposts
    v = 0.0
    for o in p.flags:
        v += outpost_vp(s, p, outposts[o]) + ctx.w["flag"] * (1 - ctx.t)
    if p.outpost_tile and p.eff("personal_outpost"):
        o = s.data.tiles[p.outpost_tile].outpost
        v += outpost_vp(s, p, outposts[o]) + ctx.w["flag"] * (1 - ctx.t)
    return v


def military_value(s: TerramaraState, p: Player, ctx: Context) -> float:
    w = ctx.w
    n = len(s.players)
    mil = [q.military for q in s.players]
    share = rank_points(mil, s.data.rules["military_vp"])[p.seat] if n > 1 else 0
    return (w["majority"] * share * (0.35 + 0.65 * ctx.t) + w["military"] * p.military
            * (1 - 0.6 * ctx.t) + w["power"] * power_level(s, p.military) * (1 - 0.5 * ctx.t))


def river_value(s: TerramaraState, p: Player, ctx: Context) -> float:
    return float(s.data.rules["river_vp"][p.river]) + ctx.w["culture"] * p.river * (1 - ctx.t)


def resources_value(s: TerramaraState, p: Player, ctx: Context) -> float:
    return sum(p.ref) * ctx.refined + sum(p.raw) * ctx.raw


def workers_value(s: TerramaraState, p: Player, ctx: Context) -> float:
    unused = sum(lv for k, lv in enumerate(p.workers) if not p.used_workers >> k & 1)
    return ctx.w["worker"] * (sum(p.workers) * ctx.rounds_after + 0.5 * unused)


def valuation(s: TerramaraState, seat: int, ctx: Context) -> float:
    """What the state is worth to `seat`: VP so far plus every other holding's VP equivalent."""
    p = s.players[seat]
    # VP earned, not the score: a starting-VP handicap then changes no float and so no choice
    # (the same number at another magnitude rounds differently, and can break a tie otherwise).
    earned = float(p.total_vp - p.vp[CAT["start"]])
    if s.stage == "over":
        return earned
    v = earned
    v += resources_value(s, p, ctx) + workers_value(s, p, ctx) + members_value(s, p, ctx)
    v += military_value(s, p, ctx) + river_value(s, p, ctx) + road_value(s, p, ctx)
    v += flags_value(s, p, ctx) + artifacts_value(s, p, ctx) + side_value(s, p, ctx)
    if s.next_first == seat:
        v += ctx.w["first"] * min(1, ctx.rounds_after)
    return v
