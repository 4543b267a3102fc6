"""`terra-sim play`: one game, told round by round."""

import click

from terra_sim.cli.options import game_option, seed_option
from terra_sim.core.record import GameRecord, new_game


def describe(record: GameRecord, step: bool = False) -> str:
    """The game as text: each round's actions (or a count per seat), then the final breakdown."""
    _, state, _ = new_game(record.game, record.factions, record.seed, None,
                           record.setup.get("overrides") or None, record.setup.get("options", {}))
    lines = [f"{record.game} seed {record.seed}: "
             + ", ".join(f"seat {i} {f} ({s})" for i, (f, s) in
                         enumerate(zip(record.factions, record.strategies, strict=True))),
             f"round tiles: {', '.join(record.setup['round_tiles'])}; "
             f"bonus tiles: {', '.join(record.setup['bonus_tiles'])}"]
    current = None
    for text, seat, rnd in zip(record.actions, record.action_seats, record.action_rounds,
                               strict=True):
        if rnd != current:
            current = rnd
            lines.append(f"\n== {'setup' if rnd == 0 else f'round {rnd}'} ==")
        if step or not text.startswith(("exchange", "done")):
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


@click.command()
@game_option
@click.option("--players", default=4, show_default=True, type=int, help="Number of players.")
@seed_option
@click.option("--factions", default=None, help="Comma-separated factions by seat (default: drawn).")
@click.option("--strategies", default="random", show_default=True,
              help="One strategy for all seats, or comma-separated by seat.")
@click.option("--variant", default=None, help="Game variant option (e.g. planner, lucky-digger).")
@click.option("--turn-order", default=None, help="Turn order option (clockwise, dropout).")
@click.option("--step", is_flag=True, help="Print every action, power exchanges included.")
def play(game: str, players: int, seed: int, factions: str | None, strategies: str,
         variant: str | None, turn_order: str | None, step: bool) -> None:
    """Play one game and print it round by round with the final score breakdown."""
    from terra_sim import play_game

    options = {k: v for k, v in (("variant", variant), ("turn_order", turn_order)) if v}
    fac = factions.split(",") if factions else None
    strats = strategies.split(",") if "," in strategies else strategies
    record = play_game(game, fac, strats, seed, players=None if fac else players, **options)
    click.echo(describe(record, step))


COMMANDS = [play]
