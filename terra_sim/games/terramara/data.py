"""Terramara data: the TOML files under data/, validated on load into frozen structures.

The card and tile contents of the published game are not public: the set shipped here
(`approximate-v1`, written by make_standin.py) is a stand-in, and any set dropped in with the
same schema is validated the same way: the box's counts, every effect from the vocabulary the
engine implements, every reference resolvable. Each error is one line naming file and field.
"""

# terra-sim: compile

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from terra_sim.core.data import Field, apply_overrides, content_hash, load_toml
from terra_sim.core.errors import DataError

DATA_DIR = Path(__file__).parent / "data"
FILES = ("rules", "artifacts", "territories", "outposts", "bonus", "characters", "starting")
RAW = ("livestock", "stone", "wood", "ore")
REFINED = ("leather", "ashlar", "lumber", "metal")
CATEGORIES = ("clothing", "pottery", "tools", "weaponry")  # by main resource, as REFINED
COLUMNS = ("plains", "forest")  # Plains/Quarry tiles on the left, Forest/Mountain on the right

# Gains: what a space, a bonus tile, a starting card or an artifact gives at once (or once a
# round). Choices ("_any", refine, travel) become decisions of the gaining player.
GAINS: dict[str, str] = {
    **{r: f"{r} (raw)" for r in RAW},
    **{r: f"{r} (refined)" for r in REFINED},
    "raw_any": "raw resources of your choice",
    "refined_any": "refined resources of your choice",
    "refine": "raw resources you may refine (like a Worker of this level)",
    "military": "Military steps",
    "culture": "Culture (River) steps",
    "travel": "Travel (Road) steps",
    "vp": "VP",
    "worker": "a Worker of this level (1-3)",
}
PERMANENT: dict[str, str] = {
    "travel_plus": "Travel more whenever you gain Travel",
    "culture_plus": "Culture more whenever you gain Culture",
    "military_plus": "Military more whenever you gain Military",
    "craft_vp": "VP whenever you create an Artifact",
    "raw_substitute": "raw resources that may pay for refined ones when creating an Artifact",
}
END: dict[str, str] = {
    "per_artifact": "VP per Artifact created",
    "per_category": "VP per Artifact of this card's category",
    "per_flag": "VP per Flag on an Outpost",
    "per_power_level": "VP per Power Level",
    "per_worker_level": "VP per Worker level",
}
CHARACTER: dict[str, str] = {
    "travel_plus": "1 more Travel whenever you gain Travel",
    "culture_plus": "1 more Culture whenever you gain Culture",
    "culture": "Culture on taking the card",
    "keep_military": "you never lose Military",
    "raw_substitute": "raw resources that may pay for refined ones when creating an Artifact",
    "extra_explorer": "an additional Explorer",
    "bonus_supply": "the bonus tiles left over, one usable a turn",
    "personal_crossroads": "a personal Crossroads action space (a level-1 Forest/Mountain back)",
    "personal_outpost": "a personal Outpost scored at the end (a level-1 Plains/Quarry back)",
    "crossroads_vp": "VP whenever a Caravan reaches or passes a Crossroads",
    "culture_vp": "VP whenever you gain Culture",
    "power_vp_round": "once a round, VP equal to your Power Level",
    "craft_vp_low": "VP for creating a level-1 or level-2 Artifact",
    "craft_vp_high": "VP for creating a level-3 Artifact",
    "chieftain_join_vp": "VP for sending the Chieftain beside another player's Explorer",
    "chieftain_empty_vp": "VP for sending the Chieftain to an empty action space",
    "flag_vp": "VP for each Flag left on an Outpost",
    "crossroads_space_vp": "VP for sending a clan member to a Crossroads action space",
}
SPACE_REQUIRES = ("", "workers", "river", "road", "military")
OUTPOST_REQUIRES = ("military", "river", "artifacts", "workers", "refined", "flags", "category")
HOMELAND_ACTIONS = ("worker", "develop", "travel", "raid", "first")
FACTION_MODES = ("combo", "character")
# The box (facts s3.1): what any data set must hold.
COUNTS = {"artifacts": 52, "territories": 24, "bonus": 18, "characters": 7, "starting": 12}


@dataclass(frozen=True)
class Artifact:
    id: str
    name: str
    category: int  # index into CATEGORIES
    level: int
    vp: int
    cost: tuple[int, ...]  # refined resources, as REFINED
    instant: dict[str, int]
    permanent: dict[str, int]
    round: dict[str, int]
    end: dict[str, int]


@dataclass(frozen=True)
class SpaceDef:
    effects: dict[str, int]
    require: str  # "" or one of SPACE_REQUIRES
    at: int


@dataclass(frozen=True)
class Tile:
    id: str
    column: str
    level: int
    spaces: tuple[SpaceDef, ...]  # the large space, then the two small ones
    outpost: str  # level-1/2 Plains/Quarry: the Outpost on the back
    crossroads: dict[str, int]  # level-1/2 Forest/Mountain: the Crossroads space on the back


@dataclass(frozen=True)
class Outpost:
    id: str
    require: str
    at: tuple[int, int, int]  # easy, medium, hard
    category: int  # for require = "category", else -1


@dataclass(frozen=True)
class Bonus:
    id: str
    level: int
    effects: dict[str, int]


@dataclass(frozen=True)
class Character:
    slug: str
    young: dict[str, int]
    experienced: dict[str, int]


@dataclass(frozen=True)
class HomelandSpace:
    name: str
    actions: tuple[str, ...]
    holds: int


@dataclass(frozen=True)
class TerramaraData:
    name: str
    hash: str
    rules: dict[str, Any]
    artifacts: dict[str, Artifact]
    tiles: dict[str, Tile]
    outposts: dict[str, Outpost]
    bonus: dict[str, Bonus]
    characters: dict[str, Character]
    starting: dict[str, dict[str, int]]
    homeland: dict[int, tuple[HomelandSpace, ...]]
    approximate: tuple[str, ...]
    overrides: dict[str, Any] = field(default_factory=dict)
    artifact_ids: tuple[str, ...] = ()  # index -> id (the engine holds artifacts as ints)
    start_vp: dict[str, int] = field(default_factory=dict)  # by faction, in either faction mode


def _effects(v: Any, where: str, vocabulary: dict[str, str]) -> dict[str, int]:
    if not isinstance(v, dict):
        raise DataError(f"{where}: expected a table of effects, got {v!r}")
    for k, x in v.items():
        if k not in vocabulary:
            raise DataError(f"{where}.{k}: unknown effect (known: {', '.join(vocabulary)})")
        hi = 3 if k == "worker" else 20
        if not isinstance(x, int) or isinstance(x, bool) or not 1 <= x <= hi:
            raise DataError(f"{where}.{k}: expected an integer in 1..{hi}, got {x!r}")
    return dict(v)


def _records(raw: dict[str, Any], stem: str) -> dict[str, Any]:
    t = raw.get(stem)
    if not isinstance(t, dict) or not t:
        raise DataError(f"{stem}.toml: [{stem}.*]: missing (expected one table per record)")
    return t


def _provenance(t: Any, where: str) -> str:
    f = Field(t, where)
    return f.str("provenance")


def _artifact(key: str, t: Any) -> Artifact:
    where = f"artifacts.toml: artifacts.{key}"
    f = Field(t, where)
    _provenance(t, where)
    cost = _effects(t.get("cost"), f"{where}.cost", {r: r for r in REFINED})
    return Artifact(
        id=key, name=f.str("name"), category=CATEGORIES.index(f.str("category",
                                                                    choices=CATEGORIES)),
        level=f.int("level", lo=1, hi=3), vp=f.int("vp", hi=30),
        cost=tuple(cost.get(r, 0) for r in REFINED),
        instant=_effects(t.get("instant", {}), f"{where}.instant", GAINS),
        permanent=_effects(t.get("permanent", {}), f"{where}.permanent", PERMANENT),
        round=_effects(t.get("round", {}), f"{where}.round", GAINS),
        end=_effects(t.get("end", {}), f"{where}.end", END))


def _tile(key: str, t: Any, outposts: dict[str, Outpost]) -> Tile:
    where = f"territories.toml: territories.{key}"
    f = Field(t, where)
    _provenance(t, where)
    column = f.str("column", choices=COLUMNS)
    level = f.int("level", lo=1, hi=3)
    spaces_raw = t.get("spaces")
    if not isinstance(spaces_raw, list) or len(spaces_raw) != 3:
        raise DataError(f"{where}.spaces: expected 3 spaces (large, small, small), "
                        f"got {spaces_raw!r}")
    special = column == "forest" and level == 3
    spaces = []
    for i, s in enumerate(spaces_raw):
        w = f"{where}.spaces[{i}]"
        sf = Field(s, w)
        req = sf.str("require", "", choices=SPACE_REQUIRES) if special else ""
        if special and not req:
            raise DataError(f"{w}.require: a level-3 Forest/Mountain space needs a requirement")
        if not special and "require" in s:
            raise DataError(f"{w}.require: only level-3 Forest/Mountain spaces have one")
        spaces.append(SpaceDef(_effects(s.get("effects"), f"{w}.effects", GAINS), req,
                               sf.int("at", 0, hi=99) if special else 0))
    outpost = ""
    crossroads: dict[str, int] = {}
    if column == "plains" and level < 3:
        outpost = f.str("outpost")
        if outpost not in outposts:
            raise DataError(f"{where}.outpost: no outpost {outpost!r} in outposts.toml")
    elif "outpost" in t:
        raise DataError(f"{where}.outpost: only level-1/2 Plains/Quarry tiles have one")
    if column == "forest" and level < 3:
        crossroads = _effects(t.get("crossroads"), f"{where}.crossroads", GAINS)
    elif "crossroads" in t:
        raise DataError(f"{where}.crossroads: only level-1/2 Forest/Mountain tiles have one")
    return Tile(key, column, level, tuple(spaces), outpost, crossroads)


def _outpost(key: str, t: Any) -> Outpost:
    where = f"outposts.toml: outposts.{key}"
    f = Field(t, where)
    _provenance(t, where)
    req = f.str("require", choices=OUTPOST_REQUIRES)
    at = f.ints("at", 3, lo=1)
    if not at[0] <= at[1] <= at[2]:
        raise DataError(f"{where}.at: expected easy <= medium <= hard, got {list(at)}")
    cat = CATEGORIES.index(f.str("category", choices=CATEGORIES)) if req == "category" else -1
    return Outpost(key, req, (at[0], at[1], at[2]), cat)


def _check_counts(raw: dict[str, Any]) -> None:
    for stem, n in COUNTS.items():
        got = len(_records(raw[stem], stem))
        if got != n:
            raise DataError(f"{stem}.toml: [{stem}.*]: expected {n} records (the box), got {got}")


def _rules(raw: dict[str, Any]) -> dict[str, Any]:
    where = "rules.toml: rules"
    t = raw.get("rules")
    if not isinstance(t, dict):
        raise DataError(f"{where}: missing")
    f = Field(t, where)
    out: dict[str, Any] = {}
    for key in ("rounds", "start_explorers", "max_explorers", "flags", "military_max",
                "raid_divisor", "raid_divisor_min", "raid_divisor_max", "river_end",
                "reserve_at", "explorer_at", "reserve_discount_at", "reserve_penalty",
                "display", "first_player_travel", "first_player_order_culture",
                "first_player_order_military", "final_first_player", "refined_per_vp",
                "start_military_by_order"):
        out[key] = f.int(key, hi=100)
    if out["rounds"] != 5:
        raise DataError(f"{where}.rounds: the board has 5 rounds, got {out['rounds']}")
    out["power_levels"] = f.ints("power_levels", 4)
    out["military_vp"] = f.ints("military_vp", 3)
    out["outpost_vp"] = f.ints("outpost_vp", 3)
    out["worker_level_by_round"] = f.ints("worker_level_by_round", 5, lo=1)
    out["worker_supply"] = f.ints("worker_supply", 3)
    out["road_bonus_levels"] = f.ints("road_bonus_levels", 6, lo=1)
    out["road_arrival_vp"] = tuple(t.get("road_arrival_vp") or ())
    Field(t, where).ints("road_arrival_vp", len(out["road_arrival_vp"]))
    out["river_vp"] = f.ints("river_vp", out["river_end"] + 1)
    access = t.get("river_access")
    out["river_access"] = f.ints("river_access", len(access) if isinstance(access, list) else 1,
                                 lo=1)
    bonus = f.table_of("river_bonus")
    rb = {}
    for k, v in bonus.table.items():
        if not k.isdigit() or not 1 <= int(k) <= out["river_end"]:
            raise DataError(f"{where}.river_bonus.{k}: expected a River space "
                            f"1..{out['river_end']}")
        rb[int(k)] = bonus.ints(k, len(v) if isinstance(v, list) else 1, lo=1)
    out["river_bonus"] = rb
    out["faction_mode"] = f.str("faction_mode", choices=FACTION_MODES)
    for key in ("hut", "develop", "travel_space"):
        out[key] = _effects(t.get(key), f"{where}.{key}", GAINS)
    if any(lv > 3 for lv in out["road_bonus_levels"]) or any(
            lv > 3 for v in rb.values() for lv in v):
        raise DataError(f"{where}: bonus tile levels are 1..3")
    return out


def _homeland(raw: dict[str, Any]) -> dict[int, tuple[HomelandSpace, ...]]:
    t = raw.get("homeland")
    if not isinstance(t, dict):
        raise DataError("rules.toml: homeland: missing (a table per player count)")
    out = {}
    for n in (2, 3, 4):
        layout = t.get(str(n))
        where = f"rules.toml: homeland.{n}"
        if not isinstance(layout, dict) or not layout:
            raise DataError(f"{where}: missing")
        spaces = []
        seen: list[str] = []
        for name, s in layout.items():
            f = Field(s, f"{where}.{name}")
            acts = s.get("actions")
            if not isinstance(acts, list) or not acts or any(
                    a not in HOMELAND_ACTIONS for a in acts):
                raise DataError(f"{where}.{name}.actions: expected actions among "
                                f"{', '.join(HOMELAND_ACTIONS)}, got {acts!r}")
            seen += acts
            spaces.append(HomelandSpace(name, tuple(acts), f.int("holds", lo=1, hi=2)))
        missing = [a for a in HOMELAND_ACTIONS if a not in seen]
        if missing:
            raise DataError(f"{where}: no space for {', '.join(missing)}")
        out[n] = tuple(spaces)
    return out


def load_data(overrides: dict[str, Any] | None = None) -> TerramaraData:
    """Load and validate the data set; `overrides` maps file stem -> nested fields to replace."""
    overrides = copy.deepcopy(overrides or {})
    unknown = set(overrides) - set(FILES)
    if unknown:
        raise DataError(f"override: unknown data file {sorted(unknown)} "
                        f"(valid: {', '.join(FILES)})")
    raw = {stem: load_toml(DATA_DIR / f"{stem}.toml") for stem in FILES}
    _fill_start_vp(raw)
    for stem, over in overrides.items():
        raw[stem] = apply_overrides(raw[stem], over, stem)
    _check_counts(raw)
    rules = _rules(raw["rules"])
    homeland = _homeland(raw["rules"])
    outposts = {k: _outpost(k, t) for k, t in _records(raw["outposts"], "outposts").items()}
    artifacts = {k: _artifact(k, t) for k, t in _records(raw["artifacts"], "artifacts").items()}
    tiles = {k: _tile(k, t, outposts) for k, t in _records(raw["territories"],
                                                          "territories").items()}
    bonus = {}
    for k, t in _records(raw["bonus"], "bonus").items():
        where = f"bonus.toml: bonus.{k}"
        _provenance(t, where)
        bonus[k] = Bonus(k, Field(t, where).int("level", lo=1, hi=3),
                         _effects(t.get("effects"), f"{where}.effects", GAINS))
    characters = {}
    for k, t in _records(raw["characters"], "characters").items():
        where = f"characters.toml: characters.{k}"
        _provenance(t, where)
        characters[k] = Character(k, _effects(t.get("young"), f"{where}.young", CHARACTER),
                                  _effects(t.get("experienced"), f"{where}.experienced",
                                           CHARACTER))
    starting = {}
    for k, t in _records(raw["starting"], "starting").items():
        where = f"starting.toml: starting.{k}"
        _provenance(t, where)
        starting[k] = _effects(t.get("effects"), f"{where}.effects", GAINS)
    _check_structure(artifacts, tiles, outposts, bonus, characters, starting)
    start_vp = _start_vp(raw["rules"], _faction_slugs(characters, starting))
    name = Field(raw["artifacts"].get("meta") or {}, "artifacts.toml: meta").str("name")
    given = overrides if overrides else {}
    return TerramaraData(
        name=name + ("+overrides" if given else ""), hash=content_hash(raw), rules=rules,
        artifacts=artifacts, tiles=tiles, outposts=outposts, bonus=bonus, characters=characters,
        starting=starting, homeland=homeland, approximate=_approximate(raw, name, rules),
        overrides=given, artifact_ids=tuple(artifacts), start_vp=start_vp)


def _faction_slugs(characters: Any, starting: Any) -> list[str]:
    """Every faction of either faction mode: the Characters, then Character+card pairs."""
    return [*characters, *(f"{c}+{k}" for c in characters for k in starting)]


def _fill_start_vp(raw: dict[str, Any]) -> None:
    # A faction the file does not name starts with 0 VP. Filled in before the overrides, so
    # that an override (a handicap from terra-sim calibrate) may name any faction.
    table = raw["rules"].setdefault("start_vp", {})
    chars, cards = raw["characters"].get("characters"), raw["starting"].get("starting")
    if isinstance(table, dict) and isinstance(chars, dict) and isinstance(cards, dict):
        for slug in _faction_slugs(chars, cards):
            table.setdefault(slug, 0)


def _start_vp(raw: dict[str, Any], factions: list[str]) -> dict[str, int]:
    f = Field(raw.get("start_vp") or {}, "rules.toml: start_vp")
    unknown = sorted(set(f.table) - set(factions))
    if unknown:
        raise DataError(f"rules.toml: start_vp.{unknown[0]}: not a faction (a Character, or "
                        f"CHARACTER+CARD)")
    # A handicap may take VP away: no rule spends VP or reads a total before the end.
    return {slug: f.int(slug, lo=-1000, hi=1000) for slug in factions}


def _check_structure(artifacts: dict[str, Artifact], tiles: dict[str, Tile],
                     outposts: dict[str, Outpost], bonus: dict[str, Bonus],
                     characters: dict[str, Character], starting: dict[str, Any]) -> None:
    """The box's structure, for any data set: what a game draws must be there."""
    for c, cat in enumerate(CATEGORIES):
        for level in (1, 2, 3):
            if not any(a.category == c and a.level == level for a in artifacts.values()):
                raise DataError(f"artifacts.toml: no level-{level} {cat} artifact "
                                f"(4 categories x 3 levels expected)")
    for level in (1, 2, 3):
        for column in COLUMNS:
            k = sum(1 for t in tiles.values() if t.level == level and t.column == column)
            if k != 4:
                raise DataError(f"territories.toml: expected 4 level-{level} {column} tiles, "
                                f"got {k}")
        k = sum(1 for b in bonus.values() if b.level == level)
        if k != 6:
            raise DataError(f"bonus.toml: expected 6 level-{level} bonus tiles, got {k}")
    used = [t.outpost for t in tiles.values() if t.outpost]
    for o in outposts:
        if used.count(o) != 1:
            raise DataError(f"outposts.toml: outposts.{o}: expected on exactly one tile's "
                            f"back, found on {used.count(o)}")
    for slug in list(characters) + list(starting):
        if "+" in slug or " " in slug:
            raise DataError(f"characters/starting: {slug!r}: names may not hold '+' or spaces")
    overlap = set(characters) & set(starting)
    if overlap:
        raise DataError(f"characters.toml/starting.toml: {sorted(overlap)} named twice")


def _approximate(raw: dict[str, Any], name: str, rules: dict[str, Any]) -> tuple[str, ...]:
    stand_in = [stem for stem in FILES if stem != "rules"
                and raw[stem].get("meta", {}).get("provenance") != "official"]
    out = []
    if stand_in:
        out.append(f"STAND-IN CARDS ({name}): the contents of {', '.join(stand_in)} are "
                   "invented, not the published game's")
    out.append("rules: Military areas, River length and VP, Road arrival VP after 8/5, worker "
               "supply, the Hut, leftover-resource VP and road bonus levels are filled in "
               "(RULES.md)")
    mode = rules["faction_mode"]
    out.append("faction = character + starting resources card (faction_mode combo)"
               if mode == "combo" else
               "faction = character alone (faction_mode character; starting card drawn)")
    return tuple(out)
