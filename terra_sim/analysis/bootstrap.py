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


def unit_sums(players: pl.LazyFrame, by: list[str], aggs: list[pl.Expr]
              ) -> tuple[pl.DataFrame, int, int]:
    """Per unit (games numbered densely by game_id, folded into at most MAX_UNITS groups) and
    `by`: the `aggs`, aggregated in the query, so that no per-player frame is collected; and
    the units and the games."""
    n_games = int(players.select(pl.col("game_id").n_unique()).collect().item())
    units = min(n_games, MAX_UNITS)
    sums = (players.select("game_id", *by, *{c for e in aggs for c in e.meta.root_names()})
            .with_columns(((pl.col("game_id").rank("dense") - 1) % max(units, 1))
                          .cast(pl.Int64).alias("unit"))
            .group_by("unit", *by).agg(*aggs).collect()
            .with_columns(*[pl.col(c).cast(pl.String) for c in by]))  # categorical keys too
    return sums, units, n_games


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
