"""The report's tables, built with polars lazy queries over a run directory's Parquet parts.

Each function returns a small polars DataFrame (one row per faction, seat, pair...) with plain
column names; report.py formats them for people and plots.py draws them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from terra_sim import storage
from terra_sim.analysis import stats
from terra_sim.analysis.files import check_footers
from terra_sim.core.errors import UserError

PLAYER_SCHEMA = storage.players_schema(())  # the columns every game's players table has
ALPHA = 0.05


@dataclass
class Run:
    """A run directory opened for reading: the manifest and lazy frames over its parts."""

    path: Path
    manifest: dict[str, Any]
    players: pl.LazyFrame
    games: pl.LazyFrame
    errors: int
    categories: list[str] = field(default_factory=list)  # scoring categories, without "vp_"

    @property
    def name(self) -> str:
        return self.path.name


def open_run(run_dir: str | Path) -> Run:
    """Open a run directory. Raises UserError when it is missing or is not a run directory."""
    path = Path(run_dir)
    if not path.exists():
        raise UserError(f"run directory {str(path)!r} does not exist")
    if not path.is_dir():
        raise UserError(f"{str(path)!r} is a file, not a run directory")
    mpath = path / "manifest.json"
    if not mpath.is_file():
        raise UserError(f"{str(path)!r} is not a run directory (no manifest.json); "
                        "give the folder that `terra-sim run` wrote")
    try:
        manifest = json.loads(mpath.read_text())
    except (OSError, ValueError) as e:
        raise UserError(f"{mpath}: cannot read the manifest ({e})") from None
    if not isinstance(manifest, dict):
        raise UserError(f"{mpath}: the manifest is not a JSON object")
    check_footers(path)
    players = storage.scan(path, "players", PLAYER_SCHEMA)
    schema = players.collect_schema()
    missing = [c for c in PLAYER_SCHEMA if c not in schema]
    if missing:
        raise UserError(f"{path / 'players'}: Parquet parts lack columns {', '.join(missing)}")
    categories = [c[3:] for c in schema.names() if c.startswith("vp_")]
    games = storage.scan(path, "games", storage.GAMES_SCHEMA)
    errs = storage.scan(path, "errors", {"game_id": pl.Int64})
    n_err = int(errs.select(pl.len()).collect().item())
    return Run(path, manifest, players, games, n_err, categories)


# --- building blocks -----------------------------------------------------------------------------


def _mean_aggs(col: str) -> list[pl.Expr]:
    return [pl.col(col).mean().alias(f"{col}_mean"), pl.col(col).std().alias(f"{col}_sd")]


def _add_t(df: pl.DataFrame, col: str, n: str = "games") -> pl.DataFrame:
    lo, hi = stats.t_interval(df[f"{col}_mean"].to_numpy(), df[f"{col}_sd"].to_numpy(),
                              df[n].to_numpy())
    return df.with_columns(pl.Series(f"{col}_lo", lo), pl.Series(f"{col}_hi", hi))


def _outcome_table(players: pl.LazyFrame, by: list[str], correction: str) -> pl.DataFrame:
    """Games, win share with Wilson interval, expected share, its edge, score test, VP, margin
    and rank with t intervals and the margin's t-test, grouped by `by`. Each measure's p-values
    are corrected across all rows of the table; `win_verdict` and `margin_verdict` say what each
    measure found and `verdict` combines them (stats.combined_verdicts)."""
    df = (
        players.group_by(by)
        .agg(
            pl.len().alias("games"),
            pl.col("win_share").sum().alias("wins"),
            (1.0 / pl.col("n_players")).sum().alias("expected_wins"),
            ((1.0 / pl.col("n_players")) * (1 - 1.0 / pl.col("n_players"))).sum()
            .alias("wins_var"),
            *_mean_aggs("vp"), *_mean_aggs("margin"), *_mean_aggs("rank"),
        )
        .sort(by)
        .collect()
    )
    wins, games = df["wins"].to_numpy(), df["games"].to_numpy()
    lo, hi = stats.wilson_interval(wins, games)
    p = stats.win_share_test(wins, df["expected_wins"].to_numpy(), df["wins_var"].to_numpy())
    padj = stats.adjust(p, correction)
    df = df.with_columns(
        (pl.col("wins") / pl.col("games")).alias("win_share"),
        pl.Series("win_lo", lo), pl.Series("win_hi", hi),
        (pl.col("expected_wins") / pl.col("games")).alias("expected_share"),
        pl.Series("p_value", p), pl.Series("p_adjusted", padj),
    )
    for col in ("vp", "margin", "rank"):
        df = _add_t(df, col)
    margin = df["margin_mean"].to_numpy()
    mp = stats.t_test_mean(margin, df["margin_sd"].to_numpy(), games)
    madj = stats.adjust(mp, correction)
    win_v = stats.verdicts(df["win_share"].to_numpy(), df["expected_share"].to_numpy(), padj,
                           ALPHA)
    margin_v = stats.verdicts(margin, np.zeros(df.height), madj, ALPHA)
    return df.with_columns(
        # The expected share is fixed by the design, so the edge's interval is the share's.
        (pl.col("win_share") - pl.col("expected_share")).alias("edge"),
        (pl.col("win_lo") - pl.col("expected_share")).alias("edge_lo"),
        (pl.col("win_hi") - pl.col("expected_share")).alias("edge_hi"),
        pl.Series("margin_p_value", mp), pl.Series("margin_p_adjusted", madj),
        pl.Series("win_verdict", win_v, dtype=pl.Utf8),
        pl.Series("margin_verdict", margin_v, dtype=pl.Utf8),
        pl.Series("verdict", stats.combined_verdicts(win_v, margin_v), dtype=pl.Utf8))


# --- tables ---------------------------------------------------------------------------------------


def faction_table(run: Run, correction: str = "holm") -> pl.DataFrame:
    """One row per faction over all player counts (expected wins: sum of 1/n over its games)."""
    return _outcome_table(run.players, ["faction"], correction)


def faction_count_table(run: Run, correction: str = "holm") -> pl.DataFrame:
    """One row per faction and player count."""
    return _outcome_table(run.players, ["n_players", "faction"], correction)


def strategy_table(run: Run, correction: str = "holm") -> pl.DataFrame:
    """One row per strategy (bot)."""
    return _outcome_table(run.players, ["strategy"], correction)


def faction_strategy_table(run: Run, correction: str = "holm") -> pl.DataFrame:
    """One row per faction and strategy, with the faction's rank by mean margin among the
    factions this strategy played, beside its overall rank: does the ordering hold per bot?"""
    df = _outcome_table(run.players, ["strategy", "faction"], correction)
    overall = (run.players.group_by("faction").agg(pl.col("margin").mean().alias("m"))
               .collect()
               .with_columns(pl.col("m").rank("min", descending=True).cast(pl.Int64)
                             .alias("overall_rank"))
               .select("faction", "overall_rank"))
    return (df.with_columns(pl.col("margin_mean").rank("min", descending=True).over("strategy")
                            .cast(pl.Int64).alias("rank_in_strategy"))
            .join(overall, on="faction", how="left"))


def ranking_agreement(fs: pl.DataFrame) -> pl.DataFrame:
    """Per strategy: Spearman correlation between its faction ordering (by margin) and the
    overall one. Near 1: the ranking holds for this bot."""
    from scipy.stats import spearmanr

    rows = []
    for strat in fs["strategy"].unique().sort().to_list():
        sub = fs.filter(pl.col("strategy") == strat)
        rho = float("nan")
        if sub.height >= 3:
            rho = float(spearmanr(sub["rank_in_strategy"].to_numpy(),
                                  sub["overall_rank"].to_numpy()).statistic)
        rows.append({"strategy": strat, "factions": sub.height,
                     "games": int(sub["games"].sum()), "spearman_rho": rho})
    return pl.DataFrame(rows, schema={"strategy": pl.Utf8, "factions": pl.Int64,
                                      "games": pl.Int64, "spearman_rho": pl.Float64})


def seat_table(run: Run, correction: str = "holm") -> pl.DataFrame:
    """Win share and margin by seat for each player count (seat 0 starts round 1)."""
    return _outcome_table(run.players, ["n_players", "seat"], correction)


def head_to_head(run: Run) -> pl.DataFrame:
    """For each ordered pair of factions that met: games together and the share of them where
    the row faction finished ahead of the column faction (a tie counts half), with a Wilson
    interval."""
    p = run.players.select("game_id", "faction", "rank")
    df = (
        p.join(p, on="game_id", suffix="_col")
        .filter(pl.col("faction") != pl.col("faction_col"))
        .with_columns(
            pl.when(pl.col("rank") < pl.col("rank_col")).then(1.0)
            .when(pl.col("rank") == pl.col("rank_col")).then(0.5)
            .otherwise(0.0).alias("ahead"))
        .group_by("faction", "faction_col")
        .agg(pl.len().alias("games"), pl.col("ahead").sum().alias("ahead"))
        .rename({"faction": "row", "faction_col": "col"})
        .sort("row", "col")
        .collect()
    )
    lo, hi = stats.wilson_interval(df["ahead"].to_numpy(), df["games"].to_numpy())
    return df.with_columns((pl.col("ahead") / pl.col("games")).alias("share"),
                           pl.Series("lo", lo), pl.Series("hi", hi))


def vp_categories(run: Run) -> pl.DataFrame:
    """Mean VP per scoring category per faction (the columns named vp_<category>)."""
    cols = [f"vp_{c}" for c in run.categories]
    return (run.players.group_by("faction")
            .agg(pl.len().alias("games"), pl.col("vp").mean().alias("vp_mean"),
                 *[pl.col(c).mean().alias(c) for c in cols])
            .sort("faction").collect())


QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def score_distribution(run: Run, by: str = "faction") -> pl.DataFrame:
    """Quantiles (5, 25, 50, 75, 95%) and mean of final VP per faction, for box plots."""
    return (run.players.group_by(by)
            .agg(pl.len().alias("games"), pl.col("vp").mean().alias("mean"),
                 *[pl.col("vp").quantile(q, "linear").alias(f"q{int(q * 100):02d}")
                   for q in QUANTILES])
            .sort(by).collect())


def game_length(run: Run) -> pl.DataFrame:
    """Per player count: games, rounds and actions (mean with t interval, and quantiles of the
    action count) and mean seconds per game."""
    df = (run.games.group_by("n_players")
          .agg(pl.len().alias("games"), pl.col("rounds").mean().alias("rounds_mean"),
               *_mean_aggs("n_actions"),
               *[pl.col("n_actions").quantile(q, "linear").alias(f"q{int(q * 100):02d}")
                 for q in QUANTILES],
               *_mean_aggs("duration_s"))
          .sort("n_players").collect())
    for col in ("n_actions", "duration_s"):
        df = _add_t(df, col)
    return df


def overview(run: Run) -> dict[str, Any]:
    """Counts the header needs, from the data itself (the manifest may be stale or partial)."""
    p = run.players
    n_games = int(p.select(pl.col("game_id").n_unique()).collect().item())
    counts = (p.group_by("n_players").agg(pl.col("game_id").n_unique().alias("games"))
              .sort("n_players").collect())
    factions = p.select(pl.col("faction").unique().sort()).collect()["faction"].to_list()
    strategies = p.select(pl.col("strategy").unique().sort()).collect()["strategy"].to_list()
    return {"games": n_games,
            "games_by_count": dict(zip(counts["n_players"].to_list(), counts["games"].to_list(),
                                       strict=True)),
            "factions": factions, "strategies": strategies, "errors": run.errors}


POWER = 0.8


def pooled_sd(sd, n) -> float:
    """The spread within groups, pooled: sqrt(sum (n_i - 1) sd_i^2 / sum (n_i - 1)); groups
    with fewer than two observations carry no spread and are left out."""
    sd, n = np.asarray(sd, float), np.asarray(n, float)
    ok = (n > 1) & np.isfinite(sd)
    dof = float((n[ok] - 1).sum())
    return float(np.sqrt(((n[ok] - 1) * sd[ok] ** 2).sum() / dof)) if dof > 0 else float("nan")


def power_table(run: Run, ft: pl.DataFrame, n_tests: int) -> pl.DataFrame:
    """What this sample can tell apart, per player count: the smallest win-share edge over 1/n
    and the smallest VP-margin shift from 0 detectable at 80% power for the median faction's
    appearances (alpha 0.05, and alpha/k as the worst case of Holm over k factions; the margin's
    spread is the factions' pooled standard deviation), and for the widest win-share interval,
    how many more games would halve it (Wilson half-width shrinks roughly as 1/sqrt(n))."""
    rows = []
    for n in sorted(ft["n_players"].unique().to_list()):
        sub = ft.filter(pl.col("n_players") == n)
        if sub.height == 0:
            continue
        games_n = int(run.players.filter(pl.col("n_players") == n)
                      .select(pl.col("game_id").n_unique()).collect().item())
        apps = float(np.median(sub["games"].to_numpy()))
        p0 = 1.0 / n
        k = max(n_tests, 1)
        half = ((sub["win_hi"] - sub["win_lo"]) / 2).to_numpy()
        i = int(np.nanargmax(half)) if np.isfinite(half).any() else 0
        widest = sub.row(i, named=True)
        hw = float(half[i])
        need = stats.n_for_half_width(float(widest["win_share"]), hw / 2)
        # Appearances grow in proportion to games, so scale the run's game count.
        more = games_n * (need / widest["games"] - 1) if np.isfinite(need) else float("nan")
        sd = pooled_sd(sub["margin_sd"].to_numpy(), sub["games"].to_numpy())
        rows.append({
            "n_players": n, "games": games_n, "median_appearances": apps,
            "expected_share": p0,
            "mdd": stats.min_detectable_difference(apps, p0, ALPHA, POWER),
            "mdd_corrected": stats.min_detectable_difference(apps, p0, ALPHA / k, POWER),
            "margin_sd": sd,
            "mdd_margin": float(stats.min_detectable_mean_difference(sd, apps, ALPHA, POWER)),
            "mdd_margin_corrected": float(stats.min_detectable_mean_difference(
                sd, apps, ALPHA / k, POWER)),
            "widest_faction": widest["faction"], "widest_half_width": hw,
            "more_games_to_halve": more,
        })
    return pl.DataFrame(rows, schema={
        "n_players": pl.Int64, "games": pl.Int64, "median_appearances": pl.Float64,
        "expected_share": pl.Float64, "mdd": pl.Float64, "mdd_corrected": pl.Float64,
        "margin_sd": pl.Float64, "mdd_margin": pl.Float64, "mdd_margin_corrected": pl.Float64,
        "widest_faction": pl.Utf8, "widest_half_width": pl.Float64,
        "more_games_to_halve": pl.Float64})


def strengths(run: Run, max_iter: int = 100) -> tuple[pl.DataFrame, stats.PlackettLuceFit | None]:
    """Plackett-Luce log-strengths (faction effect + strategy effect) with standard errors and
    95% intervals. Games whose row count disagrees with n_players are left out."""
    df = (run.players.select("game_id", "n_players", "seat", "faction", "strategy", "rank")
          .filter(pl.len().over("game_id") == pl.col("n_players"))
          .sort("game_id", "seat").collect())
    empty = pl.DataFrame(schema={"block": pl.Utf8, "name": pl.Utf8, "strength": pl.Float64,
                                 "se": pl.Float64, "lo": pl.Float64, "hi": pl.Float64})
    if df.height == 0:
        return empty, None
    factions = df["faction"].unique().sort().to_list()
    strategies = df["strategy"].unique().sort().to_list()
    names = factions + (strategies if len(strategies) > 1 else [])
    blocks = ["faction"] * len(factions) + (["strategy"] * len(strategies)
                                            if len(strategies) > 1 else [])
    k = len(names)
    fidx = df["faction"].replace_strict(factions, list(range(len(factions))),
                                        return_dtype=pl.Int64).to_numpy()
    sidx = None
    if len(strategies) > 1:
        sidx = df["strategy"].replace_strict(
            strategies, list(range(len(factions), k)), return_dtype=pl.Int64).to_numpy()
    nps = df["n_players"].to_numpy()
    ranks = df["rank"].to_numpy()
    groups = []
    for n in np.unique(nps):
        m = nps == n
        g = int(m.sum() // n)
        x = np.zeros((g * n, k))
        rows = np.arange(g * n)
        x[rows, fidx[m]] = 1.0
        if sidx is not None:
            x[rows, sidx[m]] = 1.0
        groups.append((x.reshape(g, n, k), ranks[m].reshape(g, n)))
    fit = stats.plackett_luce(groups, names, blocks, max_iter=max_iter)
    out = pl.DataFrame({"block": blocks, "name": names, "strength": fit.theta, "se": fit.se})
    return out.with_columns((pl.col("strength") - stats.Z95 * pl.col("se")).alias("lo"),
                            (pl.col("strength") + stats.Z95 * pl.col("se")).alias("hi")), fit
