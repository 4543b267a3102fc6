"""Run directory layout: table schemas, atomic Parquet part files and the manifest.

A run directory holds manifest.json and one folder per table (games, players, actions, errors).
Each chunk of games becomes one part file per table, all named after the chunk
(part-<first>-<last>.parquet), encoded by the worker that played it (encode_chunk, without
polars: see parquet.py) and written by the run. The games/ part is written last: it commits
the chunk, so parts in the other tables without a matching games/ part are leftovers of a
killed run. A part that cannot be read (a truncated file, a disk error) is damaged:
`set_aside_damaged` moves every part of its chunk to damaged/, so that a resumed run plays the
chunk again.

.lock is the run lock: a run holds an OS lock on it (flock) while it writes, so a second run on
the same folder is refused, and a killed run leaves no stale lock behind.

`compact` merges many small chunks into few large ones (a long run writes tens of thousands of
parts, and reading each costs more than its rows): every table's parts of a group of chunks
become one part under one new name, written to .compacting/ first and moved in once a journal
names the group, so that an interrupted compaction is finished (or its staging dropped) by the
next run, compaction or report, and no reader ever counts a game twice.
"""

import errno
import fcntl
import json
import os
import re
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import polars as pl

from terra_sim import parquet
from terra_sim.core.errors import UserError

TABLES = ("games", "players", "actions", "errors")
COMMIT_TABLE = "games"

GAMES_SCHEMA: dict[str, Any] = {
    "game_id": pl.Int64, "seed": pl.UInt64, "game": pl.String, "n_players": pl.Int64,
    "variant": pl.String, "rounds": pl.Int64, "n_actions": pl.Int64, "duration_s": pl.Float64,
    "setup": pl.String,  # JSON: the options and what the game drew at setup (its setup_info)
}
ACTIONS_SCHEMA: dict[str, Any] = {
    "game_id": pl.Int64, "index": pl.Int64, "round": pl.Int64, "seat": pl.Int64,
    "action": pl.String, "vp": pl.Int64,
}
ERRORS_SCHEMA: dict[str, Any] = {
    "game_id": pl.Int64, "seed": pl.UInt64, "strategies": pl.String, "factions": pl.String,
    "message": pl.String, "traceback": pl.String,
}
# Columns that measure time, not play: they differ between otherwise identical runs.
TIMING_COLUMNS = {"games": ("duration_s",)}
LOCK_FILE = ".lock"
DAMAGED_DIR = "damaged"
COMPACT_DIR = ".compacting"  # a compaction's merged parts before they go in, and its journal
JOURNAL = "journal.json"
COMPACT_GAMES = 20_000  # games per merged part
COMPACT_AFTER = 1_000  # a run compacts itself at its end when it has more chunks than this


class DamagedPartWarning(UserWarning):
    """A part file that cannot be read was left out of a table."""


def players_schema(categories: tuple[str, ...] | list[str]) -> dict[str, Any]:
    base = {
        "game_id": pl.Int64, "n_players": pl.Int64, "seat": pl.Int64, "faction": pl.String,
        "strategy": pl.String, "vp": pl.Int64, "rank": pl.Float64, "win_share": pl.Float64,
        "margin": pl.Float64,
    }
    return base | {f"vp_{c}": pl.Int64 for c in categories}


def schemas(categories: tuple[str, ...] | list[str]) -> dict[str, dict[str, Any]]:
    return {"games": GAMES_SCHEMA, "players": players_schema(categories),
            "actions": ACTIONS_SCHEMA, "errors": ERRORS_SCHEMA}


def part_name(first: int, last: int) -> str:
    return f"part-{first:08d}-{last:08d}.parquet"


def write_atomic(df: pl.DataFrame, path: Path) -> None:
    """Write to a hidden temporary name, then rename: readers never see half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    df.write_parquet(tmp, statistics=True)
    os.replace(tmp, path)


def encode_chunk(columns: dict[str, dict[str, list]],
                 table_schemas: dict[str, dict[str, Any]]) -> dict[str, bytes]:
    """One chunk's rows as Parquet files by table, made without polars: a forked worker makes
    its own chunk's parts (see parquet.py)."""
    return {table: parquet.encode(columns[table], table_schemas[table]) for table in TABLES}


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


class RunLock:
    """An exclusive OS lock on a run folder's .lock file, held while a run writes the folder.

    flock belongs to the open file: it ends when the process ends, however it ends, so a killed
    run leaves no stale lock. Worker processes must close their inherited copy (`fd`)."""

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / LOCK_FILE
        self._file: TextIO | None = None

    @property
    def fd(self) -> int | None:
        return self._file.fileno() if self._file is not None else None

    def acquire(self) -> "RunLock":
        f = open(self.path, "a+")  # noqa: SIM115 - held open for as long as the run writes
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            f.seek(0)
            holder = f.read().strip()
            f.close()
            if e.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise UserError(f"cannot lock {self.path.parent}: {e.strerror}") from None
            who = f" (process {holder})" if holder.isdigit() else ""
            raise UserError(f"{self.path.parent} is in use by another terra-sim run{who}; "
                            "wait for it to end, or choose another --out") from None
        f.seek(0)
        f.truncate()
        f.write(f"{os.getpid()}\n")
        f.flush()
        self._file = f
        return self

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing ends the flock
            self._file = None

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


# --- compaction ---------------------------------------------------------------------------------


def compacting(run_dir: Path) -> bool:
    """Whether a compaction of the run was begun and not finished (its journal is there)."""
    return (Path(run_dir) / COMPACT_DIR / JOURNAL).is_file()


def refuse_if_compacting(run_dir: Path) -> None:
    if compacting(run_dir):
        raise UserError(f"{run_dir} is being compacted, or its compaction was interrupted: "
                        f"wait for it, or finish it with `terra-sim compact {run_dir}`")


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
