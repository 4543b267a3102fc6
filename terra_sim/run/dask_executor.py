"""Playing a run's games on a Dask cluster: `terra-sim run --executor dask`.

The executor changes where games are played, never which: a task plays a chunk with the same
pure function of (content config, game ids) as the local worker pool (runner.play_chunk), so a
Dask run writes the same Parquet tables as a local one, and either can resume the other.

This process (the driver) holds the run folder, its lock and the manifest; it submits chunks
and writes what comes back. Workers send the rows back, or, given a folder that they and the
driver share, write the part files there for the driver to move into the run. Distributed plays
a task again when its worker is lost; the driver writes each chunk once, keyed by its game ids,
so a retried or duplicated result never duplicates a game. A chunk whose workers die too often
(KilledWorker) is played game by game, and a game that still kills its worker is logged as an
error, as in local runs.
"""

import contextlib
import functools
import json
import logging
import multiprocessing
import shutil
import signal
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from terra_sim.core.errors import UserError
from terra_sim.games import get_game
from terra_sim.run.chunk import (
    CHUNK_ATTEMPTS,
    ChunkSizer,
    RunStats,
    error_parts,
    play_chunk,
    span,
)
from terra_sim.run.code import strategy_code
from terra_sim.run.config import RunConfig
from terra_sim.run.job import Job
from terra_sim.run.plan import Plan
from terra_sim.run.workers import die_with_parent
from terra_sim.store import rundir

INSTALL_HINT = "pip install -e '.[dask]'"


class WorkerMismatch(Exception):
    """A worker whose game data, engine or bots differ from the driver's: its games would
    differ from the games this run's seeds stand for."""


@functools.lru_cache(maxsize=4)
def code_fingerprint(content_json: str) -> dict[str, Any]:
    """What decides the games besides the content config: the engine version, the game data
    and the bots' code, as a resume checks them. A worker must have the driver's."""
    content = json.loads(content_json)
    g = get_game(content["game"], content["overrides"] or None)
    return {"engine_version": g.version, "data_hash": g.data_hash,
            "strategy_code": strategy_code(RunConfig(**content))}


def _worker_address() -> str:
    from distributed import get_worker

    try:
        return str(get_worker().address)
    except ValueError:  # not on a worker
        return "?"


def play_on_worker(content_json: str, ids: list[int], expected: dict[str, Any],
                   stage: str | None) -> tuple[list[int], dict[str, bytes] | None,
                                               dict[str, Any], str | None]:
    """A Dask task: play games `ids` as runner.play_chunk does. Returns the ids, their part
    files (None when written to `stage`), the timing counts, and the folder the parts were
    staged in."""
    found = code_fingerprint(content_json)
    if found != expected:
        raise WorkerMismatch(f"the Dask worker at {_worker_address()} has other game code or "
                             f"data than this machine ({_differences(expected, found)}), so "
                             "its games would not be this run's; install the same terra-sim on "
                             f"every worker ({INSTALL_HINT} from the same checkout)")
    ids, parts, stats = play_chunk(content_json, ids)
    if stage is None:
        return ids, parts, stats, None
    # A folder per attempt: a retried task never writes over the parts of a lost one.
    folder = Path(stage) / f"{ids[0]:08d}-{ids[-1]:08d}-{uuid.uuid4().hex[:8]}"
    rundir.init_dirs(folder)
    rundir.write_chunk(folder, rundir.part_name(ids[0], ids[-1]), parts)
    return ids, None, stats, str(folder)


def _differences(expected: dict[str, Any], found: dict[str, Any]) -> str:
    out = [f"{k} {found[k]} there, {expected[k]} here" for k in ("engine_version", "data_hash")
           if found[k] != expected[k]]
    bots = sorted(k for k in set(expected["strategy_code"]) | set(found["strategy_code"])
                  if expected["strategy_code"].get(k) != found["strategy_code"].get(k))
    if bots:
        out.append(f"the code or tuned data of strategy {', '.join(bots)}")
    return "; ".join(out)


class ChunkWriter:
    """Writes each chunk of a run once. Distributed may deliver a chunk's result after playing
    it again (a lost worker), and a result that repeats games already written is dropped: the
    rows are the same by construction, and a game must never be in the tables twice."""

    def __init__(self, run_dir: Path):
        self.run_dir = run_dir
        self.written: set[int] = set()

    def write(self, ids: list[int], parts: dict[str, bytes] | None = None,
              staged: str | None = None) -> bool:
        """Write (or with `staged`, move in) the parts of chunk `ids`; False when dropped."""
        # Chunks split the run's games (a chunk split up after a KilledWorker was never
        # written), so a chunk is either new or written whole.
        if self.written.intersection(ids):
            if staged is not None:
                shutil.rmtree(staged, ignore_errors=True)
            return False
        name = rundir.part_name(ids[0], ids[-1])
        if staged is None:
            assert parts is not None
            rundir.write_chunk(self.run_dir, name, parts)
        else:
            try:
                rundir.move_chunk(Path(staged), self.run_dir, name)
            except FileNotFoundError:
                raise UserError(f"a Dask worker wrote {span(ids)} to {staged}, which this "
                                "machine cannot see: --shared-dir must name a folder that the "
                                "workers and this machine reach at the same path") from None
            shutil.rmtree(staged, ignore_errors=True)
        self.written.update(ids)
        return True


@dataclass
class Chunk:
    ids: list[int]
    alone: bool = False  # one game of a chunk that its workers died on, played by itself


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    # Ctrl-C in a terminal signals the whole process group. Processes started meanwhile inherit
    # SIG_IGN (and Python keeps it), so the cluster's nannies and workers ignore Ctrl-C and this
    # process alone decides how the run stops, as the local pool's workers do.
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _close(closable: Any) -> None:
    # A second Ctrl-C while the cluster shuts down (a few seconds) would leave its processes
    # behind; the first one already stops the run.
    with _sigint_ignored():
        closable.close()


def dask_setup(worker: Any) -> None:
    """Distributed's preload hook: runs in each worker process of a run's own LocalCluster as
    the worker starts (the cluster's `preload` names this module). Distributed ends orphaned
    workers from a Python thread, which a game holding the GIL in C code starves; the kernel's
    parent-death signal needs nothing from the worker. The signal comes when the parent's thread
    that started this process ends: distributed starts each worker from a thread that lasts
    until the nanny is done with the worker."""
    parent = multiprocessing.parent_process()
    if parent is not None and parent.pid is not None:  # a worker in the driver's own process
        die_with_parent(parent.pid)  # must not follow the shell


def _worker_preloads() -> dict[str, Any]:
    """LocalCluster options that add dask_setup to the worker preloads configured."""
    import dask

    argv = dask.config.get("distributed.worker.preload-argv")
    if argv and not isinstance(argv[0], str):  # one list per preload, not one for all
        argv = [*argv, []]
    return {"preload": [*dask.config.get("distributed.worker.preload"), __name__],
            "preload_argv": argv}


@contextlib.contextmanager
def _log_levels_kept(*roots: str) -> Iterator[None]:
    """Puts back the levels of the loggers under `roots`, and of their handlers, on exit."""
    levels: dict[logging.Logger | logging.Handler, int] = {}
    for name, lg in list(logging.Logger.manager.loggerDict.items()):
        if name.split(".")[0] in roots and isinstance(lg, logging.Logger):
            levels[lg] = lg.level
            levels.update((h, h.level) for h in lg.handlers)
    try:
        yield
    finally:
        for x, level in levels.items():
            x.setLevel(level)


@dataclass
class DaskExecutor:
    """Plays a run's chunks on a Dask cluster instead of the local worker pool.

    scheduler: the address of a running cluster's scheduler (tcp://host:port); None takes
    DASK_SCHEDULER_ADDRESS (Dask's `scheduler-address` setting) when set, else starts a
    LocalCluster of the run's worker count on this machine for the run.
    shared_dir: a folder that the workers and this machine reach at the same path; workers
    then write each chunk's part files there instead of sending its rows back.
    """

    scheduler: str | None = None
    shared_dir: Path | None = None
    _open: Any = field(default=None, init=False, repr=False)  # the client of session()

    def __post_init__(self) -> None:
        try:
            import dask
            import distributed  # noqa: F401
        except ImportError:
            raise UserError("--executor dask needs dask and distributed, which are not "
                            f"installed: {INSTALL_HINT}") from None
        self.scheduler = self.scheduler or dask.config.get("scheduler-address", None)
        if self.shared_dir is not None:
            self.shared_dir = Path(self.shared_dir)
            if not self.shared_dir.is_dir():
                raise UserError(f"--shared-dir {self.shared_dir}: no such folder")

    def describe(self) -> dict[str, Any]:
        """For the manifest: which executor played a session's games (never what they are)."""
        return {"executor": "dask", "scheduler": self.scheduler or "LocalCluster"}

    def check(self) -> None:
        """Refuse an unreachable scheduler before the run folder is made."""
        if self.scheduler:
            with self.client(1):
                pass

    @contextlib.contextmanager
    def client(self, workers: int) -> Iterator[Any]:
        """A Dask client: of the scheduler named, else of a LocalCluster of `workers` processes
        on this machine (closed with the context)."""
        import dask
        from distributed import Client, LocalCluster

        with contextlib.ExitStack() as stack:
            if self.scheduler:
                try:
                    client = Client(self.scheduler)  # waits distributed.comm.timeouts.connect
                except (OSError, ValueError) as e:
                    raise UserError(
                        f"cannot reach the Dask scheduler at {self.scheduler} ({e}); start it "
                        "(dask scheduler) and its workers (dask worker ADDRESS), or leave out "
                        "--scheduler and DASK_SCHEDULER_ADDRESS to run on a LocalCluster on "
                        "this machine") from None
            else:
                # Each worker process plays one chunk at a time, as a local worker does; a
                # chunk whose worker dies is played once more (CHUNK_ATTEMPTS) before it is
                # split up. Our notes say when a worker is lost, so the cluster's own log lines
                # stay quiet; distributed puts its log handlers' levels back only when its close
                # succeeds, so they are put back here whatever happens. The scheduler's web
                # server takes any free port: two runs on one machine never collide. The worker
                # processes die with this one, even killed with no time to close the cluster.
                settings = {"distributed.scheduler.allowed-failures": CHUNK_ATTEMPTS - 1}
                stack.enter_context(_log_levels_kept("distributed", "bokeh"))
                with _sigint_ignored(), dask.config.set(settings):
                    cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                           processes=True, dashboard_address=":0",
                                           silence_logs=logging.CRITICAL, **_worker_preloads())
                stack.callback(_close, cluster)
                client = Client(cluster)
            stack.callback(_close, client)
            yield client

    @contextlib.contextmanager
    def session(self, workers: int) -> Iterator[None]:
        """One cluster session for every play_all inside it: a run until sure plays many
        batches, and a LocalCluster takes seconds to start."""
        with self.client(workers) as client:
            self._open = client
            try:
                yield
            finally:
                self._open = None

    def play_all(self, todo: list[int], job: Job) -> None:
        """Play `todo` in chunks on the cluster, writing each finished chunk as it comes."""
        workers, cfg, content_json, run_dir = job.workers, job.cfg, job.content_json, job.run_dir
        tables, plan, stats, bar, note = job.tables, job.plan, job.stats, job.bar, job.note
        opened = (contextlib.nullcontext(self._open) if self._open is not None
                  else self.client(workers))
        with opened as client:
            stats.workers = sum(client.nthreads().values())
            if not stats.workers:
                note(f"the Dask scheduler at {self.scheduler} has no workers yet; the games "
                     "start when one joins")
            if cfg.decision_timeout is not None:
                note("on Dask workers a bot is not interrupted while it thinks: a decision "
                     "past --decision-timeout forfeits its game when the bot returns")
            stage = None
            if self.shared_dir is not None:
                stage = self.shared_dir / f".terra-sim-{run_dir.name}-{uuid.uuid4().hex[:8]}"
            try:
                _Driver(client, max(1, stats.workers), cfg, content_json, tables, plan, stats,
                        bar, note, ChunkWriter(run_dir), stage).run(todo)
            finally:
                if stage is not None:
                    shutil.rmtree(stage, ignore_errors=True)


class _Driver:
    """The submit-and-write loop of one Dask session: as many chunks in flight as the cluster
    has threads, like the local pool's one chunk per worker, so that the scheduler's record of
    what a lost worker was running names only the chunk it played."""

    def __init__(self, client: Any, slots: int, cfg: RunConfig, content_json: str,
                 tables: dict[str, dict[str, Any]], plan: Plan, stats: RunStats, bar: Any,
                 note: Callable[[str], None], writer: ChunkWriter, stage: Path | None):
        self.client, self.slots, self.content_json = client, slots, content_json
        self.tables, self.plan, self.stats, self.bar, self.note = tables, plan, stats, bar, note
        self.writer, self.stage = writer, stage
        self.sizer = ChunkSizer(cfg.chunk_size, slots)
        self.expected = code_fingerprint(content_json)
        self.running: dict[Any, Chunk] = {}  # future -> its chunk
        self.by_key: dict[str, Chunk] = {}
        # Scheduler events arrive on the client's thread; this one drains them.
        self.events: deque[tuple[float, dict[str, Any]]] = deque()

    def run(self, todo: list[int]) -> None:
        from distributed import wait

        fresh: deque[int] = deque(todo)
        alone: deque[int] = deque()
        self.client.subscribe_topic("all", self.events.append)
        try:
            while fresh or alone or self.running:
                while (fresh or alone) and len(self.running) < self.slots:
                    if alone:
                        self._submit(Chunk([alone.popleft()], alone=True))
                    else:
                        size = self.sizer.next(len(fresh))
                        self._submit(Chunk([fresh.popleft() for _ in range(min(len(fresh),
                                                                               size))]))
                try:
                    done, _ = wait(list(self.running), timeout=1.0,
                                   return_when="FIRST_COMPLETED")
                except TimeoutError:
                    done = set()
                # Before the results: a worker's loss reaches this client before the chunk
                # that another worker played again.
                self._drain_events()
                for future in done:
                    chunk = self.running.pop(future)
                    self.by_key.pop(future.key, None)
                    alone.extend(self._collect(future, chunk))
                    future.release()
        except BaseException:
            with contextlib.suppress(Exception):
                self.client.cancel(list(self.running))
            raise
        finally:
            # Unsubscribed before the client closes: else the scheduler logs a traceback for
            # the event it can no longer send.
            with contextlib.suppress(Exception):
                self.client.unsubscribe_topic("all")

    def _submit(self, chunk: Chunk) -> None:
        key = f"play_chunk-{chunk.ids[0]}-{chunk.ids[-1]}-{uuid.uuid4().hex[:8]}"
        future = self.client.submit(play_on_worker, self.content_json, chunk.ids,
                                    self.expected, str(self.stage) if self.stage else None,
                                    key=key, pure=False)
        self.running[future] = chunk
        self.by_key[key] = chunk

    def _collect(self, future: Any, chunk: Chunk) -> list[int]:
        """Write a finished chunk; return the games to play one by one after a KilledWorker."""
        from distributed import KilledWorker

        if future.status != "error":
            ids, parts, s, staged = future.result()
            t = time.perf_counter()
            if self.writer.write(ids, parts, staged):
                self.stats.write_s += time.perf_counter() - t
                self.stats.add(s)
                self.sizer.observe(s["games"] + s["failed"], s["play_s"])
                self.bar.update(s["games"] + s["failed"])
            else:
                self.note(f"{span(ids)} came back twice; written once")
            return []
        error = future.exception()
        if isinstance(error, WorkerMismatch):
            raise UserError(str(error))
        if not isinstance(error, KilledWorker):
            raise UserError(f"a Dask worker failed outside any game while playing "
                            f"{span(chunk.ids)} ({type(error).__name__}: {error}); every "
                            f"worker needs terra-sim installed as on this machine "
                            f"({INSTALL_HINT}), with the same code and data")
        deaths = error.allowed_failures + 1
        if chunk.alone or len(chunk.ids) == 1:
            i = chunk.ids[0]
            self.writer.write([i], error_parts(
                self.tables, self.plan.spec(i), "the game killed its worker process: "
                f"{deaths} Dask workers died while playing it", str(error)))
            self.stats.failed += 1
            self.bar.update(1)
            self.note(f"{deaths} Dask workers died while playing game {i} alone: game {i} is "
                      "logged as an error")
            return []
        self.note(f"{deaths} Dask workers died while playing {span(chunk.ids)}; playing them "
                  "one by one to find the game that kills its worker")
        return chunk.ids

    def _drain_events(self) -> None:
        while self.events:
            _, msg = self.events.popleft()
            if msg.get("action") in ("add-worker", "remove-worker"):
                # A cluster that grows (or shrinks) gets as many chunks as it has threads.
                self.slots = self.sizer.workers = max(1, sum(self.client.nthreads().values()))
            if msg.get("action") != "remove-worker" or msg.get("expected"):
                continue
            for key in sorted(msg.get("processing-tasks", ())):
                chunk = self.by_key.get(key)
                if chunk is not None:
                    self.note(f"a Dask worker ({msg.get('worker')}) was lost while playing "
                              f"{span(chunk.ids)}; they are played again")
