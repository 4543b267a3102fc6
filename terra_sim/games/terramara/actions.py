"""Terramara actions: small immutable values with one canonical text form and a parser.

Text forms (spaces by board name: homeland `worker develop travel raid first raidfirst`, `hut`,
territory `R3-5` (row 3, position 5 of 6: the left tile's large space 1 and small 2-3, the
right tile's large space 4 and small 5-6), Crossroads `X2`, the personal Crossroads `XP`;
Road nodes `X0`..`X6` crossroads, `B3` a bonus-tile detour, `O3` an Outpost detour, `camp`):
    explorer R3-5 / chief worker   send a clan member to an action space
    flip                           the Character turns experienced (before the round's first member)
    work 2                         activate an unused level-2 Worker, then `refine ...` / `stop`
    refine livestock               refine one raw resource (a Worker's or an effect's capacity)
    use A17                        an Artifact's once-per-round effect
    bonus B05                      one of the own bonus tiles (the bonus-tile Character)
    power                          once a round: VP equal to the Power Level (a Character)
    craft A17 / reserve A17        after the action: create (from the River or the reserved one)
                                   or reserve an Artifact
    end                            end the turn
    take leather / give stone      a resource of choice gained / handed to a raider
    road 2 B3                      one Travel step of Caravan 1 or 2 to a Road node
    stop                           leave the rest of a Travel or refining capacity unused
    choose culture                 round 5's First Player reward (travel, military, culture)
    resolve raid                   the 2-player grouped space: which of its actions first
    neutral R2-3                   setup (2-3 players): place a neutral Explorer
    pick T03                       setup: the personal tiles of the Crossroads Character
"""

# terra-sim: compile

from typing import Final, NamedTuple

from terra_sim.core.errors import IllegalAction


class Action(NamedTuple):
    kind: str
    args: tuple = ()


# kind -> argument types: "w" a word, "i" an integer
KINDS: Final[dict[str, str]] = {
    "explorer": "w", "chief": "w", "flip": "", "work": "i", "refine": "w", "use": "w",
    "bonus": "w", "power": "", "craft": "w", "reserve": "w", "end": "", "take": "w",
    "give": "w", "road": "iw", "stop": "", "choose": "w", "resolve": "w", "neutral": "w",
    "pick": "w",
}


def action_text(a: Action) -> str:
    if not a.args:
        return a.kind
    return a.kind + " " + " ".join(str(x) for x in a.args)


def parse_action(text: str) -> Action:
    words = text.split()
    if not words:
        raise IllegalAction("empty action")
    kind = words[0].lower()
    types = KINDS.get(kind)
    if types is None:
        raise IllegalAction(f"unknown action {words[0]!r} (known: {', '.join(KINDS)})")
    if len(words) - 1 != len(types):
        raise IllegalAction(f"{kind}: expected {len(types)} argument(s), got {text!r}")
    args: list[int | str] = []
    for t, w in zip(types, words[1:], strict=True):
        if t == "i":
            if not w.isdigit():
                raise IllegalAction(f"{kind}: expected a number, got {w!r}")
            args.append(int(w))
        else:
            args.append(w)
    return Action(kind, tuple(args))
