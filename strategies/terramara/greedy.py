"""Greedy: a one-ply look-ahead over a cheaply pruned list of clan members to send, scored by the
valuation after the rest of the turn (the space's choices, refining, an Artifact) is played.

Every decision of the game comes here: setup picks, the turn's free actions, the member sent,
the choices a space queues (resources of choice, refining, Travel steps, the 2-player order,
round 5's First Player reward), a raid's resources handed over, and the Artifact at the end of
the turn. The plans in plans.py are this bot with other weights and a few plan biases.
"""

from __future__ import annotations

from typing import Any

from strategies.terramara import prefilter
from strategies.terramara.valuation import (
    DEFAULT_WEIGHTS,
    Context,
    arrival_vp,
    gains_worth,
    needs,
    road_value,
    valuation,
)
from strategies.weighted import WeightedStrategy
from terra_sim.games.terramara.actions import Action
from terra_sim.games.terramara.artifacts import craft_options, payment, reachable
from terra_sim.games.terramara.data import RAW, REFINED
from terra_sim.games.terramara.placement import EXPLORER
from terra_sim.games.terramara.player import Player
from terra_sim.games.terramara.road import CAMP, node_pos
from terra_sim.games.terramara.scoring import outpost_value
from terra_sim.games.terramara.state import TerramaraState

END = Action("end")
STOP = Action("stop")
MAX_SETTLE = 200  # a safety net for resolving a look-ahead's queued choices


class GreedyStrategy(WeightedStrategy):
    name = "greedy"
    description = ("One-ply look-ahead: prunes the clan members to send by a cheap estimate, "
                   "plays each of the best with the turn's choices and Artifact, and scores "
                   "the result (VP, resources, Workers, Explorers, Military, River, Road, "
                   "Flags, Artifacts, Character side).")
    games = ("terramara",)
    vp_affects_play = False  # its valuation counts VP earned, never the score
    default_weights = DEFAULT_WEIGHTS
    family = "greedy"

    # ----- plan hooks ----------------------------------------
    def bias(self, state: TerramaraState, p: Player, piece: int, i: int) -> float:
        """A plan's extra liking for sending `piece` to space `i` (or the Hut)."""
        return 0.0

    def craft_bias(self, state: TerramaraState, p: Player, a: Action) -> float:
        """A plan's extra liking for creating or reserving an Artifact."""
        return 0.0

    @staticmethod
    def faction_of(player: Any) -> str:
        return str(player.character)  # tuned files are per character, whatever its card

    # ----- dispatch ----------------------------------------
    def choose(self, state: Any, legal: list) -> Any:
        if not self.seated:
            self.seat(self.faction_of(state.players[state.current_player()]))
        if len(legal) == 1:
            return legal[0]
        if state.pending:
            return self.choose_pending(state, legal)
        seat = state.current_player()
        if state.phase == 0:
            return self.choose_before(state, seat, legal)
        return self.choose_after(state, seat, legal)

    def context(self, state: TerramaraState) -> Context:
        return Context.of(state, self.w)

    # ----- queued choices (cheap: they are played inside every look-ahead) ------------------
    def choose_pending(self, state: TerramaraState, legal: list) -> Action:
        kind, seat, _, _ = state.pending[0]
        p = state.players[seat]
        if kind in ("take_raw", "take_ref", "refine"):
            return self.choose_resource(state, p, legal, kind)
        if kind == "give":
            return self.choose_give(state, p, legal)
        if kind == "travel":
            return self.choose_step(state, p, legal)
        if kind == "final":
            ctx = self.context(state)
            n = state.data.rules["final_first_player"]
            return max(legal, key=lambda a: (gains_worth(state, p, {str(a.args[0]): n}, ctx),
                                             a))
        if kind == "pick_cross":
            ctx = self.context(state)
            return max(legal, key=lambda a: (gains_worth(
                state, p, state.data.tiles[str(a.args[0])].crossroads, ctx), a))
        if kind == "pick_outpost":
            tiles = state.data.tiles
            return max(legal, key=lambda a: (self.outpost_promise(
                state, p, tiles[str(a.args[0])].outpost), a))
        if kind == "neutral":
            return self.choose_neutral(state, p, legal)
        return legal[0]

    def choose_resource(self, state: TerramaraState, p: Player, legal: list,
                        kind: str) -> Action:
        """The resource type the Artifacts in reach are shortest of; refining never stops while
        there is raw material (a refined resource is worth more and pays for Artifacts)."""
        need = needs(state, p)
        names = RAW if kind != "take_ref" else REFINED

        def score(a: Action) -> tuple[float, float, str]:
            if a.kind == "stop":
                return (-1.0, 0.0, "")
            t = names.index(str(a.args[0]))
            held = p.ref[t] + (p.raw[t] if kind == "take_raw" else 0)
            on_hand = float(p.raw[t]) if kind == "refine" else -0.1 * held
            return (need[t], on_hand, str(a.args[0]))

        return max(legal, key=score)

    def choose_give(self, state: TerramaraState, p: Player, legal: list) -> Action:
        """Hand a raider what is worth least: raw before refined, the least needed type."""
        need = needs(state, p)

        def loss(a: Action) -> tuple[float, float, str]:
            r = str(a.args[0])
            if r in RAW:
                t = RAW.index(r)
                return (0.0, need[t] - 0.1 * p.raw[t], r)
            t = REFINED.index(r)
            return (1.0, need[t] - 0.1 * p.ref[t], r)

        return min(legal, key=loss)

    def step_value(self, state: TerramaraState, p: Player, a: Action, ctx: Context) -> float:
        """One Travel step's worth: the Road progress it makes, and what the node gives (a
        bonus tile, a Flag, a Crossroads' VP, the camp's VP)."""
        if a.kind == "stop":
            return 0.0
        c = int(a.args[0]) - 1
        pos = node_pos(str(a.args[1]))
        moved = list(p.caravans)
        moved[c] = pos
        v = road_value(state, p, ctx, moved) - road_value(state, p, ctx)
        if pos == CAMP:
            return v + arrival_vp(state)
        k = pos // 3 + (pos % 3 != 0)
        if pos % 3 == 0:
            return v + p.eff("crossroads_vp")
        if pos % 3 == 1:
            bonus = state.data.bonus[state.board.road_bonus[k - 1]]
            return v + gains_worth(state, p, bonus.effects, ctx)
        outpost = state.board.outposts[k - 1]
        if outpost in p.flags or len(p.flags) >= state.data.rules["flags"]:
            return v
        return v + self.outpost_promise(state, p, outpost) + ctx.w["flag"] * (1 - ctx.t) \
            + p.eff("flag_vp")

    def outpost_promise(self, state: TerramaraState, p: Player, outpost: str) -> float:
        """The VP an Outpost is likely to score `p`: its levels met now, and the next level
        counted by how close `p` is to it."""
        o = state.data.outposts[outpost]
        have = outpost_value(state, p, o)
        points = state.data.rules["outpost_vp"]
        got = 0.0
        for at, vp in zip(o.at, points, strict=True):
            if have >= at:
                got = float(vp)
            else:
                return got + (vp - got) * 0.6 * have / at
        return got

    def choose_step(self, state: TerramaraState, p: Player, legal: list) -> Action:
        ctx = self.context(state)
        return max(legal, key=lambda a: (self.step_value(state, p, a, ctx), a.kind != "stop",
                                         a))

    def choose_neutral(self, state: TerramaraState, p: Player, legal: list) -> Action:
        """A neutral Explorer on the space of its row this player would miss least."""
        ctx = self.context(state)
        index = state.board.index
        return min(legal, key=lambda a: (gains_worth(state, p, prefilter.space_gains(
            state, p, index[str(a.args[0])]), ctx), a))

    # ----- before the member is sent --------------------------------------------------------
    def choose_before(self, state: TerramaraState, seat: int, legal: list) -> Action:
        p = state.players[seat]
        free = self.free_action(state, p, legal, before=True)
        if free is not None:
            return free
        flip = Action("flip")
        if flip in legal and self.flip_gain(state, seat) > self.w["flip_margin"]:
            return flip
        ranked = self.ranked(state, seat, legal)
        return ranked[0][1] if ranked else legal[-1]

    def flip_gain(self, state: TerramaraState, seat: int) -> float:
        ctx = self.context(state)
        c = state.clone()
        c.apply(Action("flip"))
        return valuation(c, seat, ctx) - valuation(state, seat, ctx)

    def free_action(self, state: TerramaraState, p: Player, legal: list,
                    before: bool) -> Action | None:
        """A free action worth taking now: the Power Level VP, an Artifact's once-a-round
        effect, an own bonus tile, a Worker whose refining is not wasted."""
        last = p.members == 0  # the round's last turn: unused capacity is lost
        raw = sum(p.raw)
        for a in legal:
            if a.kind == "power":
                return a
            if a.kind == "use":
                eff = state.data.artifacts[str(a.args[0])].round
                refine = eff.get("refine", 0)
                if not refine or raw >= refine or (last and raw > 0):
                    return a
        bonuses = [a for a in legal if a.kind == "bonus"]
        if bonuses:
            ctx = self.context(state)
            return max(bonuses, key=lambda a: (gains_worth(
                state, p, state.data.bonus[str(a.args[0])].effects, ctx), a))
        if before:
            return None
        works = sorted((int(a.args[0]) for a in legal if a.kind == "work"), reverse=True)
        if works and raw:
            fits = [lv for lv in works if lv <= raw]
            if fits:
                return Action("work", (fits[0],))
            if last or self.refining_enables_craft(state, p, works[0]):
                return Action("work", (works[-1] if raw < works[-1] else works[0],))
        return None

    @staticmethod
    def refining_enables_craft(state: TerramaraState, p: Player, capacity: int) -> bool:
        """Whether refining up to `capacity` raw resources lets `p` create an Artifact it
        cannot create now."""
        if craft_options(state, p):
            return False
        q = p.copy()
        left = capacity
        for t in range(4):
            k = min(left, q.raw[t])
            q.raw[t] -= k
            q.ref[t] += k
            left -= k
        return any(payment(state, q, i, False) is not None for i in reachable(state, q))

    # ----- the member sent ----------------------------------------
    def ranked(self, state: TerramaraState, seat: int,
               legal: list) -> list[tuple[float, Action]]:
        """Scored placements (best first): the prefilter's best, each played with the rest of
        the turn and valued."""
        scored = self.memoised("ranked", lambda: self.look(state, seat, legal))
        if self.noise:
            scored = [(v + self.noise * self.rng.random(), a) for v, a in scored]
        return sorted(scored, key=lambda t: (-t[0], t[1]))

    def look(self, state: TerramaraState, seat: int,
             legal: list) -> list[tuple[float, Action]]:
        """ranked's scores before noise and order."""
        p = state.players[seat]
        ctx = self.context(state)
        top = prefilter.prune(state, p, legal, ctx, self.p["top_k"], self.bias, self.scale)
        base = valuation(state, seat, ctx)
        scored = []
        for est, a in top:
            c = state.clone()
            c.apply(a)
            self.finish_turn(c, seat)
            piece, i = prefilter.target(state, a)
            v = valuation(c, seat, ctx) - base + self.scale * self.bias(state, p, piece, i)
            if piece == EXPLORER:
                v += 0.01  # the Chieftain is kept for a free join later, all else equal
            scored.append((v + 0.001 * est, a))
        return scored

    def settle(self, state: TerramaraState) -> None:
        """Resolve queued choices (anyone's) by the cheap policy."""
        for _ in range(MAX_SETTLE):
            if not state.pending or state.is_over():
                return
            legal = state.legal_actions()
            state.apply(legal[0] if len(legal) == 1 else self.choose_pending(state, legal))

    def finish_turn(self, state: TerramaraState, seat: int) -> None:
        """Play the rest of `seat`'s turn on a look-ahead copy: the choices, free actions and
        the Artifact, stopping before `end`."""
        for _ in range(MAX_SETTLE):
            self.settle(state)
            if state.is_over() or state.pending or state.current_player() != seat \
                    or state.phase != 1:
                return
            legal = state.legal_actions()
            a = self.choose_after(state, seat, legal)
            if a == END:
                return
            state.apply(a)

    # ----- after the member is sent ----------------------------------------
    def choose_after(self, state: TerramaraState, seat: int, legal: list) -> Action:
        p = state.players[seat]
        free = self.free_action(state, p, legal, before=False)
        if free is not None:
            return free
        crafts = [a for a in legal if a.kind in ("craft", "reserve")]
        if not crafts:
            return END if END in legal else legal[0]
        ctx = self.context(state)
        base = valuation(state, seat, ctx)
        best, best_v = END, self.w["craft_margin"]
        for a in crafts:
            c = state.clone()
            c.apply(a)
            self.settle(c)
            v = valuation(c, seat, ctx) - base + self.scale * self.craft_bias(state, p, a)
            if v > best_v:
                best, best_v = a, v
        return best if best in legal else legal[0]
