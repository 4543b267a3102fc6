"""The report's plots: one function per plot, each reading a table from tables.py (never the
engine) and writing one PNG. Sized and labelled to be readable on a slide."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: reports are built in terminals and workers

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from terra_sim.analysis.files import writing  # noqa: E402

DPI = 120
VERDICT_COLOURS = {"above fair": "#1a9850", "below fair": "#d73027",
                   "consistent with fair": "#4d4d4d", "too few games": "#aaaaaa"}
plt.rcParams.update({"font.size": 11, "axes.titlesize": 13, "axes.titleweight": "bold"})


def _save(fig, path: Path) -> Path:
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
        ax.errorbar(x[m], y[m], xerr=_err(x[m], lo[m], hi[m]), fmt="none", ecolor=c,
                    capsize=3, lw=1.5)


def _height(rows: int) -> float:
    return max(3.0, 0.38 * rows + 1.5)


def win_share(ft: pl.DataFrame, path: Path, title: str = "Win share by faction") -> Path:
    """Horizontal dots with 95% Wilson whiskers against each faction's expected share."""
    df = ft.sort("win_share")
    y = np.arange(df.height)
    fig, ax = plt.subplots(figsize=(8, _height(df.height)))
    share = df["win_share"].to_numpy() * 100
    lo, hi = df["win_lo"].to_numpy() * 100, df["win_hi"].to_numpy() * 100
    colours = [VERDICT_COLOURS.get(v, "#4d4d4d") for v in df["verdict"]]
    _whiskers(ax, share, y, lo, hi, colours)
    ax.scatter(share, y, c=colours, zorder=3, label="win share [95% Wilson]")
    ax.scatter(df["expected_share"].to_numpy() * 100, y, marker="|", s=200, c="#2166ac",
               zorder=2, label="expected share (1/n per game)")
    ax.set_yticks(y, df["faction"].to_list())
    ax.set_xlabel("win share, % of games (ties split)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize=9)
    return _save(fig, path)


def margin(ft: pl.DataFrame, path: Path, title: str = "VP margin by faction") -> Path:
    """Mean VP margin (VP minus the game's mean) with 95% t intervals."""
    df = ft.sort("margin_mean")
    y = np.arange(df.height)
    m = df["margin_mean"].to_numpy()
    lo, hi = df["margin_lo"].to_numpy(), df["margin_hi"].to_numpy()
    fig, ax = plt.subplots(figsize=(8, _height(df.height)))
    ax.errorbar(m, y, xerr=_err(m, lo, hi), fmt="o", color="#4d4d4d", capsize=3,
                label="mean margin [95% t]")
    ax.axvline(0, color="#2166ac", lw=1, ls="--", label="fair (0)")
    ax.set_yticks(y, df["faction"].to_list())
    ax.set_xlabel("VP margin (player VP minus game mean VP)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize=9)
    return _save(fig, path)


def seats(st: pl.DataFrame, path: Path) -> Path:
    """Win share by seat, one panel per player count, with 95% Wilson whiskers and 1/n."""
    counts = sorted(st["n_players"].unique().to_list())
    fig, axes = plt.subplots(1, len(counts), figsize=(4.2 * len(counts) + 1, 4), squeeze=False)
    for ax, n in zip(axes[0], counts, strict=True):
        sub = st.filter(pl.col("n_players") == n).sort("seat")
        x = sub["seat"].to_numpy() + 1
        s = sub["win_share"].to_numpy() * 100
        lo, hi = sub["win_lo"].to_numpy() * 100, sub["win_hi"].to_numpy() * 100
        ax.bar(x, s, color="#92c5de", edgecolor="#2166ac")
        ax.errorbar(x, s, yerr=_err(s, lo, hi), fmt="none", ecolor="black", capsize=4)
        ax.axhline(100 / n, color="#d73027", ls="--", lw=1, label=f"fair (1/{n})")
        ax.set_xticks(x)
        ax.set_xlabel("seat (1 = start player)")
        ax.set_ylabel("win share, % [95% Wilson]")
        ax.set_title(f"{n} players")
        ax.legend(fontsize=9)
    fig.suptitle("Seat advantage", fontweight="bold")
    return _save(fig, path)


def head_to_head(h2h: pl.DataFrame, path: Path) -> Path:
    """Heat map: share of shared games where the row faction finished ahead of the column."""
    names = sorted(set(h2h["row"].to_list()) | set(h2h["col"].to_list()))
    idx = {f: i for i, f in enumerate(names)}
    mat = np.full((len(names), len(names)), np.nan)
    games = np.zeros_like(mat)
    for r, c, s, g in h2h.select("row", "col", "share", "games").iter_rows():
        mat[idx[r], idx[c]] = s * 100
        games[idx[r], idx[c]] = g
    size = max(5.0, 0.6 * len(names) + 2.5)
    fig, ax = plt.subplots(figsize=(size + 1, size))
    im = ax.imshow(mat, cmap="RdBu", vmin=0, vmax=100)
    if len(names) <= 16:  # numbers stop being legible beyond that
        for i in range(len(names)):
            for j in range(len(names)):
                if not np.isnan(mat[i, j]):
                    ax.text(j, i, f"{mat[i, j]:.0f}", ha="center", va="center", fontsize=8,
                            color="white" if abs(mat[i, j] - 50) > 25 else "black")
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("column faction")
    ax.set_ylabel("row faction")
    ax.set_title("Head to head: % of shared games row finished ahead (ties ½)")
    fig.colorbar(im, ax=ax, label="% of games row ahead of column", shrink=0.8)
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
