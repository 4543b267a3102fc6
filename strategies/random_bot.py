from typing import Any

from strategies.base import Strategy


class RandomStrategy(Strategy):
    name = "random"
    description = "Uniform over the legal actions (seeded); the baseline every bot must beat."
    kind = "baseline"
    vp_affects_play = False

    def choose(self, state: Any, legal: list) -> Any:
        return legal[self.rng.randrange(len(legal))]
