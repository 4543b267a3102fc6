"""Merging many small chunks into few large ones: a long run writes tens of thousands of
parts, and reading each costs more than its rows.

Every table's parts of a group of chunks become one part under one new name, written to
.compacting/ first and moved in once a journal names the group, so that an interrupted
compaction is finished (or its staging dropped) by the next run, compaction or report, and no
reader ever counts a game twice.
"""

import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from terra_sim.core.errors import UserError
from terra_sim.store.rundir import COMPACT_DIR, JOURNAL, part_name
from terra_sim.store.runlock import RunLock
from terra_sim.store.schema import COMMIT_TABLE, TABLES

COMPACT_GAMES = 20_000  # games per merged part
COMPACT_AFTER = 1_000  # a run compacts itself at its end when it has more chunks than this


def finish_compaction(run_dir: Path) -> bool:
    """Finish an interrupted compaction (the run lock must be held): move in the merged parts
    its journal names and remove the parts they replace; without a journal, drop what was
    staged. Returns whether there was a journal to finish."""
    stage = Path(run_dir) / COMPACT_DIR
    if not stage.exists():
        return False
    journal = stage / JOURNAL
    found = journal.is_file()
    if found:
        _apply(Path(run_dir), json.loads(journal.read_text()))
    shutil.rmtree(stage)
    return found


def _apply(run_dir: Path, entry: dict[str, Any]) -> None:
    """Put one merged chunk in place of the chunks it replaces; safe to repeat after a crash."""
    merged, replaced = entry["merged"], entry["replaces"]
    stage = run_dir / COMPACT_DIR
    for table in TABLES:
        if (stage / table / merged).exists():
            os.replace(stage / table / merged, run_dir / table / merged)
    for table in sorted(TABLES, key=lambda t: t != COMMIT_TABLE):  # games/ first: uncommitted
        for name in replaced:
            (run_dir / table / name).unlink(missing_ok=True)


_SPAN = re.compile(r"part-(\d+)-(\d+)")


def _span(name: str) -> tuple[int, int] | None:
    m = _SPAN.match(name)
    return (int(m.group(1)), int(m.group(2))) if m else None


def plan_compaction(run_dir: Path, games_per_part: int) -> list[list[str]]:
    """Groups of committed chunks (by name, in game order) to merge, each spanning about
    `games_per_part` games; a chunk that big already is left alone."""
    names = sorted(p.name for p in (Path(run_dir) / COMMIT_TABLE).glob("*.parquet"))
    groups: list[list[str]] = []
    group: list[str] = []
    games = 0
    for name in names:
        span = _span(name)
        size = span[1] - span[0] + 1 if span else 1
        if size >= games_per_part or (group and games + size > games_per_part):
            groups.append(group)
            group, games = [], 0
        if size < games_per_part:
            group.append(name)
            games += size
    groups.append(group)
    return [g for g in groups if len(g) > 1]


def _merged_name(group: list[str], taken: set[str]) -> str:
    """part-<first>-<last>.parquet over the group's games, unless a part (of any table) has
    that name already: a chunk of a resumed run may span the same games."""
    spans = [s for s in map(_span, group) if s is not None]
    first = min(s[0] for s in spans) if spans else 0
    last = max(s[1] for s in spans) if spans else len(group) - 1
    name, k = part_name(first, last), 1
    while name in taken:
        name = part_name(first, last).replace(".parquet", f"-{k}.parquet")
        k += 1
    return name


def compact(run_dir: str | Path, games_per_part: int | None = None, lock: bool = True,
            progress: Callable[[int, int], None] | None = None) -> tuple[int, int]:
    """Merge the run's committed chunks into chunks of about `games_per_part` games (default
    COMPACT_GAMES): each table's parts of a group become one part, streamed (bounded memory).
    Takes the run lock unless the caller holds it (`lock=False`). Returns (chunks before,
    chunks after); `progress` hears (groups merged, groups) as it goes."""
    run_dir = Path(run_dir)
    games_per_part = games_per_part or COMPACT_GAMES
    if lock:
        with RunLock(run_dir):
            return compact(run_dir, games_per_part, lock=False, progress=progress)
    finish_compaction(run_dir)
    before = len(list((run_dir / COMMIT_TABLE).glob("*.parquet")))
    groups = plan_compaction(run_dir, games_per_part)
    stage = run_dir / COMPACT_DIR
    taken = {p.name for t in TABLES for p in (run_dir / t).glob("*.parquet")}
    for i, group in enumerate(groups):
        merged = _merged_name(group, taken)
        taken.add(merged)
        try:
            for table in TABLES:
                parts = [run_dir / table / n for n in group if (run_dir / table / n).exists()]
                if not parts:
                    continue
                (stage / table).mkdir(parents=True, exist_ok=True)
                tmp = stage / table / f".{merged}.tmp"
                pl.scan_parquet(parts).sink_parquet(tmp, statistics=True)
                os.replace(tmp, stage / table / merged)
        except (pl.exceptions.PolarsError, OSError) as e:  # a damaged part, a full disk
            shutil.rmtree(stage, ignore_errors=True)
            why = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise UserError(f"{run_dir}: cannot merge the chunks {group[0]} to {group[-1]} "
                            f"({why}); they are left as they were") from None
        entry = {"merged": merged, "replaces": group}
        tmp = stage / f".{JOURNAL}.tmp"
        tmp.write_text(json.dumps(entry))
        os.replace(tmp, stage / JOURNAL)  # from here on the group is merged, crash or not
        _apply(run_dir, entry)
        (stage / JOURNAL).unlink()
        if progress:
            progress(i + 1, len(groups))
    if stage.exists():
        shutil.rmtree(stage)
    return before, len(list((run_dir / COMMIT_TABLE).glob("*.parquet")))

