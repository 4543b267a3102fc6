"""Greedy: a one-ply look-ahead over a cheaply pruned candidate list, scored by a valuation.

Every decision of the game comes here: setup dwellings and bonus tiles, turns (a main action
and the burns and conversions that pay for it, planned together), follow-ups (favour and town
tiles, cult steps, free spades and the factions' one-shot moves, bridges), power offers and
the free actions after a turn's action. The plans in plans.py are this bot with other weights
and a few plan-specific biases.
"""

from __future__ import annotations

import random
from typing import Any

from strategies.terra_mystica import prefilter
from strategies.terra_mystica.funding import action_cost, funded_actions, plan_funding, potential
from strategies.terra_mystica.valuation import (
    DEFAULT_WEIGHTS,
    Context,
    Prices,
    best_track,
    bonus_tile_value,
    favor_value,
    town_tile_value,
    valuation,
)
from strategies.weighted import WeightedStrategy
from terra_sim.core.hexmap import bits
from terra_sim.games.terra_mystica import moves
from terra_sim.games.terra_mystica.actions import Action
from terra_sim.games.terra_mystica.player import Player
from terra_sim.games.terra_mystica.state import TerraMysticaState

DONE = Action("done")
FREE_KINDS = ("burn", "convert", "connect", "done")
# The follow-ups a look-ahead plays out for the actor, and how many at most (a bound that
# only a runaway could reach: a town tile, cult steps, a bridge and up to 3 spades' moves).
# A favour tile stays owed: its VP for buildings and passes to come is counted only while it
# is (pending_value), not once taken.
SETTLED = ("spades", "bridge", "town", "cult")
SETTLE_STEPS = 12
# A starting dwelling is scored by the free land around it, each hex by the spades it takes to
# make it home terrain (the start_* weights). The base map never sets a terrain beside itself,
# so home terrain next to a start is rare and the cheap land is one spade away. Counting home
# terrain alone, the bots started with 1.6 hexes of cheap land (home or one spade) in reach
# where the players of the real games had 3.1 (the README's "Where the starts are").
START_WEIGHTS = ("start_home", "start_spade", "start_spade2", "start_spade3")


class GreedyStrategy(WeightedStrategy):
    name = "greedy"
    description = ("One-ply look-ahead: prunes the main actions (with the conversions that would "
                   "pay for them) by a cheap estimate, then scores the resulting states (VP, "
                   "resources, income by rounds left, network, cults, towns, abilities).")
    games = ("terra-mystica",)
    default_weights = DEFAULT_WEIGHTS
    family = "greedy"

    def __init__(self, rng: random.Random, **params: Any):
        super().__init__(rng, **params)
        # The rest of a turn already decided: conversions still to issue, then their action.
        self.queued: list[Action] = []
        self.queued_for: tuple = ()
        # The state the queue belongs to, held (not its id(): a search's clones come and go, and
        # a new one may reuse a dead one's id, which made games depend on the allocator).
        self.queued_state: Any = None

    # ----- dispatch ----------------------------------------
    def choose(self, state: Any, legal: list) -> Any:
        if not self.seated:
            self.seat(self.faction_of(state.players[state.current_player()]))
        if len(legal) == 1:
            return legal[0]
        seat = state.current_player()
        p = state.players[seat]
        if (self.queued and state is self.queued_state
                and self.queued_for == self.turn_key(state, seat)):
            a = self.queued.pop(0)
            if a in legal:
                return a
        self.queued = []
        if state.pending:
            return self.choose_pending(state, p, legal)
        if state.stage == "setup-dwelling":
            return self.choose_place(state, p, legal)
        if state.stage == "setup-bonus":
            return self.choose_tile(state, p, legal, 1)
        if state.actions_left:
            return self.choose_turn(state, seat, p, legal)
        return self.choose_after(state, p, legal)

    @staticmethod
    def turn_key(state: TerraMysticaState, seat: int) -> tuple:
        return (state.round, seat, state.turn, state.actions_left, len(state.pending))

    def start(self, state: TerraMysticaState, seat: int, seq: list[Action]) -> Action:
        """Play seq's first action now and the rest on the next calls of this decision."""
        self.queued = seq[1:]
        self.queued_state = state
        self.queued_for = self.turn_key(state, seat)
        return seq[0]

    # ----- plan hooks ----------------------------------------
    def bias(self, state: TerraMysticaState, p: Player, a: Action) -> float:
        """A plan's extra liking for a main action, added to its look-ahead score."""
        return 0.0

    def tile_bias(self, state: TerraMysticaState, p: Player, tile: str, r: int) -> float:
        """A plan's extra liking for a bonus tile held in round r."""
        return 0.0

    def favor_bias(self, state: TerraMysticaState, p: Player, tile: str) -> float:
        return 0.0

    def town_bias(self, state: TerraMysticaState, p: Player, tile: str) -> float:
        return 0.0

    # ----- setup ----------------------------------------
    def choose_place(self, state: TerraMysticaState, p: Player, legal: list) -> Action:
        """A starting dwelling with cheap land around it, near our other one (towns,
        network) and near opponents (power, cheap trading houses)."""
        data = state.data
        free = data.map.land & ~state.occupied
        others = state.occupied & ~p.buildings
        w = self.w
        by_spades = [w[k] for k in START_WEIGHTS]

        def land(m: int) -> float:
            return sum(by_spades[min(state.spades_needed(p, state.terrain[x], p.faction.home), 3)]
                       for x in bits(m & free))

        def score(a: Action) -> float:
            h = a.args[0]
            near1, near2 = data.within[1][h], data.within[2][h]
            sc = land(near1) + 0.5 * land(near2 & ~near1)
            if p.buildings:
                sc += (1.0 + w["cluster"]) if near2 & p.buildings else -0.5 * w["cluster"]
                sc += w["spread"] * (0 if near2 & p.buildings else 1.5)
            sc += (0.4 + w["opponent_adjacent"]) * min((near2 & others).bit_count(), 2)
            if p.faction.ship_max and state.adj[h] & data.map.river:
                sc += 0.4
            return sc + 0.1 * self.rng.random()

        return max(legal, key=score)

    def choose_tile(self, state: TerraMysticaState, p: Player, legal: list, r: int) -> Action:
        pr = Prices.of(state, p, self.w)

        def score(a: Action) -> float:
            t = a.args[0]
            return (bonus_tile_value(state, p, t, state.bonus_supply.get(t, 0), self.w, pr, r)
                    + self.scale * self.tile_bias(state, p, t, r))

        return max(legal, key=lambda a: (score(a), a.args))

    # ----- follow-ups and offers ----------------------------------------
    def choose_pending(self, state: TerraMysticaState, p: Player, legal: list) -> Action:
        kind = state.pending[0][0]
        if kind == "leech":
            return self.choose_leech(state, p, legal)
        if kind == "cult":
            return self.choose_cult(state, p, legal)
        if kind in ("favor", "town"):
            return self.choose_tiles(state, p, legal)
        if kind == "bridge":
            return self.choose_bridge(state, p, legal)
        if kind == "spades":
            return self.choose_spades(state, p, legal)
        return legal[0]

    def leech_value(self, state: TerraMysticaState, p: Player, amount: int) -> float:
        """Worth of taking `amount` offered power: the bowls' gain less the VP it costs."""
        pr = Prices.of(state, p, self.w)
        q = p.copy()
        got = q.gain(amount)
        gain = ((q.p3 - p.p3) * pr.power3 + (q.p2 - p.p2) * pr.power2
                + (q.p1 - p.p1) * pr.power1)
        # Tokens reaching bowl III this round are worth a little more: they can be spent now
        if not p.passed:
            gain += 0.08 * (q.p3 - p.p3)
        return self.w["leech"] * gain - max(0, got - 1)

    def choose_leech(self, state: TerraMysticaState, p: Player, legal: list) -> Action:
        entry = state.pending[0]
        amount = min(entry[2], p.room(), p.total_vp + 1)
        value = self.leech_value(state, p, amount)
        builder = state.players[entry[3]]
        if "cult_leech" in builder.eff:
            value -= 0.15  # taking it hands the Cultists a cult step
        return Action("leech") if value > 0 else Action("decline")

    def choose_cult(self, state: TerraMysticaState, p: Player, legal: list) -> Action:
        steps = state.pending[0][2]
        pr = Prices.of(state, p, self.w)
        track = best_track(state, p, self.w, pr, steps)
        a = Action("cult", (state.data.cults[track],))
        return a if a in legal else legal[0]

    def choose_tiles(self, state: TerraMysticaState, p: Player, legal: list) -> Action:
        pr = Prices.of(state, p, self.w)

        def score(a: Action) -> float:
            t = a.args[0]
            if a.kind == "favor":
                return (favor_value(state, p, t, self.w, pr)
                        + self.scale * self.favor_bias(state, p, t))
            return (town_tile_value(state, p, t, self.w, pr)
                    + self.scale * self.town_bias(state, p, t))

        return max(legal, key=lambda a: (score(a), a.args))

    def choose_bridge(self, state: TerraMysticaState, p: Player, legal: list) -> Action:
        """A bridge joining our own buildings (towns, network, the Engineers' pass VP) or
        opening free land across the river."""
        own = p.buildings
        data = state.data

        def score(a: Action) -> float:
            x, y = data.map.bridge_sites[a.args[0]]
            if own >> x & 1 and own >> y & 1:
                joined = state.adj[x] >> y & 1 == 0
                return 3.0 + (1.0 if joined else 0.0) + (3.0 if "pass_bridge_vp" in p.eff
                                                          or "bridge_workers" in p.eff else 0)
            far = y if own >> x & 1 else x
            if not state.occupied >> far & 1:
                return 1.0 + prefilter.hex_score(state, p, far, self.w) + (
                    1.0 if state.terrain[far] == p.faction.home else 0.0)
            return 0.5

        return max(legal, key=lambda a: (score(a), -a.args[0]))

    def choose_spades(self, state: TerraMysticaState, p: Player, legal: list) -> Action:
        """Free spades and the specials' one-shot moves: build where it is best, else turn the
        best hex to home terrain, else stop."""
        seq = self.spade_plan(state, p, legal)
        return self.start(state, p.seat, seq) if len(seq) > 1 else seq[0]

    def spade_plan(self, state: TerraMysticaState, p: Player, legal: list) -> list[Action]:
        """choose_spades' move, with the conversions that pay for it first."""
        sp = state.spade
        moves_now = [a for a in legal if a.kind in ("build", "transform", "upgrade")]
        if sp.get("free_tp"):
            ups = [a for a in moves_now if a.kind == "upgrade"]
            if ups:
                return [max(ups, key=lambda a: self.tp_site(state, p, a.args[0]))]
        cands: dict[Action, list] = {a: [] for a in moves_now}
        if any(a.kind in ("burn", "convert") for a in legal):
            q = potential(p)
            for a in moves.spade_moves(state, q):
                if a.kind == "build" and a not in cands:
                    plan = plan_funding(state, p, action_cost(state, p, a))
                    if plan and plan[0] in legal:
                        cands[a] = plan
        pr = Prices.of(state, p, self.w)
        best, best_v = DONE, 0.0
        for a, plan in cands.items():
            if len(a.args) > 1:
                continue  # never turn a hex to someone else's terrain
            v = self.spade_move_value(state, p, a, pr) - 0.1 * len(plan)
            if v > best_v:
                best, best_v = a, v
        if best is DONE:
            return [DONE if DONE in legal else legal[0]]
        return [*cands[best], best]

    def spade_move_value(self, state: TerraMysticaState, p: Player, a: Action,
                         pr: Prices) -> float:
        h = a.args[0]
        cost = action_cost(state, p, a)
        paid = (cost.coins * pr.coin + cost.workers * pr.worker + cost.priests * pr.priest)
        sc = prefilter.hex_score(state, p, h, self.w)
        if a.kind == "build":
            return 3.0 + self.w["building"] + sc - paid
        if state.terrain[h] == p.faction.home:
            return 0.0
        free = state.spade.get("free", 0)
        need = state.spades_needed(p, state.terrain[h], p.faction.home)
        used = min(free, need)
        return 0.5 + 0.5 * sc + used * 0.3 - paid

    @staticmethod
    def tp_site(state: TerraMysticaState, p: Player, h: int) -> float:
        others = state.occupied & ~p.buildings
        return (1.0 if state.adj[h] & others else 0.0) + 0.3 * (state.adj[h] & p.buildings
                                                              ).bit_count()

    # ----- turns ----------------------------------------
    def evaluate(self, state: TerraMysticaState, seat: int, p: Player, top: list[Action],
                 cands: dict[Action, list]) -> list[tuple[float, Action]]:
        """Look-ahead scores (valuation gain plus plan bias) of the candidate actions, each
        played after the conversions that pay for it."""
        ctx = Context.of(state, seat, self.w)
        base = valuation(state, seat, ctx)
        out = []
        for a in top:
            c = state.clone()
            self.play_on(c, seat, [*cands[a], a])
            if c.actions_left > 1 and not self.play_out_turn(c, seat):
                continue  # a double turn with nothing worth doing in it: no candidate now
            v = valuation(c, seat, ctx) - base + self.scale * self.bias(state, p, a)
            if a.kind == "action" and a.args[0] in state.data.tiles.power_actions:
                v += self.w["power_tempo"]
            out.append((v, a))
        return out

    def play_out_turn(self, c: TerraMysticaState, seat: int) -> bool:
        """A double turn's actions, on a look-ahead copy, each the best of the same one-ply
        look-ahead: the Chaos Magicians' double turn is worth the actions it buys, which the
        flat guess the valuation used to make could not see. Passing is not one of them: a
        double turn spent on a pass is a pass (with the flat guess, every double turn the bots
        took was followed by their pass: 110 of 110 in 400 games). False when not even the
        first action pays. The actions played cannot grant another double turn."""
        played = False
        while (c.actions_left and c.stage == "play" and not c.pending
               and c.current_player() == seat):
            p = c.players[seat]
            cands = {a: f for a, f in funded_actions(c, p, c.legal_actions()).items()
                     if a.kind != "pass"}
            scored = self.scored(c, seat, p, cands)
            if not scored:
                break
            v, a = max(scored, key=lambda t: t[0])
            if v < self.w["pass_margin"]:
                break
            self.play_on(c, seat, [*cands[a], a])
            played = True
        return played

    def scored(self, c: TerraMysticaState, seat: int, p: Player,
               cands: dict[Action, list]) -> list[tuple[float, Action]]:
        """Look-ahead scores of the candidates the cheap estimate keeps."""
        top = prefilter.prune(c, p, cands, self.w, self.p["top_k"], self.bias, self.scale)
        return self.evaluate(c, seat, p, top, cands)

    def play_on(self, c: TerraMysticaState, seat: int, seq: list[Action]) -> None:
        """Play seq (conversions, then their action) on a look-ahead copy, with its follow-ups."""
        for a in seq:
            c.do(a)
        self.settle(c, seat)

    def settle(self, c: TerraMysticaState, seat: int) -> None:
        """Play seat's own follow-ups on a look-ahead copy as the real decisions would: the
        valuation then sees what they became (the tile's income, the bridge's network, the
        spades' dwelling; a spade given up is worth nothing), not a guess at them."""
        for _ in range(SETTLE_STEPS):
            if not (c.pending and c.pending[0][1] == seat and c.pending[0][0] in SETTLED):
                return
            p = c.players[seat]
            legal = c.legal_actions()
            if c.pending[0][0] == "spades":
                for f in self.spade_plan(c, p, legal):
                    c.do(f)
            else:
                c.do(self.choose_pending(c, p, legal))

    def ranked(self, state: TerraMysticaState, seat: int, p: Player,
               legal: list) -> tuple[list[tuple[float, Action]], dict[Action, list]]:
        """Scored main actions (best first) and the conversions each needs."""
        def look() -> tuple[list[tuple[float, Action]], dict[Action, list]]:
            cands = funded_actions(state, p, legal)
            return self.scored(state, seat, p, cands), cands

        scored, cands = self.memoised("ranked", look)
        if self.noise:
            scored = [(v + self.noise * self.rng.random(), a) for v, a in scored]
        return sorted(scored, key=lambda t: -t[0]), cands

    def choose_turn(self, state: TerraMysticaState, seat: int, p: Player,
                    legal: list) -> Action:
        scored, cands = self.ranked(state, seat, p, legal)
        if scored and scored[0][0] >= self.w["pass_margin"]:
            a = scored[0][1]
            return self.start(state, seat, [*cands[a], a])
        return self.choose_pass(state, p, legal)

    def choose_pass(self, state: TerraMysticaState, p: Player, legal: list) -> Action:
        passes = [a for a in legal if a.kind == "pass"]
        if not passes:  # a double turn's second action cannot pass? take any main action
            mains = [a for a in legal if a.kind not in FREE_KINDS]
            return mains[0] if mains else legal[0]
        if len(passes) == 1:
            seq = self.final_conversions(state, p)
            if seq and seq[0] not in legal:
                seq = []
            return self.start(state, p.seat, [*seq, passes[0]])
        return self.choose_tile(state, p, passes, state.round + 1)

    @staticmethod
    def final_conversions(state: TerraMysticaState, p: Player) -> list[Action]:
        """Before the last pass: leftovers to coins, coins to VP at the player's own rate (the
        Alchemists' 2:1 included). Final scoring would pay the same for most; converting first
        makes the Alchemists' trade explicit and shows the leftovers in the log."""
        rate, _ = moves.conversion_rate(state, p, "C", "VP")
        coins = p.coins + p.p3 + p.workers + p.priests
        return ([Action("convert", ("PW", "C"))] * p.p3 + [Action("convert", ("W", "C"))]
                * p.workers + [Action("convert", ("P", "C"))] * p.priests
                + [Action("convert", ("C", "VP"))] * (coins // rate))

    def choose_after(self, state: TerraMysticaState, p: Player, legal: list) -> Action:
        """Free actions after the turn's action: a river town (Mermaids), the Darklings'
        stronghold workers into priests; then end the turn."""
        for a in legal:
            if a.kind == "connect":
                return a
        w2p = Action("convert", ("W", "P"))
        if w2p in legal:
            return w2p
        return DONE if DONE in legal else legal[0]
