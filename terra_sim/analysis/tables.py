"""The report's tables, built with polars from one read of a run directory's Parquet parts.

`open_run` reads the parts' footers; the players table is then read once, on first use, into a
compact in-memory frame (`Run.frame`), and every table is an aggregation of that frame in polars
(or of arrays drawn from it once, for head to head and Plackett-Luce). A run opened with
`in_memory=False` is never read whole: each table is a streaming query over the parts that
keeps only its aggregate, for readers that ask few tables of big runs (compare.py). Each
function returns a small polars DataFrame (one row per faction, seat, pair...) with plain column
names; report.py formats them for people and plots.py draws them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from terra_sim.analysis import stats
from terra_sim.analysis.files import check_footers
from terra_sim.core.errors import UserError
from terra_sim.store import compaction, rundir, runlock, schema

PLAYER_SCHEMA = schema.players_schema(())  # the columns every game's players table has
ALPHA = 0.05

# How the players table is kept in memory: names as categoricals and small integers in small
# types. Every cast is lossless or fails loudly (a strict cast raises on a value that does not
# fit); ranks, win shares and margins stay 64-bit floats.
COMPACT: dict[str, Any] = {"n_players": pl.UInt8, "seat": pl.UInt8, "faction": pl.Categorical,
                           "strategy": pl.Categorical, "vp": pl.Int32}
CATEGORY_DTYPE = pl.Int32  # the vp_<category> columns


def _compact(schema: pl.Schema) -> dict[str, Any]:
    return {c: COMPACT.get(c, CATEGORY_DTYPE) for c in schema.names()
            if c in COMPACT or c.startswith("vp_")}


@dataclass
class Finishes:
    """Every complete game (one players row per player, all of one player count) as arrays, a
    row per game and a block per player count: each player's faction and strategy as indices
    into the sorted names, and its rank. Head to head and Plackett-Luce read these."""

    factions: list[str]
    strategies: list[str]
    blocks: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]  # n -> faction, strategy, rank
    rest: pl.DataFrame  # the players rows of incomplete games (game_id, faction, rank)


@dataclass
class Run:
    """A run directory opened for reading: the manifest, lazy frames over its parts, and (once
    read, when `in_memory`) its players table in memory."""

    path: Path
    manifest: dict[str, Any]
    parts: pl.LazyFrame  # the players parts as stored (or a filter of them), read by `frame`
    games: pl.LazyFrame
    errors: int
    categories: list[str] = field(default_factory=list)  # scoring categories, without "vp_"
    chunks: int = 0  # part files per table
    # Whether queries read the players table kept in memory (read once: the report asks many)
    # or stream the parts each time, keeping only their aggregates (a few queries of big runs).
    in_memory: bool = True
    # Read on first use; dataclasses.replace(run, parts=...) gives a run that reads its own.
    _schema: pl.Schema | None = field(default=None, init=False, repr=False)
    _frame: pl.DataFrame | None = field(default=None, init=False, repr=False)
    _finishes: Finishes | None = field(default=None, init=False, repr=False)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def schema(self) -> pl.Schema:
        """The players table's columns and types as stored in the parts."""
        if self._schema is None:
            self._schema = self.parts.collect_schema()
        return self._schema

    @property
    def frame(self) -> pl.DataFrame:
        """The players table in memory, in the compact types of COMPACT: read from the parts
        once, by the streaming engine, on first use."""
        if self._frame is None:
            cast = _compact(self.schema)
            self._frame = (self.parts.with_columns(*[pl.col(c).cast(t) for c, t in cast.items()])
                           .collect(engine="streaming"))
        return self._frame

    def _view(self, names: bool) -> pl.LazyFrame:
        if not self.in_memory:
            return self.parts
        schema = self.schema
        keep = {"faction", "strategy"} if not names else set()
        return self.frame.lazy().with_columns(
            *[pl.col(c).cast(schema[c]) for c in _compact(schema) if c not in keep])

    @property
    def players(self) -> pl.LazyFrame:
        """The players table with the types of its parts, served from `frame` (the parts are
        not read again), or straight from the parts when not `in_memory`."""
        return self._view(names=True)

    @property
    def aggregable(self) -> pl.LazyFrame:
        """`players` with faction and strategy still categorical: what this module groups by
        (group keys go back to text once aggregated, by `_named`)."""
        return self._view(names=False)

    @property
    def finishes(self) -> Finishes:
        if self._finishes is None:
            self._finishes = _finishes(self.frame)
        return self._finishes


def open_run(run_dir: str | Path, in_memory: bool = True) -> Run:
    """Open a run directory (`in_memory`: see Run). Raises UserError when it is missing or is
    not a run directory."""
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
    if rundir.compacting(path):
        _finish_compaction(path)
    check_footers(path)
    players = rundir.scan(path, "players", PLAYER_SCHEMA)
    found = players.collect_schema()
    missing = [c for c in PLAYER_SCHEMA if c not in found]
    if missing:
        raise UserError(f"{path / 'players'}: Parquet parts lack columns {', '.join(missing)}")
    categories = [c[3:] for c in found.names() if c.startswith("vp_")]
    games = rundir.scan(path, "games", schema.GAMES_SCHEMA)
    errs = rundir.scan(path, "errors", {"game_id": pl.Int64})
    n_err = int(errs.select(pl.len()).collect().item())
    chunks = len(list((path / schema.COMMIT_TABLE).glob("*.parquet")))
    return Run(path, manifest, players, games, n_err, categories, chunks, in_memory)


MANY_CHUNKS = 5_000  # reading this many part files per table takes seconds of the report


def reading_note(run: Run) -> str:
    """What to say while the run is read: how to make it faster when it has many small parts
    (a run compacts itself when it ends; an older or interrupted one may not have)."""
    if run.chunks <= MANY_CHUNKS:
        return ""
    return (f" ({run.chunks:,} part files per table; `terra-sim compact {run.path}` merges them "
            "and makes reading much faster)")


def _finish_compaction(path: Path) -> None:
    """Finish a compaction that was interrupted, when the run is free and writable; otherwise
    reading the run says why it cannot be read yet."""
    try:
        with runlock.RunLock(path):
            compaction.finish_compaction(path)
    except (UserError, OSError):
        pass


def _named(df: pl.DataFrame, run: Run, by: list[str]) -> pl.DataFrame:
    """Group keys back in the parts' types (text for names), sorted by them."""
    schema = run.schema
    return df.with_columns(*[pl.col(c).cast(schema[c]) for c in by]).sort(by)


def _codes(col: pl.Series) -> tuple[np.ndarray, list[str]]:
    """Each value's index into the sorted distinct values (small integers), and those values."""
    names = sorted(col.unique().cast(pl.String).to_list())
    return col.cast(pl.Enum(names)).to_physical().to_numpy(), names


def _finishes(frame: pl.DataFrame) -> Finishes:
    ids = frame["game_id"]
    order = None if ids.is_sorted() else ids.arg_sort().to_numpy()

    def arr(col: str | np.ndarray) -> np.ndarray:
        a = frame[col].to_numpy() if isinstance(col, str) else col
        return a if order is None else a[order]

    gid, nps = arr("game_id"), arr("n_players")
    rows = len(gid)
    if rows == 0:
        return Finishes([], [], {}, frame.select("game_id", pl.col("faction").cast(pl.String),
                                                "rank"))
    starts = np.flatnonzero(np.r_[True, gid[1:] != gid[:-1]])
    length = np.diff(np.r_[starts, rows])
    # A game is complete when it has as many rows as players and one player count throughout.
    ok = ((length == nps[starts])
          & (np.minimum.reduceat(nps, starts) == np.maximum.reduceat(nps, starts)))
    complete = np.repeat(ok, length)
    del gid, starts, length, ok
    fcode, factions = _codes(frame["faction"])
    scode, strategies = _codes(frame["strategy"])
    fcode, scode, rank = arr(fcode), arr(scode), arr("rank")
    # The names of the complete games only: a faction seen only in a broken game has no effect.
    fkeep, skeep = np.unique(fcode[complete]), np.unique(scode[complete])
    fmap, smap = np.zeros(len(factions), np.int32), np.zeros(len(strategies), np.int32)
    fmap[fkeep], smap[skeep] = np.arange(fkeep.size), np.arange(skeep.size)
    blocks = {}
    for n in np.unique(nps[complete]).tolist():
        m = complete & (nps == n)
        blocks[int(n)] = (fmap[fcode[m]].reshape(-1, n), smap[scode[m]].reshape(-1, n),
                          rank[m].reshape(-1, n))
    broken = np.zeros(rows, dtype=bool)
    if order is None:
        broken = ~complete
    else:
        broken[order] = ~complete
    rest = (frame.filter(pl.Series(broken))
            .select("game_id", pl.col("faction").cast(pl.String), "rank"))
    return Finishes([factions[i] for i in fkeep], [strategies[i] for i in skeep], blocks, rest)


# --- building blocks -----------------------------------------------------------------------------


def _mean_aggs(col: str) -> list[pl.Expr]:
    return [pl.col(col).mean().alias(f"{col}_mean"), pl.col(col).std().alias(f"{col}_sd")]


def _add_t(df: pl.DataFrame, col: str, n: str = "games") -> pl.DataFrame:
    lo, hi = stats.t_interval(df[f"{col}_mean"].to_numpy(), df[f"{col}_sd"].to_numpy(),
                              df[n].to_numpy())
    return df.with_columns(pl.Series(f"{col}_lo", lo), pl.Series(f"{col}_hi", hi))


def _outcome_table(run: Run, by: list[str], correction: str) -> pl.DataFrame:
    """Games, win share with Wilson interval, expected share, its edge, score test, VP, margin
    and rank with t intervals and the margin's t-test, grouped by `by`. Each measure's p-values
    are corrected across all rows of the table; `win_verdict` and `margin_verdict` say what each
    measure found and `verdict` combines them (stats.combined_verdicts)."""
    df = _named(
        run.aggregable.group_by(by)
        .agg(
            pl.len().alias("games"),
            pl.col("win_share").sum().alias("wins"),
            (1.0 / pl.col("n_players")).sum().alias("expected_wins"),
            ((1.0 / pl.col("n_players")) * (1 - 1.0 / pl.col("n_players"))).sum()
            .alias("wins_var"),
            *_mean_aggs("vp"), *_mean_aggs("margin"), *_mean_aggs("rank"),
        )
        .collect(), run, by)
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
    return _outcome_table(run, ["faction"], correction)


def faction_count_table(run: Run, correction: str = "holm") -> pl.DataFrame:
    """One row per faction and player count."""
    return _outcome_table(run, ["n_players", "faction"], correction)


def strategy_table(run: Run, correction: str = "holm") -> pl.DataFrame:
    """One row per strategy (bot)."""
    return _outcome_table(run, ["strategy"], correction)


def faction_strategy_table(run: Run, correction: str = "holm") -> pl.DataFrame:
    """One row per faction and strategy, with the faction's rank by mean margin among the
    factions this strategy played, beside its overall rank: does the ordering hold per bot?"""
    df = _outcome_table(run, ["strategy", "faction"], correction)
    overall = (_named(run.aggregable.group_by("faction").agg(pl.col("margin").mean().alias("m"))
                      .collect(), run, ["faction"])
               .with_columns(pl.col("m").rank("min", descending=True).cast(pl.Int64)
                             .alias("overall_rank"))
               .select("faction", "overall_rank"))
    return (df.with_columns(pl.col("margin_mean").rank("min", descending=True).over("strategy")
                            .cast(pl.Int64).alias("rank_in_strategy"))
            .join(overall, on="faction", how="left"))


def seat_table(run: Run, correction: str = "holm") -> pl.DataFrame:
    """Win share and margin by seat for each player count (seat 0 starts round 1)."""
    return _outcome_table(run, ["n_players", "seat"], correction)


def head_to_head(run: Run) -> pl.DataFrame:
    """For each ordered pair of factions that met: games together and the share of them where
    the row faction finished ahead of the column faction (a tie counts half), with a Wilson
    interval.

    Counted in one pass over the complete games (`Run.finishes`): for every pair of seats, a
    bincount of the (row, column) faction pairs, with 1, 1/2 or 0 for the row being ahead.
    The counts and half-wins are exact, so the table is the one a join of each game's players
    with themselves gives; the rows of incomplete games, if any, are joined that way."""
    fin = run.finishes
    k = len(fin.factions)
    games = np.zeros(k * k, dtype=np.int64)
    ahead = np.zeros(k * k)
    for n, (f, _, r) in fin.blocks.items():
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                met = f[:, i] != f[:, j]
                pair = (f[:, i] * k + f[:, j])[met]
                score = np.where(r[:, i] < r[:, j], 1.0, np.where(r[:, i] == r[:, j], 0.5, 0.0))
                games += np.bincount(pair, minlength=k * k)
                ahead += np.bincount(pair, score[met], minlength=k * k)
    seen = np.flatnonzero(games)
    names = np.array(fin.factions, dtype=object)
    df = pl.DataFrame({"row": names[seen // k].tolist() if k else [],
                       "col": names[seen % k].tolist() if k else [],
                       "games": games[seen], "ahead": ahead[seen]},
                      schema={"row": pl.String, "col": pl.String, "games": pl.Int64,
                              "ahead": pl.Float64})
    if fin.rest.height:
        p = fin.rest.lazy()
        rest = (
            p.join(p, on="game_id", suffix="_col")
            .filter(pl.col("faction") != pl.col("faction_col"))
            .with_columns(
                pl.when(pl.col("rank") < pl.col("rank_col")).then(1.0)
                .when(pl.col("rank") == pl.col("rank_col")).then(0.5)
                .otherwise(0.0).alias("ahead"))
            .group_by("faction", "faction_col")
            .agg(pl.len().cast(pl.Int64).alias("games"), pl.col("ahead").sum().alias("ahead"))
            .rename({"faction": "row", "faction_col": "col"})
            .collect())
        df = (pl.concat([df, rest]).group_by("row", "col")
              .agg(pl.col("games").sum(), pl.col("ahead").sum()))
    df = df.with_columns(pl.col("games").cast(pl.UInt32)).sort("row", "col")
    lo, hi = stats.wilson_interval(df["ahead"].to_numpy(), df["games"].to_numpy())
    return df.with_columns((pl.col("ahead") / pl.col("games")).alias("share"),
                           pl.Series("lo", lo), pl.Series("hi", hi))


def vp_categories(run: Run) -> pl.DataFrame:
    """Mean VP per scoring category per faction (the columns named vp_<category>)."""
    cols = [f"vp_{c}" for c in run.categories]
    return _named(run.aggregable.group_by("faction")
                  .agg(pl.len().alias("games"), pl.col("vp").mean().alias("vp_mean"),
                       *[pl.col(c).mean().alias(c) for c in cols])
                  .collect(), run, ["faction"])


QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def score_distribution(run: Run, by: str = "faction") -> pl.DataFrame:
    """Quantiles (5, 25, 50, 75, 95%) and mean of final VP per faction, for box plots.

    Read from each faction's count of every final score (VP are whole numbers, so these counts
    hold the whole distribution): the quantiles are the linearly interpolated ones of the
    scores themselves, computed without sorting every player's score."""
    hist = (run.aggregable.group_by(by, "vp").agg(pl.len().alias("n")).collect()
            .sort(by, "vp", nulls_last=True))
    rows = []
    for (key,), h in hist.group_by(by, maintain_order=True):
        scored = h.filter(pl.col("vp").is_not_null())
        v, n = scored["vp"].to_numpy().astype(float), scored["n"].to_numpy()
        total = int(n.sum())
        rows.append({by: key, "games": int(h["n"].sum()),
                     "mean": float((v * n).sum() / total) if total else None,
                     **{f"q{int(q * 100):02d}": x for q, x in zip(
                         QUANTILES, stats.quantiles_from_counts(v, n, QUANTILES), strict=True)}})
    schema: dict[str, Any] = {by: hist.schema[by], "games": pl.UInt32, "mean": pl.Float64,
                              **{f"q{int(q * 100):02d}": pl.Float64 for q in QUANTILES}}
    return _named(pl.DataFrame(rows, schema=schema), run, [by])


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
    p = run.aggregable
    counts = _games_by_count(run)

    # A query each: streamed from the parts, one select of the count and both lists of names
    # would hold whole columns (twice the memory at a million games).
    def names(col: str) -> list[str]:
        return sorted(p.group_by(col).agg().collect()[col].cast(pl.String).to_list())

    return {"games": p.select(pl.col("game_id").n_unique()).collect().item(),
            "games_by_count": dict(zip(counts["n_players"].to_list(), counts["games"].to_list(),
                                       strict=True)),
            "factions": names("faction"), "strategies": names("strategy"), "errors": run.errors}


def _games_by_count(run: Run) -> pl.DataFrame:
    return (run.aggregable.group_by("n_players")
            .agg(pl.col("game_id").n_unique().alias("games")).sort("n_players").collect())


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
    by_count = dict(_games_by_count(run).iter_rows())
    for n in sorted(ft["n_players"].unique().to_list()):
        sub = ft.filter(pl.col("n_players") == n)
        if sub.height == 0:
            continue
        games_n = int(by_count.get(n, 0))
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
    95% intervals. Games whose row count disagrees with n_players (or that mix player counts)
    are left out.

    Fitted on the likelihood's sufficient statistics (stats.risk_sets: each parameter's
    appearances and each distinct risk set with its count of places taken), gathered in one
    pass over the games; they give the estimates and standard errors of the fit over every
    game, and each Newton step costs what the distinct risk sets cost, not the games."""
    fin = run.finishes
    empty = pl.DataFrame(schema={"block": pl.Utf8, "name": pl.Utf8, "strength": pl.Float64,
                                 "se": pl.Float64, "lo": pl.Float64, "hi": pl.Float64})
    if not fin.blocks:
        return empty, None
    factions, strategies = fin.factions, fin.strategies
    both = len(strategies) > 1
    names = factions + (strategies if both else [])
    blocks = ["faction"] * len(factions) + (["strategy"] * len(strategies) if both else [])
    groups = [(np.stack([f, s + len(factions)], axis=2) if both else f[:, :, None], r)
              for f, s, r in fin.blocks.values()]
    fit = stats.plackett_luce(stats.risk_sets(groups, len(names)), names, blocks,
                              max_iter=max_iter)
    out = pl.DataFrame({"block": blocks, "name": names, "strength": fit.theta, "se": fit.se})
    return out.with_columns((pl.col("strength") - stats.Z95 * pl.col("se")).alias("lo"),
                            (pl.col("strength") + stats.Z95 * pl.col("se")).alias("hi")), fit
