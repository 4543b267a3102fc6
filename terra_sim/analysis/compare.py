"""Compare two runs (a what-if experiment): per-faction change in win share and VP margin from
run A to run B, with 95% intervals for the difference and a multiple-testing correction.
`compare_runs` is the entry point."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import polars as pl

from terra_sim.analysis import paired, plots, stats, tables
from terra_sim.analysis.files import raise_if_damaged
from terra_sim.analysis.report import (
    FORMATS,
    ReportResult,
    Section,
    caveat_text,
    is_missing,
    num_ci,
    parse_formats,
    pct_ci,
    pp,
    prepare_out,
    pval,
    save_csv,
    write_outputs,
)
from terra_sim.core.errors import UserError

_KEEP = ["games", "wins", "win_share", "win_lo", "win_hi", "expected_share", "margin_mean",
         "margin_sd", "margin_lo", "margin_hi"]


def change_table(ta: pl.DataFrame, tb: pl.DataFrame, keys: list[str],
                 correction: str = "holm") -> pl.DataFrame:
    """Join two outcome tables on `keys` and add, for B minus A: the win-share difference with a
    Newcombe 95% interval and pooled z-test, the margin difference with a Welch 95% interval and
    t-test, each family of p-values adjusted by `correction`. Rows present in only one run keep
    their numbers with null differences."""
    a = ta.select(*keys, *[pl.col(c).alias(f"{c}_a") for c in _KEEP])
    b = tb.select(*keys, *[pl.col(c).alias(f"{c}_b") for c in _KEEP])
    df = a.join(b, on=keys, how="full", coalesce=True).sort(keys)
    g = {c: df[c].cast(pl.Float64).fill_null(np.nan).to_numpy() for c in df.columns
         if c not in keys}
    lo, hi = stats.newcombe_diff_interval(g["wins_a"], g["games_a"], g["wins_b"], g["games_b"])
    p_win = stats.two_proportion_test(g["wins_a"], g["games_a"], g["wins_b"], g["games_b"])
    d_m, m_lo, m_hi, p_m = stats.welch_diff(g["margin_mean_a"], g["margin_sd_a"], g["games_a"],
                                            g["margin_mean_b"], g["margin_sd_b"], g["games_b"])
    adj_win = stats.adjust(p_win, correction)
    adj_m = stats.adjust(p_m, correction)
    return df.with_columns(
        pl.Series("win_change", g["win_share_b"] - g["win_share_a"]),
        pl.Series("win_change_lo", lo), pl.Series("win_change_hi", hi),
        pl.Series("win_change_p", p_win), pl.Series("win_change_p_adjusted", adj_win),
        pl.Series("win_change_significant", np.nan_to_num(adj_win, nan=1.0) < tables.ALPHA),
        pl.Series("margin_change", d_m),
        pl.Series("margin_change_lo", m_lo), pl.Series("margin_change_hi", m_hi),
        pl.Series("margin_change_p", p_m), pl.Series("margin_change_p_adjusted", adj_m),
        pl.Series("margin_change_significant", np.nan_to_num(adj_m, nan=1.0) < tables.ALPHA),
    ).fill_nan(None)


# How each change's interval is made: two independent samples, or the runs' paired games.
INDEPENDENT = ("Newcombe", "Welch")
PAIRED = ("paired t", "paired t")


def _display(df: pl.DataFrame, keys: list[str], labels: dict[str, str],
             correction: str, methods: tuple[str, str] = INDEPENDENT) -> pl.DataFrame:
    cname = stats.CORRECTIONS[correction][0]
    win_change = f"change [95% {methods[0]}]"
    margin_change = f"margin change [95% {methods[1]}]"
    rows = []
    for r in df.iter_rows(named=True):
        def n(x) -> str:
            return "0" if x is None else f"{int(x):,}"

        rows.append({
            **{labels[k]: str(r[k]) for k in keys},
            "games A / B": f"{n(r['games_a'])} / {n(r['games_b'])}",
            "win share A [95% Wilson]": pct_ci(r["win_share_a"], r["win_lo_a"], r["win_hi_a"]),
            "win share B [95% Wilson]": pct_ci(r["win_share_b"], r["win_lo_b"], r["win_hi_b"]),
            win_change: _pp_ci(r["win_change"], r["win_change_lo"], r["win_change_hi"]),
            f"p ({cname})": pval(r["win_change_p_adjusted"]),
            margin_change: num_ci(r["margin_change"], r["margin_change_lo"],
                                  r["margin_change_hi"], signed=True),
            f"margin p ({cname})": pval(r["margin_change_p_adjusted"]),
            "significant": _sig(r),
        })
    cols = [labels[k] for k in keys] + [
        "games A / B", "win share A [95% Wilson]", "win share B [95% Wilson]",
        win_change, f"p ({cname})", margin_change, f"margin p ({cname})", "significant"]
    return pl.DataFrame(rows, schema={c: pl.Utf8 for c in cols})


def _pp_ci(x, lo, hi) -> str:
    if is_missing(x):
        return "n/a"
    if is_missing(lo) or is_missing(hi):
        return pp(x, signed=True)
    return f"{100 * x:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}]"


def _sig(r: dict) -> str:
    if r["win_change_p_adjusted"] is None and r["margin_change_p_adjusted"] is None:
        return "n/a"  # untested: in one run only, or pooled over different player counts
    parts = []
    if r["win_change_significant"]:
        parts.append("win share " + ("up" if r["win_change"] > 0 else "down"))
    if r["margin_change_significant"]:
        parts.append("margin " + ("up" if r["margin_change"] > 0 else "down"))
    return ", ".join(parts) or "no"


def _ratio(paired_ct: pl.DataFrame, independent: pl.DataFrame, col: str) -> str:
    r = paired.width_ratio(paired_ct, independent, col)
    return "n/a" if np.isnan(r) else f"{100 * r:.0f}%"


def _change_phrase(r: dict) -> str:
    win = _pp_ci(r["win_change"], r["win_change_lo"], r["win_change_hi"])
    margin = num_ci(r["margin_change"], r["margin_change_lo"], r["margin_change_hi"],
                    signed=True)
    return f"{r['faction']}: {_sig(r)} (win share {win}, margin {margin} VP)"


def _flat(d, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(_flat(v, f"{prefix}{k}."))
    else:
        out[prefix.rstrip(".")] = json.dumps(d, sort_keys=True)
    return out


def manifest_changes(ma: dict, mb: dict) -> pl.DataFrame:
    """What differs between the two runs' set-ups (overrides, data, seeds, bots, config)."""
    keys = ["game", "data_set", "data_hash", "engine_version", "package_version",
            "master_seed", "player_counts", "factions", "strategies", "approximate_data"]
    rows = []
    for k in keys:
        va, vb = ma.get(k), mb.get(k)
        if va != vb:
            rows.append((k, json.dumps(va), json.dumps(vb)))
    for section in ("overrides", "config"):
        fa, fb = _flat(ma.get(section) or {}), _flat(mb.get(section) or {})
        for k in sorted(set(fa) | set(fb)):
            if fa.get(k) != fb.get(k):
                rows.append((f"{section}: {k}", fa.get(k, "(unset)"), fb.get(k, "(unset)")))
    return pl.DataFrame({"setting": [r[0] for r in rows], "run A": [r[1] for r in rows],
                         "run B": [r[2] for r in rows]},
                        schema={"setting": pl.Utf8, "run A": pl.Utf8, "run B": pl.Utf8})


def _runs_table(ra: tables.Run, rb: tables.Run, oa: dict, ob: dict) -> pl.DataFrame:
    def counts(o: dict) -> str:
        return ", ".join(f"{n}p: {g:,}" for n, g in o["games_by_count"].items()) or "none"

    def ov(m: dict) -> str:
        return json.dumps(m.get("overrides") or {}, sort_keys=True) if m.get("overrides") \
            else "none"

    items = [
        ("run directory", str(ra.path), str(rb.path)),
        ("game", ra.manifest.get("game", "?"), rb.manifest.get("game", "?")),
        ("games analysed", f"{oa['games']:,} ({counts(oa)})", f"{ob['games']:,} ({counts(ob)})"),
        ("games lost to errors", f"{oa['errors']:,}", f"{ob['errors']:,}"),
        ("strategies (bots)", ", ".join(oa["strategies"]), ", ".join(ob["strategies"])),
        ("master seed", str(ra.manifest.get("master_seed", "?")),
         str(rb.manifest.get("master_seed", "?"))),
        ("data set", f"{ra.manifest.get('data_set', '?')} ({ra.manifest.get('data_hash', '?')})",
         f"{rb.manifest.get('data_set', '?')} ({rb.manifest.get('data_hash', '?')})"),
        ("versions", f"{ra.manifest.get('package_version', '?')} / "
                     f"{ra.manifest.get('engine_version', '?')}",
         f"{rb.manifest.get('package_version', '?')} / "
         f"{rb.manifest.get('engine_version', '?')}"),
    ]
    if ov(ra.manifest) == ov(rb.manifest) != "none":
        # Overrides that differ are listed once, under "What changed"; shared ones only here.
        items.append(("what-if overrides (both)", ov(ra.manifest), ov(rb.manifest)))
    return pl.DataFrame({"": [i[0] for i in items], "run A": [i[1] for i in items],
                         "run B": [i[2] for i in items]})


def compare_runs(run_a: str | Path, run_b: str | Path, out: str | Path | None = None,
                 formats: str | Iterable[str] = FORMATS,
                 correction: str = "holm") -> ReportResult:
    """Compare run B against run A (B minus A) and write the comparison report to `out`
    (default reports/compare-<A>-vs-<B>/). Raises UserError for missing or non-run directories,
    runs of different games, or an unknown format."""
    fmts = parse_formats(formats)
    if correction not in stats.CORRECTIONS:
        raise UserError(f"unknown correction {correction!r}; choose holm or bh")
    try:
        return _compare(run_a, run_b, out, fmts, correction)
    except (pl.exceptions.PolarsError, OSError):
        # Writes already fail as UserErrors: this is a damaged part the footer check missed.
        raise_if_damaged([Path(run_a), Path(run_b)])
        raise


def _untested(ct: pl.DataFrame) -> pl.DataFrame:
    """The change table with its tests withheld (runs of different player counts)."""
    tests = [c for c in ct.columns if c.endswith(("_p", "_p_adjusted"))]
    return ct.with_columns(*[pl.lit(None, pl.Float64).alias(c) for c in tests],
                           pl.lit(False).alias("win_change_significant"),
                           pl.lit(False).alias("margin_change_significant"))


def _by_count_verdict(cc: pl.DataFrame, cname: str) -> str:
    both = cc.filter(pl.col("games_a").is_not_null() & pl.col("games_b").is_not_null())
    if both.height == 0:
        return "No player count is in both runs, so no faction can be compared like with like."
    sig = both.filter(pl.col("win_change_significant") | pl.col("margin_change_significant"))
    found = "; ".join(f"{r['faction']} ({r['n_players']}p): {_sig(r)}"
                      for r in sig.iter_rows(named=True)) or "no faction changed significantly"
    return (f"Significant by player count after {cname} correction (alpha = {tables.ALPHA}) "
            f"at the counts both runs played: {found}.")


def _player_counts(o: dict) -> str:
    *rest, last = map(str, o["games_by_count"])
    return f"{', '.join(rest)} and {last}" if rest else last


def _compare(run_a: str | Path, run_b: str | Path, out: str | Path | None,
             fmts: tuple[str, ...], correction: str) -> ReportResult:
    # Streamed, not held: a comparison asks a few tables of two runs that may be big.
    ra, rb = tables.open_run(run_a, in_memory=False), tables.open_run(run_b, in_memory=False)
    ga, gb = ra.manifest.get("game"), rb.manifest.get("game")
    if ga and gb and ga != gb:
        raise UserError(f"cannot compare a {ga} run with a {gb} run")
    name_a, name_b = ra.path.resolve().name, rb.path.resolve().name
    oa, ob = tables.overview(ra), tables.overview(rb)
    out_dir = prepare_out(out, f"compare-{name_a}-vs-{name_b}")
    files: list[Path] = []
    cname = stats.CORRECTIONS[correction][0]
    strategies = sorted(set(oa["strategies"]) | set(ob["strategies"]))

    sections = [
        Section("Runs", ["Run A is the baseline, run B the experiment; every change is B minus "
                         "A."], [("", _runs_table(ra, rb, oa, ob))]),
        Section("What changed", [], []),
        Section("Caveat", [caveat_text(strategies)]),
    ]
    changes = manifest_changes(ra.manifest, rb.manifest)
    save_csv(changes, out_dir, "setup_changes", files)
    if changes.height:
        sections[1].text.append("Settings that differ between the two runs:")
        sections[1].tables.append(("", changes))
    else:
        sections[1].text.append("The two manifests record the same set-up: any difference "
                                "below is chance (or a change the manifest does not record).")
    summary = [f"Compare {name_b!r} (B) with {name_a!r} (A): {oa['games']:,} vs "
               f"{ob['games']:,} games."]
    if changes.height:
        summary.append("Changed: " + "; ".join(
            f"{s} {a} -> {b}" for s, a, b in changes.head(5).iter_rows()))

    if oa["games"] == 0 or ob["games"] == 0:
        sections.append(Section("Results", ["One of the runs has no finished games, so there "
                                            "is nothing to compare."]))
        summary.append("One run has no finished games: nothing to compare.")
    else:
        joined, unpaired_why = paired.pair_games(ra, rb)
        # Paired games have the same player count on both sides, so their tests always hold.
        same_counts = joined is not None or (
            set(oa["games_by_count"]) == set(ob["games_by_count"]))
        ct = change_table(tables.faction_table(ra, correction),
                          tables.faction_table(rb, correction), ["faction"], correction)
        methods = INDEPENDENT
        if joined is not None:
            independent = ct
            ct = paired.paired_change_table(joined, ["faction"], correction)
            cc = paired.paired_change_table(joined, ["n_players", "faction"], correction)
            methods = PAIRED
            pairs = joined.select(pl.col("game_id").n_unique()).collect().item()
            named = paired.touched(ct["faction"].to_list(), changes["setting"].to_list())
            analysis = (
                f"Analysis: paired. The runs share a plan (master seed, and the same factions "
                f"and bots in the same seats of every game), so game i of A is set against "
                f"game i of B over the {pairs:,} games both finished: each change is the mean "
                "per-game difference, with a paired t 95% interval and test. Paired intervals "
                f"are {_ratio(ct, independent, 'win')} (win share) and "
                f"{_ratio(ct, independent, 'margin')} (margin) of the width an "
                "independent-samples analysis of the same runs gives.")
            if named:
                analysis += (f" The change names {', '.join(named)}; every other row is its "
                             "knock-on effect on a faction the change did not touch.")
        else:
            if not same_counts:
                ct = _untested(ct)
            cc = change_table(tables.faction_count_table(ra, correction),
                              tables.faction_count_table(rb, correction),
                              ["n_players", "faction"], correction)
            analysis = (f"Analysis: independent samples, because {unpaired_why}. (Runs of one "
                        "plan, e.g. the same config with one override changed, are analysed "
                        "game by game, with narrower intervals.)")
        summary.append(analysis)
        save_csv(ct, out_dir, "faction_changes", files)
        save_csv(cc, out_dir, "faction_changes_by_player_count", files)
        imgs = []
        if same_counts:
            sig = ct.filter(pl.col("win_change_significant")
                            | pl.col("margin_change_significant"))
            found = ("; ".join(_change_phrase(r) for r in sig.iter_rows(named=True))
                     or "no faction changed significantly")
            verdict = (f"Significant after {cname} correction (alpha = {tables.ALPHA}, win share "
                       f"and margin each corrected across the {ct.height} factions): {found}.")
            summary.append(verdict)
            if joined is not None:
                text = [analysis + " " + verdict]
            else:
                text = [analysis,
                        "Win share change is B minus A with Newcombe's 95% interval for a "
                        "difference of proportions (built from the two Wilson intervals) and a "
                        "pooled two-proportion z-test; margin change uses Welch's 95% t interval "
                        "and test. " + verdict,
                        "With different player-count mixes the expected shares differ too; the "
                        "table by player count below compares like with like."]
            for col, label, title, name, scale in (
                    ("win_change", f"change in win share, B minus A, pp [95% {methods[0]}]",
                     "Change in win share by faction", "win_share_change", 100.0),
                    ("margin_change", f"change in mean VP margin, B minus A [95% {methods[1]}]",
                     "Change in VP margin by faction", "margin_change", 1.0)):
                p = plots.change_forest(ct, col, out_dir / "plots" / f"{name}.png", label,
                                        title, scale)
                files.append(p)
                imgs.append(p)
        else:
            # A pooled win share moves with the player counts alone (a fair share is 1/n), so
            # pooled changes are shown untested and only equal counts are set against each other.
            differ = (f"Player counts differ: run A played {_player_counts(oa)} players, run B "
                      f"{_player_counts(ob)}; pooled changes are not tested, only the same player "
                      "count is compared.")
            verdict = _by_count_verdict(cc, cname)
            summary += [differ, verdict]
            text = [analysis,
                    f"**{differ}** A faction's pooled win share differs between such runs by "
                    "the player counts alone (a fair share is 1/n), so the table below shows the "
                    "raw numbers without a test; see the table by player count. " + verdict]
        sections.append(Section(
            "Change by faction", text,
            [(f"Change by faction (B minus A), p adjusted by {cname}",
              _display(ct, ["faction"], {"faction": "faction"}, correction, methods))], imgs))
        sections.append(Section(
            "Change by faction and player count", [],
            [(f"Change by faction and player count (B minus A), p adjusted by {cname} across "
              "all rows", _display(cc, ["n_players", "faction"],
                                   {"n_players": "players", "faction": "faction"},
                                   correction, methods))]))
    summary.append("Caveat: " + caveat_text(strategies))
    title = f"What-if comparison: {name_b} vs {name_a}"
    write_outputs(title, sections, out_dir, fmts, files)
    return ReportResult(out_dir, files, "\n".join(summary))
