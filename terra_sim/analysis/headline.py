"""The answer first: one verdict per faction from win share and VP margin, the factions sorted
by strength, one plain sentence, and what the run could have detected. The same text goes to the
top of the report and to the terminal."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from terra_sim.analysis import stats
from terra_sim.analysis.render import is_missing, num_ci, pp, pp_ci, text_table
from terra_sim.analysis.tables import POWER

ABOVE, BELOW = "above fair", "below fair"


def strength_order(ft: pl.DataFrame) -> pl.DataFrame:
    """Strongest first: by mean VP margin, the measure with the narrower interval, then by win
    share."""
    return ft.sort(["margin_mean", "win_share"], descending=True, nulls_last=True)


def verdict_label(r: dict) -> str:
    """The combined verdict, saying which measure carried it when only one did."""
    v, w, m = r["verdict"], r["win_verdict"], r["margin_verdict"]
    if v == stats.DISPUTED:
        return (f"disputed (win share {'up' if w == ABOVE else 'down'}, "
                f"margin {'up' if m == ABOVE else 'down'})")
    if v in (stats.TOO_STRONG, stats.TOO_WEAK) and (w in (ABOVE, BELOW)) != (m in (ABOVE, BELOW)):
        return f"{v} ({'win share' if w in (ABOVE, BELOW) else 'margin'} only)"
    return v


def _edges(r: dict) -> str:
    win = pp(r["edge"], signed=True)
    margin = "n/a" if is_missing(r["margin_mean"]) else f"{r['margin_mean']:+.1f} VP"
    label = verdict_label(r)
    only = label[label.index("(") + 1:-1] if "only" in label else ""
    return f"{r['faction']} ({win}, {margin}{'; ' + only if only else ''})"


def sentence(ft: pl.DataFrame) -> str:
    """'Too strong: X (+17.0 pp, +5.4 VP). Too weak: Y (...). Fair: the other 6 (...).', in
    Markdown, the strongest and the weakest named first."""
    df = strength_order(ft)
    groups = {v: [r for r in df.iter_rows(named=True) if r["verdict"] == v]
              for v in stats.VERDICTS}
    groups[stats.TOO_WEAK].reverse()  # the most extreme first, at either end
    parts = []
    for v in (stats.TOO_STRONG, stats.TOO_WEAK, stats.DISPUTED):
        if groups[v]:
            parts.append(f"**{v.capitalize()}:** " + ", ".join(_edges(r) for r in groups[v]))
    fair = [r["faction"] for r in groups[stats.FAIR]]
    if not parts:
        if not fair:
            return "Too few games to test any faction."
        # Not "balanced": the detectable edge, said next, may be wide.
        return "**No edge detected** on win share or VP margin for any faction."
    if fair:
        others = "the other one" if len(fair) == 1 else f"the other {len(fair)}"
        parts.append(f"**Fair** (no edge detected): {others} ({', '.join(fair)})")
    if groups[stats.TOO_FEW]:
        parts.append("**Too few games:** "
                     + ", ".join(r["faction"] for r in groups[stats.TOO_FEW]))
    return ". ".join(parts) + "."


def disagreement(ft: pl.DataFrame) -> str | None:
    """Where win share and margin disagree, in words, or None when they agree everywhere."""
    rows = []
    for r in strength_order(ft).iter_rows(named=True):
        w, m = r["win_verdict"], r["margin_verdict"]
        if w == m or r["verdict"] == stats.TOO_FEW:
            continue
        if w in (ABOVE, BELOW) and m in (ABOVE, BELOW):
            rows.append(f"{r['faction']} (win share {w.split()[0]}, margin {m.split()[0]})")
        elif m in (ABOVE, BELOW):
            rows.append(f"{r['faction']} (margin {m.split()[0]}, win share not significant)")
        elif w in (ABOVE, BELOW):
            rows.append(f"{r['faction']} (win share {w.split()[0]}, margin not significant)")
    if not rows:
        return None
    return ("Win share and VP margin disagree for " + "; ".join(rows) + ": a faction that "
            "often comes second gains margin without wins, and margin, being continuous, "
            "detects smaller edges.")


def detectable(pw: pl.DataFrame, k: int) -> str:
    """The smallest edges this run finds 80% of the time, per player count, after correction."""
    parts = []
    for r in pw.iter_rows(named=True):
        win = "no win-share edge" if is_missing(r["mdd_corrected"]) else \
            f"{pp(r['mdd_corrected'])} in win share"
        margin = "no margin edge" if is_missing(r["mdd_margin_corrected"]) else \
            f"{r['mdd_margin_corrected']:.1f} VP in margin"
        head = f"{r['n_players']} players: " if pw.height > 1 else ""
        parts.append(f"{head}{win} or {margin} "
                     f"(median {r['median_appearances']:,.0f} games per faction)")
    return (f"This run finds an edge of {'; '.join(parts)} {100 * POWER:.0f}% of the time at "
            f"alpha 0.05/{k}; a faction called fair may be off by less.")


def table(ft: pl.DataFrame) -> pl.DataFrame:
    """The headline table: strongest first, verdict, edges with intervals, games."""
    rows = [{"faction": str(r["faction"]), "verdict": verdict_label(r),
             "win-share edge [95% Wilson]": pp_ci(r["edge"], r["edge_lo"], r["edge_hi"]),
             "VP margin [95% t]": num_ci(r["margin_mean"], r["margin_lo"], r["margin_hi"],
                                         signed=True),
             "games": f"{r['games']:,}"}
            for r in strength_order(ft).iter_rows(named=True)]
    cols = ["faction", "verdict", "win-share edge [95% Wilson]", "VP margin [95% t]", "games"]
    return pl.DataFrame(rows, schema={c: pl.Utf8 for c in cols})


def expected_text(ft: pl.DataFrame) -> str:
    lo, hi = ft["expected_share"].min(), ft["expected_share"].max()
    if lo is None or hi is None:
        return "n/a"
    lo_f, hi_f = float(lo), float(hi)  # type: ignore[arg-type]
    return f"{100 * lo_f:.1f}%" if abs(hi_f - lo_f) < 5e-4 else \
        f"{100 * lo_f:.1f}-{100 * hi_f:.1f}% by player counts"


@dataclass
class Headline:
    sentence: str
    table: pl.DataFrame
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The headline for the terminal: the sentence, the table, the notes."""
        plain = self.sentence.replace("**", "")
        return "\n".join([f"Verdict: {plain}", "", text_table(self.table), "", *self.notes])


def headline(ft: pl.DataFrame, pw: pl.DataFrame, cname: str, alpha: float) -> Headline:
    k = ft.height
    notes = [f"Edge: win share minus the expected share ({expected_text(ft)}). Intervals are 95% "
             f"for each faction; each measure's verdict is {cname}-corrected over {k} factions "
             f"(alpha {alpha}), so an interval just clear of 0 can still be fair."]
    why = disagreement(ft)
    if why:
        notes.append(why)
    notes.append(detectable(pw, k))
    return Headline(sentence(ft), table(ft), notes)
