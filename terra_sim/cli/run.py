"""`terra-sim run`, `replay` and `bench`: tournaments, replaying one logged game, throughput."""

import statistics
import sys

import click

from terra_sim.cli.options import game_option
from terra_sim.cli.report import open_option, show_file, stage_printer
from terra_sim.games import DEFAULT_GAME
from terra_sim.run.config import DESIGNS


def _echo_summary(result, verbose: bool) -> None:
    # The raw table has no intervals and the report has it: by default the run ends on the
    # report's verdicts, which a raw table printed before them would only crowd.
    if verbose:
        table = result.faction_summary()
        click.echo(f"\n{'faction':<18}{'games':>7}{'win share':>11}{'mean VP':>9}")
        for row in table.iter_rows(named=True):
            click.echo(f"{row['faction']:<18}{row['games']:>7}{row['win_share']:>10.1%}"
                       f"{row['mean_vp']:>9.1f}")
    m, s = result.manifest, result.stats
    rate = f" ({(s.games + s.failed) / s.wall_s:.0f} games/s)" if s.wall_s else ""
    click.echo(f"\n{m['finished_games']} of {m['planned_games']} games finished"
               f"{rate}; run: {result.run_dir}")
    if (m.get("until") or {}).get("reason"):
        click.echo(m["until"]["reason"])
    if m["failed_games"]:
        first = result.errors["game_id"][0]
        click.echo(f"{m['failed_games']} games failed (see {result.run_dir / 'errors'}); "
                   f"replay one with: terra-sim replay {result.run_dir} {first}")


def _report(run_dir, open_: bool) -> None:
    """Build the report, then end on the answer: the verdicts and the file to open."""
    from terra_sim.analysis.report import build_report

    result = build_report(run_dir, progress=stage_printer(False))
    click.echo("\n" + result.headline)
    show_file(result, open_)


@click.command()
@click.argument("config", required=False)
@click.option("--game", help=f"Which game (default {DEFAULT_GAME}; terra-sim list games).")
@click.option("--players", help="Player count, or several: 2,3,4 (default 4).")
@click.option("--games", type=int, help="How many games (default 1000).")
@click.option("--seed", type=int, help="Master seed: the same seed gives the same games.")
@click.option("--workers", type=int, help="Worker processes (default: all cores).")
@click.option("--chunk-size", type=int, help="Games per worker task (default: automatic).")
@click.option("--executor", type=click.Choice(["local", "dask"]),
              help="Where the games are played: local worker processes (default), or Dask (a "
                   "LocalCluster on this machine, or the cluster --scheduler names). Either "
                   "plays the same games and can resume the other's run.")
@click.option("--scheduler", metavar="ADDRESS",
              help="A running Dask scheduler, tcp://HOST:PORT: play there (implies --executor "
                   "dask; default $DASK_SCHEDULER_ADDRESS if set).")
@click.option("--shared-dir", type=click.Path(file_okay=False),
              help="With Dask: a folder the workers and this machine reach at the same path; "
                   "workers write part files there instead of sending rows back.")
@click.option("--out", help="Run folder (default runs/<game>-<timestamp>).")
@click.option("--factions", help="Faction pool, comma-separated (default: all).")
@click.option("--strategies", help="Strategy pool, comma-separated (default: the scripted "
              "bots); a bot's parameters inline: mcts:budget=120.")
@click.option("--per-seat", is_flag=True, default=None,
              help="--strategies names one strategy per seat instead of a pool.")
@click.option("--design", type=click.Choice(DESIGNS),
              help="balanced: every faction equally often in every seat; random: drawn.")
@click.option("--resume", type=click.Path(file_okay=False),
              help="Finish the missing games of an interrupted run.")
@click.option("--decision-timeout", type=float, metavar="S",
              help="Seconds a bot may think about one decision; a bot still thinking is "
                   "interrupted and its game logged as an error (default: no limit).")
@click.option("--force", is_flag=True,
              help="Resume even though the game data, the engine or a bot's code or tuned "
                   "data changed since the run began (the manifest records it).")
@click.option("--no-actions", is_flag=True, help="Skip the per-action log (faster, smaller).")
@click.option("--no-report", is_flag=True, help="Do not build the report.")
@click.option("--until-ci", type=float, metavar="W",
              help="Run until sure: play in batches until every faction's 95% win-share "
                   "interval is at most W wide (0.02: 2 percentage points). Needs --max-games.")
@click.option("--until-margin-ci", type=float, metavar="V",
              help="Also (or instead) until every faction's 95% VP-margin interval is at most "
                   "V VP wide.")
@click.option("--max-games", type=int, metavar="N",
              help="The most games a run until sure plays (it replaces --games).")
@click.option("--until-batch", type=int, metavar="N",
              help="Games between the checks of a run until sure (default: about 500, in whole "
                   "design periods).")
@click.option("--verbose", is_flag=True,
              help="Also print each faction's games, win share and mean VP as played, before "
                   "the verdicts (the report has them, with intervals).")
@open_option
def run(config, game, players, games, seed, workers, chunk_size, out, factions, strategies,
        per_seat, design, resume, decision_timeout, force, no_actions, no_report, executor,
        scheduler, shared_dir, open_, until_ci, until_margin_ci, max_games,
        until_batch, verbose) -> None:
    """Play a tournament and log it to Parquet.

    CONFIG is a TOML file (see configs/); without one, the default run plays 1,000 4-player
    games of the default game between its scripted bots. Options override the config.
    Ctrl-C (or SIGTERM) keeps every finished chunk; --resume DIR plays the missing games. A
    worker that dies is replaced and its games played again.
    """
    from terra_sim.run.executor import choose
    from terra_sim.run.runner import RunInterrupted, run_tournament

    on = choose(executor, scheduler, shared_dir)
    try:
        result = run_tournament(
            config, resume=resume, progress=True, force=force, game=game, players=players,
            executor=on,
            games=games, seed=seed, workers=workers, chunk_size=chunk_size, out=out,
            factions=factions, strategies=strategies, per_seat=per_seat, design=design,
            decision_timeout=decision_timeout, actions=False if no_actions else None,
            until_ci=until_ci, until_margin_ci=until_margin_ci, max_games=max_games,
            until_batch=until_batch)
    except RunInterrupted as e:
        click.echo(f"\nInterrupted: {e.finished} of {e.planned} games are kept in {e.run_dir}; "
                   f"finish with: terra-sim run --resume {e.run_dir}", err=True)
        sys.exit(130)
    _echo_summary(result, verbose)
    if not no_report and result.manifest["config"]["report"]:
        _report(result.run_dir, open_)
    if result.failed:
        sys.exit(1)


@click.command()
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True))
@click.argument("game_id", type=int)
@click.option("--step", is_flag=True, help="Print every action with the VP after it.")
def replay(run_dir, game_id, step) -> None:
    """Replay one logged game and check its scores.

    Prints game GAME_ID of the run in RUN_DIR round by round, then the final map; exits 1 if
    the replayed scores differ from the logged ones.
    """
    from terra_sim.run.replay import replay as replay_game

    result = replay_game(run_dir, game_id, step=step, echo=click.echo)
    if not result.matches:
        sys.exit(1)


@click.command()
@game_option
@click.option("--players", default="4", show_default=True, help="Player count(s): 4 or 2,3,4.")
@click.option("--games", type=int, default=200, show_default=True, help="Games per measurement.")
@click.option("--strategies", help="Strategy pool (default: the scripted bots).")
@click.option("--workers", type=int, help="Workers for the parallel run (default: all cores).")
@click.option("--against", metavar="REV",
              help="Also measure git revision REV of this checkout, in turns with this tree, "
                   "and show both side by side (before and after a change). REV is compiled "
                   "as an install would compile it.")
@click.option("--rounds", type=int, default=3, show_default=True,
              help="With --against: measurements of each side; with --ceiling: rounds of "
                   "the runner and the bare processes in turns.")
@click.option("--ceiling", is_flag=True,
              help="Also play the same games in bare forked processes (no pool, chunks or "
                   "files), one and all workers, in turns with the runs for --rounds rounds, "
                   "and show the machine's own speed-up beside the runner's: how much of the "
                   "gap to 2x (or Nx) is the runner's.")
@click.option("--report-games", metavar="N,N,...",
              help="Instead of play: time `terra-sim report` (wall seconds, peak memory) on runs "
                   "of these many games, e.g. 20000,100000,1000000, each made by tiling one "
                   "real run (see --from).")
@click.option("--from", "from_run", type=click.Path(file_okay=False, exists=True),
              help="With --report-games: the run to tile (default: first play a run of "
                   "--games games with --players, --strategies and --workers).")
@click.option("--part-games", type=int, metavar="N",
              help="With --report-games: write the tiled runs in chunks of N games, as a long "
                   "real run does (default: one chunk per copy), and time the report again "
                   "after `terra-sim compact`.")
def bench(game, players, games, strategies, workers, against, rounds, ceiling, report_games,
          from_run, part_games) -> None:
    """Measure games/s and decisions/s, 1 worker vs all.

    Also shows the share of time spent writing Parquet and lost to inter-process overhead.
    With --against REV, this tree and REV take turns on the machine: the medians of each side,
    and the median of each round's ratio. With --report-games, measures the report instead.
    """
    from terra_sim.run import bench as b

    if (from_run or part_games) and not report_games:
        raise click.UsageError("--from and --part-games shape the runs that --report-games "
                               "measures; give --report-games too")
    if ceiling and (against or report_games):
        raise click.UsageError("--ceiling goes with the plain bench; drop --against and "
                               "--report-games")
    if ceiling and rounds < 1:
        raise click.UsageError(f"--rounds must be at least 1, got {rounds}")
    if report_games:
        if against:
            raise click.UsageError("--report-games measures this tree only; drop --against")
        if part_games is not None and part_games < 1:
            raise click.UsageError("--part-games must be at least 1")
        _bench_reports(report_games, from_run, part_games, game, players, games, strategies,
                       workers)
        return
    if against:
        def progress(side, r, x):
            click.echo(f"  round {r + 1}/{rounds}, {side.label}: {x.games_per_s:.1f} games/s "
                       f"with {x.workers}")

        new, old = b.bench_against(against, rounds, game, players, games, strategies, workers,
                                   progress)
        for side in (new, old):
            click.echo(f"{side.label}: {side.build}")
        click.echo(f"\nmedian of {rounds} rounds{'':<10}{'this tree':>12}{against:>14}"
                   f"{'ratio':>8}")
        for i, line in enumerate(new.runs[0]):
            for field, label in (("games_per_s", "games/s"),
                                 ("decisions_per_s", "decisions/s")):
                a, z = new.median(i, field), old.median(i, field)
                click.echo(f"{f'{line.workers} worker(s), {label}':<28}{a:>12.1f}{z:>14.1f}"
                           f"{new.ratio(old, i, field):>7.2f}x")
        click.echo("(ratio: the median of each round's ratio, the two sides of a round run "
                   "back to back)")
        return
    from terra_sim import native

    click.echo(f"build: {native.STATUS}")
    click.echo(f"{'workers':>7}{'games':>7}{'wall s':>8}{'games/s':>9}{'decisions/s':>13}"
               f"{'parquet':>9}{'overhead':>10}{'cpu':>6}")

    def show(x) -> None:  # each line as soon as it is measured
        click.echo(f"{x.workers:>7}{x.games:>7}{x.wall_s:>8.2f}{x.games_per_s:>9.1f}"
                   f"{x.decisions_per_s:>13.0f}{x.parquet_share:>9.1%}{x.overhead_share:>10.1%}"
                   f"{x.cpu_share:>6.0%}")

    lines, memory = b.bench(game, players, games, strategies, workers, on_line=show)
    if len(lines) == 2:
        click.echo(f"speed-up with {lines[1].workers} workers: "
                   f"{lines[1].games_per_s / lines[0].games_per_s:.2f}x")
    if ceiling and len(lines) == 2:
        n = lines[1].workers
        ratios = []  # (the runner's speed-up, the bare processes'), a round each, in turns
        for r in range(rounds):
            if r:
                lines, _ = b.bench(game, players, games, strategies, workers)
            walls = b.ceiling(game, players, games, strategies, workers)
            ratios.append((lines[1].games_per_s / lines[0].games_per_s, walls[1] / walls[n]))
            click.echo(f"  round {r + 1}/{rounds}: the runner {ratios[-1][0]:.2f}x, bare "
                       f"processes {ratios[-1][1]:.2f}x ({walls[1]:.2f} s with 1, "
                       f"{walls[n]:.2f} s with {n})")
        run, bare = (statistics.median(x) for x in zip(*ratios, strict=True))
        click.echo(f"speed-up with {n} workers, median of {rounds} rounds: the runner "
                   f"{run:.2f}x; bare processes playing the same games without it {bare:.2f}x")
    if any(x.cpu_share < 0.9 for x in lines):
        click.echo("note: workers got under 90% of a core (cpu column): other programs are "
                   "competing, so the figures understate this machine's speed")
    click.echo(f"peak memory: parent {memory['parent']:.0f} MiB, "
               f"largest worker {memory['worker']:.0f} MiB")


@click.command()
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True))
@click.option("--games-per-part", type=int, default=None, metavar="N",
              help="Games per merged part file [default: 20,000].")
def compact(run_dir, games_per_part) -> None:
    """Merge a run's many small part files into few large ones.

    A long run writes a part file per chunk of games, tens of thousands of them, and reading
    each costs more than its rows; merged, the run reads (and reports) much faster. The games
    are unchanged. A run merges its own parts when it ends with more than 1,000 chunks; this
    does it for older or interrupted runs, and finishes a compaction that was interrupted.
    """
    from pathlib import Path

    from terra_sim.core.errors import UserError
    from terra_sim.store import compaction

    if not (Path(run_dir) / "manifest.json").is_file():
        raise UserError(f"{run_dir} is not a run directory (no manifest.json)")
    if games_per_part is not None and games_per_part < 1:
        raise UserError("--games-per-part must be at least 1")
    before, after = compaction.compact(
        run_dir, games_per_part, progress=lambda i, n: click.echo(f"  merged group {i:,} of {n:,}",
                                                        err=True))
    if before == after:
        click.echo(f"{run_dir}: {before:,} part files per table; nothing to merge")
    else:
        click.echo(f"{run_dir}: merged {before:,} part files per table into {after:,}")


def _bench_reports(sizes_text, from_run, part_games, game, players, games, strategies,
                   workers) -> None:
    import tempfile
    from pathlib import Path

    from terra_sim.analysis import bench_report as br
    from terra_sim.run.runner import run_tournament

    sizes = br.parse_sizes(sizes_text)
    with tempfile.TemporaryDirectory(prefix="terra-sim-bench-report-") as tmp:
        src = Path(from_run) if from_run else None
        if src is None:
            click.echo(f"playing a {games}-game run to tile...")
            src = run_tournament(game=game, players=players, games=games, strategies=strategies,
                                 workers=workers, actions=False,
                                 out=str(Path(tmp) / "source")).run_dir
        chunks = f"chunks of {part_games:,} games" if part_games else "one chunk per copy"
        click.echo(f"report on runs tiled from {src}, {chunks} (wall time and peak memory of "
                   "the report process)")
        click.echo(f"{'games':>10}{'parts':>8}{'wall s':>9}{'peak MiB':>10}")

        def show(x) -> None:  # each line as soon as it is measured
            after = "" if x.compact_s is None else f"  after compact ({x.compact_s:.1f} s)"
            click.echo(f"{x.games:>10,}{x.parts:>8,}{x.wall_s:>9.1f}{x.peak_mib:>10.0f}{after}")

        br.measure_reports(src, sizes, tmp, on_line=show, part_games=part_games)


COMMANDS = [run, replay, bench, compact]
