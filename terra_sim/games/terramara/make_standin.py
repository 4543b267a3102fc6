"""Generate the stand-in card set `approximate-v1` (the real cards are not public).

Run once: `python -m terra_sim.games.terramara.make_standin`. It writes artifacts.toml,
territories.toml, outposts.toml, bonus.toml, characters.toml and starting.toml under data/,
every record marked `provenance = "approximate"`. The same seed always writes the same files,
so the set in the repository can be checked against this script (tests/test_tmr_data.py).
The counts are the box's (52 artifacts, 24 territory tiles, 18 bonus tiles, 7 characters, 12
starting cards); the contents are invented, sized so that each level is worth about the same
to every player. rules.toml is written by hand: its numbers come from the rule text.
"""

import random
import sys
from pathlib import Path
from typing import Any

SEED = 4004
SET_NAME = "approximate-v1"
DATA_DIR = Path(__file__).parent / "data"
RAW = ("livestock", "stone", "wood", "ore")
REFINED = ("leather", "ashlar", "lumber", "metal")
CATEGORIES = ("clothing", "pottery", "tools", "weaponry")  # main resource: REFINED, in order
HEADER = ('# Stand-in data, NOT the real cards: written by '
          '`python -m terra_sim.games.terramara.make_standin` (seed {seed}).\n'
          '# A real set replaces this file with one of the same schema.\n\n'
          '[meta]\nname = "{name}"\nprovenance = "approximate"\n')


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_value(x)}" for k, x in v.items()) + " }" if v else "{}"
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r}")


def _file(table: str, records: dict[str, dict[str, Any]]) -> str:
    out = [HEADER.format(seed=SEED, name=SET_NAME)]
    for key, rec in records.items():
        out.append(f"\n[{table}.{key}]")
        for k, v in rec.items():
            out.append(f"{k} = {_value(v)}")
    return "\n".join(out) + "\n"


def _gains(rng: random.Random, budget: int, allow: tuple[str, ...]) -> dict[str, int]:
    """Gains worth about `budget` units: a raw resource 1, a refined one or a track step 2,
    a choice of resource one more, VP 1 each."""
    price = {"raw": 1, "refined": 2, "raw_any": 2, "refined_any": 3, "military": 2,
             "culture": 2, "travel": 2, "vp": 1, "refine": 1}
    out: dict[str, int] = {}
    left = budget
    while left > 0:
        kind = rng.choice([k for k in allow if price[k] <= left])
        key = rng.choice(RAW) if kind == "raw" else rng.choice(REFINED) if kind == "refined" \
            else kind
        out[key] = out.get(key, 0) + 1
        left -= price[kind]
    return dict(sorted(out.items()))


def artifacts(rng: random.Random) -> dict[str, dict[str, Any]]:
    """13 per category: 5 of level 1, 4 of level 2, 4 of level 3 (52 in all)."""
    out: dict[str, dict[str, Any]] = {}
    n = 0
    permanent = ("travel_plus", "culture_plus", "military_plus", "craft_vp")
    end = ("per_artifact", "per_category", "per_flag", "per_power_level", "per_worker_level")
    for c, cat in enumerate(CATEGORIES):
        main = REFINED[c]
        for level, count in ((1, 5), (2, 4), (3, 4)):
            for _ in range(count):
                n += 1
                total = rng.randint(*{1: (2, 3), 2: (3, 5), 3: (5, 7)}[level])
                share = {1: 1, 2: 2, 3: 3}[level]
                cost = {main: total - share}
                for _ in range(share):
                    other = rng.choice(REFINED)
                    cost[other] = cost.get(other, 0) + 1
                rec: dict[str, Any] = {
                    "name": f"{cat} {n}", "category": cat, "level": level,
                    "vp": rng.randint(*{1: (1, 2), 2: (3, 4), 3: (6, 8)}[level]),
                    "cost": dict(sorted(cost.items())), "provenance": "approximate"}
                roll = rng.random()
                if level == 1:
                    rec["instant"] = _gains(rng, 3, ("raw", "raw_any", "military", "culture",
                                                      "travel", "vp"))
                elif level == 2 and roll < 0.4:
                    rec["permanent"] = {rng.choice(permanent): 1}
                elif level == 2:
                    rec["round"] = _gains(rng, 2, ("raw", "raw_any", "military", "culture",
                                                    "travel", "vp", "refine"))
                else:
                    kind = rng.choice(end)
                    rec["end"] = {kind: 2 if kind in ("per_category", "per_power_level") else 1}
                    if roll < 0.5:
                        rec["instant"] = _gains(rng, 2, ("refined_any", "military", "culture",
                                                          "vp"))
                out[f"A{n:02d}"] = rec
    return out


def outposts(rng: random.Random) -> dict[str, dict[str, Any]]:
    """The backs of the eight level-1 and level-2 Plains/Quarry tiles: thresholds for
    2, 5 and 10 VP (easy, medium, hard)."""
    kinds = [("military", (6, 11, 16)), ("river", (5, 9, 13)), ("artifacts", (3, 5, 7)),
             ("workers", (3, 5, 7)), ("refined", (3, 5, 8)), ("flags", (2, 3, 4)),
             ("category", (1, 2, 3)), ("category", (1, 2, 3))]
    out = {}
    cats = list(CATEGORIES)
    rng.shuffle(cats)
    for i, (kind, at) in enumerate(kinds, 1):
        rec: dict[str, Any] = {"require": kind, "at": list(at), "provenance": "approximate"}
        if kind == "category":
            rec["category"] = cats.pop()
        out[f"O{i}"] = rec
    keys = list(out)
    rng.shuffle(keys)
    return {k: out[k] for k in keys}


def territories(rng: random.Random, outpost_ids: list[str]) -> dict[str, dict[str, Any]]:
    """24 tiles: per level, 4 Plains/Quarry (left column) and 4 Forest/Mountain (right).
    Each has a large space and two small ones. Backs: level-1/2 Plains/Quarry an Outpost,
    level-1/2 Forest/Mountain a Crossroads action space; level-3 Forest/Mountain spaces are
    the round-5 special spaces (their requirements and rewards are the rule text's; where
    the symbol stands on each track is not, so the thresholds are invented)."""
    allow = ("raw", "refined", "raw_any", "refined_any", "military", "culture", "travel",
             "refine")
    specials = [("workers", 5, {"military": 1, "culture": 1, "travel": 1, "refined_any": 1}),
                ("river", 9, {"refined_any": 1, "vp": 3}),
                ("road", 4, {"refined_any": 3}),
                ("military", 10, {"refined_any": 2, "refine": 1})]
    out: dict[str, dict[str, Any]] = {}
    n = 0
    posts = list(outpost_ids)
    for level in (1, 2, 3):
        for column in ("plains", "forest"):
            for _ in range(4):
                n += 1
                rec: dict[str, Any] = {"column": column, "level": level}
                if column == "forest" and level == 3:
                    picks = rng.sample(specials, 3)
                    rec["spaces"] = [{"require": k, "at": at, "effects": eff}
                                     for k, at, eff in picks]
                else:
                    big, small = {1: (4, 3), 2: (5, 4), 3: (7, 5)}[level]
                    rec["spaces"] = [{"effects": _gains(rng, b, allow)}
                                     for b in (big, small, small)]
                if column == "plains" and level < 3:
                    rec["outpost"] = posts.pop()
                if column == "forest" and level < 3:
                    rec["crossroads"] = _gains(rng, 5 + 2 * level, allow + ("vp",))
                rec["provenance"] = "approximate"
                out[f"T{n:02d}"] = rec
    return out


def bonus(rng: random.Random) -> dict[str, dict[str, Any]]:
    """18 tiles, 6 per level: one-shot gains rising with the level."""
    out = {}
    allow = ("raw", "refined", "raw_any", "refined_any", "military", "culture", "travel", "vp")
    for level in (1, 2, 3):
        for i in range(6):
            out[f"B{(level - 1) * 6 + i + 1:02d}"] = {
                "level": level, "effects": _gains(rng, 1 + 2 * level, allow),
                "provenance": "approximate"}
    return out


def characters() -> dict[str, dict[str, Any]]:
    """The seven Characters the rule text describes; which experienced side belongs to which
    young side is read from the order of the text, and the names are invented."""
    rows = [
        ("trader", {"travel_plus": 1}, {"crossroads_vp": 2}),
        ("sage", {"culture": 1, "culture_plus": 1}, {"culture_vp": 2}),
        ("warlord", {"keep_military": 1}, {"power_vp_round": 1}),
        ("artisan", {"raw_substitute": 2}, {"craft_vp_low": 2, "craft_vp_high": 3}),
        ("hunter", {"extra_explorer": 1}, {"chieftain_join_vp": 3, "chieftain_empty_vp": 5}),
        ("collector", {"bonus_supply": 1}, {"flag_vp": 4}),
        ("pioneer", {"personal_crossroads": 1, "personal_outpost": 1},
         {"crossroads_space_vp": 2, "personal_outpost": 1}),
    ]
    return {slug: {"young": y, "experienced": e, "provenance": "approximate"}
            for slug, y, e in rows}


def starting(rng: random.Random) -> dict[str, dict[str, Any]]:
    """12 cards of about equal worth; the learning game's start (one of each raw resource, a
    level-1 Worker, 1 Culture) is the yardstick."""
    out = {}
    for i in range(1, 13):
        with_worker = i % 3 == 0
        eff = _gains(rng, 5 if with_worker else 8, ("raw", "raw_any", "refined", "military",
                                                     "culture", "travel", "vp"))
        if with_worker:
            eff["worker"] = 1
        out[f"card{i:02d}"] = {"effects": dict(sorted(eff.items())), "provenance": "approximate"}
    return out


def build(seed: int = SEED) -> dict[str, str]:
    """File name -> text of the whole stand-in set."""
    rng = random.Random(seed)
    posts = outposts(rng)
    return {
        "artifacts.toml": _file("artifacts", artifacts(rng)),
        "outposts.toml": _file("outposts", posts),
        "territories.toml": _file("territories", territories(rng, list(posts))),
        "bonus.toml": _file("bonus", bonus(rng)),
        "characters.toml": _file("characters", characters()),
        "starting.toml": _file("starting", starting(rng)),
    }


def main() -> None:
    for name, text in build().items():
        (DATA_DIR / name).write_text(text, encoding="utf-8")
        print(f"wrote {DATA_DIR / name}", file=sys.stderr)


if __name__ == "__main__":
    main()
