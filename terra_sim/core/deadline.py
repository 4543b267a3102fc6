"""The decision deadline: a bot that thinks longer than the decision timeout is interrupted.

An interval timer (setitimer, SIGALRM) runs while the bot thinks; its handler raises
DecisionTimeout inside the bot's code, so even a bot that never returns gives its seat up.
Signals reach only the main thread, so elsewhere (a game played from a thread) the deadline is
checked once the bot returns, as the play loop always does.

Where the interruption cannot reach (a bot looping in C code, blocking SIGALRM, or swallowing
every DecisionTimeout), a watched worker process posts each decision to a Heartbeat, and the
watchdog in its parent (workers.WorkerPool) kills a worker stuck in one decision.
"""

import ctypes
import mmap
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


class Heartbeat:
    """Which game and seat a worker process is deciding for, and since when, in memory its
    parent shares: made by the parent before the fork, posted to by the worker's deadlines,
    read by the parent's watchdog. A post is a clock read and a few stores, beside the two
    setitimer calls a deadline makes per decision anyway."""

    def __init__(self) -> None:
        # An anonymous mapping is MAP_SHARED: after the fork both processes see the same bytes.
        # Doubles hold game ids and seats exactly, and an aligned one is stored in one piece.
        self._slots = (ctypes.c_double * 3).from_buffer(mmap.mmap(-1, 3 * 8))

    def game(self, game_id: int) -> None:
        self._slots[0] = game_id

    def deciding(self, seat: int) -> None:
        self._slots[1] = seat
        self._slots[2] = time.monotonic()  # last: the parent acts on it (monotonic is system-wide)

    def decided(self) -> None:
        self._slots[2] = 0.0

    def stuck(self) -> tuple[int, int, float] | None:
        """(game, seat, seconds) of the decision in progress; None between decisions."""
        since = self._slots[2]
        game, seat = self._slots[0], self._slots[1]
        if not since or self._slots[2] != since:  # none, or a new one posted while read
            return None
        return int(game), int(seat), time.monotonic() - since


_posting: Heartbeat | None = None


def post_to(beat: Heartbeat | None) -> None:
    """Post the decisions of this process's deadlines to `beat` (a watched worker's)."""
    global _posting
    _posting = beat


def posting() -> Heartbeat | None:
    """The heartbeat this process posts to; None unless it is a watched worker."""
    return _posting


class Deadline:
    """`with Deadline(seconds) as d:` around a game, `d.arm(seat)` / `d.disarm()` around each
    decision. `enforced` is False where signals cannot interrupt (not the main thread)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.enforced = (hasattr(signal, "setitimer")
                         and threading.current_thread() is threading.main_thread())
        self._beat = _posting
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
        if self._beat is not None:  # a bot's BaseException may skip disarm(): no stale post
            self._beat.decided()
        if not self.enforced:
            return
        self._armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._old_handler)
        delay, interval = self._old_timer
        if delay > 0:  # someone else's timer (a test runner's timeout) runs on
            left = delay - (time.monotonic() - self._entered)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), interval)

    def arm(self, seat: int = -1) -> None:
        if self._beat is not None:
            self._beat.deciding(seat)
        if self.enforced:
            self._armed = True
            signal.setitimer(signal.ITIMER_REAL, self.seconds, REFIRE_S)

    def disarm(self) -> None:
        if self.enforced:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
        if self._beat is not None:
            self._beat.decided()
