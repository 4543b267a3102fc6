"""A chunk of games: how many a worker plays at once (ChunkSizer), playing them and encoding
their rows as part files in the worker (play_chunk), the error rows of a game that was lost,
and the counts the parent adds up (RunStats). Chunking never changes a game: game i depends on
the plan and i alone."""

import functools
import json
import math
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from terra_sim.core.deadline import posting
from terra_sim.games import get_game
from terra_sim.run.config import strategy_spec
from terra_sim.run.plan import GameSpec, Plan
from terra_sim.store import schema

MAX_CHUNK = 100  # games per task: enough that IPC and part files cost little

# Automatic chunks grow from one game toward this many seconds of play: the first results
# (and the ETA) come within a second, and a kill loses at most a few seconds of work.
CHUNK_TARGET_S = 2.0

# The last chunks shrink so that the workers finish together, but not below this much play:
# each chunk costs a round trip to the parent and four part files to encode, a millisecond or
# two, and with random bots (about a millisecond a game) a one-game chunk would cost more than
# its play.
TAIL_S = 0.05

# A chunk whose worker dies is played again once; after a second death, game by game.
CHUNK_ATTEMPTS = 2

# Setup keys that have columns or manifest fields of their own; the rest is the games' `setup`.
RECORDED_APART = ("game", "seed", "factions", "overrides")


@functools.lru_cache(maxsize=4)
def context(content_json: str) -> tuple[Plan, Any, dict[str, Any], str]:
    content = json.loads(content_json)
    g = get_game(content["game"], content["overrides"] or None)
    tables = schema.schemas(g.categories)
    return Plan(content, g.exclusive_groups()), g, tables, g.variant_name(content["options"])


def rows_for(rec: Any, spec: GameSpec, g: Any, variant: str, cols: dict[str, dict]) -> None:
    vp = rec.final_vp
    n = len(vp)
    best = max(vp)
    winners = vp.count(best)
    mean = sum(vp) / n
    game_row = {
        "game_id": spec.game_id, "seed": spec.seed, "game": g.slug, "n_players": n,
        "variant": variant, "rounds": rec.rounds, "n_actions": rec.n_decisions,
        "duration_s": rec.duration_s,
        "setup": json.dumps({k: v for k, v in rec.setup.items() if k not in RECORDED_APART},
                            sort_keys=True),
    }
    for k, v in game_row.items():
        cols["games"][k].append(v)
    for seat in range(n):
        better = sum(v > vp[seat] for v in vp)
        tied = vp.count(vp[seat])
        row = {
            "game_id": spec.game_id, "n_players": n, "seat": seat, "faction": rec.factions[seat],
            "strategy": spec.strategies[seat], "vp": vp[seat],
            "rank": better + (tied + 1) / 2, "win_share": 1 / winners if vp[seat] == best else 0.0,
            "margin": vp[seat] - mean,
        } | {f"vp_{c}": rec.breakdown[seat].get(c, 0) for c in g.categories}
        for k, v in row.items():
            cols["players"][k].append(v)
    # Whole columns at once: a game logs about a hundred actions, and this runs per game.
    logged = len(rec.actions)
    if not logged == len(rec.action_seats) == len(rec.action_rounds) == len(rec.action_vp):
        raise ValueError(f"game {spec.game_id}: the action log's columns differ in length")
    acts = cols["actions"]
    acts["game_id"].extend([spec.game_id] * logged)
    acts["index"].extend(range(logged))
    acts["round"].extend(rec.action_rounds)
    acts["seat"].extend(rec.action_seats)
    acts["action"].extend(rec.actions)
    acts["vp"].extend(rec.action_vp)


def play_chunk(content_json: str, ids: list[int]
               ) -> tuple[list[int], dict[str, bytes], dict[str, Any]]:
    """Play games `ids`; return them, their part files by table (schema.encode_chunk) and
    timing counts.

    Runs in forked workers, so it must not touch polars: a fork can leave polars' thread pool
    without its threads in the child. It encodes the parts itself, in parallel with the other
    workers, and the parent only writes the bytes: encoded by the parent, they cost it about
    6 ms of CPU a chunk, which the workers lost when no core was spare."""
    from terra_sim.play import play_game

    plan, g, tables, variant = context(content_json)
    c = plan.c
    cols: dict[str, dict[str, list]] = {t: {k: [] for k in s} for t, s in tables.items()}
    stats = {"games": 0, "failed": 0, "decisions": 0, "play_s": 0.0, "cpu_s": 0.0,
             "encode_s": 0.0}
    t0, cpu0 = time.perf_counter(), time.process_time()
    beat = posting()  # a watched worker's, in a run with a decision timeout
    for i in ids:
        if beat is not None:  # the watchdog's kill names the game it hung in
            beat.game(i)
        spec = plan.spec(i)
        try:
            rec = play_game(c["game"], list(spec.factions),
                            [strategy_spec(c, s) for s in spec.strategies], spec.seed,
                            overrides=c["overrides"] or None,
                            decision_timeout=c["decision_timeout"], log_actions=c["actions"],
                            **c["options"])
        except Exception as e:  # any failure is logged with its seed; the run goes on
            row = {"game_id": i, "seed": spec.seed, "strategies": ",".join(spec.strategies),
                   "factions": ",".join(spec.factions), "message": f"{type(e).__name__}: {e}",
                   "traceback": traceback.format_exc()}
            for k, v in row.items():
                cols["errors"][k].append(v)
            stats["failed"] += 1
            continue
        rows_for(rec, spec, g, variant, cols)
        stats["games"] += 1
        stats["decisions"] += rec.n_decisions
    t1 = time.perf_counter()
    stats["play_s"] = t1 - t0
    stats["cpu_s"] = time.process_time() - cpu0
    parts = schema.encode_chunk(cols, tables)
    stats["encode_s"] = time.perf_counter() - t1
    return ids, parts, stats


def play_task(payload: tuple[str, list[int]]
               ) -> tuple[list[int], dict[str, bytes], dict[str, Any]]:
    return play_chunk(*payload)


@dataclass
class RunStats:
    games: int = 0  # played in this session
    failed: int = 0
    decisions: int = 0
    play_s: float = 0.0  # summed over workers
    encode_s: float = 0.0  # making part files, summed over workers
    write_s: float = 0.0  # writing them, in the parent, while the workers play on
    cpu_s: float = 0.0  # CPU time of play: below play_s when other programs take the cores
    wall_s: float = 0.0
    workers: int = 1
    notes: list[str] = field(default_factory=list)  # what went wrong and what the run did

    def add(self, s: dict[str, Any]) -> None:
        for k in ("games", "failed", "decisions", "play_s", "cpu_s", "encode_s"):
            setattr(self, k, getattr(self, k) + s[k])


class ChunkSizer:
    """Games per chunk. A fixed size when the config gives one; else measured: the first
    chunks hold one game, later ones grow (at most doubling) toward CHUNK_TARGET_S seconds of
    play, and the last ones shrink (to TAIL_S seconds of play) so that no worker idles long at
    the end. Chunking never changes a game: game i depends on the plan and i alone."""

    def __init__(self, fixed: int, workers: int):
        self.fixed, self.workers = fixed, workers
        self.games, self.play_s, self.last = 0, 0.0, 0

    def observe(self, games: int, play_s: float) -> None:
        self.games += games
        self.play_s += play_s

    def next(self, left: int) -> int:
        if self.fixed:
            return self.fixed
        size = floor = 1
        if self.games:
            per_game = max(self.play_s / self.games, 1e-6)
            size = max(1, min(MAX_CHUNK, int(CHUNK_TARGET_S / per_game), 2 * self.last))
            floor = math.ceil(TAIL_S / per_game)
        size = min(size, max(floor, math.ceil(left / (3 * self.workers))))
        self.last = size
        return size


@dataclass
class Task:
    ids: list[int]
    attempts: int = 0
    alone: bool = False  # one game of a chunk that killed its worker twice, in a fresh worker


def error_parts(tables: dict[str, dict[str, Any]], spec: GameSpec, message: str,
                 details: str) -> dict[str, bytes]:
    """The parts of a one-game chunk that logs game `spec` as an error."""
    cols: dict[str, dict[str, list]] = {t: {k: [] for k in s} for t, s in tables.items()}
    row = {"game_id": spec.game_id, "seed": spec.seed, "strategies": ",".join(spec.strategies),
           "factions": ",".join(spec.factions), "message": message, "traceback": details}
    for k, v in row.items():
        cols["errors"][k].append(v)
    return schema.encode_chunk(cols, tables)


def span(ids: list[int]) -> str:
    return f"game {ids[0]}" if len(ids) == 1 else f"games {ids[0]}-{ids[-1]}"

