"""The tournament runner: a run's life from its config to its finished folder.

run_tournament resolves the config (or the run to resume), checks it, opens and locks the run
folder, writes the manifest, and hands the games still to play to an executor (executor.py)
as one Job; each finished chunk's part files land in the folder as they come. A run until sure
(until.py) plays in batches and stops when its intervals are narrow enough. Ctrl-C or SIGTERM
keeps every finished chunk and raises RunInterrupted; the run resumes with --resume. A damaged
part file is set aside and its games played again, and a run is not resumed over other game
data, another engine version or changed bot code unless forced.

Reproducible by construction: game i's seed, player count, factions, seats and strategies
depend only on the run's content config and i (plan.py), never on the executor, the worker
count, the chunk size or the order chunks finish in.
"""

import functools
import json
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from terra_sim.core.errors import UserError
from terra_sim.games import get_game
from terra_sim.run import until
from terra_sim.run.chunk import RunStats, context
from terra_sim.run.code import strategy_code
from terra_sim.run.config import (
    CONTENT_KEYS,
    RunConfig,
    from_any,
    from_dict,
    strategy_spec,
    until_enabled,
    validate,
)
from terra_sim.run.executor import Executor, choose
from terra_sim.run.job import Job
from terra_sim.run.plan import Plan
from terra_sim.store import compaction, rundir, runlock, schema
from terra_sim.version import __version__

# How a resumed run may differ from the original: in how it is executed, and in `games`, which
# only grows a run: game i is the same game whatever the total (run.plan), so a run's games are
# the first games of any longer run of its config.
RESUME_KEYS = ("workers", "chunk_size", "report", "games")


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run: every finished chunk is on disk and the run can be resumed."""

    def __init__(self, run_dir: Path, finished: int, planned: int):
        super().__init__(f"interrupted after {finished} of {planned} games")
        self.run_dir, self.finished, self.planned = run_dir, finished, planned


@dataclass
class RunResult:
    """A finished (or resumed) run; tables are read from disk when first used."""

    run_dir: Path
    manifest: dict[str, Any]
    stats: RunStats = field(default_factory=RunStats)

    def scan(self, table: str) -> pl.LazyFrame:
        return rundir.scan(self.run_dir, table, self._schemas[table])

    @functools.cached_property
    def _schemas(self) -> dict[str, dict[str, Any]]:
        return schema.schemas(self.manifest["categories"])

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
        manifest = rundir.read_manifest(Path(resume))
        if manifest is None:
            raise UserError(f"--resume {resume}: no run here (no manifest.json)")
        changed = sorted(set(given) - set(RESUME_KEYS))
        if changed or config_or_path is not None:
            raise UserError(f"--resume continues a run as it was configured; it cannot change "
                            f"{', '.join(changed) or 'the config file'} "
                            f"(it may change {', '.join(RESUME_KEYS)})")
        if "games" in given and until_enabled(from_dict(manifest["config"])):
            raise UserError(f"--resume {resume}: a run until sure sets its own size "
                            "(max_games); --games cannot grow it")
        cfg = from_dict(manifest["config"] | given)
        return validate(cfg), Path(resume)
    cfg = validate(from_dict(given, base=from_any(config_or_path)))
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    out = Path(cfg.out) if cfg.out else Path("runs") / f"{cfg.game}-{stamp}"
    return cfg, out


def _manifest(cfg: RunConfig, run_dir: Path, old: dict[str, Any] | None) -> dict[str, Any]:
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
        out.append(f"the code or tuned data of strategy {', '.join(changed)} changed")
    return out


def _open_run_dir(cfg: RunConfig, run_dir: Path) -> dict[str, Any] | None:
    """The existing manifest when continuing the same run; refuse a folder holding another."""
    old = rundir.read_manifest(run_dir)
    if old is not None:
        mine = json.loads(json.dumps(cfg.content()))  # as JSON has it: tuples become lists
        diff = [k for k in CONTENT_KEYS if k != "games" and old["config"].get(k) != mine[k]]
        if diff:
            raise UserError(f"{run_dir} already holds a different run (differs in "
                            f"{', '.join(diff)}); choose another --out or --resume {run_dir}")
        had = old["config"].get("games")
        if isinstance(had, int) and mine["games"] < had:
            raise UserError(f"{run_dir} holds a run of {had:,} games: it can grow to more "
                            f"games, not shrink to {mine['games']:,}; give --games {had} or "
                            "more, or choose another --out")
    elif any(p.name != runlock.LOCK_FILE for p in run_dir.iterdir()):
        raise UserError(f"{run_dir} is not empty and holds no run; choose another --out")
    return old


def _on_sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # stopped by SIGTERM as by Ctrl-C: what is finished is kept


def run_tournament(config_or_path: RunConfig | dict | str | Path | None = None, *,
                   resume: str | Path | None = None, progress: bool = False,
                   force: bool = False, executor: Executor | None = None,
                   **overrides: Any) -> RunResult:
    """Run (or resume) a tournament and return its result; tables stream to Parquet on disk.

    `config_or_path`: a RunConfig, a dict shaped like a config file, a TOML path, or None for
    the embedded default run. `overrides` are RunConfig fields (games=, workers=, out=, ...).
    `force`: continue a run even though the game data, the engine or a bot's code changed.
    `executor`: where the games are played (run.executor.choose); None for the local worker
    pool. It changes no game, so a run may be resumed on another executor.
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
    executor = executor or choose()
    executor.check()
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot make the run folder {run_dir}: {e.strerror}") from None
    with runlock.RunLock(run_dir) as lock:
        return _run_locked(cfg, run_dir, g, plan, progress, force, lock, executor)


def _run_locked(cfg: RunConfig, run_dir: Path, g: Any, plan: Plan, progress: bool,
                force: bool, lock: runlock.RunLock,
                executor: Executor) -> RunResult:
    old = _open_run_dir(cfg, run_dir)
    compaction.finish_compaction(run_dir)  # one a killed run or `terra-sim compact` left unfinished
    manifest = _manifest(cfg, run_dir, old)
    if old is not None:
        changes = _code_changes(old, manifest)
        if changes and not force:
            raise UserError(f"{run_dir} was played with other code or data: "
                            f"{'; '.join(changes)}. Resuming would mix games of both in one "
                            "run; start a new run, or add --force to resume anyway")
        if changes:
            manifest["forced_resumes"].append({"at": _now(), "changes": changes})
    rundir.init_dirs(run_dir)
    stats = RunStats()
    from tqdm import tqdm

    bar = tqdm(total=1, unit="game", disable=not progress, smoothing=0.1, desc=run_dir.name)

    def note(line: str) -> None:
        stats.notes.append(line)
        if progress:
            bar.write(line, file=sys.stderr)

    for line in rundir.set_aside_damaged(run_dir):
        note(line)
    rundir.clean_partial(run_dir)
    rundir.write_manifest(run_dir, manifest)

    done = rundir.done_ids(run_dir)
    todo = [i for i in range(cfg.games) if i not in done]
    workers = max(1, min(cfg.n_workers, len(todo)))
    stats.workers = workers
    content_json = json.dumps(cfg.content(), sort_keys=True)
    tables = schema.schemas(manifest["categories"])
    bar.reset(total=len(todo))
    if todo:
        manifest["executors"].append(executor.describe() | {"started_at": _now()})
    job = Job(workers, cfg, content_json, run_dir, tables, plan, stats, bar, note, lock.fd)

    t0 = time.perf_counter()
    main = threading.current_thread() is threading.main_thread()
    old_term = signal.signal(signal.SIGTERM, _on_sigterm) if main else None
    try:
        if until_enabled(cfg) or todo:
            context(content_json)  # forked workers inherit the loaded game and plan
        # One session for every batch of a run until sure: a cluster starts once, and chunks
        # keep growing from one batch to the next.
        with executor.session(workers):
            if until_enabled(cfg):
                def say(line: str) -> None:
                    if progress:
                        bar.write(line, file=sys.stderr)

                manifest["until"] = until.new_record(cfg)
                until.play_until(cfg, run_dir, done, manifest["until"],
                                 lambda ids: executor.play_all(ids, job), say)
            elif todo:
                executor.play_all(todo, job)
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
    return RunResult(run_dir, rundir.read_manifest(run_dir) or manifest, stats)


def _finish(manifest: dict[str, Any], run_dir: Path, t0: float,
            note: Callable[[str], None], compact: bool = False) -> None:
    # A part damaged while this run wrote it (a full disk): never a finished run with it.
    for line in rundir.set_aside_damaged(run_dir):
        note(line)
    rundir.clean_partial(run_dir)
    # A long run leaves tens of thousands of small chunks; reading each costs more than its
    # rows, so the run merges them before it ends (its report then reads a few large parts).
    if compact and len(list((run_dir / schema.COMMIT_TABLE).glob("*.parquet"))) \
            > compaction.COMPACT_AFTER:
        try:
            before, after = compaction.compact(run_dir, lock=False)
            note(f"merged the run's {before:,} chunks into {after:,} (part files per table)")
        except UserError as e:  # the games are all there, only in more files
            note(str(e))
    count = {t: rundir.scan(run_dir, t, {"game_id": pl.Int64}).select(pl.len()).collect().item()
             for t in ("games", "errors")}
    manifest["finished_games"] = count["games"]
    manifest["failed_games"] = count["errors"]
    manifest["wall_s"] = round(manifest["wall_s"] + time.perf_counter() - t0, 3)
    if count["games"] + count["errors"] == manifest["planned_games"] or (
            manifest.get("until") or {}).get("stopped"):
        manifest["finished_at"] = _now()
    rundir.write_manifest(run_dir, manifest)

