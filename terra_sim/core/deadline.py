"""The decision deadline: a bot that thinks longer than the decision timeout is interrupted.

An interval timer (setitimer, SIGALRM) runs while the bot thinks; its handler raises
DecisionTimeout inside the bot's code, so even a bot that never returns gives its seat up.
Signals reach only the main thread, so elsewhere (a game played from a thread) the deadline is
checked once the bot returns, as the play loop always does.
"""

import signal
import threading
import time
from types import FrameType, TracebackType
from typing import Any

# After the first interruption the timer fires again at this interval: a bot that swallows the
# exception (a bare `except:`) is interrupted until it gives up.
REFIRE_S = 0.05


class DecisionTimeout(BaseException):
    """Raised inside a bot thinking past its deadline. A BaseException, so that a bot's own
    `except Exception` does not swallow it."""


class Deadline:
    """`with Deadline(seconds) as d:` around a game, `d.arm()` / `d.disarm()` around each
    decision. `enforced` is False where signals cannot interrupt (not the main thread)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.enforced = (hasattr(signal, "setitimer")
                         and threading.current_thread() is threading.main_thread())
        self._armed = False
        self._old_handler: Any = None
        self._old_timer: tuple[float, float] = (0.0, 0.0)
        self._entered = 0.0

    def _fire(self, signum: int, frame: FrameType | None) -> None:
        if self._armed:  # a signal queued just before disarm() is ignored
            raise DecisionTimeout

    def __enter__(self) -> "Deadline":
        if self.enforced:
            self._old_handler = signal.signal(signal.SIGALRM, self._fire)
            self._old_timer = signal.setitimer(signal.ITIMER_REAL, 0)
            self._entered = time.monotonic()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if not self.enforced:
            return
        self._armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._old_handler)
        delay, interval = self._old_timer
        if delay > 0:  # someone else's timer (a test runner's timeout) runs on
            left = delay - (time.monotonic() - self._entered)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), interval)

    def arm(self) -> None:
        if self.enforced:
            self._armed = True
            signal.setitimer(signal.ITIMER_REAL, self.seconds, REFIRE_S)

    def disarm(self) -> None:
        if self.enforced:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
