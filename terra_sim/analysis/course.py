"""When and where an edge arises, from the actions table: each faction's VP round by round
against the average faction, its action mix, where on the board it builds, and its VP by source
against the average faction. Every function returns an aggregate table (plots draw from these)."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from terra_sim.analysis import stats


def _seats(players: pl.LazyFrame) -> pl.LazyFrame:
    return players.select("game_id", "seat", "faction")


def vp_by_round(actions: pl.LazyFrame, players: pl.LazyFrame) -> pl.DataFrame:
    """Per faction and round: mean VP at the end of the round (its last action's VP) minus the
    mean over all seats, with a 95% t interval of the faction's mean; and "final" as round
    max + 1 from the players table. Round 0 (setup) is left out."""
    per_round = (actions.filter(pl.col("round") > 0)
                 .group_by("game_id", "seat", "round").agg(pl.col("vp").last())
                 .join(_seats(players), on=["game_id", "seat"]))
    last = per_round.select(pl.col("round").max()).collect().item()
    if last is None:
        return pl.DataFrame(schema={"faction": pl.Utf8, "round": pl.Int64, "vp_mean": pl.Float64,
                                    "vs_average": pl.Float64, "lo": pl.Float64,
                                    "hi": pl.Float64, "games": pl.UInt32})
    final = players.select("faction", "vp", pl.lit(last + 1, pl.Int64).alias("round"))
    rows = pl.concat([per_round.select("faction", "vp", pl.col("round").cast(pl.Int64)), final])
    avg = rows.group_by("round").agg(pl.col("vp").mean().alias("avg"))
    df = (rows.group_by("faction", "round")
          .agg(pl.len().alias("games"), pl.col("vp").mean().alias("vp_mean"),
               pl.col("vp").std().alias("vp_sd"))
          .join(avg, on="round").sort("faction", "round").collect())
    lo, hi = stats.t_interval(df["vp_mean"].to_numpy(), df["vp_sd"].to_numpy(),
                              df["games"].to_numpy())
    return df.with_columns((pl.col("vp_mean") - pl.col("avg")).alias("vs_average"),
                           pl.Series("lo", lo) - pl.col("avg"),
                           pl.Series("hi", hi) - pl.col("avg")
                           ).select("faction", "round", "vp_mean", "vs_average", "lo", "hi",
                                    "games").fill_nan(None)


def action_mix(actions: pl.LazyFrame, players: pl.LazyFrame,
               quiet: tuple[str, ...] = ()) -> pl.DataFrame:
    """Per faction and action kind (the action text's first word): actions per game, and the
    kind's share of the faction's actions. Bookkeeping kinds (the game's quiet_actions) and
    setup (round 0) are left out."""
    kinds = (actions.filter(pl.col("round") > 0)
             .with_columns(pl.col("action").str.split(" ").list.first().alias("kind")))
    if quiet:
        kinds = kinds.filter(~pl.col("kind").is_in(list(quiet)))
    appearances = players.group_by("faction").agg(pl.len().alias("seats"))
    df = (kinds.join(_seats(players), on=["game_id", "seat"])
          .group_by("faction", "kind").agg(pl.len().alias("count"))
          .join(appearances, on="faction")
          .with_columns((pl.col("count") / pl.col("seats")).alias("per_game"),
                        (pl.col("count") / pl.col("count").sum().over("faction")).alias("share"))
          .sort("faction", "count", descending=[False, True]).collect())
    return df


def build_sites(actions: pl.LazyFrame, players: pl.LazyFrame,
                site_of: Callable[[str], str | None]) -> pl.DataFrame:
    """Per faction and board space: how many of the faction's builds went there, and that
    count's share of its builds. `site_of` maps an action text to the space it builds on."""
    texts = actions.select("action").unique().collect()["action"].to_list()
    sites = pl.DataFrame({"action": texts, "site": [site_of(t) for t in texts]},
                         schema={"action": pl.Utf8, "site": pl.Utf8}).drop_nulls()
    return (actions.join(sites.lazy(), on="action")
            .join(_seats(players), on=["game_id", "seat"])
            .group_by("faction", "site").agg(pl.len().alias("builds"))
            .with_columns((pl.col("builds") / pl.col("builds").sum().over("faction"))
                          .alias("share"))
            .sort("faction", "site").collect())


def vp_sources(players: pl.LazyFrame, categories: list[str]) -> pl.DataFrame:
    """Per faction and scoring category: the faction's mean VP from it minus the mean over all
    seats, with a 95% t interval of the faction's mean (the average taken as fixed)."""
    if not categories:
        return pl.DataFrame(schema={"faction": pl.Utf8, "category": pl.Utf8,
                                    "vs_average": pl.Float64, "lo": pl.Float64,
                                    "hi": pl.Float64})
    cols = [f"vp_{c}" for c in categories]
    # Aggregated wide (one row per faction), then made long: unpivoting first would make a
    # row per player and category (7 million rows a million games).
    wide = (players.group_by("faction")
            .agg(pl.len().alias("games"), *[pl.col(c).mean().alias(f"m|{c}") for c in cols],
                 *[pl.col(c).std().alias(f"sd|{c}") for c in cols]).collect())
    avg = (players.select(*[pl.col(c).mean() for c in cols]).collect()
           .unpivot(variable_name="category", value_name="avg"))
    df = (wide.unpivot(index=["faction", "games"], variable_name="key", value_name="v")
          .with_columns(pl.col("key").str.split_exact("|", 1)
                        .struct.rename_fields(["stat", "category"]).alias("k"))
          .unnest("k").pivot(on="stat", index=["faction", "games", "category"], values="v")
          .join(avg, on="category").sort("faction", "category"))
    lo, hi = stats.t_interval(df["m"].to_numpy(), df["sd"].to_numpy(), df["games"].to_numpy())
    return df.select(
        "faction", pl.col("category").str.strip_prefix("vp_"),
        (pl.col("m") - pl.col("avg")).alias("vs_average"),
        (pl.Series(lo) - df["avg"]).alias("lo"), (pl.Series(hi) - df["avg"]).alias("hi"),
    ).fill_nan(None)
