"""Greedy's prefilter: a cheap estimate of every clan member a player may send, so that only the
few best (one per space) get the look-ahead. A plan's liking for a space comes in as `bias`.

The estimate reads what a space gives from the board and the data (its gains, its bonus tile,
its Homeland actions), never a card's name.
"""

# terra-sim: compile

from __future__ import annotations

from collections.abc import Callable

from strategies.terramara.valuation import Context, gains_worth
from terra_sim.games.terramara.actions import Action
from terra_sim.games.terramara.board import CROSSROADS, HOME, HUT, PERSONAL, SPECIAL, TERRITORY
from terra_sim.games.terramara.board import round_of_row as row_round
from terra_sim.games.terramara.effects import power_level
from terra_sim.games.terramara.placement import CHIEF, EXPLORER, join_cost
from terra_sim.games.terramara.player import Player
from terra_sim.games.terramara.state import PIECES, TerramaraState

# A plan's extra liking for sending `piece` to space `i` (or HUT).
Bias = Callable[[TerramaraState, Player, int, int], float]


def target(s: TerramaraState, a: Action) -> tuple[int, int]:
    """(piece, space index or HUT) of a placement action."""
    name = str(a.args[0])
    return PIECES.index(a.kind), HUT if name == "hut" else s.board.index[name]


def space_gains(s: TerramaraState, p: Player, i: int) -> dict[str, int]:
    """What sending a member to space `i` gains at once (Homeland actions aside)."""
    if i == HUT:
        return s.data.rules["hut"]
    sp = s.board.spaces[i]
    if sp.kind == PERSONAL:
        return s.data.tiles[p.cross_tile].crossroads if p.cross_tile else {}
    if sp.kind in (TERRITORY, SPECIAL) and sp.bonus:
        out = dict(sp.effects)
        for k, v in s.data.bonus[sp.bonus].effects.items():
            out[k] = out.get(k, 0) + v
        return out
    return sp.effects


def raid_take(s: TerramaraState, p: Player, military: int) -> int:
    """Resources a raid by `p` at `military` (after the step it costs) would bring in."""
    rules = s.data.rules
    mine = power_level(s, military)
    total = 0
    for q in s.players:
        if q.seat == p.seat:
            continue
        d = power_level(s, q.military) - mine
        div = min(max(rules["raid_divisor"] + d, rules["raid_divisor_min"]),
                  rules["raid_divisor_max"])
        total += q.resources // div
    return total


def homeland_worth(s: TerramaraState, p: Player, action: str, ctx: Context) -> float:
    rules = s.data.rules
    w = ctx.w
    if action == "worker":
        level = rules["worker_level_by_round"][s.round - 1]
        if not s.worker_supply[level - 1]:
            return 0.0
        return gains_worth(s, p, {"worker": level}, ctx)
    if action == "develop":
        return gains_worth(s, p, rules["develop"], ctx)
    if action == "travel":
        return gains_worth(s, p, rules["travel_space"], ctx)
    if action == "raid":
        kept = p.military if p.eff("keep_military") else max(0, p.military - 1)
        lost = p.military - kept
        return raid_take(s, p, kept) * 0.5 * (ctx.refined + ctx.raw) - lost * w["military"]
    if s.round == rules["rounds"]:
        n = rules["final_first_player"]
        return max(gains_worth(s, p, {k: n}, ctx) for k in ("travel", "military", "culture"))
    return w["first"] + gains_worth(s, p, {"travel": rules["first_player_travel"]}, ctx)


def estimate(s: TerramaraState, p: Player, piece: int, i: int, ctx: Context) -> float:
    """A cheap worth of sending `piece` to `i`: what it gains, less what the placement costs
    (Military for joining, later rounds' actions for an Explorer left on a future space)."""
    w = ctx.w
    v = gains_worth(s, p, space_gains(s, p, i), ctx)
    if i == HUT:
        return v - (w["save_chief"] if piece == CHIEF else 0.0)
    sp = s.board.spaces[i]
    if sp.kind == HOME:
        v += sum(homeland_worth(s, p, a, ctx) for a in sp.actions)
    elif sp.kind == CROSSROADS:
        v += p.eff("crossroads_space_vp")
    joined = s.occ[2 * i] >= 0
    if piece == CHIEF:
        v += p.eff("chieftain_join_vp") if joined else p.eff("chieftain_empty_vp")
        if not joined:
            v -= w["save_chief"]
    elif joined and join_cost(s, i, p.seat, EXPLORER) == 1 and not p.eff("keep_military"):
        v -= w["military"] + 0.25 * w["majority"]
    if piece == EXPLORER and sp.kind in (TERRITORY, SPECIAL):
        v -= w["member"] * max(0, min(row_round(sp.row), s.data.rules["rounds"]) - s.round)
    return v


def prune(s: TerramaraState, p: Player, legal: list[Action], ctx: Context, top_k: int,
          bias: Bias, scale: float) -> list[tuple[float, Action]]:
    """The `top_k` best placements by estimate plus bias, one per space (the better piece),
    best first."""
    best: dict[int, tuple[float, Action]] = {}
    for a in legal:
        if a.kind not in PIECES:
            continue
        piece, i = target(s, a)
        v = estimate(s, p, piece, i, ctx) + scale * bias(s, p, piece, i)
        if i not in best or v > best[i][0]:
            best[i] = (v, a)
    ranked = sorted(best.values(), key=lambda t: (-t[0], t[1]))
    return ranked[:top_k]
