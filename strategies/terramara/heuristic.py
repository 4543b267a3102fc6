"""What the search bot knows of Terramara: greedy's best clan members to send as root moves, a
noisy greedy playout policy, playouts that stop at the round's end, and leaves valued by the
scripted bots' valuation.

The free actions, the choices a space queues, a raid's resources handed over and the Artifact
after the action are left to greedy: searching them buys little.
"""

from __future__ import annotations

import random
from typing import Any

from strategies.heuristic import Heuristic
from strategies.terramara.greedy import GreedyStrategy
from strategies.terramara.valuation import Context, valuation
from terra_sim.games.terramara.player import CAT


class TerramaraHeuristic(Heuristic):
    def __init__(self, rng: random.Random, candidates: int, noise: float):
        super().__init__(rng, candidates, noise)
        self.guide = GreedyStrategy(rng)
        self.policy = GreedyStrategy(rng, top_k=2)
        self.policy.noise = noise
        # they play every seat: the family's tuned weights, never one faction's
        self.guide.seated = self.policy.seated = True

    def decide(self, state: Any, legal: list) -> Any | None:
        """Everything but the member sent is greedy's; so is a turn's free action or flip."""
        if len(legal) == 1 or state.pending or state.phase != 0:
            return self.guide.choose(state, legal)
        first = self.guide.choose(state, legal)
        return first if first.kind not in ("explorer", "chief") else None

    def root_moves(self, state: Any, legal: list) -> list[tuple[list[Any], float]]:
        """Greedy's look-ahead's best placements, with a small prior from its scores."""
        seat = state.current_player()
        scored = self.guide.ranked(state, seat, legal)
        options = [([a], 0.1 * v) for v, a in scored[: self.candidates]]
        return options or [([legal[0]], 0.0)]

    def playout(self, state: Any, legal: list, memo: dict[str, Any]) -> Any:
        self.policy.memo = memo
        a = self.policy.choose(state, legal)
        self.policy.memo = None
        return a

    def values(self, state: Any) -> list[float]:
        if state.is_over():
            return [float(v) for v in state.vp()]
        ctx = Context.of(state, self.guide.w)
        # The valuation counts VP earned; seats are compared on the score, head starts included.
        return [valuation(state, i, ctx) + q.vp[CAT["start"]] for i, q in enumerate(state.players)]
