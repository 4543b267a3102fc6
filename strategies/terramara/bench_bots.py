"""Benchmark Terramara's bot roster:
`python -m strategies.terramara.bench_bots [--games N] [--roster-games N] [--workers N]`.

1. Every scripted bot against `random` in 2-player games (seats alternate): win rate, Wilson 95%.
2. Speed: milliseconds per 4-player game of four scripted bots.
3. Behaviour: over 4-player games of the roster (every 4-bot combination, rotated through the
   seats), what each bot does: raids, Travel steps and Road progress, camp arrivals, Flags,
   Artifacts created, River position, Military, Workers, Explorers on future spaces, VP.
4. Per Character: games, mean VP and win share of each Character over the same games.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict
from typing import Any

from strategies import bench
from strategies.terramara.valuation import progress
from terra_sim.analysis.stats import wilson_interval
from terra_sim.core.errors import IllegalAction
from terra_sim.core.record import new_game
from terra_sim.games import get_game
from terra_sim.games.terramara.actions import Action
from terra_sim.games.terramara.board import HOME, SPECIAL, TERRITORY, round_of_row
from terra_sim.games.terramara.road import CAMP
from terra_sim.games.terramara.state import PIECES, TerramaraState

GAME = "terramara"
SCRIPTED = ["greedy", "raider", "road-runner", "artifact-collector", "river"]
# What `uses` counts, by the action a seat plays (see `count_uses`).
USES = ("raid", "travel-space", "develop", "worker", "first", "hut", "crossroads-space",
        "future-space", "join", "road-step", "bonus-detour", "outpost-detour", "craft",
        "reserve", "flip")
STATS = ("vp", "raids", "road_steps", "road", "camp", "flags", "artifacts", "reserved_left",
         "river", "military", "workers", "future")


def count_uses(s: TerramaraState, seat: int, a: Action) -> list[str]:
    """The mechanisms action `a` of `seat` uses in state `s` (before it is played). A grouped
    2-player Homeland space counts each of its actions when the member is sent."""
    out: list[str] = []
    if a.kind in PIECES:
        name = str(a.args[0])
        if name == "hut":
            return ["hut"]
        i = s.board.index[name]
        sp = s.board.spaces[i]
        if sp.kind == HOME:
            out += ["travel-space" if act == "travel" else act for act in sp.actions]
        elif sp.kind in (TERRITORY, SPECIAL):
            if round_of_row(sp.row) > s.round:
                out.append("future-space")
        else:
            out.append("crossroads-space")
        if s.occ[2 * i] >= 0:
            out.append("join")
    elif a.kind == "road":
        out.append("road-step")
        node = str(a.args[1])
        if node.startswith("B"):
            out.append("bonus-detour")
        elif node.startswith("O"):
            out.append("outpost-detour")
    elif a.kind in ("craft", "reserve", "flip"):
        out.append(a.kind)
    return out


def play_counted(bots: list[Any], seed: int, factions: list[str] | None = None,
                 players: int | None = None) -> dict[str, Any]:
    """One game played like `terra_sim.play_game` (same seeds, so the same game), counting
    what each seat does. Raises IllegalAction if a bot plays an illegal action."""
    g = get_game(GAME)
    state, setup = new_game(g, factions, seed, players or len(bots), None, {})
    assert isinstance(state, TerramaraState)
    n = len(setup["factions"])
    agents = bench.seated(bots, seed, GAME)
    uses: list[Counter] = [Counter() for _ in range(n)]
    spent = [0.0] * n
    future = [0] * n
    actions = 0
    while not state.is_over():
        legal = state.legal_actions()
        seat = state.current_player()
        t = time.perf_counter()
        a = agents[seat].choose(state, legal)
        spent[seat] += time.perf_counter() - t
        if a not in legal:
            raise IllegalAction(f"{bots[seat]} played illegal {a!r} in seed {seed}")
        got = count_uses(state, seat, a)
        uses[seat].update(got)
        future[seat] += "future-space" in got
        state.apply(a)
        actions += 1
    players_out = []
    for p in state.players:
        players_out.append({
            "vp": p.total_vp, "raids": uses[p.seat]["raid"],
            "road_steps": uses[p.seat]["road-step"],
            "road": sum(progress(c) for c in p.caravans),
            "camp": sum(1 for c in p.caravans if c == CAMP), "flags": len(p.flags),
            "artifacts": len(p.artifacts), "reserved_left": int(p.reserved >= 0),
            "river": p.river, "military": p.military, "workers": sum(p.workers),
            "future": future[p.seat]})
    return {"bots": list(bots), "factions": setup["factions"],
            "characters": [p.character for p in state.players], "vp": state.vp(),
            "winners": state.winners(), "uses": uses, "spent": spent, "actions": actions,
            "players": players_out}


def run(jobs: list[tuple[Any, ...]], workers: int) -> list[dict[str, Any]]:
    return bench.run(play_counted, jobs, workers)


def versus_random(bot: str, games: int, seed: int, workers: int) -> tuple[float, int]:
    return bench.versus_random(play_counted, bot, games, seed, workers)


def roster_jobs(games: int, seed: int, players: int = 4) -> list[tuple[Any, ...]]:
    return bench.roster_jobs(SCRIPTED, games, seed, players)


def behaviour(res: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Means per player of every STATS entry, by bot."""
    rows: dict[str, list[dict[str, int]]] = defaultdict(list)
    for r in res:
        for seat, bot in enumerate(r["bots"]):
            rows[bot].append(r["players"][seat])
    return {bot: {k: sum(x[k] for x in xs) / len(xs) for k in STATS}
            for bot, xs in rows.items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=300, help="games per bot against random")
    ap.add_argument("--roster-games", type=int, default=200, help="4-player roster games")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()

    print(f"== 1. scripted bots vs random, 2 players, {args.games} games each")
    for i, bot in enumerate(SCRIPTED):
        wins, n = versus_random(bot, args.games, args.seed + 10_000 * i, args.workers)
        lo, hi = wilson_interval(wins, n)
        verdict = "ok" if wins / n >= 0.95 else "BELOW 95%"
        print(f"  {bot:<19} {wins / n:6.1%}  [{float(lo):.1%}, {float(hi):.1%}]  {verdict}")

    print("== 2. speed: 4-player games of four scripted bots (one process)")
    jobs = roster_jobs(20, args.seed + 50_000)
    t = time.perf_counter()
    res = run(jobs, 1)
    per = (time.perf_counter() - t) / len(jobs)
    acts = sum(r["actions"] for r in res) / len(res)
    think = sum(sum(r["spent"]) for r in res) / len(res)
    print(f"  {1000 * per:.0f} ms per game, {1000 * think:.0f} ms of it the bots' "
          f"({acts:.0f} decisions per game)")

    print(f"== 3. behaviour: means per player over {args.roster_games} 4-player roster games")
    res = run(roster_jobs(args.roster_games, args.seed + 100_000), args.workers)
    table = behaviour(res)
    print(f"  {'bot':<19}" + "".join(f"{k:>9}" for k in STATS))
    for bot in SCRIPTED:
        print(f"  {bot:<19}" + "".join(f"{table[bot][k]:>9.2f}" for k in STATS))
    uses: dict[str, Counter] = defaultdict(Counter)
    seats: Counter = Counter()
    for r in res:
        for seat, bot in enumerate(r["bots"]):
            uses[bot].update(r["uses"][seat])
            seats[bot] += 1
    print("  actions per player and game:")
    print(f"  {'action':<19}" + "".join(f"{b[:11]:>12}" for b in SCRIPTED))
    for u in USES:
        print(f"  {u:<19}" + "".join(f"{uses[b][u] / max(seats[b], 1):>12.2f}"
                                     for b in SCRIPTED))

    print("== 4. per Character over the roster games (win share counts shared wins split)")
    games: Counter = Counter()
    vp: dict[str, list[int]] = defaultdict(list)
    won: dict[str, float] = defaultdict(float)
    for r in res:
        for seat, ch in enumerate(r["characters"]):
            games[ch] += 1
            vp[ch].append(r["vp"][seat])
            if seat in r["winners"]:
                won[ch] += 1 / len(r["winners"])
    print(f"  {'character':<12}{'seats':>7}{'mean VP':>9}{'win share':>11}")
    for ch in sorted(games):
        print(f"  {ch:<12}{games[ch]:>7}{sum(vp[ch]) / games[ch]:>9.1f}"
              f"{won[ch] / games[ch]:>11.1%}")
    print(f"total wall time {time.perf_counter() - t0:.0f}s")


if __name__ == "__main__":
    main()
