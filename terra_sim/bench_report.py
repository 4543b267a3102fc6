"""How fast the report is at scale: a synthetic run of any size made by tiling a real one (game
i of copy k becomes game k * N + i), and the wall time and peak memory of `terra-sim report` on
it, measured in a child process so that the figure is the report's alone."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

from terra_sim import storage
from terra_sim.core.errors import UserError


def tile_run(src: str | Path, dest: str | Path, games: int, actions: bool = False) -> Path:
    """Write a run of `games` games to `dest` by repeating `src`'s finished games, one part per
    copy of the source (as a real run's chunks would be). The actions table is tiled too only
    when `actions` is set (large runs are usually made with --no-actions)."""
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
              .select(df.columns) for t, df in tables.items()}
    if dest.exists():
        shutil.rmtree(dest)
    for t in (*tables, "errors"):
        (dest / t).mkdir(parents=True)
    copies = -(-games // n)
    for k in range(copies):
        first, last = k * n, min((k + 1) * n, games) - 1
        name = storage.part_name(first, last)
        for t, df in tables.items():
            part = (df.filter(pl.col("game_id") <= last - k * n)
                    .with_columns(pl.col("game_id") + k * n))
            storage.write_atomic(part, dest / t / name)
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
