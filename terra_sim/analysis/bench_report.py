"""How fast the report is at scale: a synthetic run of any size made by tiling a real one (game
i of copy k becomes game k * N + i), and the wall time and peak memory of `terra-sim report` on
it, measured in a child process so that the figure is the report's alone."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from terra_sim.core.errors import UserError
from terra_sim.store import compaction, rundir, schema


def tile_run(src: str | Path, dest: str | Path, games: int, actions: bool = False,
             part_games: int | None = None) -> Path:
    """Write a run of `games` games to `dest` by repeating `src`'s finished games, one chunk
    per copy of the source (or per `part_games` games: a long real run's chunks hold a few
    games each), every chunk with a part in every table as a real run's would have. The actions
    table is tiled too only when `actions` is set (large runs are usually made with
    --no-actions); otherwise its parts are empty."""
    src, dest = Path(src), Path(dest)
    manifest = json.loads((src / "manifest.json").read_text())
    tables = {t: pl.read_parquet(src / t / "*.parquet") for t in ("games", "players")
              if any((src / t).glob("*.parquet"))}
    if actions and any((src / "actions").glob("*.parquet")):
        tables["actions"] = pl.read_parquet(src / "actions" / "*.parquet")
    if "games" not in tables or tables["games"].height == 0:
        raise UserError(f"{src} has no finished games to tile")
    ids = tables["games"]["game_id"].sort()
    n = ids.len()
    # number the source's games 0..n-1, so that copies never collide
    renumber = pl.DataFrame({"game_id": ids, "new_id": pl.int_range(0, n, eager=True)})
    tables = {t: df.join(renumber, on="game_id").drop("game_id").rename({"new_id": "game_id"})
              .select(df.columns).sort("game_id") for t, df in tables.items()}
    empty = {t: pl.DataFrame(schema=s) for t, s in (("actions", schema.ACTIONS_SCHEMA),
                                                     ("errors", schema.ERRORS_SCHEMA))
             if t not in tables}
    if dest.exists():
        shutil.rmtree(dest)
    for t in schema.TABLES:
        (dest / t).mkdir(parents=True)
    starts = {t: df["game_id"].search_sorted(pl.int_range(0, n + 1, eager=True), "left")
              .to_list() for t, df in tables.items()}
    step = part_games or n
    copies = -(-games // n)
    for k in range(copies):
        for first in range(k * n, min((k + 1) * n, games), step):
            last = min(first + step, (k + 1) * n, games) - 1
            name = rundir.part_name(first, last)
            for t, df in tables.items():  # the rows of source games first-k*n..last-k*n
                a, b = starts[t][first - k * n], starts[t][last - k * n + 1]
                part = df.slice(a, b - a).with_columns(pl.col("game_id") + k * n)
                rundir.write_atomic(part, dest / t / name)
            for t, df in empty.items():
                rundir.write_atomic(df, dest / t / name)
    manifest.update(games=games, tiled_from=str(src), tiled_copies=copies)
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return dest


# Runs the report in a fresh interpreter and prints that interpreter's own peak memory last:
# RUSAGE_CHILDREN would give the largest child so far, not this one.
MEASURE = """
import resource, sys
from terra_sim.cli import cli
try:
    cli(sys.argv[1:], standalone_mode=False)
finally:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def time_report(run_dir: str | Path, out: str | Path) -> tuple[float, float]:
    """(wall seconds, peak resident MiB) of `terra-sim report RUN --out OUT` in a child."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", MEASURE, "report", str(run_dir),
                           "--out", str(out)], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode:
        raise UserError(f"the report failed on {run_dir}:\n{done.stderr.strip()[-2000:]}")
    return wall, int(done.stdout.strip().splitlines()[-1]) / 1024


@dataclass
class ReportLine:
    games: int
    parts: int  # part files per table
    wall_s: float
    peak_mib: float
    compact_s: float | None = None  # the run was compacted first, in this many seconds


def measure_reports(src: str | Path, sizes: Iterable[int], work: str | Path,
                    on_line: Callable[[ReportLine], None] | None = None,
                    part_games: int | None = None) -> list[ReportLine]:
    """For each size: tile `src` into a run of that many games under `work` (a part per copy,
    or per `part_games` games), time its report, and remove the run again. With `part_games`,
    the run is then compacted (`compaction.compact`, timed) and its report timed again. `on_line`
    hears each line as soon as it is measured."""
    lines = []

    def measured(run: Path, games: int, compact_s: float | None = None) -> None:
        out = Path(work) / f"report-{games}"
        try:
            parts = len(list((run / "players").glob("*.parquet")))
            wall, peak = time_report(run, out)
        finally:
            shutil.rmtree(out, ignore_errors=True)
        lines.append(ReportLine(games, parts, wall, peak, compact_s))
        if on_line:
            on_line(lines[-1])

    for games in sizes:
        run = tile_run(src, Path(work) / f"run-{games}", games, part_games=part_games)
        try:
            measured(run, games)
            if part_games:
                t0 = time.perf_counter()
                compaction.compact(run)
                measured(run, games, time.perf_counter() - t0)
        finally:
            shutil.rmtree(run, ignore_errors=True)
    return lines


def parse_sizes(text: str) -> list[int]:
    """'20000,100000,1e6' -> [20000, 100000, 1000000]; UserError for anything else."""
    sizes = []
    for item in text.split(","):
        item = item.strip().replace("_", "")
        try:
            value = float(item)
        except ValueError:
            raise UserError(f"--report-games: {item!r} is not a number of games") from None
        if value < 1 or value != int(value):
            raise UserError(f"--report-games: {item!r} is not a whole number of games")
        sizes.append(int(value))
    return sizes
