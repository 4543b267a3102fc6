"""A Terra Mystica player: resources, bowls, buildings as hex bitmasks, cult positions."""

# terra-sim: compile

from typing import Any, Final

from terra_sim.core import hexmap
from terra_sim.core.power import gain_power
from terra_sim.games.terra_mystica.data import BUILDINGS, Faction

CATEGORIES: Final[tuple[str, ...]] = (
    "start", "round", "build", "town", "advance", "leech", "pass", "faction", "network", "cults",
    "resources", "adjust")
CAT: Final = {c: i for i, c in enumerate(CATEGORIES)}


class Player:
    __slots__ = ("seat", "faction", "coins", "workers", "priests", "p1", "p2", "p3", "vp",
                 "cults", "keys", "b", "ship", "dig", "bridges", "favors", "town_tiles",
                 "town_mask", "bonus", "passed", "cult_priests", "used", "eff", "w2p",
                 "carpet_bonus")

    def __init__(self, seat: int, faction: Faction, coins: int, workers: int, priests: int,
                 p1: int, p2: int, p3: int, vp: list[int], cults: list[int], keys: int,
                 b: dict[str, int], ship: int, dig: int, bridges: int, favors: list[str],
                 town_tiles: list[str], town_mask: int, bonus: str, passed: bool,
                 cult_priests: int, used: set[str], eff: dict[str, int], w2p: int,
                 carpet_bonus: int):
        self.seat = seat
        self.faction = faction
        self.coins = coins
        self.workers = workers
        self.priests = priests
        self.p1, self.p2, self.p3 = p1, p2, p3
        self.vp = vp  # by category (CATEGORIES)
        self.cults = cults
        self.keys = keys  # town keys held (a track's space 10 takes one)
        self.b = b  # building -> hex mask
        self.ship = ship
        self.dig = dig
        self.bridges = bridges  # bridges built
        self.favors = favors
        self.town_tiles = town_tiles
        self.town_mask = town_mask  # hexes of buildings that belong to a town
        self.bonus = bonus
        self.passed = passed
        self.cult_priests = cult_priests  # priests left on cult spots for good
        self.used = used  # once-a-round actions used this round (ACTW, BON1, FAV6, ...)
        self.eff = eff  # faction ability, plus the stronghold's once it stands
        self.w2p = w2p  # Darklings: workers still convertible to priests this turn
        self.carpet_bonus = carpet_bonus  # carpet range from town tiles (mini-expansion)

    @staticmethod
    def start(seat: int, f: Faction) -> "Player":
        return Player(seat, f, f.coins, f.workers, f.priests, f.power[0], f.power[1],
                      f.power[2], [f.start_vp] + [0] * (len(CATEGORIES) - 1), list(f.cults), 0,
                      {b: 0 for b in BUILDINGS}, f.ship_start, 0, 0, [], [], 0, "", False, 0,
                      set(), dict(f.ability), 0, 0)

    def copy(self) -> "Player":
        return Player(self.seat, self.faction, self.coins, self.workers, self.priests, self.p1,
                      self.p2, self.p3, self.vp[:], self.cults[:], self.keys, dict(self.b),
                      self.ship, self.dig, self.bridges, self.favors[:], self.town_tiles[:],
                      self.town_mask, self.bonus, self.passed, self.cult_priests,
                      set(self.used), self.eff, self.w2p, self.carpet_bonus)

    @property
    def total_vp(self) -> int:
        return sum(self.vp)

    @property
    def buildings(self) -> int:
        b = self.b
        return b["D"] | b["TP"] | b["TE"] | b["SH"] | b["SA"]

    def count(self, kind: str) -> int:
        return hexmap.count(self.b[kind])

    def building_at(self, h: int) -> str:
        for kind, mask in self.b.items():
            if mask >> h & 1:
                return kind
        return ""

    def gain(self, amount: int) -> int:
        """Gain power; returns how much was gained (the rest is lost)."""
        before = 2 * self.p1 + self.p2
        self.p1, self.p2, self.p3 = gain_power(self.p1, self.p2, self.p3, amount)
        return before - (2 * self.p1 + self.p2)

    def room(self) -> int:
        return 2 * self.p1 + self.p2

    def add_vp(self, cat: str, n: int) -> None:
        self.vp[CAT[cat]] += n

    def info(self) -> dict[str, Any]:
        return {"faction": self.faction.slug, "vp": self.total_vp, "coins": self.coins,
                "workers": self.workers, "priests": self.priests,
                "power": [self.p1, self.p2, self.p3], "cults": self.cults[:]}
