"""The report's plots: one function per plot, each reading a table from tables.py (never the
engine) and writing one PNG. Sized and labelled to be readable on a slide."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: reports are built in terminals and workers

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from terra_sim.analysis.files import writing  # noqa: E402
from terra_sim.analysis.render import VERDICT_COLOURS  # noqa: E402

DPI = 120
plt.rcParams.update({"font.size": 11, "axes.titlesize": 13, "axes.titleweight": "bold"})


def _save(fig, path: Path, tight: bool = True) -> Path:
    if tight:  # else the figure is laid out already, with room kept for a legend below
        fig.tight_layout()
    try:
        with writing(path):
            fig.savefig(path, dpi=DPI)
    finally:
        plt.close(fig)  # a failed write must not leak the figure
    return path


def _err(point, lo, hi) -> list[np.ndarray]:
    """Whisker lengths; rounding can put a bound a hair past its point (p = 1 at n = 1), and
    matplotlib rejects negative lengths, so clip at zero."""
    return [np.maximum(point - lo, 0.0), np.maximum(hi - point, 0.0)]


def _whiskers(ax, x, y, lo, hi, colours: list[str]) -> None:
    # errorbar takes one colour per call, so draw each colour's points together.
    by_point = np.asarray(colours)
    for c in dict.fromkeys(colours):
        m = by_point == c
        ax.errorbar(x[m], y[m], xerr=[np.nan_to_num(e) for e in _err(x[m], lo[m], hi[m])],
                    fmt="none", ecolor=c, capsize=3, lw=1.5)


def _height(rows: int) -> float:
    return max(3.0, 0.38 * rows + 1.5)


def _colours(verdicts) -> list[str]:
    return [VERDICT_COLOURS.get(v, VERDICT_COLOURS["fair"]) for v in verdicts]


def _dots(ax, x, lo, hi, colours: list[str], labels: list[str], ref: float,
          ref_label: str, xlabel: str) -> None:
    """One row per label (the first on top): a dot with its interval, and the line a fair row
    would sit on. Dots, not bars from 0, so that an edge of a point or two shows."""
    y = np.arange(len(labels))[::-1].astype(float)
    _whiskers(ax, x, y, lo, hi, colours)
    ax.scatter(x, y, c=colours, zorder=3, s=36)
    ax.axvline(ref, color="black", lw=1, ls="--", label=ref_label)
    ax.set_yticks(y, labels)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)


def _verdict_legend(fig, verdicts, ref_label: str) -> None:
    handles = [Line2D([], [], marker="o", ls="", color=VERDICT_COLOURS[v], label=v)
               for v in VERDICT_COLOURS if v in set(verdicts)]
    handles.append(Line2D([], [], color="black", ls="--", lw=1, label=ref_label))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=9,
               frameon=False, bbox_to_anchor=(0.5, 0.0))


def _two_measures(axes, df: pl.DataFrame, labels: list[str], expected: str) -> None:
    """Win share (around its expected share) on the left, VP margin (around 0) on the right,
    rows in the order of `df`, coloured by verdict."""
    colours = _colours(df["verdict"].to_list())
    edge = df["edge"].to_numpy() * 100
    _dots(axes[0], edge, df["edge_lo"].to_numpy() * 100, df["edge_hi"].to_numpy() * 100,
          colours, labels, 0.0, "fair", f"win share minus expected ({expected}), pp [95% Wilson]")
    m = df["margin_mean"].to_numpy()
    _dots(axes[1], m, df["margin_lo"].to_numpy(), df["margin_hi"].to_numpy(), colours, labels,
          0.0, "fair", "VP margin (VP minus game mean) [95% t]")
    axes[1].tick_params(labelleft=False)


def factions(ft: pl.DataFrame, path: Path, expected: str) -> Path:
    """Both measures side by side, strongest faction on top (rows in the order of `ft`),
    coloured by verdict."""
    fig, axes = plt.subplots(1, 2, figsize=(11, _height(ft.height) + 0.4), sharey=True)
    _two_measures(axes, ft, ft["faction"].cast(pl.Utf8).to_list(), expected)
    axes[0].set_title("Win share edge")
    axes[1].set_title("VP margin")
    fig.suptitle("Factions, strongest on top", fontweight="bold")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    _verdict_legend(fig, ft["verdict"].to_list(), "fair (0)")
    return _save(fig, path, tight=False)


def seats(st: pl.DataFrame, path: Path) -> Path:
    """Win share by seat around 1/n and VP margin around 0, one row of panels per player count,
    coloured by verdict."""
    counts = sorted(st["n_players"].unique().to_list())
    heights = [max(1, st.filter(pl.col("n_players") == n).height) for n in counts]
    fig, axes = plt.subplots(len(counts), 2, squeeze=False,
                             figsize=(11, 0.38 * sum(heights) + 1.3 * len(counts) + 1.2),
                             gridspec_kw={"height_ratios": heights})
    for row, n in zip(axes, counts, strict=True):
        sub = st.filter(pl.col("n_players") == n).sort("seat")
        labels = [f"seat {s + 1}" + (" (starts)" if s == 0 else "") for s in sub["seat"]]
        _two_measures(row, sub, labels, f"1/{n}")
        row[0].set_title(f"{n} players: win share edge", fontsize=11)
        row[1].set_title(f"{n} players: VP margin", fontsize=11)
    fig.suptitle("Seat advantage", fontweight="bold")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    _verdict_legend(fig, st["verdict"].to_list(), "fair (0)")
    return _save(fig, path, tight=False)


def head_to_head(h2h: pl.DataFrame, path: Path, order: list[str] | None = None) -> Path:
    """Heat map: share of shared games where the row faction finished ahead of the column,
    rows and columns in `order` (strongest first), else by name."""
    met = set(h2h["row"].to_list()) | set(h2h["col"].to_list())
    names = [f for f in order or [] if f in met] + sorted(met - set(order or []))
    idx = {f: i for i, f in enumerate(names)}
    mat = np.full((len(names), len(names)), np.nan)
    games = np.zeros_like(mat)
    for r, c, s, g in h2h.select("row", "col", "share", "games").iter_rows():
        mat[idx[r], idx[c]] = s * 100
        games[idx[r], idx[c]] = g
    size = max(5.0, 0.6 * len(names) + 2.5)
    fig, ax = plt.subplots(figsize=(size + 1, size))
    # The scale fits the data, centred on an even 50%: a full 0-100 scale would wash out the
    # few points that separate most pairs.
    spread = np.nanmax(np.abs(mat - 50)) if np.isfinite(mat).any() else 50.0
    spread = float(min(50.0, max(5.0, np.ceil(spread / 5) * 5)))
    cmap = plt.get_cmap("RdBu").with_extremes(bad="#e0e0e0")
    im = ax.imshow(np.ma.masked_invalid(mat), cmap=cmap, vmin=50 - spread, vmax=50 + spread)
    if len(names) <= 16:  # numbers stop being legible beyond that
        for i in range(len(names)):
            for j in range(len(names)):
                if not np.isnan(mat[i, j]):
                    ax.text(j, i, f"{mat[i, j]:.0f}", ha="center", va="center", fontsize=8,
                            color="white" if abs(mat[i, j] - 50) > 25 else "black")
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("column faction" + (", strongest first" if order else ""))
    ax.set_ylabel("row faction" + (", strongest first" if order else ""))
    ax.set_title("Head to head: % of shared games row finished ahead (ties ½)")
    fig.colorbar(im, ax=ax, label="% of games row ahead of column", shrink=0.8)
    if np.isnan(mat).any():
        fig.text(0.01, 0.01, "grey: the two never met (a faction and itself, or factions that "
                 "never share a game)", fontsize=9, color="#555555")
    return _save(fig, path)


def faction_strategy(fs: pl.DataFrame, path: Path) -> Path:
    """Mean margin per faction, one marker per strategy, with 95% t whiskers: do the bots agree?"""
    order = (fs.group_by("faction").agg(pl.col("margin_mean").mean()).sort("margin_mean")
             ["faction"].to_list())
    strategies = sorted(fs["strategy"].unique().to_list())
    y0 = {f: i for i, f in enumerate(order)}
    fig, ax = plt.subplots(figsize=(8.5, _height(len(order))))
    offsets = np.linspace(-0.3, 0.3, len(strategies)) if len(strategies) > 1 else [0.0]
    for off, strat in zip(offsets, strategies, strict=True):
        sub = fs.filter(pl.col("strategy") == strat)
        y = np.array([y0[f] for f in sub["faction"]]) + off
        m = sub["margin_mean"].to_numpy()
        err = _err(m, sub["margin_lo"].to_numpy(), sub["margin_hi"].to_numpy())
        ax.errorbar(m, y, xerr=[np.nan_to_num(e) for e in err], fmt="o", capsize=2,
                    label=strat, ms=5)
    ax.axvline(0, color="black", lw=0.8, ls="--")
    ax.set_yticks(range(len(order)), order)
    ax.set_xlabel("mean VP margin [95% t]")
    ax.set_title("Faction x strategy: does the ranking hold for every bot?")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(title="strategy", fontsize=9, loc="lower right")
    return _save(fig, path)


def strengths(st: pl.DataFrame, path: Path) -> Path:
    """Forest plot of Plackett-Luce log-strengths with 95% intervals (±1.96 SE)."""
    blocks = [b for b in ("faction", "strategy") if b in st["block"].to_list()]
    heights = [st.filter(pl.col("block") == b).height for b in blocks]
    fig, axes = plt.subplots(len(blocks), 1, figsize=(8, _height(sum(heights)) + 0.5),
                             squeeze=False, gridspec_kw={"height_ratios": heights})
    for ax, b in zip(axes[:, 0], blocks, strict=True):
        sub = st.filter(pl.col("block") == b).sort("strength")
        y = np.arange(sub.height)
        s = sub["strength"].to_numpy()
        ax.errorbar(s, y, xerr=_err(s, sub["lo"].to_numpy(), sub["hi"].to_numpy()), fmt="s",
                    color="#2166ac", capsize=3)
        ax.axvline(0, color="black", lw=0.8, ls="--")
        ax.set_yticks(y, sub["name"].to_list())
        ax.set_ylabel(b)
        ax.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel("log-strength (0 = average) [95% interval, ±1.96 SE]")
    axes[0, 0].set_title("Plackett-Luce strengths over finishing orders")
    return _save(fig, path)


def vp_categories(cat: pl.DataFrame, path: Path) -> Path:
    """Stacked bars: mean VP per scoring category for each faction."""
    cols = [c for c in cat.columns if c.startswith("vp_") and c != "vp_mean"]
    df = cat.sort("vp_mean", descending=True)
    x = np.arange(df.height)
    fig, ax = plt.subplots(figsize=(max(7.0, 0.7 * df.height + 3), 5))
    bottom_pos = np.zeros(df.height)
    bottom_neg = np.zeros(df.height)
    colours = plt.get_cmap("tab10" if len(cols) <= 10 else "tab20")
    for i, c in enumerate(cols):
        v = df[c].to_numpy()
        base = np.where(v >= 0, bottom_pos, bottom_neg)  # negative categories stack downwards
        ax.bar(x, v, bottom=base, label=c[3:], color=colours(i))
        bottom_pos += np.where(v >= 0, v, 0)
        bottom_neg += np.where(v < 0, v, 0)
    ax.set_xticks(x, df["faction"].to_list(), rotation=45, ha="right")
    ax.set_ylabel("mean VP per game")
    ax.set_title("Where the points come from")
    ax.legend(title="category", fontsize=9, bbox_to_anchor=(1.01, 1), loc="upper left")
    return _save(fig, path)


def _boxes(df: pl.DataFrame, label_col: str) -> list[dict]:
    return [{"label": str(r[label_col]), "whislo": r["q05"], "q1": r["q25"], "med": r["q50"],
             "q3": r["q75"], "whishi": r["q95"], "mean": r.get("mean", r["q50"]), "fliers": []}
            for r in df.iter_rows(named=True)]


def score_distribution(dist: pl.DataFrame, path: Path) -> Path:
    """Box plot of final VP per faction from quantiles: box 25-75%, whiskers 5-95%."""
    df = dist.sort("q50")
    fig, ax = plt.subplots(figsize=(8, _height(df.height)))
    ax.bxp(_boxes(df, "faction"), orientation="horizontal", showmeans=True, patch_artist=True,
           boxprops={"facecolor": "#d1e5f0"})
    ax.set_xlabel("final VP (box 25-75%, whiskers 5-95%, triangle = mean)")
    ax.set_title("Score distribution by faction")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def game_length(gl: pl.DataFrame, path: Path) -> Path:
    """Box plot of actions per game for each player count."""
    df = gl.sort("n_players").with_columns(
        (pl.col("n_players").cast(pl.Utf8) + " players").alias("label"),
        pl.col("n_actions_mean").alias("mean"))
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.bxp(_boxes(df, "label"), showmeans=True, patch_artist=True,
           boxprops={"facecolor": "#fddbc7"})
    ax.set_ylabel("actions per game (box 25-75%, whiskers 5-95%)")
    ax.set_title("Game length")
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


def change_forest(diff: pl.DataFrame, col: str, path: Path, xlabel: str, title: str,
                  scale: float = 1.0) -> Path:
    """Forest plot of a per-faction change (run B minus run A) with its 95% interval;
    significant changes (after correction) in colour."""
    df = diff.filter(pl.col(col).is_not_null() & pl.col(col).is_not_nan()).sort(col)
    y = np.arange(df.height)
    d = df[col].to_numpy() * scale
    lo, hi = df[f"{col}_lo"].to_numpy() * scale, df[f"{col}_hi"].to_numpy() * scale
    sig = df[f"{col}_significant"].to_numpy()
    colours = np.where(sig, np.where(d > 0, "#1a9850", "#d73027"), "#4d4d4d")
    fig, ax = plt.subplots(figsize=(8, _height(max(df.height, 1))))
    _whiskers(ax, d, y, lo, hi, list(colours))
    ax.scatter(d, y, c=list(colours), zorder=3)
    ax.axvline(0, color="black", lw=0.8, ls="--")
    ax.set_yticks(y, df["faction"].to_list())
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def vp_by_round(vr: pl.DataFrame, path: Path) -> Path:
    """Each faction's VP against the average faction, round by round (the last point is the
    final score), with 95% bands: when the edge arises."""
    fig, ax = plt.subplots(figsize=(9, 5.5))
    last = int(vr["round"].max())  # type: ignore[arg-type]
    order = (vr.filter(pl.col("round") == last).sort("vs_average", descending=True)["faction"]
             .to_list())
    cmap = plt.get_cmap("tab20")
    for i, f in enumerate(order):
        d = vr.filter(pl.col("faction") == f).sort("round")
        x = d["round"].to_numpy()
        colour = cmap(i % 20)
        ax.plot(x, d["vs_average"].to_numpy(), marker="o", ms=3, lw=1.6, color=colour, label=f)
        lo, hi = d["lo"].to_numpy(), d["hi"].to_numpy()
        ok = ~(np.isnan(lo.astype(float)) | np.isnan(hi.astype(float)))
        ax.fill_between(x[ok], lo[ok], hi[ok], color=colour, alpha=0.12, lw=0)
    ax.axhline(0, color="#888888", lw=1)
    ticks = list(range(1, last + 1))
    ax.set_xticks(ticks, [str(t) for t in ticks[:-1]] + ["final"])
    ax.set_xlabel("end of round")
    ax.set_ylabel("VP minus the average faction's [95%]")
    ax.set_title("When the edge arises: VP by round against the average faction")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    return _save(fig, path)


def action_mix(mix: pl.DataFrame, path: Path, kinds: int = 10) -> Path:
    """Actions per game by kind (the most played kinds), factions down, as a heat table."""
    top = (mix.group_by("kind").agg(pl.col("count").sum()).sort("count", descending=True)
           ["kind"].head(kinds).to_list())
    grid = (mix.filter(pl.col("kind").is_in(top))
            .pivot(on="kind", index="faction", values="per_game").fill_null(0.0)
            .sort("faction"))
    cols = [k for k in top if k in grid.columns]
    values = grid.select(cols).to_numpy()
    fig, ax = plt.subplots(figsize=(1.0 * len(cols) + 3, _height(grid.height)))
    im = ax.imshow(values, cmap="Blues", aspect="auto")
    for (i, j), v in np.ndenumerate(values):
        ax.text(j, i, f"{v:.1f}", ha="center", va="center", fontsize=8,
                color="white" if v > values.max() * 0.6 else "black")
    ax.set_xticks(range(len(cols)), cols, rotation=35, ha="right")
    ax.set_yticks(range(grid.height), grid["faction"].to_list())
    ax.set_title("Action mix: actions per game by kind")
    fig.colorbar(im, ax=ax, label="actions per game", shrink=0.8)
    return _save(fig, path)


def build_map(sites: pl.DataFrame, path: Path, cells: dict[str, tuple[float, float]]) -> Path:
    """Small multiples of the board, one per faction: each space shaded by the share of the
    faction's builds that went there."""
    factions = sites["faction"].unique().sort().to_list()
    cols = min(4, max(1, len(factions)))
    rows = -(-len(factions) // cols)
    xs = np.array([p[0] for p in cells.values()])
    ys = np.array([p[1] for p in cells.values()])
    names = list(cells)
    top = float(sites["share"].max() or 1.0)  # type: ignore[arg-type]
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.6 * rows + 0.6), squeeze=False)
    for ax in axes.flat:
        ax.set_axis_off()
    for ax, f in zip(axes.flat, factions, strict=False):
        share = dict(sites.filter(pl.col("faction") == f).select("site", "share").iter_rows())
        v = np.array([share.get(n, 0.0) for n in names])
        ax.scatter(xs, ys, c=v, cmap="YlOrRd", vmin=0, vmax=top, s=40, marker="h",
                   edgecolors="#bbbbbb", linewidths=0.4)
        ax.set_title(f, fontsize=10)
        ax.set_aspect("equal")
    fig.suptitle("Where each faction builds (share of its builds per space)",
                 fontweight="bold")
    sm = plt.cm.ScalarMappable(cmap="YlOrRd", norm=plt.Normalize(0, top))
    fig.colorbar(sm, ax=axes.ravel().tolist(), label="share of the faction's builds",
                 shrink=0.6)
    try:
        with writing(path):
            fig.savefig(path, dpi=DPI)
    finally:
        plt.close(fig)
    return path


def vp_sources(src: pl.DataFrame, path: Path) -> Path:
    """VP by source against the average faction, with 95% intervals: one panel per source."""
    cats = src["category"].unique().sort().to_list()
    factions = src["faction"].unique().sort(descending=True).to_list()
    fig, axes = plt.subplots(1, len(cats), figsize=(2.3 * len(cats) + 2,
                                                    _height(len(factions))),
                             sharey=True, squeeze=False)
    y = np.arange(len(factions))
    for ax, c in zip(axes[0], cats, strict=True):
        d = {r["faction"]: r for r in src.filter(pl.col("category") == c).iter_rows(named=True)}
        x = np.array([d[f]["vs_average"] if f in d else np.nan for f in factions], dtype=float)
        lo = np.array([d[f]["lo"] if f in d and d[f]["lo"] is not None else np.nan
                       for f in factions], dtype=float)
        hi = np.array([d[f]["hi"] if f in d and d[f]["hi"] is not None else np.nan
                       for f in factions], dtype=float)
        colours = ["#1a9850" if lo_ > 0 else "#d73027" if hi_ < 0 else "#4d4d4d"
                   for lo_, hi_ in zip(lo, hi, strict=True)]
        ax.scatter(x, y, c=colours, s=18, zorder=3)
        ok = ~np.isnan(lo)
        _whiskers(ax, x[ok], y[ok], lo[ok], hi[ok], [c_ for c_, o in zip(colours, ok,
                                                                       strict=True) if o])
        ax.axvline(0, color="#888888", lw=1)
        ax.set_title(c, fontsize=10)
    axes[0][0].set_yticks(y, factions)
    fig.suptitle("VP by source against the average faction [95%]", fontweight="bold")
    return _save(fig, path)


def calibration(its: pl.DataFrame, path: Path) -> Path:
    """A handicap calibration's convergence: each faction's handicap solved for, and its VP
    margin (as the report computes it), per iteration, with 95% intervals."""
    factions = sorted(its["faction"].unique().to_list())
    last = int(its["iteration"].max())  # type: ignore[arg-type]
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.5), sharex=True)
    colours = plt.get_cmap("tab20")(np.linspace(0, 1, max(len(factions), 2)))
    for (ax, col, title) in ((axes[0], "estimate", "Handicap solved for (VP)"),
                             (axes[1], "margin", "VP margin in the run")):
        for k, (f, c) in enumerate(zip(factions, colours, strict=False)):
            df = its.filter(pl.col("faction") == f).sort("iteration")
            # Factions side by side around each iteration, so their whiskers do not overlap.
            x = df["iteration"].to_numpy() + (k - (len(factions) - 1) / 2) * 0.3 / len(factions)
            y = df[col].to_numpy()
            ax.errorbar(x, y, yerr=_err(y, df[f"{col}_lo"].to_numpy(), df[f"{col}_hi"]
                                        .to_numpy()), color=c, marker="o", ms=4, capsize=2,
                        lw=1.2, label=f)
        ax.axhline(0, color="black", lw=0.8, ls="--")
        ax.set_title(title)
        ax.set_xlabel("iteration")
        ax.set_xticks(range(1, last + 1))
        ax.grid(axis="y", alpha=0.3)
    axes[1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=9)
    return _save(fig, path)


def ladder(table: pl.DataFrame, rungs: list[str], path: Path) -> Path:
    """A ladder's factions: each one's mean VP margin at each rung (weakest bots on the left),
    with 95% intervals, a line per faction: where lines cross, the ranking moved."""
    top = table.filter(pl.col("step") == len(rungs)).sort("rank")["faction"].to_list()
    factions = top + sorted(set(table["faction"].to_list()) - set(top))  # legend: top rung's order
    fig, ax = plt.subplots(figsize=(max(7.0, 1.6 * len(rungs) + 4), 6))
    colours = plt.get_cmap("tab20")(np.linspace(0, 1, max(len(factions), 2)))
    for k, (f, c) in enumerate(zip(factions, colours, strict=False)):
        df = table.filter(pl.col("faction") == f).sort("step")
        # Factions side by side around each rung, so their whiskers do not overlap.
        x = df["step"].to_numpy() - 1 + (k - (len(factions) - 1) / 2) * 0.4 / len(factions)
        y = df["margin"].to_numpy()
        ax.errorbar(x, y, yerr=_err(y, df["margin_lo"].to_numpy(), df["margin_hi"].to_numpy()),
                    color=c, marker="o", ms=4, capsize=2, lw=1.2, label=f)
    ax.axhline(0, color="black", lw=0.8, ls="--")
    ax.set_xticks(range(len(rungs)), rungs)
    ax.set_xlabel("rung (stronger bots to the right)")
    ax.set_ylabel("mean VP margin [95% bootstrap]")
    ax.set_title("Faction VP margin by rung")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=9)
    return _save(fig, path)
