import sys

import plugin_game
import pytest

from terra_sim.games import register_game, unregister_game
from terra_sim.store import rundir


@pytest.fixture
def tally_game():
    """The test game of plugin_game.py, registered for one test as a plug-in would be."""
    register_game(plugin_game.SLUG, plugin_game.Tally, sys.modules["plugin_game"])
    yield plugin_game.SLUG
    unregister_game(plugin_game.SLUG)


@pytest.fixture
def ctrl_c_at_chunk(monkeypatch):
    """ctrl_c_at_chunk(n): Ctrl-C reaches the run as it writes its n-th chunk (the chunks before
    it are kept, that one is lost); ctrl_c_at_chunk(None) writes normally again."""
    real = rundir.write_chunk

    def arm(n: int | None) -> None:
        calls = []

        def interrupted(*a, **k):
            calls.append(1)
            if len(calls) == n:
                raise KeyboardInterrupt
            return real(*a, **k)

        monkeypatch.setattr(rundir, "write_chunk", real if n is None else interrupted)

    return arm
