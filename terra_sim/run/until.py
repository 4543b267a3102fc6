"""Run until sure: play a run's plan in batches until every faction's 95% intervals are as
narrow as asked (`until_ci` for the win share, `until_margin_ci` for the VP margin), or until
`max_games`.

The stopping check runs only at the boundaries of a schedule fixed by the content config (every
`until_batch` games) and reads only the games before the boundary, so an until run always holds
the first N games of its plan: N does not depend on the workers, the chunk size, the order
chunks finish in or a resume. The check computes the report's own faction table
(analysis.tables.faction_table), so the widths it stops on are the widths the report shows.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from terra_sim.run.config import RunConfig


def boundaries(cfg: RunConfig) -> list[int]:
    """Where the run checks: every until_batch games, and at max_games."""
    assert cfg.until_batch is not None and cfg.max_games is not None
    out = list(range(cfg.until_batch, cfg.max_games, cfg.until_batch))
    return [*out, cfg.max_games]


@dataclasses.dataclass
class Check:
    """The widest intervals among the first `games` games of a run."""

    games: int
    win: tuple[str, float]  # (faction, width of its 95% Wilson interval); inf: unmeasured
    margin: tuple[str, float]  # (faction, width of its 95% t interval of the VP margin)

    def sure(self, cfg: RunConfig) -> bool:
        return ((cfg.until_ci is None or self.win[1] <= cfg.until_ci)
                and (cfg.until_margin_ci is None or self.margin[1] <= cfg.until_margin_ci))

    def as_dict(self) -> dict[str, Any]:
        def width(x: float) -> float | None:
            return None if math.isinf(x) else x  # JSON has no infinity

        return {"games": self.games, "widest_win": width(self.win[1]),
                "widest_win_faction": self.win[0], "widest_margin": width(self.margin[1]),
                "widest_margin_faction": self.margin[0]}


def check(run_dir: Path, factions: list[str], games: int) -> Check:
    """The widest win-share and VP-margin intervals over the games before `games`, as the
    report computes them. A faction of the pool that has not played (or played once: no
    spread yet) has no interval, which counts as infinitely wide."""
    import polars as pl

    from terra_sim.analysis import tables

    run = tables.open_run(run_dir)
    first = dataclasses.replace(run, parts=run.parts.filter(pl.col("game_id") < games))
    ft = tables.faction_table(first)
    win = {f: math.inf for f in factions}
    margin = dict(win)
    for r in ft.iter_rows(named=True):
        for widths, lo, hi in ((win, "win_lo", "win_hi"), (margin, "margin_lo", "margin_hi")):
            w = (r[hi] - r[lo]) if r[hi] is not None and r[lo] is not None else math.nan
            # Rounded: the order polars sums a group in (part files, threads) moves the last
            # bits, and the record (and a tie for the widest) must not depend on it.
            widths[r["faction"]] = math.inf if math.isnan(w) else round(w, 12)

    def widest(widths: dict[str, float]) -> tuple[str, float]:
        # Ties go to the first faction by name, so the record does not depend on row order.
        return max(sorted(widths.items()), key=lambda t: t[1])

    return Check(games, widest(win), widest(margin))


def new_record(cfg: RunConfig) -> dict[str, Any]:
    """The manifest's `until` entry before the first check."""
    return {"win_ci": cfg.until_ci, "margin_ci": cfg.until_margin_ci, "batch": cfg.until_batch,
            "max_games": cfg.max_games, "stopped": None, "reason": None, "games": 0,
            "widest_win": None, "widest_margin": None, "checks": []}


def play_until(cfg: RunConfig, run_dir: Path, done: set[int], record: dict[str, Any],
               play: Callable[[list[int]], None], say: Callable[[str], None]) -> None:
    """Play batch after batch, checking at each boundary, until sure or at max_games.

    Games already on disk (a resume) are not played again, and every boundary is checked
    again from the first, so a resumed run stops where an uninterrupted one would have.
    `record` (the manifest's `until` entry) is filled in as the run goes."""
    factions = list(cfg.factions or ())
    start = 0
    for b in boundaries(cfg):
        todo = [i for i in range(start, b) if i not in done]
        if todo:
            play(todo)
        start = b
        c = check(run_dir, factions, b)
        record["checks"].append(c.as_dict())
        record.update(games=b, widest_win=_widest(c.win), widest_margin=_widest(c.margin))
        sure = c.sure(cfg)
        if sure or b == cfg.max_games:
            record["stopped"] = "sure" if sure else "max_games"
            record["reason"] = reason(record)
            say(record["reason"])
            return
        say(f"after {b:,} games: {_widths_text(record)}; going on")


def _widest(w: tuple[str, float]) -> dict[str, Any] | None:
    return None if math.isinf(w[1]) else {"faction": w[0], "width": w[1]}


def _widths_text(record: dict[str, Any]) -> str:
    parts = []
    for key, unit, target in (("widest_win", "win-share", "win_ci"),
                              ("widest_margin", "VP-margin", "margin_ci")):
        if record[target] is None:
            continue
        w = record[key]
        shown = "not measured yet" if w is None else (
            f"{_fmt(w['width'], target)} ({w['faction']})")
        parts.append(f"widest 95% {unit} interval {shown}, asked {_fmt(record[target], target)}")
    return "; ".join(parts)


def _fmt(x: float, target: str) -> str:
    return f"{100 * x:.2f} pp" if target == "win_ci" else f"{x:.2f} VP"


def reason(record: dict[str, Any]) -> str:
    """Why the run stopped, in one sentence: the report and the command line show it."""
    asked = " and ".join(
        f"every faction's 95% {unit} interval at most {_fmt(record[key], key)} wide"
        for key, unit in (("win_ci", "win-share"), ("margin_ci", "VP-margin"))
        if record[key] is not None)
    n = record["games"]
    if record["stopped"] == "sure":
        head = f"Stopped after {n:,} games (of at most {record['max_games']:,}): {asked}"
    else:
        head = f"Stopped at max_games, {n:,} games, before {asked}"
    return f"{head}. {_widths_text(record)[0].upper()}{_widths_text(record)[1:]}."
