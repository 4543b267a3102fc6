"""Options shared by several commands, defined once."""

import click

from terra_sim.games import DEFAULT_GAME

# A plain string, checked by the game registry when used: games registered at run time count.
game_option = click.option("--game", default=DEFAULT_GAME, show_default=True,
                           help="Which game (terra-sim list games).")
seed_option = click.option("--seed", default=1, show_default=True, type=int,
                           help="Master seed: the same seed gives the same games.")
