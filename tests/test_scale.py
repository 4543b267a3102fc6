"""The report at scale (issue 13): one read of the players parts, head to head and Plackett-Luce
from aggregates that give the per-game numbers, and plots drawn only from aggregate tables."""

import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from report_fixtures import make_run

from terra_sim.analysis import stats, tables
from terra_sim.analysis.bench_report import tile_run
from terra_sim.analysis.report import build_report


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    return make_run(tmp_path_factory.mktemp("runs") / "scale", n4=300, n2=120, noise=4.0,
                    parts=3)


@pytest.fixture(scope="module")
def messy_dir(tmp_path_factory, run_dir) -> Path:
    """The run with its players rows shuffled across parts (game ids out of order), one game
    missing a player and one game with a row of another player count."""
    d = tmp_path_factory.mktemp("runs") / "messy"
    shutil.copytree(run_dir, d)
    p = pl.read_parquet(d / "players" / "*.parquet")
    for f in (d / "players").glob("*.parquet"):
        f.unlink()
    p = p.filter(~((pl.col("game_id") == 5) & (pl.col("seat") == 2)))
    p = p.with_columns(pl.when((pl.col("game_id") == 7) & (pl.col("seat") == 0)).then(3)
                       .otherwise(pl.col("n_players")).alias("n_players"))
    p = p.sample(fraction=1.0, shuffle=True, seed=4)
    for i, part in enumerate(p.iter_slices(p.height // 3 + 1)):
        part.write_parquet(d / "players" / f"part-{i:05d}.parquet")
    return d


def _join_head_to_head(players: pl.LazyFrame) -> pl.DataFrame:
    """Head to head as it was computed before: every game's players joined with themselves."""
    p = players.select("game_id", "faction", "rank")
    df = (p.join(p, on="game_id", suffix="_col")
          .filter(pl.col("faction") != pl.col("faction_col"))
          .with_columns(pl.when(pl.col("rank") < pl.col("rank_col")).then(1.0)
                        .when(pl.col("rank") == pl.col("rank_col")).then(0.5)
                        .otherwise(0.0).alias("ahead"))
          .group_by("faction", "faction_col")
          .agg(pl.len().alias("games"), pl.col("ahead").sum().alias("ahead"))
          .rename({"faction": "row", "faction_col": "col"}).sort("row", "col").collect())
    lo, hi = stats.wilson_interval(df["ahead"].to_numpy(), df["games"].to_numpy())
    return df.with_columns((pl.col("ahead") / pl.col("games")).alias("share"),
                           pl.Series("lo", lo), pl.Series("hi", hi))


def _per_game_fit(players: pl.LazyFrame) -> stats.PlackettLuceFit:
    """Plackett-Luce as it was fitted before: a one-hot design row per player of every complete
    game (as many rows as players, of one player count: before, a game with a row of another
    count failed the fit)."""
    df = (players.select("game_id", "n_players", "seat", "faction", "strategy", "rank")
          .filter((pl.len().over("game_id") == pl.col("n_players"))
                  & (pl.col("n_players").n_unique().over("game_id") == 1))
          .sort("game_id", "seat").collect())
    factions = df["faction"].unique().sort().to_list()
    strategies = df["strategy"].unique().sort().to_list()
    names = factions + strategies
    blocks = ["faction"] * len(factions) + ["strategy"] * len(strategies)
    groups = []
    for n in df["n_players"].unique().sort().to_list():
        sub = df.filter(pl.col("n_players") == n)
        x = np.zeros((sub.height, len(names)))
        rows = np.arange(sub.height)
        x[rows, [names.index(f) for f in sub["faction"]]] = 1.0
        x[rows, [names.index(s) for s in sub["strategy"]]] = 1.0
        groups.append((x.reshape(-1, n, len(names)), sub["rank"].to_numpy().reshape(-1, n)))
    return stats.plackett_luce(groups, names, blocks)


@pytest.mark.parametrize("which", ["run_dir", "messy_dir"])
def test_head_to_head_is_the_per_game_join(which, request):
    run = tables.open_run(request.getfixturevalue(which))
    h = tables.head_to_head(run)
    # Counts and half-wins are exact: the very same table, not merely a close one.
    assert h.equals(_join_head_to_head(run.parts))
    assert h.height == 90  # every ordered pair of the 10 factions met


@pytest.mark.parametrize("which", ["run_dir", "messy_dir"])
def test_strengths_are_the_per_game_fit(which, request):
    run = tables.open_run(request.getfixturevalue(which))
    s, fit = tables.strengths(run)
    ref = _per_game_fit(run.parts)
    assert fit is not None and fit.converged and ref.converged
    assert s["name"].to_list() == ref.names
    assert fit.theta == pytest.approx(ref.theta, abs=1e-10)
    assert fit.se == pytest.approx(ref.se, abs=1e-10)
    assert fit.loglik == pytest.approx(ref.loglik, rel=1e-12)
    assert fit.games == ref.games == (420 if which == "run_dir" else 418)  # broken games out


def test_score_distribution_is_the_quantiles_of_every_score(run_dir):
    run = tables.open_run(run_dir)
    ref = (run.parts.group_by("faction")
           .agg(pl.len().alias("games"), pl.col("vp").mean().alias("mean"),
                *[pl.col("vp").quantile(q, "linear").alias(f"q{int(q * 100):02d}")
                  for q in tables.QUANTILES])
           .sort("faction").collect())
    assert tables.score_distribution(run).equals(ref)


def test_players_are_read_once_and_keep_their_types(run_dir, tmp_path):
    d = tmp_path / "run"
    shutil.copytree(run_dir, d)
    run = tables.open_run(d)
    stored = pl.read_parquet(d / "players" / "*.parquet")
    assert run.players.collect_schema() == stored.schema
    assert run.players.collect().equals(stored)
    # In memory the names are categoricals and small counts small integers.
    assert run.frame.schema["faction"] == pl.Categorical and run.frame.schema["seat"] == pl.UInt8
    before = {f.__name__: f(run) for f in (tables.faction_table, tables.seat_table,
                                           tables.head_to_head, tables.vp_categories,
                                           tables.score_distribution)}
    shutil.rmtree(d / "players")  # every table comes from the frame read already
    fresh = tables.open_run(run_dir)
    for name, df in before.items():
        _same(df, getattr(tables, name)(fresh))
    assert tables.faction_strategy_table(run).height == 20
    assert tables.overview(run)["games"] == 420
    assert tables.strengths(run)[1] is not None
    assert tables.power_table(run, tables.faction_count_table(run), 10).height == 2
    assert run.players.select(pl.len()).collect().item() == stored.height


def _same(a: pl.DataFrame, b: pl.DataFrame) -> None:
    """The same table up to the last bits of float sums (polars sums groups on several threads,
    so their order, and the last bit, may differ from one call to the next)."""
    assert a.schema == b.schema and a.height == b.height
    for c in a.columns:
        if a[c].dtype.is_float():
            assert a[c].to_numpy() == pytest.approx(b[c].to_numpy(), rel=1e-12, nan_ok=True)
        else:
            assert a[c].equals(b[c]), c


def _plot_inputs(run_dir: Path, out: Path, monkeypatch) -> dict[str, list[int]]:
    """Build the report with every plot function wrapped: the rows of each table it drew."""
    from terra_sim.analysis import plots

    seen: dict[str, list[int]] = {}

    def wrap(name, fn):
        def spy(table, *args, **kwargs):
            assert isinstance(table, pl.DataFrame), f"{name} got {type(table).__name__}"
            seen.setdefault(name, []).append(table.height)
            return fn(table, *args, **kwargs)
        return spy

    with monkeypatch.context() as m:
        for name in dir(plots):
            fn = getattr(plots, name)
            if (callable(fn) and not name.startswith("_")
                    and getattr(fn, "__module__", "") == plots.__name__):
                m.setattr(plots, name, wrap(name, fn))
        build_report(run_dir, out=out, formats="md")
    return seen


def test_each_plot_is_drawn_from_an_aggregate_table(run_dir, tmp_path, monkeypatch):
    """Three times the games (the same games, tiled) give every plot a table of the same
    rows: one row per faction, seat, pair..., never per game or per player."""
    big = tile_run(run_dir, tmp_path / "big", 3 * 420)
    small = _plot_inputs(run_dir, tmp_path / "small-report", monkeypatch)
    large = _plot_inputs(big, tmp_path / "big-report", monkeypatch)
    assert {"factions", "seats", "head_to_head", "faction_strategy", "strengths",
            "vp_categories", "score_distribution", "game_length"} <= set(small)
    assert large == small
    assert max(h for rows in small.values() for h in rows) <= 100 < 420
    # The report says how the numbers were computed, Plackett-Luce's method included.
    md = (tmp_path / "big-report" / "report.md").read_text()
    assert "read once" in md and "sufficient statistics" in md and "none is sampled" in md


def test_the_plots_of_the_actions_table_are_drawn_from_aggregates(tmp_path, monkeypatch):
    """The same for a played run with its actions table: VP by round, the action mix and the
    build map too."""
    from terra_sim.run.runner import run_tournament

    played = run_tournament(out=tmp_path / "played", games=8, players=2, strategies="random",
                            workers=1, seed=3).run_dir
    big = tile_run(played, tmp_path / "big", 24, actions=True)
    small = _plot_inputs(played, tmp_path / "small-report", monkeypatch)
    large = _plot_inputs(big, tmp_path / "big-report", monkeypatch)
    assert {"vp_by_round", "action_mix", "build_map"} <= set(small)
    assert large == small


def test_tile_run_repeats_the_source_games(run_dir, tmp_path):
    big = tile_run(run_dir, tmp_path / "tiled", 1000)
    games = pl.read_parquet(big / "games" / "*.parquet")
    assert sorted(games["game_id"].to_list()) == list(range(1000))
    assert len(list((big / "players").glob("*.parquet"))) == 3  # a part per copy of 420
    src, tiled = (tables.faction_table(tables.open_run(d)) for d in (run_dir, big))
    # two whole copies and 160 games of a third: the first 160 games count three times
    first = tables.faction_table(tables.open_run(tile_run(run_dir, tmp_path / "head", 160)))
    expect = src.select("faction", pl.col("games") * 2).join(
        first.select("faction", "games"), on="faction", how="left").fill_null(0)
    assert tiled["games"].to_list() == (expect["games"] + expect["games_right"]).to_list()


def test_bench_times_the_report_on_tiled_runs(run_dir, tmp_path):
    from click.testing import CliRunner

    from terra_sim.analysis.bench_report import measure_reports
    from terra_sim.cli import cli

    heard: list = []
    lines = measure_reports(run_dir, [420, 1260], tmp_path, on_line=heard.append)
    assert heard == lines and [(x.games, x.parts) for x in lines] == [(420, 1), (1260, 3)]
    assert all(x.wall_s > 0 and x.peak_mib > 50 for x in lines)
    assert list(tmp_path.iterdir()) == []  # the tiled runs and their reports are removed
    res = CliRunner().invoke(cli, ["bench", "--report-games", "840", "--from", str(run_dir)])
    assert res.exit_code == 0, res.output
    out = res.output.splitlines()
    assert "games" in out[1] and "wall s" in out[1] and "peak MiB" in out[1]
    assert out[2].split()[:2] == ["840", "2"]
    bad = CliRunner().invoke(cli, ["bench", "--report-games", "10,lots"])
    assert bad.exit_code != 0 and "'lots' is not a number of games" in bad.output
    bad = CliRunner().invoke(cli, ["bench", "--from", str(run_dir)])
    assert bad.exit_code == 2 and "--report-games" in bad.output


def test_bench_times_the_report_before_and_after_compaction(run_dir):
    from click.testing import CliRunner

    from terra_sim.cli import cli

    res = CliRunner().invoke(cli, ["bench", "--report-games", "420", "--part-games", "20",
                                   "--from", str(run_dir)])
    assert res.exit_code == 0, res.output
    out = res.output.splitlines()
    assert "chunks of 20 games" in out[0]
    assert out[2].split()[:2] == ["420", "21"] and "compact" not in out[2]
    assert out[3].split()[:2] == ["420", "1"] and "after compact (" in out[3]


def test_bench_plays_a_run_to_tile_when_given_none():
    from click.testing import CliRunner

    from terra_sim.cli import cli

    res = CliRunner().invoke(cli, ["bench", "--report-games", "9", "--games", "3",
                                   "--strategies", "random", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "playing a 3-game run to tile" in res.output
    assert res.output.splitlines()[-1].split()[:2] == ["9", "3"]
