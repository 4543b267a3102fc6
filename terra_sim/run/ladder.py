"""The ladder: one plan of games played at rising bot strength, a run per rung, to see whether the
faction ranking still moves as the bots get stronger (analysis/ladder.py measures it).

A config's `[ladder]` section lists the rungs, weakest bots first; each names the strategy pool
every seat of that rung draws from, by the names a run's pool takes (built-in bots, and the
config's `[strategies.<variant>]` tables for bots with parameters):

    [ladder]
    rungs = [
      { name = "random", strategies = ["random"] },
      { name = "scripted", strategies = ["greedy", "expander"] },
      { name = "mcts-100", strategies = ["mcts-100"] },
    ]

    [strategies.mcts-100]
    base = "mcts"
    simulations = 100

Without one, the rungs are `random`, the game's scripted mix before its tuning (when it has
tuned weights) and after, and the search bot at its game's default budget and at twice it.

Every rung is an ordinary run (OUT/<rung>) of the same config but for its strategy pool: the
same master seed, player counts, design and faction pool. The plan deals a game's factions and
seats before it draws its bots, and its setup seed from the master seed and its number, so game
i of every rung deals the same factions to the same seats from the same seed, and the rungs
differ in bot strength alone. Running the same ladder again resumes each rung's run where it
stopped (a finished rung plays nothing).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from terra_sim.core.errors import UserError
from terra_sim.run.config import RunConfig, from_any, from_dict, read_toml, validate

if TYPE_CHECKING:  # polars, the runner and the analysis load when a ladder runs, not for --help
    import polars as pl

    from terra_sim.analysis.ladder import Ladder
    from terra_sim.run.runner import RunResult

SEARCH_BOT = "mcts"
# The search bot's simulations per decision at the two default top rungs, as multiples of its
# game's default budget (60 in the default game, 6 two rounds deep in the slowest): the
# default and twice it. Below the default a search may not try every root move once. A 4-player
# game of four default seats takes about 1 s of one core in the default game and about 10 s in
# the slowest shipped one: a few hundred games per rung fit in minutes on a few cores.
BUDGET_MULTIPLES = (1, 2)
# A rung's name is its run's folder name.
RUNG_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
RUNG_KEYS = ("name", "strategies")


@dataclass(frozen=True)
class Rung:
    name: str
    strategies: tuple[str, ...]  # the pool every seat of the rung draws from


@dataclass
class LadderResult:
    out_dir: Path
    rungs: list[Rung]
    runs: list[RunResult]  # one per rung, in ladder order
    ladder: Ladder
    files: list[Path] = field(default_factory=list)

    @property
    def main_file(self) -> Path:
        return self.out_dir / "ladder.md"


def _section(config_or_path: RunConfig | dict | str | Path | None) -> tuple[RunConfig, Any]:
    """The run config and the `[ladder]` section (None when there is none)."""
    if config_or_path is None or isinstance(config_or_path, RunConfig):
        return from_any(config_or_path), None
    data = dict(config_or_path) if isinstance(config_or_path, dict) else read_toml(config_or_path)
    section = data.pop("ladder", None)
    return from_dict(data), section


def rungs_from(section: Any) -> list[Rung]:
    """The rungs of a `[ladder]` section, checked for shape; their strategy names are checked
    when each rung's run config is validated."""
    if not isinstance(section, dict):
        raise UserError(f"config: [ladder] must be a table holding rungs = [...], got "
                        f"{section!r}")
    extra = sorted(set(section) - {"rungs"})
    if extra:
        raise UserError(f"config: [ladder] holds rungs = [...] only, not {extra[0]!r}")
    rungs = section.get("rungs")
    if not isinstance(rungs, list) or len(rungs) < 2:
        got = "none" if not rungs else f"{len(rungs)}" if isinstance(rungs, list) else \
            repr(rungs)
        raise UserError(f"config: [ladder] rungs must list at least 2 rungs, weakest bots first, "
                        f"like {{ name = \"random\", strategies = [\"random\"] }}; got {got}")
    out = []
    for i, rung in enumerate(rungs, start=1):
        if not isinstance(rung, dict):
            raise UserError(f"config: ladder rung {i} must be a table like {{ name = \"random\", "
                            f"strategies = [\"random\"] }}, got {rung!r}")
        extra = sorted(set(rung) - set(RUNG_KEYS))
        missing = [k for k in RUNG_KEYS if k not in rung]
        if extra or missing:
            raise UserError(f"config: ladder rung {i} takes name and strategies only"
                            + (f"; unknown key {extra[0]!r}" if extra else
                               f"; it lacks {missing[0]}"))
        name, pool = rung["name"], rung["strategies"]
        if not isinstance(name, str) or not RUNG_NAME.fullmatch(name):
            raise UserError(f"config: ladder rung {i}'s name {name!r} names its run's folder: "
                            "use letters, digits, '-', '_' and '.', starting with a letter or "
                            "digit")
        if isinstance(pool, str):  # as a run's pool may be: "greedy,expander"
            pool = [p.strip() for p in pool.split(",") if p.strip()]
        if not isinstance(pool, list) or not all(isinstance(p, str) for p in pool):
            raise UserError(f"config: ladder rung {name!r}: strategies must be a list of names, "
                            f"got {pool!r}")
        if not pool:
            raise UserError(f"config: ladder rung {name!r} names no strategies")
        out.append(Rung(name, tuple(pool)))
    seen: set[str] = set()
    for r in out:
        if r.name in seen:
            raise UserError(f"config: two ladder rungs are named {r.name!r}; each names its "
                            "run's folder")
        seen.add(r.name)
    return out


def default_rungs(cfg: RunConfig) -> list[Rung]:
    """Random play, the game's scripted mix (when it has one; untuned, then tuned, when it has
    tuned weights) and the search bot at default_budgets(game), as variants added to `cfg`."""
    import strategies
    from strategies.weighted import WeightedStrategy

    scripted = strategies.default_strategies(cfg.game)
    rungs = [Rung("random", ("random",))]
    untuned = []
    for n in scripted:
        cls = strategies.resolve(n, cfg.game)
        if issubclass(cls, WeightedStrategy) and cls.start_weights() != cls.start_weights(
                tuned=False):
            untuned.append(_variant(cfg, f"{n}-untuned", {"base": n, "tuned": False},
                                    f"{n} with its untuned weights"))
        else:
            untuned.append(n)
    if untuned != scripted:  # the scripted bots before their tuning: the rung below them
        rungs.append(Rung("untuned", tuple(untuned)))
    if scripted != ["random"]:
        rungs.append(Rung("scripted", tuple(scripted)))
    for budget in default_budgets(cfg.game):
        rungs.append(Rung(f"{SEARCH_BOT}-{budget}", (_variant(
            cfg, f"{SEARCH_BOT}-{budget}", {"base": SEARCH_BOT, "simulations": budget},
            f"the search bot at {budget} simulations"),)))
    return rungs


def default_budgets(game: str) -> list[int]:
    """The search bot's budgets at the default ladder's top rungs for `game`."""
    from strategies.search import SearchStrategy
    from terra_sim.games import game_bots

    budget = SearchStrategy.defaults(game_bots(game))["simulations"]
    return [k * budget for k in BUDGET_MULTIPLES]


def _variant(cfg: RunConfig, name: str, table: dict[str, Any], what: str) -> str:
    if cfg.variants.setdefault(name, table) != table:
        raise UserError(f"config: the default ladder's rung bot {name!r} is {what}, but "
                        f"[strategies.{name}] defines another bot; rename that variant or give "
                        "a [ladder] section")
    return name


def _plan_key(cfg: RunConfig, rungs: list[Rung]) -> str:
    """A short hash of what the ladder plays: the default folder's name, so that the same
    ladder finds its folder again and another ladder gets its own."""
    content = {k: v for k, v in cfg.content().items() if k not in ("strategies", "per_seat")}
    text = json.dumps({"content": content, "rungs": [[r.name, list(r.strategies)]
                                                     for r in rungs]}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def plan(config_or_path: RunConfig | dict | str | Path | None,
         **overrides: Any) -> tuple[Path, list[Rung], list[RunConfig]]:
    """The ladder's folder, its rungs and each rung's validated run config, before anything is
    played: a mistake in the last rung is found before the first rung plays. `overrides` are
    RunConfig fields (games=, seed=, out= for the ladder's folder, ...)."""
    cfg, section = _section(config_or_path)
    cfg = from_dict({k: v for k, v in overrides.items() if v is not None}, base=cfg)
    if cfg.strategies is not None or cfg.per_seat:
        raise UserError("config: a ladder's rungs choose the bots; drop the strategy pool "
                        "(strategies, or pool/seats in [strategies]) and name the bots in "
                        "[ladder] rungs ([strategies.<variant>] tables stay, for the rungs to "
                        "name)")
    rungs = default_rungs(cfg) if section is None else rungs_from(section)
    # Game, players, factions: mistakes of no one rung, told once. The rungs derive from the
    # checked config (its workers capped to the cores: the warning comes once, too).
    base = validate(from_dict({}, base=cfg))
    out_dir = Path(base.out) if base.out else \
        Path("runs") / f"ladder-{base.game}-{_plan_key(base, rungs)}"
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"{out_dir} is a file, not a ladder folder; choose another --out")
    configs = []
    for r in rungs:
        rung_cfg = from_dict({"strategies": list(r.strategies), "out": str(out_dir / r.name)},
                             base=base)
        try:
            configs.append(validate(rung_cfg))
        except UserError as e:
            raise UserError(f"ladder rung {r.name!r}: {e}") from None
    return out_dir, rungs, configs


def run_ladder(config_or_path: RunConfig | dict | str | Path | None = None, *,
               progress: Callable[[str], None] | None = None, force: bool = False,
               **overrides: Any) -> LadderResult:
    """Play (or resume) every rung of the ladder `config_or_path` describes (a TOML path, a dict
    shaped like one, a RunConfig for the default rungs, or None for the default run), then
    write ladder.md, ladder.csv and ladder.png to its folder. `progress` hears a line as each
    rung starts, and turns on the runs' progress bars. `force`: resume a rung's run although
    the code or data changed. Raises UserError for mistakes and RunInterrupted on Ctrl-C."""
    from terra_sim.analysis import ladder as analysis
    from terra_sim.run.runner import run_tournament

    out_dir, rungs, configs = plan(config_or_path, **overrides)
    runs = []
    for i, (rung, cfg) in enumerate(zip(rungs, configs, strict=True), start=1):
        if progress:
            progress(f"rung {i} of {len(rungs)}, {rung.name} ({', '.join(rung.strategies)}): "
                     f"{cfg.out}")
        runs.append(run_tournament(cfg, progress=progress is not None, force=force))
    players = {r.name: run.scan("players") for r, run in zip(rungs, runs, strict=True)}
    games = {r.name: run.scan("games") for r, run in zip(rungs, runs, strict=True)}
    analysis.check_shared_deals(players, games)
    # Seeded by the ladder's master seed: the same ladder writes the same report.
    found = analysis.analyse(players, seed=configs[0].seed)
    result = LadderResult(out_dir, rungs, runs, found)
    _write(result, configs[0])
    return result


# --- output ---------------------------------------------------------------------------------------


def _write(result: LadderResult, cfg: RunConfig) -> None:
    from terra_sim.analysis import plots
    from terra_sim.analysis.files import writing

    out = result.out_dir
    csv = out / "ladder.csv"
    with writing(csv):
        result.ladder.factions.write_csv(csv)
    png = plots.ladder(result.ladder.factions, result.ladder.rungs, out / "ladder.png")
    md = out / "ladder.md"
    with writing(md):
        md.write_text(_markdown(result, cfg), encoding="utf-8")
    result.files += [md, csv, png]


def _rho(r: dict[str, Any]) -> str:
    from terra_sim.analysis.render import num_ci

    return num_ci(r["rho"], r["rho_lo"], r["rho_hi"], 2)


def _rank(r: dict[str, Any]) -> str:
    return str(r["rank"]) if r["rank_lo"] == r["rank_hi"] else \
        f"{r['rank']} [{r['rank_lo']}-{r['rank_hi']}]"


def rank_table(found: Ladder) -> pl.DataFrame:
    """Factions down (strongest at the top rung first), rungs across: each faction's rank at
    each rung with its 95% bootstrap interval."""
    import polars as pl

    top = found.factions.filter(pl.col("step") == len(found.rungs))
    order = top.sort("rank")["faction"].to_list()
    order += sorted(set(found.factions["faction"].to_list()) - set(order))
    cells = {(r["rung"], r["faction"]): _rank(r) for r in found.factions.iter_rows(named=True)}
    return pl.DataFrame({"faction": order, **{
        rung: [cells.get((rung, f), "-") for f in order] for rung in found.rungs}})


def verdict_table(found: Ladder) -> pl.DataFrame:
    """The factions whose verdict changes between consecutive rungs, down; rungs across: each
    one's verdict at each rung."""
    import polars as pl

    moved = sorted(set(found.changes["faction"].to_list()))
    cells = {(r["rung"], r["faction"]): r["verdict"] for r in found.factions.iter_rows(named=True)}
    return pl.DataFrame({"faction": moved, **{
        rung: [cells.get((rung, f), "-") for f in moved] for rung in found.rungs}},
        schema={c: pl.Utf8 for c in ["faction", *found.rungs]})


def _markdown(result: LadderResult, cfg: RunConfig) -> str:
    import polars as pl

    from terra_sim.analysis import ladder as analysis
    from terra_sim.analysis.render import md_table, num_ci

    found = result.ladder
    runs = {r.name: run for r, run in zip(result.rungs, result.runs, strict=True)}
    planned = cfg.games
    lines = [
        f"# Faction ladder: {cfg.game}", "",
        "Does the faction ranking still move as the bots get stronger? One plan of "
        f"{planned:,} games ({', '.join(map(str, cfg.players))} players, seed {cfg.seed}, "
        f"{cfg.design} design) played at {len(found.rungs)} rungs of bot strength, weakest "
        "first: game i deals the same factions to the same seats from the same setup seed in "
        f"every rung, so the rungs differ in the bots alone. {found.games:,} games were "
        "finished in every rung and are analysed.", "",
        f"**Conclusion:** {found.conclusion}.", "",
        "## Rungs", "",
        md_table(pl.DataFrame({
            "rung": [r.name for r in result.rungs],
            "bots (every seat draws from these)": [", ".join(r.strategies)
                                                   for r in result.rungs],
            "games finished": [f"{runs[r.name].manifest['finished_games']:,}"
                               for r in result.rungs],
            "games lost to errors": [f"{runs[r.name].manifest['failed_games']:,}"
                                     for r in result.rungs],
            "run": [f"`{runs[r.name].run_dir}`" for r in result.rungs]})), ""]
    used = {s for r in result.rungs for s in r.strategies if s in cfg.variants}
    if used:
        lines += ["Variants: " + "; ".join(
            f"{name} = {cfg.variants[name]['base']} with "
            + (", ".join(f"{k} = {v}" for k, v in cfg.variants[name].items() if k != "base")
               or "its defaults") for name in sorted(used)) + ".", ""]
    lines += [
        "## Rank correlation between rungs", "",
        "Spearman's rho between the factions' orders by mean VP margin at consecutive rungs "
        "(1: the same order). The top two rungs' pair decides the conclusion: the ranking has "
        f"settled when the lower bound of its interval is at least {analysis.SETTLED_RHO}.", "",
        md_table(pl.DataFrame({
            "rungs": [f"{r['rung_a']} -> {r['rung_b']}"
                      for r in found.correlations.iter_rows(named=True)],
            "factions": [str(r["factions"]) for r in found.correlations.iter_rows(named=True)],
            "Spearman rho [95% bootstrap]": [_rho(r) for r in
                                             found.correlations.iter_rows(named=True)],
            "decides": ["the conclusion" if r["top_two"] else ""
                 for r in found.correlations.iter_rows(named=True)]})), "",
        "## Verdicts that change", ""]
    if found.changes.height:
        lines += ["Each faction's margin verdict at each rung (the report's: its VP margin "
                  "tested against 0, Holm-corrected across the rung's factions), for the "
                  "factions whose verdict differs between two consecutive rungs.", "",
                  md_table(verdict_table(found)), ""]
    else:
        lines += ["No faction's margin verdict changes between consecutive rungs.", ""]
    lines += ["## Rank by rung", "",
              "Each faction's rank by mean VP margin (1 = strongest) at each rung, with its 95% "
              "bootstrap interval where it is not one rank; strongest at the top rung first.",
              "", md_table(rank_table(found)), "", "![margin by rung](ladder.png)", "",
              "## Ranking at each rung", ""]
    for r in result.rungs:
        rows = found.factions.filter(pl.col("rung") == r.name).sort("rank")
        lines += [f"**{r.name}** (bots: {', '.join(r.strategies)})", "", md_table(rows.select(
            pl.col("rank").cast(pl.Utf8), "faction", pl.col("games").cast(pl.Utf8),
            pl.struct("margin", "margin_lo", "margin_hi").map_elements(
                lambda x: num_ci(x["margin"], x["margin_lo"], x["margin_hi"], signed=True),
                return_dtype=pl.Utf8).alias("VP margin [95% bootstrap]"),
            pl.struct("rank", "rank_lo", "rank_hi").map_elements(
                lambda x: f"{x['rank_lo']}-{x['rank_hi']}", return_dtype=pl.Utf8)
            .alias("rank [95% bootstrap]"),
            "verdict")), ""]
    lines += [
        "## Method", "",
        "A faction's **VP margin** is its VP minus the mean VP of its game; its strength at a "
        "rung is its mean margin over the games analysed. Intervals are 95% intervals from "
        f"{found.method}: game i of two rungs shares a deal, so the rungs' games are paired, "
        "and resampling them together keeps the deal's luck out of the correlations' "
        "intervals. Margin intervals are percentile intervals; rank intervals rank the "
        "factions in each resample. Rho's intervals are percentile intervals too, and lean "
        "low: noise in the margins pulls a rank correlation toward 0, and each resample adds "
        "its own, so the resamples' rho sits below the estimate. 'Settled' is therefore a "
        "cautious verdict, and more games per rung narrow the intervals (the ladder's "
        "command with a larger --games plays only each rung's new games). Verdicts "
        "are the report's margin verdicts: a t-test of the mean margin against 0, corrected "
        f"by Holm across the rung's factions at alpha {analysis.ALPHA}, so an interval just "
        "clear of 0 can still be 'consistent with fair'.", "",
        "Bot-versus-bot balance says how factions fare for these bots; the ladder asks whether "
        "that answer still depends on how strong the bots are. Each rung is an ordinary run, "
        "whose full balance report `terra-sim report <run>` writes.", "",
        "`ladder.csv` holds a row per faction and rung: mean margin and its interval, rank and "
        "its interval, verdict.", ""]
    return "\n".join(lines)
