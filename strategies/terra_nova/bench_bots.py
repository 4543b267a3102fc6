"""Benchmark the bot roster: `python -m strategies.terra_nova.bench_bots [--quick] [--workers N]`.

1. Every scripted bot against `random` in 2-player games (seats alternate): win rate, Wilson 95%.
2. `mcts` at its default budget against `greedy` in 2-player games.
3. A 4-player round robin of the scripted roster: every 4-bot combination, each rotated through
   every seat; win share (ties split) with Wilson intervals and mean winning VP.
4. Coverage over 4-player games of the roster: every action kind, power action, special action
   and palace ability (faction x side), plus 2-player variant games for the neutral-house kinds.
5. Mean decision time per bot.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from multiprocessing import Pool
from typing import Any

from terra_sim.analysis.stats import wilson_interval
from terra_sim.games import get_game
from terra_sim.games.terra_nova.game import TerraNova
from terra_sim.play import play_game

SCRIPTED = ["greedy", "expander", "merchant", "town-builder", "power-player", "round-scorer"]
SPECIAL_KINDS = ("bonus-build", "bonus-dig", "fairy-build", "fairy-dig", "sun-build", "sun-dig",
                 "lake-house", "inventor-tp", "edge-house", "free-tp", "druid-vp")


def wilson(k: float, n: int) -> tuple[float, float]:
    """95% Wilson score interval for k successes in n trials (the report's own statistic)."""
    if n == 0:
        return 0.0, 1.0
    lo, hi = wilson_interval(k, n)
    return float(lo), float(hi)


def _play(job: tuple[Any, ...]) -> dict[str, Any]:
    bots, seed, n, options = job
    rec = play_game("terra-nova", None, list(bots), seed, players=n, **options)
    seats = rec.action_seats
    return {"bots": bots, "factions": rec.factions, "vp": rec.final_vp,
            "actions": rec.actions, "seats": seats, "decision_s": rec.decision_s,
            "decisions": [seats.count(s) for s in range(n)]}


def run(jobs: list[tuple[Any, ...]], workers: int) -> list[dict[str, Any]]:
    if workers > 1:
        with Pool(workers) as pool:
            return pool.map(_play, jobs, chunksize=4)
    return [_play(j) for j in jobs]


def head_to_head(bot: str, other: str, games: int, seed: int,
                 workers: int) -> tuple[float, int, list[dict[str, Any]]]:
    jobs: list[tuple[Any, ...]] = [((bot, other) if i % 2 == 0 else (other, bot), seed + i, 2,
                                    {}) for i in range(games)]
    results = run(jobs, workers)
    wins = 0.0
    for r in results:
        me = r["bots"].index(bot)
        a, b = r["vp"][me], r["vp"][1 - me]
        wins += 1.0 if a > b else 0.5 if a == b else 0.0
    return wins, games, results


def label(r: dict[str, Any], seat: int) -> str:
    bot = r["bots"][seat]
    return bot if isinstance(bot, str) else bot[0]


def timing(results: Iterable[dict[str, Any]], spent: dict, count: Counter) -> None:
    for r in results:
        for s in range(len(r["bots"])):
            spent[label(r, s)] += r["decision_s"][s]
            count[label(r, s)] += r["decisions"][s]


def coverage(results: list[dict[str, Any]]) -> dict[str, Counter]:
    game = get_game("terra-nova")
    assert isinstance(game, TerraNova)
    kinds: Counter = Counter()
    palaces: Counter = Counter()
    for r in results:
        for text, seat in zip(r["actions"], r["seats"], strict=True):
            words = text.split()
            kinds[words[0]] += 1
            if words[0] == "palace":
                palaces[f"{r['factions'][seat]}/{words[2]}"] += 1
    all_kinds = sorted(game.codec.kinds)
    all_palaces = sorted(f"{f}/{side}" for f in game.faction_slugs() for side in ("left",
                                                                                   "right"))
    return {"kinds": Counter({k: kinds[k] for k in all_kinds}),
            "palaces": Counter({k: palaces[k] for k in all_palaces})}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer games (minutes, not an hour)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--with-mcts", action="store_true", help="mcts joins the round robin")
    args = ap.parse_args(argv)
    q = args.quick
    n_random, n_mcts, rr_reps, n_cov = (40, 12, 1, 120) if q else (200, 60, 4, 1000)
    spent: dict[str, float] = defaultdict(float)
    count: Counter = Counter()
    t0 = time.perf_counter()

    print(f"== 1. scripted bots vs random, 2 players, {n_random} games each")
    for i, bot in enumerate(SCRIPTED):
        wins, n, res = head_to_head(bot, "random", n_random, args.seed + 10_000 * i,
                                    args.workers)
        lo, hi = wilson(wins, n)
        timing(res, spent, count)
        verdict = "ok" if wins / n >= 0.95 else "BELOW 95%"
        print(f"  {bot:<13} {wins / n:6.1%}  [{lo:.1%}, {hi:.1%}]  {verdict}")

    print(f"== 2. mcts (default budget) vs greedy, 2 players, {n_mcts} games")
    wins, n, res = head_to_head("mcts", "greedy", n_mcts, args.seed + 90_000, args.workers)
    lo, hi = wilson(wins, n)
    timing(res, spent, count)
    mean_margin = sum(r["vp"][r["bots"].index("mcts")] - r["vp"][1 - r["bots"].index("mcts")]
                      for r in res) / n
    print(f"  mcts wins {wins / n:.1%}  [{lo:.1%}, {hi:.1%}]  mean VP margin {mean_margin:+.1f}"
          f"  {'significant' if lo > 0.5 else 'not significant'}")

    roster = SCRIPTED + (["mcts"] if args.with_mcts else [])
    jobs: list[tuple[Any, ...]] = []
    seed = args.seed + 200_000
    for combo in itertools.combinations(roster, 4):
        for _rep in range(rr_reps):
            for rot in range(4):
                jobs.append((combo[rot:] + combo[:rot], seed, 4, {}))
                seed += 1
    print(f"== 3. 4-player round robin of {len(roster)} bots: {len(jobs)} games")
    res = run(jobs, args.workers)
    timing(res, spent, count)
    share: dict[str, float] = defaultdict(float)
    played: Counter = Counter()
    win_vp: list[int] = []
    vp_sum: Counter = Counter()
    for r in res:
        best = max(r["vp"])
        win_vp.append(best)
        winners = [s for s in range(4) if r["vp"][s] == best]
        for s in range(4):
            played[label(r, s)] += 1
            vp_sum[label(r, s)] += r["vp"][s]
            if s in winners:
                share[label(r, s)] += 1 / len(winners)
    print(f"  {'bot':<13} {'games':>5} {'win share':>9}  {'95% Wilson':<16} mean VP")
    for bot in sorted(roster, key=lambda b: -share[b] / max(played[b], 1)):
        lo, hi = wilson(share[bot], played[bot])
        print(f"  {bot:<13} {played[bot]:>5} {share[bot] / played[bot]:>9.1%}  "
              f"[{lo:.1%}, {hi:.1%}]  {vp_sum[bot] / played[bot]:.1f}")
    print(f"  mean winning VP {sum(win_vp) / len(win_vp):.1f} (chance share 25%)")

    print(f"== 4. coverage: {n_cov} 4-player games of the scripted roster")
    jobs = []
    for i in range(n_cov):
        start = i % len(SCRIPTED)
        bots = tuple(SCRIPTED[(start + k * (1 + i % 2)) % len(SCRIPTED)] for k in range(4))
        jobs.append((bots, args.seed + 500_000 + i, 4, {}))
    res = run(jobs, args.workers)
    timing(res, spent, count)
    variants = [((SCRIPTED[i % 6], SCRIPTED[(i + 1) % 6]), args.seed + 700_000 + i, 2,
                 {"variant": ("planner", "lucky-digger")[i % 2]}) for i in range(20)]
    cov = coverage(res)
    var_cov = coverage(run(variants, args.workers))
    print("  action kinds (4-player games; + 2-player variant games):")
    for k, c in cov["kinds"].items():
        extra = var_cov["kinds"][k]
        flag = "" if c else ("  (2-player variants only)" if extra else "  NEVER USED")
        print(f"    {k:<22} {c:>8} + {extra:<6}{flag}")
    print("  palace abilities built (faction/side):")
    for k, c in cov["palaces"].items():
        print(f"    {k:<28} {c:>6}{'' if c else '  NEVER BUILT'}")
    missing = [k for k, c in cov["kinds"].items() if not c and not var_cov["kinds"][k]]
    print(f"  missing kinds: {missing or 'none'}; missing palaces: "
          f"{[k for k, c in cov['palaces'].items() if not c] or 'none'}")

    print("== 5. mean decision time per bot")
    for bot in sorted(count):
        per = spent[bot] / max(count[bot], 1)
        print(f"  {bot:<13} {1000 * per:8.3f} ms/decision  over {count[bot]} decisions")
    print(f"total wall time {time.perf_counter() - t0:.0f}s")


if __name__ == "__main__":
    main()
