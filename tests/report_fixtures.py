"""Fabricated run directories with the runner's schema, so report tests do not need the engine.

Scores come from known built-in faction strengths plus a strategy effect, a seat effect and noise,
so tests can check that the report finds what was put in.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
from scipy.stats import rankdata

from terra_sim.store import schema

FACTIONS = ["auren", "chaos", "cultists", "dwarves", "engineers", "fakirs", "giants",
            "halflings", "mermaids", "witches"]
# VP added per game: witches strong, halflings weak, the rest close to even.
STRENGTH = {"auren": 0, "chaos": 2, "cultists": -2, "dwarves": 1, "engineers": -1, "fakirs": 0,
            "giants": 1, "halflings": -14, "mermaids": -1, "witches": 14}
STRATEGIES = ["greedy", "random"]
STRATEGY_EFFECT = {"greedy": 4, "random": -4}
CATEGORIES = ["round", "town", "sailing", "faction", "money", "territory"]


def make_run(path: Path, *, n4: int = 400, n2: int = 100, seed: int = 7,
             strength: dict[str, float] | None = None, noise: float = 12.0,
             errors: int = 2, overrides: dict | None = None, parts: int = 2,
             strategies: list[str] | None = None) -> Path:
    """Write a run directory with n4 four-player and n2 two-player games and return its path."""
    strength = STRENGTH if strength is None else strength
    strategies_pool = STRATEGIES if strategies is None else strategies
    rng = np.random.default_rng(seed)
    path.mkdir(parents=True, exist_ok=True)
    games, players = [], []
    gid = 0
    for n, count in ((4, n4), (2, n2)):
        for _ in range(count):
            factions = list(rng.choice(FACTIONS, size=n, replace=False))
            strategies = list(rng.choice(strategies_pool, size=n))
            seat_bonus = np.array([3.0, 1.0, -1.0, -3.0][:n])  # start player does best
            vp = np.rint(100 + np.array([strength[f] for f in factions])
                         + np.array([STRATEGY_EFFECT[s] for s in strategies])
                         + seat_bonus + rng.normal(0, noise, n)).astype(int)
            vp = np.maximum(vp, 0)
            rank = rankdata(-vp, method="average")
            top = vp == vp.max()
            win = np.where(top, 1.0 / top.sum(), 0.0)
            margin = vp - vp.mean()
            for seat in range(n):
                shares = rng.dirichlet(np.ones(len(CATEGORIES)))
                cats = np.floor(shares * vp[seat]).astype(int)
                cats[0] += vp[seat] - cats.sum()  # rounding remainder goes to round scoring
                row = {"game_id": gid, "n_players": n, "seat": seat, "faction": factions[seat],
                       "strategy": strategies[seat], "vp": int(vp[seat]),
                       "rank": float(rank[seat]), "win_share": float(win[seat]),
                       "margin": float(margin[seat])}
                row.update({f"vp_{c}": int(v) for c, v in zip(CATEGORIES, cats, strict=True)})
                players.append(row)
            games.append({"game_id": gid, "seed": int(rng.integers(0, 2**63)),
                          "game": "terra-nova", "n_players": n, "variant": "standard",
                          "rounds": 6, "n_actions": int(rng.integers(80, 140) * n / 4),
                          "duration_s": float(rng.uniform(0.05, 0.3)),
                          "setup": '{"round_tiles": ["r1", "r2", "r3"]}'})
            gid += 1
    pschema = schema.players_schema(CATEGORIES)
    gschema = schema.GAMES_SCHEMA
    pdf = pl.DataFrame(players, schema=pschema)
    gdf = pl.DataFrame(games, schema=gschema)
    _write_parts(pdf, path / "players", parts)
    _write_parts(gdf, path / "games", parts)
    if errors:
        edf = pl.DataFrame({"game_id": list(range(gid, gid + errors)),
                            "seed": [1] * errors, "strategies": ["greedy,random"] * errors,
                            "factions": ["witches,auren"] * errors,
                            "message": ["seat 1 (random): raised ValueError: boom"] * errors,
                            "traceback": ["Traceback ..."] * errors})
        _write_parts(edf, path / "errors", 1)
    (path / "actions").mkdir(exist_ok=True)  # present but empty, as with zero part files
    manifest = {
        "game": "terra-nova", "master_seed": seed, "planned_games": gid + errors,
        "finished_games": gid, "player_counts": [4, 2] if n2 else [4],
        "factions": FACTIONS, "strategies": strategies_pool, "package_version": "0.1.0",
        "engine_version": "tn-1", "data_set": "terra-nova-base", "data_hash": "abc123",
        "overrides": overrides or {}, "approximate_data": ["mermaids town bonus (invented)"],
        "started_at": "2024-05-01T10:00:00", "finished_at": "2024-05-01T10:01:00",
        "wall_s": 60.0, "config": {"games": gid + errors},
    }
    (path / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return path


def _write_parts(df: pl.DataFrame, folder: Path, parts: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    size = max(1, -(-df.height // parts))
    for i, start in enumerate(range(0, df.height, size)):
        df.slice(start, size).write_parquet(folder / f"part-{i:05d}.parquet")


def make_scored_run(path: Path, tables: list[tuple[list[str], list[int]]],
                    strategy: str = "greedy") -> Path:
    """Write a run directory from finished games given as (factions by seat, final VP by seat):
    ranks, split wins and margins follow from the VP, as the runner computes them."""
    path.mkdir(parents=True, exist_ok=True)
    players, games = [], []
    for gid, (factions, vps) in enumerate(tables):
        vp = np.asarray(vps)
        n = vp.size
        rank = rankdata(-vp, method="average")
        top = vp == vp.max()
        for seat in range(n):
            players.append({"game_id": gid, "n_players": n, "seat": seat,
                            "faction": factions[seat], "strategy": strategy,
                            "vp": int(vp[seat]), "rank": float(rank[seat]),
                            "win_share": float(top[seat] / top.sum()),
                            "margin": float(vp[seat] - vp.mean()), "vp_round": int(vp[seat])})
        games.append({"game_id": gid, "seed": gid, "game": "terra-nova", "n_players": n,
                      "variant": "standard", "rounds": 6, "n_actions": 100, "duration_s": 0.1,
                      "setup": "{}"})
    _write_parts(pl.DataFrame(players, schema=schema.players_schema(["round"])),
                 path / "players", 1)
    _write_parts(pl.DataFrame(games, schema=schema.GAMES_SCHEMA), path / "games", 1)
    factions = sorted({f for fs, _ in tables for f in fs})
    (path / "manifest.json").write_text(json.dumps({
        "game": "terra-nova", "master_seed": 1, "planned_games": len(tables),
        "finished_games": len(tables), "player_counts": sorted({len(f) for f, _ in tables}),
        "factions": factions, "strategies": [strategy]}))
    return path
