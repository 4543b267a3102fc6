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
from strategies.weighted import Seated
from terra_sim.games.terramara.player import CAT


class TerramaraHeuristic(Heuristic):
    def __init__(self, rng: random.Random, candidates: int, noise: float):
        super().__init__(rng, candidates, noise)
        # every seat is played and valued as the tuned bots play its character
        self.guides, self.policies = Seated.guides_and_policies(GreedyStrategy, rng, noise)

    def decide(self, state: Any, legal: list) -> Any | None:
        """Everything but the member sent is greedy's; so is a turn's free action or flip."""
        guide = self.guides.to_move(state)
        if len(legal) == 1 or state.pending or state.phase != 0:
            return guide.choose(state, legal)
        first = guide.choose(state, legal)
        return first if first.kind not in ("explorer", "chief") else None

    def root_moves(self, state: Any, legal: list) -> list[tuple[list[Any], float]]:
        """Greedy's look-ahead's best placements, with a small prior from its scores."""
        seat = state.current_player()
        scored = self.guides.to_move(state).ranked(state, seat, legal)
        options = [([a], 0.1 * v) for v, a in scored[: self.candidates]]
        return options or [([legal[0]], 0.0)]

    def playout(self, state: Any, legal: list, memo: dict[str, Any]) -> Any:
        return self.policies.to_move(state).play_out(state, legal, memo, self.playout_noise)

    def values(self, state: Any) -> list[float]:
        if state.is_over():
            return [float(v) for v in state.vp()]
        # The valuation counts VP earned; seats are compared on the score, head starts included.
        return [valuation(state, i, Context.of(state, self.guides[q].w)) + q.vp[CAT["start"]]
                for i, q in enumerate(state.players)]
