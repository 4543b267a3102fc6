"""Fit the search bot's leaf value (leaf.py) to how games of the tuned mix ended:
`python -m strategies.terra_mystica.fit_leaf [--players P] [--games N] [--holdout M] [--seed S]
[--workers W]`.

It plays the tuned default mix (4 players unless told) and records each player's valuation
terms at the start of every round after the first, where the search's play-outs stop. It fits
each round's terms and a constant per faction to final VP within each game (ridge regression),
reports the held-out fit against the valuation's, and writes tuned/search-leaf-<P>p.toml. Run
it again after re-tuning the weights or changing the game's data: the terms are in the tuned
weights' units.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from strategies import bench
from strategies.registry import default_strategies
from strategies.terra_mystica.greedy import GreedyStrategy
from strategies.terra_mystica.leaf import path
from strategies.terra_mystica.valuation import TERMS, Context, terms
from terra_sim.games import get_game
from terra_sim.games.terra_mystica.state import TerraMysticaState
from terra_sim.play import new_game
from terra_sim.run.tune import toml_value

GAME = "terra-mystica"
RIDGE = 1.0  # keeps a term that barely varies in some round (a weight of zero) from exploding


def record(bots: list[Any], seed: int, factions: list[str] | None,
           players: int) -> dict[str, Any]:
    """One game of `bots`; each player's terms (with its faction's tuned greedy weights, as the
    search values it) at the start of every round after the first, and the final VP."""
    state, _ = new_game(get_game(GAME), factions, seed, players, None, {})
    assert isinstance(state, TerraMysticaState)
    agents = bench.seated(bots, seed, GAME)
    weights = {p.faction.slug: GreedyStrategy.start_weights(p.faction.slug)
               for p in state.players}
    rows: list[tuple[int, int, str, list[float]]] = []
    seen = 1
    while not state.is_over():
        if state.round > seen and state.stage == "play":
            seen = state.round
            for i, p in enumerate(state.players):
                ctx = Context.of(state, i, weights[p.faction.slug])
                rows.append((state.round, i, p.faction.slug, terms(state, i, ctx)))
        state.do(agents[state.current_player()].choose(state, state.legal_actions()))
    return {"bots": bots, "vp": state.vp(), "rows": rows}


def games(n: int, seed: int, workers: int, players: int = 4) -> list[dict[str, Any]]:
    """n games of the tuned default mix, each seat's bot drawn by the seed."""
    rng = random.Random(seed)
    names = default_strategies(GAME)
    jobs: list[tuple[Any, ...]] = [([rng.choice(names) for _ in range(players)], seed + i, None,
                                    players) for i in range(n)]
    return bench.run(record, jobs, workers)


def table(played: list[dict[str, Any]], r: int,
          factions: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Round r's rows as (terms + faction indicators, final VP, the valuation), each centred
    on its game's mean: only how a player stands against its table counts."""
    xs, ys, vs = [], [], []
    for g in played:
        rows = [row for row in g["rows"] if row[0] == r]
        if not rows:
            continue
        x = np.array([[*t, *(float(f == k) for k in factions)] for _, _, f, t in rows])
        y = np.array([float(g["vp"][seat]) for _, seat, _, _ in rows])
        v = x[:, :len(TERMS)].sum(axis=1)
        xs.append(x - x.mean(axis=0))
        ys.append(y - y.mean())
        vs.append(v - v.mean())
    return np.vstack(xs), np.concatenate(ys), np.concatenate(vs)


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Ridge regression of y on x (no intercept: both are centred)."""
    return np.linalg.solve(x.T @ x + RIDGE * np.eye(x.shape[1]), x.T @ y)


def r2(y: np.ndarray, predicted: np.ndarray) -> float:
    return float(1.0 - ((y - predicted) ** 2).sum() / (y ** 2).sum())


def fit_rounds(train: list[dict[str, Any]], holdout: list[dict[str, Any]]
               ) -> tuple[dict[int, tuple[list[float], dict[str, float]]],
                          dict[int, tuple[float, float]]]:
    """Each round's fit on `train`, and on `holdout` the share of final VP's spread within a
    game it explains against what the valuation explains (scaled by its own best slope)."""
    factions = sorted({f for g in train for _, _, f, _ in g["rows"]})
    rounds = sorted({row[0] for g in train for row in g["rows"]})
    model: dict[int, tuple[list[float], dict[str, float]]] = {}
    quality: dict[int, tuple[float, float]] = {}
    for r in rounds:
        x, y, v = table(train, r, factions)
        beta = fit(x, y)
        slope = float(v @ y / (v @ v))
        hx, hy, hv = table(holdout, r, factions)
        quality[r] = (r2(hy, slope * hv), r2(hy, hx @ beta))
        model[r] = ([float(b) for b in beta[:len(TERMS)]],
                    {f: float(b) for f, b in zip(factions, beta[len(TERMS):], strict=True)})
    return model, quality


def write(out: Path, model: dict[int, tuple[list[float], dict[str, float]]],
          quality: dict[int, tuple[float, float]], command: str, players: int, seed: int,
          train: int, holdout: int) -> None:
    g = get_game(GAME)
    lines = ["# The search bot's leaf value for terra-mystica: valuation's terms weighed by how",
             "# well they foretold final VP in games of the tuned mix (made by strategies/",
             "# terra_mystica/fit_leaf.py). holdout_r2 is per round [the valuation's, the fit's],",
             "# on games the fit never saw. Refit after re-tuning the weights or changing the",
             "# game's data.",
             "", "[provenance]"]
    prov: dict[str, Any] = {
        "command": command, "game": GAME, "engine": g.version, "data_set": g.data_set,
        "bots": "the tuned default mix", "players": players, "seed": seed, "games": train,
        "holdout_games": holdout, "ridge": RIDGE, "date": date.today().isoformat()}
    lines += [f"{k} = {toml_value(v)}" for k, v in prov.items()]
    lines += [f"holdout_r2_round_{r} = [{q[0]:.3f}, {q[1]:.3f}]" for r, q in quality.items()]
    for r, (coef, faction) in model.items():
        lines += ["", f"[round.{r}.terms]"]
        lines += [f"{t} = {c:.6g}" for t, c in zip(TERMS, coef, strict=True)]
        lines += ["", f"[round.{r}.faction]"]
        lines += [f'"{f}" = {c:.6g}' for f, c in faction.items()]
    tmp = out.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    os.replace(tmp, out)  # a kill leaves the old model or the new, never half of one


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--players", type=int, default=4, choices=range(2, 6))
    ap.add_argument("--games", type=int, default=3000, help="games to fit on")
    ap.add_argument("--holdout", type=int, default=1000, help="games to check the fit on")
    ap.add_argument("--seed", type=int, default=100000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, help="default: the shipped file the search reads")
    args = ap.parse_args(argv)
    if args.games < 1 or args.holdout < 1:
        ap.error("--games and --holdout must be at least 1")
    t0 = time.perf_counter()
    out = args.out or path(args.players)
    played = games(args.games + args.holdout, args.seed, args.workers, args.players)
    model, quality = fit_rounds(played[:args.games], played[args.games:])
    command = "python -m strategies.terra_mystica.fit_leaf " + " ".join(
        argv if argv is not None else sys.argv[1:])
    write(out, model, quality, command.strip(), args.players, args.seed, args.games,
          args.holdout)
    print(f"== the search's leaf value, fitted on {args.games} {args.players}-player games of "
          "the tuned mix, "
          f"checked on {args.holdout} others: share of final VP's spread within a game")
    print(f"  {'round':>5} {'valuation':>10} {'fitted':>8}")
    for r, (val, fitted) in quality.items():
        print(f"  {r:>5} {val:>10.3f} {fitted:>8.3f}")
    print(f"wrote {out} ({time.perf_counter() - t0:.0f}s)")


if __name__ == "__main__":
    main()
