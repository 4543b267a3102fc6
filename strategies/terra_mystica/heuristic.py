"""What the search bot knows of Terra Mystica: greedy's best main actions as root moves (the
burns and conversions that pay for an action and the action count as one move), a greedy
playout policy (each root move's first playout by its best guess, later ones noisy), playouts
that stop at the end of the next round, and leaves valued by the scripted bots' valuation's
terms and counts of the position, weighed by how well they foretell final VP
(strategies/leaf.py).

Setup, follow-ups, power offers and the free actions after a turn's action are left to greedy:
searching them buys little.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from strategies.heuristic import Heuristic
from strategies.terra_mystica.greedy import GreedyStrategy
from strategies.terra_mystica.valuation import TERMS, Context, income_of, land_in_reach, terms
from strategies.weighted import Seated
from terra_sim.games.terra_mystica.player import Player
from terra_sim.games.terra_mystica.scoring import network_size
from terra_sim.games.terra_mystica.state import TerraMysticaState

# follow-ups a playout decides by the state alone (free spades queue their conversions: not kept)
KEPT = frozenset(("leech", "cult", "favor", "town", "bridge"))
# Counts of a position the leaf weighs beside the valuation's terms. The terms price a position
# for choosing one action, each at one weight for the whole game; a fit of the counts as well
# can price a worker or a temple by the round, as the games ended. On 1,000 held-out games they
# explain a little more of final VP's spread (round 3: 0.424 -> 0.463), and the search seat
# gains about 3 VP of margin a game (strategies/terra_mystica/README.md, "The search bot's leaf
# value").
FEATURES = ("coins", "workers", "priests", "power_1", "power_2", "power_3", "coin_income",
            "worker_income", "priest_income", "power_income", "dwellings", "trading_houses",
            "temples", "strongholds", "sanctuaries", "shipping", "digging", "cult_1", "cult_2",
            "cult_3", "cult_4", "keys", "network_size", "favor_tiles", "town_tiles",
            "free_land_in_reach", "top_cult")


def features(s: TerraMysticaState, p: Player) -> list[float]:
    """p's counts named by FEATURES."""
    inc = income_of(s, p)
    b = p.b
    return [float(x) for x in (
        p.coins, p.workers, p.priests, p.p1, p.p2, p.p3, inc["C"], inc["W"], inc["P"], inc["PW"],
        b["D"].bit_count(), b["TP"].bit_count(), b["TE"].bit_count(), b["SH"].bit_count(),
        b["SA"].bit_count(), p.ship, p.dig, *p.cults, p.keys, network_size(s, p), len(p.favors),
        len(p.town_tiles), land_in_reach(s, p).bit_count(), max(p.cults))]


class TerraMysticaHeuristic(Heuristic):
    # Playouts to the end of the next round, each root move's first one by the policy's best
    # guess: at the default budget every root move is played once along its most likely line.
    # A round's end values a position badly here (what a turn builds pays in the rounds after
    # it), and one exact look two rounds ahead beats ten noisy ones to the round's end at the
    # same cost (strategies/README.md, "The search bot's horizon").
    search_defaults: ClassVar[dict[str, Any]] = {"horizon": 2, "simulations": 6,
                                                 "exact_first": True}
    leaf_names = TERMS + FEATURES
    leaf_features = FEATURES

    def __init__(self, rng: random.Random, candidates: int, noise: float):
        super().__init__(rng, candidates, noise)
        # every seat is played and valued as the tuned bots play its faction
        self.guides, self.policies = Seated.guides_and_policies(GreedyStrategy, rng, noise)

    def decide(self, state: Any, legal: list) -> Any | None:
        if (len(legal) == 1 or state.pending or state.stage != "play"
                or not state.actions_left):
            return self.guides.to_move(state).choose(state, legal)
        return None

    def root_moves(self, state: Any, legal: list) -> list[tuple[list[Any], float]]:
        """Greedy's look-ahead's best moves with a small prior from its scores; greedy's pass is
        always one of them."""
        g = self.guides.to_move(state)
        seat = state.current_player()
        p = state.players[seat]
        scored, cands = g.ranked(state, seat, p, legal)
        options: list[tuple[list[Any], float]] = []
        for value, a in scored[: self.candidates]:
            options.append(([*cands[a], a], 0.1 * value))
        passes = [a for a in legal if a.kind == "pass"]
        if passes:
            best = g.choose_pass(state, p, legal)
            seq = [best, *g.queued] if best.kind != "pass" else [best]
            g.queued = []
            options.append((seq, 0.1 * g.w["pass_margin"]))
        return options or [([legal[0]], 0.0)]

    def playout(self, state: Any, legal: list, memo: dict[str, Any]) -> Any:
        bot = self.policies.to_move(state)
        if state.pending and state.pending[0][0] in KEPT and not bot.queued:
            # an offer, a cult step, a tile or a bridge: a function of the state alone (no
            # noise, nothing queued), so a state reached again decides as it did
            a = memo.get("pending")
            if a is None:
                a = memo["pending"] = bot.choose(state, legal)
            return a
        return bot.play_out(state, legal, memo, self.playout_noise)

    def values(self, state: Any) -> list[float]:
        if state.is_over():
            return [float(v) for v in state.vp()]
        leaf = self.leaf_model(len(state.players))
        out = []
        for i in range(len(state.players)):
            faction, t = self.leaf_terms(state, i)
            v = leaf.value(state.round, faction, t) if leaf is not None else None
            # without a fit: the valuation, its terms' sum
            out.append(sum(t[: len(TERMS)]) if v is None else v)
        return out

    def leaf_terms(self, state: Any, seat: int) -> tuple[str, list[float]]:
        q = state.players[seat]
        t = terms(state, seat, Context.of(state, seat, self.guides[q].w))
        return q.faction.slug, t + features(state, q)
