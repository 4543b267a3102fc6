"""Terra Nova's own bots: greedy and the five plans, and the search bot's heuristic."""

from strategies.terra_nova.greedy import GreedyStrategy
from strategies.terra_nova.heuristic import TerraNovaHeuristic as HEURISTIC
from strategies.terra_nova.plans import PLANS

STRATEGIES = [GreedyStrategy, *PLANS]

__all__ = ["HEURISTIC", "STRATEGIES"]
