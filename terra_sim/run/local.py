"""The local executor: this machine's worker pool (workers.py) plays a run's chunks, watched,
and the parent writes each finished chunk as it comes. A worker that dies is replaced and its
chunk played again (a chunk that kills its worker twice is played game by game in fresh
workers, and the game that kills one is logged as an error); with a decision timeout, a worker
stuck in one decision where its deadline cannot interrupt the bot is killed by a watchdog and
that game forfeited."""

import contextlib
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from terra_sim.run.chunk import (
    CHUNK_ATTEMPTS,
    ChunkSizer,
    Task,
    error_parts,
    play_task,
    span,
)
from terra_sim.run.config import RunConfig, strategy_spec
from terra_sim.run.job import Job
from terra_sim.run.plan import GameSpec
from terra_sim.run.workers import WorkerPool
from terra_sim.store import rundir

# With a decision timeout, the watchdog kills a worker still in one decision this long after
# the timeout. A healthy worker leaves the decision within milliseconds of the timeout (its
# deadline interrupts the bot then, and every 50 ms after), so the margin only has to outlast
# what can stall a healthy process: a loaded or swapping machine, a long garbage collection, a
# bot's cleanup after the interruption. A kill can change no game: a decision past the timeout
# forfeits its game anyway. What it costs is this wait, once per hung game.
WATCHDOG_MARGIN_S = 10.0

# How the error message of a game the watchdog ended ends (`terra-sim replay` looks for it).
WATCHDOG_KILLED = "its worker process was killed by the watchdog"


def _hung_message(cfg: RunConfig, spec: GameSpec, seat: int, seconds: float) -> str:
    """The error message of a game whose worker the watchdog killed, worded as the play loop's
    own forfeits are (the bot's name, as StrategyError gives it)."""
    import random

    import strategies

    name = spec.strategies[seat]
    with contextlib.suppress(Exception):  # only a name: the spec's will do
        name = strategies.make_strategy(strategy_spec(cfg, name), random.Random(0),
                                        cfg.game).name
    return (f"StrategyError: seat {seat} ({name}): was still thinking after {seconds:.1f}s, "
            f"past the limit of {cfg.decision_timeout}s for one decision, and the interruption "
            f"did not stop it: {WATCHDOG_KILLED}")


@dataclass
class LocalExecutor:
    """Plays a run's chunks in this machine's worker processes."""

    # One sizer for every play_all of a session: a run until sure plays batch by batch, and its
    # chunks keep growing from one batch to the next.
    _sizer: ChunkSizer | None = field(default=None, init=False, repr=False)
    _in_session: bool = field(default=False, init=False, repr=False)

    def describe(self) -> dict[str, Any]:
        return {"executor": "local"}

    def check(self) -> None:
        """Nothing to reach before the run folder is made: the pool is this machine's."""

    @contextlib.contextmanager
    def session(self, workers: int) -> Iterator[None]:
        self._in_session = True
        try:
            yield
        finally:
            self._in_session, self._sizer = False, None

    def play_all(self, todo: list[int], job: Job) -> None:
        """Play `todo` in chunks on a watched pool, writing each finished chunk as it comes."""
        workers, cfg, content_json, run_dir = job.workers, job.cfg, job.content_json, job.run_dir
        tables, plan, stats, bar, note = job.tables, job.plan, job.stats, job.bar, job.note
        lock_fd = job.lock_fd
        fresh = deque(todo)
        retry: deque[Task] = deque()
        sizer = self._sizer or ChunkSizer(cfg.chunk_size, workers)
        if self._in_session:
            self._sizer = sizer

        def write(ids: list[int], parts: dict[str, bytes]) -> None:
            t = time.perf_counter()
            rundir.write_chunk(run_dir, rundir.part_name(ids[0], ids[-1]), parts)
            stats.write_s += time.perf_counter() - t

        watchdog = (cfg.decision_timeout + WATCHDOG_MARGIN_S if cfg.decision_timeout is not None
                    else None)
        pool = WorkerPool(workers, play_task, close_fds=(lock_fd,) if lock_fd is not None else (),
                          watchdog=watchdog)
        # Finished chunks wait here until every idle worker has its next chunk: a worker never waits
        # for the parent to write.
        received: list[tuple[list[int], dict[str, bytes]]] = []
        try:
            while fresh or retry or pool.busy() or received:
                for w in pool.idle():
                    if retry:
                        task = retry.popleft()
                        if task.alone and w.played:
                            w = pool.replace(w)  # nothing another game left behind
                    elif fresh:
                        n = min(len(fresh), sizer.next(len(fresh)))
                        task = Task([fresh.popleft() for _ in range(n)])
                    else:
                        break
                    pool.submit(w, task, (content_json, task.ids))
                while received:  # each leaves the list once written: Ctrl-C writes only the rest
                    write(*received[0])
                    del received[0]
                if not pool.busy():
                    continue
                for ev in pool.wait(timeout=1.0):
                    task = ev.task
                    if ev.lost is None:
                        ids, parts, s = ev.result
                        received.append((ids, parts))
                        stats.add(s)
                        sizer.observe(s["games"] + s["failed"], s["play_s"])
                        bar.update(s["games"] + s["failed"])
                        continue
                    if ev.hung is not None and ev.hung[0] in task.ids:
                        # The game it hung in is known, and would hang again: forfeited at once,
                        # as the deadline forfeits a decision past it the first time.
                        i, seat, seconds = ev.hung
                        spec = plan.spec(i)
                        write([i], error_parts(tables, spec, _hung_message(cfg, spec, seat,
                                                                           seconds), ev.details))
                        stats.failed += 1
                        bar.update(1)
                        rest = [j for j in task.ids if j != i]
                        if rest:  # (an alone task has none)
                            retry.appendleft(Task(rest, task.attempts))
                        note(f"a worker was stuck in one decision of game {i} for {seconds:.1f}s "
                             f"and was killed by the watchdog: game {i} is logged as an error"
                             + ("; a new worker plays the rest of its chunk" if rest else ""))
                        continue
                    task.attempts += 1
                    how = f"a worker {ev.lost}"
                    if task.alone or (task.attempts >= CHUNK_ATTEMPTS and len(task.ids) == 1):
                        i = task.ids[0]
                        write([i], error_parts(tables, plan.spec(i), "the game killed its worker "
                                                f"process: {how} while playing it", ev.details))
                        stats.failed += 1
                        bar.update(1)
                        note(f"{how} while playing game {i} alone: game {i} is logged as an error")
                    elif task.attempts < CHUNK_ATTEMPTS:
                        retry.appendleft(task)
                        note(f"{how} while playing {span(task.ids)}; a new worker plays them again")
                    else:
                        retry.extendleft(Task([i], alone=True) for i in reversed(task.ids))
                        note(f"{how} again while playing {span(task.ids)}; playing them one by one "
                             "in fresh workers to find the game that kills it")
        except KeyboardInterrupt:
            pool.close(now=True)
            for ids, parts in received:  # played to the end: kept, like every finished chunk
                write(ids, parts)
            raise
        except BaseException:
            pool.close(now=True)
            raise
        pool.close()

