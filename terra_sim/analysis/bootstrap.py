"""Bootstrap over whole games: a run's games are independent draws, so resampling them (every
seat of a game together) gives the spread of any statistic built from per-game sums."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import polars as pl

REPS = 1000
# Above this many games the bootstrap resamples fixed groups of games (by game number) instead
# of single games: the groups' sums are independent draws too, and the cost stays fixed.
MAX_UNITS = 20_000


def with_units(frame: pl.DataFrame) -> tuple[pl.DataFrame, int, int]:
    """`frame` (rows with a game_id) with a `unit` column 0..units-1, the units and the games."""
    n_games = frame["game_id"].n_unique()
    units = min(n_games, MAX_UNITS)
    frame = frame.with_columns(
        ((pl.col("game_id").rank("dense") - 1) % max(units, 1)).cast(pl.Int64).alias("unit"))
    return frame, units, n_games


def resamples(units: int, reps: int, seed: int) -> Iterator[np.ndarray]:
    """Batches of resamples: rows of how often each unit is drawn, `reps` rows in all."""
    rng = np.random.default_rng(seed)
    batch = max(1, 2_000_000 // max(units, 1))  # a bounded amount of memory per batch
    for start in range(0, reps, batch):
        k = min(batch, reps - start)
        yield rng.multinomial(units, np.full(units, 1 / units), size=k).astype(float)


def describe(reps: int, units: int, n_games: int, seed: int) -> str:
    if units == n_games:
        return f"{reps:,} bootstrap resamples of whole games (seed {seed})"
    return (f"{reps:,} bootstrap resamples of {units:,} fixed groups of whole games (by game "
            f"number; {n_games:,} games in all, seed {seed})")
