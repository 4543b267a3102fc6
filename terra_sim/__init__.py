"""terra-sim: tournament simulator and balance analytics for the Terra Mystica family."""

from typing import TYPE_CHECKING, Any

from terra_sim import native  # noqa: F401  (first: it picks the compiled or the plain build)
from terra_sim.core.record import GameRecord
from terra_sim.games import game_slugs, get_game
from terra_sim.play import play_game, replay_game
from terra_sim.version import __version__

if TYPE_CHECKING:
    from terra_sim.run.runner import RunResult, run_tournament

__all__ = ["GameRecord", "play_game", "replay_game", "get_game", "game_slugs",
           "run_tournament", "RunResult", "__version__"]


def __getattr__(name: str) -> Any:
    # The runner brings polars and the worker pool: loaded on first use, so that `terra-sim
    # list` and `--help` start without them.
    if name in ("run_tournament", "RunResult"):
        from terra_sim.run import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'terra_sim' has no attribute {name!r}")
