"""The tournament runner: a seeded plan of games, played in chunks across worker processes and
streamed to Parquet part files, resumable after an interruption.

Reproducible by construction: game i's seed, player count, factions, seats and strategies
depend only on the run's content config and i (see Plan), never on which worker plays it, the
chunk size or the order chunks finish in.

Nothing breaks a run: a worker that dies is replaced and its chunk played again (a chunk that
kills its worker twice is played game by game in fresh workers, and the game that kills one is
logged as an error); with a decision timeout, a worker stuck in one decision where its deadline
cannot interrupt the bot is killed by a watchdog and that game forfeited; SIGTERM stops a run
as Ctrl-C does; a run holds a lock on its folder; a damaged part file is set aside and its games
played again; and a run is not resumed over other game data, another engine version or changed
bot code unless forced.

The chunks are played by the local worker pool here, or on a Dask cluster (dask_executor): an
execution detail, like the worker count, that changes no game.
"""

import contextlib
import functools
import hashlib
import inspect
import json
import math
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from terra_sim import storage, until
from terra_sim.config import (
    CONTENT_KEYS,
    RunConfig,
    from_any,
    from_dict,
    strategy_spec,
    validate,
)
from terra_sim.core.deadline import posting
from terra_sim.core.errors import UserError
from terra_sim.core.rng import derive_seed, stream
from terra_sim.games import get_game
from terra_sim.workers import WorkerPool

if TYPE_CHECKING:
    from terra_sim.dask_executor import DaskExecutor

MAX_CHUNK = 100  # games per task: enough that IPC and part files cost little
# Automatic chunks grow from one game toward this many seconds of play: the first results
# (and the ETA) come within a second, and a kill loses at most a few seconds of work.
CHUNK_TARGET_S = 2.0
# The last chunks shrink so that the workers finish together, but not below this much play:
# each chunk costs a round trip to the parent and four part files to encode, a millisecond or
# two, and with random bots (about a millisecond a game) a one-game chunk would cost more than
# its play.
TAIL_S = 0.05
# A chunk whose worker dies is played again once; after a second death, game by game.
CHUNK_ATTEMPTS = 2
# With a decision timeout, the watchdog kills a worker still in one decision this long after
# the timeout. A healthy worker leaves the decision within milliseconds of the timeout (its
# deadline interrupts the bot then, and every 50 ms after), so the margin only has to outlast
# what can stall a healthy process: a loaded or swapping machine, a long garbage collection, a
# bot's cleanup after the interruption. A kill can change no game: a decision past the timeout
# forfeits its game anyway. What it costs is this wait, once per hung game.
WATCHDOG_MARGIN_S = 10.0
# How the error message of a game the watchdog ended ends (`terra-sim replay` looks for it).
WATCHDOG_KILLED = "its worker process was killed by the watchdog"
# Setup keys that have columns or manifest fields of their own; the rest is the games' `setup`.
RECORDED_APART = ("game", "seed", "factions", "overrides")
# How a resumed run may differ from the original: only in how it is executed.
RESUME_KEYS = ("workers", "chunk_size", "report")


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run: every finished chunk is on disk and the run can be resumed."""

    def __init__(self, run_dir: Path, finished: int, planned: int):
        super().__init__(f"interrupted after {finished} of {planned} games")
        self.run_dir, self.finished, self.planned = run_dir, finished, planned


@dataclass
class GameSpec:
    game_id: int
    seed: int
    factions: tuple[str, ...]
    strategies: tuple[str, ...]


class Plan:
    """Who plays game i, computed from the content config and i alone.

    balanced: per player count, games come in blocks as long as the faction pool. A block is a
    cyclic Latin rectangle over a shuffled pool (seat s plays pool[(g + offset_s) % F] in the
    block's game g), so each faction plays each seat once per block; shuffle and offsets are
    searched until no game holds two factions of one exclusive group. Strategies rotate the same
    way over blocks as long as the strategy pool.
    random: factions drawn from the pool (respecting exclusive groups), strategies drawn by seat.
    """

    def __init__(self, content: dict[str, Any], exclusive: list[set[str]]):
        self.c = content
        self.group = {f: i for i, g in enumerate(exclusive) for f in g}

    def _groups_ok(self, factions: list[str]) -> bool:
        groups = [self.group.get(f, f) for f in factions]
        return len(set(groups)) == len(groups)

    def spec(self, i: int) -> GameSpec:
        counts = self.c["players"]
        n, j = counts[i % len(counts)], i // len(counts)
        strats = self.c["strategies"]
        if self.c["design"] == "balanced":
            factions = self._faction_block(n, j // len(self.c["factions"]))
            block = factions[j % len(self.c["factions"])]
            sp = self._strategy_block(n, j // len(strats))
            chosen = tuple(sp[(j + s) % len(strats)] for s in range(n))
        else:
            rng = stream(self.c["seed"], "design", i)
            block = self._draw(n, rng)
            chosen = tuple(rng.choice(strats) for _ in range(n))
        if self.c["per_seat"]:
            chosen = tuple(strats)
        return GameSpec(i, derive_seed(self.c["seed"], "game", i), block, chosen)

    def _draw(self, n: int, rng: Any) -> tuple[str, ...]:
        for _ in range(200):
            pool = list(self.c["factions"])
            rng.shuffle(pool)
            picked: list[str] = []
            for f in pool:
                if len(picked) < n and self._groups_ok([*picked, f]):
                    picked.append(f)
            if len(picked) == n:
                return tuple(picked)
        raise UserError(self._no_design(n))

    @functools.lru_cache(maxsize=64)  # noqa: B019 - a Plan lives as long as its run
    def _faction_block(self, n: int, b: int) -> list[tuple[str, ...]]:
        pool = list(self.c["factions"])
        rng = stream(self.c["seed"], "design", "factions", n, b)
        size = len(pool)
        for _ in range(5000 if size >= n else 0):
            rng.shuffle(pool)
            offsets = rng.sample(range(size), n)
            games = [tuple(pool[(g + o) % size] for o in offsets) for g in range(size)]
            if all(self._groups_ok(list(game)) for game in games):
                return games
        # Drawing shuffles finds a block at once for a few groups and seats, but can miss one
        # that exists when many groups meet many seats (seven colour pairs at five seats: about
        # one draw in a thousand fits). Then build the pool around drawn offsets instead. Tried
        # second, so that every block the draws find stays the block this seed always gave.
        for _ in range(100 if size >= n else 0):
            offsets = rng.sample(range(size), n)
            arranged = self._arrange(offsets, rng)
            if arranged is not None:
                return [tuple(arranged[(g + o) % size] for o in offsets) for g in range(size)]
        raise UserError(self._no_design(n))

    def _arrange(self, offsets: list[int], rng: Any, budget: int = 20_000) -> list[str] | None:
        """The faction pool in an order where no game of the block (seat s plays position
        g + offsets[s]) holds two factions of one group: a depth-first search that places one
        faction per position, trying one faction per group at each step, in random order."""
        size = len(self.c["factions"])
        clash = {(a - b) % size for a in offsets for b in offsets if a != b}
        left = list(self.c["factions"])
        rng.shuffle(left)
        placed: list[str] = []
        steps = 0

        def fill() -> bool:
            nonlocal steps
            p = len(placed)
            if p == size:
                return True
            near = {self.group.get(placed[q], placed[q]) for q in range(p)
                    if (p - q) % size in clash}
            tried = set()
            for f in list(left):
                g = self.group.get(f, f)
                if g in near or g in tried:
                    continue
                tried.add(g)
                steps += 1
                if steps > budget:
                    return False
                left.remove(f)
                placed.append(f)
                if fill():
                    return True
                placed.pop()
                left.append(f)
            return False

        return placed if fill() else None

    @functools.lru_cache(maxsize=64)  # noqa: B019
    def _strategy_block(self, n: int, b: int) -> list[str]:
        pool = list(self.c["strategies"])
        stream(self.c["seed"], "design", "strategies", n, b).shuffle(pool)
        return pool

    def _no_design(self, n: int) -> str:
        return (f"the faction pool ({', '.join(self.c['factions'])}) cannot seat {n} players "
                "without two factions of the same colour")


# ---------------------------------------------------------------- worker side


@functools.lru_cache(maxsize=4)
def _context(content_json: str) -> tuple[Plan, Any, dict[str, Any], str]:
    content = json.loads(content_json)
    g = get_game(content["game"], content["overrides"] or None)
    tables = storage.schemas(g.categories)
    return Plan(content, g.exclusive_groups()), g, tables, g.variant_name(content["options"])


def _rows_for(rec: Any, spec: GameSpec, g: Any, variant: str, cols: dict[str, dict]) -> None:
    vp = rec.final_vp
    n = len(vp)
    best = max(vp)
    winners = vp.count(best)
    mean = sum(vp) / n
    game_row = {
        "game_id": spec.game_id, "seed": spec.seed, "game": g.slug, "n_players": n,
        "variant": variant, "rounds": rec.rounds, "n_actions": rec.n_decisions,
        "duration_s": rec.duration_s,
        "setup": json.dumps({k: v for k, v in rec.setup.items() if k not in RECORDED_APART},
                            sort_keys=True),
    }
    for k, v in game_row.items():
        cols["games"][k].append(v)
    for seat in range(n):
        better = sum(v > vp[seat] for v in vp)
        tied = vp.count(vp[seat])
        row = {
            "game_id": spec.game_id, "n_players": n, "seat": seat, "faction": rec.factions[seat],
            "strategy": spec.strategies[seat], "vp": vp[seat],
            "rank": better + (tied + 1) / 2, "win_share": 1 / winners if vp[seat] == best else 0.0,
            "margin": vp[seat] - mean,
        } | {f"vp_{c}": rec.breakdown[seat].get(c, 0) for c in g.categories}
        for k, v in row.items():
            cols["players"][k].append(v)
    # Whole columns at once: a game logs about a hundred actions, and this runs per game.
    logged = len(rec.actions)
    if not logged == len(rec.action_seats) == len(rec.action_rounds) == len(rec.action_vp):
        raise ValueError(f"game {spec.game_id}: the action log's columns differ in length")
    acts = cols["actions"]
    acts["game_id"].extend([spec.game_id] * logged)
    acts["index"].extend(range(logged))
    acts["round"].extend(rec.action_rounds)
    acts["seat"].extend(rec.action_seats)
    acts["action"].extend(rec.actions)
    acts["vp"].extend(rec.action_vp)


def play_chunk(content_json: str, ids: list[int]
               ) -> tuple[list[int], dict[str, bytes], dict[str, Any]]:
    """Play games `ids`; return them, their part files by table (storage.encode_chunk) and
    timing counts.

    Runs in forked workers, so it must not touch polars: a fork can leave polars' thread pool
    without its threads in the child. It encodes the parts itself, in parallel with the other
    workers, and the parent only writes the bytes: encoded by the parent, they cost it about
    6 ms of CPU a chunk, which the workers lost when no core was spare."""
    from terra_sim import play_game

    plan, g, tables, variant = _context(content_json)
    c = plan.c
    cols: dict[str, dict[str, list]] = {t: {k: [] for k in s} for t, s in tables.items()}
    stats = {"games": 0, "failed": 0, "decisions": 0, "play_s": 0.0, "cpu_s": 0.0,
             "encode_s": 0.0}
    t0, cpu0 = time.perf_counter(), time.process_time()
    beat = posting()  # a watched worker's, in a run with a decision timeout
    for i in ids:
        if beat is not None:  # the watchdog's kill names the game it hung in
            beat.game(i)
        spec = plan.spec(i)
        try:
            rec = play_game(c["game"], list(spec.factions),
                            [strategy_spec(c, s) for s in spec.strategies], spec.seed,
                            overrides=c["overrides"] or None,
                            decision_timeout=c["decision_timeout"], log_actions=c["actions"],
                            **c["options"])
        except Exception as e:  # any failure is logged with its seed; the run goes on
            row = {"game_id": i, "seed": spec.seed, "strategies": ",".join(spec.strategies),
                   "factions": ",".join(spec.factions), "message": f"{type(e).__name__}: {e}",
                   "traceback": traceback.format_exc()}
            for k, v in row.items():
                cols["errors"][k].append(v)
            stats["failed"] += 1
            continue
        _rows_for(rec, spec, g, variant, cols)
        stats["games"] += 1
        stats["decisions"] += rec.n_decisions
    t1 = time.perf_counter()
    stats["play_s"] = t1 - t0
    stats["cpu_s"] = time.process_time() - cpu0
    parts = storage.encode_chunk(cols, tables)
    stats["encode_s"] = time.perf_counter() - t1
    return ids, parts, stats


def _play_task(payload: tuple[str, list[int]]
               ) -> tuple[list[int], dict[str, bytes], dict[str, Any]]:
    return play_chunk(*payload)


# ---------------------------------------------------------------- parent side


@dataclass
class RunStats:
    games: int = 0  # played in this session
    failed: int = 0
    decisions: int = 0
    play_s: float = 0.0  # summed over workers
    encode_s: float = 0.0  # making part files, summed over workers
    write_s: float = 0.0  # writing them, in the parent, while the workers play on
    cpu_s: float = 0.0  # CPU time of play: below play_s when other programs take the cores
    wall_s: float = 0.0
    workers: int = 1
    notes: list[str] = field(default_factory=list)  # what went wrong and what the run did

    def add(self, s: dict[str, Any]) -> None:
        for k in ("games", "failed", "decisions", "play_s", "cpu_s", "encode_s"):
            setattr(self, k, getattr(self, k) + s[k])


@dataclass
class RunResult:
    """A finished (or resumed) run; tables are read from disk when first used."""

    run_dir: Path
    manifest: dict[str, Any]
    stats: RunStats = field(default_factory=RunStats)

    def scan(self, table: str) -> pl.LazyFrame:
        return storage.scan(self.run_dir, table, self._schemas[table])

    @functools.cached_property
    def _schemas(self) -> dict[str, dict[str, Any]]:
        return storage.schemas(self.manifest["categories"])

    @functools.cached_property
    def games(self) -> pl.DataFrame:
        return self.scan("games").collect().sort("game_id")

    @functools.cached_property
    def players(self) -> pl.DataFrame:
        return self.scan("players").collect().sort("game_id", "seat")

    @functools.cached_property
    def actions(self) -> pl.DataFrame:
        return self.scan("actions").collect().sort("game_id", "index")

    @functools.cached_property
    def errors(self) -> pl.DataFrame:
        return self.scan("errors").collect().sort("game_id")

    @property
    def failed(self) -> int:
        return self.manifest["failed_games"]

    def faction_summary(self) -> pl.DataFrame:
        return (self.scan("players").group_by("faction")
                .agg(pl.len().alias("games"), pl.col("win_share").mean(),
                     pl.col("vp").mean().alias("mean_vp"))
                .sort("win_share", "faction", descending=[True, False]).collect())


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _resolve(config_or_path: Any, resume: str | Path | None,
             overrides: dict[str, Any]) -> tuple[RunConfig, Path]:
    given = {k: v for k, v in overrides.items() if v is not None}
    if resume is not None:
        manifest = storage.read_manifest(Path(resume))
        if manifest is None:
            raise UserError(f"--resume {resume}: no run here (no manifest.json)")
        changed = sorted(set(given) - set(RESUME_KEYS))
        if changed or config_or_path is not None:
            raise UserError(f"--resume continues a run as it was configured; it cannot change "
                            f"{', '.join(changed) or 'the config file'} "
                            f"(it may change {', '.join(RESUME_KEYS)})")
        cfg = from_dict(manifest["config"] | given)
        return validate(cfg), Path(resume)
    cfg = validate(from_dict(given, base=from_any(config_or_path)))
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(cfg.out) if cfg.out else Path("runs") / f"{cfg.game}-{stamp}"
    return cfg, out


def _source_file(module: Any) -> Path | None:
    path = getattr(module, "__file__", None)
    if not path:
        return None
    path = Path(path)
    if path.suffix != ".py":  # a compiled build: its source sits beside it
        path = path.with_name(path.name.split(".")[0] + ".py")
    return path if path.is_file() else None


def _code_modules(cls: type) -> list[Any]:
    """The modules a strategy's code lives in: those of its class and base classes, and the
    modules of its own package (or file) that they use, followed to the end."""
    seen: dict[str, Any] = {}
    todo = [k.__module__ for k in cls.__mro__ if k.__module__ != "builtins"]
    tops = {name.split(".")[0] for name in todo}
    while todo:
        name = todo.pop()
        module = sys.modules.get(name)
        if name in seen or module is None:
            continue
        seen[name] = module
        for value in vars(module).values():
            used = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__",
                                                                          None)
            if isinstance(used, str) and used.split(".")[0] in tops and used not in seen:
                todo.append(used)
    return [seen[k] for k in sorted(seen)]


def strategy_code(cfg: RunConfig) -> dict[str, str]:
    """A hash of each strategy's source code, by strategy name: a resumed run compares them,
    so that games of two versions of a bot do not mix in one run unnoticed."""
    import random

    import strategies

    out = {}
    for name in cfg.strategies or ():
        bot = strategies.make_strategy(strategy_spec(cfg, name), random.Random(0), cfg.game)
        digest = hashlib.sha256()
        for module in _code_modules(type(bot)):
            source = _source_file(module)
            digest.update(module.__name__.encode() + b"\0")
            digest.update(source.read_bytes() if source else b"?")
        out[name] = digest.hexdigest()[:16]
    return out


def _manifest(cfg: RunConfig, run_dir: Path, old: dict[str, Any] | None) -> dict[str, Any]:
    from terra_sim import __version__
    from terra_sim.core.approximate import approximate_for

    g = get_game(cfg.game, cfg.overrides or None)
    return {
        "game": g.slug, "title": g.title, "variant": g.variant_name(cfg.options),
        "master_seed": cfg.seed, "package_version": __version__, "engine_version": g.version,
        "data_set": g.data_set, "data_hash": g.data_hash, "overrides": cfg.overrides,
        "approximate_data": approximate_for(g, cfg.players, cfg.options),  # what this run used
        "player_counts": cfg.players, "factions": cfg.factions, "strategies": cfg.strategies,
        "strategy_specs": {s: strategy_spec(cfg, s) for s in cfg.strategies or ()},
        "strategy_code": strategy_code(cfg),
        "categories": list(g.categories), "design": cfg.design, "options": cfg.options,
        "planned_games": cfg.games, "finished_games": 0, "failed_games": 0,
        "started_at": old["started_at"] if old else _now(), "finished_at": None,
        "wall_s": old["wall_s"] if old else 0.0,
        "forced_resumes": old.get("forced_resumes", []) if old else [],
        "executors": old.get("executors", []) if old else [],  # one per session that played
        "run_dir": str(run_dir), "config": cfg.to_dict(),
    }


def _code_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between the run on disk and this code: data, engine, bots."""
    out = []
    if old.get("data_hash") != new["data_hash"]:
        out.append(f"the game data changed (data_hash {old.get('data_hash')} -> "
                   f"{new['data_hash']})")
    if old.get("engine_version") != new["engine_version"]:
        out.append(f"the engine version changed ({old.get('engine_version')} -> "
                   f"{new['engine_version']})")
    was = old.get("strategy_code") or {}
    changed = [k for k, v in new["strategy_code"].items() if k in was and was[k] != v]
    if changed:
        out.append(f"the code of strategy {', '.join(changed)} changed")
    return out


def _open_run_dir(cfg: RunConfig, run_dir: Path) -> dict[str, Any] | None:
    """The existing manifest when continuing the same run; refuse a folder holding another."""
    old = storage.read_manifest(run_dir)
    if old is not None:
        mine = json.loads(json.dumps(cfg.content()))  # as JSON has it: tuples become lists
        diff = [k for k in CONTENT_KEYS if old["config"].get(k) != mine[k]]
        if diff:
            raise UserError(f"{run_dir} already holds a different run (differs in "
                            f"{', '.join(diff)}); choose another --out or --resume {run_dir}")
    elif any(p.name != storage.LOCK_FILE for p in run_dir.iterdir()):
        raise UserError(f"{run_dir} is not empty and holds no run; choose another --out")
    return old


class ChunkSizer:
    """Games per chunk. A fixed size when the config gives one; else measured: the first
    chunks hold one game, later ones grow (at most doubling) toward CHUNK_TARGET_S seconds of
    play, and the last ones shrink (to TAIL_S seconds of play) so that no worker idles long at
    the end. Chunking never changes a game: game i depends on the plan and i alone."""

    def __init__(self, fixed: int, workers: int):
        self.fixed, self.workers = fixed, workers
        self.games, self.play_s, self.last = 0, 0.0, 0

    def observe(self, games: int, play_s: float) -> None:
        self.games += games
        self.play_s += play_s

    def next(self, left: int) -> int:
        if self.fixed:
            return self.fixed
        size = floor = 1
        if self.games:
            per_game = max(self.play_s / self.games, 1e-6)
            size = max(1, min(MAX_CHUNK, int(CHUNK_TARGET_S / per_game), 2 * self.last))
            floor = math.ceil(TAIL_S / per_game)
        size = min(size, max(floor, math.ceil(left / (3 * self.workers))))
        self.last = size
        return size


@dataclass
class Task:
    ids: list[int]
    attempts: int = 0
    alone: bool = False  # one game of a chunk that killed its worker twice, in a fresh worker


def _error_parts(tables: dict[str, dict[str, Any]], spec: GameSpec, message: str,
                 details: str) -> dict[str, bytes]:
    """The parts of a one-game chunk that logs game `spec` as an error."""
    cols: dict[str, dict[str, list]] = {t: {k: [] for k in s} for t, s in tables.items()}
    row = {"game_id": spec.game_id, "seed": spec.seed, "strategies": ",".join(spec.strategies),
           "factions": ",".join(spec.factions), "message": message, "traceback": details}
    for k, v in row.items():
        cols["errors"][k].append(v)
    return storage.encode_chunk(cols, tables)


def _span(ids: list[int]) -> str:
    return f"game {ids[0]}" if len(ids) == 1 else f"games {ids[0]}-{ids[-1]}"


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


def _play_all(todo: list[int], workers: int, cfg: RunConfig, content_json: str,
              run_dir: Path, tables: dict[str, dict[str, Any]], plan: Plan, stats: RunStats,
              bar: Any, note: Callable[[str], None], lock_fd: int | None,
              sizer: ChunkSizer | None = None) -> None:
    """Play `todo` in chunks on a watched pool, writing each finished chunk as it comes.
    `sizer`: one carried over from earlier calls (a run until sure plays batch by batch)."""
    fresh = deque(todo)
    retry: deque[Task] = deque()
    sizer = sizer or ChunkSizer(cfg.chunk_size, workers)

    def write(ids: list[int], parts: dict[str, bytes]) -> None:
        t = time.perf_counter()
        storage.write_chunk(run_dir, storage.part_name(ids[0], ids[-1]), parts)
        stats.write_s += time.perf_counter() - t

    watchdog = (cfg.decision_timeout + WATCHDOG_MARGIN_S if cfg.decision_timeout is not None
                else None)
    pool = WorkerPool(workers, _play_task, close_fds=(lock_fd,) if lock_fd is not None else (),
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
                    ids = [fresh.popleft() for _ in range(min(len(fresh), sizer.next(len(fresh))))]
                    task = Task(ids)
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
                    write([i], _error_parts(tables, plan.spec(i), _hung_message(
                        cfg, plan.spec(i), seat, seconds), ev.details))
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
                    write([i], _error_parts(tables, plan.spec(i), "the game killed its worker "
                                            f"process: {how} while playing it", ev.details))
                    stats.failed += 1
                    bar.update(1)
                    note(f"{how} while playing game {i} alone: game {i} is logged as an error")
                elif task.attempts < CHUNK_ATTEMPTS:
                    retry.appendleft(task)
                    note(f"{how} while playing {_span(task.ids)}; a new worker plays them again")
                else:
                    retry.extendleft(Task([i], alone=True) for i in reversed(task.ids))
                    note(f"{how} again while playing {_span(task.ids)}; playing them one by one "
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


def _on_sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # stopped by SIGTERM as by Ctrl-C: what is finished is kept


def run_tournament(config_or_path: RunConfig | dict | str | Path | None = None, *,
                   resume: str | Path | None = None, progress: bool = False,
                   force: bool = False, executor: "DaskExecutor | None" = None,
                   **overrides: Any) -> RunResult:
    """Run (or resume) a tournament and return its result; tables stream to Parquet on disk.

    `config_or_path`: a RunConfig, a dict shaped like a config file, a TOML path, or None for
    the embedded default run. `overrides` are RunConfig fields (games=, workers=, out=, ...).
    `force`: continue a run even though the game data, the engine or a bot's code changed.
    `executor`: where the games are played; None for the local worker pool. It changes no game,
    so a run may be resumed on another executor.
    Raises UserError for mistakes and RunInterrupted on Ctrl-C or SIGTERM (finished chunks are
    kept).
    """
    cfg, run_dir = _resolve(config_or_path, resume, overrides)
    cfg.out = str(run_dir)
    g = get_game(cfg.game, cfg.overrides or None)
    plan = Plan(cfg.content(), g.exclusive_groups())
    for i in range(min(cfg.games, len(cfg.players))):
        # An impossible design, or options that do not fit a player count (a 2-player
        # variant in a 4-player game), are user mistakes: found before any folder is made.
        spec = plan.spec(i)
        g.new_state(list(spec.factions), spec.seed, **cfg.options)
    if run_dir.exists() and not run_dir.is_dir():
        raise UserError(f"{run_dir} is a file, not a run folder; choose another --out")
    if executor is not None:
        executor.check()
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot make the run folder {run_dir}: {e.strerror}") from None
    with storage.RunLock(run_dir) as lock:
        return _run_locked(cfg, run_dir, g, plan, progress, force, lock, executor)


def _run_locked(cfg: RunConfig, run_dir: Path, g: Any, plan: Plan, progress: bool,
                force: bool, lock: storage.RunLock,
                executor: "DaskExecutor | None" = None) -> RunResult:
    old = _open_run_dir(cfg, run_dir)
    storage.finish_compaction(run_dir)  # one a killed run or `terra-sim compact` left unfinished
    manifest = _manifest(cfg, run_dir, old)
    if old is not None:
        changes = _code_changes(old, manifest)
        if changes and not force:
            raise UserError(f"{run_dir} was played with other code or data: "
                            f"{'; '.join(changes)}. Resuming would mix games of both in one "
                            "run; start a new run, or add --force to resume anyway")
        if changes:
            manifest["forced_resumes"].append({"at": _now(), "changes": changes})
    storage.init_dirs(run_dir)
    stats = RunStats()
    from tqdm import tqdm

    bar = tqdm(total=1, unit="game", disable=not progress, smoothing=0.1, desc=run_dir.name)

    def note(line: str) -> None:
        stats.notes.append(line)
        if progress:
            bar.write(line, file=sys.stderr)

    for line in storage.set_aside_damaged(run_dir):
        note(line)
    storage.clean_partial(run_dir)
    storage.write_manifest(run_dir, manifest)

    done = storage.done_ids(run_dir)
    todo = [i for i in range(cfg.games) if i not in done]
    workers = max(1, min(cfg.n_workers, len(todo)))
    stats.workers = workers
    content_json = json.dumps(cfg.content(), sort_keys=True)
    tables = storage.schemas(manifest["categories"])
    bar.reset(total=len(todo))
    if todo:
        manifest["executors"].append(
            (executor.describe() if executor else {"executor": "local"}) | {"started_at": _now()})

    t0 = time.perf_counter()
    main = threading.current_thread() is threading.main_thread()
    old_term = signal.signal(signal.SIGTERM, _on_sigterm) if main else None
    try:
        if until.enabled(cfg):
            _context(content_json)
            sizer = ChunkSizer(cfg.chunk_size, workers)  # one for all batches: chunks keep growing

            def play(ids: list[int]) -> None:
                if executor is None:
                    _play_all(ids, workers, cfg, content_json, run_dir, tables, plan, stats, bar,
                              note, lock.fd, sizer)
                else:  # in the session opened below, kept across batches
                    executor.play_all(ids, workers, cfg, content_json, run_dir, tables, plan,
                                      stats, bar, note)

            def say(line: str) -> None:
                if progress:
                    bar.write(line, file=sys.stderr)

            manifest["until"] = until.new_record(cfg)
            with executor.session(workers) if executor else contextlib.nullcontext():
                until.play_until(cfg, run_dir, done, manifest["until"], play, say)
        elif todo:
            _context(content_json)  # forked workers inherit the loaded game and plan
            if executor is None:
                _play_all(todo, workers, cfg, content_json, run_dir, tables, plan, stats, bar,
                          note, lock.fd)
            else:
                executor.play_all(todo, workers, cfg, content_json, run_dir, tables, plan,
                                  stats, bar, note)
    except UserError:  # found mid-run (a Dask worker with other code): what is written counts
        bar.close()
        _finish(manifest, run_dir, t0, note)
        raise
    except KeyboardInterrupt:
        bar.close()
        _finish(manifest, run_dir, t0, note)
        raise RunInterrupted(run_dir, manifest["finished_games"] + manifest["failed_games"],
                             cfg.games) from None
    finally:
        if main:
            signal.signal(signal.SIGTERM, old_term)
    bar.close()
    stats.wall_s = time.perf_counter() - t0
    _finish(manifest, run_dir, t0, note, compact=True)
    return RunResult(run_dir, storage.read_manifest(run_dir) or manifest, stats)


def _finish(manifest: dict[str, Any], run_dir: Path, t0: float,
            note: Callable[[str], None], compact: bool = False) -> None:
    # A part damaged while this run wrote it (a full disk): never a finished run with it.
    for line in storage.set_aside_damaged(run_dir):
        note(line)
    storage.clean_partial(run_dir)
    # A long run leaves tens of thousands of small chunks; reading each costs more than its
    # rows, so the run merges them before it ends (its report then reads a few large parts).
    if compact and len(list((run_dir / storage.COMMIT_TABLE).glob("*.parquet"))) \
            > storage.COMPACT_AFTER:
        try:
            before, after = storage.compact(run_dir, lock=False)
            note(f"merged the run's {before:,} chunks into {after:,} (part files per table)")
        except UserError as e:  # the games are all there, only in more files
            note(str(e))
    count = {t: storage.scan(run_dir, t, {"game_id": pl.Int64}).select(pl.len()).collect().item()
             for t in ("games", "errors")}
    manifest["finished_games"] = count["games"]
    manifest["failed_games"] = count["errors"]
    manifest["wall_s"] = round(manifest["wall_s"] + time.perf_counter() - t0, 3)
    if count["games"] + count["errors"] == manifest["planned_games"] or (
            manifest.get("until") or {}).get("stopped"):
        manifest["finished_at"] = _now()
    storage.write_manifest(run_dir, manifest)
