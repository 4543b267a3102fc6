"""mcts: flat Monte Carlo search (UCB1 over a pruned set of root moves) with greedy rollouts.

The game has no hidden information after setup, so no determinisation is needed. Each
simulation plays the chosen root move, then lets a noisy greedy policy (a small candidate list,
cheap) play every seat to the end of the current round (`horizon` rounds), and scores the leaf
by the valuation of this seat against its best opponent. Setup, town tiles and exchanges are
left to the greedy policy: searching them buys little.
"""

from __future__ import annotations

import math
import random
from typing import Any, ClassVar

from strategies.base import Strategy
from strategies.greedy import GreedyStrategy
from strategies.valuation import Context, valuation
from terra_sim.games.terra_nova.actions import Action
from terra_sim.games.terra_nova.scoring import network_size


class MctsStrategy(Strategy):
    name = "mcts"
    description = ("Flat Monte Carlo search: UCB1 over greedy's best root moves, noisy greedy "
                   "rollouts to the round's end; the strongest and slowest bot.")
    params: ClassVar[dict[str, Any]] = {"simulations": 60, "candidates": 5, "horizon": 1,
                                        "exploration": 1.0, "rollout_noise": 0.6}
    games = ("terra-nova",)

    def __init__(self, rng: random.Random, **params: Any):
        super().__init__(rng, **params)
        for key in ("simulations", "candidates", "horizon"):
            v = self.p[key]
            if isinstance(v, bool) or not isinstance(v, int) or v < (0 if key == "simulations"
                                                                       else 1):
                raise ValueError(f"mcts: {key} must be a positive integer, got {v!r}")
        for key in ("exploration", "rollout_noise"):
            if isinstance(self.p[key], bool) or not isinstance(self.p[key], int | float):
                raise ValueError(f"mcts: {key} must be a number, got {self.p[key]!r}")
        self.guide = GreedyStrategy(rng)
        self.policy = GreedyStrategy(rng, top_k=2)
        self.policy.noise = float(self.p["rollout_noise"])

    def choose(self, state: Any, legal: list) -> Any:
        if len(legal) == 1 or state.pending or state.stage != "actions":
            return self.guide.choose(state, legal)
        seat = state.current_player()
        p = state.players[seat]
        options = self.root_options(state, seat, p, legal)
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

    def root_options(self, state: Any, seat: int, p: Any,
                     legal: list) -> list[tuple[list[Action], float]]:
        """Root moves as action sequences (an exchange, then the action it pays for) with a
        small prior from greedy's look-ahead; the best drop-out is always one of them."""
        g = self.guide
        cands, extra = g.candidates(state, p, legal)
        scored: list[tuple[float, Action]] = []
        if cands:
            scored = g.evaluate(state, seat, p, g.prune(state, p, cands, extra), extra)
            scored.sort(key=lambda t: -t[0])
        options: list[tuple[list[Action], float]] = []
        for value, a in scored[: self.p["candidates"]]:
            seq = [Action("exchange", (extra[a],)), a] if a in extra else [a]
            options.append((seq, 0.1 * value))
        options.append(([g.choose_pass(state, p, legal)], 0.1 * g.w["pass_margin"]))
        return options

    def simulate(self, state: Any, seat: int, seq: list[Action]) -> float:
        s = state.clone()
        for a in seq:
            s.apply(a)
        end_round = state.round + self.p["horizon"] - 1
        policy = self.policy
        steps = 0
        while not s.is_over() and steps < 2000:
            if s.stage in ("exchange", "final-exchange") and s.round >= end_round:
                break
            if s.round > end_round:
                break
            legal = s.legal_actions()
            s.apply(legal[0] if len(legal) == 1 else policy.choose(s, legal))
            steps += 1
        return self.leaf(s, seat)

    def leaf(self, s: Any, seat: int) -> float:
        """This seat's valuation minus its strongest opponent's."""
        if s.is_over():
            vp = s.vp()
            return vp[seat] - max(v for i, v in enumerate(vp) if i != seat)
        w = self.guide.w
        sizes = [network_size(s, q) for q in s.players]
        values = []
        for i in range(len(s.players)):
            ctx = Context.__new__(Context)
            ctx.seat, ctx.w = i, w
            ctx.fut = 0
            ctx.others_network = sizes[:i] + sizes[i + 1:]
            values.append(valuation(s, i, ctx))
        return values[seat] - max(v for i, v in enumerate(values) if i != seat)
