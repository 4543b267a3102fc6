"""The board one game is played on: which tiles lie in which row, where the bonus tiles and
Fire tiles went, and every action space as a row of static facts. Drawn once from the seed at
setup and shared by every clone (nothing here changes during a game).

Rows 1-2 hold level-1 tiles, 3-4 level-2, 5-6 level-3; each row a Plains/Quarry tile (left)
and a Forest/Mountain tile (right) with a large space and two small ones each. Rows 1-4 belong
to rounds 1-4 and are flipped at the end of their round (Plains/Quarry back: an Outpost on the
Road; Forest/Mountain back: a Crossroads action space); rows 5 and 6 both belong to round 5.
"""

# terra-sim: compile

import random
from dataclasses import dataclass
from typing import Final

from terra_sim.core.rng import stream
from terra_sim.games.terramara.data import TerramaraData

HOME: Final = 0
TERRITORY: Final = 1
CROSSROADS: Final = 2
PERSONAL: Final = 3
SPECIAL: Final = 4
HUT: Final = -3  # the Hut is no board space: every player's own, unlimited
ROWS: Final = 6
# Fire tiles cover a row's small space 1-4, numbered left to right: positions 2, 3, 5, 6.
SMALL_POSITIONS: Final[tuple[int, ...]] = (1, 2, 4, 5)


def round_of_row(row: int) -> int:
    return min(row, 5)


@dataclass(frozen=True)
class Space:
    name: str
    kind: int  # HOME, TERRITORY, CROSSROADS, PERSONAL, SPECIAL
    row: int  # territory row 1-6; a Crossroads space's row; 0 for the Homeland
    holds: int  # members it takes (two only of different colours)
    effects: dict[str, int]
    actions: tuple[str, ...]  # Homeland actions, in printed order
    require: str  # round-5 special spaces: what must be reached
    at: int
    bonus: str  # the bonus tile lying on it (level-3 Plains/Quarry large space), or ""
    fire: bool  # covered by a Fire tile (2-3 players): nobody may go there


@dataclass(frozen=True)
class Board:
    n_players: int
    neutrals: int  # neutral players (4 - players with 2-3 players, else 0)
    rows: tuple[tuple[str, str], ...]  # (plains tile, forest tile) for rows 1-6
    spare_plains: tuple[str, ...]  # level-1 tiles left in the box (the Crossroads Character)
    spare_forest: tuple[str, ...]
    road_bonus: tuple[str, ...]  # bonus tile on the detour of Road segment 1-6
    river_bonus: dict[int, tuple[str, ...]]  # River space -> bonus tiles there
    left_over: tuple[str, ...]  # bonus tiles not placed (the bonus-tile Character takes them)
    outposts: tuple[str, ...]  # the Outpost on the back of row 1-4's Plains/Quarry tile
    spaces: tuple[Space, ...]
    index: dict[str, int]
    fire_cards: tuple[int, ...]  # the neutral card revealed for row 1-6 (2-3 players)

    def setup_info(self) -> dict[str, object]:
        return {"rows": [list(r) for r in self.rows], "road_bonus": list(self.road_bonus),
                "river_bonus": {str(k): list(v) for k, v in self.river_bonus.items()},
                "fire": [s.name for s in self.spaces if s.fire]}


def _deal_bonus(data: TerramaraData, rng: random.Random) -> dict[int, list[str]]:
    by_level: dict[int, list[str]] = {1: [], 2: [], 3: []}
    for b in data.bonus.values():
        by_level[b.level].append(b.id)
    for pile in by_level.values():
        rng.shuffle(pile)
    return by_level


def make_board(data: TerramaraData, n: int, seed: int) -> Board:
    rng = stream(seed, "tiles")
    rows: list[tuple[str, str]] = []
    spare: dict[str, list[str]] = {}
    for level in (1, 2, 3):
        for column in ("plains", "forest"):
            pile = sorted(t.id for t in data.tiles.values()
                          if t.level == level and t.column == column)
            rng.shuffle(pile)
            spare[f"{column}{level}"] = pile
    for row in range(1, ROWS + 1):
        level = (row + 1) // 2
        rows.append((spare[f"plains{level}"].pop(), spare[f"forest{level}"].pop()))
    bonus = _deal_bonus(data, stream(seed, "bonus"))
    road = tuple(bonus[lv].pop() for lv in data.rules["road_bonus_levels"])
    river = {k: tuple(bonus[lv].pop() for lv in levels)
             for k, levels in sorted(data.rules["river_bonus"].items())}
    on_tiles = [bonus[3].pop() if bonus[3] else "" for _ in (5, 6)]
    left_over = tuple(b for lv in (1, 2, 3) for b in sorted(bonus[lv]))
    neutrals = 4 - n if n < 4 else 0
    fire_cards: list[int] = []
    if neutrals:
        frng = stream(seed, "fire")
        cards = [1, 2, 3, 4]
        frng.shuffle(cards)
        fire_cards += cards
        frng.shuffle(cards)  # reshuffled for rows 5 and 6
        fire_cards += cards[:2]
    spaces: list[Space] = []
    for hs in data.homeland[n]:
        spaces.append(Space(hs.name, HOME, 0, hs.holds, {}, hs.actions, "", 0, "", False))
    for row, (plains, forest) in enumerate(rows, 1):
        covered = SMALL_POSITIONS[fire_cards[row - 1] - 1] if fire_cards else -1
        for col, tid in enumerate((plains, forest)):
            tile = data.tiles[tid]
            for k, sd in enumerate(tile.spaces):
                pos = 3 * col + k
                special = tile.column == "forest" and tile.level == 3
                tile_bonus = on_tiles[row - 5] if tile.column == "plains" and \
                    tile.level == 3 and k == 0 else ""
                spaces.append(Space(f"R{row}-{pos + 1}", SPECIAL if special else TERRITORY, row,
                                    2, sd.effects, (), sd.require, sd.at, tile_bonus,
                                    pos == covered))
    for row in range(1, 5):
        spaces.append(Space(f"X{row}", CROSSROADS, row, 2, data.tiles[rows[row - 1][1]].crossroads,
                            (), "road", row, "", False))
    if any("personal_crossroads" in c.young for c in data.characters.values()):
        spaces.append(Space("XP", PERSONAL, 0, 1, {}, (), "", 0, "", False))
    return Board(
        n, neutrals, tuple(rows), tuple(sorted(spare["plains1"])),
        tuple(sorted(spare["forest1"])), road, river, left_over,
        tuple(data.tiles[rows[r][0]].outpost for r in range(4)), tuple(spaces),
        {s.name: i for i, s in enumerate(spaces)}, tuple(fire_cards))
