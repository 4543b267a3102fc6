"""The scripted plans: greedy's look-ahead with a plan's weights and biases.

Each plan changes what the valuation cares about (weights) and adds a small bias for the
actions and tiles its plan is built on; everything else (legality, conversions, follow-ups,
power offers, setup) is greedy's.

Tuned, each plays half its plan (`lean`, strategies/weighted.py): played whole, the plans cost
their seat 2 to 10 VP a game against tuned greedy in the same seat, at half 0.5 to 3.9, and
they still play their plan (strategies/terra_mystica/README.md, "The plans at half").
"""

from __future__ import annotations

from strategies.terra_mystica.greedy import GreedyStrategy
from strategies.terra_mystica.valuation import round_tile, town_need
from terra_sim.core.hexmap import components
from terra_sim.games.terra_mystica.actions import Action
from terra_sim.games.terra_mystica.player import Player
from terra_sim.games.terra_mystica.state import TerraMysticaState


def event_of(a: Action) -> str:
    """The round-tile event a main action scores (spades are counted apart)."""
    if a.kind == "build":
        return "D"
    if a.kind == "upgrade":
        return "SHSA" if a.args[1] in ("SH", "SA") else a.args[1]
    return ""


def spades_of(state: TerraMysticaState, p: Player, a: Action) -> int:
    if a.kind in ("build", "transform"):
        dst = state.data.wheel.index(a.args[1]) if len(a.args) > 1 else p.faction.home
        return state.spades_needed(p, state.terrain[a.args[0]], dst)
    if a.kind == "action":
        pa = state.data.tiles.power_actions.get(a.args[0])
        if pa is not None and pa[1] == "spades":
            return pa[2]
        if a.args[0] == "BON1":
            return 1
        if a.args[0] == "ACTG":
            return 2
    return 0


class ExpanderStrategy(GreedyStrategy):
    name = "expander"
    description = ("Dwellings everywhere and one big network: values reach, shipping, digging "
                   "and bridges, spreads into new ground, picks spade and shipping tiles.")
    lean = 0.5
    plan_weights = {"network": 1.4, "reach": 0.3, "building": 1.5, "spread": 0.6,
                    "cluster": 0.3, "advance": 2.0, "cult": 0.4, "town": 0.6}

    def bias(self, state: TerraMysticaState, p: Player, a: Action) -> float:
        if a.kind == "build":
            return 1.2
        if a.kind == "advance":
            return 0.8
        if a.kind == "action" and a.args[0] in ("ACT1", "ACTE"):
            return 0.8
        if a.kind == "send":
            return -0.4
        return 0.0

    def tile_bias(self, state: TerraMysticaState, p: Player, tile: str, r: int) -> float:
        b = state.data.tiles.bonus[tile]
        return (1.2 if b["action"] == "spade" else 0.0) + (1.0 if b["ship"] else 0.0) + (
            0.6 if "D" in b["pass_vp"] else 0.0)


class CultRunnerStrategy(GreedyStrategy):
    name = "cult-runner"
    description = ("Priests to the cult tracks: temples and priest income, cult favour tiles, "
                   "cult bonus and faction actions, keys from towns to reach the tops.")
    lean = 0.5
    plan_weights = {"cult": 1.1, "cult_step": 0.3, "cult_bonus": 1.4, "priest": 1.7,
                    "priest_send": 0.8, "network": 0.6}

    def bias(self, state: TerraMysticaState, p: Player, a: Action) -> float:
        if a.kind == "send":
            return 0.8
        if a.kind == "upgrade" and a.args[1] in ("TE", "SA"):
            return 1.5
        if a.kind == "action" and (a.args[0] in ("BON2", "ACTA", "ACT2")
                                   or a.args[0].startswith("FAV")):
            return 1.0
        return 0.0

    def tile_bias(self, state: TerraMysticaState, p: Player, tile: str, r: int) -> float:
        b = state.data.tiles.bonus[tile]
        return (1.5 if b["action"] == "cult" else 0.0) + 1.5 * b["income"].get("P", 0)

    def favor_bias(self, state: TerraMysticaState, p: Player, tile: str) -> float:
        t = state.data.tiles.favor[tile]
        return 0.8 * t["steps"] + (1.0 if t["action"] else 0.0)

    def town_bias(self, state: TerraMysticaState, p: Player, tile: str) -> float:
        t = state.data.tiles.town[tile]
        return 2.0 * t["cult"] + 2.0 * t["P"] + 1.5 * (t["keys"] - 1)


class TownBuilderStrategy(GreedyStrategy):
    name = "town-builder"
    description = ("Clusters buildings to found towns early and often: FAV5, upgrades inside "
                   "the growing group, bridges that join groups; town tiles by need.")
    lean = 0.5
    plan_weights = {"town": 2.2, "cluster": 1.5, "spread": -0.5, "reach": 0.08,
                    "network": 0.9}

    def loose_groups(self, state: TerraMysticaState, p: Player) -> int:
        return p.buildings & ~p.town_mask

    def bias(self, state: TerraMysticaState, p: Player, a: Action) -> float:
        loose = self.loose_groups(state, p)
        if a.kind == "build":
            return 0.8 if state.adj[a.args[0]] & loose else -0.3
        if a.kind == "upgrade":
            h = a.args[0]
            if loose >> h & 1:
                group = next(g for g in components(loose, state.adj) if g >> h & 1)
                return 0.3 * min(group.bit_count(), 4)
        if a.kind == "action" and a.args[0] in ("ACT1", "ACTE", "ACTW"):
            return 0.6
        return 0.0

    def favor_bias(self, state: TerraMysticaState, p: Player, tile: str) -> float:
        t = state.data.tiles.favor[tile]
        return 4.0 if t["town_power"] and town_need(state, p) > t["town_power"] else 0.0

    def town_bias(self, state: TerraMysticaState, p: Player, tile: str) -> float:
        # By need: workers or coins while building up, points late
        t = state.data.tiles.town[tile]
        later = state.data.rules["rounds"] - state.round
        if later >= 3:
            return 0.8 * t["W"] + 0.3 * t["C"] + 0.2 * t["PW"]
        return 0.3 * t["vp"]


class PowerPlayerStrategy(GreedyStrategy):
    name = "power-player"
    description = ("Builds next to opponents for power and cheap trading houses, takes power "
                   "offers eagerly, spends bowl III on the power actions; power bonus tiles.")
    lean = 0.5
    plan_weights = {"opponent_adjacent": 0.6, "leech": 3.5, "power_action": 1.2,
                    "power3": 0.34, "power2": 0.18, "cluster": 0.2}

    def bias(self, state: TerraMysticaState, p: Player, a: Action) -> float:
        others = state.occupied & ~p.buildings
        if a.kind == "build":
            return 0.7 if state.adj[a.args[0]] & others else 0.0
        if a.kind == "upgrade" and a.args[1] == "TP":
            return 0.6 if state.adj[a.args[0]] & others else 0.0
        if a.kind == "action" and a.args[0] in state.data.tiles.power_actions:
            return 0.6
        return 0.0

    def tile_bias(self, state: TerraMysticaState, p: Player, tile: str, r: int) -> float:
        b = state.data.tiles.bonus[tile]
        return 0.35 * min(b["income"].get("PW", 0), p.room())

    def favor_bias(self, state: TerraMysticaState, p: Player, tile: str) -> float:
        return 0.4 * state.data.tiles.favor[tile]["income"].get("PW", 0)


class RoundScorerStrategy(GreedyStrategy):
    name = "round-scorer"
    description = ("Plays each round to its scoring tile (dwellings, trading houses, "
                   "strongholds, towns, spades) and picks bonus tiles for the next one.")
    lean = 0.5
    plan_weights = {"round_now": 2.0, "round_next": 1.0, "cult_bonus": 1.6}

    def bias(self, state: TerraMysticaState, p: Player, a: Action) -> float:
        tile = state.scoring_tile()
        if tile is None:
            return 0.0
        ev, vp = tile["event"], tile["vp"]
        if ev == "spade":
            return 0.5 * vp * spades_of(state, p, a)
        if ev and event_of(a) == ev:
            return 0.6 * vp
        if ev == "town" and a.kind in ("build", "upgrade"):
            return 0.8 if state.adj[a.args[0]] & p.buildings & ~p.town_mask else 0.0
        return 0.0

    def tile_bias(self, state: TerraMysticaState, p: Player, tile: str, r: int) -> float:
        b = state.data.tiles.bonus[tile]
        t = round_tile(state, r)
        if t is None:
            return 0.0
        ev, vp = t["event"], t["vp"]
        v = 0.0
        if ev == "spade" and b["action"] == "spade":
            v += vp
        if ev == "SHSA" and ("SH" in b["pass_vp"]):
            v += 1.0
        if ev == "TP" and "TP" in b["pass_vp"]:
            v += 1.0
        if ev in ("D", "TP", "TE", "SHSA"):
            v += 0.15 * b["income"].get("C", 0) + 0.3 * b["income"].get("W", 0)
        return v


PLANS: tuple[type[GreedyStrategy], ...] = (
    ExpanderStrategy, CultRunnerStrategy, TownBuilderStrategy, PowerPlayerStrategy,
    RoundScorerStrategy,
)
