"""Terra Mystica data set: the TOML files under data/, validated into frozen structures."""

# terra-sim: compile

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from terra_sim.core.data import Field, apply_overrides, content_hash, load_toml
from terra_sim.core.errors import DataError
from terra_sim.core.hexmap import RIVER, HexMap, bits
from terra_sim.games.terra_mystica.actions import Made

DATA_DIR = Path(__file__).parent / "data"
FILES = ("map", "factions", "tiles", "rules")
BUILDINGS = ("D", "TP", "TE", "SH", "SA")
RESOURCES = ("C", "W", "P", "PW", "VP")
MAX_SHIP = 6  # Mermaids' 5 plus the shipping bonus tile

# Every effect a faction ability or stronghold may carry (all integers; 1 for a flag). The engine
# asks for effects by these names; a data file naming anything else is an error.
EFFECTS: dict[str, str] = {
    "town_vp": "VP per town founded",
    "town_workers": "workers per town founded",
    "spade_vp": "VP per spade gained",
    "priest_spades": "spades cost a priest each instead of workers, and give this many VP",
    "tunnel_workers": "workers a tunnel costs (reach one hex further)",
    "tunnel_vp": "VP per tunnel",
    "carpet_priests": "priests a carpet flight costs",
    "carpet_vp": "VP per carpet flight",
    "carpet_range": "hexes a carpet flight may skip",
    "fixed_spades": "every transform (to any terrain) costs exactly this many spades",
    "cult_leech": "a cult step when an opponent takes power from a build (errata: else 1 power)",
    "alchemist_trade": "1 VP -> 1 coin and 2 coins -> 1 VP at any time of the own turn",
    "coins_per_vp": "coins per VP in final resource scoring",
    "favors_per_building": "favour tiles per temple and for the sanctuary",
    "bridge_workers": "action: pay this many workers for a bridge (repeatable)",
    "river_towns": "a town may span one river hex (declared with connect)",
    "ride": "action once a round: a free dwelling on any free home hex",
    "favor": "favour tiles when built",
    "cult_action": "action once a round: this many steps on one cult track",
    "spades": "spades when built (transform, and one dwelling)",
    "vp": "VP when built",
    "power": "power when built",
    "spade_power": "power per spade gained",
    "workers_to_priests": "when built, once: up to this many workers -> priests",
    "pass_bridge_vp": "VP on passing per bridge with own buildings at both ends",
    "ship": "shipping levels when built",
    "free_tp_action": "action once a round: a dwelling -> trading house for free",
    "double_turn": "action once a round: two more actions",
    "spade_action": "action once a round: this many free spades on one hex",
    "sandstorm": "action once a round: a hex next to an own building becomes home terrain",
}
POWER_EFFECTS = ("bridge", "priests", "workers", "coins", "spades")
EVENTS = ("D", "TP", "TE", "SHSA", "town", "spade")


@dataclass(frozen=True)
class Faction:
    slug: str
    name: str
    home: int  # terrain index on the wheel
    start_vp: int
    coins: int
    workers: int
    priests: int
    power: tuple[int, int, int]
    cults: tuple[int, int, int, int]
    dwellings: int
    costs: dict[str, tuple[int, int]]  # building -> (workers, coins)
    income: dict[str, dict[str, tuple[int, ...]]]  # building -> resource -> totals by count
    ship_start: int
    ship_max: int
    ship_cost: tuple[int, int]  # (coins, priests)
    ship_vp: tuple[int, ...]  # VP on reaching each level
    dig_max: int
    dig_cost: tuple[int, int, int]  # (workers, coins, priests)
    dig_vp: int
    spade_workers: tuple[int, ...]  # workers per spade by dig level
    ability: dict[str, int]
    stronghold: dict[str, int]


@dataclass(frozen=True)
class Tiles:
    power_actions: dict[str, tuple[int, str, int]]  # id -> (cost, effect, amount)
    bonus: dict[str, dict[str, Any]]
    favor: dict[str, dict[str, Any]]
    scoring: dict[str, dict[str, Any]]
    town: dict[str, dict[str, Any]]


@dataclass(frozen=True)
class TerraMysticaData:
    name: str
    hash: str
    map: HexMap
    wheel: tuple[str, ...]
    terrain_of: tuple[int, ...]  # hex -> wheel index, -1 for river
    factions: dict[str, Faction]
    tiles: Tiles
    rules: dict[str, Any]
    cults: tuple[str, ...]
    cult_spots: tuple[int, ...]
    cult_power: dict[int, int]
    conversions: tuple[tuple[str, int, str, int], ...]
    approximate: tuple[str, ...] = ()
    overrides: dict[str, Any] = field(default_factory=dict)
    # within[k][h]: land hexes at most k steps from h over any hexes (tunnels, carpet flights)
    within: tuple[list[int], ...] = field(init=False, repr=False)  # lists, as HexMap's tables
    # spades[faction][src][dst]: spades to turn terrain src into dst (asked on every move scan)
    spades: dict[str, tuple[tuple[int, ...], ...]] = field(init=False, repr=False)
    # the map's actions, made once (actions.py): the same for equal data, so not compared
    made: Made = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        m = self.map
        table = []
        for k in range(6):
            row = []
            for h in range(m.size):
                seen = frontier = 1 << h
                for _ in range(k):
                    grown = 0
                    for x in bits(frontier):
                        grown |= m.neigh[x]
                    frontier = grown & ~seen
                    seen |= frontier
                row.append(seen & m.land & ~(1 << h))
            table.append(row)
        object.__setattr__(self, "within", tuple(table))
        k = len(self.wheel)
        object.__setattr__(self, "spades", {
            slug: tuple(tuple(self._spades(f, a, b) for b in range(k)) for a in range(k))
            for slug, f in self.factions.items()})
        object.__setattr__(self, "made", Made(m.size, self.wheel))

    def _spades(self, f: Faction, src: int, dst: int) -> int:
        if src == dst:
            return 0
        # Giants pay the same for every transform, to home or not (the server's transform_cost),
        # so a lone cult-bonus spade is forfeit, as the rulebook says.
        if "fixed_spades" in f.ability:
            return f.ability["fixed_spades"]
        d = self.wheel_distance(src, dst)
        k = len(self.wheel)
        # The short way round may not pass through home terrain: then the long way is paid.
        home = f.home
        if dst != home and home != src:
            step = 1 if (dst - src) % k == d else -1
            if any((src + step * i) % k == home for i in range(1, d)):
                return k - d
        return d

    def wheel_distance(self, a: int, b: int) -> int:
        k = len(self.wheel)
        d = abs(a - b)
        return min(d, k - d)


def _table(raw: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    t = raw.get(key)
    if not isinstance(t, dict):
        raise DataError(f"{where}.{key}: expected a table")
    return t


def _pair(v: Any, where: str, n: int = 2) -> tuple[int, ...]:
    if not (isinstance(v, list) and len(v) == n
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)):
        raise DataError(f"{where}: expected {n} integers >= 0, got {v!r}")
    return tuple(v)


def _ints(v: Any, where: str) -> tuple[int, ...]:
    if not (isinstance(v, list) and v and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)):
        raise DataError(f"{where}: expected a list of integers >= 0, got {v!r}")
    return tuple(v)


def _resources(v: Any, where: str, extra: tuple[str, ...] = ()) -> dict[str, int]:
    if not isinstance(v, dict):
        raise DataError(f"{where}: expected a table of resources")
    out = {}
    for k, x in v.items():
        if k not in RESOURCES + extra:
            valid = ", ".join(RESOURCES + extra)
            raise DataError(f"{where}.{k}: unknown resource (valid: {valid})")
        if not isinstance(x, int) or isinstance(x, bool) or x < 0:
            raise DataError(f"{where}.{k}: expected an integer >= 0, got {x!r}")
        out[k] = x
    return out


def _effects(v: Any, where: str) -> dict[str, int]:
    if not isinstance(v, dict):
        raise DataError(f"{where}: expected a table of effects")
    for k, x in v.items():
        if k not in EFFECTS:
            raise DataError(f"{where}.{k}: unknown effect (known: {', '.join(sorted(EFFECTS))})")
        if not isinstance(x, int) or isinstance(x, bool) or x < 0:
            raise DataError(f"{where}.{k}: expected an integer >= 0, got {x!r}")
    return dict(v)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict) and k not in ("ability",
                                                                            "stronghold"):
            out[k] = _merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _faction(slug: str, t: dict[str, Any], wheel: tuple[str, ...]) -> Faction:
    where = f"factions.toml: factions.{slug}"
    f = Field(t, where)
    home = f.str("home", choices=wheel)
    costs = _table(t, "costs", where)
    income = _table(t, "income", where)
    for b in BUILDINGS:
        if b not in costs:
            raise DataError(f"{where}.costs.{b}: missing")
    inc: dict[str, dict[str, tuple[int, ...]]] = {}
    for b, rows in income.items():
        if b not in BUILDINGS or not isinstance(rows, dict):
            raise DataError(f"{where}.income.{b}: expected a building (one of "
                            f"{', '.join(BUILDINGS)}) with a table of resources")
        inc[b] = {}
        for r, arr in rows.items():
            if r not in RESOURCES:
                raise DataError(f"{where}.income.{b}.{r}: unknown resource")
            inc[b][r] = _ints(arr, f"{where}.income.{b}.{r}")
    ship = Field(_table(t, "ship", where), f"{where}.ship")
    dig = Field(_table(t, "dig", where), f"{where}.dig")
    ship_vp = _ints(ship.table.get("vp"), f"{where}.ship.vp")
    ship_max = ship.int("max", hi=5)
    if ship_max and len(ship_vp) <= ship_max:
        raise DataError(f"{where}.ship.vp: needs an entry for every level up to {ship_max}")
    spade_workers = _ints(dig.table.get("spade_workers"), f"{where}.dig.spade_workers")
    dig_max = dig.int("max", hi=len(spade_workers) - 1)
    return Faction(
        slug=slug, name=f.str("name"), home=wheel.index(home), start_vp=f.int("start_vp"),
        coins=f.int("coins"), workers=f.int("workers"), priests=f.int("priests", hi=7),
        power=_pair(t.get("power"), f"{where}.power", 3),  # type: ignore[arg-type]
        cults=_pair(t.get("cults"), f"{where}.cults", 4),  # type: ignore[arg-type]
        dwellings=f.int("dwellings", lo=1, hi=3),
        costs={b: _pair(costs[b], f"{where}.costs.{b}") for b in BUILDINGS},  # type: ignore
        income=inc, ship_start=ship.int("start", hi=ship_max), ship_max=ship_max,
        ship_cost=(ship.int("coins"), ship.int("priests")), ship_vp=ship_vp,
        dig_max=dig_max, dig_cost=(dig.int("workers"), dig.int("coins"), dig.int("priests")),
        dig_vp=dig.int("vp"), spade_workers=spade_workers,
        ability=_effects(t.get("ability", {}), f"{where}.ability"),
        stronghold=_effects(t.get("stronghold", {}), f"{where}.stronghold"),
    )


def load_data(overrides: dict[str, Any] | None = None) -> TerraMysticaData:
    """Load and validate the data set; `overrides` maps file stem -> nested fields to replace
    (a faction's field may be overridden whether it sets it or inherits it from [defaults])."""
    overrides = copy.deepcopy(overrides or {})
    unknown = set(overrides) - set(FILES)
    if unknown:
        raise DataError(f"override: unknown data file {sorted(unknown)} "
                        f"(valid: {', '.join(FILES)})")
    raw: dict[str, Any] = {}
    for stem in FILES:
        raw[stem] = load_toml(DATA_DIR / f"{stem}.toml")
    # Faction tables inherit [defaults] before overrides, so an override may name any field.
    fac_over = overrides.pop("factions", {})
    if not isinstance(fac_over, dict):
        raise DataError("override factions: expected a table")
    fac_raw = raw["factions"]
    fac_raw = apply_overrides(fac_raw, {k: v for k, v in fac_over.items() if k != "factions"},
                              "factions")
    defaults = _table(fac_raw, "defaults", "factions.toml")
    fac_raw["factions"] = {slug: _merge(defaults, t)
                           for slug, t in _table(fac_raw, "factions", "factions.toml").items()}
    if "factions" in fac_over:
        fac_raw = apply_overrides(fac_raw, {"factions": fac_over["factions"]}, "factions")
    raw["factions"] = fac_raw
    for stem, over in overrides.items():
        raw[stem] = apply_overrides(raw[stem], over, stem)

    # map
    grid = _table(raw["map"], "grid", "map.toml")
    codes = grid.get("codes")
    if not isinstance(codes, dict):
        raise DataError("map.toml: grid.codes: expected a table")
    rows: list[list[str]] = []
    for i, line in enumerate(grid.get("rows", [])):
        try:
            rows.append([codes[c] for c in line.split()])
        except KeyError as e:
            raise DataError(f"map.toml: grid.rows[{i}]: unknown terrain code {e}") from None
    if not rows:
        raise DataError("map.toml: grid.rows: missing")
    letters = "ABCDEFGHIJKLMNOP"
    shifted = [letters[r] in grid.get("shifted_rows", []) for r in range(len(rows))]
    names = []
    river = 0
    for r, row in enumerate(rows):
        k = 0
        for t in row:
            if t == RIVER:
                names.append(f"r{river}")
                river += 1
            else:
                k += 1
                names.append(f"{letters[r]}{k}")
    sites = raw["map"].get("bridges", {}).get("sites", [])
    try:
        hexmap = HexMap(rows, shifted, [tuple(s.split("-")) for s in sites],
                        max_sail=MAX_SHIP, names=names)
    except ValueError as e:
        raise DataError(f"map.toml: {e}") from None

    fac = _table(raw["factions"], "meta", "factions.toml")
    wheel = tuple(fac.get("terrain_wheel", ()))
    if len(wheel) < 2 or len(set(wheel)) != len(wheel):
        raise DataError("factions.toml: meta.terrain_wheel: expected distinct terrain names")
    for t in set(hexmap.terrain) - {RIVER}:
        if t not in wheel:
            raise DataError(f"map.toml: terrain {t!r} is not in factions.toml meta.terrain_wheel")
    terrain_of = tuple(wheel.index(t) if t != RIVER else -1 for t in hexmap.terrain)
    factions = {slug: _faction(slug, t, wheel)
                for slug, t in _table(raw["factions"], "factions", "factions.toml").items()}

    tiles = _tiles(raw["tiles"])
    rules = _table(raw["rules"], "rules", "rules.toml")
    rf = Field(rules, "rules.toml: rules")
    for key in ("rounds", "bonus_extra", "max_priests", "bridges", "town_power",
                "town_buildings", "sa_town_buildings", "favors_per_building", "coins_per_vp"):
        rf.int(key, lo=1 if key != "bonus_extra" else 0)
    for key in ("buildings", "building_power"):
        table = _table(rules, key, "rules.toml: rules")
        for b in BUILDINGS:
            Field(table, f"rules.toml: rules.{key}").int(b)
    for key in ("network_vp", "cult_vp"):
        _ints(rules.get(key), f"rules.toml: rules.{key}")
    cults = _table(raw["rules"], "cults", "rules.toml")
    tracks = tuple(cults.get("tracks", ()))
    if len(tracks) != 4:
        raise DataError("rules.toml: cults.tracks: expected four track names")
    spots = _ints(cults.get("spots"), "rules.toml: cults.spots")
    cult_power = {int(k): v for k, v in _table(cults, "power", "rules.toml: cults").items()}
    conv = []
    for i, rate in enumerate(_table(raw["rules"], "conversions", "rules.toml").get("rates", [])):
        ok = (isinstance(rate, list) and len(rate) == 4 and rate[0] in RESOURCES
              and rate[2] in RESOURCES and isinstance(rate[1], int) and isinstance(rate[3], int))
        if not ok:
            raise DataError(f"rules.toml: conversions.rates[{i}]: expected [from, n, to, m]")
        conv.append((rate[0], rate[1], rate[2], rate[3]))
    for f in factions.values():
        for bld, rows_ in f.income.items():
            for res, arr in rows_.items():
                most = rules["buildings"][bld]
                if len(arr) != most + 1:
                    raise DataError(f"factions.toml: factions.{f.slug}.income.{bld}.{res}: "
                                    f"expected {most + 1} totals (0..{most} built)")
    for tile in tiles.favor.values():
        if tile["cult"] not in tracks:
            raise DataError(f"tiles.toml: favor: unknown cult track {tile['cult']!r}")
    given = {"factions": fac_over, **overrides} if (overrides or fac_over) else {}
    return TerraMysticaData(
        name="terra-mystica-base" + ("+overrides" if given else ""),
        hash=content_hash(raw), map=hexmap, wheel=wheel, terrain_of=terrain_of,
        factions=factions, tiles=tiles, rules=rules, cults=tracks, cult_spots=spots,
        cult_power=cult_power, conversions=tuple(conv), overrides=given,
    )


def _tiles(raw: dict[str, Any]) -> Tiles:
    where = "tiles.toml"
    pa = {}
    for k, v in _table(raw, "power_actions", where).items():
        f = Field(v, f"{where}: power_actions.{k}")
        pa[k] = (f.int("cost", lo=1), f.str("effect", choices=POWER_EFFECTS), f.int("amount", lo=1))
    bonus = {}
    for k, v in _table(raw, "bonus", where).items():
        w = f"{where}: bonus.{k}"
        bonus[k] = {"income": _resources(v.get("income", {}), f"{w}.income"),
                    "action": Field(v, w).str("action", "", ("", "spade", "cult")),
                    "ship": Field(v, w).int("ship", 0),
                    "pass_vp": _resources(v.get("pass_vp", {}), f"{w}.pass_vp",
                                          BUILDINGS + ("ship",)),
                    "option": Field(v, w).str("option", "")}
    favor = {}
    for k, v in _table(raw, "favor", where).items():
        w = f"{where}: favor.{k}"
        f = Field(v, w)
        favor[k] = {"copies": f.int("copies", lo=1), "cult": f.str("cult"),
                    "steps": f.int("steps", lo=1), "town_power": f.int("town_power", 0),
                    "action": f.str("action", "", ("", "cult")),
                    "income": _resources(v.get("income", {}), f"{w}.income"),
                    "build_vp": _resources(v.get("build_vp", {}), f"{w}.build_vp", BUILDINGS),
                    "pass_tp_vp": _ints(v.get("pass_tp_vp", [0]), f"{w}.pass_tp_vp")}
    scoring = {}
    for k, v in _table(raw, "scoring", where).items():
        w = f"{where}: scoring.{k}"
        f = Field(v, w)
        scoring[k] = {"event": f.str("event", choices=EVENTS), "vp": f.int("vp", lo=1),
                      "cult": f.str("cult"), "per": f.int("per", lo=1),
                      "reward": _resources(v.get("reward", {}), f"{w}.reward", ("spade",)),
                      "not_rounds": _ints(v.get("not_rounds", [0]), f"{w}.not_rounds"),
                      "option": f.str("option", "")}
    town = {}
    for k, v in _table(raw, "town", where).items():
        w = f"{where}: town.{k}"
        f = Field(v, w)
        town[k] = {"copies": f.int("copies", lo=1), "vp": f.int("vp"), "C": f.int("C", 0),
                   "W": f.int("W", 0), "P": f.int("P", 0), "PW": f.int("PW", 0),
                   "cult": f.int("cult", 0), "keys": f.int("keys", 1), "ship": f.int("ship", 0),
                   "option": f.str("option", "")}
    return Tiles(pa, bonus, favor, scoring, town)
