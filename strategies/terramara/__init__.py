"""Terramara's own bots: greedy and the four plans, and the search bot's heuristic."""

from strategies.terramara.greedy import GreedyStrategy
from strategies.terramara.heuristic import TerramaraHeuristic as HEURISTIC
from strategies.terramara.plans import PLANS

STRATEGIES = [GreedyStrategy, *PLANS]

__all__ = ["HEURISTIC", "STRATEGIES"]
