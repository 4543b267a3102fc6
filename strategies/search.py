"""mcts: Monte Carlo search that plays any game through the protocol alone.

UCB1 over the root moves a game's heuristic offers (strategies/heuristic.py says what a heuristic
is; without one, every legal move), each simulation playing the move and then a playout by the
heuristic's policy for every seat to the end of the horizon, and scoring the leaf as this seat's
value minus its strongest opponent's. Perfect information is assumed after setup: the state is
cloned as it is, without determinisation.
"""

from __future__ import annotations

import math
import random
from types import ModuleType
from typing import Any, ClassVar

from strategies.base import Strategy
from strategies.heuristic import Heuristic

MAX_PLAYOUT_STEPS = 2000  # a safety net: no playout of a real game comes near it


class SearchStrategy(Strategy):
    name = "mcts"
    description = ("Monte Carlo search: UCB1 over the game heuristic's best root moves, "
                   "playouts by its policy to the round's end; the strongest and slowest bot.")
    params: ClassVar[dict[str, Any]] = {"simulations": 60, "candidates": 5, "horizon": 1,
                                        "exploration": 1.0, "rollout_noise": 0.6}
    kind = "search"

    def __init__(self, rng: random.Random, **params: Any):
        super().__init__(rng, **params)
        for key, low in (("simulations", 0), ("candidates", 1), ("horizon", 0)):
            v = self.p[key]
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ValueError(f"mcts: {key} must be an integer >= {low}, got {v!r}")
        for key in ("exploration", "rollout_noise"):
            if isinstance(self.p[key], bool) or not isinstance(self.p[key], int | float):
                raise ValueError(f"mcts: {key} must be a number, got {self.p[key]!r}")
        self.heuristic = self._heuristic(Heuristic)

    def _heuristic(self, cls: Any) -> Heuristic:
        return cls(self.rng, self.p["candidates"], float(self.p["rollout_noise"]))

    def bind(self, game: str, kit: ModuleType | None) -> None:
        super().bind(game, kit)
        self.heuristic = self._heuristic(getattr(kit, "HEURISTIC", Heuristic))

    def choose(self, state: Any, legal: list) -> Any:
        h = self.heuristic
        forced = h.decide(state, legal)
        if forced is not None:
            return forced
        seat = state.current_player()
        options = h.root_moves(state, legal)
        if len(options) == 1 or self.p["simulations"] <= len(options):
            return options[0][0][0]
        n = len(options)
        visits = [0] * n
        total = [0.0] * n
        c = float(self.p["exploration"])
        for i in range(n):  # every option once, so UCB has a mean for each
            total[i] += self.simulate(state, seat, options[i][0])
            visits[i] += 1
        for t in range(n, self.p["simulations"]):
            log_t = math.log(t + 1)
            i = max(range(n), key=lambda j: total[j] / visits[j]
                    + c * math.sqrt(log_t / visits[j]) + options[j][1] / (visits[j] + 1))
            total[i] += self.simulate(state, seat, options[i][0])
            visits[i] += 1
        best = max(range(n), key=lambda j: (total[j] / visits[j], visits[j], -j))
        return options[best][0][0]

    def simulate(self, state: Any, seat: int, seq: list[Any]) -> float:
        s = state.clone()
        for a in seq:
            s.apply(a)
        horizon = self.p["horizon"]
        last_round = state.round + horizon - 1 if horizon else math.inf
        h = self.heuristic
        steps = 0
        while not s.is_over() and steps < MAX_PLAYOUT_STEPS:
            if h.playout_over(s, last_round):
                break
            legal = s.legal_actions()
            s.apply(legal[0] if len(legal) == 1 else h.playout(s, legal))
            steps += 1
        values = h.values(s)
        return values[seat] - max(v for i, v in enumerate(values) if i != seat)
