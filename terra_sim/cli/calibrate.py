"""`terra-sim calibrate`: the starting-VP handicap per faction that equalises the factions."""

import sys

import click

from terra_sim.run.calibrate import DEFAULT_ROUNDS


@click.command()
@click.argument("config", required=False)
@click.option("--out", required=True,
              help="Calibration folder: one run per iteration (iter-1, ...) and the results. "
                   "The same command on the same folder continues a calibration.")
@click.option("--rounds", type=int, default=DEFAULT_ROUNDS, show_default=True,
              help="The most iterations, where starting VP can change play.")
@click.option("--verify", is_flag=True,
              help="Where one run is exact: play a second with the handicaps, to show every "
                   "game replays with the scores shifted by them.")
@click.option("--game", help="Which game (default: the config's, else terra-nova).")
@click.option("--players", help="Player count, or several: 2,3,4.")
@click.option("--games", type=int, help="Games per iteration.")
@click.option("--seed", type=int, help="Master seed (every iteration uses it).")
@click.option("--workers", type=int, help="Worker processes (default: all cores).")
@click.option("--factions", help="Faction pool, comma-separated (default: all).")
@click.option("--strategies", help="Strategy pool, comma-separated (default: the scripted bots).")
@click.option("--until-ci", type=float, metavar="W",
              help="Each iteration runs until every 95% win-share interval is at most W wide.")
@click.option("--until-margin-ci", type=float, metavar="V",
              help="Each iteration runs until every 95% VP-margin interval is at most V VP "
                   "wide.")
@click.option("--max-games", type=int, metavar="N", help="The cap of each run until sure.")
@click.option("--until-batch", type=int, metavar="N", help="Games between a run's checks.")
@click.option("--no-actions", is_flag=True, help="Skip the per-action log (faster, smaller).")
def calibrate(config, out, rounds, verify, game, players, games, seed, workers, factions,
              strategies, until_ci, until_margin_ci, max_games, until_batch,
              no_actions) -> None:
    """How much is each faction worth? Find the starting-VP handicap per faction that makes
    every faction's mean VP margin 0 under the chosen bots.

    CONFIG is a run config (TOML, see configs/); options override it. Each iteration is an
    ordinary run in OUT/iter-<k> with the handicaps as overrides of the factions' starting VP,
    played with the same seed. Where starting VP cannot change play, one run is exact;
    elsewhere the runs go on until every margin interval contains 0 (or --rounds). Writes
    OUT/calibration.md, calibration.csv, iterations.csv, handicap.toml (overrides to paste
    into a config) and convergence.png.
    """
    from terra_sim.run.calibrate import calibrate as run_calibration
    from terra_sim.run.runner import RunInterrupted

    try:
        result = run_calibration(
            config, out, rounds=rounds, verify=verify, progress=True, game=game,
            players=players, games=games, seed=seed, workers=workers, factions=factions,
            strategies=strategies, until_ci=until_ci, until_margin_ci=until_margin_ci,
            max_games=max_games, until_batch=until_batch,
            actions=False if no_actions else None)
    except RunInterrupted as e:
        click.echo(f"\nInterrupted in {e.run_dir} ({e.finished} games kept); continue with the "
                   f"same command (same --out {out}).", err=True)
        sys.exit(130)
    table = result.start_vp()
    est = result._table()
    click.echo(f"\n{'faction':<18}{'handicap [95%]':>24}{'start VP':>10}")
    for f in sorted(est, key=lambda x: -est[x][0] if est[x][0] == est[x][0] else 0):
        h, lo, hi = est[f]
        click.echo(f"{f:<18}{f'{h:+.1f} [{lo:+.1f}, {hi:+.1f}]':>24}{table[f]:>10}")
    click.echo(f"\n{'Exact' if result.exact else 'Iterated'}: {result.why}.")
    click.echo(f"Stopped: {result.stopped}.")
    click.echo(f"Calibration: {result.out_dir / 'calibration.md'}")
    if result.verified is False:
        sys.exit(1)


COMMANDS = [calibrate]
