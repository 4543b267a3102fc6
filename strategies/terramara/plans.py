"""The scripted plans: greedy's look-ahead with a plan's weights and biases.

Each plan changes what the valuation cares about (weights) and adds a small bias for the spaces
and Artifacts its plan is built on, read from what a space gives (its gains, its Homeland
actions, its kind), never from a card's name; everything else (legality, choices, refining,
Travel steps, setup) is greedy's.
"""

from __future__ import annotations

from strategies.terramara.greedy import GreedyStrategy
from strategies.terramara.prefilter import space_gains
from terra_sim.games.terramara.actions import Action
from terra_sim.games.terramara.board import CROSSROADS, HOME, HUT, PERSONAL
from terra_sim.games.terramara.player import Player
from terra_sim.games.terramara.state import TerramaraState


def homeland_actions(state: TerramaraState, i: int) -> tuple[str, ...]:
    if i == HUT:
        return ()
    sp = state.board.spaces[i]
    return sp.actions if sp.kind == HOME else ()


class RaiderStrategy(GreedyStrategy):
    name = "raider"
    # Terramara's plans do not build on greedy's tuned weights: those play the Road hard and
    # would blur every plan into one (tests/test_tmr_bots.py's focus checks). Each plan has a
    # tuned file of its own instead, tuned on the weights its plan_weights leave free.
    family = ""
    description = ("Military first: climbs the Military track for the majority and the Power "
                   "Levels, raids every round it can, takes the spaces that give Military.")
    plan_weights = {"military": 0.7, "majority": 1.6, "power": 1.8, "raw": 0.75,
                    "refined": 1.2}

    def bias(self, state: TerramaraState, p: Player, piece: int, i: int) -> float:
        v = 0.7 * space_gains(state, p, i).get("military", 0)
        if "raid" in homeland_actions(state, i):
            v += 2.5
        return v


class RoadRunnerStrategy(GreedyStrategy):
    name = "road-runner"
    family = ""
    description = ("Down the Road: Travel spaces and gains, both Caravans past the Crossroads "
                   "to open their action spaces, detours to bonus tiles and Outposts for Flags, "
                   "the camp's arrival VP.")
    plan_weights = {"road": 1.8, "crossroads": 1.6, "flag": 2.5, "culture": 0.3}

    def bias(self, state: TerramaraState, p: Player, piece: int, i: int) -> float:
        v = 0.8 * space_gains(state, p, i).get("travel", 0)
        if "travel" in homeland_actions(state, i):
            v += 1.2
        if i != HUT and state.board.spaces[i].kind in (CROSSROADS, PERSONAL):
            v += 1.0
        return v


class ArtifactCollectorStrategy(GreedyStrategy):
    name = "artifact-collector"
    family = ""
    description = ("Artifacts: refined resources of the types the cards in reach cost, "
                   "Workers to refine them, the River far enough to reach the cards, and a "
                   "card created whenever one pays.")
    plan_weights = {"artifact_progress": 1.2, "refined": 1.35, "worker": 0.7,
                    "craft_margin": -0.5, "culture": 0.55}

    def bias(self, state: TerramaraState, p: Player, piece: int, i: int) -> float:
        g = space_gains(state, p, i)
        v = 0.3 * (g.get("refine", 0) + g.get("refined_any", 0))
        if "worker" in homeland_actions(state, i):
            v += 1.0
        return v

    def craft_bias(self, state: TerramaraState, p: Player, a: Action) -> float:
        return 1.0 if a.kind == "craft" else 0.0


class RiverStrategy(GreedyStrategy):
    name = "river"
    family = ""
    description = ("Up the River: Culture from Develop your Skills and every space that gives "
                   "it, for the River's VP, its bonus tiles, the extra Explorer and the "
                   "Artifacts further along.")
    plan_weights = {"culture": 1.3, "military": 0.25, "road": 0.7}

    def bias(self, state: TerramaraState, p: Player, piece: int, i: int) -> float:
        v = 0.8 * space_gains(state, p, i).get("culture", 0)
        if "develop" in homeland_actions(state, i):
            v += 1.0
        return v


PLANS: tuple[type[GreedyStrategy], ...] = (
    RaiderStrategy, RoadRunnerStrategy, ArtifactCollectorStrategy, RiverStrategy,
)
