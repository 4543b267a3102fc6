"""`terra-sim list`: what can be played."""

import click

from terra_sim.cli.options import game_option
from terra_sim.games import game_slugs, get_game


@click.group("list")
def list_group() -> None:
    """List games, factions, options or strategies."""


@list_group.command("games")
def list_games() -> None:
    """The games this tool plays."""
    for slug in game_slugs():
        g = get_game(slug)
        click.echo(f"{slug:<14} {g.title}  (engine {g.version}, data {g.data_set}, "
                   f"{'/'.join(map(str, g.player_counts))} players)")


@list_group.command("factions")
@game_option
def list_factions(game: str) -> None:
    """The factions of a game, with what the game says of each (home terrain, mat side...)."""
    rows = get_game(game).faction_table()
    cols = list(rows[0]) if rows else ["faction"]
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) + 2 for c in cols]
    for line in [dict(zip(cols, cols, strict=True)), *rows]:
        click.echo("".join(f"{str(line[c]):<{w}}" for c, w in zip(cols, widths, strict=True))
                   .rstrip())


@list_group.command("options")
@game_option
def list_options(game: str) -> None:
    """The options of a game and their values, the default first (play -o KEY=VALUE, or a
    config's [options] table)."""
    for key, values in get_game(game).option_names().items():
        click.echo(f"{key:<14} {', '.join(values)}")


@list_group.command("strategies")
@game_option
def list_strategies(game: str) -> None:
    """The strategy bots that play a game, with a one-line description and their parameters."""
    from strategies import roster
    from terra_sim.games import game_bots

    kit = game_bots(game)
    for name, cls in roster(game).items():
        params = ", ".join(f"{k}={v}" for k, v in cls.defaults(kit).items()) or "no parameters"
        click.echo(f"{name:<14} {cls.description}\n{'':<14} {cls.kind}; parameters: {params}")
    click.echo("\nSet parameters inline where a bot is named (NAME:key=value:key=value, say "
               "mcts:budget=120), or in a config's [strategies.<variant>] table.")


COMMANDS = [list_group]
