"""`terra-sim ladder`: the faction ranking at rising bot strength, and whether it has settled."""

import sys

import click

from terra_sim.games import DEFAULT_GAME


@click.command()
@click.argument("config", required=False)
@click.option("--game", help=f"Which game (default: the config's, else {DEFAULT_GAME}).")
@click.option("--players", help="Player count, or several: 2,3,4.")
@click.option("--games", type=int, help="Games per rung (every rung plays the same games).")
@click.option("--seed", type=int, help="Master seed: the same seed gives the same deals.")
@click.option("--workers", type=int, help="Worker processes (default: all cores).")
@click.option("--factions", help="Faction pool, comma-separated (default: all).")
@click.option("--out", help="Ladder folder: a run per rung (OUT/<rung>) and the ladder report "
                            "[default: runs/ladder-<game>-<hash of what it plays>, so the same "
                            "command finds its folder again].")
@click.option("--no-actions", is_flag=True, help="Skip the per-action log (faster, smaller).")
@click.option("--force", is_flag=True,
              help="Resume a rung's run even though the game data, the engine or a bot's code "
                   "or tuned data changed since it began.")
def ladder(config, game, players, games, seed, workers, factions, out, no_actions,
           force) -> None:
    """Does the faction ranking still move as the bots get stronger?

    Plays the same games (same seed, deals and seats) at each rung of a ladder of bots, weakest
    first: CONFIG's [ladder] rungs (see configs/ladder.toml), or by default random play, the
    scripted bots untuned (when the game ships tuned weights) and tuned, and the search bot at
    two budgets. Each rung is an ordinary run in
    OUT/<rung>; the same command resumes an interrupted ladder. Writes OUT/ladder.md (ranking
    per rung, Spearman rho between rungs [95% bootstrap], verdicts that change, the
    conclusion), ladder.csv and ladder.png.
    """
    from terra_sim.analysis.render import num_ci, text_table
    from terra_sim.run.ladder import rank_table, run_ladder
    from terra_sim.run.runner import RunInterrupted

    try:
        result = run_ladder(
            config, progress=lambda line: click.echo(line, err=True), force=force, game=game,
            players=players, games=games, seed=seed, workers=workers, factions=factions,
            out=out, actions=False if no_actions else None)
    except RunInterrupted as e:
        click.echo(f"\nInterrupted in {e.run_dir} ({e.finished} games kept); continue with the "
                   "same command.", err=True)
        sys.exit(130)
    found = result.ladder
    click.echo(f"\nRank by mean VP margin (1 = strongest) [95% bootstrap], {found.games:,} "
               "games per rung:")
    click.echo(text_table(rank_table(found)))
    click.echo("\nSpearman rho between rungs [95% bootstrap]:")
    for r in found.correlations.iter_rows(named=True):
        click.echo(f"  {r['rung_a']} -> {r['rung_b']}: "
                   f"{num_ci(r['rho'], r['rho_lo'], r['rho_hi'], 2)}")
    moved: dict[str, list[str]] = {}
    for r in found.changes.iter_rows(named=True):
        moved.setdefault(f"{r['rung_a']} -> {r['rung_b']}", []).append(r["faction"])
    click.echo("\nVerdicts that change (ladder.md has them): " + (
        "; ".join(f"{pair}: {', '.join(fs)}" for pair, fs in moved.items()) or "none"))
    lost = {r.name: run.failed for r, run in zip(result.rungs, result.runs, strict=True)
            if run.failed}
    if lost:
        click.echo("Games lost to errors (left out of every rung): " + ", ".join(
            f"{n} in {name}" for name, n in lost.items()))
    click.echo(f"\nConclusion: {found.conclusion}.")
    click.echo(f"Ladder report: {result.main_file}")


COMMANDS = [ladder]
