"""The balance report of one run: tables (CSV), plots (PNG), report.md, a self-contained
report.html and a short terminal summary, the answer first. `build_report` is the entry point."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from terra_sim.analysis import course, headline, interaction, ranking, stats, tables
from terra_sim.analysis.files import raise_if_damaged, writing
from terra_sim.analysis.render import (  # compare.py still imports these from here
    FORMATS,
    Section,
    is_missing,
    num_ci,
    parse_formats,
    pct,
    pct_ci,
    pp,
    pval,
    write_outputs,
)
from terra_sim.core.errors import UserError
from terra_sim.store import rundir, schema

Progress = Callable[[str], None]


@dataclass
class ReportResult:
    out_dir: Path
    files: list[Path]
    summary: str  # the terminal summary: the run, the headline, the seats, the caveat
    headline: str = ""  # the verdict sentence and table, as the report's box shows them

    @property
    def main_file(self) -> Path | None:
        """The file to open: report.html, else report.md."""
        for name in ("report.html", "report.md"):
            if self.out_dir / name in self.files:
                return self.out_dir / name
        return None


def prepare_out(out: str | Path | None, default_name: str) -> Path:
    default = Path("reports") / default_name
    if isinstance(out, str) and not out.strip():
        # Path("") is the current folder: an empty --out would scatter the report there.
        raise UserError(f"--out is empty: name the output folder, or omit it for the default "
                        f"{default}/")
    out_dir = Path(out) if out is not None else default
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"output {str(out_dir)!r} exists and is not a folder")
    for sub in ("plots", "tables"):
        with writing(out_dir / sub):
            (out_dir / sub).mkdir(parents=True, exist_ok=True)
    return out_dir


def save_csv(df: pl.DataFrame, out_dir: Path, name: str, files: list[Path]) -> None:
    p = out_dir / "tables" / f"{name}.csv"
    with writing(p):
        df.write_csv(p)
    files.append(p)


# --- the report's sections ------------------------------------------------------------------


def caveat_text(strategies: list[str]) -> str:
    if strategies == ["human"]:  # terra-sim import
        return ("These are real games played by people and imported from their logs: they "
                "show how the factions fared in these games, between players of whatever "
                "skill they had; a few games say little about a faction's strength.")
    bots = ", ".join(strategies) if strategies else "(none recorded)"
    return ("These results describe how the factions fare when played by these bots "
            f"({bots}), not how they fare in human play. Bots have blind spots that people do "
            "not (and the reverse); treat a verdict here as a lead to check, not a ruling on "
            "the game.")


def _run_details(run: tables.Run, ov: dict) -> Section:
    m = run.manifest
    counts = ", ".join(f"{n} players: {g:,} games" for n, g in ov["games_by_count"].items())
    items = [
        ("run directory", f"`{run.path}`"),
        ("game", m.get("game", "?")),
        ("games analysed", f"{ov['games']:,} ({counts or 'none'})"),
        ("games planned / finished", f"{m.get('planned_games', '?')} / "
                                     f"{m.get('finished_games', '?')}"),
        ("games lost to errors", f"{ov['errors']:,}"),
        ("factions that played", ", ".join(ov["factions"]) or "none"),
        ("strategies (bots) that played", ", ".join(ov["strategies"]) or "none"),
        ("master seed", m.get("master_seed", "?")),
        ("versions", f"terra-sim {m.get('package_version', '?')}, "
                     f"engine {m.get('engine_version', '?')}"),
        ("data set", f"{m.get('data_set', '?')} (hash {m.get('data_hash', '?')})"),
        ("what-if overrides", json.dumps(m.get("overrides") or {}, sort_keys=True)
         if m.get("overrides") else "none"),
        ("data marked approximate", "; ".join(m.get("approximate_data") or []) or "none"),
        ("started / finished", f"{m.get('started_at', '?')} / {m.get('finished_at', '?')}"),
        ("wall time", f"{m['wall_s']:.1f} s" if isinstance(m.get("wall_s"), int | float)
         else "?"),
    ]
    # A list, not a table: lists of factions and bots are long and would wrap in a cell.
    return Section("Run", items=[f"**{k}**: {v}" for k, v in items])


def _context(run: tables.Run, ov: dict) -> str:
    counts = ", ".join(f"{g:,} with {n} players" for n, g in ov["games_by_count"].items())
    errors = f", {ov['errors']:,} lost to errors" if ov["errors"] else ""
    return (f"{ov['games']:,} games ({counts}){errors}; bots: "
            f"{', '.join(ov['strategies']) or 'none recorded'}. Run details are at the end.")


def _approximate(run: tables.Run) -> list[str]:
    # Results on invented data must say so before anything else is read.
    approx = run.manifest.get("approximate_data") or []
    return [f"**Data marked approximate:** {'; '.join(approx)}."] if approx else []


def _until(m: dict) -> list[Section]:
    """Why a run until sure stopped, and the widest intervals at each check."""
    u = m.get("until")
    if not u:
        return []
    text = [u.get("reason") or (
        f"A run until sure, not finished: {u.get('games', 0):,} games checked so far (resume "
        "it to go on)."),
        f"The run played its plan in batches of {u['batch']:,} games, checking after each "
        "batch, on the games played so far, the widths the Factions table below shows; so it "
        "holds the first games of its plan, as many on any number of workers."]

    def width(x, pp: bool) -> str:
        return "n/a" if x is None else f"{100 * x:.2f} pp" if pp else f"{x:.2f} VP"

    checks = u.get("checks") or []
    df = pl.DataFrame({
        "games": [f"{c['games']:,}" for c in checks],
        "widest win-share interval": [f"{width(c['widest_win'], True)} "
                                      f"({c['widest_win_faction']})" for c in checks],
        "widest VP-margin interval": [f"{width(c['widest_margin'], False)} "
                                      f"({c['widest_margin_faction']})" for c in checks]},
        schema={c: pl.Utf8 for c in ("games", "widest win-share interval",
                                     "widest VP-margin interval")})
    return [Section("Why the run stopped", text, [("Widest 95% intervals at each check", df)])]


def _outcome_display(df: pl.DataFrame, keys: list[str], label_keys: dict[str, str],
                     correction: str) -> pl.DataFrame:
    cname = stats.CORRECTIONS[correction][0]
    cols = [label_keys[k] for k in keys] + [
        "games", "win share [95% Wilson]", "expected", f"p ({cname})", "VP margin [95% t]",
        f"margin p ({cname})", "mean rank [95% t]", "verdict"]
    rows = []
    for r in df.iter_rows(named=True):
        rows.append(dict(zip(cols, [
            *(str(r[k]) for k in keys), f"{r['games']:,}",
            pct_ci(r["win_share"], r["win_lo"], r["win_hi"]), pct(r["expected_share"]),
            pval(r["p_adjusted"]),
            num_ci(r["margin_mean"], r["margin_lo"], r["margin_hi"], signed=True),
            pval(r["margin_p_adjusted"]),
            num_ci(r["rank_mean"], r["rank_lo"], r["rank_hi"], 2),
            headline.verdict_label(r)], strict=True)))
    return pl.DataFrame(rows, schema={c: pl.Utf8 for c in cols})


def _power_sentence(r: dict, k: int) -> str:
    n, fair = r["n_players"], pct(r["expected_share"])
    head = (f"{n} players ({r['games']:,} games, median {r['median_appearances']:,.0f} "
            "appearances per faction): ")
    if is_missing(r["mdd"]):
        edge = f"too few games to detect any faction edge over {fair}"
    else:
        edge = (f"the smallest win-share edge over {fair} detectable at "
                f"{100 * tables.POWER:.0f}% power is {pp(r['mdd'])} "
                + (f"({pp(r['mdd_corrected'])} at alpha 0.05/{k})"
                   if not is_missing(r["mdd_corrected"]) else f"(none at alpha 0.05/{k})"))
    if not is_missing(r["mdd_margin"]):
        edge += (f", and the smallest VP-margin edge {r['mdd_margin']:.2f} VP "
                 f"({r['mdd_margin_corrected']:.2f} VP at alpha 0.05/{k}; margin standard "
                 f"deviation {r['margin_sd']:.1f} VP)")
    more = r["more_games_to_halve"]
    tail = "" if is_missing(more) else (
        f"; the widest interval ({r['widest_faction']}, ±{pp(r['widest_half_width'])}) would "
        f"need about {more:,.0f} more {n}-player games to halve")
    return head + edge + tail + "."


def _edge(x) -> str:
    # NaN: even a faction that won every game would not have been told apart from fair.
    return "none (too few games)" if is_missing(x) else pp(x)


def _vp(x) -> str:
    return "n/a" if is_missing(x) else f"{x:.2f} VP"


def _win_ci(r: dict) -> str:
    return pct_ci(r["win_share"], r["win_lo"], r["win_hi"])


def _margin(r: dict) -> str:
    return num_ci(r["margin_mean"], r["margin_lo"], r["margin_hi"], signed=True)


def _verdict_sentence(df: pl.DataFrame, what: str, correction: str) -> str:
    cname = stats.CORRECTIONS[correction][0]
    parts = []
    for v in (stats.TOO_STRONG, stats.TOO_WEAK, stats.DISPUTED):
        rows = df.filter(pl.col("verdict") == v)
        if rows.height:
            parts.append(f"{v}: " + ", ".join(
                f"{r[what]}" + (f" ({label[label.index('(') + 1:-1]})" if "(" in label else "")
                for r in rows.iter_rows(named=True)
                for label in [headline.verdict_label(r)]))
    found = "; ".join(parts) if parts else "none differs from fair"
    return (f"Verdict on win share and VP margin, each after {cname} correction across the "
            f"{df.height} rows of this table (alpha = {tables.ALPHA}): {found}.")


def method_notes(cname: str) -> list[str]:
    return [
        "**Win share** splits ties: a k-way tie for first gives each tied player 1/k of a "
        "win. Its interval is the 95% Wilson score interval; the **edge** is the win share "
        "minus the expected share, with the same interval shifted.",
        "**Expected share** is 1/n per game; with mixed player counts it is the mean of 1/n "
        "over the faction's games, and wins are tested against expected wins (sum of 1/n) with "
        "a score test whose variance is the sum of (1/n)(1 - 1/n).",
        "**VP margin** is a player's VP minus the mean VP of that game; a fair faction's mean "
        "margin is 0. It is tested against 0 with a one-sample t-test. VP, margin and rank "
        "intervals are 95% Student t intervals of the mean over the games the row played.",
        f"**Verdicts** use both measures. Each measure's p-values are corrected by {cname} "
        "across the rows of its table (Holm controls the family-wise error rate, "
        "Benjamini-Hochberg the false discovery rate; each measure is its own family), at "
        f"alpha {tables.ALPHA}. A row is **too strong** when at least one measure is "
        "significantly above fair and neither is significantly below; **too weak** the "
        "mirror; **disputed** when one is significantly above and the other below; **fair** "
        "when neither is significant (no edge detected, which is not proof of none: see the "
        "power of the sample). Where only one measure is significant the verdict says which "
        "(\"margin only\", \"win share only\"): the two measure different things (a faction "
        "that often comes second has a positive margin and a baseline win share), and margin, "
        "being continuous, detects smaller differences.",
        "**Intervals** are 95% for each row alone; verdicts are corrected for testing many "
        "rows, so an interval that just clears the fair value can still give **fair**.",
        "**Smallest detectable edge**: the difference a two-sided test finds with "
        f"{100 * tables.POWER:.0f}% power for a faction with the median number of appearances, "
        "by the normal approximation: for win share with the variance under both hypotheses, "
        "for margin (z(1 - alpha/2) + z(power)) x SD / sqrt(n) with the factions' pooled margin "
        "standard deviation; once at alpha 0.05 and once at alpha/k, the strictest step of the "
        "correction over k factions.",
        "**Mean rank**: 1 = first; tied players share the average of their places.",
        "**Dependence**: players of one game are not independent (only one can win it). A "
        "faction plays at most once per game, so its rows are independent games; a strategy "
        "that fills several seats of one game gets intervals that are somewhat too narrow.",
        "**Head to head** counts, for each pair of factions that met, the share of those games "
        "in which the row faction finished ahead (ties count half).",
        "**How it is computed**: the run's players table is read once; every table is an "
        "aggregate of it (one row per faction, seat, pair...), and every plot is drawn from "
        "such a table. Head to head is counted seat pair by seat pair over all games at once. "
        "Plackett-Luce is fitted on sufficient statistics, not game by game: each place is a "
        "choice among the players of its game placed no better (its risk set), so the "
        "likelihood depends on the games only through how often each faction and strategy "
        "played and how many places were taken from each distinct risk set. Every complete "
        "game counts (none is sampled): the estimates and standard errors are those of a "
        "game-by-game fit, to floating-point rounding.",
    ]


def _quiet(_: str) -> None:
    pass


def _seed(run: tables.Run) -> int:
    """The bootstrap's seed: the run's own, so a report is the same every time it is built."""
    seed = run.manifest.get("master_seed")
    return seed if isinstance(seed, int) else 0


def _differ_section(run: tables.Run, ft: pl.DataFrame, out_dir: Path, files: list[Path],
                    correction: str, cname: str) -> tuple[Section, str]:
    """Tiers from pairwise tests and rank intervals from the bootstrap; and the summary line."""
    mg = ranking.margins(run.players)
    pairs = ranking.pairwise(mg, correction)
    save_csv(pairs, out_dir, "pairwise", files)
    tier = ranking.tiers(mg, pairs)
    boot, how = ranking.bootstrap_ranks(run.aggregable, seed=_seed(run))
    table = (tier.join(ft.select("faction", "margin_mean", "margin_lo", "margin_hi"),
                       on="faction")
             .join(boot, on="faction", how="left")
             .sort(["tier", "margin_mean"], descending=[False, True]))
    save_csv(table, out_dir, "tiers", files)
    groups: dict[int, list[str]] = {}
    for r in table.iter_rows(named=True):
        groups.setdefault(r["tier"], []).append(r["faction"])
    tiers_text = "; ".join(f"{t}: {', '.join(fs)}" for t, fs in groups.items())
    told = int(pairs["differ"].sum()) if pairs.height else 0
    disp = table.select(
        pl.col("tier").cast(pl.Utf8), "faction",
        pl.struct("margin_mean", "margin_lo", "margin_hi").map_elements(
            lambda r: num_ci(r["margin_mean"], r["margin_lo"], r["margin_hi"], signed=True),
            return_dtype=pl.Utf8).alias("VP margin [95% t]"),
        pl.struct("rank_lo", "rank_hi").map_elements(
            lambda r: f"{r['rank_lo']}" if r["rank_lo"] == r["rank_hi"]
            else f"{r['rank_lo']} – {r['rank_hi']}", return_dtype=pl.Utf8)
        .alias("rank [95%]"),
        pl.col("first_share").map_elements(lambda x: pct(x, 0), return_dtype=pl.Utf8)
        .alias("first"),
        pl.col("last_share").map_elements(lambda x: pct(x, 0), return_dtype=pl.Utf8)
        .alias("last"))
    sentence = ranking.ranking_sentence(boot)
    text = [f"Factions that cannot be told apart share a tier. Every pair of factions is tested "
            f"on its difference in mean VP margin (z-test, {cname}-corrected across the "
            f"{pairs.height} pairs; {told} pairs differ); from the strongest down, a faction "
            "joins the tier of the faction above it unless it differs from that tier's "
            "strongest, and then starts the next tier. "
            f"Rank intervals: {how}, each ranking the factions by mean margin. {sentence} "
            "All pairs are in `tables/pairwise.csv`."]
    sec = Section("Which factions differ", text,
                  [("Tiers, VP margin and rank [95% bootstrap interval]; share of resamples "
                    "in which the faction ranks first and last", disp)])
    return sec, f"Tiers by VP margin: {tiers_text}. {sentence}"


def _interaction_section(run: tables.Run, out_dir: Path, files: list[Path], correction: str,
                         cname: str, fs_png: Path) -> tuple[Section, str]:
    """Faction x bot: the interaction test, the cells that stand out, each faction against
    each bot's mean, and the agreement scores with intervals."""
    cells, test = interaction.interaction(run.players, correction)
    save_csv(cells, out_dir, "faction_strategy_interaction", files)
    agree, how = interaction.agreement_intervals(run.aggregable, seed=_seed(run))
    save_csv(agree, out_dir, "ranking_agreement", files)
    out = cells.filter(pl.col("stands_out")).sort("p_adjusted")
    flagged = "; ".join(
        f"{r['faction']} with {r['strategy']} ({pp(r['edge'], signed=True)} win-share edge "
        f"where no interaction predicts {pp(r['expected_edge'], signed=True)}, "
        f"{r['games']:,} games)" for r in out.iter_rows(named=True))
    if test["df"] == 0:
        verdict = "Too few cells to test an interaction (one bot, or one faction per bot)."
    else:
        verdict = (f"Interaction test: chi-square {test['chi2']:.1f} on {test['df']} degrees "
                   f"of freedom, p = {pval(test['p_value'])}: "
                   + ("the factions' strengths depend on the bot that plays them."
                      if test["p_value"] < tables.ALPHA else
                      "no evidence that the factions' strengths depend on the bot."))
    verdict += (f" Cells that stand out ({cname}-corrected across the {test['cells']} cells): "
                f"{flagged}." if flagged else " No single cell stands out after correction.")
    agree_disp = agree.select(
        "strategy", pl.col("factions").cast(pl.Utf8),
        pl.struct("spearman_rho", "rho_lo", "rho_hi").map_elements(
            lambda r: "n/a" if r["spearman_rho"] is None else num_ci(
                r["spearman_rho"], r["rho_lo"], r["rho_hi"], 2), return_dtype=pl.Utf8)
        .alias("Spearman rho vs overall [95% bootstrap]"))
    grid = interaction.relative_grid(cells)
    bots = sorted(cells["strategy"].unique().to_list())
    sec = Section(
        "Faction x strategy",
        ["Does the faction ranking hold for every bot? Each cell is a faction's win-share edge "
         "(win share minus the expected share) with one bot, minus that bot's mean edge over "
         "the factions it played, in percentage points. With no interaction a cell's odds of "
         "winning are its faction's effect times its bot's effect (a logistic model fitted by "
         "maximum likelihood); a * marks a cell whose Pearson residual from that fit is "
         "significant. " + verdict,
         "The agreement score compares each bot's ordering of the factions (by mean VP margin) "
         f"with the overall one: near 1, the ranking holds for that bot. Its intervals come from "
         f"{how}. Absolute win shares per cell are in `tables/faction_strategy.csv`."],
        [("Win-share edge relative to the bot's mean, pp (* stands out)",
          grid.select("faction", *[b for b in bots if b in grid.columns])),
         ("Agreement of each bot's faction ranking with the overall one", agree_disp)],
        [fs_png])
    line = verdict if test["df"] else ""
    return sec, line


def _course_section(run: tables.Run, out_dir: Path, files: list[Path],
                    png: Callable[..., Path]) -> Section:
    """When and where an edge arises: VP by round, the action mix and the build map from the
    actions table, and VP by source against the average faction."""
    from terra_sim.analysis import plots
    from terra_sim.games import get_game

    src = course.vp_sources(run.players, run.categories)
    save_csv(src, out_dir, "vp_sources", files)
    images = [png(plots.vp_sources, src, "vp_sources")] if src.height else []
    text = ["VP by source is each faction's mean VP from each scoring category minus the "
            "average over all seats, with the 95% t interval of the faction's mean."]
    actions = None
    if any((run.path / "actions").glob("*.parquet")):
        actions = rundir.scan(run.path, "actions", schema.ACTIONS_SCHEMA)
        if actions.select(pl.len()).collect().item() == 0:  # --no-actions writes empty parts
            actions = None
    if actions is None:
        text.append("This run was made with `--no-actions`, so VP by round, the action mix "
                    "and where each faction builds (all read from the actions table) are not "
                    "shown.")
        return Section("When and where an edge arises", text, images=images)
    try:
        game = get_game(run.manifest.get("game", ""), run.manifest.get("overrides") or None)
    except UserError:
        game = None  # a game this installation does not have: no board, no bookkeeping names
    vr = course.vp_by_round(actions, run.players)
    save_csv(vr, out_dir, "vp_by_round", files)
    mix = course.action_mix(actions, run.players, tuple(getattr(game, "quiet_actions", ())))
    save_csv(mix, out_dir, "action_mix", files)
    text.insert(0, "VP by round is each faction's mean VP at the end of each round (after its "
                   "last action of the round) minus the average over all seats, with 95% t "
                   "bands; the last point is the final score. The action mix counts each "
                   "faction's actions per game by kind (bookkeeping left out).")
    images = [png(plots.vp_by_round, vr, "vp_by_round"),
              png(plots.action_mix, mix, "action_mix")] + images
    if game is not None and hasattr(game, "board_cells") and hasattr(game, "build_site"):
        sites = course.build_sites(actions, run.players, game.build_site)
        save_csv(sites, out_dir, "build_sites", files)
        if sites.height:
            images.append(png(plots.build_map, sites, "build_map", game.board_cells()))
            text.append("The build map shades each board space by the share of the faction's "
                        "builds (and upgrades) made there.")
    return Section("When and where an edge arises", text, images=images)


def build_sections(run: tables.Run, out_dir: Path, files: list[Path],
                   correction: str = "holm",
                   progress: Progress = _quiet) -> tuple[list[Section], str, str]:
    """Compute every table, write CSVs and PNGs, and return the sections, the terminal summary
    and the headline text. `progress` hears the name of each stage as it starts."""
    from terra_sim.analysis import plots  # matplotlib: only once a report is drawn

    progress("reading the run" + tables.reading_note(run))
    ov = tables.overview(run)
    cname = stats.CORRECTIONS[correction][0]
    pdir = out_dir / "plots"
    summary = [f"{run.manifest.get('game', '?')} run {run.name!r}: {ov['games']:,} games "
               f"({', '.join(f'{n}p: {g:,}' for n, g in ov['games_by_count'].items())}), "
               f"{ov['errors']:,} lost to errors."]
    if (run.manifest.get("until") or {}).get("reason"):
        summary.append(run.manifest["until"]["reason"])
    if run.manifest.get("approximate_data"):
        summary.append("Data marked approximate: "
                       + "; ".join(run.manifest["approximate_data"]) + ".")
    caveat = Section("Caveat", [caveat_text(ov["strategies"])])
    if ov["games"] == 0:
        empty = "This run has no finished games yet, so there is nothing to report."
        return ([Section("Verdict", [*_approximate(run), empty], box=True),
                 *_until(run.manifest), caveat,
                 _run_details(run, ov)],
                "\n".join(summary + ["No finished games: nothing to report."]),
                "No finished games: nothing to report.")

    def png(fn, table, name, *args) -> Path:
        p = fn(table, pdir / f"{name}.png", *args)
        files.append(p)
        return p

    # Factions, all player counts, and what the run could have detected: the headline.
    progress("factions")
    ft = tables.faction_table(run, correction)
    save_csv(ft, out_dir, "factions", files)
    fc = tables.faction_count_table(run, correction)
    save_csv(fc, out_dir, "factions_by_player_count", files)
    pw = tables.power_table(run, fc, len(ov["factions"]))
    save_csv(pw, out_dir, "power", files)
    head = headline.headline(ft, pw, cname, tables.ALPHA)
    strongest = headline.strength_order(ft)
    order = strongest["faction"].cast(pl.Utf8).to_list()
    sections = [
        Section("Verdict", [*_approximate(run), _context(run, ov), head.sentence],
                [("Factions, strongest first (by VP margin)", head.table)],
                notes=head.notes, box=True, legend=True),
        *_until(run.manifest),
        caveat,
    ]
    summary += ["", head.text(), ""]

    sections.append(Section(
        "Factions",
        ["Both measures for every faction over all player counts, strongest first. "
         + _verdict_sentence(ft, "faction", correction)],
        [(f"Factions: win share [95% Wilson], margins [95% t], p adjusted by {cname}",
          _outcome_display(strongest, ["faction"], {"faction": "faction"}, correction))],
        [png(plots.factions, strongest, "factions", headline.expected_text(ft))]))

    # Factions by player count: only news when there is more than one player count.
    if len(ov["games_by_count"]) > 1:
        sections.append(Section(
            "Factions by player count",
            ["Expected share is exactly 1/n within each player count. "
             + _verdict_sentence(fc.with_columns(
                 (pl.col("faction") + " (" + pl.col("n_players").cast(pl.Utf8) + "p)")
                 .alias("label")), "label", correction)],
            [(f"Factions by player count [95% Wilson / 95% t], p adjusted by {cname}",
              _outcome_display(fc.sort("n_players", "margin_mean", descending=[False, True]),
                               ["n_players", "faction"], {"n_players": "players",
                                                          "faction": "faction"}, correction))]))

    progress("tiers and rank intervals")
    differ, differ_line = _differ_section(run, ft, out_dir, files, correction, cname)
    sections.append(differ)
    summary.append(differ_line)

    # Seats.
    progress("seats")
    st = tables.seat_table(run, correction)
    save_csv(st, out_dir, "seats", files)
    seat_disp = _outcome_display(st.with_columns(pl.col("seat") + 1), ["n_players", "seat"],
                                 {"n_players": "players", "seat": "seat"}, correction)
    sections.append(Section(
        "Seat advantage",
        ["Win share and VP margin by seat for each player count (seat 1 starts round 1). "
         "A fair seating gives each seat 1/n and a margin of 0. "
         + _verdict_sentence(st.with_columns(
             ("seat " + (pl.col("seat") + 1).cast(pl.Utf8) + " of "
              + pl.col("n_players").cast(pl.Utf8)).alias("label")), "label", correction)],
        [(f"Seats [95% Wilson / 95% t], p adjusted by {cname}", seat_disp)],
        [png(plots.seats, st, "seats")]))
    for n in sorted(st["n_players"].unique().to_list()):
        s0 = st.filter((pl.col("n_players") == n) & (pl.col("seat") == 0))
        if s0.height:
            r = s0.row(0, named=True)
            summary.append(f"Start player, {n} players: win share "
                           f"{pct_ci(r['win_share'], r['win_lo'], r['win_hi'])} [95% Wilson] vs "
                           f"{pct(1 / n)} fair, margin {_margin(r)} VP [95% t]: "
                           f"{headline.verdict_label(r)}.")

    # Head to head.
    progress("head to head")
    h2h = tables.head_to_head(run)
    save_csv(h2h, out_dir, "head_to_head", files)
    sec = Section("Head to head",
                  ["Share of the games two factions played together in which the row faction "
                   "finished ahead of the column faction (ties count half), strongest faction "
                   "first. Games behind each cell and its 95% Wilson interval are in "
                   "`tables/head_to_head.csv`. A blank cell is a pair that never met: a "
                   "faction and itself, or factions that never share a game (two sides of one "
                   "mat, where the game has them)."])
    if h2h.height:
        met = set(h2h["row"].to_list())
        names = [f for f in order if f in met] + sorted(met - set(order))
        # The games behind a cell go in the caption: in each cell they would double its width.
        piv = (h2h.with_columns(pl.format("{}%", (pl.col("share") * 100).round(0)
                                          .cast(pl.Int64)).alias("cell"))
               .pivot(on="col", index="row", values="cell", sort_columns=True))
        piv = (piv.with_columns(pl.col("row").replace_strict(names, list(range(len(names))),
                                                             return_dtype=pl.Int64).alias("_i"))
               .sort("_i").drop("_i"))
        piv = piv.select("row", *[c for c in names if c in piv.columns]).fill_null("—")
        lo, hi = int(h2h["games"].min()), int(h2h["games"].max())  # type: ignore[arg-type]
        sec.tables.append((f"Row ahead of column, % of shared games ({lo:,}"
                           + (f" to {hi:,}" if hi != lo else "") + " games per pair)",
                           piv.rename({"row": "row \\ column"})))
        sec.images.append(png(plots.head_to_head, h2h, "head_to_head", order))
    sections.append(sec)

    # Strategies and faction x strategy.
    progress("strategies")
    stt = tables.strategy_table(run, correction)
    save_csv(stt, out_dir, "strategies", files)
    fs = tables.faction_strategy_table(run, correction)
    save_csv(fs, out_dir, "faction_strategy", files)
    sections.append(Section(
        "Strategies",
        ["How each bot fared across all factions. " + _verdict_sentence(stt, "strategy",
                                                                           correction)],
        [(f"Strategies [95% Wilson / 95% t], p adjusted by {cname}",
          _outcome_display(headline.strength_order(stt), ["strategy"],
                           {"strategy": "strategy"}, correction))]))
    progress("faction x strategy")
    inter, inter_line = _interaction_section(
        run, out_dir, files, correction, cname, png(plots.faction_strategy, fs,
                                                     "faction_strategy"))
    sections.append(inter)
    if inter_line:
        summary.append("Faction x strategy: " + inter_line)

    # Strengths.
    progress("strengths (Plackett-Luce)")
    strength, fit = tables.strengths(run)
    save_csv(strength, out_dir, "strengths", files)
    sec = Section("Strengths (Plackett-Luce)")
    if fit is not None:
        note = ""
        if not fit.converged:
            off = [n for n, t in zip(fit.names, fit.theta, strict=True)
                   if abs(t) > stats.MAX_LOG_STRENGTH]
            note = (" The fit did not settle: "
                    + (f"{', '.join(off)} always or never finished ahead, so "
                       "no finite strength fits them and their numbers are only bounds."
                       if off else "treat the strengths as rough."))
        sec.text.append(
            "A Plackett-Luce model over the full finishing order of each game (all places, not "
            "only wins; tied places handled as a shared choice, Breslow's method). A player's "
            "log-strength is its faction effect plus its strategy effect, each centred on 0; a "
            "difference of 0.7 means about twice the odds of finishing ahead. Intervals are "
            f"95% (±1.96 standard errors from the observed information). {fit.games:,} games, "
            f"{fit.iterations} Newton iterations.{note}")
        sec.tables.append(("Log-strength [95% interval] and standard error", strength.sort(
            "block", "strength", descending=[False, True]).select(
            "block", "name",
            pl.struct("strength", "lo", "hi").map_elements(
                lambda s: num_ci(s["strength"], s["lo"], s["hi"], 2, signed=True),
                return_dtype=pl.Utf8).alias("log-strength [95%]"),
            pl.col("se").map_elements(lambda x: f"{x:.3f}", return_dtype=pl.Utf8)
            .alias("standard error"))))
        sec.images.append(png(plots.strengths, strength, "strengths"))
    sections.append(sec)

    # Where the points come from.
    progress("points and game length")
    cat = tables.vp_categories(run)
    save_csv(cat, out_dir, "vp_categories", files)
    dist = tables.score_distribution(run)
    save_csv(dist, out_dir, "score_distribution", files)
    gl = tables.game_length(run)
    save_csv(gl, out_dir, "game_length", files)
    cat_disp = cat.sort("vp_mean", descending=True).select(
        "faction", pl.col("games").cast(pl.Utf8),
        *[pl.col(c).round(1).cast(pl.Utf8)
          .alias(f"{c[3:]} VP" if c != "vp_mean" else "total VP")
          for c in cat.columns if c.startswith("vp_")])
    dist_disp = dist.sort("q50", descending=True).select(
        "faction", pl.col("games").cast(pl.Utf8), pl.col("mean").round(1).cast(pl.Utf8),
        *[pl.col(f"q{int(q * 100):02d}").round(1).cast(pl.Utf8).alias(f"{int(q * 100)}%")
          for q in tables.QUANTILES])
    gl_disp = gl.select(
        pl.col("n_players").cast(pl.Utf8).alias("players"), pl.col("games").cast(pl.Utf8),
        pl.col("rounds_mean").round(2).cast(pl.Utf8).alias("rounds (mean)"),
        pl.struct("n_actions_mean", "n_actions_lo", "n_actions_hi").map_elements(
            lambda s: num_ci(s["n_actions_mean"], s["n_actions_lo"], s["n_actions_hi"]),
            return_dtype=pl.Utf8).alias("actions [95% t]"),
        pl.format("{} – {}", pl.col("q05").round(0), pl.col("q95").round(0))
        .alias("actions 5-95%"),
        pl.struct("duration_s_mean", "duration_s_lo", "duration_s_hi").map_elements(
            lambda s: num_ci(s["duration_s_mean"], s["duration_s_lo"], s["duration_s_hi"], 3),
            return_dtype=pl.Utf8).alias("seconds per game [95% t]"))
    images = []
    if run.categories:
        images.append(png(plots.vp_categories, cat, "vp_categories"))
    images.append(png(plots.score_distribution, dist, "score_distribution"))
    if gl.height:
        images.append(png(plots.game_length, gl, "game_length"))
    sections.append(Section(
        "Where the points come from",
        ["Mean VP per game by scoring category, the spread of final scores, and game length."],
        [("Mean VP per game by category", cat_disp),
         ("Final VP distribution (quantiles)", dist_disp),
         ("Game length by player count", gl_disp)], images))

    progress("when and where")
    sections.append(_course_section(run, out_dir, files, png))

    # Power.
    progress("power")
    k = len(ov["factions"])
    text = ["What this sample could have detected. The smallest detectable edge is the "
            f"difference from fair that a two-sided test finds {100 * tables.POWER:.0f}% of "
            "the time, for a faction with the median number of appearances at that player "
            "count: in win share (from 1/n) and in VP margin (from 0). The corrected columns "
            f"use alpha 0.05/{k} (the strictest step of the correction over the {k} factions). "
            "Halving an interval's width needs about four times the games."]
    text += [_power_sentence(r, k) for r in pw.iter_rows(named=True)]
    pw_disp = pw.select(
        pl.col("n_players").cast(pl.Utf8).alias("players"), pl.col("games").cast(pl.Utf8),
        pl.col("median_appearances").round(0).cast(pl.Int64).cast(pl.Utf8)
        .alias("games per faction"),
        pl.col("expected_share").map_elements(pct, return_dtype=pl.Utf8).alias("fair share"),
        pl.col("mdd").map_elements(_edge, return_dtype=pl.Utf8).alias("win-share edge"),
        pl.col("mdd_corrected").map_elements(_edge, return_dtype=pl.Utf8)
        .alias(f"win-share edge at alpha/{k}"),
        pl.col("mdd_margin").map_elements(_vp, return_dtype=pl.Utf8).alias("margin edge"),
        pl.col("mdd_margin_corrected").map_elements(_vp, return_dtype=pl.Utf8)
        .alias(f"margin edge at alpha/{k}"),
        pl.col("widest_faction").alias("widest interval"),
        pl.col("widest_half_width").map_elements(lambda x: "±" + pp(x), return_dtype=pl.Utf8)
        .alias("half-width"),
        pl.col("more_games_to_halve").map_elements(
            lambda x: "n/a" if is_missing(x) else f"{x:,.0f}", return_dtype=pl.Utf8)
        .alias("more games to halve"))
    sections.append(Section(
        "Power of the sample", text,
        [(f"Smallest edge detectable at {100 * tables.POWER:.0f}% power (alpha 0.05, and "
          f"alpha 0.05/{k}); widest win-share interval [95% Wilson]", pw_disp)]))
    sections.append(Section("Method", method_notes(cname)))
    sections.append(_run_details(run, ov))
    summary.append("Caveat: " + caveat_text(ov["strategies"]))
    return sections, "\n".join(summary), head.text()


def build_report(run_dir: str | Path, out: str | Path | None = None,
                 formats: str | Iterable[str] = FORMATS,
                 correction: str = "holm", progress: Progress | None = None) -> ReportResult:
    """Write the balance report of the run in `run_dir` to `out` (default reports/<run name>/).

    Writes tables/*.csv and plots/*.png always, and report.html / report.md as `formats` asks.
    `progress`, when given, hears the name of each stage as it starts. Raises UserError for a
    missing or non-run directory or an unknown format.
    """
    fmts = parse_formats(formats)
    if correction not in stats.CORRECTIONS:
        raise UserError(f"unknown correction {correction!r}; choose holm or bh")
    say = progress or _quiet
    try:
        run = tables.open_run(run_dir)
        out_dir = prepare_out(out, run.path.resolve().name)
        files: list[Path] = []
        sections, summary, head = build_sections(run, out_dir, files, correction, say)
    except (pl.exceptions.PolarsError, OSError):
        # Writes already fail as UserErrors, so this is a part that the footer check passed but
        # whose data is damaged: name it, or show the error as it is when none is.
        raise_if_damaged([Path(run_dir)])
        raise
    title = f"Balance report: {run.manifest.get('game', '?')}, run {run.name}"
    say("writing " + ", ".join(f"report.{f}" for f in fmts) if fmts else "done")
    write_outputs(title, sections, out_dir, fmts, files)
    return ReportResult(out_dir, files, summary, head)
