"""Faction x bot interaction: does a faction's strength depend on the bot that plays it?

With no interaction, the odds that a faction wins with a bot are its faction's effect times its
bot's effect: a logistic model with the two effects is fitted to the cells' wins (maximum
likelihood by iteratively reweighted least squares), each cell's Pearson residual is tested and
flagged with the report's correction, and the sum of squared residuals is the overall test
(chi-square, (factions - 1) x (bots - 1) degrees of freedom for a full table). The agreement
scores (how well each bot's faction ordering matches the overall one) get bootstrap intervals.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl

from terra_sim.analysis import bootstrap, stats

ALPHA = 0.05


def cells(players: pl.LazyFrame) -> pl.DataFrame:
    """Per faction and bot: seats, wins, expected wins, edge and the mean margin."""
    return (players.group_by("faction", "strategy")
            .agg(pl.len().alias("games"), pl.col("win_share").sum().alias("wins"),
                 (1.0 / pl.col("n_players")).sum().alias("expected_wins"),
                 pl.col("margin").mean().alias("margin_mean"))
            .with_columns(((pl.col("wins") - pl.col("expected_wins")) / pl.col("games"))
                          .alias("edge"))
            .sort("faction", "strategy")
            .collect())


def _logistic_fit(f: np.ndarray, b: np.ndarray, wins: np.ndarray, n: np.ndarray,
                  nf: int, nb: int, rounds: int = 50) -> np.ndarray:
    """Fitted win probability of each cell under logit(p) = faction effect + bot effect, by
    maximum likelihood (IRLS; the last bot's effect is fixed at 0 so the fit is unique)."""
    x = np.zeros((len(f), nf + nb - 1))
    x[np.arange(len(f)), f] = 1.0
    other = b < nb - 1
    x[np.arange(len(f))[other], nf + b[other]] = 1.0
    share = np.clip(wins / n, 0.005, 0.995)
    eta = np.log(share / (1 - share))
    beta = np.linalg.lstsq(x, eta, rcond=None)[0]
    for _ in range(rounds):
        eta = np.clip(x @ beta, -30, 30)
        p = 1 / (1 + np.exp(-eta))
        w = np.maximum(n * p * (1 - p), 1e-12)
        z = eta + (wins - n * p) / w
        new = np.linalg.lstsq(x * np.sqrt(w)[:, None], z * np.sqrt(w), rcond=None)[0]
        done = np.allclose(new, beta, atol=1e-10)
        beta = new
        if done:
            break
    return 1 / (1 + np.exp(-np.clip(x @ beta, -30, 30)))


def interaction(players: pl.LazyFrame, correction: str = "holm") -> tuple[pl.DataFrame, dict]:
    """The cells with their expected edge under no interaction, residual, z, adjusted p and
    flag, and the bot's mean edge; plus the overall test {"chi2", "df", "p_value", "cells"}."""
    from scipy.stats import chi2

    df = cells(players)
    factions = sorted(df["faction"].unique().to_list())
    bots = sorted(df["strategy"].unique().to_list())
    f = np.array([factions.index(x) for x in df["faction"].to_list()], dtype=np.int64)
    b = np.array([bots.index(x) for x in df["strategy"].to_list()], dtype=np.int64)
    n = df["games"].to_numpy().astype(float)
    y = df["edge"].to_numpy()
    wins = df["wins"].to_numpy()
    p_fit = _logistic_fit(f, b, wins, n, len(factions), len(bots))
    fitted = p_fit - df["expected_wins"].to_numpy() / n
    z = (wins - n * p_fit) / np.sqrt(np.maximum(n * p_fit * (1 - p_fit), 1e-12))
    from scipy.stats import norm

    p = 2 * norm.sf(np.abs(z))
    adj = stats.adjust(p, correction)
    dof = max(df.height - len(factions) - len(bots) + 1, 0)
    test = {"chi2": float(np.sum(z ** 2)), "df": dof, "cells": df.height,
            "p_value": float(chi2.sf(np.sum(z ** 2), dof)) if dof else float("nan")}
    bot_mean = (df.group_by("strategy")
                .agg(((pl.col("wins").sum() - pl.col("expected_wins").sum())
                      / pl.col("games").sum()).alias("bot_edge")))
    out = df.with_columns(
        pl.Series("expected_edge", fitted), pl.Series("residual", y - fitted),
        pl.Series("z", z), pl.Series("p_adjusted", adj),
        pl.Series("stands_out", adj < ALPHA),
    ).join(bot_mean, on="strategy").with_columns(
        (pl.col("edge") - pl.col("bot_edge")).alias("relative_to_bot"))
    return out.sort("faction", "strategy"), test


def relative_grid(cells_df: pl.DataFrame) -> pl.DataFrame:
    """Factions down, bots across: each cell's edge over its bot's mean, in pp, with a * where
    the cell stands out from the no-interaction fit."""
    shown = cells_df.with_columns(
        pl.struct("relative_to_bot", "stands_out").map_elements(
            lambda r: f"{100 * r['relative_to_bot']:+.1f}" + (" *" if r["stands_out"] else ""),
            return_dtype=pl.Utf8).alias("cell"))
    return (shown.pivot(on="strategy", index="faction", values="cell")
            .sort("faction").fill_null("-"))


def agreement_intervals(players: pl.LazyFrame, reps: int = 500,
                        seed: int = 0) -> tuple[pl.DataFrame, str]:
    """Per bot: Spearman correlation between the factions' order by mean margin with this bot
    and overall, and its 95% bootstrap interval (whole games resampled)."""
    from scipy.stats import rankdata

    sums, units, n_games = bootstrap.unit_sums(
        players, ["strategy", "faction"], [pl.len().alias("n"), pl.col("margin").sum().alias("m")])
    factions = sorted(sums["faction"].unique().to_list())
    bots = sorted(sums["strategy"].unique().to_list())
    schema = {"strategy": pl.Utf8, "factions": pl.Int64, "spearman_rho": pl.Float64,
              "rho_lo": pl.Float64, "rho_hi": pl.Float64}
    if units == 0:
        return pl.DataFrame(schema=schema), ""
    nf, nb = len(factions), len(bots)
    n = np.zeros((units, nb, nf))
    m = np.zeros((units, nb, nf))
    u = sums["unit"].to_numpy()
    bi = np.array([bots.index(x) for x in sums["strategy"].to_list()], dtype=np.int64)
    fi = np.array([factions.index(x) for x in sums["faction"].to_list()], dtype=np.int64)
    n[u, bi, fi], m[u, bi, fi] = sums["n"].to_numpy(), sums["m"].to_numpy()

    def rhos(tn: np.ndarray, tm: np.ndarray) -> np.ndarray:
        """Spearman rho per bot from total seats and margins (bots x factions)."""
        overall = tm.sum(0) / np.maximum(tn.sum(0), 1)
        out = np.full(nb, np.nan)
        for k in range(nb):
            seen = tn[k] > 0
            if seen.sum() >= 3:
                rx = rankdata(-(tm[k, seen] / tn[k, seen]))
                ry = rankdata(-overall[seen])
                out[k] = np.corrcoef(rx, ry)[0, 1] if rx.std() and ry.std() else np.nan
        return out

    point = rhos(n.sum(0), m.sum(0))
    flat_n, flat_m = n.reshape(units, -1), m.reshape(units, -1)
    draws = []
    for counts in bootstrap.resamples(units, reps, seed):
        tn, tm = counts @ flat_n, counts @ flat_m
        draws += [rhos(tn[i].reshape(nb, nf), tm[i].reshape(nb, nf)) for i in range(len(tn))]
    boot = np.array(draws)
    with warnings.catch_warnings():  # a bot with under three factions has no rho: NaN, quietly
        warnings.simplefilter("ignore", RuntimeWarning)
        lo = np.nanpercentile(boot, 2.5, axis=0) if len(boot) else np.full(nb, np.nan)
        hi = np.nanpercentile(boot, 97.5, axis=0) if len(boot) else np.full(nb, np.nan)
    counts_f = (n.sum(0) > 0).sum(1)
    table = pl.DataFrame({"strategy": bots, "factions": counts_f.astype(np.int64),
                          "spearman_rho": point, "rho_lo": lo, "rho_hi": hi}, schema=schema)
    return table.fill_nan(None), bootstrap.describe(reps, units, n_games, seed)
