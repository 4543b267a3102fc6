"""What the search bot knows of Terra Nova: greedy's best turn moves as root moves (an exchange
of charged power and the action it pays for count as one), a greedy playout policy (each root
move's first playout by its best guess, later ones noisy), playouts that stop at the end of the
next round, and leaves valued by the scripted bots' valuation's terms, weighed by how well they
foretell final VP (strategies/leaf.py; the fit lifted the search seat from 59.4% to 63.2% of
its 4-player games against the tuned mix).

Setup, town tiles, the Sea Dogs' river links, exchanges (the one after an action too) and free
edge houses are left to greedy: searching them buys little.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from strategies.heuristic import Heuristic
from strategies.terra_nova.greedy import GreedyStrategy
from strategies.terra_nova.valuation import TERMS, Context, terms, total
from strategies.weighted import Seated
from terra_sim.games.terra_nova.actions import Action
from terra_sim.games.terra_nova.scoring import network_size


class TerraNovaHeuristic(Heuristic):
    # Playouts to the end of the next round, each root move's first one by the policy's best
    # guess and a second one noisy. The valuation reads a round's end badly (what a turn builds
    # pays in the rounds after it): 60 noisy playouts to the round's end won 37.9% of the
    # search seat's games against the tuned mix, these 12 two rounds deep 59.4%, at 1.4 times
    # the cost (strategies/README.md, "The search bot's horizon"), with the plain valuation.
    search_defaults: ClassVar[dict[str, Any]] = {"horizon": 2, "simulations": 12,
                                                 "exact_first": True}
    leaf_names = TERMS

    def __init__(self, rng: random.Random, candidates: int, noise: float):
        super().__init__(rng, candidates, noise)
        # every seat is played and valued as the tuned bots play its faction
        self.guides, self.policies = Seated.guides_and_policies(GreedyStrategy, rng, noise)

    def decide(self, state: Any, legal: list) -> Any | None:
        if len(legal) == 1 or state.pending or state.stage != "actions" or state.window == 1:
            return self.guides.to_move(state).choose(state, legal)
        return None

    def root_moves(self, state: Any, legal: list) -> list[tuple[list[Any], float]]:
        """Greedy's look-ahead's best moves with a small prior from its scores; the best
        drop-out is always one of them."""
        g = self.guides.to_move(state)
        seat = state.current_player()
        p = state.players[seat]
        cands, extra = g.candidates(state, p, legal)
        scored: list[tuple[float, Action]] = []
        if cands:
            scored = g.evaluate(state, seat, p, g.prune(state, p, cands, extra), extra)
            scored.sort(key=lambda t: -t[0])
        options: list[tuple[list[Any], float]] = []
        for value, a in scored[: self.candidates]:
            seq = [Action("exchange", (extra[a],)), a] if a in extra else [a]
            options.append((seq, 0.1 * value))
        options.append(([g.choose_pass(state, p, legal)], 0.1 * g.w["pass_margin"]))
        return options

    def playout(self, state: Any, legal: list, memo: dict[str, Any]) -> Any:
        return self.policies.to_move(state).play_out(state, legal, memo, self.playout_noise)

    def playout_over(self, state: Any, last_round: float) -> bool:
        if state.stage in ("exchange", "final-exchange") and state.round >= last_round:
            return True
        return state.round > last_round

    def contexts(self, state: Any) -> list[Context]:
        """Each seat's valuation context, with its faction's tuned weights."""
        sizes = [network_size(state, q) for q in state.players]
        return [Context(i, self.guides[q].weights, 0, sizes[:i] + sizes[i + 1:])
                for i, q in enumerate(state.players)]

    def values(self, state: Any) -> list[float]:
        if state.is_over():
            return state.vp()
        leaf = self.leaf_model(len(state.players))
        out = []
        for i, (q, ctx) in enumerate(zip(state.players, self.contexts(state), strict=True)):
            t = terms(state, i, ctx)
            v = leaf.value(state.round, q.faction.slug, t) if leaf is not None else None
            # Without a fit, the valuation (its terms' total): it counts VP earned, and seats are
            # compared on the score, head starts included (a fit's faction constants hold them).
            out.append(total(t) + q.faction.start_vp if v is None else v)
        return out

    def leaf_terms(self, state: Any, seat: int) -> tuple[str, list[float]]:
        return state.players[seat].faction.slug, terms(state, seat, self.contexts(state)[seat])
