"""Benchmark Terra Mystica's bot roster:
`python -m strategies.terra_mystica.bench_bots [--games N] [--workers N] [--seed S]`.

1. Every scripted bot against `random` in 2-player games (seats alternate): win rate, Wilson 95%.
2. Speed: milliseconds per 4-player game of four scripted bots.
3. Special rules: over 4-player games of the roster (every faction in turn), how often each
   faction's special rule and each shared mechanism (favour tiles, towns, cult steps, advances,
   power actions, power offers, conversions) was used, per bot and per faction, and each
   faction's own rule per game split by the plan that played it.
4. Focus: what each plan does more or less of than the others (buildings, cults, towns, power).

With `--faction F --weights name=value,...` it answers one question instead: does greedy with
those weights (laid over F's tuned ones) play F better, and does it use F's power more? F sits
in every game (seat rotating, the other seats the scripted roster); each deal is played once
with the changed greedy in F's seat and once with the shipped one, and the margins are paired.
`--faction any` asks it of every faction at once: the changed seat rotates and each deal's seed
draws its factions.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter, defaultdict
from typing import Any

from strategies import bench
from terra_sim.analysis.stats import wilson_interval
from terra_sim.core.errors import IllegalAction
from terra_sim.games import get_game
from terra_sim.games.terra_mystica.actions import Action
from terra_sim.games.terra_mystica.state import TerraMysticaState
from terra_sim.play import new_game

GAME = "terra-mystica"
SCRIPTED = ["greedy", "expander", "cult-runner", "town-builder", "power-player", "round-scorer"]
# Each faction's special rule, as counted by `special_rule`; the shared mechanisms after them.
FACTION_RULES = {
    "witches": "witches-ride", "auren": "auren-cult-action", "halflings": "halflings-sh-spades",
    "cultists": "cultists-leech-reward", "alchemists": "alchemists-trade",
    "darklings": "darklings-priest-spades", "engineers": "engineers-bridge",
    "dwarves": "dwarves-tunnel", "fakirs": "fakirs-carpet", "mermaids": "mermaids-river-town",
    "swarmlings": "swarmlings-free-tp", "chaos-magicians": "chaos-double-turn",
    "giants": "giants-spade-action", "nomads": "nomads-sandstorm",
}
# Uses per game of its own rule a strong player's faction makes (4 players);
# strategies/terra_mystica/README.md says why each.
TARGETS = {
    "witches": 2.0, "auren": 2.0, "halflings": 0.7, "cultists": 3.0, "alchemists": 1.0,
    "darklings": 2.0, "engineers": 2.0, "dwarves": 2.0, "fakirs": 2.0, "mermaids": 0.5,
    "swarmlings": 2.0, "chaos-magicians": 2.0, "giants": 2.0, "nomads": 2.0,
}
EXTRA_RULES = ("darklings-sh-conversion",)
ANY = "any"  # --faction any: the changed greedy sits in seat deal % 4, whatever its faction
SHARED = ("favour-tile", "town", "cult-step", "send-priest", "advance-ship", "advance-dig",
          "power-action", "bridge", "leech-taken", "leech-declined", "burn", "convert",
          "stronghold", "sanctuary", "temple", "trading-house", "dwelling")
# The Engineers' own bridge action (ACTE) is counted at the bridge it builds, with the board's.
SPECIAL_ACTIONS = {"ACTW": "witches-ride", "ACTA": "auren-cult-action",
                   "ACTS": "swarmlings-free-tp",
                   "ACTC": "chaos-double-turn", "ACTG": "giants-spade-action",
                   "ACTN": "nomads-sandstorm"}
UPGRADE_NAMES = {"TP": "trading-house", "TE": "temple", "SH": "stronghold", "SA": "sanctuary"}


def special_rule(s: TerraMysticaState, seat: int, a: Action) -> list[str]:
    """The rules and mechanisms action `a` of `seat` uses in state `s` (before it is played)."""
    p = s.players[seat]
    kind, args = a
    eff = p.eff
    out: list[str] = []
    if kind == "action":
        act = args[0]
        if act in SPECIAL_ACTIONS:
            out.append(SPECIAL_ACTIONS[act])
        if act in s.data.tiles.power_actions:
            out.append("power-action")
    elif kind == "connect":
        out.append("mermaids-river-town")
    elif kind == "convert":
        out.append("convert")
        if args in (("VP", "C"), ("C", "VP")) and "alchemist_trade" in eff:
            out.append("alchemists-trade")
        if args == ("W", "P"):
            out.append("darklings-sh-conversion")
    elif kind == "burn":
        out.append("burn")
    elif kind == "favor":
        out.append("favour-tile")
    elif kind == "town":
        out.append("town")
    elif kind == "cult":
        out.append("cult-step")
        # a step owed after the turn ended: the Cultists' reward for a power offer taken
        if "cult_leech" in eff and any(e[0] == "next-turn" for e in s.pending):
            out.append("cultists-leech-reward")
    elif kind == "send":
        out.append("send-priest")
    elif kind == "advance":
        out.append("advance-" + args[0])
    elif kind == "bridge":
        out.append("bridge")
        # Every bridge of theirs counts, by their own action or the board's (ACT1): their
        # stronghold pays 3 VP a pass for each, whichever action built it.
        if "bridge_workers" in eff:
            out.append("engineers-bridge")
    elif kind == "leech":
        out.append("leech-taken")
    elif kind == "decline":
        out.append("leech-declined")
    elif kind == "upgrade":
        out.append(UPGRADE_NAMES[args[1]])
    if kind in ("build", "transform"):
        h = args[0]
        if kind == "build":
            out.append("dwelling")
        spade = s.spade if s.pending else {}
        if spade.get("ride") or spade.get("sandstorm"):
            return out
        dst = s.data.wheel.index(args[1]) if len(args) > 1 else p.faction.home
        dug = s.spades_needed(p, s.terrain[h], dst) - spade.get("free", 0)
        if "priest_spades" in eff and dug > 0:
            out.append("darklings-priest-spades")
        if s.pending and s.pending[0][0] == "spades" and "spades" in p.faction.stronghold \
                and p.b["SH"] and spade.get("free", 0) and not spade.get("cult"):
            out.append("halflings-sh-spades")
        if not spade.get("cult") and not s.direct_reach(p) >> h & 1:
            if "tunnel_workers" in eff:
                out.append("dwarves-tunnel")
            elif "carpet_priests" in eff:
                out.append("fakirs-carpet")
    return out


def play_counted(bots: list[Any], seed: int, factions: list[str] | None = None,
                 players: int | None = None) -> dict[str, Any]:
    """One game played like `terra_sim.play_game` (same seeds, so the same game), counting
    the rules each seat uses. Raises IllegalAction if a bot plays an illegal action."""
    g = get_game(GAME)
    state, setup = new_game(g, factions, seed, players or len(bots), None, {})
    assert isinstance(state, TerraMysticaState)
    n = len(setup["factions"])
    agents = bench.seated(bots, seed, GAME)
    uses: list[Counter] = [Counter() for _ in range(n)]
    spent = [0.0] * n
    actions = 0
    while not state.is_over():
        legal = state.legal_actions()
        seat = state.current_player()
        t = time.perf_counter()
        a = agents[seat].choose(state, legal)
        spent[seat] += time.perf_counter() - t
        if a not in legal:
            raise IllegalAction(f"{bots[seat]} played illegal {a!r} in seed {seed}")
        uses[seat].update(special_rule(state, seat, a))
        state.do(a)
        actions += 1
    return {"bots": list(bots), "factions": [p.faction.slug for p in state.players],
            "vp": state.vp(), "uses": uses, "spent": spent, "actions": actions,
            "players": [{"cults": sum(p.cults), "towns": len(p.town_tiles),
                         "buildings": p.buildings.bit_count(), "priests_sent": p.cult_priests,
                         "leech_vp": p.vp[5], "network": p.vp[8]} for p in state.players]}


def seatings(faction: str, games: int) -> list[list[str]]:
    """`games` seatings with `faction` in seat i % 4 and three others of other home terrains."""
    g = get_game(GAME)
    groups = [sorted(group) for group in g.exclusive_groups()]
    mine = next(grp for grp in groups if faction in grp)
    others = [f for grp in groups if grp is not mine for f in grp]
    rng = random.Random(faction)
    out = []
    for i in range(games):
        rest: list[str] = []
        for f in rng.sample(others, len(others)):
            if all(not ({f, r} <= set(grp)) for grp in groups for r in rest):
                rest.append(f)
            if len(rest) == 3:
                break
        rest.insert(i % 4, faction)
        out.append(rest)
    return out


def variant_jobs(faction: str, weights: dict[str, float], deals: int,
                 seed: int) -> list[tuple[Any, ...]]:
    """Two games a deal: greedy with `weights` in the faction's seat (with ANY, in seat
    deal % 4, whatever its faction), then the shipped greedy; the other seats draw from the
    roster."""
    rng = random.Random(seed)
    jobs: list[tuple[Any, ...]] = []
    deal_factions = (seatings(faction, deals) if faction != ANY
                     else [None] * deals)  # each deal's seed draws its factions
    for i, factions in enumerate(deal_factions):
        bots: list[Any] = [rng.choice(SCRIPTED) for _ in range(4)]
        for mine in (("greedy", dict(weights)), "greedy"):
            bots[i % 4] = mine
            jobs.append((list(bots), seed + i, factions, 4))
    return jobs


def variant_report(faction: str, weights: dict[str, float], deals: int, seed: int,
                   workers: int) -> None:
    res = run(variant_jobs(faction, weights, deals, seed), workers)
    changed = ", ".join(f"{k}={v}" for k, v in weights.items())
    where = "a seat of every faction in turn" if faction == ANY else f"the {faction} seat"
    print(f"== greedy with {changed} against the shipped greedy in {where}, "
          f"{deals} deals played both ways")
    rule = "its own rule" if faction == ANY else FACTION_RULES[faction]
    margins = []
    for rows, label in ((res[0::2], f"greedy, {changed}"), (res[1::2], "greedy (shipped)")):
        pairs = [(r, i % 4 if faction == ANY else r["factions"].index(faction))
                 for i, r in enumerate(rows)]
        margins.append([bench.seat_margin(r["vp"], s) for r, s in pairs])
        own = statistics.mean(r["uses"][s][FACTION_RULES[r["factions"][s]]] for r, s in pairs)
        sh = statistics.mean(r["uses"][s]["stronghold"] for r, s in pairs)
        print(f"  {label:<36} {rule} {own:5.2f}/game  strongholds {sh:4.2f}/game  "
              f"VP margin {statistics.mean(margins[-1]):+6.2f}")
    diff = [a - b for a, b in zip(*margins, strict=True)]
    half = 1.96 * statistics.stdev(diff) / len(diff) ** 0.5 if len(diff) > 1 else float("nan")
    print(f"  paired margin difference {statistics.mean(diff):+.2f} VP "
          f"[{statistics.mean(diff) - half:+.2f}, {statistics.mean(diff) + half:+.2f}] (95%)")


def own_rule_by_plan(res: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[int, int]]:
    """(faction, plan) -> (games the plan played the faction, uses of the faction's own rule)."""
    cells: dict[tuple[str, str], tuple[int, int]] = {}
    for r in res:
        for seat, (bot, faction) in enumerate(zip(r["bots"], r["factions"], strict=True)):
            games, uses = cells.get((faction, bot), (0, 0))
            cells[faction, bot] = (games + 1, uses + r["uses"][seat][FACTION_RULES[faction]])
    return cells


def run(jobs: list[tuple[Any, ...]], workers: int) -> list[dict[str, Any]]:
    return bench.run(play_counted, jobs, workers)


def versus_random(bot: str, games: int, seed: int, workers: int) -> tuple[float, int]:
    return bench.versus_random(play_counted, bot, games, seed, workers)


def roster_jobs(games: int, seed: int) -> list[tuple[Any, ...]]:
    return bench.roster_jobs(SCRIPTED, games, seed)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per bot against random")
    ap.add_argument("--roster-games", type=int, default=300, help="4-player roster games")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--faction", choices=[*sorted(FACTION_RULES), ANY],
                    help="only compare greedy with --weights against the shipped greedy in "
                         f"this faction's seat ({ANY}: a seat of every faction in turn)")
    ap.add_argument("--weights", default="", help="name=value,... (with --faction)")
    ap.add_argument("--deals", type=int, default=200, help="deals for --faction")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    if args.faction:
        try:
            weights = {k: float(v) for k, v in (kv.split("=") for kv in
                                                args.weights.split(",") if kv)}
        except ValueError:
            ap.error(f"--weights: expected name=value,..., got {args.weights!r}")
        if not weights:
            ap.error("--faction needs --weights name=value,...")
        variant_report(args.faction, weights, args.deals, args.seed, args.workers)
        print(f"total wall time {time.perf_counter() - t0:.0f}s")
        return

    print(f"== 1. scripted bots vs random, 2 players, {args.games} games each")
    for i, bot in enumerate(SCRIPTED):
        wins, n = versus_random(bot, args.games, args.seed + 10_000 * i, args.workers)
        lo, hi = wilson_interval(wins, n)
        verdict = "ok" if wins / n >= 0.95 else "BELOW 95%"
        print(f"  {bot:<13} {wins / n:6.1%}  [{float(lo):.1%}, {float(hi):.1%}]  {verdict}")

    print("== 2. speed: 4-player games of four scripted bots (one process)")
    jobs = roster_jobs(20, args.seed + 50_000)
    t = time.perf_counter()
    res = run(jobs, 1)
    per = (time.perf_counter() - t) / len(jobs)
    acts = sum(r["actions"] for r in res) / len(res)
    print(f"  {1000 * per:.0f} ms per game ({acts:.0f} decisions per game)")

    print(f"== 3. special rules over {args.roster_games} 4-player games of the roster")
    res = run(roster_jobs(args.roster_games, args.seed + 100_000), args.workers)
    by_bot: dict[str, Counter] = defaultdict(Counter)
    by_faction: dict[str, Counter] = defaultdict(Counter)
    seats: Counter = Counter()
    for r in res:
        for seat, (bot, faction) in enumerate(zip(r["bots"], r["factions"], strict=True)):
            seats[faction] += 1
            by_bot[bot].update(r["uses"][seat])
            by_faction[faction].update(r["uses"][seat])
    rules = [*FACTION_RULES.values(), *EXTRA_RULES]
    print(f"  {'rule':<26}" + "".join(f"{b[:12]:>13}" for b in SCRIPTED))
    for rule in [*rules, *SHARED]:
        print(f"  {rule:<26}" + "".join(f"{by_bot[b][rule]:>13}" for b in SCRIPTED))
    print("  per faction (games played; its own rule's uses; per game, against the target; "
          "strongholds built per game):")
    for faction, rule in sorted(FACTION_RULES.items()):
        n = max(seats[faction], 1)
        used = by_faction[faction][rule]
        rate = used / n
        flag = "ok" if rate >= TARGETS[faction] else "BELOW"
        print(f"    {faction:<16} {seats[faction]:>4} games  {rule:<26} {used:>6}"
              f"  {rate:5.2f}/game (target {TARGETS[faction]:.1f}: {flag:<5})"
              f"  stronghold {by_faction[faction]['stronghold'] / n:4.2f}")
    # A faction's rate averages six plans; split, it shows whether one plan holds it back.
    by_plan = own_rule_by_plan(res)
    print("  its own rule per game, by the plan that played it (games in brackets):")
    print(f"    {'':<16}" + "".join(f"{b[:12]:>15}" for b in SCRIPTED))
    for faction in sorted(FACTION_RULES):
        cells = [by_plan.get((faction, b), (0, 0)) for b in SCRIPTED]
        print(f"    {faction:<16}" + "".join(
            f"{u / g:>9.2f} ({g:>3})" if g else f"{'-':>15}" for g, u in cells))

    print("== 4. focus: means per player over the roster games")
    stats: dict[str, list[dict[str, Any]]] = defaultdict(list)
    vp: dict[str, list[int]] = defaultdict(list)
    for r in res:
        for seat, bot in enumerate(r["bots"]):
            stats[bot].append(r["players"][seat])
            vp[bot].append(r["vp"][seat])
    keys = ["buildings", "cults", "priests_sent", "towns", "leech_vp", "network"]
    print(f"  {'bot':<13} {'VP':>6}" + "".join(f"{k:>13}" for k in keys))
    for bot in SCRIPTED:
        rows = stats[bot]
        print(f"  {bot:<13} {sum(vp[bot]) / len(vp[bot]):>6.1f}" + "".join(
            f"{sum(x[k] for x in rows) / len(rows):>13.2f}" for k in keys))
    print(f"total wall time {time.perf_counter() - t0:.0f}s")


if __name__ == "__main__":
    main()
