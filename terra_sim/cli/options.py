"""Options shared by several commands, defined once."""

import click

from terra_sim.games import game_slugs

game_option = click.option("--game", default="terra-nova", show_default=True,
                           type=click.Choice(game_slugs()), help="Which game.")
seed_option = click.option("--seed", default=1, show_default=True, type=int,
                           help="Master seed: the same seed gives the same games.")
