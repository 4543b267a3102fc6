"""Tiers, bootstrap rank intervals and the faction x bot interaction, each checked against an
independent computation (scipy, numpy least squares or hand values) on small fabricated runs."""

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps
from scipy.optimize import minimize

from terra_sim.analysis import bootstrap, interaction, ranking


def fabricate(strength: dict[str, float], bots: dict[str, float], games: int = 2000,
              seed: int = 1, cell: tuple[str, str, float] | None = None) -> pl.LazyFrame:
    """Two-player games: the winner is drawn with odds exp(faction + bot [+ cell]) and wins 1,
    the loser 0; the margin is +-(5 * the log-odds gap plus noise)."""
    rng = np.random.default_rng(seed)
    fs, bs = list(strength), list(bots)
    rows = []
    for g in range(games):
        pair = rng.choice(len(fs), 2, replace=False)
        seat_bots = rng.choice(len(bs), 2)
        s = []
        for f, b in zip(pair, seat_bots, strict=True):
            x = strength[fs[f]] + bots[bs[b]]
            if cell and (fs[f], bs[b]) == cell[:2]:
                x += cell[2]
            s.append(x)
        p0 = 1 / (1 + np.exp(s[1] - s[0]))
        w0 = float(rng.random() < p0)
        gap = 5 * (s[0] - s[1]) + rng.normal(0, 3)
        for seat, (f, b) in enumerate(zip(pair, seat_bots, strict=True)):
            win = w0 if seat == 0 else 1 - w0
            rows.append({"game_id": g, "seat": seat, "faction": fs[f], "strategy": bs[b],
                         "n_players": 2, "win_share": win,
                         "margin": gap if seat == 0 else -gap})
    return pl.DataFrame(rows).lazy()


STRENGTH = {"a": 0.8, "b": 0.0, "c": 0.0, "d": -0.8}


def test_pairwise_matches_hand_z_tests_and_holm():
    players = fabricate(STRENGTH, {"x": 0.0}, games=1500)
    ed = ranking.margins(players)
    pw = ranking.pairwise(ed)
    assert pw.height == 6
    df = players.collect()
    raw = []
    for r in pw.iter_rows(named=True):
        a = df.filter(pl.col("faction") == r["faction"])["margin"].to_numpy()
        b = df.filter(pl.col("faction") == r["other"])["margin"].to_numpy()
        d = a.mean() - b.mean()
        se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        assert r["difference"] == pytest.approx(d)
        assert r["lo"] == pytest.approx(d - 1.959964 * se, rel=1e-5)
        p = 2 * sps.norm.sf(abs(d) / se)
        assert r["p_value"] == pytest.approx(p)
        raw.append(p)
    raw = np.array(raw)
    order = np.argsort(raw)
    holm = np.maximum.accumulate(np.minimum(1, (len(raw) - np.arange(len(raw))) * raw[order]))
    assert pw["p_adjusted"].to_numpy()[order] == pytest.approx(holm)


def test_tiers_group_what_cannot_be_told_apart():
    ed = ranking.margins(fabricate(STRENGTH, {"x": 0.0}, games=3000))
    t = ranking.tiers(ed, ranking.pairwise(ed))
    tier = dict(zip(t["faction"], t["tier"], strict=True))
    assert tier["a"] == 1 and tier["d"] == 3
    assert tier["b"] == tier["c"] == 2  # equal strength: one tier


def test_tiers_by_hand():
    ed = pl.DataFrame({"faction": ["p", "q", "r"], "margin_mean": [3.0, 2.0, 0.0]})
    pw = pl.DataFrame({"faction": ["p", "p", "q"], "other": ["q", "r", "r"],
                       "differ": [False, True, False]})
    t = ranking.tiers(ed, pw)
    # r is told apart from p (q's tier leader), so it starts tier 2 though q and r are close
    assert t["tier"].to_list() == [1, 1, 2]


def test_bootstrap_ranks_are_reproducible_and_sure_of_a_dominant_faction():
    players = fabricate({"a": 3.0, "b": 0.0, "c": 0.0, "d": -3.0}, {"x": 0.0}, games=800)
    t1, how = ranking.bootstrap_ranks(players, reps=300, seed=4)
    t2, _ = ranking.bootstrap_ranks(players, reps=300, seed=4)
    assert t1.equals(t2)
    a = t1.filter(pl.col("faction") == "a").row(0, named=True)
    d = t1.filter(pl.col("faction") == "d").row(0, named=True)
    assert a["first_share"] == 1.0 and (a["rank_lo"], a["rank_hi"]) == (1, 1)
    assert d["last_share"] == 1.0 and (d["rank_lo"], d["rank_hi"]) == (4, 4)
    b = t1.filter(pl.col("faction") == "b").row(0, named=True)
    assert (b["rank_lo"], b["rank_hi"]) == (2, 3)  # b and c swap places between resamples
    assert "300 bootstrap resamples of whole games" in how
    assert "a is first in 100.0% of resamples; d is last in 100.0%" in \
        ranking.ranking_sentence(t1)


def test_bootstrap_groups_games_past_the_cap(monkeypatch):
    monkeypatch.setattr(bootstrap, "MAX_UNITS", 50)
    players = fabricate(STRENGTH, {"x": 0.0}, games=400)
    t, how = ranking.bootstrap_ranks(players, reps=200, seed=1)
    assert "of 50 fixed groups of whole games" in how and "400 games in all" in how
    assert t.height == 4 and (t["rank_lo"] <= t["rank_median"]).all()


def test_logistic_fit_is_the_maximum_likelihood_fit():
    players = fabricate(STRENGTH, {"x": 0.3, "y": 0.0, "z": -0.3}, games=1500)
    c = interaction.cells(players)
    fac = sorted(c["faction"].unique())
    bots = sorted(c["strategy"].unique())
    fi = np.array([fac.index(f) for f in c["faction"]])
    bi = np.array([bots.index(b) for b in c["strategy"]])
    wins, n = c["wins"].to_numpy(), c["games"].to_numpy().astype(float)

    def nll(theta):
        eta = theta[fi] + np.append(theta[len(fac):], 0.0)[bi]
        return -np.sum(wins * eta - n * np.log1p(np.exp(eta)))

    best = minimize(nll, np.zeros(len(fac) + len(bots) - 1), method="BFGS", tol=1e-10)
    eta = best.x[fi] + np.append(best.x[len(fac):], 0.0)[bi]
    expected = 1 / (1 + np.exp(-eta)) - c["expected_wins"].to_numpy() / n
    out, _ = interaction.interaction(players)
    assert out.sort("faction", "strategy")["expected_edge"].to_numpy() == \
        pytest.approx(expected, abs=1e-5)


def test_interaction_flags_the_cell_that_stands_out():
    bots = {"x": 0.0, "y": 0.0, "z": 0.0}
    calm, test = interaction.interaction(fabricate(STRENGTH, bots, games=3000, seed=2))
    assert not calm["stands_out"].any()
    assert test["df"] == (4 - 1) * (3 - 1) and test["p_value"] > 0.001
    odd, test = interaction.interaction(
        fabricate(STRENGTH, bots, games=3000, seed=2, cell=("d", "y", 2.5)))
    flagged = odd.filter(pl.col("stands_out"))
    assert ("d", "y") in list(zip(flagged["faction"], flagged["strategy"], strict=True))
    assert test["p_value"] < 1e-6
    grid = interaction.relative_grid(odd)
    assert grid.filter(pl.col("faction") == "d")["y"].item().endswith(" *")


def test_agreement_point_matches_scipy_spearman():
    players = fabricate(STRENGTH, {"x": 0.0, "y": 0.0}, games=1500)
    table, how = interaction.agreement_intervals(players, reps=100, seed=3)
    df = players.collect()
    overall = df.group_by("faction").agg(pl.col("margin").mean()).sort("faction")
    for r in table.iter_rows(named=True):
        mine = (df.filter(pl.col("strategy") == r["strategy"]).group_by("faction")
                .agg(pl.col("margin").mean()).sort("faction"))
        rho = sps.spearmanr(mine["margin"], overall["margin"]).statistic
        assert r["spearman_rho"] == pytest.approx(rho)
        assert r["rho_lo"] <= r["spearman_rho"] + 1e-9 and r["rho_hi"] <= 1.0
    assert "100 bootstrap resamples" in how
