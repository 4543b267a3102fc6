"""Who plays game i of a run: a GameSpec (seed, factions by seat, strategies by seat) computed
from the run's content config and i alone, never from which worker plays it, the chunk size or
the order chunks finish in: the same seed gives the same games on any executor, after a resume
and on replay."""

import functools
from dataclasses import dataclass
from typing import Any

from terra_sim.core.errors import UserError
from terra_sim.core.rng import derive_seed, stream


@dataclass
class GameSpec:
    game_id: int
    seed: int
    factions: tuple[str, ...]
    strategies: tuple[str, ...]


class Plan:
    """Who plays game i, computed from the content config and i alone.

    balanced: per player count, games come in blocks as long as the faction pool. A block is a
    cyclic Latin rectangle over a shuffled pool (seat s plays pool[(g + offset_s) % F] in the
    block's game g), so each faction plays each seat once per block; shuffle and offsets are
    searched until no game holds two factions of one exclusive group. Strategies rotate the same
    way over blocks as long as the strategy pool.
    random: factions drawn from the pool (respecting exclusive groups), strategies drawn by seat.
    """

    def __init__(self, content: dict[str, Any], exclusive: list[set[str]]):
        self.c = content
        self.group = {f: i for i, g in enumerate(exclusive) for f in g}

    def _groups_ok(self, factions: list[str]) -> bool:
        groups = [self.group.get(f, f) for f in factions]
        return len(set(groups)) == len(groups)

    def spec(self, i: int) -> GameSpec:
        counts = self.c["players"]
        n, j = counts[i % len(counts)], i // len(counts)
        strats = self.c["strategies"]
        if self.c["design"] == "balanced":
            factions = self._faction_block(n, j // len(self.c["factions"]))
            block = factions[j % len(self.c["factions"])]
            sp = self._strategy_block(n, j // len(strats))
            chosen = tuple(sp[(j + s) % len(strats)] for s in range(n))
        else:
            rng = stream(self.c["seed"], "design", i)
            block = self._draw(n, rng)
            chosen = tuple(rng.choice(strats) for _ in range(n))
        if self.c["per_seat"]:
            chosen = tuple(strats)
        return GameSpec(i, derive_seed(self.c["seed"], "game", i), block, chosen)

    def _draw(self, n: int, rng: Any) -> tuple[str, ...]:
        for _ in range(200):
            pool = list(self.c["factions"])
            rng.shuffle(pool)
            picked: list[str] = []
            for f in pool:
                if len(picked) < n and self._groups_ok([*picked, f]):
                    picked.append(f)
            if len(picked) == n:
                return tuple(picked)
        raise UserError(self._no_design(n))

    @functools.lru_cache(maxsize=64)  # noqa: B019 - a Plan lives as long as its run
    def _faction_block(self, n: int, b: int) -> list[tuple[str, ...]]:
        pool = list(self.c["factions"])
        rng = stream(self.c["seed"], "design", "factions", n, b)
        size = len(pool)
        for _ in range(5000 if size >= n else 0):
            rng.shuffle(pool)
            offsets = rng.sample(range(size), n)
            games = [tuple(pool[(g + o) % size] for o in offsets) for g in range(size)]
            if all(self._groups_ok(list(game)) for game in games):
                return games
        # Drawing shuffles finds a block at once for a few groups and seats, but can miss one
        # that exists when many groups meet many seats (seven colour pairs at five seats: about
        # one draw in a thousand fits). Then build the pool around drawn offsets instead. Tried
        # second, so that every block the draws find stays the block this seed always gave.
        for _ in range(100 if size >= n else 0):
            offsets = rng.sample(range(size), n)
            arranged = self._arrange(offsets, rng)
            if arranged is not None:
                return [tuple(arranged[(g + o) % size] for o in offsets) for g in range(size)]
        raise UserError(self._no_design(n))

    def _arrange(self, offsets: list[int], rng: Any, budget: int = 20_000) -> list[str] | None:
        """The faction pool in an order where no game of the block (seat s plays position
        g + offsets[s]) holds two factions of one group: a depth-first search that places one
        faction per position, trying one faction per group at each step, in random order."""
        size = len(self.c["factions"])
        clash = {(a - b) % size for a in offsets for b in offsets if a != b}
        left = list(self.c["factions"])
        rng.shuffle(left)
        placed: list[str] = []
        steps = 0

        def fill() -> bool:
            nonlocal steps
            p = len(placed)
            if p == size:
                return True
            near = {self.group.get(placed[q], placed[q]) for q in range(p)
                    if (p - q) % size in clash}
            tried = set()
            for f in list(left):
                g = self.group.get(f, f)
                if g in near or g in tried:
                    continue
                tried.add(g)
                steps += 1
                if steps > budget:
                    return False
                left.remove(f)
                placed.append(f)
                if fill():
                    return True
                placed.pop()
                left.append(f)
            return False

        return placed if fill() else None

    @functools.lru_cache(maxsize=64)  # noqa: B019
    def _strategy_block(self, n: int, b: int) -> list[str]:
        pool = list(self.c["strategies"])
        stream(self.c["seed"], "design", "strategies", n, b).shuffle(pool)
        return pool

    def _no_design(self, n: int) -> str:
        return (f"the faction pool ({', '.join(self.c['factions'])}) cannot seat {n} players "
                "without two factions of the same colour")

