"""The Terramara game state and the rules for changing it.

Every decision belongs to whoever `current_player()` names: the player on turn, or the player a
queued decision waits for (a resource of choice, refining, Travel steps, a raided player's
resources, the round-5 First Player reward, setup picks). A turn is: free actions (flip the
Character before the first member of the round, activate a Worker and refine, an Artifact's
once-a-round effect, an own bonus tile, the Power Level VP), one clan member sent and its
space resolved, then free actions again and at most one Artifact created or reserved, then
`end`. A round ends when nobody has members left to send.
"""

# terra-sim: compile

from typing import Any, Final

from terra_sim.core.errors import IllegalAction
from terra_sim.core.rng import stream
from terra_sim.games.terramara import artifacts, effects, placement, scoring
from terra_sim.games.terramara.actions import Action, action_text, parse_action
from terra_sim.games.terramara.board import HUT, SPECIAL, TERRITORY, Board, make_board
from terra_sim.games.terramara.data import RAW, REFINED, TerramaraData
from terra_sim.games.terramara.player import CATEGORIES, Player
from terra_sim.games.terramara.road import next_nodes, node_name, node_pos

__all__ = ["CATEGORIES", "TerramaraState"]

PIECES: Final[tuple[str, ...]] = ("explorer", "chief")
FINAL_CHOICES: Final[tuple[str, ...]] = ("travel", "military", "culture")
STOP: Final = Action("stop")
END: Final = Action("end")
# Round setup: (level, from the display) removed at the start of rounds 2-5 (the text).
REMOVALS: Final = {2: (1, False), 3: (1, True), 4: (2, False), 5: (2, True)}
Decision = tuple[str, int, int, int]  # kind, seat, count (or row, mask), extra


class TerramaraState:
    def __init__(self, data: TerramaraData, board: Board, seed: int, players: list[Player],
                 neutral_mil: list[int], round: int, stage: str, order: list[int], turn: int,
                 next_first: int, phase: int, crafted: bool, bonus_used: bool,
                 pending: list[Decision], occ: list[int], display: list[int], deck: list[int],
                 arrivals: int, worker_supply: list[int], ins: int):
        self.data = data
        self.board = board
        self.seed = seed
        self.players = players
        self.neutral_mil = neutral_mil  # Military of the neutral players (2-3 players)
        self.round = round  # 0 during setup
        self.stage = stage  # setup, play, over
        self.order = order  # this round's turn order
        self.turn = turn  # index into order of the player on turn
        self.next_first = next_first  # who took the First Player card this round, or -1
        self.phase = phase  # 0 before the turn's clan member is sent, 1 after
        self.crafted = crafted  # an Artifact created or reserved this turn
        self.bonus_used = bonus_used  # an own bonus tile used this turn
        self.pending = pending  # decisions queued before play goes on
        self.occ = occ  # two occupant codes per action space (placement.py), -1 empty
        self.display = display  # artifact indexes along the River, left to right
        self.deck = deck
        self.arrivals = arrivals  # Caravans at the camp so far
        self.worker_supply = worker_supply  # Worker tiles left by level
        self.ins = ins  # where the decision being resolved queues new ones

    # ----- setup ----------------------------------------------------------------------------
    @staticmethod
    def start(data: TerramaraData, factions: list[str], seed: int) -> "TerramaraState":
        n = len(factions)
        rules = data.rules
        if rules["faction_mode"] == "combo":
            pairs = [tuple(f.split("+")) for f in factions]
        else:
            cards = stream(seed, "cards").sample(sorted(data.starting), n)
            pairs = [(f, c) for f, c in zip(factions, cards, strict=True)]
        board = make_board(data, n, seed)
        players = []
        for seat, (ch, card) in enumerate(pairs):
            young = data.characters[ch].young
            players.append(Player.start(seat, ch, card, young, rules["start_explorers"]
                                        + young.get("extra_explorer", 0),
                                        data.start_vp[factions[seat]]))
        first = stream(seed, "first").randrange(n)
        order = [(first + k) % n for k in range(n)]
        deck = artifacts.make_deck(data, seed)
        s = TerramaraState(data, board, seed, players, [0] * board.neutrals, 0, "setup", order,
                           0, -1, 0, False, False, [], [-1] * (2 * len(board.spaces)), [],
                           deck, 0, list(rules["worker_supply"]), 0)
        artifacts.refill(s)
        for k, seat in enumerate(order):
            p = players[seat]
            p.military = (k + 1) * rules["start_military_by_order"]
            if p.eff("bonus_supply"):
                p.bonus_tiles = list(board.left_over)
            effects.move_canoe(s, p, p.eff("culture"))
            effects.gain(s, seat, data.starting[p.card], char=False)
            if p.eff("personal_crossroads"):
                s.push(("pick_cross", seat, 0, 0))
                s.push(("pick_outpost", seat, 0, 0))
        placer = 0
        for row in range(1, 7):
            for k in range(board.neutrals):
                s.push(("neutral", order[placer % n], row, n + k))
                placer += 1
        s._settle()
        return s

    def setup_info(self) -> dict[str, Any]:
        return {"first_player": self.order[0],
                "cards": [p.card for p in self.players],
                "display": [self.data.artifact_ids[i] for i in self.display],
                **self.board.setup_info()}

    def clone(self) -> "TerramaraState":
        return TerramaraState(
            self.data, self.board, self.seed, [p.copy() for p in self.players],
            self.neutral_mil[:], self.round, self.stage, self.order[:], self.turn,
            self.next_first, self.phase, self.crafted, self.bonus_used, self.pending[:],
            self.occ[:], self.display[:], self.deck[:], self.arrivals, self.worker_supply[:],
            self.ins)

    # ----- protocol ---------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.stage == "over":
            return -1
        if self.pending:
            return self.pending[0][1]
        return self.order[self.turn]

    def is_over(self) -> bool:
        return self.stage == "over"

    def vp(self) -> list[int]:
        return [p.total_vp for p in self.players]

    def breakdown(self) -> list[dict[str, int]]:
        return [dict(zip(CATEGORIES, p.vp, strict=True)) for p in self.players]

    def winners(self) -> list[int]:
        """The seats that win by the text's tie-breaks (River, then Military)."""
        return scoring.winners(self.players)

    def action_text(self, action: Any) -> str:
        return action_text(action)

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def push(self, d: Decision) -> None:
        """Queue a decision after those the current resolution queued already."""
        self.pending.insert(self.ins, d)
        self.ins += 1

    # ----- legal actions --------------------------------------------------------------------
    def legal_actions(self) -> list[Any]:
        if self.stage == "over":
            return []
        if self.pending:
            return self._decision_options(self.pending[0])
        return self._turn_options()

    def _decision_options(self, d: Decision) -> list[Any]:
        kind, seat, count, extra = d
        p = self.players[seat]
        if kind == "take_raw":
            return [Action("take", (r,)) for r in RAW]
        if kind == "take_ref":
            return [Action("take", (r,)) for r in REFINED]
        if kind == "refine":
            return [Action("refine", (r,)) for t, r in enumerate(RAW) if p.raw[t]] + [STOP]
        if kind == "travel":
            out = []
            for c in (0, 1):
                if c == 1 and p.caravans[1] == p.caravans[0]:
                    continue  # the two Caravans are alike: one of them stands for both
                for nxt in next_nodes(p.caravans[c], self.round):
                    out.append(Action("road", (c + 1, node_name(nxt))))
            return out + [STOP]
        if kind == "give":
            return ([Action("give", (r,)) for t, r in enumerate(RAW) if p.raw[t]]
                    + [Action("give", (r,)) for t, r in enumerate(REFINED) if p.ref[t]])
        if kind == "final":
            return [Action("choose", (c,)) for c in FINAL_CHOICES]
        if kind == "resolve":
            acts = self.board.spaces[extra].actions
            return [Action("resolve", (a,)) for k, a in enumerate(acts) if count >> k & 1]
        if kind == "pick_cross":
            return [Action("pick", (t,)) for t in self.board.spare_forest]
        if kind == "pick_outpost":
            return [Action("pick", (t,)) for t in self.board.spare_plains]
        if kind == "neutral":
            return [Action("neutral", (self.board.spaces[i].name,))
                    for i in self._neutral_spaces(count)]
        raise AssertionError(f"unknown decision {kind}")

    def _neutral_spaces(self, row: int) -> list[int]:
        return [i for i, sp in enumerate(self.board.spaces)
                if sp.row == row and sp.kind in (TERRITORY, SPECIAL) and not sp.fire
                and self.occ[2 * i] < 0]

    def _turn_options(self) -> list[Any]:
        seat = self.order[self.turn]
        p = self.players[seat]
        out: list[Any] = []
        if self.phase == 0 and p.placed == 0 and not p.experienced and self._can_flip(p):
            out.append(Action("flip"))
        out += self._free_actions(p)
        if self.phase == 0:
            spaces = self.board.spaces
            for piece, i in placement.legal_placements(self, seat):
                out.append(Action(PIECES[piece], ("hut" if i == HUT else spaces[i].name,)))
        else:
            if not self.crafted:
                ids = self.data.artifact_ids
                out += [Action(k, (ids[i],)) for k, i in artifacts.craft_options(self, p)]
            out.append(END)
        return out

    def _can_flip(self, p: Player) -> bool:
        # The extra Explorer leaves with the young side; one sent to a future space cannot.
        return not p.eff("extra_explorer") or p.avail > 0

    def _free_actions(self, p: Player) -> list[Any]:
        out: list[Any] = []
        if sum(p.raw):
            levels = sorted({lv for k, lv in enumerate(p.workers) if not p.used_workers >> k & 1})
            out += [Action("work", (lv,)) for lv in levels]
        ids = self.data.artifact_ids
        for i in p.artifacts:
            if not p.art_used >> i & 1 and self.data.artifacts[ids[i]].round:
                out.append(Action("use", (ids[i],)))
        if p.bonus_tiles and p.eff("bonus_supply") and not self.bonus_used:
            top = min(self.round, 3)  # round 1: level 1; round 2: up to 2; then any
            out += [Action("bonus", (b,)) for b in p.bonus_tiles
                    if self.data.bonus[b].level <= top]
        if p.eff("power_vp_round") and not p.power_used:
            out.append(Action("power"))
        return out

    # ----- applying actions -----------------------------------------------------------------
    def apply(self, action: Any) -> None:
        self.ins = 0
        if self.pending:
            self._resolve(self.pending.pop(0), action)
        else:
            self._turn_action(action)
        self._settle()

    def _again(self, d: Decision, count: int) -> None:
        """Put a decision back with `count` left (new decisions then queue before it)."""
        if count > 0:
            self.pending.insert(0, (d[0], d[1], count, d[3]))

    def _resolve(self, d: Decision, a: Action) -> None:
        kind, seat, count, extra = d
        p = self.players[seat]
        k = a.kind
        if k == "stop":
            return
        if k == "take":
            r = str(a.args[0])
            if r in effects.RAW_INDEX:
                p.raw[effects.RAW_INDEX[r]] += 1
            else:
                p.ref[effects.REFINED_INDEX[r]] += 1
            self._again(d, count - 1)
        elif k == "refine":
            t = effects.RAW_INDEX[str(a.args[0])]
            p.raw[t] -= 1
            p.ref[t] += 1
            self._again(d, count - 1)
        elif k == "road":
            c = int(a.args[0]) - 1
            p.caravans[c] = node_pos(str(a.args[1]))
            self._again(d, count - 1)
            effects.arrive(self, p, p.caravans[c])
        elif k == "give":
            r = str(a.args[0])
            raider = self.players[extra]
            if r in effects.RAW_INDEX:
                p.raw[effects.RAW_INDEX[r]] -= 1
                raider.raw[effects.RAW_INDEX[r]] += 1
            else:
                p.ref[effects.REFINED_INDEX[r]] -= 1
                raider.ref[effects.REFINED_INDEX[r]] += 1
            self._again(d, count - 1)
        elif k == "choose":
            effects.gain(self, seat, {str(a.args[0]): self.data.rules["final_first_player"]})
        elif k == "resolve":
            acts = self.board.spaces[extra].actions
            bit = acts.index(str(a.args[0]))
            self._again(d, count & ~(1 << bit))
            placement.homeland(self, seat, acts[bit])
        elif k == "pick":
            if kind == "pick_cross":
                p.cross_tile = str(a.args[0])
            else:
                p.outpost_tile = str(a.args[0])
        elif k == "neutral":
            self.occ[2 * self.board.index[str(a.args[0])]] = extra * 2
        else:
            raise IllegalAction(f"{action_text(a)} does not answer the decision {kind}")

    def _turn_action(self, a: Action) -> None:
        seat = self.order[self.turn]
        p = self.players[seat]
        k = a.kind
        if k in PIECES:
            name = str(a.args[0])
            placement.place(self, seat, PIECES.index(k), HUT if name == "hut"
                            else self.board.index[name])
            self.phase = 1
        elif k == "end":
            self._next_turn()
        elif k == "craft":
            self.crafted = True
            artifacts.craft(self, seat, self.data.artifact_ids.index(str(a.args[0])))
        elif k == "reserve":
            self.crafted = True
            artifacts.reserve(self, seat, self.data.artifact_ids.index(str(a.args[0])))
        elif k == "work":
            level = int(a.args[0])
            w = next(j for j, lv in enumerate(p.workers)
                     if lv == level and not p.used_workers >> j & 1)
            p.used_workers |= 1 << w
            self.push(("refine", seat, level, 0))
        elif k == "use":
            i = self.data.artifact_ids.index(str(a.args[0]))
            p.art_used |= 1 << i
            effects.gain(self, seat, self.data.artifacts[str(a.args[0])].round)
        elif k == "bonus":
            p.bonus_tiles.remove(str(a.args[0]))
            self.bonus_used = True
            effects.gain(self, seat, self.data.bonus[str(a.args[0])].effects)
        elif k == "power":
            p.power_used = True
            p.add_vp("play", effects.power_level(self, p.military))
        elif k == "flip":
            self._flip(p)
        else:
            raise IllegalAction(f"{action_text(a)} is no turn action")

    def _flip(self, p: Player) -> None:
        if p.eff("extra_explorer"):
            p.explorers -= 1
            p.avail -= 1
        if p.eff("bonus_supply"):
            p.bonus_tiles = []
        p.experienced = True
        p.side = self.data.characters[p.character].experienced

    def _settle(self) -> None:
        """Drop queued decisions nobody can take; start round 1 once setup is done."""
        while self.pending and not self._has_options(self.pending[0]):
            self.pending.pop(0)
        if not self.pending and self.stage == "setup":
            self._begin_round(1)

    def _has_options(self, d: Decision) -> bool:
        kind, seat, count, _ = d
        p = self.players[seat]
        if kind == "travel":
            return p.caravans[0] != p.caravans[1] or bool(next_nodes(p.caravans[0], self.round))
        if kind == "refine":
            return sum(p.raw) > 0
        if kind == "neutral":
            return bool(self._neutral_spaces(count))
        if kind == "give":
            return p.resources > 0
        return True

    # ----- rounds ---------------------------------------------------------------------------
    def _next_turn(self) -> None:
        n = len(self.order)
        for k in range(1, n + 1):
            idx = (self.turn + k) % n
            if self.players[self.order[idx]].members > 0:
                self.turn = idx
                self.phase = 0
                self.crafted = False
                self.bonus_used = False
                return
        self._end_round()

    def _end_round(self) -> None:
        placement.return_members(self)
        if self.round == self.data.rules["rounds"]:
            scoring.final_scoring(self)
            self.stage = "over"
            return
        self._begin_round(self.round + 1)

    def _begin_round(self, r: int) -> None:
        self.stage = "play"
        self.round = r
        if r in REMOVALS:
            artifacts.remove_level(self, *REMOVALS[r])
        self._advance_neutrals()
        if self.next_first >= 0:
            n = len(self.players)
            self.order = [(self.next_first + k) % n for k in range(n)]
            self.next_first = -1
        for p in self.players:
            p.placed = 0
            p.used_workers = 0
            p.art_used = 0
            p.power_used = False
        self.turn = 0
        self.phase = 0
        self.crafted = False
        self.bonus_used = False

    def _advance_neutrals(self) -> None:
        """Each round a neutral player's Military advances by a revealed neutral card (1-4);
        with two neutral players the weaker one draws first."""
        if not self.neutral_mil:
            return
        cards = [1, 2, 3, 4]
        stream(self.seed, "neutral", self.round).shuffle(cards)
        top = self.data.rules["military_max"]
        for k, j in enumerate(sorted(range(len(self.neutral_mil)),
                                     key=lambda j: (self.neutral_mil[j], j))):
            self.neutral_mil[j] = min(top, self.neutral_mil[j] + cards[k])

    # ----- text -----------------------------------------------------------------------------
    def render(self) -> str:
        ids = self.data.artifact_ids
        lines = [f"round {self.round} ({self.stage}); order {self.order}; "
                 f"display {' '.join(ids[i] for i in self.display)}"]
        if self.neutral_mil:
            lines.append(f"neutral military {self.neutral_mil}")
        names = {2 * s + k: f"{s}{'ec'[k]}" for s in range(4) for k in (0, 1)}
        taken = []
        for i, sp in enumerate(self.board.spaces):
            occ = [names[c] for c in self.occ[2 * i:2 * i + 2] if c >= 0]
            if occ:
                taken.append(f"{sp.name}:{'+'.join(occ)}")
        lines.append("spaces " + (" ".join(taken) or "-"))
        for p in self.players:
            raw = " ".join(f"{r[:2]}{v}" for r, v in zip(RAW, p.raw, strict=True) if v)
            ref = " ".join(f"{r[:2].upper()}{v}" for r, v in zip(REFINED, p.ref, strict=True)
                           if v)
            lines.append(
                f"seat {p.seat} {p.character}+{p.card}{' (exp)' if p.experienced else ''}: "
                f"{p.total_vp} VP | mil {p.military} river {p.river} road "
                f"{'/'.join(node_name(c) for c in p.caravans)} | {raw or '-'} {ref or '-'} | "
                f"workers {p.workers} explorers {p.avail}/{p.explorers} | "
                f"artifacts {' '.join(ids[i] for i in p.artifacts) or '-'} | flags {p.flags}")
        return "\n".join(lines)
