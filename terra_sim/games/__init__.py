"""The game registry: one line per game names its engine and its bots' package.

Nothing else in terra_sim or strategies/ knows a game by name: the runner, storage, reports,
CLI and the strategy registry all reach a game through this table. Games load lazily, so one
game's import cost never hits another.
"""

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from terra_sim.core.errors import UserError
from terra_sim.core.protocol import Game


@dataclass(frozen=True)
class GameEntry:
    engine: str | Callable[[dict[str, Any] | None], Game]  # "module:Class", or the class itself
    bots: str | ModuleType | None = None  # the package of the game's own bots (strategies/<g>/)


GAMES: dict[str, GameEntry] = {
    "terra-nova": GameEntry("terra_sim.games.terra_nova.game:TerraNova", "strategies.terra_nova"),
    "terra-mystica": GameEntry("terra_sim.games.terra_mystica.game:TerraMystica",
                               "strategies.terra_mystica"),
    "terramara": GameEntry("terra_sim.games.terramara.game:Terramara", "strategies.terramara"),
}
DEFAULT_GAME = "terra-nova"  # what `terra-sim run` plays when no game is named

_cache: dict[str, Game] = {}


def register_game(slug: str, engine: str | Callable[[dict[str, Any] | None], Game],
                  bots: str | ModuleType | None = None) -> None:
    """Add (or replace) a game at run time: a plug-in outside this package, or a test's game."""
    GAMES[slug] = GameEntry(engine, bots)
    _forget(slug)


def unregister_game(slug: str) -> None:
    GAMES.pop(slug, None)
    _forget(slug)


def _forget(slug: str) -> None:
    for key in [k for k in _cache if k.startswith(slug + "{")]:
        del _cache[key]


def game_slugs() -> list[str]:
    return list(GAMES)


def _entry(slug: str) -> GameEntry:
    if slug not in GAMES:
        raise UserError(f"unknown game {slug!r} (valid: {', '.join(GAMES)})")
    return GAMES[slug]


def get_game(slug: str, overrides: dict[str, Any] | None = None) -> Game:
    """The game for `slug`, with data `overrides` for what-if experiments."""
    engine = _entry(slug).engine
    key = slug + json.dumps(overrides or {}, sort_keys=True)
    if key not in _cache:
        if isinstance(engine, str):
            module, cls = engine.split(":")
            engine = getattr(importlib.import_module(module), cls)
        _cache[key] = engine(overrides)
    return _cache[key]


def game_bots(slug: str) -> ModuleType | None:
    """The package of `slug`'s own bots (STRATEGIES, and optionally a search heuristic)."""
    bots = _entry(slug).bots
    return importlib.import_module(bots) if isinstance(bots, str) else bots
