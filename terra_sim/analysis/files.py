"""Reading a run's Parquet parts and writing report files, with failures as one-line UserErrors
that name the file: a damaged part or a full disk is the user's to fix, not a traceback."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import polars as pl

from terra_sim.core.errors import UserError
from terra_sim.store import rundir

REPORT_TABLES = ("players", "games", "errors")  # the tables reports read (not actions)


def parts(run_dir: Path, tables: Iterable[str] = REPORT_TABLES) -> list[Path]:
    return [p for t in tables for p in sorted((run_dir / t).glob("*.parquet"))]


def _unreadable(part: Path, e: Exception) -> UserError:
    lines = str(e).strip().splitlines()
    why = lines[0] if lines else type(e).__name__
    return UserError(f"{part}: cannot read this Parquet part, it is truncated or damaged ({why})")


def check_footers(run_dir: Path) -> None:
    """Read each part's footer (its schema): a truncated part has none. Cheap, so done on every
    open; damage inside a part is found by `find_damaged` when a query fails."""
    for part in parts(run_dir):
        # rundir remembers each footer it read, so that the scans that follow do not read it
        # again (tens of thousands of parts in a long run that is not compacted)
        problem = rundir.part_problem(part)
        if problem is not None:
            try:
                pl.read_parquet_schema(part)
            except (pl.exceptions.PolarsError, OSError) as e:
                raise _unreadable(part, e) from None
            raise UserError(f"{part}: cannot read this Parquet part ({problem})")


def raise_if_damaged(run_dirs: Iterable[Path]) -> None:
    """After a failed query: read every part in full and raise for the first that fails (or
    say that the run is being compacted, which replaces its parts while they are read)."""
    for run_dir in run_dirs:
        if (Path(run_dir) / rundir.COMPACT_DIR).exists():
            raise UserError(f"{run_dir} was being compacted while it was read: try again once "
                            f"the compaction is done (`terra-sim compact {run_dir}` finishes an "
                            "interrupted one)")
        for part in parts(run_dir):
            try:
                pl.read_parquet(part)
            except (pl.exceptions.PolarsError, OSError) as e:
                raise _unreadable(part, e) from None


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """Turn a failed write (read-only folder, full disk) into one line naming the file."""
    try:
        yield
    except OSError as e:
        where = e.filename or path
        why = e.strerror or str(e)
        raise UserError(f"cannot write {where}: {why}; free some space or give a writable "
                        "folder with --out") from None
