"""The search bot's leaf value: a game's valuation terms weighed by how well they foretell final
VP.

The search plays each root move to the end of its horizon and values the state it reaches.
A scripted bot's valuation sums its terms at weight one, in VP equivalents tuned for choosing
one action, and it foretells little of who ends ahead (in one shipped game, at the start of
round 2 it explains 13% of the spread of final VP between the players of a game, and the same
terms fitted to how games of the tuned mix ended explain 32%). The fit is per round, within
each game (a term's worth is how far it puts a player ahead of the others at the same table),
with a constant per faction for what the terms miss of it. A heuristic may add counts of the
position (`Heuristic.leaf_features`: held resources, income, buildings by kind...): the
fit weighs them beside the terms. `python -m strategies.fit_leaf
--game G` makes tuned/search-leaf-<N>p.toml beside a game's bots for N-player games; a game
heuristic that names its terms (`Heuristic.leaf_names`) values leaves by that file, and a
player count without one by the valuation.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path


def path(folder: Path, players: int) -> Path:
    """The model file for `players`-player games in a game's bot folder: final scoring and the
    table's size differ."""
    return folder / "tuned" / f"search-leaf-{players}p.toml"


class LeafModel:
    """Per round: a coefficient per term and a constant per faction."""

    def __init__(self, rounds: dict[int, tuple[list[float], dict[str, float]]]):
        self.rounds = rounds

    def value(self, round_: int, faction: str, terms: list[float]) -> float | None:
        """The fitted value of a position with these terms, or None in a round the model has no
        fit for."""
        fit = self.rounds.get(round_)
        if fit is None:
            return None
        coef, factions = fit
        return sum(c * x for c, x in zip(coef, terms, strict=True)) + factions.get(faction, 0.0)

    @staticmethod
    def read(path: Path, names: tuple[str, ...]) -> LeafModel:
        """The model in `path` for terms `names`; a clear error for a file that does not fit
        today's terms."""
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
            if set(coef) != set(names):  # the valuation's terms changed since the fit: refit
                raise ValueError(f"{path}: round {key} has terms {sorted(coef)}, the valuation "
                                 f"{sorted(names)}; run python -m strategies.fit_leaf for its game "
                                 "again")
            if not all(isinstance(v, int | float) and not isinstance(v, bool)
                       for v in [*coef.values(), *faction.values()]):
                raise ValueError(f"{path}: round {key} holds a value that is not a number")
            rounds[int(key)] = ([float(coef[t]) for t in names],
                                {f: float(v) for f, v in faction.items()})
        if not rounds:
            raise ValueError(f"{path}: no [round.N] tables")
        return LeafModel(rounds)


@functools.cache
def shipped(folder: Path, players: int, names: tuple[str, ...]) -> LeafModel | None:
    """The model shipped in a game's bot folder for `players`-player games, or None without one
    (the valuation is used)."""
    p = path(folder, players)
    return LeafModel.read(p, names) if p.exists() else None
