"""Run configuration: TOML files, the embedded default run, and merging command-line overrides.

A config file looks like configs/*.toml: top-level keys of RunConfig, plus the tables
[options] (game options), [strategies] (`pool` or `seats`, and named variants as sub-tables
with a `base` strategy and its parameters) and [overrides] (what-if game data).
"""

import logging
import math
import os
import random
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from terra_sim.core.errors import UserError
from terra_sim.games import DEFAULT_GAME, get_game

log = logging.getLogger(__name__)

DESIGNS = ("balanced", "random")
# Keys that change what a run's games are; the others only change how it is executed.
CONTENT_KEYS = ("game", "players", "games", "seed", "design", "factions", "strategies",
                "per_seat", "variants", "options", "overrides", "actions", "decision_timeout",
                "until_ci", "until_margin_ci", "max_games", "until_batch")


@dataclass
class RunConfig:
    game: str = DEFAULT_GAME
    players: list[int] = field(default_factory=lambda: [4])
    games: int = 1000
    seed: int = 1
    design: str = "balanced"
    factions: list[str] | None = None  # the faction pool; None: every faction of the game
    strategies: list[str] | None = None  # a pool (or one per seat); None: the game's scripted bots
    per_seat: bool = False  # strategies lists one strategy per seat, not a pool
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> {base, params}
    options: dict[str, str] = field(default_factory=dict)
    overrides: dict[str, Any] = field(default_factory=dict)
    actions: bool = True  # log every action (needed to replay without re-playing)
    decision_timeout: float | None = None
    # Run until sure (run/until.py): stop once every faction's 95% intervals are this wide.
    until_ci: float | None = None  # the win share's, as a share (0.02: 2 percentage points)
    until_margin_ci: float | None = None  # the VP margin's, in VP
    max_games: int | None = None  # the most games of a run until sure (its `games`)
    until_batch: int | None = None  # games between checks; None: automatic
    workers: int = 0  # 0: one per core
    chunk_size: int = 0  # games per task; 0: chosen from games and workers
    out: str | None = None
    report: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def content(self) -> dict[str, Any]:
        d = self.to_dict()
        return {k: d[k] for k in CONTENT_KEYS}

    @property
    def n_workers(self) -> int:
        return self.workers or os.cpu_count() or 1


def _expect(value: Any, types: Any, key: str, what: str) -> Any:
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _tuple(types)):
        raise UserError(f"config: {key} must be {what}, got {value!r}")
    return value


def _tuple(types: Any) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def _str_list(value: Any, key: str) -> list[str]:
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    _expect(value, list, key, "a list of names")
    for v in value:
        _expect(v, str, key, "a list of names")
    return list(value)


def _players(value: Any) -> list[int]:
    if isinstance(value, str):
        try:
            value = [int(v) for v in value.split(",")]
        except ValueError:
            raise UserError(f"players must be a number or a list like 2,3,4: {value!r}") from None
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    _expect(value, list, "players", "a number or a list of numbers")
    for v in value:
        _expect(v, int, "players", "a number or a list of numbers")
    return sorted(set(value))


def from_dict(data: dict[str, Any], base: RunConfig | None = None) -> RunConfig:
    """A RunConfig from a parsed TOML document (or keyword overrides) on top of `base`."""
    cfg = RunConfig(**(base.to_dict() if base else {}))
    valid = {f.name for f in fields(RunConfig)}
    for key, value in data.items():
        if value is None:
            continue
        if key == "strategies" and isinstance(value, dict):
            _strategies_table(cfg, value)
        elif key == "variants":
            _strategies_table(cfg, _expect(value, dict, key, "a table"))
        elif key not in valid:
            raise UserError(f"config: unknown key {key!r} (valid: {', '.join(sorted(valid))})")
        elif key == "players":
            cfg.players = _players(value)
        elif key in ("factions", "strategies"):
            setattr(cfg, key, _str_list(value, key))
        elif key == "options":
            cfg.options = _expect(value, dict, key, "a table")
        elif key == "overrides":
            cfg.overrides = _overrides(value)
        elif key in ("games", "seed", "workers", "chunk_size", "max_games", "until_batch"):
            setattr(cfg, key, _expect(value, int, key, "an integer"))
        elif key in ("until_ci", "until_margin_ci"):
            setattr(cfg, key, float(_expect(value, (int, float), key, "a number")))
        elif key in ("actions", "report", "per_seat"):
            setattr(cfg, key, _expect(value, bool, key, "true or false"))
        elif key == "decision_timeout":
            cfg.decision_timeout = float(_expect(value, (int, float), key, "a number of seconds"))
            if not 0 < cfg.decision_timeout < float("inf"):  # 0 would forfeit every game
                raise UserError(f"decision_timeout must be a positive number of seconds, "
                                f"got {value!r}")
        else:
            value = str(value) if key == "out" and isinstance(value, Path) else value
            setattr(cfg, key, _expect(value, str, key, "a string"))
            if key == "out" and not value.strip():
                # An empty folder name would otherwise mean "the default folder" without a word.
                raise UserError("--out (out in a config) is empty: name the run folder, or omit "
                                "it for the default runs/<game>-<timestamp>")
    if data.get("games") is not None and data.get("max_games") not in (None, data["games"]):
        raise UserError("games and max_games both given: a run until sure plays up to "
                        "max_games (--max-games) games; drop games (--games)")
    return cfg


def _overrides(value: Any) -> dict[str, Any]:
    # Every game reads [overrides] as data file -> fields; a bare value there would reach the
    # game's loader as a table and fail inside it.
    _expect(value, dict, "overrides", "a table")
    for stem, fields_ in value.items():
        if not isinstance(fields_, dict):
            raise UserError(f"config: overrides.{stem} must be a table of the {stem} data "
                            f"fields to change, like [overrides.{stem}.<table>], got {fields_!r}")
    return value


def _strategies_table(cfg: RunConfig, table: dict[str, Any]) -> None:
    for key, value in table.items():
        if key in ("pool", "seats"):
            cfg.strategies = _str_list(value, f"strategies.{key}")
            cfg.per_seat = key == "seats"
        elif isinstance(value, dict):
            if not isinstance(value.get("base"), str):
                raise UserError(f"config: strategy variant {key!r} needs base = \"<strategy>\"")
            cfg.variants[key] = dict(value)
        else:
            raise UserError(f"config: [strategies] holds pool = [...] or seats = [...] and "
                            f"[strategies.<variant>] tables, not {key!r}")


def load(path: str | Path | None) -> RunConfig:
    """The config in a TOML file, or the embedded default run when `path` is None."""
    if path is None:
        return RunConfig()
    return from_dict(read_toml(path))


def read_toml(path: str | Path) -> dict[str, Any]:
    """A config file's TOML document, unchecked: for commands whose configs carry a section
    of their own (`[ladder]`) beside a run's keys. Unreadable files are UserErrors."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"config file not found: {path}")
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise UserError(f"config {path}: cannot read it ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8")  # TOML files are UTF-8 by definition
    except UnicodeDecodeError as e:
        raise UserError(f"config {path}: not UTF-8 text (byte {raw[e.start]:#04x} at offset "
                        f"{e.start}); save it as UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"config {path}: not valid TOML: {e}") from None
    return data


def check_seed(seed: int) -> None:
    """Seeds derive the games' random streams, which take no negative numbers."""
    if seed < 0:
        raise UserError(f"seed must be 0 or more, got {seed}")


def from_any(config_or_path: RunConfig | dict[str, Any] | str | Path | None) -> RunConfig:
    """A fresh RunConfig from a RunConfig (copied), a dict shaped like a config file, a TOML
    path, or None for the embedded default run."""
    if isinstance(config_or_path, RunConfig):
        return from_dict({}, base=config_or_path)
    if isinstance(config_or_path, dict):
        return from_dict(config_or_path)
    return load(config_or_path)


def validate(cfg: RunConfig) -> RunConfig:
    """Check every name against the game and the strategy registry; fill in the defaults."""
    import strategies

    g = _game(cfg)
    if cfg.design not in DESIGNS:
        raise UserError(f"unknown design {cfg.design!r} (valid: {', '.join(DESIGNS)})")
    if cfg.games < 1:
        raise UserError(f"games must be at least 1, got {cfg.games}")
    if cfg.workers < 0 or cfg.chunk_size < 0:
        raise UserError("workers and chunk_size must be 0 (automatic) or more")
    check_seed(cfg.seed)
    bad = [n for n in cfg.players if n not in g.player_counts]
    if bad or not cfg.players:
        raise UserError(f"{g.slug} plays with {', '.join(map(str, g.player_counts))} players, "
                        f"not {', '.join(map(str, bad))}")
    all_factions = g.faction_slugs()
    if cfg.factions is None:
        cfg.factions = list(all_factions)
    if not cfg.factions:
        raise UserError(f"the faction pool is empty; name at least {max(cfg.players)} "
                        f"factions, or leave factions out to use all of {g.slug}'s")
    unknown = [f for f in cfg.factions if f not in all_factions]
    if unknown:
        raise UserError(f"unknown faction {unknown[0]!r} (valid: {', '.join(all_factions)})")
    if len(set(cfg.factions)) != len(cfg.factions):
        raise UserError("the faction pool names a faction twice")
    if len(cfg.factions) < max(cfg.players):
        # Checked before the design, which would only say that no seating avoids two factions
        # of one colour.
        raise UserError(f"the faction pool ({', '.join(cfg.factions)}) has "
                        f"{len(cfg.factions)} factions, too few for {max(cfg.players)} players; "
                        f"name at least {max(cfg.players)}")
    allowed = g.option_names()
    for key, value in cfg.options.items():
        if key not in allowed:
            raise UserError(f"unknown option {key!r} for {g.slug} (valid: {', '.join(allowed)})")
        if value not in allowed[key]:
            raise UserError(f"option {key} = {value!r} is not one of {', '.join(allowed[key])}")
    if cfg.strategies is None:
        # The baseline and the search bots are left out: a default run shows the scripted
        # bots playing each other at a speed a first run can afford.
        cfg.strategies = strategies.default_strategies(g.slug)
    if not cfg.strategies:
        raise UserError("the strategy pool is empty")
    if cfg.per_seat and (len(cfg.players) != 1 or len(cfg.strategies) != cfg.players[0]):
        raise UserError(f"one strategy per seat needs a single player count and as many "
                        f"strategies as seats (got players {cfg.players}, "
                        f"{len(cfg.strategies)} strategies)")
    for name in cfg.variants:
        if name in strategies.roster(g.slug):
            raise UserError(f"strategy variant {name!r} shadows the built-in strategy {name!r}")
    for name in cfg.strategies:
        # Built once here so a bad name or parameter is a user mistake, not 1,000 failed games.
        strategies.make_strategy(strategy_spec(cfg, name), random.Random(0), g.slug)
    _check_until(cfg)
    _cap_workers(cfg)
    return cfg


# Games between checks when the config does not say: enough that a check (a query over the run)
# and the workers' wait at each boundary cost little, few enough that a run stops within a few
# percent of where it could have. Rounded up to whole design periods (below).
AUTO_BATCH = 500


def until_enabled(cfg: RunConfig) -> bool:
    """Whether the config asks for a run until sure (until.py plays it)."""
    return cfg.until_ci is not None or cfg.until_margin_ci is not None


def _check_until(cfg: RunConfig) -> None:
    """Refuse what cannot be meant; an until run plans `max_games` games (its `games`)."""
    if not until_enabled(cfg):
        given = [k for k in ("max_games", "until_batch") if getattr(cfg, k) is not None]
        if given:
            raise UserError(f"{given[0]} (--{given[0].replace('_', '-')}) belongs to a run until "
                            "sure: give --until-ci or --until-margin-ci too, or --games for a run "
                            "of a fixed size")
        return
    if cfg.until_ci is not None and not 0 < cfg.until_ci < 1:
        raise UserError(f"until_ci (--until-ci) is the widest 95% win-share interval to stop at, "
                        f"a share between 0 and 1 (0.02 is 2 percentage points), got "
                        f"{cfg.until_ci!r}")
    if cfg.until_margin_ci is not None and not 0 < cfg.until_margin_ci < math.inf:
        raise UserError(f"until_margin_ci (--until-margin-ci) is the widest 95% VP-margin "
                        f"interval to stop at, in VP, more than 0; got {cfg.until_margin_ci!r}")
    if cfg.max_games is None:
        raise UserError("a run until sure needs max_games (--max-games): the most games to play "
                        "if the intervals never get that narrow")
    if cfg.max_games < 1:
        raise UserError(f"max_games must be at least 1, got {cfg.max_games}")
    if cfg.until_batch is not None and cfg.until_batch < 1:
        raise UserError(f"until_batch must be at least 1 game, got {cfg.until_batch}")
    cfg.games = cfg.max_games
    if cfg.until_batch is None:
        cfg.until_batch = auto_batch(cfg)


def auto_batch(cfg: RunConfig) -> int:
    """About AUTO_BATCH games, in whole periods of a balanced design: a run then stops where
    every faction has played every seat (and met every strategy) equally often."""
    period = len(cfg.players)
    if cfg.design == "balanced":
        strategies = 1 if cfg.per_seat else len(cfg.strategies or ())
        period *= math.lcm(len(cfg.factions or ()), max(1, strategies))
    return period * math.ceil(AUTO_BATCH / period)


def _game(cfg: RunConfig) -> Any:
    try:
        return get_game(cfg.game, cfg.overrides or None)
    except UserError:
        raise
    except Exception as e:
        if not cfg.overrides:
            raise
        # A value where the game's data has a table (or the reverse) fails inside its loader;
        # the overrides are the user's, so say so rather than show the loader's traceback.
        raise UserError(f"config: [overrides] do not fit {cfg.game}'s data "
                        f"({type(e).__name__}: {e}); an override must keep each table a table"
                        ) from None


def _cap_workers(cfg: RunConfig) -> None:
    # Each worker is a forked process playing a CPU-bound loop: more workers than cores (or than
    # games) only cost memory and forks, never speed.
    cores = os.cpu_count() or 1
    limit = min(cores, math.ceil(cfg.games / cfg.chunk_size) if cfg.chunk_size else cfg.games)
    if cfg.workers > limit:
        if limit == cores:
            why = f"this machine has {cores} core{'s' * (cores > 1)}"
        elif cfg.chunk_size:
            why = f"the run has only {limit} chunk{'s' * (limit > 1)} of games"
        else:
            why = f"the run has only {limit} game{'s' * (limit > 1)}"
        log.warning("warning: %d workers asked for, %d used: %s", cfg.workers, limit, why)
        cfg.workers = limit


def strategy_spec(cfg: RunConfig | dict[str, Any], name: str) -> Any:
    """What play_game takes for strategy `name`: the name, or (base, params) for a variant."""
    variants, game = (cfg["variants"], cfg["game"]) if isinstance(cfg, dict) else (
        cfg.variants, cfg.game)
    if name not in variants:
        return name
    import strategies

    base, params = strategies.variant_spec(name, variants[name], game)
    return (base, params, name)  # the third item makes the bot report the variant's name
