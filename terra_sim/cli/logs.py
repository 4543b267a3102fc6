"""`terra-sim import` and `export`: real games in and out, in a game's own log format."""

from pathlib import Path

import click

from terra_sim.core.errors import UserError


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True,
                                                                  path_type=Path))
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="The run folder to create (report, compare and replay read it).")
@click.option("--game", default=None,
              help="Whose log format (default: the one game that can import logs).")
def import_(files: tuple[Path, ...], out: str, game: str | None) -> None:
    """Replay logged games (e.g. from the game's online server) into a run folder.

    Each file is replayed through our engine and stored as a simulated game would be, with
    strategy `human`. A file that does not replay is named with the line and the reason, and
    the others still import.
    """
    from terra_sim.run.logs import import_logs

    if not out.strip():  # Path("") is the current folder
        raise UserError("--out is empty: name the run folder to create")
    manifest = import_logs(list(files), Path(out), game,
                           warn=lambda m: click.echo(f"skipped {m}", err=True))
    click.echo(f"{manifest['finished_games']} of {len(files)} games imported into {out}")


@click.command("export")
@click.argument("run_dir", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.argument("game_id", type=int)
@click.option("--out", type=click.Path(dir_okay=False),
              help="Write to this file (default: print).")
def export(run_dir: Path, game_id: int, out: str | None) -> None:
    """Write game GAME_ID of a run in its game's log format (the online server's, for Terra
    Mystica)."""
    from terra_sim.run.logs import export_game

    if out is not None and not out.strip():
        raise UserError("--out is empty: name the file to write, or omit it to print")
    text = export_game(run_dir, game_id)
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        Path(out).write_text(text, encoding="utf-8")
    except OSError as e:
        raise UserError(f"cannot write {out}: {e.strerror}") from None
    click.echo(f"wrote {out}")


COMMANDS = [import_, export]
