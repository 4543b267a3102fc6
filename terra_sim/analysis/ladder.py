"""Does the faction ranking still move as the bots get stronger? The statistics of a ladder: one
plan of games played at rising bot strength (rungs, weakest first), so that game i of every
rung deals the same factions to the same seats from the same setup seed.

Per rung, each faction's strength is its mean VP margin (the measure the report ranks by), with
a bootstrap interval and a rank interval, and its margin verdict as the report gives it (a
t-test against 0, Holm-corrected across the rung's factions). Between rungs, Spearman's rank
correlation of the factions' margins says how much the order moved. Its interval comes from
resampling game numbers jointly across the rungs: game i of one rung and game i of the next
share a deal, so they enter or leave a resample together, and the deal's luck, common to both,
does not widen the interval. It leans low: noise in the margins pulls a rank correlation
toward 0 and each resample adds its own, so the resamples' rho sits below the estimate, and a
percentile interval with it. "Settled" (its lower bound at SETTLED_RHO or more) is therefore a
cautious verdict. (A bias-corrected percentile interval moves it up, but where the resamples
sit far below the estimate it shrinks to their top few percent: too sure to settle on.)

Everything here reads players tables (game_id, seat, n_players, faction, margin) as polars
frames, one per rung, and knows no game.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from terra_sim.analysis import bootstrap, stats
from terra_sim.analysis.tables import ALPHA
from terra_sim.core.errors import UserError

# The top two rungs' rho interval must reach this high for the ranking to count as settled:
# at 0.8 the stronger bots may still swap neighbours, but no faction moves far.
SETTLED_RHO = 0.8
MIN_FACTIONS = 3  # a rank correlation over two factions is +1 or -1 whatever they did
CORRECTION = "holm"  # the report's default, so that a rung's verdicts are its report's

Frame = pl.DataFrame | pl.LazyFrame

_FACTION_SCHEMA = {"rung": pl.Utf8, "step": pl.Int64, "faction": pl.Utf8, "games": pl.Int64,
                   "margin": pl.Float64, "margin_lo": pl.Float64, "margin_hi": pl.Float64,
                   "rank": pl.Int64, "rank_lo": pl.Int64, "rank_hi": pl.Int64,
                   "verdict": pl.Utf8}


@dataclass
class Ladder:
    """What a ladder found. `factions`: a row per rung and faction (step 1 is the weakest
    rung). `correlations`: a row per pair of consecutive rungs, the top two marked. `changes`:
    the factions whose verdict differs between consecutive rungs."""

    rungs: list[str]
    games: int  # game numbers finished in every rung: the games analysed
    factions: pl.DataFrame
    correlations: pl.DataFrame
    changes: pl.DataFrame
    settled: bool
    conclusion: str
    method: str  # how the games were resampled


def common_games(players: Mapping[str, Frame]) -> pl.Series:
    """The game numbers every rung finished, sorted: a game lost to an error in one rung has no
    pair there, so it is left out of all of them."""
    common: pl.LazyFrame | None = None
    for frame in players.values():
        ids = frame.lazy().select(pl.col("game_id").cast(pl.Int64).unique())
        common = ids if common is None else common.join(ids, on="game_id", how="semi")
    if common is None:
        return pl.Series("game_id", [], dtype=pl.Int64)
    return common.collect()["game_id"].sort()


def check_shared_deals(players: Mapping[str, Frame], games: Mapping[str, Frame]) -> None:
    """Raise UserError unless every game number that two rungs both finished seats the same
    factions in the same seats, at the same player count, from the same setup seed."""
    names = list(players)
    first = names[0]
    seats = players[first].lazy().select("game_id", "seat", "n_players",
                                         pl.col("faction").cast(pl.Utf8))
    seeds = games[first].lazy().select("game_id", "seed")
    for other in names[1:]:
        clash = (seats.join(players[other].lazy().select(
                    "game_id", "seat", "n_players", pl.col("faction").cast(pl.Utf8)),
                    on=["game_id", "seat"], suffix="_b")
                 .filter((pl.col("faction") != pl.col("faction_b"))
                         | (pl.col("n_players") != pl.col("n_players_b")))
                 .sort("game_id", "seat").head(1).collect())
        if clash.height:
            r = clash.row(0, named=True)
            raise UserError(f"rungs {first!r} and {other!r} do not share deals: game "
                            f"{r['game_id']} seats {r['faction']} ({r['n_players']} players) in "
                            f"seat {r['seat']} in one and {r['faction_b']} "
                            f"({r['n_players_b']} players) in the other")
        clash = (seeds.join(games[other].lazy().select("game_id", "seed"), on="game_id",
                            suffix="_b")
                 .filter(pl.col("seed") != pl.col("seed_b")).sort("game_id").head(1).collect())
        if clash.height:
            raise UserError(f"rungs {first!r} and {other!r} do not share deals: game "
                            f"{clash['game_id'][0]} has setup seed {clash['seed'][0]} in one "
                            f"and {clash['seed_b'][0]} in the other")


def spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho between the rows of x and y (resamples x factions), over the factions
    both rows have (not NaN): the correlation of their ranks, ties sharing the average rank.
    NaN where fewer than MIN_FACTIONS remain or either row has no spread."""
    x, y = np.atleast_2d(x), np.atleast_2d(y)
    out = np.full(len(x), np.nan)
    seen = np.isfinite(x) & np.isfinite(y)
    full = seen.all(axis=1)
    if full.any():
        out[full] = _rank_correlation(x[full], y[full])
    for i in np.flatnonzero(~full):  # a faction missing from a resample: rare, so row by row
        out[i] = _rank_correlation(x[i, seen[i]][None], y[i, seen[i]][None])[0]
    return out


def _rank_correlation(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    if x.shape[1] < MIN_FACTIONS:
        return np.full(len(x), np.nan)
    rx = rankdata(x, axis=1)
    ry = rankdata(y, axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    scale = np.sqrt((rx ** 2).sum(axis=1) * (ry ** 2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(scale > 0, (rx * ry).sum(axis=1) / scale, np.nan)


def conclusion(rho: float, lo: float, hi: float) -> tuple[bool, str]:
    """Whether the top two rungs agree, in one line: settled when the lower bound of their
    rho's interval reaches SETTLED_RHO."""
    if math.isfinite(lo) and lo >= SETTLED_RHO:
        return True, (f"the ranking has settled (top two rungs agree, Spearman rho = "
                      f"{rho:.2f} [{lo:.2f}, {hi:.2f}])")
    if not math.isfinite(rho):
        measured = (f"the top two rungs' Spearman rho is undefined: fewer than {MIN_FACTIONS} "
                    "factions, or no spread in their margins")
    else:
        measured = (f"top two rungs: Spearman rho = {rho:.2f} [{lo:.2f}, {hi:.2f}], lower bound "
                    f"below {SETTLED_RHO}")
        if rho >= SETTLED_RHO:  # then the sample, not the bots, may be what falls short
            measured += ("; the estimate clears it: more games per rung may settle it (the "
                         "same command with a larger --games plays only the new games)")
    return False, f"still moving: stronger bots are needed before trusting it ({measured})"


def analyse(players: Mapping[str, Frame], reps: int = bootstrap.REPS,
            seed: int = 0) -> Ladder:
    """The ladder's tables from each rung's players table (rungs in order, weakest first), over
    the games every rung finished. `reps` bootstrap resamples seeded by `seed`, shared by
    all rungs. Raises UserError with fewer than two rungs or no game common to them."""
    rungs = list(players)
    if len(rungs) < 2:
        raise UserError(f"a ladder compares at least 2 rungs, got {len(rungs)}")
    ids = common_games(players)
    if ids.is_empty():
        raise UserError(f"no game number was finished in every rung ({', '.join(rungs)}): "
                        "nothing to compare")
    keep = ids.to_frame().lazy()
    frames = {r: f.lazy().select(pl.col("game_id").cast(pl.Int64),
                                 pl.col("faction").cast(pl.Utf8), "margin")
              .join(keep, on="game_id", how="semi") for r, f in players.items()}
    factions = sorted(set().union(*(set(f.select(pl.col("faction").unique()).collect()
                                        ["faction"].to_list()) for f in frames.values())))
    index = {f: i for i, f in enumerate(factions)}

    # Every rung's per-game sums on the same units (the same game numbers, folded the same
    # way), so that one row of draws resamples the same games in every rung.
    units, n_games = min(len(ids), bootstrap.MAX_UNITS), len(ids)
    sums = {}
    for r, frame in frames.items():
        s, _, _ = bootstrap.unit_sums(
            frame, ["faction"], [pl.len().alias("n"), pl.col("margin").sum().alias("m")])
        n, m = np.zeros((units, len(factions))), np.zeros((units, len(factions)))
        u = s["unit"].to_numpy()
        fi = np.array([index[f] for f in s["faction"].to_list()], dtype=np.int64)
        n[u, fi], m[u, fi] = s["n"].to_numpy(), s["m"].to_numpy()
        sums[r] = (n, m)
    draws: dict[str, list[np.ndarray]] = {r: [] for r in rungs}
    for counts in bootstrap.resamples(units, reps, seed):
        for r, (n, m) in sums.items():
            tn, tm = counts @ n, counts @ m
            with np.errstate(invalid="ignore", divide="ignore"):
                draws[r].append(np.where(tn > 0, tm / tn, np.nan))  # unseen in a resample: NaN
    margins = {r: np.concatenate(d) for r, d in draws.items()}

    rows, points = [], {}
    for step, r in enumerate(rungs, start=1):
        point, table = _rung(r, step, frames[r], factions, margins[r])
        rows.append(table)
        points[r] = point
    faction_table = pl.concat(rows)

    pairs: list[dict[str, Any]] = []
    for k, (a, b) in enumerate(zip(rungs, rungs[1:], strict=False)):
        rho = float(spearman(points[a], points[b])[0])
        lo, hi = _percentiles(spearman(margins[a], margins[b]))
        both = int((np.isfinite(points[a]) & np.isfinite(points[b])).sum())
        pairs.append({"rung_a": a, "rung_b": b, "factions": both, "rho": rho, "rho_lo": lo,
                      "rho_hi": hi, "top_two": k == len(rungs) - 2})
    correlations = pl.DataFrame(pairs, schema={
        "rung_a": pl.Utf8, "rung_b": pl.Utf8, "factions": pl.Int64, "rho": pl.Float64,
        "rho_lo": pl.Float64, "rho_hi": pl.Float64, "top_two": pl.Boolean})
    top = pairs[-1]
    settled, line = conclusion(top["rho"], top["rho_lo"], top["rho_hi"])
    how = (bootstrap.describe(reps, units, n_games, seed)
           + ", the same draws for every rung (game i of every rung is drawn together)")
    return Ladder(rungs, len(ids), faction_table, correlations.fill_nan(None),
                  verdict_changes(faction_table), settled, line, how)


def _percentiles(draws: np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval of the finite draws (NaN where none is)."""
    if not np.isfinite(draws).any():
        return math.nan, math.nan
    lo, hi = np.nanpercentile(draws, [2.5, 97.5])
    return float(lo), float(hi)


def _rung(name: str, step: int, frame: pl.LazyFrame, factions: list[str],
          draws: np.ndarray) -> tuple[np.ndarray, pl.DataFrame]:
    """One rung's factions: mean margin (its bootstrap interval), rank by it (1 = strongest,
    its bootstrap interval) and the margin verdict. Also the margins as an array in `factions`
    order, NaN for a faction the rung never played."""
    s = (frame.group_by("faction")
         .agg(pl.len().alias("games"), pl.col("margin").mean().alias("margin"),
              pl.col("margin").std().alias("sd"))
         .collect())
    got = {r["faction"]: r for r in s.iter_rows(named=True)}
    played = [f for f in factions if f in got]
    point = np.array([got[f]["margin"] if f in got else np.nan for f in factions])
    games = np.array([got[f]["games"] for f in played], dtype=float)
    mean = np.array([got[f]["margin"] for f in played])
    sd = np.array([np.nan if got[f]["sd"] is None else got[f]["sd"] for f in played])
    p = stats.t_test_mean(mean, sd, games)
    verdicts = stats.verdicts(mean, np.zeros(len(played)), stats.adjust(p, CORRECTION), ALPHA)

    # Ranks within each resample, strongest first; a faction a resample missed comes last.
    edge = np.where(np.isnan(draws), -np.inf, draws)
    order = np.argsort(-edge, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, len(factions) + 1)[None, :], axis=1)
    ranking = sorted(played, key=lambda f: (-got[f]["margin"], f))
    with warnings.catch_warnings():  # a faction this rung never played: NaN bounds, quietly
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = np.nanpercentile(draws, [2.5, 97.5], axis=0)
    rows = []
    for f, v in zip(played, verdicts, strict=True):
        i = factions.index(f)
        rows.append({
            "rung": name, "step": step, "faction": f, "games": got[f]["games"],
            "margin": got[f]["margin"], "margin_lo": float(lo[i]), "margin_hi": float(hi[i]),
            "rank": ranking.index(f) + 1,
            "rank_lo": int(np.percentile(ranks[:, i], 2.5, method="lower")),
            "rank_hi": int(np.percentile(ranks[:, i], 97.5, method="higher")),
            "verdict": v})
    table = pl.DataFrame(rows, schema=_FACTION_SCHEMA).sort("rank")
    return point, table


def verdict_changes(factions: pl.DataFrame) -> pl.DataFrame:
    """The factions whose verdict differs between two consecutive rungs: a row per faction and
    pair of rungs, in ladder order."""
    by = {(r["step"], r["faction"]): r for r in factions.iter_rows(named=True)}
    steps = sorted({s for s, _ in by})
    rows = []
    for a, b in zip(steps, steps[1:], strict=False):
        for f in sorted({f for s, f in by if s == a}):
            ra, rb = by[(a, f)], by.get((b, f))
            if rb is not None and ra["verdict"] != rb["verdict"]:
                rows.append({"faction": f, "rung_a": ra["rung"], "rung_b": rb["rung"],
                             "verdict_a": ra["verdict"], "verdict_b": rb["verdict"]})
    return pl.DataFrame(rows, schema={c: pl.Utf8 for c in
                                      ("faction", "rung_a", "rung_b", "verdict_a", "verdict_b")})
