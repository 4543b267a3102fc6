"""The balance report of one run: tables (CSV), plots (PNG), report.md, a self-contained
report.html and a short terminal summary. `build_report` is the entry point."""

from __future__ import annotations

import base64
import html
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from terra_sim.analysis import plots, stats, tables
from terra_sim.analysis.files import raise_if_damaged, writing
from terra_sim.core.errors import UserError

FORMATS = ("html", "md")


@dataclass
class ReportResult:
    out_dir: Path
    files: list[Path]
    summary: str


@dataclass
class Section:
    """One part of a report, rendered the same way to Markdown and HTML."""

    title: str
    text: list[str] = field(default_factory=list)
    tables: list[tuple[str, pl.DataFrame]] = field(default_factory=list)  # caption, strings
    images: list[Path] = field(default_factory=list)


# --- formatting ----------------------------------------------------------------------------------


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def pct(x, digits: int = 1) -> str:
    return "n/a" if _nan(x) else f"{100 * x:.{digits}f}%"


def pct_ci(x, lo, hi, digits: int = 1) -> str:
    if _nan(x):
        return "n/a"
    if _nan(lo) or _nan(hi):
        return pct(x, digits)
    return f"{100 * x:.{digits}f}% [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def num_ci(x, lo, hi, digits: int = 1, signed: bool = False) -> str:
    if _nan(x):
        return "n/a"
    f = f"{{:{'+' if signed else ''}.{digits}f}}"
    if _nan(lo) or _nan(hi):
        return f.format(x)
    return f"{f.format(x)} [{f.format(lo)}, {f.format(hi)}]"


def pp(x, digits: int = 1, signed: bool = False) -> str:
    """A difference of shares, in percentage points."""
    return "n/a" if _nan(x) else f"{100 * x:{'+' if signed else ''}.{digits}f} pp"


def pval(p) -> str:
    if _nan(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def parse_formats(formats: str | Iterable[str] | None) -> tuple[str, ...]:
    """'html,md' or ('html', 'md') -> a checked tuple. Unknown names are a UserError."""
    if formats is None:
        return FORMATS
    items = formats.split(",") if isinstance(formats, str) else list(formats)
    out = []
    for f in items:
        name = str(f).strip().lower()
        if not name:
            continue
        if name not in FORMATS:
            raise UserError(f"unknown report format {name!r}; choose from {', '.join(FORMATS)}")
        if name not in out:
            out.append(name)
    return tuple(out)


# --- rendering -----------------------------------------------------------------------------------


def _md_cell(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def _md_table(df: pl.DataFrame) -> str:
    head = "| " + " | ".join(_md_cell(c) for c in df.columns) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    rows = ["| " + " | ".join(_md_cell(v) for v in r) + " |" for r in df.iter_rows()]
    return "\n".join([head, rule, *rows])


def render_markdown(title: str, sections: list[Section], out_dir: Path) -> str:
    parts = [f"# {title}", ""]
    for s in sections:
        parts += [f"## {s.title}", ""]
        for t in s.text:
            parts += [t, ""]
        for caption, df in s.tables:
            if caption:
                parts += [f"**{caption}**", ""]
            parts += [_md_table(df) if df.height else "_(no rows)_", ""]
        for img in s.images:
            rel = img.relative_to(out_dir).as_posix()
            parts += [f"![{img.stem.replace('_', ' ')}]({rel})", ""]
    return "\n".join(parts)


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #2166ac}h2{margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:0.5em 0 1.2em;font-size:0.9em}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#eef3f8}td:first-child,th:first-child{text-align:left}
caption{caption-side:top;text-align:left;font-weight:bold;padding:4px 0}
img{max-width:100%;display:block;margin:0.5em 0 1.5em}
.caveat{background:#fff4e5;border-left:4px solid #f0a030;padding:0.6em 1em}
"""

_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`(.+?)`")


def _inline(text: str) -> str:
    # The sections' text uses a little Markdown (bold, code); carry it over to HTML.
    t = html.escape(text)
    t = _BOLD.sub(r"<strong>\1</strong>", t)
    return _CODE.sub(r"<code>\1</code>", t)


def render_html(title: str, sections: list[Section]) -> str:
    out = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
           f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{html.escape(title)}</h1>"]
    for s in sections:
        anchor = re.sub(r"[^a-z0-9]+", "-", s.title.lower()).strip("-")
        out.append(f"<h2 id='{anchor}'>{html.escape(s.title)}</h2>")
        for t in s.text:
            cls = " class='caveat'" if s.title.lower().startswith("caveat") else ""
            out.append(f"<p{cls}>{_inline(t)}</p>")
        for caption, df in s.tables:
            out.append("<table>")
            if caption:
                out.append(f"<caption>{html.escape(caption)}</caption>")
            out.append("<tr>" + "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
                       + "</tr>")
            for r in df.iter_rows():
                out.append("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in r)
                           + "</tr>")
            out.append("</table>")
        for img in s.images:
            data = base64.b64encode(img.read_bytes()).decode("ascii")
            out.append(f"<img alt='{html.escape(img.stem)}' "
                       f"src='data:image/png;base64,{data}'>")
    out.append("</body></html>")
    return "\n".join(out)


def write_outputs(title: str, sections: list[Section], out_dir: Path,
                  formats: tuple[str, ...], files: list[Path]) -> None:
    if "md" in formats:
        p = out_dir / "report.md"
        with writing(p):
            p.write_text(render_markdown(title, sections, out_dir), encoding="utf-8")
        files.append(p)
    if "html" in formats:
        p = out_dir / "report.html"
        with writing(p):
            p.write_text(render_html(title, sections), encoding="utf-8")
        files.append(p)


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


def _header(run: tables.Run, ov: dict) -> Section:
    m = run.manifest
    counts = ", ".join(f"{n} players: {g:,} games" for n, g in ov["games_by_count"].items())
    rows = [
        ("game", m.get("game", "?")),
        ("games analysed", f"{ov['games']:,} ({counts or 'none'})"),
        ("games planned / finished", f"{m.get('planned_games', '?')} / "
                                     f"{m.get('finished_games', '?')}"),
        ("games lost to errors", f"{ov['errors']:,}"),
        ("player counts", ", ".join(str(n) for n in m.get("player_counts", []))
         or ", ".join(str(n) for n in ov["games_by_count"])),
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
    df = pl.DataFrame({"item": [r[0] for r in rows], "value": [str(r[1]) for r in rows]})
    # Results on invented data must say so before anything else is read.
    approx = m.get("approximate_data") or []
    banner = [f"**Data marked approximate:** {'; '.join(approx)}."] if approx else []
    return Section("Run", [*banner, f"Run directory: `{run.path}`."], [("", df)])


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
    rows = []
    for r in df.iter_rows(named=True):
        row = {label_keys[k]: str(r[k]) for k in keys}
        row.update({
            "games": f"{r['games']:,}",
            "win share [95% Wilson]": pct_ci(r["win_share"], r["win_lo"], r["win_hi"]),
            "expected share": pct(r["expected_share"]),
            "VP [95% t]": num_ci(r["vp_mean"], r["vp_lo"], r["vp_hi"]),
            "VP margin [95% t]": num_ci(r["margin_mean"], r["margin_lo"], r["margin_hi"],
                                        signed=True),
            "mean rank [95% t]": num_ci(r["rank_mean"], r["rank_lo"], r["rank_hi"], 2),
            f"p ({cname})": pval(r["p_adjusted"]),
            "verdict": r["verdict"],
        })
        rows.append(row)
    cols = [label_keys[k] for k in keys] + ["games", "win share [95% Wilson]",
                                           "expected share", "VP [95% t]", "VP margin [95% t]",
                                           "mean rank [95% t]", f"p ({cname})", "verdict"]
    return pl.DataFrame(rows, schema={c: pl.Utf8 for c in cols})


def _power_sentence(r: dict) -> str:
    n, fair = r["n_players"], pct(r["expected_share"])
    head = (f"{n} players ({r['games']:,} games, median {r['median_appearances']:,.0f} "
            "appearances per faction): ")
    if _nan(r["mdd"]):
        edge = f"too few games to detect any faction edge over {fair}"
    else:
        edge = (f"the smallest faction edge over {fair} detectable at 80% power is "
                f"{pp(r['mdd'])}, "
                + (f"{pp(r['mdd_corrected'])} after correction" if not _nan(r["mdd_corrected"])
                   else "none after correction"))
    more = r["more_games_to_halve"]
    tail = "" if _nan(more) else (
        f"; the widest interval ({r['widest_faction']}, ±{pp(r['widest_half_width'])}) would "
        f"need about {more:,.0f} more {n}-player games to halve")
    return head + edge + tail + "."


def _edge(x) -> str:
    # NaN: even a faction that won every game would not have been told apart from fair.
    return "none (too few games)" if _nan(x) else pp(x)


def _win_ci(r: dict) -> str:
    return pct_ci(r["win_share"], r["win_lo"], r["win_hi"])


def _margin(r: dict) -> str:
    return num_ci(r["margin_mean"], r["margin_lo"], r["margin_hi"], signed=True)


def _verdict_sentence(df: pl.DataFrame, what: str, correction: str) -> str:
    cname = stats.CORRECTIONS[correction][0]
    above = df.filter(pl.col("verdict") == "above fair")
    below = df.filter(pl.col("verdict") == "below fair")
    parts = []
    if above.height:
        parts.append("above fair: " + ", ".join(above[what].cast(pl.Utf8).to_list()))
    if below.height:
        parts.append("below fair: " + ", ".join(below[what].cast(pl.Utf8).to_list()))
    found = "; ".join(parts) if parts else "none differs from fair"
    return (f"Verdict after {cname} correction across the {df.height} rows of this table "
            f"(alpha = {tables.ALPHA}): {found}.")


METHOD_NOTES = [
    "**Win share** splits ties: a k-way tie for first gives each tied player 1/k of a win. "
    "Its interval is the 95% Wilson score interval.",
    "**Expected share** is 1/n per game; with mixed player counts it is the mean of 1/n over "
    "the faction's games, and wins are tested against expected wins (sum of 1/n) with a score "
    "test whose variance is the sum of (1/n)(1 - 1/n).",
    "**VP margin** is a player's VP minus the mean VP of that game. VP, margin and rank "
    "intervals are 95% Student t intervals of the mean over the games the row played.",
    "**Mean rank**: 1 = first; tied players share the average of their places.",
    "**Dependence**: players of one game are not independent (only one can win it). A "
    "faction plays at most once per game, so its rows are independent games; a strategy that "
    "fills several seats of one game gets intervals that are somewhat too narrow.",
    "**Head to head** counts, for each pair of factions that met, the share of those games in "
    "which the row faction finished ahead (ties count half).",
    "**Verdicts** correct for testing many rows at once, with the correction named above each "
    "table (Holm controls the family-wise error rate, Benjamini-Hochberg the false discovery "
    "rate).",
]


def build_sections(run: tables.Run, out_dir: Path, files: list[Path],
                   correction: str = "holm") -> tuple[list[Section], str]:
    """Compute every table, write CSVs and PNGs, and return the sections and terminal summary."""
    ov = tables.overview(run)
    cname = stats.CORRECTIONS[correction][0]
    pdir = out_dir / "plots"
    sections = [_header(run, ov), *_until(run.manifest),
                Section("Caveat", [caveat_text(ov["strategies"])])]
    summary = [f"{run.manifest.get('game', '?')} run {run.name!r}: {ov['games']:,} games "
               f"({', '.join(f'{n}p: {g:,}' for n, g in ov['games_by_count'].items())}), "
               f"{ov['errors']:,} lost to errors."]
    if (run.manifest.get("until") or {}).get("reason"):
        summary.append(run.manifest["until"]["reason"])
    if run.manifest.get("approximate_data"):
        summary.append("Data marked approximate: "
                       + "; ".join(run.manifest["approximate_data"]) + ".")
    if ov["games"] == 0:
        sections.append(Section("Results", ["This run has no finished games yet, so there is "
                                            "nothing to report."]))
        return sections, "\n".join(summary + ["No finished games: nothing to report."])

    def png(fn, table, name, *args) -> Path:
        p = fn(table, pdir / f"{name}.png", *args)
        files.append(p)
        return p

    # Factions, all player counts.
    ft = tables.faction_table(run, correction)
    save_csv(ft, out_dir, "factions", files)
    sections.append(Section(
        "Factions",
        ["One row per faction over all player counts. " + _verdict_sentence(ft, "faction",
                                                                             correction)],
        [(f"Factions: win share [95% Wilson], margins [95% t], p adjusted by {cname}",
          _outcome_display(ft.sort("win_share", descending=True), ["faction"],
                           {"faction": "faction"}, correction))],
        [png(plots.win_share, ft, "win_share"), png(plots.margin, ft, "margin")]))
    best = ft.sort("win_share", descending=True).row(0, named=True)
    worst = ft.sort("win_share").row(0, named=True)
    summary.append(f"Best faction:  {best['faction']} win share "
                   f"{pct_ci(best['win_share'], best['win_lo'], best['win_hi'])} [95% Wilson] "
                   f"vs expected {pct(best['expected_share'])}, {best['games']:,} games "
                   f"({best['verdict']}).")
    summary.append(f"Worst faction: {worst['faction']} win share "
                   f"{pct_ci(worst['win_share'], worst['win_lo'], worst['win_hi'])} [95% Wilson] "
                   f"vs expected {pct(worst['expected_share'])}, {worst['games']:,} games "
                   f"({worst['verdict']}).")
    summary.append(_verdict_sentence(ft, "faction", correction))

    # Factions by player count.
    fc = tables.faction_count_table(run, correction)
    save_csv(fc, out_dir, "factions_by_player_count", files)
    sections.append(Section(
        "Factions by player count",
        ["Expected share is exactly 1/n within each player count. "
         + _verdict_sentence(fc.with_columns(
             (pl.col("faction") + " (" + pl.col("n_players").cast(pl.Utf8) + "p)")
             .alias("label")), "label", correction)],
        [(f"Factions by player count [95% Wilson / 95% t], p adjusted by {cname}",
          _outcome_display(fc.sort("n_players", "win_share", descending=[False, True]),
                           ["n_players", "faction"], {"n_players": "players",
                                                      "faction": "faction"}, correction))]))

    # Seats.
    st = tables.seat_table(run, correction)
    save_csv(st, out_dir, "seats", files)
    seat_disp = _outcome_display(st.with_columns(pl.col("seat") + 1), ["n_players", "seat"],
                                 {"n_players": "players", "seat": "seat"}, correction)
    sections.append(Section(
        "Seat advantage",
        ["Win share and VP margin by seat for each player count (seat 1 starts round 1). "
         "A fair seating gives each seat 1/n. "
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
                           f"{pct(1 / n)} fair, margin {_margin(r)} VP [95% t].")

    # Head to head.
    h2h = tables.head_to_head(run)
    save_csv(h2h, out_dir, "head_to_head", files)
    sec = Section("Head to head",
                  ["Share of the games two factions played together in which the row faction "
                   "finished ahead of the column faction (ties count half). Games behind each "
                   "cell and its 95% Wilson interval are in `tables/head_to_head.csv`."])
    if h2h.height:
        names = sorted(set(h2h["row"].to_list()))
        piv = (h2h.with_columns(pl.format("{}% ({})", (pl.col("share") * 100).round(0)
                                          .cast(pl.Int64), pl.col("games")).alias("cell"))
               .pivot(on="col", index="row", values="cell", sort_columns=True)
               .sort("row"))
        piv = piv.select("row", *[c for c in names if c in piv.columns]).fill_null("—")
        sec.tables.append(("Row ahead of column, % of shared games (games)",
                           piv.rename({"row": "row \\ column"})))
        sec.images.append(png(plots.head_to_head, h2h, "head_to_head"))
    sections.append(sec)

    # Strategies and faction x strategy.
    stt = tables.strategy_table(run, correction)
    save_csv(stt, out_dir, "strategies", files)
    fs = tables.faction_strategy_table(run, correction)
    save_csv(fs, out_dir, "faction_strategy", files)
    agree = tables.ranking_agreement(fs)
    save_csv(agree, out_dir, "ranking_agreement", files)
    strategies = sorted(fs["strategy"].unique().to_list())
    piv = (fs.with_columns(pl.struct("win_share", "win_lo", "win_hi", "games")
                           .map_elements(lambda s: _win_ci(s) + f" n={s['games']}",
                                         return_dtype=pl.Utf8).alias("cell"))
           .pivot(on="strategy", index="faction", values="cell", sort_columns=True)
           .sort("faction").fill_null("—"))
    agree_disp = agree.select(
        "strategy", pl.col("factions").cast(pl.Utf8), pl.col("games").cast(pl.Utf8),
        pl.col("spearman_rho").map_elements(lambda x: "n/a" if _nan(x) else f"{x:.2f}",
                                            return_dtype=pl.Utf8)
        .alias("Spearman rho vs overall ranking"))
    sections.append(Section(
        "Strategies",
        ["How each bot fared across all factions. " + _verdict_sentence(stt, "strategy",
                                                                           correction)],
        [(f"Strategies [95% Wilson / 95% t], p adjusted by {cname}",
          _outcome_display(stt.sort("win_share", descending=True), ["strategy"],
                           {"strategy": "strategy"}, correction))]))
    sections.append(Section(
        "Faction x strategy",
        ["Does the faction ranking hold for every bot? Each cell is the faction's win share "
         "[95% Wilson] when played by that strategy, with the games behind it. The second "
         "table compares each strategy's ordering of factions (by mean VP margin) with the "
         "overall ordering: a Spearman rho near 1 means the ranking holds for that bot. "
         "Full numbers in `tables/faction_strategy.csv`."],
        [("Win share by faction and strategy [95% Wilson]",
          piv.select("faction", *[s for s in strategies if s in piv.columns])),
         ("Agreement of each strategy's faction ranking with the overall one", agree_disp)],
        [png(plots.faction_strategy, fs, "faction_strategy")]))

    # Strengths.
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
        sec.tables.append(("Log-strength [95% interval] and standard error", strength.select(
            "block", "name",
            pl.struct("strength", "lo", "hi").map_elements(
                lambda s: num_ci(s["strength"], s["lo"], s["hi"], 2, signed=True),
                return_dtype=pl.Utf8).alias("log-strength [95%]"),
            pl.col("se").map_elements(lambda x: f"{x:.3f}", return_dtype=pl.Utf8)
            .alias("standard error")).sort("block")))
        sec.images.append(png(plots.strengths, strength, "strengths"))
    sections.append(sec)

    # Where the points come from.
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

    # Power.
    pw = tables.power_table(run, fc, len(ov["factions"]))
    save_csv(pw, out_dir, "power", files)
    text = ["What this sample could have detected. The smallest detectable edge is the win-share "
            "difference from 1/n that a two-sided test finds 80% of the time, for a faction with "
            "the median number of appearances at that player count; the corrected column uses "
            f"alpha/{len(ov['factions'])} (Holm's strictest step over the factions). "
            "Halving an interval's width needs about four times the games."]
    for r in pw.iter_rows(named=True):
        text.append(_power_sentence(r))
        summary.append(text[-1])
    pw_disp = pw.select(
        pl.col("n_players").cast(pl.Utf8).alias("players"), pl.col("games").cast(pl.Utf8),
        pl.col("median_appearances").round(0).cast(pl.Int64).cast(pl.Utf8)
        .alias("median faction appearances"),
        pl.col("expected_share").map_elements(pct, return_dtype=pl.Utf8).alias("fair share"),
        pl.col("mdd").map_elements(_edge, return_dtype=pl.Utf8)
        .alias("detectable edge (80% power, alpha 0.05)"),
        pl.col("mdd_corrected").map_elements(_edge, return_dtype=pl.Utf8)
        .alias("detectable edge, corrected"),
        pl.col("widest_faction").alias("widest interval"),
        pl.col("widest_half_width").map_elements(lambda x: "±" + pp(x), return_dtype=pl.Utf8)
        .alias("its half-width [95% Wilson]"),
        pl.col("more_games_to_halve").map_elements(
            lambda x: "n/a" if _nan(x) else f"{x:,.0f}", return_dtype=pl.Utf8)
        .alias("more games to halve it"))
    sections.append(Section("Power of the sample", text, [("", pw_disp)]))
    sections.append(Section("Method", METHOD_NOTES))
    summary.append("Caveat: " + caveat_text(ov["strategies"]))
    return sections, "\n".join(summary)


def build_report(run_dir: str | Path, out: str | Path | None = None,
                 formats: str | Iterable[str] = FORMATS,
                 correction: str = "holm") -> ReportResult:
    """Write the balance report of the run in `run_dir` to `out` (default reports/<run name>/).

    Writes tables/*.csv and plots/*.png always, and report.html / report.md as `formats` asks.
    Raises UserError for a missing or non-run directory or an unknown format.
    """
    fmts = parse_formats(formats)
    if correction not in stats.CORRECTIONS:
        raise UserError(f"unknown correction {correction!r}; choose holm or bh")
    try:
        run = tables.open_run(run_dir)
        out_dir = prepare_out(out, run.path.resolve().name)
        files: list[Path] = []
        sections, summary = build_sections(run, out_dir, files, correction)
    except (pl.exceptions.PolarsError, OSError):
        # Writes already fail as UserErrors, so this is a part that the footer check passed but
        # whose data is damaged: name it, or show the error as it is when none is.
        raise_if_damaged([Path(run_dir)])
        raise
    title = f"Balance report: {run.manifest.get('game', '?')}, run {run.name}"
    write_outputs(title, sections, out_dir, fmts, files)
    return ReportResult(out_dir, files, summary)
