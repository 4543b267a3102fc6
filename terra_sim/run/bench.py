"""Throughput benchmark: the same tournament with one worker and with every core, and the same
measurement of another revision of the code, in turns, for a fair before-and-after."""

import io
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from terra_sim.core.errors import UserError
from terra_sim.games import DEFAULT_GAME
from terra_sim.run.chunk import context, play_chunk
from terra_sim.run.config import from_any, from_dict, validate
from terra_sim.run.runner import run_tournament


@dataclass
class BenchLine:
    workers: int
    games: int
    wall_s: float
    games_per_s: float
    decisions_per_s: float
    parquet_share: float  # of workers x wall time, spent making part files (the workers
    # encode their chunks) and writing them (the parent, as the workers play on)
    overhead_share: float  # of workers x wall time, neither playing nor encoding (IPC,
    # startup, the end)
    cpu_share: float  # CPU time / wall time while playing: under 1 when other programs compete


def _line(result: Any) -> BenchLine:
    s = result.stats
    return BenchLine(
        workers=s.workers, games=s.games + s.failed, wall_s=s.wall_s,
        games_per_s=(s.games + s.failed) / s.wall_s, decisions_per_s=s.decisions / s.wall_s,
        parquet_share=(s.encode_s + s.write_s) / (s.wall_s * s.workers),
        overhead_share=max(0.0, 1 - (s.play_s + s.encode_s) / (s.wall_s * s.workers)),
        cpu_share=s.cpu_s / s.play_s if s.play_s else 0.0,
    )


def bench(game: str = DEFAULT_GAME, players: list[int] | str = "4", games: int = 200,
          strategies: list[str] | str | None = None, workers: int | None = None,
          on_line: Callable[[BenchLine], None] | None = None,
          ) -> tuple[list[BenchLine], dict[str, float]]:
    """Run `games` games with 1 worker, then with `workers` (default: every core).

    Returns the two lines and peak resident memory in MiB ("parent", "worker"); `on_line`
    hears each line as soon as it is measured.
    """
    all_workers = workers or os.cpu_count() or 1
    lines = []
    with tempfile.TemporaryDirectory(prefix="terra-sim-bench-") as tmp:
        for n in dict.fromkeys((1, all_workers)):
            result = run_tournament(game=game, players=players, games=games,
                                    strategies=strategies, workers=n, out=str(Path(tmp) / str(n)))
            lines.append(_line(result))
            if on_line:
                on_line(lines[-1])
    # ru_maxrss is in KiB on Linux; the children's figure is the largest single worker.
    memory = {"parent": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
              "worker": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}
    return lines, memory


def ceiling(game: str = DEFAULT_GAME, players: list[int] | str = "4", games: int = 200,
            strategies: list[str] | str | None = None, workers: int | None = None
            ) -> dict[int, float]:
    """Wall seconds to play the bench's games in 1 and in `workers` (default: every core) bare
    processes: forked, each plays every n-th game of the plan in one go, with no pool, chunks,
    parent or files. What the machine's cores give by themselves (other programs, shared
    caches), which the runner's speed-up can be read against."""
    n_all = workers or os.cpu_count() or 1
    given = {"game": game, "players": players, "games": games, "strategies": strategies}
    cfg = validate(from_dict({k: v for k, v in given.items() if v is not None},
                             base=from_any(None)))
    content_json = json.dumps(cfg.content(), sort_keys=True)
    context(content_json)  # loaded once, before the forks, as the runner does
    walls = {}
    for n in dict.fromkeys((1, n_all)):
        t = time.perf_counter()
        children = []
        for k in range(n):
            pid = os.fork()
            if pid == 0:  # a bare player: its share of the games, then out at once
                code = 1
                try:
                    play_chunk(content_json, list(range(k, games, n)))
                    code = 0
                finally:
                    os._exit(code)
            children.append(pid)
        failed = [pid for pid in children if os.waitpid(pid, 0)[1] != 0]
        walls[n] = time.perf_counter() - t
        if failed:
            raise UserError(f"{len(failed)} of the {n} bare processes failed")
    return walls


# The same measurement in another source tree: the driver runs in a child process whose
# PYTHONPATH puts that tree first, and imports only what every version of terra-sim has. A
# tree whose bench can tell each line as it is measured prints it at once, one JSON object a
# line; an older one gives all its lines at the end.
DRIVER = """
import dataclasses, inspect, json, sys
import terra_sim
try:
    from terra_sim.run.bench import bench
except ImportError:  # a tree from before the run package
    from terra_sim.bench import bench
kw = {}
if "on_line" in inspect.signature(bench).parameters:
    kw["on_line"] = lambda b: print(json.dumps({"line": dataclasses.asdict(b)}), flush=True)
lines, memory = bench(*json.loads(sys.argv[1]), **kw)
native = getattr(terra_sim, "native", None)
print(json.dumps({"lines": [dataclasses.asdict(b) for b in lines],
                  "build": native.STATUS if native else "plain Python"}), flush=True)
"""


@dataclass
class Side:
    label: str
    tree: Path
    runs: list[list[BenchLine]]
    build: str = ""  # compiled or plain Python, as the side's terra_sim.native says

    def median(self, workers_index: int, field: str) -> float:
        return statistics.median(getattr(r[workers_index], field) for r in self.runs)

    def ratio(self, other: "Side", workers_index: int, field: str) -> float:
        """The median over rounds of this side's measure over `other`'s in the same round. The
        two sides of a round run back to back, so a change in the machine's load between rounds
        falls on both; a ratio of the two medians would take it for a difference between them
        (a load that eased after the first round read 1.5x between two trees within 3% of each
        other in every round)."""
        ratios = []
        for a, z in zip(self.runs, other.runs, strict=True):
            x, y = getattr(a[workers_index], field), getattr(z[workers_index], field)
            ratios.append(x / y if y else math.nan)
        return statistics.median(ratios)


def source_tree() -> Path:
    """The folder this terra_sim is imported from (an editable install's checkout)."""
    return Path(__file__).resolve().parents[2]


def export_revision(rev: str, dest: Path) -> Path:
    """The files of git revision `rev` of this checkout, written under `dest`."""
    repo = source_tree()
    try:
        archive = subprocess.run(["git", "-C", str(repo), "archive", rev], check=True,
                                 capture_output=True).stdout
    except FileNotFoundError:
        raise UserError("--against needs git on the PATH") from None
    except subprocess.CalledProcessError as e:
        raise UserError(f"--against {rev}: not a revision of the checkout at {repo} "
                        f"({e.stderr.decode().strip() or 'git archive failed'})") from None
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4 checks what it writes
            tar.extractall(dest, filter="data")
        else:
            tar.extractall(dest)  # our own repository's archive
    return dest


def build_in_place(tree: Path) -> None:
    """Compile the modules of an exported tree as `pip install` would (setup.py), so that a
    compiled tree is compared with a compiled tree."""
    if (tree / "setup.py").is_file():
        subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=tree,
                       check=False, capture_output=True)


def _run_in(tree: Path, args: list[Any],
            on_line: Callable[[BenchLine], None] | None = None) -> tuple[list[BenchLine], str]:
    """Bench the tree in a child process; `on_line` hears each line as the child reports it."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tree), *filter(None, [os.environ.get("PYTHONPATH")])])}
    with tempfile.TemporaryFile(mode="w+") as err, subprocess.Popen(
            [sys.executable, "-c", DRIVER, json.dumps(args)], env=env, cwd=tree, text=True,
            stdout=subprocess.PIPE, stderr=err) as child:
        assert child.stdout is not None
        told = 0
        last: dict[str, Any] = {}
        for raw in child.stdout:
            try:
                msg = json.loads(raw)
            except ValueError:
                continue  # not ours: something the tree printed
            if not isinstance(msg, dict):
                continue
            if "line" in msg:
                told += 1
                if on_line:
                    on_line(BenchLine(**msg["line"]))
            elif "lines" in msg:
                last = msg
        child.wait()
        if child.returncode or not last:
            err.seek(0)
            raise UserError(f"the bench failed in {tree}:\n{err.read().strip()[-2000:]}")
    lines = [BenchLine(**d) for d in last["lines"]]
    if on_line:
        for line in lines[told:]:  # a tree that tells its lines only at the end
            on_line(line)
    return lines, last["build"]


def bench_against(rev: str, rounds: int = 3, game: str = DEFAULT_GAME,
                  players: list[int] | str = "4", games: int = 200,
                  strategies: list[str] | str | None = None, workers: int | None = None,
                  progress: Any = None) -> tuple[Side, Side]:
    """This tree and git revision `rev`, measured in turns on the same machine: `rounds`
    rounds, each running both (which goes first alternates), so that load from other programs
    falls on both alike. `progress(side, round, line)` hears each line as it is measured.
    Returns (this tree, rev)."""
    if rounds < 1:
        raise UserError(f"--rounds must be at least 1, got {rounds}")
    args = [game, players, games, strategies, workers]
    with tempfile.TemporaryDirectory(prefix="terra-sim-against-") as tmp:
        new = Side("this tree", source_tree(), [])
        old = Side(rev, export_revision(rev, Path(tmp) / "old"), [])
        build_in_place(old.tree)
        for r in range(rounds):
            for side in (new, old) if r % 2 == 0 else (old, new):
                def tell(line: BenchLine, side: Side = side, r: int = r) -> None:
                    if progress:
                        progress(side, r, line)

                lines, side.build = _run_in(side.tree, args, tell)
                side.runs.append(lines)
    return new, old
