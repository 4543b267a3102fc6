"""mcts: Monte Carlo tree search that plays any game through the protocol alone.

Each decision grows a tree from the current state. A node is a decision the game's heuristic
finds worth searching (strategies/heuristic.py says what a heuristic is; without one, every
legal move of every decision): its moves are the heuristic's root moves, chosen by UCB1 for the
seat that decides there. A simulation walks down the tree, plays a playout by the heuristic's
policy for every seat to the end of the horizon, values the leaf for every seat as its value
minus its strongest opponent's, and credits each node on the way with its own seat's share
(max^n backup, for any number of players). A move's child node is grown once the move has been
tried `expand_after` times; 0 grows none, which is flat Monte Carlo over the root moves. With
`exact_first`, a root move's first playout follows the policy's best guess (no noise) and only
its later ones stray: a small budget then spends itself on the most likely line of each move,
a larger one adds samples around it.

A game's heuristic may set the search's defaults for its game (`search_defaults`); parameters
given to the bot override them.

Perfect information is assumed after setup: states are cloned as they are, without
determinisation. Decisions the heuristic makes without search (`decide`) are played on the way
down; where they or a stored move no longer fit the state, the walk stops and the playout starts.

The games are deterministic, so the same moves from the root reach the same state: a `Memo` per
decision keeps what was worked out at each state reached (its legal moves, the playout policy's
look-ahead and follow-ups, a leaf's values) for the simulations that pass there again. Most do:
a noisy policy mostly plays its best guess, and in the slowest shipped game four in five of the
playout look-aheads were repeats. The games played are the same with it or without; they cost a
third (the look-ahead kept), and a sixth to 30% less again in the shipped games (the legal
moves kept: listing them had become the costliest call of a playout).
"""

from __future__ import annotations

import gc
import math
import random
from types import ModuleType
from typing import Any, ClassVar

from strategies.base import Strategy
from strategies.heuristic import Heuristic

MAX_PLAYOUT_STEPS = 2000  # a safety net: no playout of a real game comes near it


class Node:
    """One searched decision: the seat that decides, its moves with their priors and tallies."""

    __slots__ = ("seat", "moves", "priors", "visits", "total", "children")

    def __init__(self, seat: int, options: list[tuple[list[Any], float]]):
        self.seat = seat
        self.moves = [seq for seq, _ in options]
        self.priors = [prior for _, prior in options]
        self.visits = [0] * len(options)
        self.total = [0.0] * len(options)
        self.children: dict[int, Node] = {}

    def select(self, c: float) -> int:
        """Every move once, in the heuristic's order; then UCB1 plus the prior's fading bonus."""
        visits = self.visits
        for i, v in enumerate(visits):
            if not v:
                return i
        log_t = math.log(sum(visits) + 1)
        return max(range(len(visits)), key=lambda j: self.total[j] / visits[j]
                   + c * math.sqrt(log_t / visits[j]) + self.priors[j] / (visits[j] + 1))

    def best(self) -> int:
        return max(range(len(self.visits)),
                   key=lambda j: (self.total[j] / self.visits[j], self.visits[j], -j))


class Memo:
    """The states one search reached, keyed by the moves from the root, with what the
    heuristic computed at each (`data`)."""

    __slots__ = ("next", "data")

    def __init__(self) -> None:
        self.next: dict[Any, Memo] = {}
        self.data: dict[str, Any] = {}

    def after(self, a: Any) -> Memo:
        m = self.next.get(a)
        if m is None:
            m = self.next[a] = Memo()
        return m


class SearchStrategy(Strategy):
    name = "mcts"
    description = ("Monte Carlo tree search: UCB1 over the game heuristic's best moves, "
                   "playouts by its policy to the horizon (the round's end unless the game "
                   "sets another); the "
                   "strongest and slowest bot. Its budget, simulations a decision, is "
                   "mcts:budget=N.")
    params: ClassVar[dict[str, Any]] = {"simulations": 60, "candidates": 5, "horizon": 1,
                                        "exploration": 1.0, "rollout_noise": 0.6,
                                        "expand_after": 0, "exact_first": False}
    kind = "search"

    def __init__(self, rng: random.Random, **params: Any):
        if "budget" in params:  # the search's budget, by its everyday name: mcts:budget=120
            if "simulations" in params:
                raise ValueError("mcts: budget is another name for simulations: give one")
            params["simulations"] = params.pop("budget")
        super().__init__(rng, **params)
        self.given = frozenset(params)  # what the game's search_defaults may not override
        self._check()
        self.heuristic = self._heuristic(Heuristic)
        self.at = Memo()  # the memo of the state a simulation has reached
        # The last decision's root moves (none when the heuristic decided it unsearched) and
        # the index of the one played: a bench reads what the search chose beside them.
        self.options: list[tuple[list[Any], float]] = []
        self.picked = 0

    def _check(self) -> None:
        for key, low in (("simulations", 0), ("candidates", 1), ("horizon", 0),
                         ("expand_after", 0)):
            v = self.p[key]
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ValueError(f"mcts: {key} must be an integer >= {low}, got {v!r}")
        for key in ("exploration", "rollout_noise"):
            if isinstance(self.p[key], bool) or not isinstance(self.p[key], int | float):
                raise ValueError(f"mcts: {key} must be a number, got {self.p[key]!r}")
        if not isinstance(self.p["exact_first"], bool):
            raise ValueError(f"mcts: exact_first must be true or false, got "
                             f"{self.p['exact_first']!r}")

    def _heuristic(self, cls: Any) -> Heuristic:
        return cls(self.rng, self.p["candidates"], float(self.p["rollout_noise"]))

    @classmethod
    def defaults(cls, kit: ModuleType | None) -> dict[str, Any]:
        """The parameters the bot plays a game with when given none: its own defaults under its
        game heuristic's `search_defaults`."""
        return {**cls.params, **getattr(kit, "HEURISTIC", Heuristic).search_defaults}

    def bind(self, game: str, kit: ModuleType | None) -> None:
        super().bind(game, kit)
        cls = getattr(kit, "HEURISTIC", Heuristic)
        self.p.update({k: v for k, v in self.defaults(kit).items() if k not in self.given})
        self._check()
        self.heuristic = self._heuristic(cls)

    def choose(self, state: Any, legal: list) -> Any:
        self.options = []
        forced = self.heuristic.decide(state, legal)
        if forced is not None:
            return forced
        options = self.heuristic.root_moves(state, legal)
        self.options = options
        # a budget short of a playout a root move searches the heuristic's best ones
        searched = options[:max(1, self.p["simulations"])]
        if len(searched) == 1:
            self.picked = 0
            return options[0][0][0]
        root = Node(state.current_player(), searched)
        horizon = self.p["horizon"]
        last_round = state.round + horizon - 1 if horizon else math.inf
        memo = Memo()
        # The collector is paused for the search: its passes over the growing memo cost 7% of
        # a search game in the slowest shipped game and found nothing (a whole search game
        # leaves a few hundred objects in cycles): the states, moves and memo hold none.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for _ in range(self.p["simulations"]):
                self.at = memo
                self.simulate(state, root, last_round)
        finally:
            if collecting:
                gc.enable()
        self.at = Memo()
        self.picked = root.best()
        return root.moves[self.picked][0]

    def _apply(self, s: Any, a: Any) -> None:
        s.apply(a)
        self.at = self.at.after(a)

    def simulate(self, state: Any, root: Node, last_round: float) -> None:
        h = self.heuristic
        c = float(self.p["exploration"])
        grow = self.p["expand_after"]
        s = state.clone()
        path: list[tuple[Node, int]] = []
        node, legal = root, None
        while True:
            i = node.select(c)
            if legal is None:  # the root: its moves come from this very state
                h.exact = self.p["exact_first"] and not node.visits[i]
                for a in node.moves[i]:
                    self._apply(s, a)
            elif not self._play(s, node.moves[i], legal):
                break
            path.append((node, i))
            child = node.children.get(i)
            if not grow or child is None and node.visits[i] + 1 < grow:
                break
            legal = self._advance(s, last_round)
            if legal is None:
                break
            if child is None:
                child = node.children[i] = Node(s.current_player(), h.root_moves(s, legal))
            elif s.current_player() != child.seat:
                break
            node = child
        self._playout(s, last_round)
        values = self.at.data.get("values")
        if values is None:
            values = self.at.data["values"] = h.values(s)
        for n, i in path:
            n.visits[i] += 1
            n.total[i] += values[n.seat] - max(v for k, v in enumerate(values) if k != n.seat)

    def _advance(self, s: Any, last_round: float) -> list | None:
        """Play the decisions the heuristic takes without search; the legal moves of the next
        searched one, or None when the game or the horizon ends first."""
        h = self.heuristic
        while not s.is_over() and not h.playout_over(s, last_round):
            legal = s.legal_actions()
            forced = h.decide(s, legal)
            if forced is None:
                return legal
            self._apply(s, forced)
        return None

    def _play(self, s: Any, seq: list[Any], legal: list) -> bool:
        """Play a stored move below the root if it is still legal: the decisions played without
        search on the way down may have come out otherwise this time."""
        for k, a in enumerate(seq):
            if a not in (legal if k == 0 else s.legal_actions()):
                return False
            self._apply(s, a)
        return True

    def _playout(self, s: Any, last_round: float) -> None:
        h = self.heuristic
        steps = 0
        while not s.is_over() and steps < MAX_PLAYOUT_STEPS:
            if h.playout_over(s, last_round):
                break
            data = self.at.data
            legal = data.get("legal")
            if legal is None:  # a state reached before has the same moves: the costliest call
                legal = data["legal"] = s.legal_actions()
            self._apply(s, legal[0] if len(legal) == 1 else h.playout(s, legal, data))
            steps += 1
