"""Terra Nova as a registered game: static configuration and the factory for states."""

import random
from typing import Any

from terra_sim.core.errors import UserError
from terra_sim.core.factions import check_factions, draw_factions, group_factions
from terra_sim.games.terra_nova.actions import ActionCodec
from terra_sim.games.terra_nova.data import load_data
from terra_sim.games.terra_nova.state import CATEGORIES, TerraNovaState

# Bump whenever a rules change alters games; every logged game records it.
ENGINE_VERSION = "tn-1.1"

# Actions that put a building on (or upgrade one on) the hex named after the kind: the report's
# board heat map counts them.
BUILD_KINDS = frozenset({"place", "build", "upgrade", "palace", "edge-house", "lake-house",
                         "free-tp", "inventor-tp"})

OPTIONS: dict[str, tuple[str, ...]] = {
    "variant": ("standard", "planner", "lucky-digger"),
    "turn_order": ("clockwise", "dropout"),
}


class TerraNova:
    slug = "terra-nova"
    title = "Terra Nova"
    version = ENGINE_VERSION
    categories = CATEGORIES
    player_counts = (2, 3, 4)
    quiet_actions = ("exchange", "done")  # bookkeeping that `terra-sim play` shows only with --step
    # No rule spends VP or reads a VP total before the end: starting VP only shifts the score.
    vp_affects_play = False

    def __init__(self, overrides: dict[str, Any] | None = None):
        self.data = load_data(overrides)
        self.data_set = self.data.name
        self.data_hash = self.data.hash
        self.approximate = self.data.approximate
        self.codec = ActionCodec(self.data.map, self.data.power_actions, self.data.bonus_tiles)

    def faction_slugs(self) -> list[str]:
        return list(self.data.factions)

    def board_cells(self) -> dict[str, tuple[float, float]]:
        return self.data.map.positions()

    def build_site(self, action_text: str) -> str | None:
        return self.data.map.site_of(action_text, BUILD_KINDS, ("-build", "-build-dig"))

    def faction_table(self) -> list[dict[str, str]]:
        return [{"faction": f.slug, "home": self.data.ring[f.home], "colour": f.color,
                 "side": f.side} for f in self.data.factions.values()]

    def exclusive_groups(self) -> list[set[str]]:
        """Factions that never share a game: the two sides of one mat (same colour)."""
        return group_factions(self.data.factions, self._colour)

    def random_factions(self, n_players: int, rng: random.Random) -> list[str]:
        return draw_factions(self.exclusive_groups(), n_players, rng)

    def check_factions(self, chosen: list[str]) -> None:
        check_factions(self.slug, chosen, self.data.factions, self.player_counts, self._colour,
                       lambda same, c: f"{' and '.join(same)} share the {c} mat and cannot "
                                       f"both play")

    def start_vp(self, faction: str) -> int:
        return self.data.factions[faction].start_vp

    def start_vp_override(self, faction: str, vp: int) -> dict[str, Any]:
        return {"factions": {"factions": {faction: {"start_vp": vp}}}}

    def _colour(self, faction: str) -> str:
        return self.data.factions[faction].color

    def option_names(self) -> dict[str, tuple[str, ...]]:
        return OPTIONS

    def variant_name(self, options: dict[str, Any]) -> str:
        name = options.get("variant", "standard")
        if options.get("turn_order", "clockwise") == "dropout":
            name += "+dropout-order"
        return name

    def new_state(self, factions: list[str], seed: int, **options: Any) -> TerraNovaState:
        self.check_factions(factions)
        for key, value in options.items():
            if key not in OPTIONS:
                raise UserError(f"unknown terra-nova option {key!r} (valid: {', '.join(OPTIONS)})")
            if value not in OPTIONS[key]:
                raise UserError(f"option {key}: {value!r} is not one of {', '.join(OPTIONS[key])}")
        if options.get("variant", "standard") != "standard" and len(factions) != 2:
            raise UserError(f"the {options['variant']} variant is for 2 players")
        return TerraNovaState.start(self.data, self.codec, factions, seed, **options)
