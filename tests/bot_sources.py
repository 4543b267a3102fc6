"""Source files of misbehaving test bots, written to a temporary folder and loaded by path as a
user's bot would be."""

BOOM = '''
from strategies.base import Strategy


class Boom(Strategy):
    name = "boom"

    def choose(self, state, legal):
        raise RuntimeError("boom goes the bot")
'''


def slow(seconds: float) -> str:
    """A bot that thinks `seconds` about every decision, then plays at random."""
    return f'''
import time
from strategies.base import Strategy


class Slow(Strategy):
    name = "slow"

    def choose(self, state, legal):
        time.sleep({seconds})
        return self.rng.choice(legal)
'''
