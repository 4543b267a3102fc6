"""How the bots play beside people:
`python -m strategies.terra_mystica.profile [--games N] [--seed S] [--workers N]
[--strategies BOT,...] [LOG ...]`.

The same measures, per player and game, for 4-player games of bots (the scripted roster, or the
pool `--strategies` names, say `mcts` for the search bot) and for real
games logged by the online server (by default the three in tests/fixtures/terra_mystica/; any
log `terra-sim import` reads will do): what a player scored and from what (the engine's VP
categories, the round tiles' by round), what they built, the power offers they took and
declined and the VP they paid for them, the board power actions, burns and conversions they
made, what they held when they passed (coins, workers, priests, power in bowls II and III), and
the cheap land (home terrain or one spade from it) in their direct reach at a round's start
(round 1 alone, then the mean of rounds 2-6). A bot that scores less than people shows here
where its game differs: a target for the valuation, not a verdict (three real games are few,
and two of them have five players).

Offers are those our engine makes: a player with no room for power gets none. The online server
asks such a player too, and its log records the answer (`leech 1` that gains nothing): the
Fakirs of real-5p-game-a answer 21 offers in the log, 16 of them with room.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from strategies import bench
from strategies.registry import make_strategy
from strategies.terra_mystica.bench_bots import SCRIPTED
from terra_sim.core.errors import UserError
from terra_sim.core.hexmap import bits
from terra_sim.games import get_game
from terra_sim.games.terra_mystica.actions import Action
from terra_sim.games.terra_mystica.data import load_data
from terra_sim.games.terra_mystica.notation import replay_log
from terra_sim.games.terra_mystica.player import CAT
from terra_sim.games.terra_mystica.state import TerraMysticaState
from terra_sim.play import new_game

GAME = "terra-mystica"
REAL = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "terra_mystica"
PASS_ROUNDS = range(1, 6)  # passes that carry into another round
CONVERSIONS = {("PW", "C"): "power to coins", ("PW", "W"): "power to workers",
               ("PW", "P"): "power to priests", ("W", "C"): "workers to coins"}
# where the VP came from: the engine's own categories, as its breakdown() gives them (start is
# the same for all, leech is "VP paid for offers" below, adjust is a replay's fix)
SOURCES = {c: f"  from {name}" for c, name in (
    ("round", "round tiles"), ("build", "favour tiles"), ("town", "towns"),
    ("advance", "advances"), ("pass", "passing"), ("faction", "faction powers"),
    ("network", "final network"), ("cults", "final cults"), ("resources", "leftovers"))}
# the round tiles' VP by the round that paid it: people score most in the last round
ROUND_VP = CAT["round"]
IN_ROUND = tuple(f"    in round {r}" for r in range(1, load_data().rules["rounds"] + 1))
# each board power action, by what it gives (the base game's: a modded data set may have others)
POWER_ACTIONS = {a: f"  {a}: {amount} {effect.removesuffix('s') if amount == 1 else effect}"
                 for a, (_, effect, amount) in load_data().tiles.power_actions.items()}
# the measures, in the order printed
MEASURES = ("VP", *(row for c, m in SOURCES.items()
                    for row in ((m, *IN_ROUND) if c == "round" else (m,))),
            "buildings at the end", "dwellings built", "upgrades", "towns",
            "cult steps at the end", "offers taken", "offers declined",
            "VP paid for offers", "board power actions", *POWER_ACTIONS.values(), "burns",
            *CONVERSIONS.values(), "coins at a pass", "workers at a pass",
            "priests at a pass", "power II at a pass", "power III at a pass",
            "cheap land, round 1", "cheap land, rounds 2-6")


def count(s: TerraMysticaState, a: Action, c: defaultdict[str, float]) -> None:
    """Add what action `a` of the seat to move in `s` (before it is played) counts for."""
    p = s.players[s.current_player()]
    kind, args = a
    if kind == "build":
        c["dwellings built"] += 1
    elif kind == "upgrade":
        c["upgrades"] += 1
    elif kind == "leech":
        c["offers taken"] += 1
    elif kind == "decline":
        c["offers declined"] += 1
    elif kind == "burn":
        c["burns"] += 1
    elif kind == "action" and args[0] in s.data.tiles.power_actions:
        c["board power actions"] += 1
        if args[0] in POWER_ACTIONS:
            c[POWER_ACTIONS[args[0]]] += 1
    elif kind == "convert" and args in CONVERSIONS:
        c[CONVERSIONS[args]] += 1
    elif kind == "pass" and s.round in PASS_ROUNDS:
        # power left in bowl III at a pass is spendable and unspent; bowl II is burnable
        for m, held in (("coins at a pass", p.coins), ("workers at a pass", p.workers),
                        ("priests at a pass", p.priests), ("power II at a pass", p.p2),
                        ("power III at a pass", p.p3)):
            c[m] += held / len(PASS_ROUNDS)


def land_at_start(s: TerraMysticaState, seats: list[defaultdict[str, float]]) -> None:
    """At a round's start, each seat's free land in direct reach that is home terrain or one
    spade from it: what a dwelling can be built on without a dig of two spades or more."""
    free = s.data.map.land & ~s.occupied
    m = "cheap land, round 1" if s.round == 1 else "cheap land, rounds 2-6"
    share = 1 if s.round == 1 else 1 / 5
    for p, c in zip(s.players, seats, strict=True):
        c[m] += share * sum(1 for h in bits(s.direct_reach(p) & free)
                            if s.spades_needed(p, s.terrain[h], p.faction.home) <= 1)


def tile_round(s: TerraMysticaState, seats: list[defaultdict[str, float]], r: int) -> None:
    """Credit round r with each seat's round-tile VP since the last round credited."""
    for p, c in zip(s.players, seats, strict=True):
        c[IN_ROUND[r - 1]] = p.vp[ROUND_VP] - sum(c[m] for m in IN_ROUND[:r - 1])


def new_round(s: TerraMysticaState, seats: list[defaultdict[str, float]], seen: int) -> int:
    """At a round's first action: credit the round before it (`seen`, 0 before round 1) and
    count the cheap land. Returns the round now."""
    if seen:
        tile_round(s, seats, seen)
    land_at_start(s, seats)
    return s.round


def finish(s: TerraMysticaState,
           seats: list[defaultdict[str, float]]) -> list[dict[str, float]]:
    """Each seat's measures once the game is over."""
    for p, c, parts in zip(s.players, seats, s.breakdown(), strict=True):
        c["VP"] = p.total_vp
        for cat, m in SOURCES.items():
            c[m] = parts[cat]
        c["buildings at the end"] = p.buildings.bit_count()
        c["towns"] = len(p.town_tiles)
        c["cult steps at the end"] = sum(p.cults)
        c["VP paid for offers"] = -parts["leech"]
    return [{m: c[m] for m in MEASURES} for c in seats]


def bot_game(bots: list[str], seed: int, factions: list[str] | None,
             players: int) -> dict[str, Any]:
    """One game played like `terra_sim.play_game` (the same seeds, so the same game)."""
    state, setup = new_game(get_game(GAME), factions, seed, players, None, {})
    assert isinstance(state, TerraMysticaState)
    agents = bench.seated(bots, seed, GAME)
    seats: list[defaultdict[str, float]] = [defaultdict(float) for _ in setup["factions"]]
    seen = 0
    while not state.is_over():
        if state.round > seen:
            seen = new_round(state, seats, seen)
        a = agents[state.current_player()].choose(state, state.legal_actions())
        count(state, a, seats[state.current_player()])
        state.do(a)
    tile_round(state, seats, seen)
    return {"bots": bots, "vp": state.vp(), "players": finish(state, seats)}


def real_game(text: str) -> list[dict[str, float]]:
    """The measures of every player of a logged game, from the actions our engine replayed."""
    r = replay_log(text)
    s = r.g.new_state(r.log.factions, 0, **r.options)
    seats: list[defaultdict[str, float]] = [defaultdict(float) for _ in s.players]
    seen = 0
    for line in r.actions:
        if s.round > seen:
            seen = new_round(s, seats, seen)
        a = s.parse_action(line)
        if s.current_player() >= 0:  # setup's picks and placements belong to no turn
            count(s, a, seats[s.current_player()])
        s.apply(a)
    tile_round(s, seats, seen)
    return finish(s, seats)


def means(rows: list[dict[str, float]]) -> dict[str, float]:
    return {m: statistics.mean(r[m] for r in rows) for m in MEASURES}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("logs", nargs="*", type=Path, help="real games' logs (default: the "
                    "three in tests/fixtures/terra_mystica/)")
    ap.add_argument("--games", type=int, default=200, help="4-player games of the roster")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--strategies", default=",".join(SCRIPTED),
                    help="the bots each seat is drawn from, comma-separated (default: the "
                         "scripted roster); parameters inline: mcts:budget=30")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    pool = [b.strip() for b in args.strategies.split(",") if b.strip()]
    try:
        if not pool:
            raise UserError("--strategies names no bot")
        for b in pool:
            make_strategy(b, random.Random(0), GAME)
    except UserError as e:
        ap.error(str(e))
    logs = args.logs or sorted(REAL.glob("real-*.txt"))
    if not logs:
        ap.error(f"no real games in {REAL}: name their logs")
    missing = [str(p) for p in logs if not p.is_file()]
    if missing:
        ap.error(f"no such log: {', '.join(missing)}")
    people: list[dict[str, float]] = []
    sizes: Counter = Counter()
    for path in logs:
        try:
            rows = real_game(path.read_text())
        except UserError as e:
            ap.error(f"{path}: {e}")
        sizes[len(rows)] += 1
        people += rows
    rng = random.Random(args.seed)
    jobs = [([rng.choice(pool) for _ in range(4)], args.seed + i, None, 4)
            for i in range(args.games)]
    bots = [row for r in bench.run(bot_game, jobs, args.workers) for row in r["players"]]
    mine, theirs = means(bots), means(people)
    games = ", ".join(f"{n} of {k} players" for k, n in sorted(sizes.items()))
    who = "the scripted roster" if pool == list(SCRIPTED) else ", ".join(pool)
    print(f"== per player and game: {who} ({args.games} 4-player games, seed "
          f"{args.seed}) beside {len(logs)} real games ({games})")
    print(f"  {'measure':<24}{'bots':>9}{'people':>9}")
    for m in MEASURES:
        print(f"  {m:<24}{mine[m]:>9.2f}{theirs[m]:>9.2f}")


if __name__ == "__main__":
    main()
