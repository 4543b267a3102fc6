"""`terra-sim list`: what can be played."""

import click

from terra_sim.cli.options import game_option
from terra_sim.games import game_slugs, get_game


@click.group("list")
def list_group() -> None:
    """List games, factions or strategies."""


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
    """The factions of a game, with home terrain and mat side."""
    rows = get_game(game).faction_table()
    click.echo(f"{'faction':<17} {'home':<10} {'colour':<7} side")
    for r in rows:
        click.echo(f"{r['faction']:<17} {r['home']:<10} {r['color']:<7} {r['side']}")


@list_group.command("strategies")
@game_option
def list_strategies(game: str) -> None:
    """The strategy bots, with a one-line description and their parameters."""
    from strategies import REGISTRY

    for name, cls in REGISTRY.items():
        if cls.games and game not in cls.games:
            continue
        params = ", ".join(f"{k}={v}" for k, v in cls.params.items()) or "no parameters"
        click.echo(f"{name:<14} {cls.description}\n{'':<14} parameters: {params}")


COMMANDS = [list_group]
