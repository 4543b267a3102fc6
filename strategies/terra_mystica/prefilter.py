"""Greedy's prefilter: a cheap estimate of every candidate main action's worth, so that only the
few best (and the best of each family) get the look-ahead. A plan's liking for an action comes
in as the `bias` callable.
"""

# terra-sim: compile

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from strategies.terra_mystica.funding import action_cost
from strategies.terra_mystica.valuation import (
    Prices,
    ability_worth,
    best_track,
    cult_step_value,
    rounds_left,
    spade_value,
    town_worth,
)
from terra_sim.core.hexmap import bits, count
from terra_sim.games.terra_mystica.actions import Action
from terra_sim.games.terra_mystica.player import Player
from terra_sim.games.terra_mystica.state import TerraMysticaState

Bias = Callable[[TerraMysticaState, Player, Action], float]

# Families a candidate list keeps one representative of, so one crowded family (thirty builds)
# cannot push every other idea out before the look-ahead.
FAMILY: Final = {"build": "build", "transform": "transform", "send": "send", "advance": "advance"}


def family(a: Action) -> str:
    if a.kind == "upgrade":
        return "upgrade-" + a.args[1]
    if a.kind == "action":
        return "action-" + a.args[0]
    return FAMILY.get(a.kind, a.kind)


def event_of(a: Action) -> str:
    """The round-tile event an action scores (spades are counted apart)."""
    if a.kind == "build":
        return "D"
    if a.kind == "upgrade":
        return "SHSA" if a.args[1] in ("SH", "SA") else a.args[1]
    return ""


def hex_score(s: TerraMysticaState, p: Player, h: int, w: dict[str, float]) -> float:
    """Where a dwelling is worth building: next to own buildings (towns, network), next to
    opponents (leech, cheap trading houses), with free home terrain around it (growth)."""
    adj = s.adj[h]
    own = count(adj & p.buildings)
    others = count(adj & s.occupied & ~p.buildings)
    free = adj & s.data.map.land & ~s.occupied
    home = p.faction.home
    homes = sum(1 for x in bits(free) if s.terrain[x] == home)
    sc = w["cluster"] * min(own, 2) + 0.35 * min(others, 2) + 0.3 * min(homes, 3)
    sc += w["opponent_adjacent"] * 3 * min(others, 1)
    if not own:
        sc += w["spread"]
    if s.data.map.river >> h & 1 == 0 and adj & s.data.map.river and p.faction.ship_max:
        sc += 0.1
    return sc


def quick(s: TerraMysticaState, p: Player, a: Action, funding: list[Action],
          w: dict[str, float], pr: Prices, bias: Bias, scale: float, reach: int = -1) -> float:
    """A cheap estimate of an action's worth, used only to prune before the look-ahead
    (`reach`: s.direct_reach(p), as action_cost takes it)."""
    kind, args = a
    cost = action_cost(s, p, a, reach)
    sc = -(cost.coins * pr.coin + cost.workers * pr.worker + cost.priests * pr.priest
           + cost.power * pr.power3)
    sc -= 0.15 * len(funding)  # conversions lose value (priced roughly)
    later = rounds_left(s)
    tile = s.scoring_tile()
    ev = tile["event"] if tile else ""
    evp = tile["vp"] * w["round_now"] if tile else 0.0
    if kind in ("build", "transform"):
        h = args[0]
        need = s.spades_needed(p, s.terrain[h], p.faction.home if len(args) < 2
                               else s.data.wheel.index(args[1]))
        if ev == "spade":
            sc += need * evp
        sc += need * (p.eff.get("spade_vp", 0) + p.eff.get("spade_power", 0) * pr.power2)
        if kind == "build":
            n = count(p.b["D"])
            inc = p.faction.income["D"]
            sc += (inc["W"][min(n + 1, 8)] - inc["W"][n]) * pr.worker * later * w["income"]
            sc += w["building"] + hex_score(s, p, h, w) + (evp if ev == "D" else 0.0)
            sc += 2 * sum(1 for t in p.favors if s.data.tiles.favor[t]["build_vp"].get("D"))
        else:
            sc += 0.4 * hex_score(s, p, h, w) - 0.3
    elif kind == "upgrade":
        h, new = args
        sc += (evp if ev == event_of(a) else 0.0) + 1.5 * w["building"] * 0.5
        if new == "TP":
            sc += later * w["income"] * (2 * pr.coin + 0.2 - pr.worker) + 1.0
            sc += 3 * sum(1 for t in p.favors if s.data.tiles.favor[t]["build_vp"].get("TP"))
        elif new == "TE":
            sc += later * w["income"] * pr.priest + 3.5
        elif new == "SH":
            sc += 2.0 + later * w["ability"] * ability_worth(p)
            sc += 0.2 * p.faction.stronghold.get("vp", 0) * 5
        else:
            sc += later * w["income"] * pr.priest + 4.0
        if p.town_mask >> h & 1 == 0:
            sc += 0.15 * town_worth(s, p) * w["town"]
    elif kind == "send":
        track = s.data.cults.index(args[0])
        sc += cult_step_value(s, p, track, args[1], w, pr) + w["priest_send"]
    elif kind == "advance":
        sc += (4.0 if args[0] == "ship" else 6.0) + w["advance"]
        if args[0] == "dig":
            sc += later * 0.8 * pr.worker
        else:
            sc += 1.5 * w["reach"] * 10
    elif kind == "action":
        act = args[0]
        pa = s.data.tiles.power_actions.get(act)
        if pa is not None:
            _, effect, amount = pa
            sc += w["power_action"]
            if effect == "coins":
                sc += amount * pr.coin
            elif effect == "workers":
                sc += amount * pr.worker
            elif effect == "priests":
                sc += amount * pr.priest
            elif effect == "spades":
                sc += amount * (spade_value(s, p, pr) + (evp if ev == "spade" else 0.0)) + 0.5
            else:
                sc += 1.0
        elif act in ("BON2", "ACTA") or act.startswith("FAV"):
            steps = p.eff.get("cult_action", 2) if act == "ACTA" else 1
            sc += cult_step_value(s, p, best_track(s, p, w, pr, steps), steps, w, pr)
        else:
            sc += 2.5
    return sc + scale * bias(s, p, a)


def prune(s: TerraMysticaState, p: Player, cands: dict[Action, list], w: dict[str, float],
          top_k: int, bias: Bias, scale: float) -> list[Action]:
    """The `top_k` candidates by the quick estimate, plus the best of each other family."""
    pr = Prices.of(s, p, w)
    reach = s.direct_reach(p)
    scored = sorted(((quick(s, p, a, f, w, pr, bias, scale, reach), i, a) for i, (a, f)
                     in enumerate(cands.items()) if a.kind != "pass"), key=lambda t: (-t[0], t[1]))
    top = [a for _, _, a in scored[:top_k]]
    seen = {family(a) for a in top}
    for _, _, a in scored[top_k:]:
        f = family(a)
        if f not in seen:
            seen.add(f)
            top.append(a)
    return top
