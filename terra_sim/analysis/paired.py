"""Paired what-if analysis: two runs of one plan (same master seed, same factions and bots in
the same seats of every game) differ only by the what-if change, so game i of run A and game i
of run B share the deal. Each faction's change is the mean of its per-game differences, with a
paired t interval and test: the deal's luck cancels, and intervals shrink against an analysis
that treats the runs as independent samples.

The runs are joined inside lazy queries that collect only aggregates (a row per faction or
player count), never the seats themselves."""

from __future__ import annotations

import numpy as np
import polars as pl

from terra_sim.analysis import stats, tables

_SEAT = ["game_id", "seat", "faction", "strategy", "n_players", "win_share", "margin"]
SEATS = 256  # more than any game has: game_id * SEATS + seat tells a run's seats apart


def pair_games(ra: tables.Run, rb: tables.Run) -> tuple[pl.LazyFrame | None, str]:
    """The seats of the games both runs finished, joined (B's columns end in `_b`) as a lazy
    query, when the two runs share a plan; otherwise None and why they are independent
    samples."""
    sa, sb = ra.manifest.get("master_seed"), rb.manifest.get("master_seed")
    if sa is None or sa != sb:
        return None, f"the runs have different master seeds ({sa} and {sb})"
    joined = _seats(ra).join(_seats(rb).drop("game_id", "seat"), on="key", how="inner",
                             suffix="_b")
    differ = ((pl.col("faction") != pl.col("faction_b"))
              | (pl.col("strategy") != pl.col("strategy_b"))
              | (pl.col("n_players") != pl.col("n_players_b")))
    seats, first = joined.select(pl.len(), pl.col("game_id").filter(differ).min()).collect().row(0)
    if seats == 0:
        return None, "no game number was finished in both runs"
    if first is not None:
        return None, (f"game {first} seats different factions or bots in the two runs "
                      "(a different design or faction pool)")
    return joined, ""


def _seats(run: tables.Run) -> pl.LazyFrame:
    """The run's seats keyed by game and seat (`key`), marked as sorted by the key when they
    are, as a run's parts hold them: two runs in order are joined by merging, a few rows of each
    at a time, where joining by hashing would hold every seat of one run."""
    seats = run.players.select((pl.col("game_id") * SEATS + pl.col("seat")).alias("key"), *_SEAT)
    in_order = seats.select((pl.col("key").diff() > 0).all()
                            & pl.col("seat").is_between(0, SEATS - 1).all()).collect().item()
    return seats.set_sorted("key") if in_order else seats


def paired_change_table(joined: pl.LazyFrame, by: list[str],
                        correction: str = "holm") -> pl.DataFrame:
    """Per group of `by`: the paired games, each run's win share (Wilson interval) and mean
    margin, and B minus A of win share and margin as the mean per-game difference with a paired
    t 95% interval and test, p-values adjusted by `correction` across the rows. The columns are
    change_table's, so the display and plots serve both analyses."""
    df = (
        joined.with_columns((pl.col("win_share_b") - pl.col("win_share")).alias("d_win"),
                            (pl.col("margin_b") - pl.col("margin")).alias("d_margin"))
        .group_by(by)
        .agg(pl.len().alias("games"),
             pl.col("win_share").sum().alias("wins_a"), pl.col("win_share_b").sum().alias("wins_b"),
             (1.0 / pl.col("n_players")).mean().alias("expected_share"),
             pl.col("margin").mean().alias("margin_mean_a"),
             pl.col("margin_b").mean().alias("margin_mean_b"),
             pl.col("d_win").mean().alias("win_change"), pl.col("d_win").std().alias("win_sd"),
             pl.col("d_margin").mean().alias("margin_change"),
             pl.col("d_margin").std().alias("margin_sd"))
        .collect()
        .sort(by)
    )
    n = df["games"].to_numpy()
    out = {}
    for side in ("a", "b"):
        wins = df[f"wins_{side}"].to_numpy()
        lo, hi = stats.wilson_interval(wins, n)
        out[f"games_{side}"] = n
        out[f"win_share_{side}"] = wins / n
        out[f"win_lo_{side}"], out[f"win_hi_{side}"] = lo, hi
    for col in ("win", "margin"):
        mean, sd = df[f"{col}_change"].to_numpy(), df[f"{col}_sd"].to_numpy()
        lo, hi = stats.t_interval(mean, sd, n)
        p = stats.t_test_mean(mean, sd, n)
        adj = stats.adjust(p, correction)
        out[f"{col}_change_lo"], out[f"{col}_change_hi"] = lo, hi
        out[f"{col}_change_p"], out[f"{col}_change_p_adjusted"] = p, adj
        out[f"{col}_change_significant"] = np.nan_to_num(adj, nan=1.0) < tables.ALPHA
    return df.with_columns(*[pl.Series(k, v) for k, v in out.items()]).fill_nan(None)


def width_ratio(paired: pl.DataFrame, independent: pl.DataFrame, col: str) -> float:
    """Median over the rows of the paired interval's width over the independent one's."""
    j = paired.join(independent, on="faction", suffix="_ind")
    w = ((j[f"{col}_change_hi"] - j[f"{col}_change_lo"])
         / (j[f"{col}_change_hi_ind"] - j[f"{col}_change_lo_ind"])).drop_nulls()
    return float(w.median()) if w.len() else float("nan")  # type: ignore[arg-type]


def touched(factions: list[str], changed_settings: list[str]) -> list[str]:
    """The factions a what-if change names (in an override's path), in table order."""
    return [f for f in factions
            if any(f in s.replace(": ", ".").split(".") for s in changed_settings)]
