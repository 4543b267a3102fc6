"""Run directory layout: table schemas, atomic Parquet part files and the manifest.

A run directory holds manifest.json and one folder per table (games, players, actions, errors).
Each chunk of games becomes one part file per table, all named after the chunk
(part-<first>-<last>.parquet). The games/ part is written last: it commits the chunk, so parts
in the other tables without a matching games/ part are leftovers of a killed run.
"""

import json
import os
from pathlib import Path
from typing import Any

import polars as pl

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


def write_chunk(run_dir: Path, name: str, columns: dict[str, dict[str, list]],
                table_schemas: dict[str, dict[str, Any]]) -> None:
    """Write one chunk's rows as one part per table, the committing games/ part last."""
    for table in sorted(TABLES, key=lambda t: t == COMMIT_TABLE):
        df = pl.DataFrame(columns[table], schema=table_schemas[table])
        write_atomic(df, run_dir / table / name)


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
    """A lazy view of one table; an empty frame of the right dtypes when it has no parts."""
    if not any((run_dir / table).glob("*.parquet")):
        return pl.LazyFrame(schema=schema)
    return pl.scan_parquet(run_dir / table / "*.parquet")


def done_ids(run_dir: Path) -> set[int]:
    """Game ids already finished: logged in games/ or errors/."""
    ids: set[int] = set()
    for table in ("games", "errors"):
        lf = scan(run_dir, table, {"game_id": pl.Int64})
        ids.update(lf.select("game_id").collect()["game_id"].to_list())
    return ids


def read_manifest(run_dir: Path) -> dict[str, Any] | None:
    path = Path(run_dir) / "manifest.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text())


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    path = Path(run_dir) / "manifest.json"
    tmp = path.with_name(".manifest.json.tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, path)
