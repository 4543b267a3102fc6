"""Which factions differ from which, and how sure the ranking is.

Strength here is a faction's mean VP margin, the measure the report sorts factions by (the more
precise of its two measures). Pairwise tests of the means, corrected across all pairs, group the
factions into tiers; a bootstrap that resamples whole games gives each faction's rank interval
and how often it comes first or last.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import polars as pl

from terra_sim.analysis import bootstrap, stats

ALPHA = 0.05


def margins(players: pl.LazyFrame) -> pl.DataFrame:
    """Per faction, strongest first: appearances, mean VP margin and its standard error."""
    return (players.group_by("faction")
            .agg(pl.len().alias("games"), pl.col("margin").mean().alias("margin_mean"),
                 (pl.col("margin").std() / pl.len().sqrt()).alias("margin_se"))
            .with_columns(pl.col("margin_se").fill_null(0.0))
            .sort(["margin_mean", "faction"], descending=[True, False])
            .collect())


def pairwise(ed: pl.DataFrame, correction: str = "holm") -> pl.DataFrame:
    """Every pair of factions (stronger first): the difference of their mean margins with a
    95% normal interval and z-test (independent-samples variance), p adjusted across all
    pairs."""
    rows = list(ed.iter_rows(named=True))
    pairs = list(combinations(range(len(rows)), 2))
    if not pairs:
        return pl.DataFrame(schema={"faction": pl.Utf8, "other": pl.Utf8, "difference": pl.Float64,
                                    "lo": pl.Float64, "hi": pl.Float64, "p_value": pl.Float64,
                                    "p_adjusted": pl.Float64, "differ": pl.Boolean})
    a = np.array([rows[i]["margin_mean"] for i, _ in pairs])
    b = np.array([rows[j]["margin_mean"] for _, j in pairs])
    se = np.sqrt(np.array([rows[i]["margin_se"] ** 2 + rows[j]["margin_se"] ** 2
                           for i, j in pairs]))
    from scipy.stats import norm

    d = a - b
    z = stats.Z95
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(se > 0, 2 * norm.sf(np.abs(d) / se), np.where(d == 0, 1.0, 0.0))
    adj = stats.adjust(p, correction)
    return pl.DataFrame({
        "faction": [rows[i]["faction"] for i, _ in pairs],
        "other": [rows[j]["faction"] for _, j in pairs],
        "difference": d, "lo": d - z * se, "hi": d + z * se,
        "p_value": p, "p_adjusted": adj, "differ": adj < ALPHA,
    })


def tiers(ed: pl.DataFrame, pw: pl.DataFrame) -> pl.DataFrame:
    """Tiers from the strongest down: a faction joins the current tier when the pairwise test
    cannot tell it from the tier's strongest faction, and starts the next tier when it can."""
    differ = {(r["faction"], r["other"]): r["differ"] for r in pw.iter_rows(named=True)}
    out = []
    tier, leader = 0, None
    for f in ed["faction"].to_list():
        if leader is None or differ.get((leader, f), differ.get((f, leader), False)):
            tier, leader = tier + 1, f
        out.append({"faction": f, "tier": tier, "tier_leader": leader})
    return pl.DataFrame(out, schema={"faction": pl.Utf8, "tier": pl.Int64,
                                     "tier_leader": pl.Utf8})


def bootstrap_ranks(players: pl.LazyFrame, reps: int = bootstrap.REPS,
                    seed: int = 0) -> tuple[pl.DataFrame, str]:
    """Each faction's 95% rank interval by mean margin (1 = strongest), median rank and the
    share of resamples in which it ranks first and last, from `reps` resamples of whole games.
    Returns the table and a sentence saying how it was resampled."""
    sums, units, n_games = bootstrap.unit_sums(
        players, ["faction"], [pl.len().alias("n"), pl.col("margin").sum().alias("m")])
    if units == 0:
        return pl.DataFrame(schema={"faction": pl.Utf8, "rank_median": pl.Float64,
                                    "rank_lo": pl.Int64, "rank_hi": pl.Int64,
                                    "first_share": pl.Float64, "last_share": pl.Float64}), ""
    factions = sorted(sums["faction"].unique().to_list())
    index = {f: i for i, f in enumerate(factions)}
    shape = (units, len(factions))
    n, m = np.zeros(shape), np.zeros(shape)
    u = sums["unit"].to_numpy()
    fi = np.array([index[f] for f in sums["faction"].to_list()], dtype=np.int64)
    n[u, fi], m[u, fi] = sums["n"].to_numpy(), sums["m"].to_numpy()
    batches = []
    for counts in bootstrap.resamples(units, reps, seed):
        tn, tm = counts @ n, counts @ m
        with np.errstate(invalid="ignore", divide="ignore"):
            edge = np.where(tn > 0, tm / tn, -np.inf)  # unseen in a resample: last
        order = np.argsort(-edge, axis=1, kind="stable")
        r = np.empty_like(order)
        np.put_along_axis(r, order, np.arange(1, len(factions) + 1)[None, :], axis=1)
        batches.append(r)
    ranks = np.concatenate(batches)
    table = pl.DataFrame({
        "faction": factions,
        "rank_median": np.median(ranks, axis=0),
        "rank_lo": np.percentile(ranks, 2.5, axis=0, method="lower").astype(np.int64),
        "rank_hi": np.percentile(ranks, 97.5, axis=0, method="higher").astype(np.int64),
        "first_share": (ranks == 1).mean(axis=0),
        "last_share": (ranks == len(factions)).mean(axis=0),
    }).sort(["rank_median", "faction"])
    return table, bootstrap.describe(reps, units, n_games, seed)


def ranking_sentence(boot: pl.DataFrame) -> str:
    """How sure the top of the ranking is, in words."""
    if boot.height == 0:
        return ""
    top = boot.sort("first_share", descending=True).row(0, named=True)
    bottom = boot.sort("last_share", descending=True).row(0, named=True)
    return (f"{top['faction']} is first in {100 * top['first_share']:.1f}% of resamples; "
            f"{bottom['faction']} is last in {100 * bottom['last_share']:.1f}%.")
