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


SWALLOW = '''
from strategies.base import Strategy


class Swallow(Strategy):
    """In one game in three, swallows every interruption of the decision deadline and loops on."""

    name = "swallow"

    def choose(self, state, legal):
        if state.seed % 3 == 0 and state.round == 2:
            while True:
                try:
                    while True:
                        pass
                except BaseException:
                    pass
        return self.rng.choice(legal)
'''

MASKED = '''
import signal
from strategies.base import Strategy


class Masked(Strategy):
    """In one game in three, blocks the deadline's alarm signal and loops: nothing interrupts it."""

    name = "masked"

    def choose(self, state, legal):
        if state.seed % 3 == 0 and state.round == 2:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
            while True:
                pass
        return self.rng.choice(legal)
'''
