"""Fit the search bot's leaf value (leaf.py) to how games of the tuned mix ended:
`python -m strategies.fit_leaf --game G [--players P] [--games N] [--holdout M] [--seed S]
[--workers W]`.

It plays the game's tuned default mix (4 players unless told) and records each player's
valuation terms (its heuristic's `leaf_terms`) wherever a search's playout stops at a round's
end. It fits each round's terms and a constant per faction to final VP within each game (ridge
regression), reports the held-out fit against the valuation's, and writes
tuned/search-leaf-<P>p.toml beside the game's bots. Run it again after re-tuning the weights or
changing the game's data: the terms are in the tuned weights' units.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from strategies import bench
from strategies.heuristic import Heuristic
from strategies.leaf import path
from strategies.registry import default_strategies
from terra_sim.core.errors import UserError
from terra_sim.games import DEFAULT_GAME, game_bots, get_game
from terra_sim.play import new_game
from terra_sim.run.tune import toml_value

RIDGE = 1.0  # keeps a term that barely varies in some round (a weight of zero) from exploding


def heuristic(game: str) -> Heuristic:
    """The game's search heuristic, which names the leaf's terms; a clear error without them."""
    h = getattr(game_bots(game), "HEURISTIC", Heuristic)(random.Random(0), 1, 0.0)
    if not h.leaf_names:
        raise UserError(f"{game}'s search heuristic names no leaf terms to fit")
    return h


def record(bots: list[Any], seed: int, factions: list[str] | None, players: int,
           game: str = DEFAULT_GAME) -> dict[str, Any]:
    """One game of `bots`; each player's terms (with its faction's tuned weights, as the search
    values it) wherever a search's playout would stop at a round's end, and the final VP. The
    model is looked up by the leaf's round: a game keeps the first such state of each round (a
    round's end that asks nobody anything is skipped, and the next round's start stands in)."""
    state, _ = new_game(get_game(game), factions, seed, players, None, {})
    agents = bench.seated(bots, seed, game)
    h = heuristic(game)
    rows: list[tuple[int, int, str, list[float]]] = []
    seen, done = 1, set()
    while not state.is_over():
        if h.playout_over(state, seen):
            seen = max(seen + 1, state.round)
            if state.round not in done:
                done.add(state.round)
                for i in range(players):
                    faction, t = h.leaf_terms(state, i)
                    rows.append((state.round, i, faction, t))
        state.apply(agents[state.current_player()].choose(state, state.legal_actions()))
    return {"bots": bots, "vp": state.vp(), "rows": rows}


def games(game: str, n: int, seed: int, workers: int, players: int = 4) -> list[dict[str, Any]]:
    """n games of the tuned default mix, each seat's bot drawn by the seed."""
    rng = random.Random(seed)
    names = default_strategies(game)
    jobs: list[tuple[Any, ...]] = [([rng.choice(names) for _ in range(players)], seed + i, None,
                                    players) for i in range(n)]
    return bench.run(partial(record, game=game), jobs, workers)


def table(played: list[dict[str, Any]], r: int, factions: list[str],
          summed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Round r's rows as (terms + faction indicators, final VP, the plain sum of the first
    `summed` terms: the valuation), each centred on its game's mean: only how a player stands
    against its table counts."""
    xs, ys, vs = [], [], []
    for g in played:
        rows = [row for row in g["rows"] if row[0] == r]
        if not rows:
            continue
        x = np.array([[*t, *(float(f == k) for k in factions)] for _, _, f, t in rows])
        y = np.array([float(g["vp"][seat]) for _, seat, _, _ in rows])
        v = x[:, :summed].sum(axis=1)
        xs.append(x - x.mean(axis=0))
        ys.append(y - y.mean())
        vs.append(v - v.mean())
    return np.vstack(xs), np.concatenate(ys), np.concatenate(vs)


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Ridge regression of y on x (no intercept: both are centred)."""
    return np.linalg.solve(x.T @ x + RIDGE * np.eye(x.shape[1]), x.T @ y)


def r2(y: np.ndarray, predicted: np.ndarray) -> float:
    return float(1.0 - ((y - predicted) ** 2).sum() / (y ** 2).sum())


def fit_rounds(train: list[dict[str, Any]], holdout: list[dict[str, Any]], features: int = 0
               ) -> tuple[dict[int, tuple[list[float], dict[str, float]]],
                          dict[int, tuple[float, float]]]:
    """Each round's fit on `train`, and on `holdout` the share of final VP's spread within a
    game it explains against what the valuation (the plain sum of the terms before the last
    `features`, the position's counts) explains, scaled by its own best slope."""
    factions = sorted({f for g in train for _, _, f, _ in g["rows"]})
    n = len(train[0]["rows"][0][3])
    summed = n - features
    rounds = sorted({row[0] for g in train for row in g["rows"]})
    model: dict[int, tuple[list[float], dict[str, float]]] = {}
    quality: dict[int, tuple[float, float]] = {}
    for r in rounds:
        x, y, v = table(train, r, factions, summed)
        beta = fit(x, y)
        slope = float(v @ y / (v @ v))
        if any(row[0] == r for g in holdout for row in g["rows"]):
            hx, hy, hv = table(holdout, r, factions, summed)
            quality[r] = (r2(hy, slope * hv), r2(hy, hx @ beta))
        else:  # no held-out game reached this leaf
            quality[r] = (float("nan"), float("nan"))
        model[r] = ([float(b) for b in beta[:n]],
                    {f: float(b) for f, b in zip(factions, beta[n:], strict=True)})
    return model, quality


def write(out: Path, game: str, names: tuple[str, ...],
          model: dict[int, tuple[list[float], dict[str, float]]],
          quality: dict[int, tuple[float, float]], command: str, players: int, seed: int,
          train: int, holdout: int) -> None:
    g = get_game(game)
    lines = [f"# The search bot's leaf value for {game}: valuation's terms (and any counts of",
             "# the position after them) weighed by how well they foretold final VP in games",
             "# of the tuned mix (made by strategies/fit_leaf.py). holdout_r2 is per round",
             "# [the valuation's, the fit's], on games the fit never saw. Refit after",
             "# re-tuning the weights or changing the game's data.",
             "", "[provenance]"]
    prov: dict[str, Any] = {
        "command": command, "game": game, "engine": g.version, "data_set": g.data_set,
        "bots": "the tuned default mix", "players": players, "seed": seed, "games": train,
        "holdout_games": holdout, "ridge": RIDGE, "date": date.today().isoformat()}
    lines += [f"{k} = {toml_value(v)}" for k, v in prov.items()]
    lines += [f"holdout_r2_round_{r} = [{q[0]:.3f}, {q[1]:.3f}]" for r, q in quality.items()]
    for r, (coef, faction) in model.items():
        lines += ["", f"[round.{r}.terms]"]
        lines += [f"{t} = {c:.6g}" for t, c in zip(names, coef, strict=True)]
        lines += ["", f"[round.{r}.faction]"]
        lines += [f'"{f}" = {c:.6g}' for f, c in faction.items()]
    tmp = out.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    os.replace(tmp, out)  # a kill leaves the old model or the new, never half of one


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--game", default=DEFAULT_GAME)
    ap.add_argument("--players", type=int, default=4, choices=range(2, 6))
    ap.add_argument("--games", type=int, default=3000, help="games to fit on")
    ap.add_argument("--holdout", type=int, default=1000, help="games to check the fit on")
    ap.add_argument("--seed", type=int, default=100000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, help="default: the shipped file the search reads")
    args = ap.parse_args(argv)
    if args.games < 1 or args.holdout < 1:
        ap.error("--games and --holdout must be at least 1")
    try:
        g = get_game(args.game)
        game = g.slug
        h = heuristic(game)
        if args.players not in g.player_counts:
            raise UserError(f"{game} plays with {g.player_counts} players, not {args.players}")
    except UserError as e:
        raise SystemExit(f"error: {e}") from None
    t0 = time.perf_counter()
    out = args.out or path(h.folder(), args.players)
    played = games(game, args.games + args.holdout, args.seed, args.workers, args.players)
    model, quality = fit_rounds(played[:args.games], played[args.games:], len(h.leaf_features))
    command = "python -m strategies.fit_leaf " + " ".join(
        argv if argv is not None else sys.argv[1:])
    write(out, game, h.leaf_names, model, quality, command.strip(), args.players, args.seed,
          args.games, args.holdout)
    print(f"== the search's leaf value for {game}, fitted on {args.games} {args.players}-player "
          "games of the tuned mix, "
          f"checked on {args.holdout} others: share of final VP's spread within a game")
    print(f"  {'round':>5} {'valuation':>10} {'fitted':>8}")
    for r, (val, fitted) in quality.items():
        print(f"  {r:>5} {val:>10.3f} {fitted:>8.3f}")
    print(f"wrote {out} ({time.perf_counter() - t0:.0f}s)")


if __name__ == "__main__":
    main()
