"""Terramara as a registered game: static configuration and the factory of states.

A "faction" is a Character plus a starting resources card (`hunter+card07`), or, with the
data setting `faction_mode = "character"` (a what-if override of rules.toml), the Character
alone with the card drawn from the seed. The rule text's draft of both is not played: the
runner's designs assign factions instead.
"""

import random
from typing import Any

from terra_sim.core.errors import UserError
from terra_sim.games.terramara.data import load_data
from terra_sim.games.terramara.state import CATEGORIES, TerramaraState

# Bump whenever a rules change alters games; every logged game records it.
ENGINE_VERSION = "tmr-1.0"
OPTIONS: dict[str, tuple[str, ...]] = {}


class Terramara:
    slug = "terramara"
    title = "Terramara"
    version = ENGINE_VERSION
    categories = CATEGORIES
    player_counts = (2, 3, 4)
    quiet_actions = ("end", "stop", "take", "give", "refine")
    # No rule spends VP or reads a VP total before the end: starting VP only shifts the score.
    vp_affects_play = False

    def __init__(self, overrides: dict[str, Any] | None = None):
        self.data = load_data(overrides)
        self.data_set = self.data.name
        self.data_hash = self.data.hash
        self.approximate = self.data.approximate
        self.mode = self.data.rules["faction_mode"]

    def _split(self, faction: str) -> tuple[str, str]:
        ch, _, card = faction.partition("+")
        return ch, card

    def faction_slugs(self) -> list[str]:
        chars = list(self.data.characters)
        if self.mode == "character":
            return chars
        return [f"{c}+{k}" for c in chars for k in self.data.starting]

    def faction_table(self) -> list[dict[str, str]]:
        def fx(e: dict[str, int]) -> str:
            return ", ".join(f"{k}={v}" for k, v in e.items()) or "-"

        rows = []
        for f in self.faction_slugs():
            ch, card = self._split(f)
            c = self.data.characters[ch]
            rows.append({"faction": f, "faction_mode": self.mode, "character": ch,
                         "young": fx(c.young), "experienced": fx(c.experienced),
                         "starting card": fx(self.data.starting[card]) if card
                         else "drawn from the seed"})
        return rows

    def exclusive_groups(self) -> list[set[str]]:
        """Factions of one Character never meet (one card of each Character). Two seats may
        share a starting card's bundle (RULES.md): the runner's groups must not overlap."""
        if self.mode == "character":
            return []
        groups: dict[str, set[str]] = {}
        for f in self.faction_slugs():
            groups.setdefault(self._split(f)[0], set()).add(f)
        return list(groups.values())

    def random_factions(self, n_players: int, rng: random.Random) -> list[str]:
        chars = rng.sample(sorted(self.data.characters), n_players)
        if self.mode == "character":
            return chars
        cards = rng.sample(sorted(self.data.starting), n_players)
        return [f"{c}+{k}" for c, k in zip(chars, cards, strict=True)]

    def check_factions(self, factions: list[str]) -> None:
        valid = set(self.faction_slugs())
        for f in factions:
            if f not in valid:
                form = "CHARACTER" if self.mode == "character" else "CHARACTER+CARD"
                raise UserError(f"unknown faction {f!r} for terramara (a {form}; characters: "
                                f"{', '.join(self.data.characters)}; cards: "
                                f"{', '.join(self.data.starting)})")
        if len(factions) not in self.player_counts:
            raise UserError(f"terramara plays with 2-4 players, not {len(factions)}")
        chars = [self._split(f)[0] for f in factions]
        for c in set(chars):
            if chars.count(c) > 1:
                raise UserError(f"two players cannot both be the {c} (one card per Character)")

    def start_vp(self, faction: str) -> int:
        return self.data.start_vp[faction]

    def start_vp_override(self, faction: str, vp: int) -> dict[str, Any]:
        return {"rules": {"start_vp": {faction: vp}}}

    def option_names(self) -> dict[str, tuple[str, ...]]:
        return OPTIONS

    def variant_name(self, options: dict[str, Any]) -> str:
        return f"faction={self.mode}"

    def new_state(self, factions: list[str], seed: int, **options: Any) -> TerramaraState:
        self.check_factions(factions)
        for key in options:
            raise UserError(f"terramara has no option {key!r} (faction_mode is a data "
                            f"setting: override rules.rules.faction_mode)")
        return TerramaraState.start(self.data, factions, seed)
