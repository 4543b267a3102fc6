"""A tiny game that plugs into terra-sim from outside the package, as a third-party game would:
its engine, its own `greedy` bot and nothing else. It differs from Terra Nova wherever a hidden
assumption could hide: 2 to 5 players, three rounds,
eleven factions in six exclusive colours (one of them alone), three scoring categories of
its own, options of its own and a quiet bookkeeping action.

The game, "Tally": each round every seat in turn takes 1, 2 or 3 steps, twice, then says
"done". A step is a VP ("steps"); landing on a multiple of five is worth 2 more ("bonus"); a
faction's knack is worth 1 VP per use ("knack"). A seat that lands exactly where another seat
stands pushes it back one step (its VP stays). Option `short` plays one round instead of three.
"""

from __future__ import annotations

import random
from typing import Any

from strategies.base import Strategy
from strategies.weighted import WeightedStrategy
from terra_sim.core.errors import IllegalAction, UserError

SLUG = "tally"
CATEGORIES = ("steps", "bonus", "knack")
# faction -> (pair it shares a colour with, the step count its knack rewards)
FACTIONS = {"ant": ("red", 1), "bee": ("red", 3), "cat": ("blue", 2), "dog": ("blue", 1),
            "eel": ("green", 3), "fox": ("green", 2), "gnu": ("white", 1), "hen": ("white", 3),
            "ibis": ("yellow", 2), "jay": ("yellow", 1), "koi": ("black", 3)}
OPTIONS = {"length": ("long", "short")}


class TallyState:
    def __init__(self, factions: list[str], seed: int, rounds: int):
        self.factions = factions
        self.n = len(factions)
        self.rounds = rounds
        self.round = 1
        self.pos = [0] * self.n
        self.table = [[0, 0, 0] for _ in range(self.n)]  # VP by seat and category
        self.over = False
        self.turn = 0  # index into this round's order: 2 step turns, then one "done", per seat
        self.start = random.Random(seed).randrange(self.n)  # the start player is drawn

    def _seat_and_step(self) -> tuple[int, int]:
        k, i = divmod(self.turn, self.n)
        return (self.start + i + self.round) % self.n, k

    def current_player(self) -> int:
        return -1 if self.is_over() else self._seat_and_step()[0]

    def legal_actions(self) -> list[Any]:
        if self.is_over():
            return []
        return [("done",)] if self._seat_and_step()[1] == 2 else [("step", k) for k in (1, 2, 3)]

    def apply(self, action: Any) -> None:
        seat, _ = self._seat_and_step()
        if action[0] == "step":
            k = action[1]
            self.pos[seat] += k
            self.table[seat][0] += k
            if self.pos[seat] % 5 == 0:
                self.table[seat][1] += 2
            if FACTIONS[self.factions[seat]][1] == k:
                self.table[seat][2] += 1
            for other in range(self.n):
                if other != seat and self.pos[other] == self.pos[seat]:
                    self.pos[other] -= 1
        self.turn += 1
        if self.turn == 3 * self.n:
            self.turn = 0
            self.over = self.round == self.rounds
            self.round += not self.over

    def is_over(self) -> bool:
        return self.over

    def vp(self) -> list[int]:
        return [sum(v) for v in self.table]

    def breakdown(self) -> list[dict[str, int]]:
        return [dict(zip(CATEGORIES, v, strict=True)) for v in self.table]

    def clone(self) -> TallyState:
        s = TallyState.__new__(TallyState)
        s.__dict__.update(self.__dict__)
        s.pos = self.pos[:]
        s.table = [v[:] for v in self.table]
        return s

    def action_text(self, action: Any) -> str:
        return "done" if action[0] == "done" else f"step {action[1]}"

    def parse_action(self, text: str) -> Any:
        parts = text.split()
        if parts == ["done"]:
            return ("done",)
        if len(parts) == 2 and parts[0] == "step" and parts[1] in ("1", "2", "3"):
            return ("step", int(parts[1]))
        raise IllegalAction(f"not a tally action: {text!r}")

    def setup_info(self) -> dict[str, Any]:
        return {"start_player": self.start}

    def render(self) -> str:
        return "\n".join(f"{f}: at {p}" for f, p in zip(self.factions, self.pos, strict=True))


class Tally:
    slug = SLUG
    title = "Tally (a test game)"
    version = "tally-1"
    data_set = "tally-data"
    data_hash = "0000"
    categories = CATEGORIES
    player_counts = (2, 3, 4, 5)
    quiet_actions = ("done",)
    approximate = ("knack values: made up for the test",)

    def __init__(self, overrides: dict[str, Any] | None = None):
        if overrides:
            raise UserError("tally has no data to override")

    def faction_slugs(self) -> list[str]:
        return list(FACTIONS)

    def faction_table(self) -> list[dict[str, str]]:
        return [{"faction": f, "colour": c, "knack": f"step {k}"}
                for f, (c, k) in FACTIONS.items()]

    def exclusive_groups(self) -> list[set[str]]:
        groups: dict[str, set[str]] = {}
        for f, (colour, _) in FACTIONS.items():
            groups.setdefault(colour, set()).add(f)
        return list(groups.values())

    def random_factions(self, n_players: int, rng: random.Random) -> list[str]:
        return [rng.choice(sorted(g)) for g in rng.sample(self.exclusive_groups(), n_players)]

    def check_factions(self, factions: list[str]) -> None:
        for f in factions:
            if f not in FACTIONS:
                raise UserError(f"unknown faction {f!r} for tally (valid: {', '.join(FACTIONS)})")
        if len(factions) not in self.player_counts:
            raise UserError(f"tally plays with 2-5 players, not {len(factions)}")
        colours = [FACTIONS[f][0] for f in factions]
        if len(set(colours)) != len(colours):
            raise UserError("two factions of one colour cannot both play")

    def option_names(self) -> dict[str, tuple[str, ...]]:
        return OPTIONS

    def variant_name(self, options: dict[str, Any]) -> str:
        return options.get("length", "long")

    def new_state(self, factions: list[str], seed: int, **options: Any) -> TallyState:
        self.check_factions(factions)
        for key, value in options.items():
            if key not in OPTIONS or value not in OPTIONS[key]:
                raise UserError(f"tally option {key}={value!r} is not one of {OPTIONS}")
        return TallyState(factions, seed, 1 if options.get("length") == "short" else 3)


class TallyGreedy(Strategy):
    """Tally's own `greedy`: the step worth most VP now (a name Terra Nova's bots use too)."""

    name = "greedy"
    description = "The step worth the most VP at once."

    def choose(self, state: TallyState, legal: list) -> Any:
        def gain(a: Any) -> int:
            c = state.clone()
            seat = c.current_player()
            c.apply(a)
            return c.vp()[seat]

        return max(legal, key=lambda a: (gain(a), self.rng.random()))


class TallyWeighted(WeightedStrategy):
    """A bot whose play is a set of weights, as a game's greedy: `terra-sim tune` tunes it
    (tests/test_tune.py). Not in STRATEGIES: named as plugin_game:TallyWeighted."""

    name = "weighted"
    description = "The step whose VP, weighted by category, is the most."
    games = ("tally",)
    default_weights = {"steps": 1.0, "bonus": 1.0, "knack": 1.0}

    def choose(self, state: TallyState, legal: list) -> Any:
        seat = state.current_player()

        def value(a: Any) -> float:
            c = state.clone()
            c.apply(a)
            gained = [x - y for x, y in zip(c.table[seat], state.table[seat], strict=True)]
            return sum(self.w[k] * v for k, v in zip(CATEGORIES, gained, strict=True))

        return max(legal, key=lambda a: (value(a), self.rng.random()))


class TallyFragile(TallyWeighted):
    """A weighted bot with a bug that some weights reach: it raises on a negative knack."""

    name = "fragile"

    def choose(self, state: TallyState, legal: list) -> Any:
        if self.w["knack"] < 0:
            raise ValueError("a negative knack")
        return super().choose(state, legal)


STRATEGIES = [TallyGreedy]
