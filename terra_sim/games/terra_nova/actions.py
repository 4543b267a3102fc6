"""Terra Nova actions: small immutable values with one canonical text form and a parser.

Text forms (hexes by board name, e.g. "E5"; bridges by their two ends, e.g. "A5-C5"):
    place E5            setup: a starting house          pick B        setup: a bonus tile
    neutral E5          2-player variants: a neutral house
    build E5 / dig E5   make habitable (paying shovels) and build a house / only transform
    pw-spade1-build E5, pw-spade1-dig E5            power action, 1 free shovel
    pw-spade2-build E5, pw-spade2-dig E5, pw-spade2-dig2 E5 F3, pw-spade2-build-dig E5 F3
    bonus-build E5, bonus-dig E5                    bonus tile special action (1 free shovel)
    fairy-build E5, fairy-dig E5                    Fairies' left palace power action
    sun-build E5, sun-dig E5                        Sun Worshippers' left palace special action
    lake-house E5       Water Sprites' left palace: free house on home terrain anywhere
    inventor-tp E5      Inventors' left palace: power for a transformed hex with a trading post
    edge-house E5 / edge-skip     Fire Sprites' left palace, when built
    upgrade E5          house -> trading post        palace E5 left|right     TP -> palace
    free-tp E5          Sea Dogs' right palace: free house -> trading post
    sail / bridge A5-C5 / pw-bridge3 A5-C5 / pw-bridge4 A5-C5 / pw-sail / pw-coins
    exchange 3          3 power -> 3 money (free: before the action, after it where that can
                        matter, and at round end)
    druid-vp            Druids: 3 power -> 2 VP (free, at every exchange time)
    done                end an exchange decision
    pass C              drop out and take bonus tile C (and its coins; in the last round too)
    town 3              choose town tile 3 for a town just founded
    river-link / no-link    Sea Dogs: found (or expand) this action's towns across one river
                        hex, or not
"""

# terra-sim: compile

from typing import Final, NamedTuple

from terra_sim.core.errors import IllegalAction
from terra_sim.core.hexmap import HexMap


class Action(NamedTuple):
    kind: str
    args: tuple = ()


# Legal-move generation makes dozens of actions per call, and a NamedTuple made from compiled
# code costs a Python-level call: each action with no argument, one int (a hex, site or amount),
# two hexes or a tile is made once per process and handed out again (actions are values; only
# equality counts).
_singles: dict[str, list[Action]] = {}
_pairs: dict[str, dict[int, Action]] = {}
_named: dict[str, dict[str, Action]] = {}


def single(kind: str, x: int) -> Action:
    """Action(kind, (x,))."""
    row = _singles.get(kind)
    if row is None:
        row = _singles[kind] = []
    while len(row) <= x:
        row.append(Action(kind, (len(row),)))
    return row[x]


def named(kind: str, name: str = "") -> Action:
    """Action(kind, (name,)) for a tile, or Action(kind) without a name."""
    table = _named.get(kind)
    if table is None:
        table = _named[kind] = {}
    act = table.get(name)
    if act is None:
        act = table[name] = Action(kind, (name,) if name else ())
    return act


def pair(kind: str, a: int, b: int) -> Action:
    """Action(kind, (a, b)) for hexes a and b."""
    table = _pairs.get(kind)
    if table is None:
        table = _pairs[kind] = {}
    key = a << 16 | b
    act = table.get(key)
    if act is None:
        act = table[key] = Action(kind, (a, b))
    return act


# Argument types per kind; power action kinds ("pw-<id>...") are added per data set.
BASE_KINDS: Final[dict[str, tuple[str, ...]]] = {
    "place": ("hex",), "neutral": ("hex",), "pick": ("tile",),
    "build": ("hex",), "dig": ("hex",),
    "bonus-build": ("hex",), "bonus-dig": ("hex",),
    "fairy-build": ("hex",), "fairy-dig": ("hex",),
    "sun-build": ("hex",), "sun-dig": ("hex",),
    "lake-house": ("hex",), "inventor-tp": ("hex",),
    "edge-house": ("hex",), "edge-skip": (),
    "upgrade": ("hex",), "palace": ("hex", "side"), "free-tp": ("hex",),
    "sail": (), "bridge": ("site",),
    "exchange": ("int",), "druid-vp": (), "done": (),
    "pass": ("tile",), "town": ("int",), "river-link": (), "no-link": (),
}
SIDES: Final[tuple[str, ...]] = ("left", "right")


def power_kinds(power_actions) -> dict[str, tuple]:
    """Action kind -> (power action, argument types) for each board power action."""
    kinds: dict[str, tuple] = {}
    for pa in power_actions:
        k = f"pw-{pa.id}"
        if pa.effect == "bridge":
            kinds[k] = (pa, ("site",))
        elif pa.effect in ("sail", "coins"):
            kinds[k] = (pa, ())
        else:
            kinds[k + "-build"] = (pa, ("hex",))
            kinds[k + "-dig"] = (pa, ("hex",))
            if pa.effect == "spade2":
                kinds[k + "-dig2"] = (pa, ("hex", "hex"))
                kinds[k + "-build-dig"] = (pa, ("hex", "hex"))
    return kinds


class ActionCodec:
    """Text <-> Action for one map and set of power actions."""

    def __init__(self, hexmap: HexMap, power_actions, tiles):
        self.map = hexmap
        power = power_kinds(power_actions)
        self.kinds = {**BASE_KINDS, **{k: types for k, (_, types) in power.items()}}
        self.power_of = {k: pa for k, (pa, _) in power.items()}
        self.tiles = set(tiles)

    def text(self, action: Action) -> str:
        parts = [action.kind]
        for typ, arg in zip(self.kinds[action.kind], action.args, strict=False):
            if typ == "hex":
                parts.append(self.map.names[arg])
            elif typ == "site":
                parts.append(self.map.bridge_name(arg))
            else:
                parts.append(str(arg))
        return " ".join(parts)

    def parse(self, text: str) -> Action:
        words = text.split()
        if not words or words[0] not in self.kinds:
            raise IllegalAction(f"unknown action {text!r}")
        kind, rest = words[0], words[1:]
        types = self.kinds[kind]
        if len(rest) != len(types):
            raise IllegalAction(f"{text!r}: {kind} takes {len(types)} argument(s)")
        args: list[int | str] = []
        for typ, word in zip(types, rest, strict=False):
            try:
                if typ == "hex":
                    args.append(self.map.hex(word))
                elif typ == "site":
                    args.append(self.map.bridge_index[word.upper()])
                elif typ == "int":
                    args.append(int(word))
                elif typ == "side":
                    if word not in SIDES:
                        raise ValueError(word)
                    args.append(word)
                else:
                    if word not in self.tiles:
                        raise ValueError(word)
                    args.append(word)
            except (ValueError, KeyError):
                raise IllegalAction(f"{text!r}: bad {typ} {word!r}") from None
        return Action(kind, tuple(args))
