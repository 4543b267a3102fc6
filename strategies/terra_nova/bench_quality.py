"""How well the scripted bots play:
`python -m strategies.terra_nova.bench_quality [--reps N] [--workers N]`.

A 4-player round robin of the scripted bots (every 4-bot combination, each rotated through every
seat, `reps` times with fresh seeds) reporting what a balance report built on these bots would
inherit: mean winning VP, mean VP, towns founded per player-game, VP by category, win share per
bot and per faction, and the decision time the bots spend per game (single process).
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections import Counter, defaultdict
from multiprocessing import Pool
from typing import Any

from strategies.terra_nova.valuation import DEFAULT_WEIGHTS
from terra_sim.play import play_game

SCRIPTED = ["greedy", "expander", "merchant", "town-builder", "power-player", "round-scorer"]


def _play(job: tuple[Any, ...]) -> dict[str, Any]:
    bots, seed = job
    rec = play_game("terra-nova", None, list(bots), seed, players=4)
    towns = Counter(s for a, s in zip(rec.actions, rec.action_seats, strict=True)
                    if a.startswith("town "))
    return {"bots": bots, "factions": rec.factions, "vp": rec.final_vp,
            "breakdown": rec.breakdown, "towns": [towns[s] for s in range(4)],
            "decision_s": sum(rec.decision_s)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--set", action="append", default=[], metavar="WEIGHT=VALUE",
                    help="override a default valuation weight for every bot (tuning)")
    args = ap.parse_args(argv)
    for item in args.set:  # patched before the worker processes fork, so they inherit it
        key, _, value = item.partition("=")
        if key not in DEFAULT_WEIGHTS:
            ap.error(f"unknown weight {key!r}")
        DEFAULT_WEIGHTS[key] = float(value)
    jobs = []
    seed = args.seed
    for _rep in range(args.reps):
        for combo in itertools.combinations(SCRIPTED, 4):
            for rot in range(4):
                jobs.append((combo[rot:] + combo[:rot], seed))
                seed += 1
    t0 = time.perf_counter()
    if args.workers > 1:
        with Pool(args.workers) as pool:
            res = pool.map(_play, jobs, chunksize=4)
    else:
        res = [_play(j) for j in jobs]
    n = len(res)
    win_vp = [max(r["vp"]) for r in res]
    all_vp = [v for r in res for v in r["vp"]]
    towns = sum(sum(r["towns"]) for r in res)
    cats: Counter = Counter()
    for r in res:
        for b in r["breakdown"]:
            cats.update(b)
    bot_share: dict[str, float] = defaultdict(float)
    bot_vp: Counter = Counter()
    bot_n: Counter = Counter()
    bot_towns: Counter = Counter()
    fac_share: dict[str, float] = defaultdict(float)
    fac_n: Counter = Counter()
    for r in res:
        best = max(r["vp"])
        winners = [s for s in range(4) if r["vp"][s] == best]
        for s in range(4):
            b, f = r["bots"][s], r["factions"][s]
            bot_n[b] += 1
            fac_n[f] += 1
            bot_vp[b] += r["vp"][s]
            bot_towns[b] += r["towns"][s]
            if s in winners:
                bot_share[b] += 1 / len(winners)
                fac_share[f] += 1 / len(winners)
    print(f"{n} games, 4 players, seeds {args.seed}..{seed - 1}")
    print(f"mean winning VP {sum(win_vp) / n:.1f}   mean VP {sum(all_vp) / len(all_vp):.1f}   "
          f"towns per player-game {towns / len(all_vp):.2f}")
    print("mean VP by category: " + ", ".join(
        f"{k} {v / len(all_vp):.1f}" for k, v in sorted(cats.items())))
    print(f"{'bot':<13} {'win share':>9} {'mean VP':>8} {'towns/game':>10}")
    for b in sorted(bot_n, key=lambda b: -bot_share[b] / bot_n[b]):
        print(f"{b:<13} {bot_share[b] / bot_n[b]:>9.1%} {bot_vp[b] / bot_n[b]:>8.1f} "
              f"{bot_towns[b] / bot_n[b]:>10.2f}")
    shares = {f: fac_share[f] / fac_n[f] for f in fac_n}
    print("faction win share (games): " + ", ".join(
        f"{f} {s:.0%} ({fac_n[f]})" for f, s in sorted(shares.items(), key=lambda t: -t[1])))
    print(f"faction spread: {max(shares.values()):.0%} - {min(shares.values()):.0%}")
    dec = sorted(r["decision_s"] for r in res)
    print(f"decision time per game: mean {1000 * sum(dec) / n:.1f} ms, "
          f"median {1000 * dec[n // 2]:.1f} ms, max {1000 * dec[-1]:.1f} ms "
          f"({args.workers} workers; wall {time.perf_counter() - t0:.0f}s)")


if __name__ == "__main__":
    main()
