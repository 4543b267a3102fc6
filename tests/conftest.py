import sys

import plugin_game
import pytest

from terra_sim.games import register_game, unregister_game


@pytest.fixture
def tally_game():
    """The test game of plugin_game.py, registered for one test as a plug-in would be."""
    register_game(plugin_game.SLUG, plugin_game.Tally, sys.modules["plugin_game"])
    yield plugin_game.SLUG
    unregister_game(plugin_game.SLUG)
