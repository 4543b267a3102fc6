"""Greedy: a one-ply look-ahead over a cheaply pruned candidate list, scored by a valuation.

The plans in plans.py are this bot with other weights and a few plan-specific biases, so the
decision logic for every kind of decision (setup, turns, drop-out tiles, town tiles, the Sea
Dogs' river links, power exchanges, free edge houses) lives here once.
"""

from __future__ import annotations

import random
from typing import Any

from strategies.terra_nova import prefilter
from strategies.terra_nova.valuation import (
    DEFAULT_WEIGHTS,
    Context,
    Weights,
    bonus_tile_value,
    hex_scores,
    placement_score,
    town_tile_value,
    valuation,
)
from strategies.weighted import WeightedStrategy
from terra_sim.core.hexmap import bits
from terra_sim.games.terra_nova.actions import Action
from terra_sim.games.terra_nova.moves import RIVER_CHOICE, UNBOUNDED, power_per_turn
from terra_sim.games.terra_nova.scoring import mat_income


class GreedyStrategy(WeightedStrategy):
    name = "greedy"
    description = ("One-ply look-ahead: prunes the legal actions with a cheap estimate, then "
                   "scores the resulting states (VP, money, power, income by rounds left).")
    games = ("terra-nova",)
    vp_affects_play = False  # its valuation counts VP earned, never the score
    default_weights = DEFAULT_WEIGHTS
    family = "greedy"

    def __init__(self, rng: random.Random, **params: Any):
        super().__init__(rng, **params)
        self.weights = Weights(**self.w)  # what the (compiled) valuation reads

    def seat(self, faction: str) -> None:
        super().seat(faction)
        self.weights = Weights(**self.w)  # the faction's tuned file may have changed w

    # ----- dispatch ----------------------------------------
    def choose(self, state: Any, legal: list) -> Any:
        if not self.seated:
            self.seat(self.faction_of(state.players[state.current_player()]))
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player()
        p = state.players[seat]
        if state.pending:
            if legal[0].kind == "town":
                return self.choose_town(state, p, legal)
            if legal[0] in RIVER_CHOICE:
                return self.choose_river(state, seat, legal)
            return self.choose_edge(state, p, legal)
        stage = state.stage
        if stage == "setup-house":
            return self.choose_place(state, p, legal)
        if stage in ("setup-neutral", "lucky"):
            return self.choose_neutral(state, p, legal)
        if stage == "setup-bonus":
            return self.choose_tile(state, p, legal, 1)
        if stage in ("exchange", "final-exchange"):
            return self.choose_exchange(state, p, legal, stage == "final-exchange")
        if state.window == 1:
            return self.choose_after(state, seat, p, legal)
        return self.choose_turn(state, seat, p, legal)

    # ----- plan hooks ----------------------------------------
    def bias(self, state: Any, p: Any, a: Action) -> float:
        """A plan's extra liking for an action, added to its look-ahead score."""
        return 0.0

    def tile_bias(self, state: Any, p: Any, tile: str, r: int) -> float:
        return 0.0

    def palace_side_value(self, state: Any, p: Any, side: str) -> float:
        return 0.0

    # ----- non-turn decisions ----------------------------------------
    def choose_town(self, state: Any, p: Any, legal: list) -> Action:
        return max(legal, key=lambda a: (town_tile_value(state, p, a.args[0], self.weights),
                                         a.args))

    def choose_river(self, state: Any, seat: int, legal: list) -> Action:
        """Sea Dogs: towns across the river or not, whichever the valuation likes better (a town
        now, or buildings kept loose for more towns later)."""
        ctx = Context.of(state, seat, self.weights)
        scored = []
        for a in legal:
            c = state.clone()
            c.apply(a)
            # a tie keeps the buildings loose: they may yet help found another town
            scored.append((valuation(c, seat, ctx), a == RIVER_CHOICE[1], a))
        return max(scored, key=lambda t: (t[0], t[1]))[2]

    def settle(self, state: Any, seat: int) -> None:
        """Answer a look-ahead state's river decision as this bot would, so the town it founds
        (or the one it keeps for later) counts in the action's score."""
        while state.pending and state.pending[0] == ("river", seat):
            state.apply(self.choose_river(state, seat, RIVER_CHOICE))

    def choose_edge(self, state: Any, p: Any, legal: list) -> Action:
        houses = [a for a in legal if a.kind == "edge-house"]
        if not houses:
            return legal[0]
        scores = hex_scores(state, p, sum(1 << a.args[0] for a in houses), self.weights)
        return max(houses, key=lambda a: (scores[a.args[0]], -a.args[0]))

    def choose_place(self, state: Any, p: Any, legal: list) -> Action:
        return max(legal, key=lambda a: placement_score(state, p, a.args[0], self.weights)
                   + 0.05 * self.rng.random())

    def choose_neutral(self, state: Any, p: Any, legal: list) -> Action:
        """A neutral house: where it hurts the opponents' home ground and spares ours."""
        adj = state.data.map.neigh
        mine = p.faction.home
        theirs = {q.faction.home for q in state.players if q is not p}

        def score(a: Action) -> float:
            h = a.args[0]
            s = 0.0
            for x in bits(adj[h] & state.data.map.land):
                t = state.terrain[x]
                s += (1.0 if t in theirs else 0.0) - (1.0 if t == mine else 0.0)
                if any(q.buildings >> x & 1 for q in state.players if q is not p):
                    s += 0.5
            return s + 0.01 * self.rng.random()

        return max(legal, key=score)

    def choose_tile(self, state: Any, p: Any, legal: list, r: int) -> Action:
        def score(a: Action) -> float:
            t = a.args[0]
            return (bonus_tile_value(state, p, t, state.supply.get(t, 0), r, self.weights)
                    + self.scale * self.tile_bias(state, p, t, r))

        return max(legal, key=lambda a: (score(a), a.args))

    def choose_exchange(self, state: Any, p: Any, legal: list, final: bool) -> Action:
        """End of round: spend only what next income would push past a full bowl III."""
        druid = Action("druid-vp")
        if final:
            return druid if druid in legal else Action("done")
        coins, power = mat_income(state, p)
        if p.bonus:
            power += state.data.bonus_tiles[p.bonus]["power"]
        overflow = power - (2 * p.p1 + p.p2)
        ptv = p.eff.get("power_to_vp")
        if druid in legal and (overflow > 0 or p.p3 >= ptv[0] + 4):
            return druid
        if overflow > 0 and p.p3:
            k = min(p.p3, (overflow + 1) // 2)
            return Action("exchange", (k,))
        return Action("done")

    def choose_after(self, state: Any, seat: int, p: Any, legal: list) -> Action:
        """After the action: spend what the others' likely building next to us would push past
        a full bowl III before our next chance to exchange (bowl I takes 2 per token)."""
        room = 2 * p.p1 + p.p2
        most = power_per_turn(state, seat, UNBOUNDED)  # each other player's best spot, once
        # about half of that before our next turn; about all of it once we are out and the
        # others go on acting until the round ends
        overflow = (most if p.passed else most // 2) - room
        if overflow <= 0:
            return Action("done")
        druid = Action("druid-vp")
        if druid in legal:
            return druid
        return Action("exchange", (min(p.p3, (overflow + 1) // 2),))

    # ----- turns ----------------------------------------
    def candidates(self, state: Any, p: Any, legal: list) -> tuple[list[Action], dict]:
        """Turn actions, plus those that an exchange of charged power would pay for."""
        acts = [a for a in legal if a.kind not in prefilter.FREE_KINDS]
        extra: dict[Action, int] = {}
        if p.p3 and any(a.kind == "exchange" for a in legal):
            c = state.clone()
            c.apply(Action("exchange", (p.p3,)))
            extra = prefilter.paid_by_exchange(state, p, c.legal_actions(), acts)
        return acts + list(extra), extra

    def prune(self, state: Any, p: Any, cands: list[Action], extra: dict) -> list[Action]:
        return prefilter.prune(state, p, cands, extra, self.weights, self.p["top_k"], self.bias,
                               self.palace_side_value, self.scale)

    def evaluate(self, state: Any, seat: int, p: Any, top: list[Action],
                 extra: dict) -> list[tuple[float, Action]]:
        """Look-ahead scores (valuation gain plus plan bias) of the candidate actions."""
        ctx = Context.of(state, seat, self.weights)
        base = valuation(state, seat, ctx)
        out = []
        for a in top:
            c = state.clone()
            if a in extra:
                c.apply(Action("exchange", (extra[a],)))
            c.apply(a)
            if c.pending:
                self.settle(c, seat)
            out.append((valuation(c, seat, ctx) - base + self.scale * self.bias(state, p, a), a))
        return out

    def choose_turn(self, state: Any, seat: int, p: Any, legal: list) -> Action:
        cands, extra = self.memoised("candidates", lambda: self.candidates(state, p, legal))
        best: Action | None = None
        if cands:
            scored = self.memoised("scored", lambda: self.evaluate(
                state, seat, p, self.prune(state, p, cands, extra), extra))
            if self.noise:
                scored = [(v + self.noise * self.rng.random(), a) for v, a in scored]
            value, best = max(scored, key=lambda t: t[0])
            if value < self.weights.pass_margin:
                best = None
        if best is None:
            return self.choose_pass(state, p, legal)
        if best in extra:
            return Action("exchange", (extra[best],))
        return best

    def choose_pass(self, state: Any, p: Any, legal: list) -> Action:
        passes = [a for a in legal if a.kind == "pass"]
        if len(passes) == 1:
            return passes[0]
        if state.round >= state.data.rounds:  # the last tile pays only the coins on it
            return max(passes, key=lambda a: (state.supply[a.args[0]], a.args))
        return self.choose_tile(state, p, passes, state.round + 1)
