"""A run's games as an executor is handed them (the Executor protocol is in executor.py)."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from terra_sim.run.chunk import RunStats
from terra_sim.run.config import RunConfig
from terra_sim.run.plan import Plan


@dataclass
class Job:
    """One run's games, as an executor plays them: the run's config and plan, where the part
    files go, and where to count (stats), show (bar) and tell (note) what happens."""

    workers: int
    cfg: RunConfig
    content_json: str  # the run's content config: all a worker needs to play game i
    run_dir: Path
    tables: dict[str, dict[str, Any]]  # the tables' columns (store.schema)
    plan: Plan
    stats: RunStats
    bar: Any  # a tqdm progress bar (disabled when quiet)
    note: Callable[[str], None]
    lock_fd: int | None = None  # the run lock's file: worker processes must not hold it
