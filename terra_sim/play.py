"""play_game and replay_game by name: the game from the registry, the bots from strategies/.

The loop itself is terra_sim.core.record, which takes a Game and built bots.
"""

from typing import Any

from terra_sim.core.errors import UserError
from terra_sim.core.protocol import Game
from terra_sim.core.record import GameRecord, new_game, play, replay
from terra_sim.core.rng import stream
from terra_sim.games import get_game


def _game(game: str | Game, overrides: dict | None) -> Game:
    return get_game(game, overrides) if isinstance(game, str) else game


def play_game(
    game: str | Game,
    factions: list[str] | None = None,
    strategies: Any = "random",
    seed: int = 0,
    *,
    players: int | None = None,
    overrides: dict | None = None,
    decision_timeout: float | None = None,
    log_actions: bool = True,
    **options: Any,
) -> GameRecord:
    """Play one game between strategies: a name for every seat, or one per seat, each a name,
    a spec string (path/to/file.py:Class), (base, params), (base, params, name) or an instance.

    Each seat's bot gets its own random stream derived from `seed`. Raises StrategyError when a
    strategy raises, times out or returns an illegal action; the caller records the forfeit.
    """
    from strategies import is_shipped, make_strategy  # strategies/ sits above: imported late

    g = _game(game, overrides)
    state, setup = new_game(g, factions, seed, players, overrides, options)
    n = len(setup["factions"])
    specs = [strategies] * n if isinstance(strategies, str) or not isinstance(
        strategies, list | tuple) else list(strategies)
    if len(specs) != n:
        raise UserError(f"{len(specs)} strategies for {n} players")
    bots = [make_strategy(spec, stream(seed, "strategy", seat), game=g.slug)
            for seat, spec in enumerate(specs)]
    # Our own bots are trusted with the real state (tests/test_robust_bots.py checks them), so
    # the state guard's cost falls on user bots only.
    return play(g, state, setup, bots, decision_timeout=decision_timeout,
                log_actions=log_actions, guarded=[not is_shipped(b, g.slug) for b in bots])


def replay_game(record_or_setup: GameRecord | dict, actions: list[str] | None = None) -> GameRecord:
    """Replay action texts from a setup (or a record) and return the resulting record."""
    if isinstance(record_or_setup, GameRecord):
        setup = record_or_setup.setup
        actions = record_or_setup.actions if actions is None else actions
    else:
        setup = record_or_setup
    if actions is None:
        raise UserError("replay_game needs the action texts")
    return replay(get_game(setup["game"], setup.get("overrides") or None), setup, actions)
