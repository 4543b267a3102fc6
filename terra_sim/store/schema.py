"""The run tables and their columns, and one chunk's rows encoded as Parquet part files.

A run directory holds one folder per table (games, players, actions, errors); a worker encodes
its chunk's rows itself, without polars (see parquet.py), and the run writes the bytes
(rundir.write_chunk). The games/ part commits a chunk.
"""

from typing import Any

import polars as pl

from terra_sim.store import parquet

TABLES = ("games", "players", "actions", "errors")
COMMIT_TABLE = "games"  # its part commits a chunk: written last

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


def encode_chunk(columns: dict[str, dict[str, list]],
                 table_schemas: dict[str, dict[str, Any]]) -> dict[str, bytes]:
    """One chunk's rows as Parquet files by table, made without polars: a forked worker makes
    its own chunk's parts (see parquet.py)."""
    return {table: parquet.encode(columns[table], table_schemas[table]) for table in TABLES}

