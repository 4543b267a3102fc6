"""How reports look: number formats, the Section a report is made of, and its rendering to
Markdown (padded, to read in a terminal too), a self-contained HTML page and plain text tables.
Nothing here computes a statistic."""

from __future__ import annotations

import base64
import html
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from terra_sim.analysis.files import writing
from terra_sim.core.errors import UserError

FORMATS = ("html", "md")

# One colour per verdict, shared by the HTML cells and the plots: the two kinds of imbalance
# in contrasting hues, "no edge found" in neutral grey.
VERDICT_COLOURS = {"too strong": "#b2182b", "too weak": "#2166ac", "disputed": "#e08214",
                   "fair": "#4d4d4d", "too few games": "#aaaaaa"}
VERDICT_MEANING = {
    "too strong": "win share or VP margin significantly above fair, neither below",
    "too weak": "win share or VP margin significantly below fair, neither above",
    "disputed": "one measure significantly above fair, the other below",
    "fair": "no edge detected on either measure (which is not proof of none)",
    "too few games": "nothing to test",
}


@dataclass
class Section:
    """One part of a report, rendered the same way to Markdown and HTML. A `box` section is
    the answer at the top of the page, drawn as a framed box."""

    title: str
    text: list[str] = field(default_factory=list)
    tables: list[tuple[str, pl.DataFrame]] = field(default_factory=list)  # caption, strings
    images: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # text after the tables
    items: list[str] = field(default_factory=list)  # a bulleted list, after the text
    box: bool = False
    legend: bool = False  # say what the verdicts in its tables mean, in their colours


# --- formatting ----------------------------------------------------------------------------------


def is_missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def pct(x, digits: int = 1) -> str:
    return "n/a" if is_missing(x) else f"{100 * x:.{digits}f}%"


def pct_ci(x, lo, hi, digits: int = 1) -> str:
    if is_missing(x):
        return "n/a"
    if is_missing(lo) or is_missing(hi):
        return pct(x, digits)
    return f"{100 * x:.{digits}f}% [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def num_ci(x, lo, hi, digits: int = 1, signed: bool = False) -> str:
    if is_missing(x):
        return "n/a"
    f = f"{{:{'+' if signed else ''}.{digits}f}}"
    if is_missing(lo) or is_missing(hi):
        return f.format(x)
    return f"{f.format(x)} [{f.format(lo)}, {f.format(hi)}]"


def pp(x, digits: int = 1, signed: bool = False) -> str:
    """A difference of shares, in percentage points."""
    return "n/a" if is_missing(x) else f"{100 * x:{'+' if signed else ''}.{digits}f} pp"


def pp_ci(x, lo, hi, digits: int = 1) -> str:
    """A signed difference of shares in percentage points, with its interval."""
    if is_missing(x):
        return "n/a"
    if is_missing(lo) or is_missing(hi):
        return pp(x, digits, signed=True)
    return f"{100 * x:+.{digits}f} pp [{100 * lo:+.{digits}f}, {100 * hi:+.{digits}f}]"


def pval(p) -> str:
    if is_missing(p):
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


# --- tables as text ------------------------------------------------------------------------------

_NUMERIC = re.compile(r"^[-+<±$0-9.]|^n/a$|^—$")


def _right_aligned(df: pl.DataFrame) -> list[bool]:
    """Columns of numbers read best right-aligned, words left; the first column (the row's
    name) always left."""
    out = []
    for i, c in enumerate(df.columns):
        values = [str(v) for v in df[c].to_list() if str(v)]
        out.append(i > 0 and bool(values) and all(_NUMERIC.match(v) for v in values))
    return out


def text_table(df: pl.DataFrame, gap: str = "  ") -> str:
    """A table as padded plain text, for the terminal."""
    cols = [[str(c), *map(str, df[c].to_list())] for c in df.columns]
    widths = [max(map(len, col)) for col in cols]
    right = _right_aligned(df)
    lines = []
    for i in range(df.height + 1):
        lines.append(gap.join(col[i].rjust(w) if r else col[i].ljust(w)
                              for col, w, r in zip(cols, widths, right, strict=True)).rstrip())
    return "\n".join(lines)


def _md_cell(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def md_table(df: pl.DataFrame) -> str:
    """A Markdown table padded to column width, so that it reads in a terminal as it is."""
    cols = [[_md_cell(c), *map(_md_cell, df[c].to_list())] for c in df.columns]
    widths = [max(3, *map(len, col)) for col in cols]
    right = _right_aligned(df)

    def row(i: int) -> str:
        return "| " + " | ".join(col[i].rjust(w) if r else col[i].ljust(w)
                                 for col, w, r in zip(cols, widths, right, strict=True)) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if r else (":" + "-" * (w + 1))
                          for w, r in zip(widths, right, strict=True)) + "|"
    return "\n".join([row(0), rule, *(row(i) for i in range(1, df.height + 1))])


def render_markdown(title: str, sections: list[Section], out_dir: Path) -> str:
    parts = [f"# {title}", ""]
    for s in sections:
        parts += [f"## {s.title}", ""]
        for t in s.text:
            parts += [t, ""]
        if s.items:
            parts += [*(f"- {t}" for t in s.items), ""]
        for caption, df in s.tables:
            if caption:
                parts += [f"**{caption}**", ""]
            parts += [md_table(df) if df.height else "_(no rows)_", ""]
        if s.legend and _verdicts_in(s.tables):
            parts += [verdict_legend_md(_verdicts_in(s.tables)), ""]
        for t in s.notes:
            parts += [t, ""]
        for img in s.images:
            rel = img.relative_to(out_dir).as_posix()
            parts += [f"![{img.stem.replace('_', ' ')}]({rel})", ""]
    return "\n".join(parts)


# --- HTML ----------------------------------------------------------------------------------------

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1320px;
margin:1em auto;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;margin:0.3em 0 0.4em;border-bottom:2px solid #2166ac}
h2{margin-top:2em;border-bottom:1px solid #ccc}
.tw{overflow-x:auto;margin:0.4em 0 1em}
table{border-collapse:collapse;font-size:0.85em}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;white-space:nowrap}
th{background:#eef3f8}th.l,td.l{text-align:left}
caption{caption-side:top;text-align:left;font-weight:bold;padding:4px 0}
img{max-width:100%;display:block;margin:0.5em 0 1.5em}
p{margin:0.5em 0}
.caveat{background:#fff4e5;border-left:4px solid #f0a030;padding:0.6em 1em}
.box{border:2px solid #2166ac;border-radius:6px;padding:0.2em 1em 0.5em;background:#f7fafd}
.box h2{margin:0.3em 0;border:none;font-size:1.3em}
.box p.lead{font-size:1.1em}
.v{font-weight:bold}
.legend{font-size:0.9em}
"""

_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`(.+?)`")


def _inline(text: str) -> str:
    # The sections' text uses a little Markdown (bold, code); carry it over to HTML.
    t = html.escape(text)
    t = _BOLD.sub(r"<strong>\1</strong>", t)
    return _CODE.sub(r"<code>\1</code>", t)


def verdict_of(text: str) -> str | None:
    """The verdict a cell starts with ("too strong (margin only)" -> "too strong")."""
    return next((v for v in VERDICT_COLOURS if str(text).startswith(v)), None)


def _cell(value: object, column: str, left: bool) -> str:
    cls = ["l"] if left else []
    style = ""
    v = verdict_of(str(value)) if column.startswith("verdict") else None
    if v:
        cls.append("v")
        style = f" style='color:{VERDICT_COLOURS[v]}'"
    attr = f" class='{' '.join(cls)}'" if cls else ""
    return f"<td{attr}{style}>{html.escape(str(value))}</td>"


def _html_table(caption: str, df: pl.DataFrame) -> list[str]:
    right = _right_aligned(df)
    out = ["<div class='tw'><table>"]
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    out.append("<tr>" + "".join(f"<th{'' if r else ' class=l'}>{html.escape(str(c))}</th>"
                                for c, r in zip(df.columns, right, strict=True)) + "</tr>")
    for row in df.iter_rows():
        out.append("<tr>" + "".join(_cell(v, c, not r) for v, c, r in
                                    zip(row, df.columns, right, strict=True)) + "</tr>")
    out.append("</table></div>")
    return out


def _verdicts_in(tables: list[tuple[str, pl.DataFrame]]) -> list[str]:
    present = {verdict_of(v) for _, df in tables if "verdict" in df.columns
               for v in df["verdict"]}
    return [v for v in VERDICT_COLOURS if v in present]


def verdict_legend_md(verdicts: list[str]) -> str:
    return "Verdicts: " + "; ".join(f"**{v}**: {VERDICT_MEANING[v]}" for v in verdicts) + "."


def verdict_legend_html(verdicts: list[str]) -> str:
    """What each verdict present means, in the colour the tables and plots give it."""
    return "<p class='legend'>" + "<br>".join(
        f"<span class='v' style='color:{VERDICT_COLOURS[v]}'>■ {html.escape(v)}</span>: "
        f"{html.escape(VERDICT_MEANING[v])}" for v in verdicts) + "</p>"


def render_html(title: str, sections: list[Section]) -> str:
    out = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
           f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>",
           f"<h1>{html.escape(title)}</h1>"]
    for s in sections:
        anchor = re.sub(r"[^a-z0-9]+", "-", s.title.lower()).strip("-")
        if s.box:
            out.append(f"<section class='box' id='{anchor}'>")
            out.append(f"<h2>{html.escape(s.title)}</h2>")
        else:
            out.append(f"<h2 id='{anchor}'>{html.escape(s.title)}</h2>")
        for i, t in enumerate(s.text):
            cls = " class='caveat'" if s.title.lower().startswith("caveat") else \
                " class='lead'" if s.box and i == len(s.text) - 1 else ""
            out.append(f"<p{cls}>{_inline(t)}</p>")
        if s.items:
            out.append("<ul>" + "".join(f"<li>{_inline(t)}</li>" for t in s.items) + "</ul>")
        for caption, df in s.tables:
            out += _html_table(caption, df)
        if s.legend and _verdicts_in(s.tables):
            out.append(verdict_legend_html(_verdicts_in(s.tables)))
        for t in s.notes:
            out.append(f"<p>{_inline(t)}</p>")
        for img in s.images:
            data = base64.b64encode(img.read_bytes()).decode("ascii")
            out.append(f"<img alt='{html.escape(img.stem)}' "
                       f"src='data:image/png;base64,{data}'>")
        if s.box:
            out.append("</section>")
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
