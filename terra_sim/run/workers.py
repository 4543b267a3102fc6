"""The worker pool: forked processes that play chunks of games, watched so that none is lost.

Each worker reads a task from its pipe, plays it and sends the result back. The parent waits
on every pipe and every process's sentinel at once, so a worker that dies (a bot's os._exit, the
out-of-memory killer, kill -9) is noticed as soon as it happens: the pool reports the task it
was playing as lost, and starts a new worker in its place. What to do with a lost task is the
runner's business.

With a `watchdog`, each worker posts the decision it is in (core.deadline.Heartbeat), and the
pool kills (SIGKILL) a worker stuck in one decision longer than that: a bot that the worker's own
deadline cannot interrupt would otherwise hang its worker, and so the run, for good. Before the
kill the worker is asked for its stack (faulthandler, SIGUSR1), which says where the bot hung.

Workers are forked, so they share the parent's loaded game and plan; they ignore Ctrl-C (the
parent decides how to stop), die with the parent (PR_SET_PDEATHSIG), and leave quietly when the
parent goes away, instead of printing BrokenPipe tracebacks.
"""

import contextlib
import ctypes
import faulthandler
import os
import pickle
import signal
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from terra_sim.core.deadline import Heartbeat, post_to

PR_SET_PDEATHSIG = 1  # linux/prctl.h
# How long a hung worker may take to write its stack before it is killed. The handler writes it
# from C at once, even while the bot loops in C code, but on a busy machine the worker may wait
# for a core first; a bot that blocks SIGUSR1 too writes none, and costs this wait.
STACK_WAIT_S = 2.0


def exit_reason(exitcode: int | None) -> str:
    """How a worker process ended, in words."""
    if exitcode is None:
        return "vanished"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (kill -9, or the out-of-memory killer)" if name == "SIGKILL" else ""
        return f"was killed by {name}{hint}"
    return f"exited with status {exitcode} (os._exit or sys.exit in a bot?)"


def die_with_parent(parent_pid: int) -> None:
    """Have the kernel kill this process (SIGKILL) when its parent dies. A parent killed with
    SIGKILL closes nothing, and a child that learns of it only from a closed pipe (or from a
    Python thread, which never runs while a game holds the GIL in C code) plays on. Linux only:
    elsewhere there is no prctl, and the broken pipe ends the child a little later."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the prctl: no signal will come
        os._exit(0)


def _written(fd: int, timeout: float) -> None:
    """Wait until the file `fd` holds something and has stopped growing, or `timeout`."""
    end, size = time.monotonic() + timeout, 0
    while time.monotonic() < end:
        time.sleep(0.02)
        now = os.fstat(fd).st_size
        if now and now == size:
            return
        size = now


def _serve(conn: Any, work: Callable[[Any], Any], close_fds: tuple[int, ...],
           beat: Heartbeat | None, stack: Any, parent_pid: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler is no worker's
    die_with_parent(parent_pid)
    if beat is not None:
        post_to(beat)
        faulthandler.register(signal.SIGUSR1, file=stack, all_threads=True)
    for fd in close_fds:  # the run lock: it must end with the parent, not with a worker
        with contextlib.suppress(OSError):
            os.close(fd)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        if task is None:
            os._exit(0)
        try:
            reply = pickle.dumps(("ok", work(task)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:  # a bug outside any one game: the parent treats it as a loss
            reply = pickle.dumps(("crash", traceback.format_exc()))
        try:
            conn.send_bytes(reply)
        except (BrokenPipeError, OSError):
            os._exit(0)


@dataclass
class Worker:
    process: Any
    conn: Any
    task: Any = None  # the task it is playing, None when idle
    played: int = 0  # tasks finished
    beat: Heartbeat | None = None  # the decision it is in (with a watchdog)
    stack: Any = None  # a file it writes its stack to on SIGUSR1 (with a watchdog)


@dataclass
class Event:
    """What `WorkerPool.wait` saw: a finished task (`result`), or a lost one (`lost`: why)."""

    task: Any
    worker: Worker
    result: Any = None
    lost: str | None = None
    details: str = ""
    hung: tuple[int, int, float] | None = None  # lost to the watchdog: (game, seat, seconds)


@dataclass
class WorkerPool:
    """`size` forked workers running `work(task)`; see the module docstring. `watchdog`:
    seconds a worker may spend in one decision before it is killed; None for no watchdog."""

    size: int
    work: Callable[[Any], Any]
    close_fds: tuple[int, ...] = ()
    watchdog: float | None = None
    workers: list[Worker] = field(default_factory=list)

    def __post_init__(self) -> None:
        import multiprocess
        import multiprocess.connection

        self._ctx = multiprocess.get_context("fork")
        self._wait = multiprocess.connection.wait
        for _ in range(self.size):
            self.workers.append(self._start())

    def _start(self) -> Worker:
        mine, theirs = self._ctx.Pipe()
        beat = stack = None
        if self.watchdog is not None:
            beat, stack = Heartbeat(), tempfile.TemporaryFile()
        process = self._ctx.Process(target=_serve, daemon=True,
                                    args=(theirs, self.work, self.close_fds, beat, stack,
                                          os.getpid()))
        process.start()
        theirs.close()
        return Worker(process, mine, beat=beat, stack=stack)

    def idle(self) -> list[Worker]:
        return [w for w in self.workers if w.task is None]

    def busy(self) -> int:
        return sum(w.task is not None for w in self.workers)

    def submit(self, worker: Worker, task: Any, payload: Any) -> None:
        worker.task = task
        try:
            worker.conn.send(payload)
        except (BrokenPipeError, OSError):
            pass  # it died while idle: wait() reports it through its sentinel

    def replace(self, worker: Worker) -> Worker:
        """Stop `worker` (if it still runs) and start a fresh one in its place."""
        self._stop(worker)
        fresh = self._start()
        self.workers[self.workers.index(worker)] = fresh
        return fresh

    def wait(self, timeout: float | None = None) -> list[Event]:
        """Finished and lost tasks since the last call; a dead worker is replaced."""
        watched: dict[Any, Worker] = {}
        for w in self.workers:
            watched[w.process.sentinel] = w
            if w.task is not None:
                watched[w.conn] = w
        events = []
        if self.watchdog is not None and timeout is not None:
            timeout = min(timeout, self.watchdog / 2)  # a hang is ended by 1.5 times the limit
        ready = self._wait(list(watched), timeout)
        dead = []
        for obj in ready:
            w = watched[obj]
            if obj is w.conn:
                try:
                    status, body = pickle.loads(w.conn.recv_bytes())
                except (EOFError, OSError):
                    continue  # died while sending: its sentinel says so
                task, w.task = w.task, None
                w.played += 1
                if status == "ok":
                    events.append(Event(task, w, result=body))
                else:
                    events.append(Event(task, w, lost="failed outside any game", details=body))
            elif w not in dead:
                dead.append(w)
        for w in dead:
            w.process.join(1)
            if w.task is not None:
                events.append(Event(w.task, w, lost=exit_reason(w.process.exitcode)))
                w.task = None
            self.replace(w)
        if self.watchdog is not None:
            events += self._watch(self.watchdog)
        return events

    def _watch(self, limit: float) -> list[Event]:
        """Kill the workers stuck in one decision for more than `limit` seconds."""
        events = []
        for w in list(self.workers):
            hung = w.beat.stuck() if w.task is not None and w.beat is not None else None
            if hung is None or hung[2] <= limit:
                continue
            with contextlib.suppress(ProcessLookupError):
                os.kill(w.process.pid, signal.SIGUSR1)
                _written(w.stack.fileno(), STACK_WAIT_S)
            w.process.kill()
            w.process.join(5)
            stack = os.pread(w.stack.fileno(), 1 << 16, 0).decode(errors="replace")
            details = (f"Where the worker was when the watchdog killed it:\n{stack}" if stack
                       else "The worker wrote no stack before the watchdog killed it (SIGUSR1 "
                       "blocked too?)")
            events.append(Event(w.task, w, lost="was killed by the watchdog (SIGKILL)",
                                details=details, hung=hung))
            w.task = None
            self.replace(w)
        return events

    def _stop(self, worker: Worker, grace: float = 1.0) -> None:
        if worker.process.is_alive():
            with contextlib.suppress(BrokenPipeError, OSError):
                if worker.task is None:
                    worker.conn.send(None)
            worker.process.join(grace if worker.task is None else 0)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(5)
        worker.conn.close()
        if worker.stack is not None:
            worker.stack.close()

    def close(self, now: bool = False) -> None:
        """Stop every worker: idle ones are asked to leave, busy ones (or all, `now`) killed."""
        for w in self.workers:
            if now and w.process.is_alive():
                w.process.kill()
        for w in self.workers:
            self._stop(w)
        self.workers = []
