"""The small protocol every game implements (OpenSpiel-shaped: a Game factory, a mutable State).

A decision that belongs to someone other than the player whose turn it is (a town tile, a bonus
tile on dropping out, a setup placement) is just another decision: `current_player()` says who.
"""

from collections.abc import Hashable, Sequence
from typing import Any, Protocol

from terra_sim.core.approximate import Approximate


class State(Protocol):
    round: int

    def current_player(self) -> int:
        """Seat that decides now; -1 once the game is over."""

    def legal_actions(self) -> list[Hashable]:
        """The decider's legal actions, each a small immutable value."""

    def apply(self, action: Hashable) -> None:
        """Play a legal action (the caller checks legality)."""

    def is_over(self) -> bool: ...

    def vp(self) -> list[int]:
        """Current VP by seat (final VP once the game is over)."""

    def breakdown(self) -> list[dict[str, int]]:
        """VP by scoring category for each seat; each dict sums to that seat's VP."""

    def clone(self) -> "State": ...

    def action_text(self, action: Hashable) -> str:
        """The one canonical text form of `action`."""

    def parse_action(self, text: str) -> Hashable:
        """Inverse of action_text; raises IllegalAction on malformed text."""

    def setup_info(self) -> dict[str, Any]:
        """What was chosen or drawn at setup (JSON-able)."""

    def render(self) -> str:
        """The board and the players as text."""


class Strategy(Protocol):
    """A bot, as the play loop sees it (strategies.base.Strategy is the class bots extend)."""

    name: str

    def choose(self, state: State, legal: list[Hashable]) -> Hashable:
        """One of `legal` for the decision `state` waits on; must not change `state`."""


class Game(Protocol):
    slug: str
    title: str
    version: str  # engine version: bumped whenever rules behaviour changes
    data_set: str  # data set name
    data_hash: str
    categories: tuple[str, ...]  # scoring categories of breakdown()
    player_counts: tuple[int, ...]
    quiet_actions: tuple[str, ...]  # action-text prefixes of bookkeeping, hidden in summaries
    # Data marked approximate (invented or uncertain), for the report: an Approximate says
    # which games use it; a plain string is used by every game.
    approximate: Sequence[str | Approximate]

    def faction_slugs(self) -> list[str]: ...

    def faction_table(self) -> list[dict[str, str]]:
        """One row per faction for `terra-sim list factions`."""

    def exclusive_groups(self) -> list[set[str]]:
        """Sets of factions that never share a game (an empty list when any may meet)."""

    def random_factions(self, n_players: int, rng: Any) -> list[str]:
        """A legal draw of factions for n players."""

    def check_factions(self, factions: list[str]) -> None:
        """Raise UserError if this list of factions cannot play together."""

    def option_names(self) -> dict[str, tuple[str, ...]]:
        """Game options and their allowed values (first is the default)."""

    def variant_name(self, options: dict[str, Any]) -> str:
        """A short label of the options that change the rules, for the games table."""

    def new_state(self, factions: list[str], seed: int, **options: Any) -> State: ...

    # Starting VP, for handicaps (`terra-sim calibrate`). Optional: a game without them cannot
    # be calibrated, and says so.
    vp_affects_play: bool  # whether the rules let a VP total change play (VP spent, or read)

    def start_vp(self, faction: str) -> int:
        """The VP `faction` starts with (its data's `start_vp` field)."""

    def start_vp_override(self, faction: str, vp: int) -> dict[str, Any]:
        """The what-if overrides (data file -> fields) that make `faction` start with `vp`."""

    # Optional, for a game with a board of building spaces (the report's heat map):
    # board_cells() -> dict[str, tuple[float, float]]: each space's name and plot position;
    # build_site(action_text) -> str | None: the space an action builds on or upgrades.
