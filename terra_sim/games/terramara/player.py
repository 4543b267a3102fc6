"""A Terramara player: resources, tracks, clan, Workers, Artifacts and VP by category."""

# terra-sim: compile

from typing import Any, Final

from terra_sim.games.terramara.data import PERMANENT, RAW, REFINED

CATEGORIES: Final[tuple[str, ...]] = (
    "start", "play", "road", "artifacts", "military", "river", "outposts", "resources",
    "reserved")
CAT: Final = {c: i for i, c in enumerate(CATEGORIES)}
PERM: Final = {k: i for i, k in enumerate(PERMANENT)}
FREE: Final = -1  # where the Chieftain is, besides an action space's index
IN_HUT: Final = -2


class Player:
    __slots__ = ("seat", "character", "card", "side", "experienced", "raw", "ref", "military",
                 "river", "caravans", "flags", "workers", "used_workers", "explorers", "avail",
                 "chief_at", "hut", "artifacts", "reserved", "art_used", "perm", "bonus_tiles",
                 "cross_tile", "outpost_tile", "vp", "placed", "power_used")

    def __init__(self, seat: int, character: str, card: str, side: dict[str, int],
                 experienced: bool, raw: list[int], ref: list[int], military: int, river: int,
                 caravans: list[int], flags: list[str], workers: list[int], used_workers: int,
                 explorers: int, avail: int, chief_at: int, hut: int, artifacts: list[int],
                 reserved: int, art_used: int, perm: list[int], bonus_tiles: list[str],
                 cross_tile: str, outpost_tile: str, vp: list[int], placed: int,
                 power_used: bool):
        self.seat = seat
        self.character = character
        self.card = card  # the starting resources card
        self.side = side  # the Character side in force (young or experienced)
        self.experienced = experienced
        self.raw = raw  # as RAW
        self.ref = ref  # as REFINED
        self.military = military
        self.river = river
        self.caravans = caravans  # Road positions (road.py)
        self.flags = flags  # Outposts flagged on the Road
        self.workers = workers  # levels
        self.used_workers = used_workers  # bitmask over workers, this round
        self.explorers = explorers  # owned
        self.avail = avail  # in hand, still to send this round
        self.chief_at = chief_at  # FREE, IN_HUT or a space index
        self.hut = hut  # Explorers in the Hut this round
        self.artifacts = artifacts  # created, as indexes into data.artifact_ids
        self.reserved = reserved  # the reserved Artifact's index, or -1
        self.art_used = art_used  # bitmask over artifact indexes: once-a-round effects used
        self.perm = perm  # permanent Artifact effects, as PERMANENT
        self.bonus_tiles = bonus_tiles  # the bonus-tile Character's own supply
        self.cross_tile = cross_tile  # the Crossroads Character's tiles (ids), or ""
        self.outpost_tile = outpost_tile
        self.vp = vp  # by CATEGORIES
        self.placed = placed  # clan members sent this round (the Character flips before any)
        self.power_used = power_used

    @staticmethod
    def start(seat: int, character: str, card: str, side: dict[str, int],
              explorers: int, start_vp: int) -> "Player":
        return Player(seat, character, card, side, False, [0] * 4, [0] * 4, 0, 0, [0, 0], [], [],
                      0, explorers, explorers, FREE, 0, [], -1, 0, [0] * len(PERMANENT), [],
                      "", "", [start_vp] + [0] * (len(CATEGORIES) - 1), 0, False)

    def copy(self) -> "Player":
        return Player(self.seat, self.character, self.card, self.side, self.experienced,
                      self.raw[:], self.ref[:], self.military, self.river, self.caravans[:],
                      self.flags[:], self.workers[:], self.used_workers, self.explorers,
                      self.avail, self.chief_at, self.hut, self.artifacts[:], self.reserved,
                      self.art_used, self.perm[:], self.bonus_tiles[:], self.cross_tile,
                      self.outpost_tile, self.vp[:], self.placed, self.power_used)

    def eff(self, key: str) -> int:
        """The Character's effect in force (0 when the side in force lacks it)."""
        return self.side.get(key, 0)

    @property
    def total_vp(self) -> int:
        return sum(self.vp)

    @property
    def resources(self) -> int:
        return sum(self.raw) + sum(self.ref)

    @property
    def members(self) -> int:
        """Clan members still to send this round."""
        return self.avail + (self.chief_at == FREE)

    def add_vp(self, cat: str, n: int) -> None:
        self.vp[CAT[cat]] += n

    def info(self) -> dict[str, Any]:
        return {"character": self.character, "card": self.card,
                "side": "experienced" if self.experienced else "young", "vp": self.total_vp,
                "raw": dict(zip(RAW, self.raw, strict=True)),
                "refined": dict(zip(REFINED, self.ref, strict=True)),
                "military": self.military, "river": self.river, "caravans": self.caravans[:],
                "workers": self.workers[:], "explorers": self.explorers,
                "artifacts": len(self.artifacts), "flags": self.flags[:]}
