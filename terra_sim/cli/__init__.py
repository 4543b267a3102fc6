"""The `terra-sim` command: a thin layer over the library. Each command group lives in its own
module listed in COMMAND_MODULES and exposes a COMMANDS list of click commands."""

import importlib

import click

from terra_sim.core.errors import UserError
from terra_sim.version import __version__

COMMAND_MODULES = ("terra_sim.cli.listing", "terra_sim.cli.play", "terra_sim.cli.run",
                   "terra_sim.cli.report", "terra_sim.cli.logs", "terra_sim.cli.calibrate",
                   "terra_sim.cli.tune", "terra_sim.cli.ladder")


class UserMistake(click.ClickException):
    """A UserError shown as one line, exit status 2, no traceback."""

    exit_code = 2


class Group(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except UserError as e:
            raise UserMistake(str(e)) from None


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="terra-sim")
def cli() -> None:
    """Tournament simulator and balance reports for the Terra Mystica family of games."""


for _name in COMMAND_MODULES:
    for _cmd in importlib.import_module(_name).COMMANDS:
        cli.add_command(_cmd)


def main() -> None:
    cli()
