"""Game logs in the online Terra Mystica server's notation, read into our actions.

A log is one row per line (`Faction: cmd. cmd. ...`, `#` comments) plus header rows (`option`,
`delete BONn`, `score ...`, `setup FACTION`). `read_log` splits it into rows of sub-commands;
`replay_log` drives our engine with them: the engine asks, the log answers. Where the two
order things differently (the server lets a power offer be answered until the receiver's next
action; our engine asks right after the builder's turn), the reader looks ahead for the answer,
as the server would match it, and an offer the log never answers is declined (the server
declines it when the receiver next acts). Manual resource fixes (`+1c`, `-1w`, with the option
`loose-adjust-resource`) are applied to the state and listed in the result.
"""

import re
from dataclasses import dataclass, field
from typing import Any

from terra_sim.core.errors import IllegalAction, UserError
from terra_sim.games.terra_mystica.actions import Action
from terra_sim.games.terra_mystica.game import OPTIONS, TerraMystica
from terra_sim.games.terra_mystica.state import TerraMysticaState

COLORS = {"yellow": "desert", "brown": "plains", "black": "swamp", "blue": "lakes",
          "green": "forest", "gray": "mountains", "grey": "mountains", "red": "wasteland"}
RES = {"c": "C", "coin": "C", "coins": "C", "w": "W", "worker": "W", "workers": "W",
       "p": "P", "priest": "P", "priests": "P", "pw": "PW", "power": "PW", "vp": "VP"}
NAMES = {"chaosmagicians": "chaos-magicians"}
# Sub-commands that take the faction's action (the server declines its open offers first).
ACTING = ("build", "upgrade", "send", "advance", "action", "pass", "dig", "transform", "bridge")
BUILDING = {"tp": "TP", "te": "TE", "sh": "SH", "sa": "SA", "trading post": "TP",
            "trading house": "TP", "temple": "TE", "stronghold": "SH", "sanctuary": "SA"}
MANUAL = re.compile(r"^[+-]\d*(c|w|p|pw|vp)$")
SKIP = ("income", "start", "wait", "done")
# A follow-up's special given up, in the server's words (its resource names)
GIVE_UP = {"ride": "free_d", "sandstorm": "free_tf", "free_tp": "free_tp"}
DISCARDS = ("-spade", *(f"-{v}" for v in GIVE_UP.values()))
# Our options as the server's `option` rows: each of ours -> (its value that the row turns on,
# the server's option). The server plays the rule off when the row is absent.
SERVER_OPTIONS = {"errata_cultists": ("yes", "errata-cultist-power"),
                  "turn_order": ("variable", "variable-turn-order"),
                  "mini-expansion": ("yes", "mini-expansion-1"),
                  "shipping-bonus": ("yes", "shipping-bonus"),
                  "temple-scoring-tile": ("yes", "temple-scoring-tile")}
# Rules our engine always plays, each an option on the server (its default for new games).
ALWAYS = ("strict-leech", "strict-darkling-sh", "strict-chaosmagician-sh")


@dataclass
class Command:
    line: int
    faction: str  # our slug; "" for header rows
    words: list[str]
    used: bool = False

    @property
    def head(self) -> str:
        return self.words[0] if self.words else ""

    def __str__(self) -> str:
        return " ".join(self.words)


@dataclass
class Log:
    factions: list[str] = field(default_factory=list)
    options: set[str] = field(default_factory=set)
    deleted: list[str] = field(default_factory=list)
    scoring: list[str] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    finish: bool = False


def faction_slug(name: str) -> str:
    n = name.strip().lower()
    return NAMES.get(n, n)


def _split(text: str) -> list[str]:
    text = text.strip().rstrip(".")
    return [c.strip() for c in re.split(r"\.\s+|\.$", text) if c.strip()]


def _rewrite(cmds: list[str]) -> list[str]:
    """The server's own rewrites of a row (commands.pm clean_commands)."""
    low = [c.lower() for c in cmds]
    # answers to power offers first
    first = [c for c, lc in zip(cmds, low, strict=True) if lc.startswith(("leech", "decline"))]
    rest = [c for c, lc in zip(cmds, low, strict=True)
            if not lc.startswith(("leech", "decline"))]
    out = first + rest
    for i in range(len(out) - 1):
        if out[i].lower().startswith("pass") and out[i + 1].lower().startswith("convert"):
            out[i], out[i + 1] = out[i + 1], out[i]
            break
    for i in range(len(out) - 1):
        a, b = out[i].lower(), out[i + 1].lower()
        if a.startswith("build ") and b.startswith("transform "):
            out[i], out[i + 1] = out[i + 1], out[i]
        elif a.startswith("dig ") and b.startswith("action "):
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def read_log(text: str) -> Log:
    log = Log()
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"^([A-Za-z]+):\s*(.*)$", line)
        if not m:
            words = line.split()
            head = words[0].lower()
            if head == "option":
                log.options.add(words[1].lower())
            elif head == "delete":
                log.deleted.append(words[1].upper())
            elif head == "score":
                log.scoring = [t.strip().upper() for t in " ".join(words[1:]).split(",")]
            elif head == "setup":
                log.factions.append(faction_slug(words[1]))
            elif head == "finish":
                log.finish = True
                log.commands.append(Command(n, "", ["finish"]))
            elif head in ("player", "randomize", "map", "start", "income"):
                continue
            else:
                raise UserError(f"line {n}: unknown command {line!r}")
            continue
        fac = faction_slug(m.group(1))
        for c in _rewrite(_split(m.group(2))):
            log.commands.append(Command(n, fac, c.lower().split()))
    return log


def _offered(game: TerraMystica, options: dict[str, Any], tile: str) -> bool:
    """Whether a bonus tile is in the box the setup draws from (an option's tile only with it)."""
    option = game.data.tiles.bonus[tile]["option"]
    return not option or options.get(option) == "yes"


class Replayer:
    """Drives a TerraMysticaState with a log's commands."""

    def __init__(self, game: TerraMystica, log: Log):
        self.g = game
        self.log = log
        # what new_state needs to replay our actions: the log fixes the setup, and its manual
        # fixes become `adjust` actions
        self.options: dict[str, Any] = {"scoring_tiles": log.scoring, "log_fixes": "yes"}
        # the server plays each of these rules only with its option row, whatever our default
        for ours, (on, server) in SERVER_OPTIONS.items():
            value = on if server in log.options else next(v for v in OPTIONS[ours] if v != on)
            if value != OPTIONS[ours][0]:
                self.options[ours] = value
        self.options["bonus_tiles"] = [t for t in game.data.tiles.bonus
                                       if t not in log.deleted and _offered(game, self.options, t)]
        self.state: TerraMysticaState = game.new_state(log.factions, 0, **self.options)
        self.seat = {f: i for i, f in enumerate(log.factions)}
        self.actions: list[str] = []
        self.pos = 0  # next command in log order
        self.last_line = 0  # the row of the command played last

    # ----- helpers ---------------------------------------------------------------------------
    def fail(self, c: Command | None, why: str) -> UserError:
        where = f"line {c.line} ({c.faction}: {c})" if c else "end of log"
        return UserError(f"{where}: {why}")

    def act(self, a: Action, c: Command | None) -> None:
        s = self.state
        if a not in s.legal_actions():
            who = s.players[s.current_player()].faction.slug if s.current_player() >= 0 else "-"
            legal = sorted(s.action_text(x) for x in s.legal_actions())
            more = ", ..." if len(legal) > 12 else ""
            raise self.fail(c, f"{s.action_text(a)!r} is not legal for {who} now (the engine "
                               f"expects one of: {', '.join(legal[:12])}{more})")
        self.actions.append(s.action_text(a))
        s.do(a)
        if c is not None:
            self.last_line = c.line

    def next_command(self) -> Command | None:
        cmds = self.log.commands
        while self.pos < len(cmds) and (cmds[self.pos].used or cmds[self.pos].head in SKIP):
            self.pos += 1
        return cmds[self.pos] if self.pos < len(cmds) else None

    def find_answer(self, faction: str, builder: str, amount: int,
                    gain: int) -> Command | None:
        """The log's answer of `faction` to an offer of `amount` from `builder` (`gain` after
        the caps), before its next action: matched as the server matches it."""
        for c in self.log.commands[self.pos:]:
            if c.used or c.faction != faction:
                continue
            if c.head in ("leech", "decline"):
                if "from" in c.words and faction_slug(c.words[-1]) != builder:
                    continue
                n = int(c.words[1]) if len(c.words) > 1 and c.words[1].isdigit() else None
                if n is not None and n not in (amount, gain):
                    continue
                return c
            if c.head in ACTING:
                return None
        return None

    # ----- the loop --------------------------------------------------------------------------
    def run(self) -> TerraMysticaState:
        s = self.state
        while not s.is_over():
            seat = s.current_player()
            p = s.players[seat]
            if s.pending and s.pending[0][0] == "leech":
                e = s.pending[0]
                builder = s.players[e[3]].faction.slug
                gain = min(e[2], p.room(), p.total_vp + 1)
                c = self.find_answer(p.faction.slug, builder, e[2], gain)
                if c is not None:
                    c.used = True
                self.act(Action("leech") if c is not None and c.head == "leech"
                         else Action("decline"), c)
                continue
            c = self.next_command()
            if c is not None and MANUAL.match(c.head) and c.head[1:] not in s.data.cults:
                c.used = True
                self.resource(c.faction, c)
                continue
            if c is not None and c.head in DISCARDS and not self.spades_open(c.faction):
                c.used = True  # the follow-up is already over (our engine closed it)
                continue
            if c is None or c.head == "finish":
                if c is not None and s.round == s.data.rules["rounds"]:
                    # `finish` drops unanswered offers; the game then ends as usual
                    self.finish_game(c)
                    return s
                raise self.fail(c, "the log ends but the game does not")
            if c.faction != p.faction.slug:
                if not s.pending and s.stage == "play" and not s.actions_left:
                    self.act(Action("done"), c)
                    continue
                if s.pending and s.pending[0][0] == "spades":
                    self.act(Action("done"), c)  # the log does no more with these spades
                    continue
                if c.head in ("leech", "decline"):
                    c.used = True  # an offer our engine never made (no room), or none at all
                    self.command(c.faction, c)
                    continue
                raise self.fail(c, f"the engine waits for {p.faction.slug}")
            if not s.pending and s.stage == "play" and not s.actions_left and (
                    c.line != self.last_line or c.head in ACTING and c.head != "dig"):
                # the player's next turn: a row is a turn on the server
                self.act(Action("done"), c)
                continue
            c.used = True
            self.command(p.faction.slug, c)
        return s

    def spades_open(self, faction: str) -> bool:
        s = self.state
        return bool(s.pending) and s.pending[0][0] == "spades" and s.players[
            s.pending[0][1]].faction.slug == faction

    def finish_game(self, c: Command) -> None:
        s = self.state
        while not s.is_over():
            if s.pending and s.pending[0][0] == "leech":
                self.act(Action("decline"), c)
            elif not s.pending and s.stage == "play" and not s.actions_left:
                self.act(Action("done"), c)
            else:
                raise self.fail(c, "finish: the game is not at its end")

    def command(self, faction: str, c: Command) -> None:
        # a command whose words the log's text cannot mean: one message naming its line
        try:
            self._command(faction, c)
        except KeyError as e:
            raise self.fail(c, f"unknown word {e.args[0]!r}") from None
        except IndexError:
            raise self.fail(c, "a word is missing") from None
        except ValueError as e:  # an unknown hex, say
            raise self.fail(c, str(e)) from None

    def _command(self, faction: str, c: Command) -> None:
        s = self.state
        w = c.words
        head = w[0]
        if head == "decline":
            return  # an offer our engine never made: it could not give power (full bowls)
        if head == "leech":
            if not s.players[self.seat[faction]].room():
                return  # an offer our engine never made: no room for power, nothing gained
            if "from" in w or "strict-leech" in self.log.options:
                raise self.fail(c, "no power offer from that faction is open")
            self.unmatched_leech(faction, c)
            return
        if head == "dig":
            return  # our build and transform dig what they need
        if head == "build":
            kind = "place" if s.stage == "setup-dwelling" else "build"
            self.act(Action(kind, (s.data.map.hex(w[1]),)), c)
        elif head == "transform":
            h = s.data.map.hex(w[1])
            p = s.players[self.seat[faction]]
            if len(w) >= 4:
                dst = s.data.wheel.index(COLORS[w[3]])
                a = Action("transform", (h,) if dst == p.faction.home else (h, s.data.wheel[dst]))
            else:
                a = Action("transform", (h,))
            self.act(a, c)
        elif head == "upgrade":
            self.act(Action("upgrade", (s.data.map.hex(w[1]), BUILDING[" ".join(w[3:])])), c)
        elif head == "send":
            track = w[3]
            steps = int(w[5]) if len(w) > 5 else self.best_spot(track)
            self.act(Action("send", (track, steps)), c)
        elif head == "advance":
            self.act(Action("advance", ("ship" if w[1].startswith("ship") else "dig",)), c)
        elif head == "action":
            self.act(Action("action", (w[1].upper(),)), c)
        elif head == "bridge":
            ends = [s.data.map.hex(x) for x in w[1].replace("-", ":").split(":")]
            site = s.data.map.bridge_sites.index((min(ends), max(ends)))
            self.act(Action("bridge", (site,)), c)
        elif head == "pass" or head.startswith("+bon"):
            tile = w[1].upper() if len(w) > 1 else head[1:].upper() if head != "pass" else ""
            if s.stage == "setup-bonus":
                self.act(Action("pick", (tile,)), c)
            elif s.round >= s.data.rules["rounds"]:
                self.act(Action("pass"), c)  # the server ignores a tile in the last round
            else:
                self.act(Action("pass", (tile,) if tile else ()), c)
        elif head == "burn":
            for _ in range(int(w[1])):
                self.act(Action("burn"), c)
        elif head == "convert":
            self.convert(c)
        elif head == "connect":
            self.act(Action("connect", (self.river_between(w[1]),)), c)
        elif head.startswith("+fav") or head.startswith("+tw"):
            kind = "favor" if head.startswith("+fav") else "town"
            self.act(Action(kind, (head[1:].upper(),)), c)
        elif head in DISCARDS:
            # given up before a dwelling or transform of the same row: the engine gives up
            # what that move leaves; at the end of a row, the discard ends the follow-up
            if not any(x.line == c.line and not x.used and x.head in ("build", "transform")
                       for x in self.log.commands[self.pos:]):
                self.act(Action("done"), c)
        elif re.match(r"^-\d*convert_w_to_p$", head):
            pass  # the Darklings' conversion given up: our engine ends it with the turn
        elif re.match(r"^[+-]\d*[a-z]+$", head) and len(w) == 1:
            self.resource(faction, c)
        else:
            raise self.fail(c, "unknown command")

    def best_spot(self, track: str) -> int:
        from terra_sim.games.terra_mystica.moves import free_spot

        i = self.state.data.cults.index(track)
        for steps in sorted(set(self.state.data.cult_spots), reverse=True):
            if free_spot(self.state, i, steps) >= 0:
                return steps
        return 1

    def river_between(self, spec: str) -> int:
        m = self.state.data.map
        hexes = [m.hex(x) for x in spec.split(":")]
        if len(hexes) == 1 and m.river >> hexes[0] & 1:
            return hexes[0]
        common = m.river
        for h in hexes:
            common &= m.neigh[h]
        if not common:
            raise UserError(f"connect {spec}: no river hex borders all of them")
        return (common & -common).bit_length() - 1

    def convert(self, c: Command) -> None:
        m = re.match(r"^convert (\d*)\s*([a-z]+) to (\d*)\s*([a-z]+)$", " ".join(c.words))
        if not m:
            raise self.fail(c, "expected convert N<resource> to M<resource>")
        n = int(m.group(1) or 1)
        src, dst = RES.get(m.group(2)), RES.get(m.group(4))
        if src is None or dst is None:
            raise self.fail(c, "unknown resource")
        s = self.state
        p = s.players[s.current_player()]
        if (src, dst) == ("W", "P"):
            unit = 1
        else:
            from terra_sim.games.terra_mystica.moves import conversion_rate

            try:
                unit = conversion_rate(s, p, src, dst)[0]
            except KeyError:
                raise self.fail(c, f"no conversion from {src} to {dst}") from None
        for _ in range(n // unit):
            self.act(Action("convert", (src, dst)), c)

    def unmatched_leech(self, faction: str, c: Command) -> None:
        """`leech N` with no offer open: without strict leech the server applies it anyway."""
        p = self.state.players[self.seat[faction]]
        n = int(c.words[1]) if len(c.words) > 1 else 1
        if n > p.total_vp:
            n = p.total_vp + 1
        room = p.room()
        got = min(n, room)
        self.fix(p.seat, "PW", got)
        if got > 1:
            self.fix(p.seat, "VP", 1 - got)

    def fix(self, seat: int, res: str, n: int) -> None:
        a = Action("adjust", (seat, res, n))
        self.actions.append(self.state.action_text(a))
        self.state.apply(a)

    def resource(self, faction: str, c: Command) -> None:
        """A manual fix (`+1c`, `-1vp`, or a cult step `+fire`, `+2fire`)."""
        m = re.match(r"^([+-])(\d*)([a-z]+)$", c.head)
        assert m
        sign, num, what = m.groups()
        s = self.state
        if what in s.data.cults and sign == "+":
            self.act(Action("cult", (what,)), c)
            return
        if sign == "+" and "loose-adjust-resource" not in self.log.options:
            raise self.fail(c, "a manual gain of resources needs option loose-adjust-resource")
        res = RES.get(what)
        if res is None:
            raise self.fail(c, "unknown resource")
        n = int(num or 1) * (1 if sign == "+" else -1)
        self.fix(self.seat[faction], res, n)


def replay_log(text: str, game: TerraMystica | None = None) -> Replayer:
    """Replay a log through the engine; raises UserError naming the first line that fails."""
    r = Replayer(game or TerraMystica(), read_log(text))
    try:
        r.run()
    except IllegalAction as e:
        raise UserError(str(e)) from None
    return r


def final_vp(r: Replayer) -> dict[str, Any]:
    return {p.faction.slug: p.total_vp for p in r.state.players}


# ----- writing ---------------------------------------------------------------------------------
SERVER_NAMES = {v: k for k, v in NAMES.items()}


def write_log(game: TerraMystica, factions: list[str], options: dict[str, Any],
              actions: list[str], seed: int = 0) -> str:
    """One of our games in the server's notation: the setup rows, then one row per turn (and one
    per answer to a power offer), as the server's own logs have them."""
    s = game.new_state(factions, seed, **options)
    data = s.data
    colour = {terrain: c for c, terrain in COLORS.items() if c != "grey"}
    name = {i: SERVER_NAMES.get(f, f) for i, f in enumerate(factions)}
    in_play = s.setup_info()["bonus_tiles"]
    lines = [f"# exported by terra-sim ({game.slug} engine {game.version}, seed {seed})"]
    lines += [f"option {o}" for o in ALWAYS]
    lines += [f"option {server}" for ours, (on, server) in SERVER_OPTIONS.items()
              if s.options.get(ours, OPTIONS[ours][0]) == on]
    if any(t.startswith("adjust ") for t in actions):
        lines.append("option loose-adjust-resource")  # the log's manual fixes
    lines.append("score " + ",".join(t.lower() for t in s.scoring_tiles))
    lines += [f"delete {t.lower()}" for t in data.tiles.bonus
              if t not in in_play and _offered(game, s.options, t)]
    lines += [f"setup {name[i]}" for i in range(len(factions))]
    row: list[str] = []
    row_seat = -1
    # a burn or conversion repeated, written as one command; and whether it started while the
    # Darklings' workers-to-priests was open (the server then refuses more than 3 in one)
    run: tuple[str, int, bool] = ("", 0, False)

    def flush_run() -> None:
        nonlocal run
        head, k, w2p_open = run
        if k:
            if head == "burn":
                row.append(f"burn {k}")
            else:
                a, b = head.split()[1:]
                n, m = _rate(s, a, b)
                ends = [1, k - 1] if w2p_open and k * m > 3 else [k]
                row.extend(f"convert {j * n}{a.lower()} to {j * m}{b.lower()}" for j in ends)
        run = ("", 0, False)

    def flush() -> None:
        flush_run()
        if row:
            lines.append(f"{name[row_seat]}: " + ". ".join(row))
            row.clear()

    for text in actions:
        a = s.parse_action(text)
        seat = a.args[0] if a.kind == "adjust" else s.current_player()
        if seat != row_seat or a.kind in ("leech", "decline"):
            flush()
            row_seat = seat
        kind, args = a
        if kind in ("burn", "convert"):
            if run[0] != text:
                flush_run()
                p = s.players[seat]
                run = (text, 0, bool(p.w2p) and kind == "convert" and args != ("W", "P"))
            run = (run[0], run[1] + 1, run[2])
            s.apply(a)
            continue
        flush_run()
        cmd = _command(s, a, colour, name)
        if cmd:
            row.append(cmd)
        quiet = _quiet_offers(s) if kind in ("done", "pass") and not s.pending else []
        # A `done` that gives up an action's spades leaves the turn open (conversions, a double
        # turn's second action): the row goes on. Cult-bonus spades are a row of their own.
        turn_goes_on = (kind == "done" and bool(s.pending) and s.pending[0][0] == "spades"
                        and not s.spade.get("cult"))
        s.apply(a)
        if kind in ("leech", "decline", "done", "pass", "pick", "adjust") and not turn_goes_on:
            flush()
            row_seat = -1
        lines += [f"{name[q]}: decline {n} from {name[b]}" for q, n, b in quiet]
    flush()
    return "\n".join(lines) + "\n"


def _quiet_offers(s: TerraMysticaState) -> list[tuple[int, int, int]]:
    """(seat, amount, builder) of the power offers the turn's builds make to players with full
    bowls: our engine makes none (nothing could be gained), the server makes them and waits
    for an answer."""
    return [(seat, amount, builder) for builder, h in s.builds
            for seat, amount in s.power_offers(builder, h) if s.players[seat].room() <= 0]


def _rate(s: TerraMysticaState, a: str, b: str) -> tuple[int, int]:
    from terra_sim.games.terra_mystica.moves import conversion_rate

    if (a, b) == ("W", "P"):
        return 1, 1
    return conversion_rate(s, s.players[s.current_player()], a, b)


def _command(s: TerraMysticaState, a: Action, colour: dict[str, str],
             name: dict[int, str]) -> str:
    kind, args = a
    m = s.data.map
    p = s.players[s.current_player()]
    if kind == "place":
        return f"build {m.name(args[0]).lower()}"
    if kind == "pick":
        return f"pass {args[0].lower()}"
    if kind in ("build", "transform"):
        h = args[0]
        dst = s.data.wheel.index(args[1]) if len(args) > 1 else p.faction.home
        sp = s.spade if s.pending and s.pending[0][0] == "spades" else {}
        hex_name = m.name(h).lower()
        need = 0 if sp.get("ride") or sp.get("mask", 0) >> h & 1 else s.spades_needed(
            p, s.terrain[h], dst)
        # the dwelling gives up the spades it leaves: the server wants them given up before
        left = max(0, sp.get("free", 0) - need) if kind == "build" else 0
        cmds = ["-spade"] * left
        if sp.get("sandstorm") or not need:
            cmds.append(f"{kind} {hex_name}")
        else:
            dig = max(0, need - sp.get("free", 0))
            if dig:
                cmds.append(f"dig {dig}")
            cmds.append(f"build {hex_name}" if kind == "build"
                        else f"transform {hex_name} to {colour[s.data.wheel[dst]]}")
        return ". ".join(cmds)
    if kind == "upgrade":
        return f"upgrade {m.name(args[0]).lower()} to {args[1].lower()}"
    if kind == "send":
        return f"send p to {args[0]} for {args[1]}"
    if kind == "advance":
        return f"advance {args[0]}"
    if kind == "action":
        return f"action {args[0].lower()}"
    if kind == "bridge":
        x, y = m.bridge_sites[args[0]]
        return f"bridge {m.name(x).lower()}:{m.name(y).lower()}"
    if kind == "pass":
        return f"pass {args[0].lower()}" if args else "pass"
    if kind == "connect":
        return f"connect {m.name(args[0]).lower()}"
    if kind in ("favor", "town"):
        return f"+{args[0].lower()}"
    if kind == "cult":
        steps = s.pending[0][2] if s.pending else 1
        return f"+{steps if steps > 1 else ''}{args[0]}"
    if kind in ("leech", "decline"):
        e = s.pending[0]
        return f"{kind} {e[2]} from {name[e[3]]}"
    if kind == "adjust":
        seat, res, n = args
        return f"{n:+d}{res.lower()}"
    if kind == "done":
        if p.w2p and p.w2p == p.eff.get("workers_to_priests"):
            return f"-{p.w2p}convert_w_to_p"  # the Darklings' conversion left unused
        if not (s.pending and s.pending[0][0] == "spades"):
            return ""
        # what the follow-up still holds is given up, as the server wants it said
        sp = s.spade
        return ". ".join(["-spade"] * sp.get("free", 0)
                         + [f"-{GIVE_UP[k]}" for k in GIVE_UP if sp.get(k)])
    raise ValueError(f"cannot write {kind!r} in the server's notation")
