"""Throughput benchmark: the same tournament with one worker and with every core."""

import os
import resource
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from terra_sim.games import DEFAULT_GAME
from terra_sim.runner import run_tournament


@dataclass
class BenchLine:
    workers: int
    games: int
    wall_s: float
    games_per_s: float
    decisions_per_s: float
    parquet_share: float  # of the workers' busy time, spent writing part files
    overhead_share: float  # of workers x wall time, not spent playing or writing (IPC, startup)
    cpu_share: float  # CPU time / wall time while playing: under 1 when other programs compete


def _line(result: Any) -> BenchLine:
    s = result.stats
    busy = s.play_s + s.write_s
    return BenchLine(
        workers=s.workers, games=s.games + s.failed, wall_s=s.wall_s,
        games_per_s=(s.games + s.failed) / s.wall_s, decisions_per_s=s.decisions / s.wall_s,
        parquet_share=s.write_s / busy if busy else 0.0,
        overhead_share=max(0.0, 1 - busy / (s.wall_s * s.workers)),
        cpu_share=s.cpu_s / busy if busy else 0.0,
    )


def bench(game: str = DEFAULT_GAME, players: list[int] | str = "4", games: int = 200,
          strategies: list[str] | str | None = None,
          workers: int | None = None) -> tuple[list[BenchLine], dict[str, float]]:
    """Run `games` games with 1 worker, then with `workers` (default: every core).

    Returns the two lines and peak resident memory in MiB ("parent", "worker").
    """
    all_workers = workers or os.cpu_count() or 1
    lines = []
    with tempfile.TemporaryDirectory(prefix="terra-sim-bench-") as tmp:
        for n in dict.fromkeys((1, all_workers)):
            result = run_tournament(game=game, players=players, games=games,
                                    strategies=strategies, workers=n, out=str(Path(tmp) / str(n)))
            lines.append(_line(result))
    # ru_maxrss is in KiB on Linux; the children's figure is the largest single worker.
    memory = {"parent": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
              "worker": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}
    return lines, memory
