"""The tournament runner: a seeded plan of games, played in chunks across worker processes and
streamed to Parquet part files, resumable after an interruption.

Reproducible by construction: game i's seed, player count, factions, seats and strategies
depend only on the run's content config and i (see Plan), never on which worker plays it, the
chunk size or the order chunks finish in.
"""

import functools
import json
import math
import pickle
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from terra_sim import storage
from terra_sim.config import CONTENT_KEYS, RunConfig, from_dict, load, strategy_spec, validate
from terra_sim.core.errors import UserError
from terra_sim.core.rng import derive_seed, stream
from terra_sim.games import get_game

MAX_CHUNK = 100  # games per task: enough that IPC and part files cost little; few for ETA
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


def play_chunk(content_json: str, ids: list[int]) -> tuple[list[int], dict, dict[str, Any]]:
    """Play games `ids`; return them, their rows by table and column, and timing counts.

    Runs in forked workers, so it must not touch polars: a fork can leave polars' thread pool
    locked in the child. The parent writes the rows."""
    from terra_sim import play_game

    plan, g, tables, variant = _context(content_json)
    c = plan.c
    cols: dict[str, dict[str, list]] = {t: {k: [] for k in s} for t, s in tables.items()}
    stats = {"games": 0, "failed": 0, "decisions": 0, "play_s": 0.0, "cpu_s": 0.0}
    t0, cpu0 = time.perf_counter(), time.process_time()
    for i in ids:
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
    stats["play_s"] = time.perf_counter() - t0
    stats["cpu_s"] = time.process_time() - cpu0
    return ids, cols, stats


def _ignore_sigint() -> None:
    import signal

    # Ctrl-C goes to the whole process group: the parent alone decides how to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _play_chunk_args(args: tuple[str, list[int]]) -> tuple[list[int], dict, dict[str, Any]]:
    return play_chunk(*args)


def _play_chunk_pickled(args: tuple[str, list[int]]) -> bytes:
    # The pool sends results with dill's pure-Python pickler, slow on a chunk's hundred
    # thousand action rows; the C pickler in the worker makes that a single bytes object.
    return pickle.dumps(play_chunk(*args), protocol=pickle.HIGHEST_PROTOCOL)


# ---------------------------------------------------------------- parent side


@dataclass
class RunStats:
    games: int = 0  # played in this session
    failed: int = 0
    decisions: int = 0
    play_s: float = 0.0  # summed over workers
    write_s: float = 0.0  # in the parent, while the workers play on
    cpu_s: float = 0.0  # CPU time of play: below play_s when other programs take the cores
    wall_s: float = 0.0
    workers: int = 1

    def add(self, s: dict[str, Any]) -> None:
        for k in ("games", "failed", "decisions", "play_s", "cpu_s"):
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
    if isinstance(config_or_path, RunConfig):
        cfg = from_dict({}, base=config_or_path)
    elif isinstance(config_or_path, dict):
        cfg = from_dict(config_or_path)
    else:
        cfg = load(config_or_path)
    cfg = validate(from_dict(given, base=cfg))
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(cfg.out) if cfg.out else Path("runs") / f"{cfg.game}-{stamp}"
    return cfg, out


def _manifest(cfg: RunConfig, run_dir: Path, old: dict[str, Any] | None) -> dict[str, Any]:
    from terra_sim import __version__

    g = get_game(cfg.game, cfg.overrides or None)
    return {
        "game": g.slug, "title": g.title, "variant": g.variant_name(cfg.options),
        "master_seed": cfg.seed, "package_version": __version__, "engine_version": g.version,
        "data_set": g.data_set, "data_hash": g.data_hash, "overrides": cfg.overrides,
        "approximate_data": list(g.approximate),
        "player_counts": cfg.players, "factions": cfg.factions, "strategies": cfg.strategies,
        "strategy_specs": {s: strategy_spec(cfg, s) for s in cfg.strategies or ()},
        "categories": list(g.categories), "design": cfg.design, "options": cfg.options,
        "planned_games": cfg.games, "finished_games": 0, "failed_games": 0,
        "started_at": old["started_at"] if old else _now(), "finished_at": None,
        "wall_s": old["wall_s"] if old else 0.0,
        "run_dir": str(run_dir), "config": cfg.to_dict(),
    }


def _open_run_dir(cfg: RunConfig, run_dir: Path) -> dict[str, Any] | None:
    """The existing manifest when continuing the same run; refuse a folder holding another."""
    old = storage.read_manifest(run_dir)
    if old is not None:
        mine = json.loads(json.dumps(cfg.content()))  # as JSON has it: tuples become lists
        diff = [k for k in CONTENT_KEYS if old["config"].get(k) != mine[k]]
        if diff:
            raise UserError(f"{run_dir} already holds a different run (differs in "
                            f"{', '.join(diff)}); choose another --out or --resume {run_dir}")
    elif run_dir.exists() and any(run_dir.iterdir()):
        raise UserError(f"{run_dir} is not empty and holds no run; choose another --out")
    return old


def _chunks(todo: list[int], size: int, workers: int) -> Iterator[list[int]]:
    """Fixed `size`, or (size 0) guided chunks: each a share of what is left, so early chunks
    are big (few part files) and the last ones small (no worker idles long at the end)."""
    k = 0
    while k < len(todo):
        n = size or max(1, min(MAX_CHUNK, math.ceil((len(todo) - k) / (3 * workers))))
        yield todo[k:k + n]
        k += n


def run_tournament(config_or_path: RunConfig | dict | str | Path | None = None, *,
                   resume: str | Path | None = None, progress: bool = False,
                   **overrides: Any) -> RunResult:
    """Run (or resume) a tournament and return its result; tables stream to Parquet on disk.

    `config_or_path`: a RunConfig, a dict shaped like a config file, a TOML path, or None for
    the embedded default run. `overrides` are RunConfig fields (games=, workers=, out=, ...).
    Raises UserError for mistakes and RunInterrupted on Ctrl-C (finished chunks are kept).
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
    old = _open_run_dir(cfg, run_dir)
    storage.init_dirs(run_dir)
    storage.clean_partial(run_dir)
    manifest = _manifest(cfg, run_dir, old)
    storage.write_manifest(run_dir, manifest)

    done = storage.done_ids(run_dir)
    todo = [i for i in range(cfg.games) if i not in done]
    workers = max(1, min(cfg.n_workers, len(todo)))
    content_json = json.dumps(cfg.content(), sort_keys=True)
    tables = storage.schemas(manifest["categories"])
    tasks = [(content_json, ids) for ids in _chunks(todo, cfg.chunk_size, workers)]
    stats = RunStats(workers=workers)

    from tqdm import tqdm

    t0 = time.perf_counter()
    bar = tqdm(total=len(todo), unit="game", disable=not progress, smoothing=0.1,
               desc=run_dir.name)
    pool = None
    try:
        if workers == 1:
            results: Iterator[tuple] = map(_play_chunk_args, tasks)
        else:
            import multiprocess

            _context(content_json)  # forked workers inherit the loaded game and plan
            pool = multiprocess.get_context("fork").Pool(workers, initializer=_ignore_sigint)
            results = map(pickle.loads, pool.imap_unordered(_play_chunk_pickled, tasks))
        for ids, cols, s in results:
            t = time.perf_counter()
            storage.write_chunk(run_dir, storage.part_name(ids[0], ids[-1]), cols, tables)
            stats.write_s += time.perf_counter() - t
            stats.add(s)
            bar.update(s["games"] + s["failed"])
        if pool is not None:
            pool.close()
            pool.join()
    except KeyboardInterrupt:
        if pool is not None:
            pool.terminate()
            pool.join()
        bar.close()
        _finish(manifest, run_dir, t0)
        raise RunInterrupted(run_dir, manifest["finished_games"] + manifest["failed_games"],
                             cfg.games) from None
    finally:
        if pool is not None:
            pool.terminate()
    bar.close()
    stats.wall_s = time.perf_counter() - t0
    _finish(manifest, run_dir, t0)
    return RunResult(run_dir, storage.read_manifest(run_dir) or manifest, stats)


def _finish(manifest: dict[str, Any], run_dir: Path, t0: float) -> None:
    storage.clean_partial(run_dir)
    count = {t: storage.scan(run_dir, t, {"game_id": pl.Int64}).select(pl.len()).collect().item()
             for t in ("games", "errors")}
    manifest["finished_games"] = count["games"]
    manifest["failed_games"] = count["errors"]
    manifest["wall_s"] = round(manifest["wall_s"] + time.perf_counter() - t0, 3)
    if count["games"] + count["errors"] == manifest["planned_games"]:
        manifest["finished_at"] = _now()
    storage.write_manifest(run_dir, manifest)
