"""Terra Mystica as a registered game: static configuration and the factory for states."""

import random
from typing import Any

from terra_sim.core.errors import UserError
from terra_sim.core.factions import check_factions, draw_factions, group_factions
from terra_sim.games.terra_mystica.actions import ActionCodec
from terra_sim.games.terra_mystica.data import load_data
from terra_sim.games.terra_mystica.state import CATEGORIES, TerraMysticaState

# Bump whenever a rules change alters games; every logged game records it.
ENGINE_VERSION = "tm-1.1"

# The online server's options (its defaults first where it has them).
OPTIONS: dict[str, tuple[str, ...]] = {
    "errata_cultists": ("yes", "no"),
    "turn_order": ("fixed", "variable"),
    "mini-expansion": ("no", "yes"),
    "shipping-bonus": ("no", "yes"),
    "temple-scoring-tile": ("no", "yes"),
}
# A setup fixed by an imported log rather than drawn from the seed.
FIXED_SETUP = ("bonus_tiles", "scoring_tiles", "log_fixes")


# Actions that put a building on (or upgrade one on) the hex named after the kind: the report's
# board heat map counts them.
BUILD_KINDS = frozenset({"place", "build", "upgrade"})


class TerraMystica:
    slug = "terra-mystica"
    title = "Terra Mystica"
    version = ENGINE_VERSION
    categories = CATEGORIES
    player_counts = (2, 3, 4, 5)
    quiet_actions = ("done", "burn", "convert", "decline")
    # VP is spent in play (a power offer costs VP, and takes no more than the VP one has; VP
    # pay for resources): starting VP can change what happens.
    vp_affects_play = True

    def __init__(self, overrides: dict[str, Any] | None = None):
        self.data = load_data(overrides)
        self.data_set = self.data.name
        self.data_hash = self.data.hash
        self.approximate = self.data.approximate
        self.codec = ActionCodec(self.data.map, self.data.cults)

    def faction_slugs(self) -> list[str]:
        return list(self.data.factions)

    def board_cells(self) -> dict[str, tuple[float, float]]:
        return self.data.map.positions()

    def build_site(self, action_text: str) -> str | None:
        return self.data.map.site_of(action_text, BUILD_KINDS)

    def faction_table(self) -> list[dict[str, str]]:
        def effects(e: dict[str, int]) -> str:
            return ", ".join(f"{k}={v}" for k, v in e.items()) or "-"

        return [{"faction": f.slug, "home": self.data.wheel[f.home],
                 "start": f"{f.coins}C {f.workers}W {f.priests}P "
                          f"{'/'.join(map(str, f.power))}PW",
                 "ability": effects(f.ability), "stronghold": effects(f.stronghold)}
                for f in self.data.factions.values()]

    def exclusive_groups(self) -> list[set[str]]:
        """Factions that never share a game: those with the same home terrain."""
        return group_factions(self.data.factions, self._home)

    def random_factions(self, n_players: int, rng: random.Random) -> list[str]:
        return draw_factions(self.exclusive_groups(), n_players, rng)

    def check_factions(self, chosen: list[str]) -> None:
        check_factions(self.slug, chosen, self.data.factions, self.player_counts, self._home,
                       lambda same, h: f"{' and '.join(same)} share the {h} home terrain and "
                                       f"cannot both play")

    def start_vp(self, faction: str) -> int:
        return self.data.factions[faction].start_vp

    def start_vp_override(self, faction: str, vp: int) -> dict[str, Any]:
        return {"factions": {"factions": {faction: {"start_vp": vp}}}}

    def _home(self, faction: str) -> str:
        return self.data.wheel[self.data.factions[faction].home]

    def option_names(self) -> dict[str, tuple[str, ...]]:
        return OPTIONS

    def variant_name(self, options: dict[str, Any]) -> str:
        on = [k for k, v in options.items() if k in OPTIONS and v != OPTIONS[k][0]]
        return "+".join(["standard", *sorted(on)]) if on else "standard"

    def new_state(self, factions: list[str], seed: int, **options: Any) -> TerraMysticaState:
        self.check_factions(factions)
        for key, value in options.items():
            if key in FIXED_SETUP:
                continue
            if key not in OPTIONS:
                raise UserError(f"unknown terra-mystica option {key!r} "
                                f"(valid: {', '.join(OPTIONS)})")
            if value not in OPTIONS[key]:
                raise UserError(f"option {key}: {value!r} is not one of {', '.join(OPTIONS[key])}")
        return TerraMysticaState.start(self.data, self.codec, factions, seed, options)

    # ----- real games in the online server's notation (terra-sim import / export) --------------
    log_format = "the online Terra Mystica server's notation (snellman.net)"

    def read_log(self, text: str) -> dict[str, Any]:
        """A logged game as factions, the options that fix its setup, and our action texts;
        a log that does not replay raises UserError naming its line."""
        from terra_sim.games.terra_mystica.notation import replay_log

        r = replay_log(text, self)
        return {"factions": [p.faction.slug for p in r.state.players], "options": r.options,
                "actions": r.actions}

    def write_log(self, factions: list[str], seed: int, options: dict[str, Any],
                  actions: list[str]) -> str:
        from terra_sim.games.terra_mystica.notation import write_log

        return write_log(self, factions, options, actions, seed)
