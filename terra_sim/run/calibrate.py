"""Handicap calibration: the starting VP per faction that makes the factions equal (every mean
VP margin 0) under the chosen bots. "How much is each faction worth?" in VP.

Each iteration is an ordinary run (DIR/iter-<k>) whose config carries the handicaps as what-if
overrides of the factions' `start_vp` (the game says where: Game.start_vp_override), so
`terra-sim report` and `compare` work on it. From each run the handicap that would zero every
faction's mean margin over its games is solved for (stats.equalising_handicaps), with an
interval; the next run applies it, to the nearest VP.

Where neither the rules nor any bot lets starting VP change play (Game.vp_affects_play,
Strategy.vp_affects_play), a handicapped game is the same game with shifted scores, so the
first run's solution is exact: one iteration. Elsewhere (Terra Mystica: a power offer costs
VP), play may answer a head start, and the runs go on until every faction's margin interval
(the report's) contains 0, the handicaps settle to the VP, or the round limit.

Every iteration uses the config's seed (common random numbers): iterations differ only in the
handicaps, not in the draws, so each step answers the handicap alone rather than new noise,
and the iteration converges on a fixed sample. The intervals state that sample's own
uncertainty.
"""

from __future__ import annotations

import json
import math
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from terra_sim.core.errors import UserError
from terra_sim.games import get_game
from terra_sim.run.config import RunConfig, from_any, from_dict, strategy_spec, validate

if TYPE_CHECKING:  # polars and the analysis load when a calibration runs, not for --help
    import polars as pl

DEFAULT_ROUNDS = 5


@dataclass
class Iteration:
    k: int
    run_dir: Path
    applied: dict[str, int]  # handicap (VP on top of the faction's own start_vp) in this run
    margin: dict[str, tuple[float, float, float]]  # mean VP margin [95% t], as reported
    estimate: dict[str, tuple[float, float, float]]  # handicap solved for [95%]
    appearances: dict[str, int]
    games: int

    def margins_contain_zero(self) -> bool:
        return all(lo <= 0 <= hi for _, lo, hi in self.margin.values())


@dataclass
class Calibration:
    out_dir: Path
    game: str
    base: dict[str, int]  # each faction's start_vp before any handicap
    exact: bool
    why: str  # why one run is exact, or why it is not
    iterations: list[Iteration] = field(default_factory=list)
    stopped: str = ""
    verified: bool | None = None  # exact + --verify: the handicapped run replayed the first
    files: list[Path] = field(default_factory=list)

    @property
    def final(self) -> Iteration:
        return self.iterations[-1]

    def start_vp(self) -> dict[str, int]:
        """Each faction's starting VP with its handicap, to the nearest VP."""
        # A faction that never played has no handicap: it keeps its own.
        return {f: self.base[f] + (nearest(h) if math.isfinite(h) else 0)
                for f, (h, _, _) in self._table().items()}

    def _table(self) -> dict[str, tuple[float, float, float]]:
        # A verification run replays the first with handicaps: its solution is the same game's,
        # so the first iteration's stands (the second only confirms it).
        it = self.iterations[0] if self.exact else self.final
        return it.estimate


def nearest(x: float) -> int:
    """To the nearest VP, halves away from 0 (round() would take 2.5 to 2 but 3.5 to 4)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def _merge(into: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(into)
    for k, v in extra.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _config(config_or_path: Any, overrides: dict[str, Any]) -> RunConfig:
    cfg = from_dict({k: v for k, v in overrides.items() if v is not None},
                    base=from_any(config_or_path))
    cfg.out, cfg.report = None, False
    return validate(cfg)


def _exactness(cfg: RunConfig, g: Any) -> tuple[bool, str]:
    import strategies

    why = []
    if getattr(g, "vp_affects_play", True):
        why.append(f"{cfg.game}'s rules let VP change play (Game.vp_affects_play)")
    for name in cfg.strategies or ():
        bot = strategies.make_strategy(strategy_spec(cfg, name), random.Random(0), cfg.game)
        if getattr(bot, "vp_affects_play", True):
            why.append(f"bot {name} may play differently with another score "
                       "(Strategy.vp_affects_play)")
    if why:
        return False, "; ".join(why)
    return True, (f"neither {cfg.game}'s rules nor its bots ({', '.join(cfg.strategies or ())}) "
                  "let starting VP change play: a handicapped game is the same game with "
                  "shifted scores, so one run gives the exact handicaps")


def calibrate(config_or_path: RunConfig | dict | str | Path | None, out: str | Path, *,
              rounds: int = DEFAULT_ROUNDS, verify: bool = False, progress: bool = False,
              **overrides: Any) -> Calibration:
    """Calibrate handicaps for the run `config_or_path` describes (RunConfig fields may be
    overridden: games=, until_ci=, workers=, ...); runs and results go to `out`.

    Running it again on the same folder continues it: each iteration's run resumes, and the
    handicaps derive from the runs alone. Raises UserError for mistakes."""
    from terra_sim.run.runner import run_tournament

    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise UserError(f"rounds must be at least 1, got {rounds!r}")
    out_dir = Path(out)
    if not str(out).strip():
        raise UserError("--out is empty: name the calibration folder")
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"{out_dir} is a file, not a calibration folder; choose another --out")
    cfg = _config(config_or_path, overrides)
    g = get_game(cfg.game, cfg.overrides or None)
    if not callable(getattr(g, "start_vp_override", None)):
        raise UserError(f"{cfg.game} keeps no starting VP in its data (its Game answers no "
                        "start_vp_override), so it cannot be calibrated")
    factions = list(cfg.factions or ())
    base = {f: g.start_vp(f) for f in factions}
    exact, why = _exactness(cfg, g)
    if verify and not exact:
        raise UserError(f"--verify replays a one-run (exact) calibration with its handicaps; "
                        f"this one iterates, and its last run is the check ({why})")
    result = Calibration(out_dir, cfg.game, base, exact, why)
    applied = {f: 0 for f in factions}
    last = 2 if exact and verify else 1 if exact else rounds
    for k in range(1, last + 1):
        handicap = [g.start_vp_override(f, base[f] + h) for f, h in applied.items() if h]
        over = cfg.overrides
        for fragment in handicap:
            over = _merge(over, fragment)
        run_cfg = from_dict({"overrides": over, "out": str(out_dir / f"iter-{k}")}, base=cfg)
        run = run_tournament(run_cfg, progress=progress)
        it = _measure(k, run.run_dir, applied, factions)
        result.iterations.append(it)
        nxt = {f: nearest(it.estimate[f][0]) if math.isfinite(it.estimate[f][0]) else applied[f]
               for f in factions}
        if exact and k == 1 and not verify:
            result.stopped = "exact: one run gives the handicaps"
        elif exact and k == 2:
            result.verified = _replays(result.iterations[0], it)
            result.stopped = ("exact, and verified: the handicapped run played the same games, "
                              "each score moved by its faction's handicap" if result.verified
                              else "exact by declaration, but the handicapped run did NOT "
                              "replay the first: a rule or a bot reads VP after all")
        elif not exact and it.margins_contain_zero():
            result.stopped = (f"every faction's 95% VP-margin interval contains 0 after "
                              f"{k} iteration{'s' * (k > 1)}")
        elif not exact and nxt == applied:
            result.stopped = ("the handicaps settled to the nearest VP: the next run would "
                              "repeat this one (same seed, same handicaps)")
        elif not exact and k == rounds:
            result.stopped = (f"round limit ({rounds}) reached before every faction's VP-margin "
                              "interval contained 0")
        if result.stopped:
            break
        applied = nxt
    _write(result, cfg)
    return result


def _measure(k: int, run_dir: Path, applied: dict[str, int], factions: list[str]) -> Iteration:
    import polars as pl

    from terra_sim.analysis import stats, tables

    run = tables.open_run(run_dir)
    ft = tables.faction_table(run)
    margin = {f: (math.nan, math.nan, math.nan) for f in factions}
    appearances = dict.fromkeys(factions, 0)
    for r in ft.iter_rows(named=True):
        margin[r["faction"]] = (r["margin_mean"], r["margin_lo"], r["margin_hi"])
        appearances[r["faction"]] = r["games"]
    p = run.players.select("game_id", "faction", "margin").collect()
    index = {f: i for i, f in enumerate(factions)}
    h, lo, hi = stats.equalising_handicaps(
        p["game_id"].to_numpy(), p["faction"].replace_strict(index, return_dtype=pl.Int64)
        .to_numpy(), p["margin"].to_numpy(), len(factions))
    estimate = {f: (applied[f] + float(h[i]), applied[f] + float(lo[i]),
                    applied[f] + float(hi[i])) for f, i in index.items()}
    games = int(p["game_id"].n_unique())
    return Iteration(k, run_dir, dict(applied), margin, estimate, appearances, games)


def _replays(first: Iteration, second: Iteration) -> bool:
    """Whether every player of the handicapped run scored its first-run VP plus its handicap."""
    import polars as pl

    from terra_sim.analysis import tables

    a = tables.open_run(first.run_dir).players.select("game_id", "seat", "faction", "vp")
    b = tables.open_run(second.run_dir).players.select("game_id", "seat", "vp")
    shift = pl.DataFrame({"faction": list(second.applied), "h": list(second.applied.values())},
                         schema={"faction": pl.Utf8, "h": pl.Int64})
    joined = (a.join(b, on=["game_id", "seat"], suffix="_h")
              .join(shift.lazy(), on="faction", how="left").collect())
    rows = a.select(pl.len()).collect().item()
    return joined.height == rows and bool(
        (joined["vp_h"] == joined["vp"] + joined["h"].fill_null(0)).all())


# --- output ---------------------------------------------------------------------------------------


def _fmt(x: float, digits: int = 1) -> str:
    return "n/a" if not math.isfinite(x) else f"{x:+.{digits}f}"


def _ci(t: tuple[float, float, float], digits: int = 1) -> str:
    x, lo, hi = t
    if not math.isfinite(x):
        return "n/a"
    return f"{_fmt(x, digits)} [{_fmt(lo, digits)}, {_fmt(hi, digits)}]"


def _table(result: Calibration) -> pl.DataFrame:
    import polars as pl

    est = result._table()
    start = result.start_vp()
    final = result.final
    rows = [{"faction": f, "handicap": h, "lo": lo, "hi": hi, "start_vp": start[f],
             "base_start_vp": result.base[f], "applied_last": final.applied[f],
             "margin_last": final.margin[f][0], "margin_lo": final.margin[f][1],
             "margin_hi": final.margin[f][2], "appearances_last": final.appearances[f],
             "iterations": len(result.iterations)}
            for f, (h, lo, hi) in est.items()]
    return pl.DataFrame(rows).sort("handicap", descending=True, nulls_last=True)


def _iterations(result: Calibration) -> pl.DataFrame:
    import polars as pl

    rows = [{"iteration": it.k, "run": str(it.run_dir), "games": it.games, "faction": f,
             "applied": it.applied[f], "margin": it.margin[f][0], "margin_lo": it.margin[f][1],
             "margin_hi": it.margin[f][2], "estimate": it.estimate[f][0],
             "estimate_lo": it.estimate[f][1], "estimate_hi": it.estimate[f][2],
             "appearances": it.appearances[f]}
            for it in result.iterations for f in it.applied]
    return pl.DataFrame(rows)


_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml(tree: dict[str, Any], path: tuple[str, ...] = ()) -> list[str]:
    """The overrides as TOML tables ([overrides.<file>...] key = value), leaves last."""
    def key(k: str) -> str:
        return k if _BARE.match(k) else json.dumps(k)

    leaves = [f"{key(k)} = {json.dumps(v)}" for k, v in tree.items() if not isinstance(v, dict)]
    out = [f"[{'.'.join(map(key, path))}]", *leaves, ""] if leaves else []
    for k, v in tree.items():
        if isinstance(v, dict):
            out += _toml(v, (*path, k))
    return out


def _write(result: Calibration, cfg: RunConfig) -> None:
    from terra_sim.analysis.files import writing

    out = result.out_dir
    with writing(out):
        out.mkdir(parents=True, exist_ok=True)
    g = get_game(cfg.game, cfg.overrides or None)
    table, its = _table(result), _iterations(result)
    for name, df in (("calibration.csv", table), ("iterations.csv", its)):
        with writing(out / name):
            df.write_csv(out / name)
        result.files.append(out / name)
    overrides: dict[str, Any] = {}
    for f, vp in result.start_vp().items():
        if vp != result.base[f]:
            overrides = _merge(overrides, g.start_vp_override(f, vp))
    toml = ["# The calibrated handicaps as what-if overrides: add these tables to a run's config",
            f"# (terra-sim calibrate, {out}).", "", *_toml({"overrides": overrides})]
    with writing(out / "handicap.toml"):
        (out / "handicap.toml").write_text("\n".join(toml), encoding="utf-8")
    result.files.append(out / "handicap.toml")
    from terra_sim.analysis import plots

    result.files.append(plots.calibration(its, out / "convergence.png"))
    with writing(out / "calibration.md"):
        (out / "calibration.md").write_text(_markdown(result, cfg, table), encoding="utf-8")
    result.files.append(out / "calibration.md")
    record = {"game": result.game, "exact": result.exact, "why": result.why,
              "stopped": result.stopped, "verified": result.verified,
              "handicaps": table.to_dicts(), "iterations": its.to_dicts(),
              "config": json.loads(json.dumps(cfg.content()))}
    with writing(out / "calibration.json"):
        (out / "calibration.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    result.files.append(out / "calibration.json")


def _markdown(result: Calibration, cfg: RunConfig, table: pl.DataFrame) -> str:
    f = result.final
    n_games = f"{f.games:,} games" + ("" if len(result.iterations) == 1 else
                                      " in the last run")
    lines = [
        f"# Handicap calibration: {result.game}", "",
        f"How many VP each faction is worth, played by {', '.join(cfg.strategies or ())} "
        f"({', '.join(map(str, cfg.players))} players, {n_games}, seed {cfg.seed}): the "
        "starting VP to add (or, negative, to take away) so that every faction's mean VP "
        "margin is 0. A handicap is relative: adding the same number to every faction changes "
        "no margin.", "",
        f"**{'Exact' if result.exact else 'Iterated'}.** {result.why[0].upper()}"
        f"{result.why[1:]}.", "",
        f"**Stopped:** {result.stopped}.", "",
        "| faction | handicap [95%] | start VP | VP margin in the last run [95% t] |",
        "|---|---|---|---|"]
    est = result._table()
    for r in table.iter_rows(named=True):
        fac = r["faction"]
        lines.append(f"| {fac} | {_ci(est[fac])} | {r['start_vp']} (printed "
                     f"{r['base_start_vp']}) | {_ci(f.margin[fac])} |")
    lines += ["", "## Iterations", "",
              "| iteration | run | games | handicaps applied | widest margin interval | all "
              "margin intervals contain 0 |", "|---|---|---|---|---|---|"]
    for it in result.iterations:
        widths = {fac: hi - lo for fac, (_, lo, hi) in it.margin.items()}
        fac = max(sorted(widths), key=lambda x: widths[x] if math.isfinite(widths[x]) else -1)
        applied = ", ".join(f"{a} {h:+d}" for a, h in it.applied.items() if h) or "none"
        lines.append(f"| {it.k} | `{it.run_dir}` | {it.games:,} | {applied} | "
                     f"{widths[fac]:.2f} VP ({fac}) | "
                     f"{'yes' if it.margins_contain_zero() else 'no'} |")
    lines += [
        "", "![convergence](convergence.png)", "", "## Method", "",
        "A handicap h changes a player's VP margin (VP minus its game's mean VP) by its "
        "faction's h less the mean h of the game's factions, so the handicaps that zero every "
        "faction's mean margin over a run's games solve a linear system (a least-squares fit "
        "with a fixed effect per game and per faction); they sum to 0, so 0 is the average "
        "faction. With more factions than seats a handicap is larger than minus the mean "
        "margin: a faction's own handicap also raises the mean of its games. The interval is a "
        "95% normal interval from the game-clustered (sandwich) variance. Each iteration is an "
        "ordinary run in its own folder, with the handicaps in its config as overrides of the "
        "factions' starting VP (`terra-sim report` and `compare` work on it), and the config's "
        "seed, so that iterations differ in the handicaps alone.", "",
        "`handicap.toml` holds the handicaps (to the nearest VP) as override tables for a run "
        "config; `calibration.csv` the table, `iterations.csv` every iteration's numbers.", ""]
    return "\n".join(lines)
