"""Terra Nova data set: the TOML files under data/, validated into frozen structures."""

# terra-sim: compile

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from terra_sim.core.approximate import Approximate
from terra_sim.core.data import Field, apply_overrides, content_hash, load_toml
from terra_sim.core.errors import DataError
from terra_sim.core.hexmap import RIVER, HexMap

DATA_DIR = Path(__file__).parent / "data"
FILES = ("map", "factions", "rules")
COLORS = ("black", "blue", "green", "red", "yellow")
# The 2-player variants that put neutral houses on the marked spaces (state.py): only their
# games use those spaces, so only their runs are warned that the spaces are a stand-in.
NEUTRAL_HOUSE_VARIANTS = ("planner", "lucky-digger")

# Every effect a faction ability or palace may carry, with the shape of its value. The engine
# asks for effects by these names; a data file naming anything else is an error.
EFFECTS: dict[str, str] = {
    "town_vp": "int",  # extra VP per town founded
    "river_towns": "flag",  # towns may span one river hex
    "dropout_tp_vp": "list5",  # VP on drop-out, indexed by trading posts on the board
    "power_action_discount": "int",  # board power actions cost this much less
    "shovel_power": "int",  # power per shovel used
    "others_house_power": "list5",  # power when another faction builds a house, by player count
    "others_upgrade_money": "list5",  # money when another faction upgrades, by player count
    "income_power": "int",
    "income_coins": "int",
    "power_to_vp": "list2",  # [power spent, VP gained], at every power-exchange time
    "extra_start_houses": "int",
    "lake_house_special": "flag",  # once per round: free house on any free lake
    "on_build_sail": "int",  # sailing steps when this palace is built
    "max_shovels": "int",  # a transform never needs more shovels than this
    "on_build_edge_house": "flag",  # when built: free transform + house on any free edge hex
    "on_build_power": "int",
    "tp_action_power": "int",  # repeatable: pay power, transform in reach, place a trading post
    "spade_action_power": "int",  # once per round: pay power, make habitable with 1 free shovel
    "dropout_settlement_power": "int",
    "continent_dig_special": "flag",  # once per round: free transform next door, same continent
    "tp_cost_adjacent": "int",
    "tp_cost_alone": "int",
    "town_value": "int",  # town threshold instead of the rules' min_value
    "free_tp_special": "flag",  # once per round: upgrade a house to a trading post for free
    "dropout_edge_settlement_vp": "int",
    "house_vp": "int",  # VP per house built
    "tp_upgrade_vp": "int",  # VP per house upgraded to a trading post
    "dropout_inland_vp": "int",  # VP per building not next to the river, on drop-out
}
ROUND_EVENTS = ("house", "tp", "palace", "town", "sail", "shovel")
BONUS_KEYS = (
    "coins", "power", "spade_special", "sail_bonus",
    "dropout_house_vp", "dropout_tp_vp", "dropout_palace_vp", "dropout_sail_vp",
)
POWER_EFFECTS = ("bridge", "sail", "coins", "spade1", "spade2")


@dataclass(frozen=True)
class Faction:
    slug: str
    name: str
    color: str
    home: int  # terrain index in the ring
    side: str
    start_money: int
    start_vp: int
    house_coins: tuple[int, ...]
    house_power: tuple[int, ...]
    tp_coins: tuple[int, ...]
    tp_power: tuple[int, ...]
    ability: dict[str, Any]
    left_palace: dict[str, Any]
    right_palace: dict[str, Any]
    provenance: dict[str, str]


@dataclass(frozen=True)
class PowerAction:
    id: str
    cost: int
    effect: str
    amount: int


@dataclass(frozen=True)
class TerraNovaData:
    name: str
    hash: str
    map: HexMap
    ring: tuple[str, ...]
    terrain_of: tuple[int, ...]  # hex -> ring index, -1 for river
    factions: dict[str, Faction]
    costs: dict[str, int]
    rounds: int
    houses: int
    trading_posts: int
    bridges: int
    base_coins: int
    start_power: tuple[int, int, int]
    building_value: dict[str, int]
    sailing_vp: tuple[int, ...]
    town_min_buildings: int
    town_min_value: int
    territory_points: tuple[int, ...]
    coins_per_vp: int
    power_actions: tuple[PowerAction, ...]
    bonus_tiles: dict[str, dict[str, int]]
    round_tiles: dict[str, tuple[str, int]]
    town_tiles: dict[int, dict[str, int]]
    neutral_spaces: dict[int, tuple[int, ...]]  # terrain index -> marked hexes
    approximate: tuple[Approximate, ...] = ()
    overrides: dict[str, Any] = field(default_factory=dict)
    ring_table: tuple[tuple[int, ...], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # Transform costs are asked for on every legal-move scan: tabulate the ring once.
        k = len(self.ring)
        table = tuple(tuple(min(abs(a - b), k - abs(a - b)) for b in range(k)) for a in range(k))
        object.__setattr__(self, "ring_table", table)

    def ring_distance(self, a: int, b: int) -> int:
        return self.ring_table[a][b]


def _effects(table: Any, where: str) -> dict[str, Any]:
    f = Field(table, where)
    out: dict[str, Any] = {}
    for key in table:
        kind = EFFECTS.get(key)
        if kind is None:
            raise DataError(f"{where}.{key}: unknown effect (known: {', '.join(sorted(EFFECTS))})")
        if kind == "list5":
            out[key] = f.ints(key, 5)
        elif kind == "list2":
            out[key] = f.ints(key, 2, lo=1)
        else:
            out[key] = f.int(key, hi=1 if kind == "flag" else 100)
    return out


def _inherit_for_override(raw: dict[str, Any], override: Any) -> None:
    """Copy default_mat fields an override names into that faction's table (in place), so an
    override may change a field the faction inherits, e.g. factions.golems.start_money."""
    default = raw.get("default_mat", {})
    wanted = override.get("factions") if isinstance(override, dict) else None
    for slug, fields in (wanted if isinstance(wanted, dict) else {}).items():
        table = raw.get("factions", {}).get(slug)
        if isinstance(table, dict) and isinstance(fields, dict):
            for key in fields:
                if key in default and key != "provenance" and key not in table:
                    table[key] = default[key]


def load_data(overrides: dict[str, Any] | None = None) -> TerraNovaData:
    """Load and validate the data set; `overrides` maps file stem -> nested fields to replace."""
    overrides = overrides or {}
    unknown = set(overrides) - set(FILES)
    if unknown:
        raise DataError(f"override: unknown data file {sorted(unknown)} "
                        f"(valid: {', '.join(FILES)})")
    raw = {}
    for stem in FILES:
        raw[stem] = load_toml(DATA_DIR / f"{stem}.toml")
        if stem in overrides:
            if stem == "factions":
                _inherit_for_override(raw[stem], overrides[stem])
            raw[stem] = apply_overrides(raw[stem], overrides[stem], stem)
    approximate: list[Approximate] = []

    # map
    m = Field(raw["map"], "map.toml")
    grid = m.table_of("grid")
    codes = grid.table.get("codes")
    if not isinstance(codes, dict):
        raise DataError("map.toml: grid.codes: expected a table")
    rows = []
    for i, line in enumerate(grid.table.get("rows", [])):
        try:
            rows.append([codes[c] for c in line.split()])
        except KeyError as e:
            raise DataError(f"map.toml: grid.rows[{i}]: unknown terrain code {e}") from None
    if not rows:
        raise DataError("map.toml: grid.rows: missing")
    letters = "ABCDEFGHIJKLMNOP"
    shifted = [letters[r] in grid.table.get("shifted_rows", []) for r in range(len(rows))]
    sites = raw["map"].get("bridges", {}).get("sites", [])
    try:
        hexmap = HexMap(rows, shifted, [tuple(s.split("-")) for s in sites])
    except ValueError as e:
        raise DataError(f"map.toml: {e}") from None

    fac = Field(raw["factions"], "factions.toml")
    ring = tuple(fac.table_of("meta").table.get("terrain_ring", ()))
    if len(ring) < 2 or len(set(ring)) != len(ring):
        raise DataError("factions.toml: meta.terrain_ring: expected distinct terrain names")
    for name in set(hexmap.terrain) - {RIVER}:
        if name not in ring:
            raise DataError(f"map.toml: terrain {name!r} is not in factions.toml "
                            "meta.terrain_ring")
    terrain_of = tuple(ring.index(n) if n != RIVER else -1 for n in hexmap.terrain)

    neutral: dict[int, tuple[int, ...]] = {}
    ns = raw["map"].get("neutral_spaces", {})
    if ns.get("approximate"):
        approximate.append(Approximate(
            f"map: neutral house spaces (2-player variants): {ns.get('provenance')}",
            players=(2,), options={"variant": NEUTRAL_HOUSE_VARIANTS}))
    for name in ring:
        try:
            hexes = tuple(hexmap.hex(n) for n in ns.get(name, []))
        except ValueError as e:
            raise DataError(f"map.toml: neutral_spaces.{name}: {e}") from None
        if any(terrain_of[h] != ring.index(name) for h in hexes):
            raise DataError(f"map.toml: neutral_spaces.{name}: every hex must be {name}")
        neutral[ring.index(name)] = hexes

    default = fac.table_of("default_mat")
    factions = {}
    for slug, t in raw["factions"].get("factions", {}).items():
        where = f"factions.toml: factions.{slug}"
        f = Field(t, where)
        home = f.str("home", choices=ring)
        get = lambda k, n, f=f: f.ints(k, n, default.table.get(k))  # noqa: E731
        factions[slug] = Faction(
            slug=slug,
            name=f.str("name"),
            color=f.str("color", choices=COLORS),
            home=ring.index(home),
            side=f.str("side", choices=("A", "B")),
            start_money=f.int("start_money", default.table.get("start_money")),
            # A handicap may take VP away: the rules never spend VP or read a total in play.
            start_vp=f.int("start_vp", default.table.get("start_vp", 0), lo=-1000, hi=1000),
            house_coins=get("house_coins", 8),
            house_power=get("house_power", 8),
            tp_coins=get("tp_coins", 4),
            tp_power=get("tp_power", 4),
            ability=_effects(t.get("ability", {}), f"{where}.ability"),
            left_palace=_effects(t.get("left_palace", {}), f"{where}.left_palace"),
            right_palace=_effects(t.get("right_palace", {}), f"{where}.right_palace"),
            provenance=dict(t.get("provenance", {})),
        )
    if not factions:
        raise DataError("factions.toml: no factions")

    r = Field(raw["rules"], "rules.toml")
    costs_t = r.table_of("costs")
    costs = {k: costs_t.int(k) for k in ("house", "shovel", "tp_alone", "tp_adjacent", "palace",
                                         "sail", "bridge")}
    mat = r.table_of("mat")
    bv = mat.table_of("building_value")
    sailing_vp = tuple(mat.table.get("sailing_vp", ()))
    if len(sailing_vp) < 2 or sailing_vp[0] != 0:
        raise DataError("rules.toml: mat.sailing_vp: expected [0, vp1, vp2, ...]")
    if len(sailing_vp) > hexmap.max_sail:
        raise DataError(f"rules.toml: mat.sailing_vp: at most {hexmap.max_sail - 1} levels")

    power_actions = []
    for i, t in enumerate(raw["rules"].get("power_actions", [])):
        f = Field(t, f"rules.toml: power_actions[{i}]")
        power_actions.append(PowerAction(f.str("id"), f.int("cost", hi=8),
                                         f.str("effect", choices=POWER_EFFECTS),
                                         f.int("amount", 0)))
    bonus = {}
    for i, t in enumerate(raw["rules"].get("bonus_tiles", [])):
        f = Field(t, f"rules.toml: bonus_tiles[{i}]")
        tile_id = f.str("id")
        for k in t:
            if k != "id" and k not in BONUS_KEYS:
                raise DataError(f"rules.toml: bonus_tiles[{i}].{k}: unknown (known: {BONUS_KEYS})")
        bonus[tile_id] = {k: f.int(k, 0) for k in BONUS_KEYS}
    round_tiles = {}
    for i, t in enumerate(raw["rules"].get("round_tiles", [])):
        f = Field(t, f"rules.toml: round_tiles[{i}]")
        round_tiles[f.str("id")] = (f.str("event", choices=ROUND_EVENTS), f.int("vp"))
    town_tiles = {}
    for i, t in enumerate(raw["rules"].get("town_tiles", [])):
        f = Field(t, f"rules.toml: town_tiles[{i}]")
        town_tiles[f.int("id")] = {k: f.int(k, 0) for k in ("vp", "coins", "power", "sail")}
    rounds = r.table_of("meta").int("rounds", lo=1, hi=20)
    if len(round_tiles) < rounds:
        raise DataError(f"rules.toml: round_tiles: need at least {rounds}, got {len(round_tiles)}")
    if len(bonus) < 3 + 2:
        raise DataError("rules.toml: bonus_tiles: need at least 5")
    territory = r.table_of("territory").ints("points", 4)
    towns = r.table_of("towns")

    for slug, fa in factions.items():
        if fa.provenance.get("approximate"):
            approximate.append(Approximate(f"faction {slug}: {fa.provenance['approximate']}"))
    return TerraNovaData(
        name="terra-nova-base" + ("+overrides" if overrides else ""),
        hash=content_hash(raw),
        map=hexmap,
        ring=ring,
        terrain_of=terrain_of,
        factions=factions,
        costs=costs,
        rounds=rounds,
        houses=mat.int("houses", lo=1, hi=8),
        trading_posts=mat.int("trading_posts", lo=1, hi=4),
        bridges=mat.int("bridges", hi=25),
        base_coins=mat.int("base_coins"),
        start_power=mat.ints("start_power", 3),
        building_value={k: bv.int(k) for k in ("house", "tp", "palace")},
        sailing_vp=sailing_vp,
        town_min_buildings=towns.int("min_buildings", lo=1),
        town_min_value=towns.int("min_value", lo=1),
        territory_points=territory,
        coins_per_vp=r.table_of("final").int("coins_per_vp", lo=1),
        power_actions=tuple(power_actions),
        bonus_tiles=bonus,
        round_tiles=round_tiles,
        town_tiles=town_tiles,
        neutral_spaces=neutral,
        approximate=tuple(approximate),
        overrides=overrides,
    )
