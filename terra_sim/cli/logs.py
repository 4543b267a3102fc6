"""`terra-sim import` and `export`: real games in and out, in a game's own log format."""

from pathlib import Path

import click


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True,
                                                                  path_type=Path))
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="The run folder to create (report, compare and replay read it).")
@click.option("--game", default=None,
              help="Whose log format (default: the one game that can import logs).")
def import_(files: tuple[Path, ...], out: Path, game: str | None) -> None:
    """Replay logged games (e.g. from the game's online server) into a run folder.

    Each file is replayed through our engine and stored as a simulated game would be, with
    strategy `human`. A file that does not replay is named with the line and the reason, and
    the others still import.
    """
    from terra_sim.logs import import_logs

    manifest = import_logs(list(files), out, game,
                           warn=lambda m: click.echo(f"skipped {m}", err=True))
    click.echo(f"{manifest['finished_games']} of {len(files)} games imported into {out}")


@click.command("export")
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.argument("game_id", type=int)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write to this file (default: print).")
def export(run_dir: Path, game_id: int, out: Path | None) -> None:
    """Write game GAME_ID of a run in its game's log format (the online server's, for Terra
    Mystica)."""
    from terra_sim.logs import export_game

    text = export_game(run_dir, game_id)
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        click.echo(f"wrote {out}")


COMMANDS = [import_, export]
