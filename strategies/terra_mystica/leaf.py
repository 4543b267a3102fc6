"""The search bot's leaf value: valuation's terms weighed by how well they foretell final VP.

The search plays each root move to the round's end and values the state it reaches. Greedy's
valuation sums its terms at weight one, in VP equivalents tuned for choosing one action, and it
foretells little of who ends ahead: at the start of round 2 it explains 13% of the spread of
final VP between the players of a game. Fitted to how games of the tuned mix ended, the same
terms explain 32% (round 5: 49% against 64%). The fit is per round, within each game (a term's
worth is how far it puts a player ahead of the others at the same table), with a constant per
faction for what the terms miss of it. fit_leaf.py makes tuned/search-leaf-<N>p.toml for
N-player games; a player count without its file is valued by the valuation.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

from strategies.terra_mystica.valuation import TERMS, Context, terms
from terra_sim.games.terra_mystica.state import TerraMysticaState


def path(players: int) -> Path:
    """The model file for `players`-player games: final scoring and the table's size differ."""
    return Path(__file__).parent / "tuned" / f"search-leaf-{players}p.toml"


class LeafModel:
    """Per round: a coefficient per term and a constant per faction."""

    def __init__(self, rounds: dict[int, tuple[list[float], dict[str, float]]]):
        self.rounds = rounds

    def value(self, s: TerraMysticaState, seat: int, ctx: Context) -> float | None:
        """The fitted value of seat's position, or None in a round the model has no fit for."""
        fit = self.rounds.get(s.round)
        if fit is None:
            return None
        coef, faction = fit
        t = terms(s, seat, ctx)
        return (sum(c * x for c, x in zip(coef, t, strict=True))
                + faction.get(s.players[seat].faction.slug, 0.0))

    @staticmethod
    def read(path: Path) -> LeafModel:
        """The model in `path`; a clear error for a file that does not fit today's terms."""
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise ValueError(f"cannot read the search's leaf model {path}: {e}") from None
        rounds: dict[int, tuple[list[float], dict[str, float]]] = {}
        tables = data.get("round", {})
        for key, table in (tables.items() if isinstance(tables, dict) else [("", None)]):
            coef = table.get("terms", {}) if isinstance(table, dict) else None
            faction = table.get("faction", {}) if isinstance(table, dict) else None
            if not (key.isdigit() and isinstance(coef, dict) and isinstance(faction, dict)):
                raise ValueError(f"{path}: [round.{key}] is not a round's terms and faction "
                                 "tables")
            if set(coef) != set(TERMS):  # the valuation's terms changed since the fit: refit
                raise ValueError(f"{path}: round {key} has terms {sorted(coef)}, the valuation "
                                 f"{sorted(TERMS)}; run python -m "
                                 "strategies.terra_mystica.fit_leaf again")
            if not all(isinstance(v, int | float) and not isinstance(v, bool)
                       for v in [*coef.values(), *faction.values()]):
                raise ValueError(f"{path}: round {key} holds a value that is not a number")
            rounds[int(key)] = ([float(coef[t]) for t in TERMS],
                                {f: float(v) for f, v in faction.items()})
        if not rounds:
            raise ValueError(f"{path}: no [round.N] tables")
        return LeafModel(rounds)


@functools.cache
def shipped(players: int) -> LeafModel | None:
    """The shipped model for `players`-player games, or None without one (the valuation is
    used)."""
    p = path(players)
    return LeafModel.read(p) if p.exists() else None
