"""Which factions may meet: the checks and draws every game's faction rule shares.

A game names what makes two factions exclusive (a shared mat, a shared home terrain) as a key
per faction; these helpers turn that into the runner's groups, a seeded draw, and one clear
error for a bad list.
"""

import random
from collections.abc import Callable, Iterable, Sequence

from terra_sim.core.errors import UserError


def group_factions(factions: Iterable[str], key: Callable[[str], object]) -> list[set[str]]:
    """Factions that never share a game: those with the same key, in first-seen order."""
    groups: dict[object, set[str]] = {}
    for f in factions:
        groups.setdefault(key(f), set()).add(f)
    return list(groups.values())


def draw_factions(groups: Sequence[set[str]], n_players: int, rng: random.Random) -> list[str]:
    """n factions from n different groups, drawn with `rng`."""
    return [rng.choice(g) for g in rng.sample([sorted(g) for g in groups], n_players)]


def check_factions(game: str, factions: Sequence[str], valid: Iterable[str],
          player_counts: Sequence[int], key: Callable[[str], object],
          clash: Callable[[list[str], object], str]) -> None:
    """A UserError naming the first problem of `factions` for `game`: an unknown name, a player
    count the game does not play, or two factions of one group (`clash` words it)."""
    known = list(valid)
    for f in factions:
        if f not in known:
            raise UserError(f"unknown faction {f!r} for {game} (valid: {', '.join(known)})")
    if len(factions) not in player_counts:
        raise UserError(f"{game} plays with {min(player_counts)}-{max(player_counts)} players, "
                        f"not {len(factions)}")
    keys = [key(f) for f in factions]
    for k in dict.fromkeys(keys):
        if keys.count(k) > 1:
            raise UserError(clash([f for f, fk in zip(factions, keys, strict=True) if fk == k], k))
