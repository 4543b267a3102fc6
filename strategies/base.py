"""The strategy protocol: built with a seeded random stream and parameters, asked to choose."""

import random
from typing import Any, ClassVar


class Strategy:
    """A bot. Subclasses set `name`, `description`, `params` (defaults) and implement `choose`."""

    name: ClassVar[str] = "strategy"
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Any]] = {}
    games: ClassVar[tuple[str, ...]] = ()  # empty: plays any game

    def __init__(self, rng: random.Random, **params: Any):
        unknown = set(params) - set(self.params)
        if unknown:
            raise ValueError(f"{self.name}: unknown parameters {sorted(unknown)} "
                             f"(valid: {', '.join(self.params) or 'none'})")
        self.rng = rng
        self.p = {**self.params, **params}

    def choose(self, state: Any, legal: list) -> Any:
        """One of `legal` for the decision `state` is waiting on (state.current_player())."""
        raise NotImplementedError
