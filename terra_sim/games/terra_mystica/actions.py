"""Terra Mystica actions: small immutable values with one canonical text form and a parser.

Text forms (hexes by board name, e.g. "E5"; river hexes r0..r35; bridges by both ends):
    place E5              setup: a starting dwelling      pick BON3    setup: a bonus tile
    build E5              transform to home terrain if needed (digging the spades) and build a
                          dwelling; reaches by adjacency, shipping, tunnel or carpet flight
    transform E5 [lakes]  only transform (to home terrain, or to the terrain named)
    upgrade E5 TP         TP, TE, SH or SA
    send fire 3           a priest to a cult track's 3-step spot (2: a 2-step spot; 1: back)
    advance ship / advance dig
    action ACT5           a power action, or BON1 BON2 FAV6 ACTA ACTC ACTE ACTG ACTN ACTS ACTW
    bridge A3-C1          a bridge (after ACT1 or ACTE)
    pass BON3 / pass      pass, taking a bonus tile (none in the last round)
    burn                  one power from bowl II burnt, one moved to bowl III
    convert PW C          one conversion at the data's rate (PW C, PW W, PW P, W C, P C, P W;
                          Alchemists VP C and C VP; Darklings' stronghold W P)
    connect r12           Mermaids: a river hex joins a town's two banks
    +FAV5 / +TW3 / +fire  take a favour tile / a town tile / a cult step (cult actions, rewards)
    leech / decline       take or refuse the power offered by a neighbour's build
    done                  end the turn (after the action) or stop using free spades
    adjust 2 C 1          an imported log's manual fix (seat, resource, amount): only in games
                          imported with option log_fixes=yes, never offered to a bot
"""

# terra-sim: compile

from typing import Final, NamedTuple

from terra_sim.core.errors import IllegalAction
from terra_sim.core.hexmap import HexMap

BUILDINGS: Final[tuple[str, ...]] = ("D", "TP", "TE", "SH", "SA")


class Action(NamedTuple):
    kind: str
    args: tuple = ()


class Made:
    """One map's actions, each made once and handed out again. Listing the legal moves is the
    search's hot loop, and a NamedTuple made in compiled code still costs a call into Python:
    made afresh, they took a tenth of a search game. An action handed out is equal to one made
    anew, so games and their logs are the same."""

    def __init__(self, size: int, wheel: tuple[str, ...]):
        hexes = range(size)
        self.build = [Action("build", (h,)) for h in hexes]
        self.transform_home = [Action("transform", (h,)) for h in hexes]
        # transform[h][t]: h turned to the wheel's terrain t (not the mover's home)
        self.transform = [[Action("transform", (h, name)) for name in wheel] for h in hexes]
        self.upgrade = {b: [Action("upgrade", (h, b)) for h in hexes] for b in BUILDINGS[1:]}
        self.other: dict[tuple[str, tuple], Action] = {}

    def get(self, kind: str, args: tuple = ()) -> Action:
        """Any other action, made on first use."""
        key = (kind, args)
        a = self.other.get(key)
        if a is None:
            a = self.other[key] = Action(kind, args)
        return a


# kind -> argument types; "hex?" and "word?" are optional
KINDS: Final[dict[str, tuple[str, ...]]] = {
    "place": ("hex",), "pick": ("word",), "build": ("hex",), "transform": ("hex", "word?"),
    "upgrade": ("hex", "word"), "send": ("word", "int"), "advance": ("word",),
    "action": ("word",), "bridge": ("site",), "pass": ("word?",), "burn": (),
    "convert": ("word", "word"), "connect": ("hex",), "favor": ("word",), "town": ("word",),
    "cult": ("word",), "leech": (), "decline": (), "done": (),
    "adjust": ("int", "word", "int"),  # an imported log's manual fix: seat, resource, amount
}
UPPER: Final[tuple[str, ...]] = ("upgrade", "action", "pass", "pick", "convert", "adjust")
PREFIXED: Final = {"+FAV": "favor", "+TW": "town"}


class ActionCodec:
    """Text <-> Action for one map."""

    def __init__(self, hexmap: HexMap, cults: tuple[str, ...]):
        self.map = hexmap
        self.cults = cults

    def text(self, a: Action) -> str:
        kind, args = a
        if kind == "favor" or kind == "town":
            return f"+{args[0]}"
        if kind == "cult":
            return f"+{args[0]}"
        parts = [kind]
        for t, v in zip(KINDS[kind], args, strict=False):
            if t.startswith("hex"):
                parts.append(self.map.name(v))
            elif t == "site":
                parts.append(self.map.bridge_name(v))
            else:
                parts.append(str(v))
        return " ".join(parts)

    def parse(self, text: str) -> Action:
        words = text.split()
        if not words:
            raise IllegalAction("empty action")
        head = words[0]
        if head.startswith("+") and len(words) == 1:
            name = head[1:]
            for prefix, kind in PREFIXED.items():
                if head.upper().startswith(prefix):
                    return Action(kind, (name.upper(),))
            if name.lower() in self.cults:
                return Action("cult", (name.lower(),))
            raise IllegalAction(f"unknown tile or cult track {head!r}")
        kind = head.lower()
        types = KINDS.get(kind)
        if types is None:
            raise IllegalAction(f"unknown action {head!r} (known: {', '.join(KINDS)})")
        need = sum(1 for t in types if not t.endswith("?"))
        if not need <= len(words) - 1 <= len(types):
            raise IllegalAction(f"{kind}: expected {' '.join(types) or 'no arguments'}, "
                                f"got {text!r}")
        args: list = []
        for t, w in zip(types, words[1:], strict=False):
            try:
                if t.startswith("hex"):
                    args.append(self.map.hex(w))
                elif t == "site":
                    args.append(self.map.bridge_index[self._site(w)])
                elif t == "int":
                    args.append(int(w))
                elif kind in UPPER:
                    args.append(w.upper())
                else:
                    args.append(w.lower())
            except (ValueError, KeyError):
                raise IllegalAction(f"{kind}: bad {t.rstrip('?')} {w!r}") from None
        return Action(kind, tuple(args))

    def _site(self, w: str) -> str:
        a, _, b = w.upper().replace(":", "-").partition("-")
        ha, hb = self.map.hex(a), self.map.hex(b)
        lo, hi = min(ha, hb), max(ha, hb)
        return f"{self.map.name(lo)}-{self.map.name(hi)}"
