"""Bots whose play is a set of weights: each game's greedy and its plans.

A plan is its game's greedy with `plan_weights` departing from the game's `default_weights`;
a config may change any weight, by name directly (`coin = 0.5`) or inside `weights`, and the
look-ahead's width (`top_k`). Bad values are refused here, once, for every game.
"""

import random
from typing import Any, ClassVar

from strategies.base import Strategy


class WeightedStrategy(Strategy):
    default_weights: ClassVar[dict[str, float]] = {}  # the game's valuation weights
    plan_weights: ClassVar[dict[str, float]] = {}  # a plan's departures from them
    params: ClassVar[dict[str, Any]] = {"top_k": 6, "weights": {}}

    def __init_subclass__(cls, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        # `terra-sim list strategies` shows a plan's weights as its default `weights`
        cls.params = {"top_k": 6, "weights": dict(cls.plan_weights)}

    def __init__(self, rng: random.Random, **params: Any):
        defaults = self.default_weights
        direct = {k: params.pop(k) for k in list(params) if k in defaults}
        super().__init__(rng, **params)
        given = {**dict(self.p.get("weights") or {}), **direct}
        unknown = set(given) - set(defaults)
        if unknown:
            raise ValueError(f"{self.name}: unknown weights {sorted(unknown)} "
                             f"(valid: {', '.join(defaults)})")
        for k, v in given.items():
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise ValueError(f"{self.name}: weight {k} must be a number, got {v!r}")
        top_k = self.p["top_k"]
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError(f"{self.name}: top_k must be a positive integer, got {top_k!r}")
        self.noise = 0.0  # random jitter on look-ahead scores; the search's playouts set it
        self.w: dict[str, float] = {**defaults, **self.plan_weights,
                                    **{k: float(v) for k, v in given.items()}}
