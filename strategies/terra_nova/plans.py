"""The scripted plans: greedy's look-ahead with a plan's weights and biases.

Each plan changes what the valuation cares about (weights) and adds a small bias for the
actions, palaces and tiles its plan is built on; everything else (legality, exchanges, setup)
is greedy's.

Compiled, because the prefilter asks a plan's `bias` about every candidate of every decision.
The plans stay ordinary Python classes (`native_class=False`): the registry reads their class
attributes and users subclass them like any other bot.
"""

# terra-sim: compile

from __future__ import annotations

from operator import itemgetter

from mypy_extensions import mypyc_attr

from strategies.terra_nova.greedy import GreedyStrategy
from strategies.terra_nova.valuation import kind_cost, round_event, town_progress, town_tile_value
from terra_sim.games.terra_nova.actions import Action
from terra_sim.games.terra_nova.state import Player, TerraNovaState


def is_bridge(kind: str) -> bool:
    return kind == "bridge" or kind.startswith("pw-bridge")


def event_of(state: TerraNovaState, a: Action) -> str:
    """The round-tile event an action scores (the main one; shovels are counted apart)."""
    kind = a.kind
    if kind_cost(state, kind).builds:
        return "house"
    if kind in ("upgrade", "free-tp", "inventor-tp"):
        return "tp"
    if kind == "palace":
        return "palace"
    if kind in ("sail", "pw-sail"):
        return "sail"
    if kind.endswith("dig") or kind.endswith("dig2"):
        return "shovel"
    return ""


@mypyc_attr(native_class=False)
class ExpanderStrategy(GreedyStrategy):
    name = "expander"
    description = ("Spreads houses over cheap ground, values reach, sailing and bridges, and "
                   "aims at the territory bonus.")
    plan_weights = {"reach": 0.25, "territory": 1.4, "spread": 0.8, "cluster": 0.2,
                    "sail": 1.0, "house": 1.6, "town": 0.6}

    def bias(self, state: TerraNovaState, p: Player, a: Action) -> float:
        kind = a.kind
        if kind in ("sail", "pw-sail"):
            return 0.5
        if is_bridge(kind):
            # a bridge pays when it opens ground: a free hex on the far side
            a_, b_ = state.data.map.bridge_sites[a.args[0]]
            far = b_ if p.buildings >> a_ & 1 else a_
            return 1.6 if not state.occupied >> far & 1 else 0.3
        if kind_cost(state, kind).builds and a.args:
            # cheap transforms first: the plan wants many houses, not expensive ones
            return -0.35 * state.shovels(p, a.args[0])
        return 0.0

    def tile_bias(self, state: TerraNovaState, p: Player, tile: str, r: int) -> float:
        b = state.data.bonus_tiles[tile]
        return 0.8 * b["spade_special"] + 0.8 * b["sail_bonus"]

    def palace_side_value(self, state: TerraNovaState, p: Player, side: str) -> float:
        pal = getattr(p.faction, f"{side}_palace")
        keys = ("on_build_sail", "on_build_edge_house", "lake_house_special",
                "continent_dig_special", "max_shovels", "spade_action_power")
        return 2.0 * sum(1 for k in keys if k in pal)


@mypyc_attr(native_class=False)
class MerchantStrategy(GreedyStrategy):
    name = "merchant"
    description = ("Trading posts next to opponents, an early palace for its ability, "
                   "income first.")
    plan_weights = {"opponent_adjacent": 0.6, "income_coins": 0.42, "income_power": 0.2,
                    "tp": 3.6, "palace_ability": 1.3, "cluster": 0.4}

    def bias(self, state: TerraNovaState, p: Player, a: Action) -> float:
        kind = a.kind
        if kind in ("upgrade", "free-tp", "inventor-tp"):
            others = state.occupied & ~p.buildings & ~state.neutral
            return 0.5 + (0.6 if state.adj[a.args[0]] & others else 0.0)
        if kind == "palace":
            return 1.2 if state.round <= 3 else 0.2
        return 0.0

    def tile_bias(self, state: TerraNovaState, p: Player, tile: str, r: int) -> float:
        b = state.data.bonus_tiles[tile]
        return 0.15 * b["coins"] + 0.6 * b["dropout_tp_vp"]


@mypyc_attr(native_class=False)
class TownBuilderStrategy(GreedyStrategy):
    name = "town-builder"
    description = ("Clusters buildings to found towns early and often; picks town tiles by "
                   "need (money, power, sailing or points).")
    plan_weights = {"town": 2.0, "cluster": 1.5, "spread": 0.0, "reach": 0.08,
                    "territory": 0.8}

    def bias(self, state: TerraNovaState, p: Player, a: Action) -> float:
        kind = a.kind
        if (kind_cost(state, kind).builds or kind in ("upgrade", "free-tp")) and a.args:
            loose = p.buildings & ~p.towns
            return 0.4 if state.adj[a.args[0]] & loose else -0.1
        return 0.0

    def palace_side_value(self, state: TerraNovaState, p: Player, side: str) -> float:
        pal = getattr(p.faction, f"{side}_palace")
        return 3.0 if "town_value" in pal or "river_towns" in pal else 0.0

    def choose_town(self, state: TerraNovaState, p: Player, legal: list) -> Action:
        # By need: money when short of it, power when bowls are empty, sailing when it would
        # open ground, points when the game is nearly over.
        # The tiles are read from the data (what each gives), never by their numbers.
        rounds_left = state.data.rounds - state.round
        need = {}
        for t, tile in state.data.town_tiles.items():
            need[t] = ((2.0 if tile["coins"] and p.money < 8 else 0.0)
                       + (2.0 if tile["power"] and p.p3 + p.p2 < 5 else 0.0)
                       + (1.0 if tile["sail"] and p.sail < state.max_sail()
                          and rounds_left >= 2 else 0.0)
                       + (2.0 if rounds_left <= 1 and not (tile["coins"] or tile["power"]
                                                          or tile["sail"]) else 0.0))
        base = super().choose_town
        tiles = [a.args[0] for a in legal]
        if all(need.get(t, 0.0) == 0.0 for t in tiles):
            return base(state, p, legal)
        # (no lambda: mypyc cannot compile a closure in a method of a non-native class)
        w = self.weights
        scale = self.scale
        scored = [((town_tile_value(state, p, a.args[0], w) + scale * need.get(a.args[0], 0.0),
                    a.args), a) for a in legal]
        return max(scored, key=itemgetter(0))[1]


@mypyc_attr(native_class=False)
class PowerPlayerStrategy(GreedyStrategy):
    name = "power-player"
    description = ("Cycles power into power actions and faction power abilities; times its "
                   "drop-out and picks power bonus tiles.")
    plan_weights = {"power_action": 0.9, "income_power": 0.32, "power3": 0.36, "power2": 0.2,
                    "pass_margin": 0.3}

    def bias(self, state: TerraNovaState, p: Player, a: Action) -> float:
        kind = a.kind
        if kind.startswith(("pw-", "fairy-")) or kind == "inventor-tp":
            return 0.4
        return 0.0

    def tile_bias(self, state: TerraNovaState, p: Player, tile: str, r: int) -> float:
        b = state.data.bonus_tiles[tile]
        room = 2 * p.p1 + p.p2
        return 0.25 * min(b["power"], room + 2)

    def palace_side_value(self, state: TerraNovaState, p: Player, side: str) -> float:
        pal = getattr(p.faction, f"{side}_palace")
        return 0.4 * pal.get("income_power", 0) + 0.3 * pal.get("on_build_power", 0) + (
            2.0 if "tp_action_power" in pal or "spade_action_power" in pal else 0.0)


@mypyc_attr(native_class=False)
class RoundScorerStrategy(GreedyStrategy):
    name = "round-scorer"
    description = ("Plans each round around its scoring tile and saves for the next one "
                   "(bonus tiles chosen to match).")
    plan_weights = {"round_now": 2.0, "round_next": 1.0}

    def bias(self, state: TerraNovaState, p: Player, a: Action) -> float:
        ev, vp = round_event(state, state.round)
        if ev and event_of(state, a) == ev:
            return 0.3 * vp
        if ev == "town" and kind_cost(state, a.kind).builds:
            return 0.5 * town_progress(state, p)
        return 0.0

    def tile_bias(self, state: TerraNovaState, p: Player, tile: str, r: int) -> float:
        b = state.data.bonus_tiles[tile]
        ev, vp = round_event(state, r)
        v = 0.0
        if ev == "shovel" and b["spade_special"]:
            v += vp
        if ev == "sail" and b["sail_bonus"]:
            v += 0.5 * vp
        if ev == "tp" and b["dropout_tp_vp"]:
            v += 1.0
        if ev == "palace" and b["dropout_palace_vp"]:
            v += 1.5
        if ev in ("tp", "palace", "house"):
            v += 0.1 * b["coins"]
        return v


PLANS: tuple[type[GreedyStrategy], ...] = (
    ExpanderStrategy, MerchantStrategy, TownBuilderStrategy, PowerPlayerStrategy,
    RoundScorerStrategy,
)
