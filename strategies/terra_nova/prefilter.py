"""Greedy's prefilter: a cheap estimate of every candidate action's worth, so that only the few
best (and one of each family) get the look-ahead. The hottest loop of the scripted bots, so it
is compiled; a plan's liking for an action comes in as the `bias` and `palace_side_value`
callables.
"""

# terra-sim: compile

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from strategies.terra_nova.valuation import (
    TOWN_STEP_SHARE,
    Weights,
    hex_scores,
    kind_cost,
    money_cost,
    money_weight,
    palace_gain,
    power_cost,
    round_event,
    shovels_used,
    step_share,
    town_worth,
)
from terra_sim.core.hexmap import bits, components, count
from terra_sim.games.terra_nova import towns
from terra_sim.games.terra_nova.actions import Action
from terra_sim.games.terra_nova.moves import power_action_of
from terra_sim.games.terra_nova.state import Player, TerraNovaState

# Families a candidate list keeps one representative of, so one cheap-but-dull family (say,
# 180 two-hex spade pairs) cannot crowd out every other idea before the look-ahead.
FAMILY: Final = {
    "build": "build", "dig": "dig", "upgrade": "upgrade", "palace": "palace", "sail": "sail",
    "bridge": "bridge", "free-tp": "special", "lake-house": "special", "inventor-tp": "special",
    "sun-build": "special", "sun-dig": "special", "fairy-build": "special",
    "fairy-dig": "special", "bonus-build": "bonus", "bonus-dig": "bonus",
}


def family(kind: str) -> str:
    if kind.startswith("pw-"):
        return kind
    return FAMILY.get(kind, kind)


FREE_KINDS: Final[tuple[str, ...]] = ("pass", "exchange", "druid-vp")


def paid_by_exchange(state: TerraNovaState, p: Player, after: list[Action],
                     acts: list[Action]) -> dict[Action, int]:
    """The turn actions legal once p's charged power is exchanged (`after`) but not now (`acts`),
    that the coins of an exchange pay for without other power: action -> power to exchange."""
    extra: dict[Action, int] = {}
    have: set[Action] | None = None  # made only if some action passes the cheaper tests
    for a in after:
        if a.kind in FREE_KINDS:
            continue
        need = money_cost(state, p, a) - p.money
        if 0 < need <= p.p3 and not power_cost(state, p, a):
            if have is None:
                have = set(acts)
            if a not in have:
                extra[a] = need
    return extra


class TownGroups:
    """p's groups outside towns (size, value per hex), so the prefilter can see which builds and
    upgrades bring a town closer, as the look-ahead's valuation will."""

    def __init__(self, state: TerraNovaState, p: Player, w: Weights):
        self.groups: dict[int, tuple[int, int, int]] = {}  # hex -> (group id, size, value)
        self.worth = 0.0
        self.best = len(TOWN_STEP_SHARE)
        self.tadj: list[int] = towns.town_adjacency(state, p)
        self.need = 0
        self.min_b = 0
        self.bv_house = 0
        self.towns_mask = 0
        self.gains: dict[int, float] = {}
        if len(p.tiles_used) >= len(state.data.town_tiles):
            return
        self.worth = town_worth(state, p, w) * w.town
        self.need = p.eff.get("town_value", state.data.town_min_value)
        self.min_b = state.data.town_min_buildings
        bv = state.data.building_value
        self.bv_house = bv["house"]
        for gid, g in enumerate(components(p.buildings & ~p.towns, self.tadj)):
            n = count(g)
            nh, nt = count(g & p.houses), count(g & p.tps)
            val = bv["house"] * nh + bv["tp"] * nt + bv["palace"] * (n - nh - nt)
            for h in bits(g):
                self.groups[h] = (gid, n, val)
            # (a max of two compiles natively, a max of three calls the builtin)
            self.best = min(self.best, max(max(self.min_b - n, self.need - val), 1))
        self.towns_mask = p.towns

    def gain(self, h: int, upgrade: bool) -> float:
        """The town progress (or founding) a building on h adds, in the valuation's terms."""
        if not self.worth:
            return 0.0
        key = h << 1 | upgrade  # several candidates build on each hex (paid, power, bonus...)
        g = self.gains.get(key)
        if g is None:
            g = self.gains[key] = self.compute_gain(h, upgrade)
        return g

    def compute_gain(self, h: int, upgrade: bool) -> float:
        if upgrade:
            if h not in self.groups:
                return 0.0
            _, n, val = self.groups[h]
            val += 1
        else:
            if self.tadj[h] & self.towns_mask:
                return 0.0  # it joins a town instead
            n, val = 1, self.bv_house
            seen = set()
            for x in bits(self.tadj[h]):
                g = self.groups.get(x)
                if g and g[0] not in seen:
                    seen.add(g[0])
                    n += g[1]
                    val += g[2]
        if n >= self.min_b and val >= self.need:
            return self.worth * (1.0 - step_share(self.best))
        steps = max(max(self.min_b - n, self.need - val), 1)
        return self.worth * max(0.0, step_share(steps) - step_share(self.best))

    def bridge_gain(self, state: TerraNovaState, site: int) -> float:
        """The town progress of a bridge joining two of p's groups outside towns."""
        if not self.worth:
            return 0.0
        a, b = (self.groups.get(h) for h in state.data.map.bridge_sites[site])
        if a is None or b is None or a[0] == b[0]:
            return 0.0
        n = a[1] + b[1]
        val = a[2] + b[2]
        if n >= self.min_b and val >= self.need:
            return self.worth * (1.0 - step_share(self.best))
        steps = max(max(self.min_b - n, self.need - val), 1)
        return self.worth * max(0.0, step_share(steps) - step_share(self.best))


def quick(state: TerraNovaState, p: Player, a: Action, w: Weights, tg: TownGroups,
          hq: dict[int, float], ev: str, evp: int, m: float, extra: dict[Action, int],
          bias: Callable[[TerraNovaState, Player, Action], float],
          palace_side_value: Callable[[TerraNovaState, Player, str], float],
          scale: float) -> float:
    """A cheap estimate of an action's worth, only used to prune before the look-ahead."""
    kind, args = a
    k = kind_cost(state, kind)
    s = -m * money_cost(state, p, a, k) - w.power3 * power_cost(state, p, a, k)
    if a in extra:
        s -= (w.power3 - m) * extra[a]
    sh = shovels_used(state, p, a, k)
    if sh:
        s += sh * (w.round_now * evp if ev == "shovel" else 0.0)
        s += sh * p.eff.get("shovel_power", 0) * w.power2
    if k.builds and args:
        h = args[0]
        s += hq.get(h, 0.0) + w.house + (w.round_now * evp if ev == "house" else 0)
        nh = count(p.houses)
        if nh < len(p.faction.house_coins):
            s += 2 * (p.faction.house_coins[nh] * w.income_coins
                      + p.faction.house_power[nh] * w.income_power)
        s += tg.gain(h, False)
    elif kind in ("upgrade", "free-tp", "inventor-tp"):
        h = args[0]
        s += w.tp + (w.round_now * evp if ev == "tp" else 0) + 0.3 * hq.get(h, 0.0)
        nt = count(p.tps)
        if nt < len(p.faction.tp_coins):
            s += 2 * (p.faction.tp_coins[nt] * w.income_coins
                      + p.faction.tp_power[nt] * w.income_power)
        if kind != "inventor-tp":
            s -= w.house
            s += tg.gain(h, True)
        else:
            s += tg.gain(h, False)
    elif kind == "palace":
        s += 1.0 + (w.round_now * evp if ev == "palace" else 0)
        s += palace_gain(state, p, args[1], w) + scale * palace_side_value(state, p, args[1])
        s += tg.gain(args[0], True)
    elif kind in ("sail", "pw-sail"):
        s += 2.5 + w.sail + w.spread + (w.round_now * evp if ev == "sail" else 0)
    elif kind in ("bridge",) or kind.startswith("pw-bridge"):
        s += 0.6 + w.spread + tg.bridge_gain(state, args[0])
    elif kind.endswith("dig") or kind.endswith("dig2"):
        s += 0.4 * max(hq.get(h, 0.0) for h in args) - 0.8
    elif kind.startswith("pw-"):
        pa = power_action_of(state, kind)
        if pa.effect == "coins":
            s += m * pa.amount
    if kind.startswith("pw-"):
        s += w.power_action
    return s + scale * bias(state, p, a)


def prune(state: TerraNovaState, p: Player, cands: list[Action], extra: dict[Action, int],
          w: Weights, top_k: int, bias: Callable[[TerraNovaState, Player, Action], float],
          palace_side_value: Callable[[TerraNovaState, Player, str], float],
          scale: float) -> list[Action]:
    """The `top_k` candidates by the quick estimate, plus the best of each other family."""
    tg = TownGroups(state, p, w)
    hexes = 0
    for a in cands:
        if a.args and isinstance(a.args[0], int) and a.kind not in ("bridge",) and not (
                a.kind.startswith("pw-bridge")):
            for h in a.args:
                if isinstance(h, int):
                    hexes |= 1 << h
    hq = hex_scores(state, p, hexes, w)
    ev, evp = round_event(state, state.round)
    m = money_weight(state, w)
    # Best first, ties in list order: a stable sort of the indices by minus the estimate, whose
    # keys are plain floats (a key of tuples made the sort cost more than the estimates).
    minus = [-quick(state, p, a, w, tg, hq, ev, evp, m, extra, bias, palace_side_value, scale)
             for a in cands]
    order = sorted(range(len(cands)), key=minus.__getitem__)
    top = [cands[i] for i in order[:top_k]]
    seen = {family(a.kind) for a in top}
    for i in order[top_k:]:
        a = cands[i]
        f = family(a.kind)
        if f not in seen:
            seen.add(f)
            top.append(a)
    return top
