"""`terra-sim play`: one game, told round by round."""

from typing import Any

import click

from terra_sim.cli.options import game_option, seed_option
from terra_sim.core.errors import UserError
from terra_sim.core.record import GameRecord, new_game
from terra_sim.games import get_game
from terra_sim.run.config import check_seed

SHOWN_APART = ("game", "seed", "factions", "options", "overrides")  # setup keys not listed
DEFAULT_PLAYERS = 4


def describe(record: GameRecord, step: bool = False) -> str:
    """The game as text: each round's actions (or a count per seat), then the final breakdown."""
    overrides = record.setup.get("overrides") or None
    g = get_game(record.game, overrides)
    state, _ = new_game(g, record.factions, record.seed, None, overrides,
                        record.setup.get("options", {}))
    drawn = [f"{k.replace('_', ' ')}: {', '.join(map(str, v)) if isinstance(v, list) else v}"
             for k, v in record.setup.items() if k not in SHOWN_APART]
    lines = [f"{record.game} seed {record.seed}: "
             + ", ".join(f"seat {i} {f} ({s})" for i, (f, s) in
                         enumerate(zip(record.factions, record.strategies, strict=True))),
             "; ".join(drawn)]
    current = None
    for text, seat, rnd in zip(record.actions, record.action_seats, record.action_rounds,
                               strict=True):
        if rnd != current:
            current = rnd
            lines.append(f"\n== {'setup' if rnd == 0 else f'round {rnd}'} ==")
        if step or not text.startswith(g.quiet_actions):
            lines.append(f"  seat {seat} {record.factions[seat]:<16} {text}")
        state.apply(state.parse_action(text))
        if rnd and state.round != rnd or state.is_over():
            lines.append("  VP: " + ", ".join(f"{f} {v}" for f, v in
                                              zip(record.factions, state.vp(), strict=True)))
    lines += ["", state.render(), "", "Final score breakdown:"]
    cats = list(record.breakdown[0])
    lines.append(f"  {'faction':<17}" + "".join(f"{c:>10}" for c in cats) + f"{'total':>8}")
    for f, b, vp in zip(record.factions, record.breakdown, record.final_vp, strict=True):
        lines.append(f"  {f:<17}" + "".join(f"{b[c]:>10}" for c in cats) + f"{vp:>8}")
    return "\n".join(lines)


def parse_option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise UserError(f"--option {text!r}: expected KEY=VALUE, e.g. turn_order=dropout")
    return key.strip(), value.strip()


@click.command()
@game_option
@click.option("--players", type=int,
              help=f"Number of players [default: {DEFAULT_PLAYERS}, or one per faction of "
                   "--factions].")
@seed_option
@click.option("--factions", default=None, help="Comma-separated factions by seat (default: drawn).")
@click.option("--strategies", default="random", show_default=True,
              help="One strategy for all seats, or comma-separated by seat.")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
              help="A game option, repeatable (terra-sim list options --game G shows them).")
@click.option("--step", is_flag=True, help="Print every action, bookkeeping ones included.")
def play(game: str, players: int | None, seed: int, factions: str | None, strategies: str,
         options: tuple[str, ...], step: bool) -> None:
    """Play one game and print it round by round with the final score breakdown."""
    from terra_sim.play import play_game

    check_seed(seed)
    counts = get_game(game).player_counts
    if players is not None and players not in counts:
        # Checked here: the play loop reads a count of 0 as "the default" and plays 4.
        raise UserError(f"{game} plays with {', '.join(map(str, counts))} players, "
                        f"not {players}")
    opts: dict[str, Any] = dict(parse_option(o) for o in options)
    fac = seat_factions(factions, players)
    strats = strategies.split(",") if "," in strategies else strategies
    seats = None if fac else DEFAULT_PLAYERS if players is None else players
    record = play_game(game, fac, strats, seed, players=seats, **opts)
    click.echo(describe(record, step))


def seat_factions(factions: str | None, players: int | None) -> list[str] | None:
    """The factions by seat from --factions (None: drawn). The seat count follows --factions
    when --players is not given; both given must agree."""
    if factions is None:
        return None
    fac = [f.strip() for f in factions.split(",")]
    if not any(fac):
        raise UserError("--factions is empty: name one faction per seat, e.g. golems,fairies, "
                        "or omit it to draw the factions")
    if not all(fac):
        raise UserError(f"--factions {factions!r} has an empty name: name one faction per "
                        "seat, separated by commas")
    if players is not None and players != len(fac):
        raise UserError(f"--players {players} but --factions names {len(fac)} factions "
                        f"({', '.join(fac)}): name one faction per seat, or omit --players "
                        "to play one seat per faction")
    return fac


COMMANDS = [play]
