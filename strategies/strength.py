"""How strong a game's default mix plays, tuned against untuned:
`python -m strategies.strength --game G [--players 2,4] [--games N] [--workers N] [--seed S]`.
With `--search BOT` (say `mcts` or `mcts:budget=30`), only the search measure (3.); with
`--against BOT` too, two search bots on the same games, paired. With `--rival FOLDER`, 1. and
2. set the tuned mix against the same bots playing the tuned files in FOLDER (another tuning's,
say an earlier commit's: `git archive REV strategies/<game>/tuned | tar -x -C DIR`) instead of
their untuned weights: does a new tuning beat the one it replaces, seat for seat?

1. Self-play of the default mix (as a run plays it): mean VP per player and the median
   winner's VP, for the tuned bots and for the same bots told `tuned = false`.
2. Head to head: in each game, half the seats draw from the tuned mix and half from the
   untuned one (the same bot names), seats rotating so that each side sits in every seat
   equally often and each game's deal is played once each way. A win is the side of the
   game's top score (a shared top splits it); Wilson 95% intervals.
3. The search bot against the tuned mix: one seat of each game (rotating) plays the search
   bot, the others draw from the mix. Its wins (its seat's share of a shared top), its mean VP
   margin over the other seats, and its seconds of play a game. With `--against`, a second
   search bot plays the same seat of the same games (the same deals and opponents; the two
   sides' games take turns on the workers, so the machine's load falls on both alike), and
   the two are compared game by game: the mean of each game's difference in wins and in
   margin, with t intervals. A game's deal (faction, seat, tiles) moves its margin more than
   a search's change does, and pairing takes that out. With `--by-faction`, the search seat's
   wins and margin by its faction beside the mix's seats of that faction in the same games:
   the search plays each faction with the mix's own valuation and looks further ahead, so a
   faction it lifts far more than the others is one the scripted bots misplay, and the
   balance verdict on that faction is about the bots before it is about the faction.

Nothing here names a game: any game whose scripted bots are weighted plays.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path
from typing import Any

from strategies.bench import run, seat_margin, seat_win
from strategies.registry import default_strategies, split_spec
from terra_sim.analysis.stats import t_interval, welch_diff, wilson_interval
from terra_sim.core.errors import UserError
from terra_sim.games import DEFAULT_GAME


def play(bots: list[Any], seed: int, factions: list[str] | None, players: int,
         game: str = "") -> dict[str, Any]:
    from terra_sim import play_game

    t = time.perf_counter()
    rec = play_game(game, factions, [tuple(b) for b in bots], seed, players=players,
                    log_actions=False)
    return {"bots": bots, "vp": list(rec.final_vp), "seconds": time.perf_counter() - t,
            "factions": list(rec.setup["factions"])}


def side(tuned: bool | str) -> str:
    """A side's name: the shipped tuning, the untuned weights or a rival folder's files."""
    return "tuned" if tuned is True else "untuned" if tuned is False else "rival"


def tag(tuned: bool | str) -> str:
    """The label suffix of a side's bots: none for the shipped tuning."""
    return "" if tuned is True else f"-{side(tuned)}"


def mix(names: list[str], tuned: bool | str) -> list[tuple[str, dict[str, Any], str]]:
    return [(n, {"tuned": tuned}, n + tag(tuned)) for n in names]


def self_play_jobs(names: list[str], tuned: bool | str, players: int, games: int,
                   seed: int) -> list[tuple[Any, ...]]:
    rng = random.Random(seed)
    pool = mix(names, tuned)
    return [([rng.choice(pool) for _ in range(players)], seed + i, None, players)
            for i in range(games)]


def head_to_head_jobs(names: list[str], players: int, games: int, seed: int,
                      rival: bool | str = False) -> list[tuple[Any, ...]]:
    """Pairs of games on one deal: the tuned side's seats in one are the other side's (untuned,
    or the tuned files of the folder `rival`) in the other, with the same bot names in the same
    seats."""
    rng = random.Random(seed)
    jobs: list[tuple[Any, ...]] = []
    for i in range(games // 2):
        picks = [rng.choice(names) for _ in range(players)]
        tuned_seats = set(rng.sample(range(players), players // 2))
        for flip in (False, True):
            bots = [(n, {"tuned": True}, n) if (s in tuned_seats) != flip
                    else (n, {"tuned": rival}, n + tag(rival)) for s, n in enumerate(picks)]
            jobs.append((bots, seed + i, None, players))
    return jobs


def search_jobs(search: Any, names: list[str], players: int, games: int,
                seed: int) -> list[tuple[Any, ...]]:
    rng = random.Random(seed)
    jobs: list[tuple[Any, ...]] = []
    for i in range(games):
        bots: list[Any] = [(n, {}, n) for n in (rng.choice(names) for _ in range(players - 1))]
        bots.insert(i % players, search)
        jobs.append((bots, seed + i, None, players))
    return jobs


def swap(job: tuple[Any, ...], search: Any, other: Any) -> tuple[Any, ...]:
    """The same game with `other` in the search seat."""
    bots, *rest = job
    return ([other if b == search else b for b in bots], *rest)


def search_bot(text: str, mix: tuple[str, ...] = ()) -> tuple[str, dict[str, Any], str]:
    """(name, parameters, label) of `name` or `name:key=value:...` (registry.split_spec). The
    bare name of a bot of the mix is labelled apart: the measured seat is found by its entry,
    which would otherwise be the same as the mix's seats of that bot."""
    try:
        name, params = split_spec(text)
    except UserError as e:
        raise SystemExit(f"--search: {e}") from None
    return name, params, f"{text} (measured seat)" if text in mix else text


def search_games(results: list[dict[str, Any]],
                 search: Any) -> list[tuple[float, float, float]]:
    """Each game's (win, VP margin over the other seats, seconds) of the search seat; a shared
    top score splits the win."""
    out = []
    for r in results:
        seat = r["bots"].index(search)
        out.append((seat_win(r["vp"], seat), seat_margin(r["vp"], seat), r["seconds"]))
    return out


def search_score(results: list[dict[str, Any]], search: Any) -> tuple[float, float, float]:
    """(wins, mean VP margin over the other seats, mean seconds a game) of the search seat."""
    wins, margins, secs = zip(*search_games(results, search), strict=True)
    return sum(wins), statistics.mean(margins), statistics.mean(secs)


def by_faction(results: list[dict[str, Any]], search: Any) -> list[tuple[Any, ...]]:
    """Per faction the search seat played: (faction, the search seat's games with it, the mix
    seats' games with it, the search seat's win share, the mix seats', the search seat's mean
    margin, the mix seats', and the low and high ends of the 95% Welch interval of the
    search's lift in margin over the mix: each seat taken as one sample, though seats of one
    game are not independent), the largest lift first."""
    wins: dict[str, tuple[list[float], list[float]]] = {}  # faction -> (search, mix)
    margins: dict[str, tuple[list[float], list[float]]] = {}
    for r in results:
        seat = r["bots"].index(search)
        vp = r["vp"]
        for k, f in enumerate(r["factions"]):
            side = k != seat
            wins.setdefault(f, ([], []))[side].append(seat_win(vp, k))
            margins.setdefault(f, ([], []))[side].append(seat_margin(vp, k))
    nan = float("nan")
    rows = []
    for f, (mine, theirs) in margins.items():
        if not mine:
            continue
        m = statistics.mean(mine)
        mm = statistics.mean(theirs) if theirs else nan
        lo = hi = nan
        if len(mine) > 1 and len(theirs) > 1:
            _, lo, hi, _ = (float(x) for x in welch_diff(
                mm, statistics.stdev(theirs), len(theirs), m, statistics.stdev(mine), len(mine)))
        rows.append((f, len(mine), len(theirs), statistics.mean(wins[f][0]),
                     statistics.mean(wins[f][1]) if theirs else nan, m, mm, lo, hi))
    # a faction the mix never played sorts last (its lift is unknown)
    return sorted(rows, key=lambda r: (not r[2], -(r[5] - r[6]) if r[2] else 0.0, r[0]))


def faction_table(results: list[dict[str, Any]], search: Any) -> list[str]:
    """by_faction's rows as the command prints them: games, win share and margin of the search
    seat, then of the mix's seats, and the search's lift in margin with its interval."""
    lines = [f"  {'faction':<18}{'games':>6}{'wins':>7}{'margin':>9}{'mix games':>11}"
             f"{'wins':>7}{'margin':>9}{'lift [95%]':>24}"]
    for f, n, mn, w, mw, m, mm, lo, hi in by_faction(results, search):
        lines.append(f"  {f:<18}{n:>6}{w:>7.2f}{m:>+9.1f}{mn:>11}{mw:>7.2f}{mm:>+9.1f}"
                     f"{m - mm:>+8.1f} [{lo:+.1f}, {hi:+.1f}]")
    return lines


def paired(a: list[float], b: list[float]) -> tuple[float, float, float]:
    """The mean of a - b, game by game, and its 95% t interval (NaN ends for one game)."""
    d = [x - y for x, y in zip(a, b, strict=True)]
    m = statistics.mean(d)
    lo, hi = t_interval(m, statistics.stdev(d) if len(d) > 1 else 0.0, len(d))
    return m, float(lo), float(hi)


def search_line(res: list[dict[str, Any]], search: Any, players: int, label: str) -> str:
    wins, margin, secs = search_score(res, search)
    lo, hi = wilson_interval(wins, len(res))
    return (f"  {label}wins {wins / len(res):6.1%} [{float(lo):.1%}, {float(hi):.1%}] "
            f"(even: {1 / players:.0%}); VP margin {margin:+.1f}; {secs:.2f} s a game")


def tuned_share(results: list[dict[str, Any]]) -> tuple[float, int]:
    wins = 0.0
    for r in results:
        top = max(r["vp"])
        tops = [b for b, v in zip(r["bots"], r["vp"], strict=True) if v == top]
        wins += sum(1 for b in tops if b[1]["tuned"] is True) / len(tops)
    return wins, len(results)


def summary(results: list[dict[str, Any]]) -> tuple[float, float]:
    vps = [v for r in results for v in r["vp"]]
    return statistics.mean(vps), statistics.median(max(r["vp"]) for r in results)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--game", default=DEFAULT_GAME)
    ap.add_argument("--players", default="2,4")
    ap.add_argument("--strategies", help="the weighted bots to compare, comma-separated "
                                         "(default: the game's default mix)")
    ap.add_argument("--games", type=int, default=400, help="games per measure")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--search", help="only measure this search bot (name[:key=value:...], "
                                     "say mcts:budget=30) in one seat against the tuned mix")
    ap.add_argument("--against", help="with --search: a second search bot in the same seat of "
                                      "the same games, compared game by game")
    ap.add_argument("--by-faction", action="store_true",
                    help="with --search: its wins and margin by faction, beside the mix's")
    ap.add_argument("--rival", metavar="FOLDER",
                    help="set the tuned mix against the same bots with the tuned files in "
                         "FOLDER instead of untuned")
    args = ap.parse_args(argv)
    from functools import partial

    from terra_sim.games import get_game

    game = get_game(args.game).slug
    names = args.strategies.split(",") if args.strategies else default_strategies(game)
    one = partial(play, game=game)
    t0 = time.perf_counter()
    if args.games < 1:
        raise SystemExit(f"--games must be at least 1, got {args.games}")
    if args.against and not args.search:
        raise SystemExit("--against compares two search bots: give --search too")
    if args.by_faction and not args.search:
        raise SystemExit("--by-faction sets the search seat beside the mix: give --search too")
    if args.rival and args.search:
        raise SystemExit("--rival sets two tunings of the mix against each other; the search "
                         "measure plays the shipped one: give one of --rival and --search")
    rival: bool | str = False
    if args.rival:
        if not Path(args.rival).is_dir() or not any(Path(args.rival).glob("*.toml")):
            raise SystemExit(f"--rival: {args.rival} is not a folder of tuned files (*.toml)")
        rival = str(Path(args.rival).resolve())  # the workers' working folder may differ
    if args.search:
        search = search_bot(args.search, tuple(names))
        other = search_bot(args.against, tuple(names)) if args.against else None
        if other is not None and other[2] == search[2]:
            raise SystemExit("--against: the same bot as --search; name another")
        for players in (int(x) for x in args.players.split(",")):
            jobs = search_jobs(search, names, players, args.games, args.seed)
            if other is not None:  # each game twice in a row: the sides share the load
                jobs = [j for job in jobs for j in (job, swap(job, search, other))]
            res = run(one, jobs, args.workers)
            if other is None:
                print(f"== {game}, {players} players: {args.search} in one seat against the "
                      f"tuned mix ({', '.join(names)}), {len(res)} games")
                print(search_line(res, search, players, ""))
                if args.by_faction:
                    print("\n".join(faction_table(res, search)))
                continue
            print(f"== {game}, {players} players: one seat against the tuned mix "
                  f"({', '.join(names)}), {len(jobs) // 2} games")
            mine, theirs = res[0::2], res[1::2]
            print(search_line(mine, search, players, f"{search[2]}: "))
            if args.by_faction:
                print("\n".join(faction_table(mine, search)))
            print(search_line(theirs, other, players, f"{other[2]}: "))
            if args.by_faction:
                print("\n".join(faction_table(theirs, other)))
            a, b = search_games(mine, search), search_games(theirs, other)
            w, wlo, whi = paired([x[0] for x in a], [x[0] for x in b])
            m, mlo, mhi = paired([x[1] for x in a], [x[1] for x in b])
            ratio = sum(x[2] for x in a) / sum(x[2] for x in b)
            print(f"  {search[2]} less {other[2]}, game by game: wins {w:+.1%} [{wlo:+.1%}, "
                  f"{whi:+.1%}], VP margin {m:+.2f} [{mlo:+.2f}, {mhi:+.2f}]; "
                  f"{ratio:.2f}x the seconds")
        print(f"total wall time {time.perf_counter() - t0:.0f}s")
        return
    for players in (int(x) for x in args.players.split(",")):
        print(f"== {game}, {players} players, {args.games} games a measure, "
              f"bots: {', '.join(names)}")
        for tuned in (True, rival):
            res = run(one, self_play_jobs(names, tuned, players, args.games, args.seed),
                      args.workers)
            mean, winner = summary(res)
            label = f"{side(tuned)} mix"
            print(f"  self-play, {label:<12} mean VP {mean:6.1f}   median winner {winner:6.1f}")
        res = run(one, head_to_head_jobs(names, players, args.games, args.seed + 1, rival),
                  args.workers)
        wins, n = tuned_share(res)
        lo, hi = wilson_interval(wins, n)
        print(f"  head to head: tuned side wins {wins / n:6.1%} of {n} "
              f"[{float(lo):.1%}, {float(hi):.1%}] against the {side(rival)} side "
              "(even: 50%)")
    print(f"total wall time {time.perf_counter() - t0:.0f}s")


if __name__ == "__main__":
    main()
