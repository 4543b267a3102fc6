"""A time limit per test for files whose tests start processes or threads that could hang."""

import faulthandler

import pytest


def hang_limit(seconds: int):
    """An autouse fixture for a test module (assign it to a module name): a test running past
    `seconds` ends the test process with every thread's traceback, so a hang fails the run
    instead of stalling it."""

    @pytest.fixture(autouse=True)
    def bounded():
        faulthandler.dump_traceback_later(seconds, exit=True)
        yield
        faulthandler.cancel_dump_traceback_later()

    return bounded
