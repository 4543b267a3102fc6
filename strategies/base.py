"""The strategy protocol: built with a seeded random stream and parameters, asked to choose."""

import random
from types import ModuleType
from typing import Any, ClassVar


class Strategy:
    """A bot. Subclasses set `name`, `description`, `params` (defaults) and implement `choose`.

    `kind` classifies it for defaults: a run with no strategy pool plays the game's "scripted"
    bots; "baseline" (random) and "search" (slow) bots are asked for by name.
    """

    name: str = "strategy"  # a config variant's instance reports the variant's name
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Any]] = {}
    kind: ClassVar[str] = "scripted"
    games: ClassVar[tuple[str, ...]] = ()  # for a bot loaded from a file: empty plays any game
    # Whether the VP a seat starts with can change this bot's choices (it reads a score, not
    # only what an action earns). `terra-sim calibrate` trusts one run to be exact only when
    # neither the game nor any bot says so; a bot that does not declare it is assumed to.
    vp_affects_play: ClassVar[bool] = True

    def __init__(self, rng: random.Random, **params: Any):
        unknown = set(params) - set(self.params)
        if unknown:
            raise ValueError(f"{self.name}: unknown parameters {sorted(unknown)} "
                             f"(valid: {', '.join(self.params) or 'none'})")
        self.rng = rng
        self.p = {**self.params, **params}
        self.game: str | None = None

    @classmethod
    def defaults(cls, kit: ModuleType | None) -> dict[str, Any]:
        """The parameters the bot plays the game of `kit` (its bot package) with when given
        none."""
        return dict(cls.params)

    def bind(self, game: str, kit: ModuleType | None) -> None:
        """Told once, before its first game, which game it plays and that game's bot package
        (strategies/<game>/, or None): a game-agnostic bot takes its game knowledge from it."""
        self.game = game

    def choose(self, state: Any, legal: list) -> Any:
        """One of `legal` for the decision `state` is waiting on (state.current_player())."""
        raise NotImplementedError
