"""What every game's bot bench (strategies/<game>/bench_bots.py) shares: games in worker
processes, a bot's score against `random`, and the roster's seatings.

`play` is the game bench's own one-game function, `play(bots, seed, factions, players)`,
returning at least the seats' `bots` and `vp`; it must be a module-level function (workers get
it by name).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from functools import partial
from multiprocessing import Pool
from typing import Any

from strategies.base import Strategy
from strategies.registry import make_strategy
from terra_sim.core.rng import stream

Play = Callable[..., dict[str, Any]]


def _job(play: Play, job: tuple[Any, ...]) -> dict[str, Any]:
    bots, seed, factions, players = job
    return play(list(bots), seed, factions, players)


def seated(bots: Sequence[Any], seed: int, game: str) -> list[Strategy]:
    """`bots` made as `terra_sim.play_game` makes them, each on its seat's stream of the game's
    seed: a bench that plays its own loop then plays play_game's game."""
    return [make_strategy(b, stream(seed, "strategy", i), game) for i, b in enumerate(bots)]


def run(play: Play, jobs: list[tuple[Any, ...]], workers: int) -> list[dict[str, Any]]:
    """Each job (bots, seed, factions, players) played, in `workers` processes."""
    if workers > 1:
        with Pool(workers) as pool:
            return pool.map(partial(_job, play), jobs, chunksize=4)
    return [_job(play, j) for j in jobs]


def seat_win(vp: Sequence[float], seat: int) -> float:
    """A seat's share of the win: 1, split evenly when the top score is shared, else 0."""
    top = max(vp)
    return 1 / vp.count(top) if vp[seat] == top else 0.0


def seat_margin(vp: Sequence[float], seat: int) -> float:
    """A seat's VP above the mean of the other seats'."""
    return vp[seat] - (sum(vp) - vp[seat]) / (len(vp) - 1)


def versus_random(play: Play, bot: str, games: int, seed: int,
                  workers: int) -> tuple[float, int]:
    """Wins (a VP tie counts half) of `bot` over `random` in 2-player games, seats alternating."""
    jobs: list[tuple[Any, ...]] = [((bot, "random") if i % 2 == 0 else ("random", bot),
                                    seed + i, None, 2) for i in range(games)]
    wins = 0.0
    for r in run(play, jobs, workers):
        me = r["bots"].index(bot)
        a, b = r["vp"][me], r["vp"][1 - me]
        wins += 1.0 if a > b else 0.5 if a == b else 0.0
    return wins, games


def roster_jobs(bots: Sequence[str], games: int, seed: int,
                players: int = 4) -> list[tuple[Any, ...]]:
    """Games of a roster: every combination of `players` bots in turn, rotated through the
    seats; factions drawn per game by the game's own rule."""
    combos = list(itertools.combinations(bots, players))
    jobs: list[tuple[Any, ...]] = []
    for i in range(games):
        combo = combos[i % len(combos)]
        rot = (i // len(combos)) % players
        jobs.append((combo[rot:] + combo[:rot], seed + i, None, players))
    return jobs
