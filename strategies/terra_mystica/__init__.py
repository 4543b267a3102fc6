"""Terra Mystica's own bots: greedy and the five plans, and the search bot's heuristic."""

from strategies.terra_mystica.greedy import GreedyStrategy
from strategies.terra_mystica.heuristic import TerraMysticaHeuristic as HEURISTIC
from strategies.terra_mystica.plans import PLANS

STRATEGIES = [GreedyStrategy, *PLANS]

__all__ = ["HEURISTIC", "STRATEGIES"]
