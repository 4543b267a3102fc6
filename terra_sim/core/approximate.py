"""Data marked approximate (invented or uncertain), and which runs use it.

A game lists its approximate data in `Game.approximate`; an item that only some games use (a
board of one player count, a variant's setup) says so as data, so that a run is warned of the
stand-ins it played on and no others. A plain string is an item every game uses.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Approximate:
    """An item of approximate data, used by the games with one of `players` (empty: any
    count) and, for each option in `options`, one of its values (empty: any options)."""

    text: str
    players: tuple[int, ...] = ()
    options: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def used_by(self, player_counts: Iterable[int], options: Mapping[str, Any]) -> bool:
        """Whether a run of these player counts and options (every option given) uses it."""
        return ((not self.players or any(n in self.players for n in player_counts))
                and all(options.get(k) in values for k, values in self.options.items()))


# The part of core.protocol.Game read here: protocol.py imports this module, so this one
# cannot import it back.
class _Game(Protocol):
    approximate: Sequence[str | Approximate]

    def option_names(self) -> dict[str, tuple[str, ...]]: ...


def approximate_for(game: _Game, player_counts: Iterable[int],
                    options: Mapping[str, Any]) -> list[str]:
    """The texts of `game`'s approximate items that a run of `player_counts` and `options`
    uses; an option the run leaves out takes its default (the first value)."""
    chosen = {k: values[0] for k, values in game.option_names().items() if values} | dict(options)
    counts = list(player_counts)
    return [item if isinstance(item, str) else item.text for item in game.approximate
            if isinstance(item, str) or item.used_by(counts, chosen)]
