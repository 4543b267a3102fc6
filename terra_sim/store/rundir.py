"""A run directory's layout: part files named after their chunk, written atomically, the
manifest, damaged parts set aside, and lazy views of the tables.

A run directory holds manifest.json and one folder per table. Each chunk of games becomes one
part file per table, all named after the chunk (part-<first>-<last>.parquet); the games/ part
is written last: it commits the chunk, so parts in the other tables without a matching games/
part are leftovers of a killed run. A part that cannot be read (a truncated file, a disk error)
is damaged: `set_aside_damaged` moves every part of its chunk to damaged/, so that a resumed run
plays the chunk again. A compaction (compaction.py) stages its merged parts in .compacting/; while
its journal is there, the tables are not read.
"""

import errno
import json
import os
import shutil
import warnings
from pathlib import Path
from typing import Any

import polars as pl

from terra_sim.core.errors import UserError
from terra_sim.store.schema import COMMIT_TABLE, TABLES

DAMAGED_DIR = "damaged"
COMPACT_DIR = ".compacting"  # a compaction's merged parts before they go in, and its journal
JOURNAL = "journal.json"


class DamagedPartWarning(UserWarning):
    """A part file that cannot be read was left out of a table."""


def part_name(first: int, last: int) -> str:
    return f"part-{first:08d}-{last:08d}.parquet"


def write_atomic(df: pl.DataFrame, path: Path) -> None:
    """Write to a hidden temporary name, then rename: readers never see half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    df.write_parquet(tmp, statistics=True)
    os.replace(tmp, path)


def write_chunk(run_dir: Path, name: str, parts: dict[str, bytes]) -> None:
    """Write one chunk's parts (encode_chunk's), each under a temporary name then renamed, the
    committing games/ part last."""
    for table in sorted(TABLES, key=lambda t: t == COMMIT_TABLE):
        path = run_dir / table / name
        tmp = path.with_name(f".{name}.tmp")
        tmp.write_bytes(parts[table])
        os.replace(tmp, path)


def move_chunk(src_dir: Path, run_dir: Path, name: str) -> None:
    """Move one chunk's parts, written under the same layout in `src_dir` (by a worker on a
    shared folder), into the run, the committing games/ part last. Across file systems a part
    is copied to a temporary name first: readers never see half a file."""
    for table in sorted(TABLES, key=lambda t: t == COMMIT_TABLE):
        src, dest = Path(src_dir) / table / name, run_dir / table / name
        try:
            os.replace(src, dest)
        except OSError as e:
            if e.errno != errno.EXDEV:
                raise
            tmp = dest.with_name(f".{name}.tmp")
            shutil.copyfile(src, tmp)
            os.replace(tmp, dest)
            src.unlink()


def init_dirs(run_dir: Path) -> None:
    for table in TABLES:
        (run_dir / table).mkdir(parents=True, exist_ok=True)


def clean_partial(run_dir: Path) -> int:
    """Remove temporary files and uncommitted parts left by a killed run; return how many."""
    committed = {p.name for p in (run_dir / COMMIT_TABLE).glob("*.parquet")}
    removed = 0
    for table in TABLES:
        for p in (run_dir / table).glob(".*.tmp"):
            p.unlink()
            removed += 1
        if table != COMMIT_TABLE:
            for p in (run_dir / table).glob("*.parquet"):
                if p.name not in committed:
                    p.unlink()
                    removed += 1
    return removed


def scan(run_dir: Path, table: str, schema: dict[str, Any]) -> pl.LazyFrame:
    """A lazy view of one table; an empty frame of the right dtypes when it has no parts.
    A damaged part is left out with a DamagedPartWarning naming it (a resume replays it).
    Raises UserError while a compaction of the run is unfinished."""
    refuse_if_compacting(run_dir)
    parts = sorted((Path(run_dir) / table).glob("*.parquet"))
    good = []
    for path in parts:
        problem = part_problem(path)
        if problem is None:
            good.append(path)
        else:
            warnings.warn(f"{path}: damaged part left out ({problem}); `terra-sim run --resume "
                          f"{run_dir}` sets it aside and plays its games again",
                          DamagedPartWarning, stacklevel=2)
    if not good:
        return pl.LazyFrame(schema=schema)
    return pl.scan_parquet(good)


# (path, size, mtime) -> the problem found, or None: each part file is read once per process.
_checked: dict[tuple[str, int, int], str | None] = {}


def part_problem(path: Path) -> str | None:
    """Why the Parquet part at `path` cannot be read (None when it can): its footer holds the
    schema and the row count, and a truncated or overwritten file has none."""
    try:
        st = path.stat()
    except OSError as e:
        return f"cannot read it: {e.strerror}"
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _checked:
        try:
            pl.read_parquet_schema(path)
            problem = None
        except Exception as e:  # polars raises its own kinds for a file that is no Parquet
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            problem = f"not a readable Parquet file: {first}"
        _checked[key] = problem
    return _checked[key]


def damaged_parts(run_dir: Path) -> dict[str, str]:
    """Chunk part name -> what is wrong, for every chunk with a damaged part in any table."""
    found: dict[str, str] = {}
    for table in TABLES:
        for path in sorted((Path(run_dir) / table).glob("*.parquet")):
            problem = part_problem(path)
            if problem is not None and path.name not in found:
                found[path.name] = f"{table}/{path.name}: {problem}"
    return found


def set_aside_damaged(run_dir: Path) -> list[str]:
    """Move every part of each chunk with a damaged part to damaged/<table>/, so the chunk
    counts as not played; return one line per chunk set aside."""
    notes = []
    for name, problem in damaged_parts(run_dir).items():
        for table in TABLES:
            path = Path(run_dir) / table / name
            if path.exists():
                dest = Path(run_dir) / DAMAGED_DIR / table / name
                dest.parent.mkdir(parents=True, exist_ok=True)
                k = 1
                while dest.exists():  # damaged twice: keep both
                    dest = dest.with_name(f"{name}.{k}")
                    k += 1
                os.replace(path, dest)
        notes.append(f"damaged part set aside in {DAMAGED_DIR}/ ({problem}); its games are "
                     "played again")
    return notes


def done_ids(run_dir: Path) -> set[int]:
    """Game ids already finished: logged in games/ or errors/."""
    ids: set[int] = set()
    for table in ("games", "errors"):
        lf = scan(run_dir, table, {"game_id": pl.Int64})
        ids.update(lf.select("game_id").collect()["game_id"].to_list())
    return ids


def read_manifest(run_dir: Path) -> dict[str, Any] | None:
    """The run's manifest; None when the folder holds none. Raises UserError for a manifest
    that cannot be read (empty, cut short, not JSON)."""
    path = Path(run_dir) / "manifest.json"
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as e:
        why = "it is empty" if path.stat().st_size == 0 else f"not valid JSON: {e}"
        raise UserError(f"{path} cannot be read ({why}); the run in {run_dir} cannot be "
                        "continued: start a new run with another --out") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("config"), dict):
        raise UserError(f"{path} is not a terra-sim manifest (no config); the run in {run_dir} "
                        "cannot be continued: start a new run with another --out")
    return manifest


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    path = Path(run_dir) / "manifest.json"
    tmp = path.with_name(".manifest.json.tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, path)


def compacting(run_dir: Path) -> bool:
    """Whether a compaction of the run was begun and not finished (its journal is there)."""
    return (Path(run_dir) / COMPACT_DIR / JOURNAL).is_file()


def refuse_if_compacting(run_dir: Path) -> None:
    if compacting(run_dir):
        raise UserError(f"{run_dir} is being compacted, or its compaction was interrupted: "
                        f"wait for it, or finish it with `terra-sim compact {run_dir}`")

