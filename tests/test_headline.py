"""The answer first: both measures' tests and verdicts against scipy and hand computations from
the raw player rows, the headline's sentence and table, and where the measures disagree."""

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from report_fixtures import FACTIONS, make_run, make_scored_run
from scipy import stats as sps

from terra_sim.analysis import headline, tables
from terra_sim.analysis.render import md_table, text_table
from terra_sim.analysis.report import build_report

PLAIN = [f"plain-{i}" for i in range(10)]


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> Path:
    """10 fair factions, 'bold' a little better on average and steadier than them (more
    margin, not significantly more wins), 'steady' very steady just above average (more margin,
    but it rarely tops three swingy rivals: fewer wins). 4-player games only."""
    rng = np.random.default_rng(1)
    spec = {"steady": (103, 1), "bold": (104, 10), **{p: (100, 20) for p in PLAIN}}
    pool = list(spec)
    games = []
    for _ in range(1800):
        fs = [str(f) for f in rng.choice(pool, 4, replace=False)]
        games.append((fs, [int(round(rng.normal(*spec[f]))) for f in fs]))
    return make_scored_run(tmp_path_factory.mktemp("runs") / "planted", games)


def _holm_by_hand(p: list[float]) -> list[float]:
    """Holm's step-down adjustment written out: the i-th smallest times (m - i), running max."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p[i]))
        out[i] = running
    return out


def test_both_measures_match_scipy_from_the_raw_rows(planted):
    rows = pl.read_parquet(planted / "players" / "*.parquet")
    ft = tables.faction_table(tables.open_run(planted)).sort("faction")
    margin_p, win_p = [], []
    checked_wilson = 0
    for r in ft.iter_rows(named=True):
        mine = rows.filter(pl.col("faction") == r["faction"])
        m = mine["margin"].to_numpy()
        t = sps.ttest_1samp(m, 0.0)
        ci = t.confidence_interval(0.95)
        assert r["margin_p_value"] == pytest.approx(t.pvalue, rel=1e-9, abs=1e-300)
        assert (r["margin_lo"], r["margin_hi"]) == pytest.approx((ci.low, ci.high))
        margin_p.append(t.pvalue)
        # Win share: the binomial score test against 1/4 per game, by hand.
        n, w = mine.height, float(mine["win_share"].sum())
        z = (w - n / 4) / math.sqrt(n * 0.25 * 0.75)
        win_p.append(2 * sps.norm.sf(abs(z)))
        assert r["p_value"] == pytest.approx(win_p[-1], rel=1e-9)
        assert r["edge"] == pytest.approx(w / n - 0.25)
        if w == int(w):  # no split wins: scipy's Wilson interval applies as it is
            wil = sps.binomtest(int(w), n).proportion_ci(0.95, method="wilson")
            assert (r["edge_lo"], r["edge_hi"]) == pytest.approx((wil.low - 0.25,
                                                                  wil.high - 0.25))
            checked_wilson += 1
    assert checked_wilson >= 3
    # The same correction, Holm, on both measures' families.
    assert ft["margin_p_adjusted"].to_list() == pytest.approx(_holm_by_hand(margin_p))
    assert ft["p_adjusted"].to_list() == pytest.approx(_holm_by_hand(win_p))
    bh = tables.faction_table(tables.open_run(planted), "bh").sort("faction")
    assert bh["margin_p_adjusted"].to_list() == pytest.approx(
        list(sps.false_discovery_control(margin_p)))
    # Each measure's verdict follows its own adjusted p-value and sign.
    for r in ft.iter_rows(named=True):
        sig = r["margin_p_adjusted"] < 0.05
        expect = ("above fair" if r["margin_mean"] > 0 else "below fair") if sig \
            else "consistent with fair"
        assert r["margin_verdict"] == expect


def test_the_measures_disagree_and_the_report_says_so(planted, tmp_path):
    ft = tables.faction_table(tables.open_run(planted))
    by = {r["faction"]: r for r in ft.iter_rows(named=True)}
    steady, bold = by["steady"], by["bold"]
    assert (steady["win_verdict"], steady["margin_verdict"]) == ("below fair", "above fair")
    assert steady["verdict"] == "disputed"
    assert headline.verdict_label(steady) == "disputed (win share down, margin up)"
    assert (bold["win_verdict"], bold["margin_verdict"]) == ("consistent with fair",
                                                             "above fair")
    assert bold["verdict"] == "too strong"
    assert headline.verdict_label(bold) == "too strong (margin only)"
    assert {by[p]["verdict"] for p in PLAIN} == {"fair"}

    r = build_report(planted, out=tmp_path / "rep", formats="md")
    md = (r.out_dir / "report.md").read_text()
    box = md.split("\n## ")[1]  # the first section: the verdict box
    assert box.startswith("Verdict")
    assert (f"**Too strong:** bold ({100 * bold['edge']:+.1f} pp, "
            f"{bold['margin_mean']:+.1f} VP; margin only)") in box
    assert (f"**Disputed:** steady ({100 * steady['edge']:+.1f} pp, "
            f"{steady['margin_mean']:+.1f} VP)") in box
    assert "**Fair** (no edge detected): the other 10 (" in box
    assert ("Win share and VP margin disagree for bold (margin above, win share not "
            "significant); steady (win share below, margin above)") in box
    # The terminal gets the same sentence and table, without the Markdown.
    assert r.headline.startswith("Verdict: Too strong: bold (")
    assert "disputed (win share down, margin up)" in r.headline
    assert r.headline in r.summary


def test_headline_box_numbers_and_order(tmp_path):
    run_dir = make_run(tmp_path / "small", n4=400, n2=0, errors=0)
    ft = tables.faction_table(tables.open_run(run_dir))
    h = headline.headline(ft, tables.power_table(tables.open_run(run_dir),
                                                 tables.faction_count_table(
                                                     tables.open_run(run_dir)), 10),
                          "Holm", 0.05)
    # Strongest first by mean VP margin; the planted extremes at the two ends.
    assert h.table["faction"].to_list() == ft.sort("margin_mean", descending=True)[
        "faction"].to_list()
    assert h.table["faction"][0] == "witches" and h.table["faction"][-1] == "halflings"
    w = ft.filter(pl.col("faction") == "witches").row(0, named=True)
    row = h.table.row(0, named=True)
    assert row["verdict"] == "too strong"
    assert row["win-share edge [95% Wilson]"] == (
        f"{100 * (w['win_share'] - 0.25):+.1f} pp [{100 * (w['win_lo'] - 0.25):+.1f}, "
        f"{100 * (w['win_hi'] - 0.25):+.1f}]")
    assert row["VP margin [95% t]"] == (f"{w['margin_mean']:+.1f} [{w['margin_lo']:+.1f}, "
                                        f"{w['margin_hi']:+.1f}]")
    assert h.sentence.startswith("**Too strong:** witches (")
    assert "**Too weak:** halflings (" in h.sentence


def test_detectable_edges_from_the_raw_rows(tmp_path):
    run_dir = make_run(tmp_path / "small", n4=400, n2=100, errors=0)
    run = tables.open_run(run_dir)
    pw = tables.power_table(run, tables.faction_count_table(run), 10)
    rows = pl.read_parquet(run_dir / "players" / "*.parquet")
    for n in (2, 4):
        r = pw.filter(pl.col("n_players") == n).row(0, named=True)
        sub = rows.filter(pl.col("n_players") == n)
        # The factions' pooled within-faction margin spread, from the rows.
        ss = dof = 0.0
        apps = []
        for _, g in sub.group_by("faction"):
            m = g["margin"].to_numpy()
            apps.append(m.size)
            ss += ((m - m.mean()) ** 2).sum()
            dof += m.size - 1
        sd = math.sqrt(ss / dof)
        assert r["margin_sd"] == pytest.approx(sd)
        k = float(np.median(apps))
        for alpha, col in ((0.05, "mdd_margin"), (0.005, "mdd_margin_corrected")):
            za, zb = sps.norm.ppf(1 - alpha / 2), sps.norm.ppf(0.8)
            assert r[col] == pytest.approx((za + zb) * sd / math.sqrt(k))


def test_tables_are_padded_to_read_in_a_terminal():
    df = pl.DataFrame({"faction": ["a", "long-name"], "verdict": ["fair", "too strong"],
                       "edge": ["+1.0 pp", "-12.5 pp"]})
    assert md_table(df).splitlines() == [
        "| faction   | verdict    |     edge |",
        "|:----------|:-----------|---------:|",  # words left, numbers right
        "| a         | fair       |  +1.0 pp |",
        "| long-name | too strong | -12.5 pp |"]
    assert text_table(df).splitlines() == [
        "faction    verdict         edge",
        "a          fair         +1.0 pp",
        "long-name  too strong  -12.5 pp"]


def test_no_edge_is_not_called_balance(tmp_path):
    even = make_run(tmp_path / "even", n4=60, n2=0, errors=0, strategies=["greedy"],
                    strength={f: 0 for f in FACTIONS})
    r = build_report(even, out=tmp_path / "rep", formats="md")
    assert r.headline.startswith(
        "Verdict: No edge detected on win share or VP margin for any faction.")
    assert set(tables.faction_table(tables.open_run(even))["verdict"]) == {"fair"}
    # ... and says how large an edge could have hidden.
    assert "This run finds an edge of " in r.headline
