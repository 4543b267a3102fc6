"""Strategy bots: the protocol, the per-game registry, the user-bot loader and the bots that play
any game through the protocol alone (random, the search bot). Each game's own bots live in
strategies/<game>/, named by the game's line in the game registry."""

from strategies.base import Strategy
from strategies.loader import load_class
from strategies.registry import (
    default_strategies,
    is_shipped,
    make_strategy,
    resolve,
    roster,
    split_spec,
    variant_spec,
)

__all__ = ["Strategy", "default_strategies", "is_shipped", "load_class", "make_strategy",
           "resolve", "roster", "split_spec", "variant_spec"]
