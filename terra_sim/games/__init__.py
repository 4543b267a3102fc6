"""Game registry keyed by slug. Games load lazily so one game's import cost never hits another."""

import importlib
import json
from typing import Any

from terra_sim.core.errors import UserError
from terra_sim.core.protocol import Game

GAMES: dict[str, str] = {
    "terra-nova": "terra_sim.games.terra_nova.game:TerraNova",
}

_cache: dict[str, Game] = {}


def game_slugs() -> list[str]:
    return list(GAMES)


def get_game(slug: str, overrides: dict[str, Any] | None = None) -> Game:
    """The game for `slug`, with data `overrides` for what-if experiments."""
    if slug not in GAMES:
        raise UserError(f"unknown game {slug!r} (valid: {', '.join(GAMES)})")
    key = slug + json.dumps(overrides or {}, sort_keys=True)
    if key not in _cache:
        module, cls = GAMES[slug].split(":")
        _cache[key] = getattr(importlib.import_module(module), cls)(overrides)
    return _cache[key]
