"""Strategy names per game: the game-agnostic bots plus the game's own (strategies/<game>/).

A name may exist for several games (each game's `greedy` is its own class); a name is always
resolved against the game being played.
"""

import json
import random
import re
from typing import Any

from strategies.base import Strategy
from strategies.loader import load_class
from strategies.random_bot import RandomStrategy
from strategies.search import SearchStrategy
from terra_sim.core.errors import UserError
from terra_sim.games import game_bots

GENERIC: tuple[type[Strategy], ...] = (RandomStrategy, SearchStrategy)


def roster(game: str) -> dict[str, type[Strategy]]:
    """Every named strategy that plays `game`: the game-agnostic ones first."""
    out = {cls.name: cls for cls in GENERIC}
    kit = game_bots(game)
    for cls in getattr(kit, "STRATEGIES", ()):
        if cls.name in out:
            raise ValueError(f"{game}'s bot {cls.name!r} shadows another strategy of that name")
        out[cls.name] = cls
    return out


def default_strategies(game: str) -> list[str]:
    """The mix a run plays when it names no strategies: the game's scripted bots."""
    return [n for n, cls in roster(game).items() if cls.kind == "scripted"] or ["random"]


# `name:key=value:key=value`: a strategy with parameters, named in one string (a command line's
# --strategies, a config's pool). Parameters are split by ':', not ',': the name is stored in
# a comma-joined list of a game's strategies. The earliest ':' whose rest is all key=value
# ends the name, so a plug-in's path/to/file.py:Class takes parameters the same way.
INLINE = re.compile(r"(.+?)((?::[A-Za-z_]\w*=[^:]*)+)")


def split_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """(name, parameters) of a strategy named `name` or `name:key=value:...`; a value is read
    as JSON where it parses (numbers, true/false), else kept as text."""
    m = INLINE.fullmatch(spec)
    if m is None:
        return spec, {}
    params: dict[str, Any] = {}
    for item in m.group(2)[1:].split(":"):
        key, _, value = item.partition("=")
        if key in params:
            raise UserError(f"strategy {spec!r}: parameter {key!r} given twice")
        try:
            params[key] = json.loads(value)
        except ValueError:
            params[key] = value
    return m.group(1), params


def resolve(spec: str, game: str) -> type[Strategy]:
    if not isinstance(spec, str):
        raise UserError(f"a strategy is named by a string, got {spec!r}")
    spec = split_spec(spec)[0]
    names = roster(game)
    if spec in names:
        return names[spec]
    if ":" not in spec:
        raise UserError(f"unknown strategy {spec!r} for {game} (valid: {', '.join(names)}, "
                        "or path/to/file.py:ClassName, or package.module:ClassName; "
                        "parameters as name:key=value:key=value)")
    cls = load_class(spec)
    if cls.games and game not in cls.games:
        raise UserError(f"strategy {spec!r} plays {', '.join(cls.games)}, not {game}")
    return cls


def _construct(cls: type[Strategy], rng: random.Random, params: dict[str, Any],
               label: str, game: str) -> Strategy:
    if not isinstance(params, dict):
        raise UserError(f"strategy {label}: parameters must be a table, got {params!r}")
    try:
        return cls(rng, **params)
    except Exception as e:
        if not _shipped(cls, game):
            # A user's bot (path/to/file.py:Class) may fail in any way its author wrote.
            raise UserError(_failed_to_start(cls, label, e)) from None
        if isinstance(e, ValueError | TypeError):  # a shipped bot refusing its parameters
            raise UserError(f"strategy {label}: {e}") from None
        raise  # any other failure of a shipped bot is a bug: its traceback is wanted


def _shipped(cls: type[Strategy], game: str) -> bool:
    return cls in roster(game).values()


def is_shipped(bot: Strategy, game: str) -> bool:
    """Whether `bot` is one of the game's own bots (exactly: a user's subclass is not): the
    play loop trusts these not to change the state (a test checks it) and guards the rest."""
    return _shipped(type(bot), game)


def _failed_to_start(cls: type[Strategy], label: str, e: Exception) -> str:
    lines = str(e).strip().splitlines()
    what = f"{type(e).__name__}: {lines[0]}" if lines else type(e).__name__
    return f"strategy {label} ({cls.__name__}) failed to start: __init__ raised {what}"


def variant_spec(name: str, table: dict[str, Any], game: str) -> tuple[str, dict[str, Any]]:
    """A config table `[strategies.<name>]` -> (base, params), validated for `game`.

    The table names a shipped (or file/module) strategy as `base`; every other key is one of
    its parameters, e.g. {"base": "greedy", "weights": {"money": 0.5}} or
    {"base": "greedy", "money": 0.5}.
    """
    if not isinstance(table, dict):
        raise UserError(f"strategy variant {name!r}: expected a table, got {table!r}")
    base = table.get("base")
    if not isinstance(base, str) or not base:
        raise UserError(f"strategy variant {name!r} needs base = \"<strategy>\"")
    if base == name:
        raise UserError(f"strategy variant {name!r} cannot be its own base")
    base, inline = split_spec(base)
    params = {**inline, **{k: v for k, v in table.items() if k != "base"}}
    cls = resolve(base, game)  # UserError for an unknown base
    _construct(cls, random.Random(0), params, f"variant {name!r} (base {base!r})", game)
    return base, params


def make_strategy(spec: Any, rng: random.Random, game: str) -> Strategy:
    """A strategy instance for `game` from a name, a spec string (parameters inline:
    `name:key=value:...`, split_spec), (base, params), (base, params, name) or an instance.
    A triple names a config variant, and an inline spec names itself: the instance reports
    that name."""
    if isinstance(spec, Strategy):
        bot = spec
    else:
        params: dict[str, Any] = {}
        label: str | None = None
        if isinstance(spec, tuple | list):
            if len(spec) == 2:
                spec, params = spec
            elif len(spec) == 3:
                spec, params, label = spec
            else:
                raise UserError(f"strategy spec {spec!r}: expected (base, params) or "
                                "(base, params, name)")
        if isinstance(spec, str):
            base, inline = split_spec(spec)
            if inline:  # the table's parameters win, as a config variant's do
                spec, label = base, label or spec
                params = {**inline, **(params or {})}
        bot = _construct(resolve(spec, game), rng, params or {}, repr(label or spec), game)
        if label is not None:
            bot.name = label  # an instance attribute: the class keeps its registry name
    if getattr(bot, "game", None) != game:
        bot.bind(game, game_bots(game))
    return bot
