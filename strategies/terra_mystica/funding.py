"""Paying for a main action with free actions: what each action costs, which actions the
player could reach by burning and converting, and the burns and conversions that pay for one.

A turn's free actions are planned with its main action (decide the action, then issue what it
needs) rather than scored one at a time: a bot would otherwise weigh dozens of conversions
that are worth nothing on their own.
"""

# terra-sim: compile

from __future__ import annotations

from typing import Final

from terra_sim.games.terra_mystica import moves
from terra_sim.games.terra_mystica.actions import Action
from terra_sim.games.terra_mystica.player import Player
from terra_sim.games.terra_mystica.state import TerraMysticaState

BURN: Final = Action("burn")


class Cost:
    """What an action takes from the player. A plain class, not a NamedTuple: compiled, it is
    made without a call into Python (every candidate of every decision asks for one)."""

    def __init__(self, coins: int = 0, workers: int = 0, priests: int = 0, power: int = 0):
        self.coins = coins
        self.workers = workers
        self.priests = priests
        self.power = power  # from bowl III


def jump_extra(s: TerraMysticaState, p: Player, h: int, reach: int = -1) -> tuple[int, int]:
    """(workers, priests) of the tunnel or carpet flight a move onto h needs, if any. `reach`:
    s.direct_reach(p), if the caller has it."""
    if (s.direct_reach(p) if reach < 0 else reach) >> h & 1:
        return 0, 0
    return s.jump_cost(p)


def action_cost(s: TerraMysticaState, p: Player, a: Action, reach: int = -1) -> Cost:
    """What a costs p. A caller pricing many actions of one state passes s.direct_reach(p) as
    `reach`: it is the same for all of them, and was most of a build's pricing."""
    kind, args = a
    f = p.faction
    if kind in ("build", "transform"):
        h = args[0]
        dst = s.data.wheel.index(args[1]) if len(args) > 1 else f.home
        # the Nomads' sandstorm turns the hex without spades, and reaches no further
        sandstorm = bool(s.pending and s.spade.get("sandstorm"))
        need = 0 if sandstorm else s.spades_needed(p, s.terrain[h], dst)
        free = s.spade.get("free", 0) if s.pending else 0
        w, pr = s.dig_cost(p, max(0, need - free))
        jw, jp = (0, 0) if s.spade.get("cult") or sandstorm else jump_extra(s, p, h, reach)
        w, pr = w + jw, pr + jp
        c = 0
        if kind == "build" and not s.spade.get("ride"):
            dw, dc = f.costs["D"]
            w, c = w + dw, c + dc
        return Cost(c, w, pr, 0)
    if kind == "upgrade":
        if s.spade.get("free_tp"):
            return Cost()
        h, new = args
        w, c = s.tp_price(p, h) if new == "TP" else f.costs[new]
        return Cost(c, w, 0, 0)
    if kind == "send":
        return Cost(0, 0, 1, 0)
    if kind == "advance":
        if args[0] == "ship":
            c, pr = f.ship_cost
            return Cost(c, 0, pr, 0)
        w, c, pr = f.dig_cost
        return Cost(c, w, pr, 0)
    if kind == "action":
        act = args[0]
        pa = s.data.tiles.power_actions.get(act)
        if pa is not None:
            return Cost(0, 0, 0, pa[0])
        if act == "ACTE":
            return Cost(0, p.eff["bridge_workers"], 0, 0)
    return Cost()


def potential(p: Player) -> Player:
    """A copy of p holding everything it could convert into each resource at once: the engine's
    move generator, handed this copy, lists every action some conversions would pay for."""
    q = p.copy()
    pw = p.p3 + p.p2 // 2
    q.p3 = pw
    q.priests = p.priests + pw // 5 + min(p.w2p, p.workers)
    q.workers = p.workers + pw // 3 + p.priests
    q.coins = p.coins + pw + p.workers + p.priests
    if "alchemist_trade" in p.eff:
        q.coins += max(0, p.total_vp - 5)
    return q


def plan_funding(s: TerraMysticaState, p: Player, cost: Cost) -> list[Action] | None:
    """The burns and conversions (in playing order) that let p pay `cost`, cheapest in kind
    first; None when no conversions can."""
    coins, workers, priests = p.coins, p.workers, p.priests
    p3, p2 = p.p3, p.p2
    out: list[Action] = []
    need_pw = cost.power
    convs: list[tuple[str, str]] = []
    # Priests: bowl III at 5:1, or (Darklings' stronghold turn) workers 1:1
    short_p = cost.priests - priests
    w2p = 0
    if short_p > 0 and cost.priests > s.data.rules["max_priests"] - p.cult_priests:
        return None  # the priest cap: conversions could not hold that many
    if short_p > 0:
        w2p = min(short_p, p.w2p, max(0, workers - cost.workers))
        short_p -= w2p
        workers -= w2p
        convs += [("W", "P")] * w2p
        need_pw += 5 * short_p
        convs += [("PW", "P")] * short_p
        priests = cost.priests
    spare_p = priests - cost.priests
    # Workers: bowl III at 3:1, then spare priests
    short_w = cost.workers - workers
    if short_w > 0:
        from_pw = min(short_w, max(0, (p3 + p2 // 2 - need_pw) // 3))
        need_pw += 3 * from_pw
        convs += [("PW", "W")] * from_pw
        short_w -= from_pw
        if short_w > spare_p:
            return None
        convs += [("P", "W")] * short_w
        spare_p -= short_w
        workers = cost.workers
    spare_w = workers - cost.workers
    # Coins: bowl III 1:1, spare workers, spare priests, then (Alchemists) VP
    short_c = cost.coins - coins
    if short_c > 0:
        from_pw = min(short_c, max(0, p3 + p2 // 2 - need_pw))
        need_pw += from_pw
        convs += [("PW", "C")] * from_pw
        short_c -= from_pw
        for res, spare in (("W", spare_w), ("P", spare_p)):
            k = min(short_c, spare)
            convs += [(res, "C")] * k
            short_c -= k
        if short_c > 0 and "alchemist_trade" in p.eff and p.total_vp - short_c >= 5:
            convs += [("VP", "C")] * short_c
            short_c = 0
        if short_c > 0:
            return None
    burns = max(0, need_pw - p3)
    if burns > p2 // 2:
        return None
    out += [BURN] * burns
    out += [s.data.made.get("convert", c) for c in convs]
    return out


def funded_actions(s: TerraMysticaState, p: Player, legal: list[Action]) -> dict[Action, list]:
    """Main actions p can play now or after conversions -> the free actions paying for each
    (empty for one playable now)."""
    out: dict[Action, list] = {}
    legal_set = set(legal)
    for a in legal:
        # transforming to another faction's terrain: never worth a turn to these bots
        if a.kind not in ("burn", "convert", "connect", "done") and not (
                a.kind == "transform" and len(a.args) > 1):
            out[a] = []
    if not any(a.kind in ("burn", "convert") for a in legal):
        return out
    reach = s.direct_reach(p)
    for a in moves.main_actions(s, potential(p)):
        if a in legal_set or a.kind == "pass":
            continue
        if a.kind == "transform" and len(a.args) > 1:
            continue
        plan = plan_funding(s, p, action_cost(s, p, a, reach))
        # the first step must be playable now; later ones are checked as they come
        if plan and plan[0] in legal_set:
            out[a] = plan
    return out
