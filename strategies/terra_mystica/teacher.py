"""Where greedy departs from the search bot, by action family:
`python -m strategies.terra_mystica.teacher [--games N] [--seed S] [--search SPEC] [--faction F]
[--workers N]`.

The search bot plays one seat (rotating) of 4-player games against the tuned roster. At each
decision it searches (a burn or conversion that opens a turn ends one, and the rest of the turn
is searched again), greedy's first choice at the same root (the search seat's guide: its best
main action when that beats passing by the pass margin, else a pass) is set beside the move the
search played, both by action family. The search plays each root move on to the round's end, so
a family it chooses more often than greedy is one that greedy's one-ply look-ahead undervalues:
`power_tempo` came from this table (the priest action 213 times against greedy's 3, in 4,936
decisions). With `--faction F` the search seat plays F in every game (the others draw three
factions of other home terrains, as bench_bots' `--faction` does): where greedy misjudges one
faction's game, which a faction's tuned file can answer.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from typing import Any

from strategies import bench
from strategies.registry import default_strategies
from strategies.search import SearchStrategy
from strategies.strength import search_bot
from strategies.terra_mystica.bench_bots import seatings
from strategies.terra_mystica.prefilter import family
from terra_sim.games import get_game
from terra_sim.games.terra_mystica.state import TerraMysticaState
from terra_sim.play import new_game

GAME = "terra-mystica"
PASS = "pass"


def main_family(seq: list[Any]) -> str:
    """A root move's family: its last action is the main one (burns and conversions first)."""
    a = seq[-1]
    return PASS if a.kind == "pass" else family(a)


def greedy_first(options: list[tuple[list[Any], float]]) -> str:
    """The family greedy would play at a searched root: the heuristic's priors are greedy's
    look-ahead scores (its pass's, the pass margin), best first, so greedy's choice is the
    first root move with the highest prior."""
    return main_family(max(options, key=lambda o: o[1])[0])


def compare(bots: list[Any], seed: int, factions: list[str] | None = None,
            players: int | None = None) -> dict[str, Any]:
    """One game; (greedy's family, the search's family) at each decision the search seat (bots'
    only search bot) searched."""
    state, _ = new_game(get_game(GAME), factions, seed, players or len(bots), None, {})
    assert isinstance(state, TerraMysticaState)
    agents = bench.seated(bots, seed, GAME)
    pairs: list[tuple[str, str]] = []
    while not state.is_over():
        agent = agents[state.current_player()]
        a = agent.choose(state, state.legal_actions())
        if isinstance(agent, SearchStrategy) and agent.options:  # a searched decision
            pairs.append((greedy_first(agent.options),
                          main_family(agent.options[agent.picked][0])))
        state.do(a)
    return {"bots": list(bots), "vp": state.vp(), "pairs": pairs}


def jobs(search: Any, games: int, seed: int, faction: str | None = None) -> list[tuple[Any, ...]]:
    rng = random.Random(seed)
    names = default_strategies(GAME)
    deals: list[list[str] | None] = (list(seatings(faction, games)) if faction
                                     else [None] * games)  # None: the seed draws the factions
    out: list[tuple[Any, ...]] = []
    for i, factions in enumerate(deals):
        bots: list[Any] = [rng.choice(names) for _ in range(3)]
        bots.insert(i % 4, search)  # seatings() seats the faction at i % 4 too
        out.append((bots, seed + i, factions, 4))
    return out


def table(pairs: list[tuple[str, str]]) -> list[tuple[str, float, float]]:
    """(family, greedy's share, the search's share), the widest gaps first."""
    n = max(len(pairs), 1)
    first, chosen = Counter(g for g, _ in pairs), Counter(s for _, s in pairs)
    rows = [(f, first[f] / n, chosen[f] / n) for f in first | chosen]
    return sorted(rows, key=lambda r: (-abs(r[2] - r[1]), r[0]))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7000)
    ap.add_argument("--search", default="mcts", help="the search bot, name[:param=value,...]")
    ap.add_argument("--faction", choices=sorted(get_game(GAME).faction_slugs()),
                    help="the search seat's faction in every game (default: each game's seed "
                         "draws the factions)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    res = bench.run(compare, jobs(search_bot(args.search), args.games, args.seed, args.faction),
                    args.workers)
    pairs = [p for r in res for p in r["pairs"]]
    agree = sum(1 for g, s in pairs if g == s) / max(len(pairs), 1)
    seat = f"the {args.faction} seat" if args.faction else "one seat"
    print(f"== {args.search} in {seat} of {args.games} 4-player games against the tuned "
          f"roster: {len(pairs)} searched decisions, greedy's first family played at "
          f"{agree:.1%}")
    print(f"  {'family':<20} {'greedy':>8} {'search':>8} {'search - greedy':>16}")
    for f, g, s in table(pairs):
        print(f"  {f:<20} {g:>8.1%} {s:>8.1%} {s - g:>+16.1%}")
    print(f"total wall time {time.perf_counter() - t0:.0f}s")


if __name__ == "__main__":
    main()
