"""Every statistic in terra_sim.analysis.stats against hand-computed values or scipy."""

import math

import numpy as np
import pytest
from scipy import optimize
from scipy import stats as sps

from terra_sim.analysis import stats


@pytest.mark.parametrize("k,n", [(0, 10), (1, 10), (5, 10), (10, 10), (25, 100), (317, 1000)])
def test_wilson_matches_scipy(k, n):
    ci = sps.binomtest(k, n).proportion_ci(0.95, method="wilson")
    lo, hi = stats.wilson_interval(k, n)
    assert lo == pytest.approx(ci.low, abs=1e-9)
    assert hi == pytest.approx(ci.high, abs=1e-9)


def test_wilson_hand_value_and_vectorised():
    # 50 of 100: centre 0.5, half-width 1.96 * sqrt(0.0025 + 1.96^2/40000) / (1 + 1.96^2/100).
    z = stats.Z95
    half = z * math.sqrt(0.0025 + z * z / 40000) / (1 + z * z / 100)
    lo, hi = stats.wilson_interval([50, 0], [100, 0])
    assert lo[0] == pytest.approx(0.5 - half) and hi[0] == pytest.approx(0.5 + half)
    assert lo[0] == pytest.approx(0.40383, abs=1e-5)
    assert math.isnan(lo[1]) and math.isnan(hi[1])  # no games, no interval


def test_wilson_takes_split_ties():
    # 2.5 wins of 10 (a two-way tie counted half) sits between 2 and 3 wins.
    lo, hi = stats.wilson_interval(2.5, 10)
    lo2, hi2 = stats.wilson_interval(2, 10)
    lo3, hi3 = stats.wilson_interval(3, 10)
    assert lo2 < lo < lo3 and hi2 < hi < hi3
    z = stats.Z95
    centre = (0.25 + z * z / 20) / (1 + z * z / 10)
    assert (lo + hi) / 2 == pytest.approx(centre)


@pytest.mark.parametrize("n,half", [(500, 0.038), (1000, 0.027), (2000, 0.019), (5000, 0.012),
                                    (10000, 0.0085)])
def test_wilson_half_widths_of_the_guide(n, half):
    assert float(stats.wilson_half_width(0.25, n)) == pytest.approx(half, abs=0.0006)


def test_n_for_half_width_inverts_half_width():
    assert stats.n_for_half_width(0.25, float(stats.wilson_half_width(0.25, 500))) == \
        pytest.approx(500, rel=1e-6)


def test_t_interval_matches_scipy():
    x = np.array([3.0, -1.0, 4.0, 1.5, -5.0, 9.0, 2.0])
    lo, hi = stats.t_interval(x.mean(), x.std(ddof=1), x.size)
    ref = sps.t.interval(0.95, x.size - 1, loc=x.mean(), scale=sps.sem(x))
    assert (float(lo), float(hi)) == pytest.approx(ref)
    lo1, hi1 = stats.t_interval(5.0, np.nan, 1)
    assert math.isnan(lo1) and math.isnan(hi1)
    assert float(stats.t_test_mean(x.mean(), x.std(ddof=1), x.size)) == \
        pytest.approx(sps.ttest_1samp(x, 0).pvalue)


def test_holm_hand_values():
    # sorted 0.005, 0.01, 0.03, 0.04 -> x4, x3, x2, x1 = 0.02, 0.03, 0.06, 0.04 -> running max.
    adj = stats.holm([0.01, 0.04, 0.03, 0.005])
    assert adj == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # capped at 1


def test_bh_hand_values_and_scipy():
    # sorted 0.005, 0.01, 0.03, 0.04 -> x4/1, x4/2, x4/3, x4/4 = 0.02, 0.02, 0.04, 0.04.
    p = [0.01, 0.04, 0.03, 0.005]
    assert stats.benjamini_hochberg(p) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    rng = np.random.default_rng(3)
    q = rng.uniform(0, 0.2, 25)
    assert stats.benjamini_hochberg(q) == pytest.approx(sps.false_discovery_control(q))


def test_corrections_skip_nan():
    adj = stats.holm([0.01, np.nan, 0.02])
    assert math.isnan(adj[1])
    assert adj[[0, 2]] == pytest.approx([0.02, 0.02])  # family of two, not three
    assert stats.adjust([0.01, 0.02], "bh") == pytest.approx([0.02, 0.02])


def test_win_share_test_is_the_binomial_score_test():
    # 40 wins in 100 four-player games: z = (40 - 25) / sqrt(100 * 0.25 * 0.75).
    p = stats.win_share_test(40, 25, 100 * 0.25 * 0.75)
    assert float(p) == pytest.approx(2 * sps.norm.sf(15 / math.sqrt(18.75)))
    assert float(p) == pytest.approx(0.000532, abs=2e-6)
    # Inverting it gives the Wilson interval: 1/4 lies outside the interval iff p < 0.05.
    for wins in range(10, 45):
        lo, hi = stats.wilson_interval(wins, 100)
        pv = float(stats.win_share_test(wins, 25, 18.75))
        assert (pv < 0.05) == (not lo <= 0.25 <= hi)


def test_verdicts():
    v = stats.verdicts([0.4, 0.1, 0.26, 0.3], [0.25] * 4, [0.001, 0.01, 0.5, np.nan])
    assert v == ["above fair", "below fair", "consistent with fair", "too few games"]


def test_combined_verdicts_every_pair():
    a, b, c, x = "above fair", "below fair", "consistent with fair", "too few games"
    win = [a, c, a, b, c, b, a, c, x, x, a]
    margin = [a, a, c, b, b, c, b, c, x, a, x]
    assert stats.combined_verdicts(win, margin) == [
        "too strong", "too strong", "too strong", "too weak", "too weak", "too weak",
        "disputed", "fair", "too few games", "too strong", "too strong"]


def test_min_detectable_mean_difference_by_hand_and_by_power():
    # (z_0.975 + z_0.8) x sd / sqrt(n) = (1.95996 + 0.84162) x 10 / 20.
    d = float(stats.min_detectable_mean_difference(10.0, 400))
    assert d == pytest.approx(2.80158 * 10 / 20, abs=1e-4)
    # Independently: a one-sample t-test of n = 400 at that shift has 80% power (noncentral t).
    n, df = 400, 399
    crit = sps.t.ppf(0.975, df)
    power = sps.nct.sf(crit, df, d / (10 / math.sqrt(n))) + sps.nct.cdf(-crit, df,
                                                                         d / (10 / math.sqrt(n)))
    assert power == pytest.approx(0.80, abs=0.005)
    # A stricter alpha needs a bigger shift; one observation has no spread to test against.
    assert float(stats.min_detectable_mean_difference(10.0, 400, alpha=0.005)) > d
    assert math.isnan(float(stats.min_detectable_mean_difference(10.0, 1)))


def test_newcombe_published_example():
    # Newcombe (1998), method 10: 56/70 vs 48/80 -> difference 0.1833, 95% CI 0.0524 to 0.3339.
    lo, hi = stats.newcombe_diff_interval(48, 80, 56, 70)
    assert float(lo) == pytest.approx(0.0524, abs=1e-4)
    assert float(hi) == pytest.approx(0.3339, abs=1e-4)


def test_two_proportion_test_matches_chi_square():
    p = stats.two_proportion_test(30, 100, 45, 100)
    chi = sps.chi2_contingency([[30, 70], [45, 55]], correction=False)
    assert float(p) == pytest.approx(chi.pvalue)


def test_welch_matches_scipy():
    rng = np.random.default_rng(1)
    a, b = rng.normal(0, 2, 40), rng.normal(1, 3, 55)
    d, lo, hi, p = stats.welch_diff(a.mean(), a.std(ddof=1), a.size, b.mean(), b.std(ddof=1),
                                    b.size)
    ref = sps.ttest_ind(b, a, equal_var=False)
    assert float(p) == pytest.approx(ref.pvalue)
    ci = ref.confidence_interval(0.95)
    assert (float(lo), float(hi)) == pytest.approx((ci.low, ci.high))
    assert float(d) == pytest.approx(b.mean() - a.mean())


def test_power_numbers_of_the_guide():
    # "3 pp over 25% at 80% power: about 1,700 appearances; 2 pp: about 3,700."
    assert stats.sample_size_for_difference(0.03, 0.25) == pytest.approx(1700, rel=0.03)
    assert stats.sample_size_for_difference(0.02, 0.25) == pytest.approx(3700, rel=0.03)
    d = stats.min_detectable_difference(1672, 0.25)
    assert d == pytest.approx(0.03, abs=2e-4)
    assert stats.sample_size_for_difference(d, 0.25) == pytest.approx(1672, rel=1e-6)
    # A stricter alpha needs a bigger edge; no appearances, no answer.
    assert stats.min_detectable_difference(1672, 0.25, alpha=0.005) > d
    assert math.isnan(stats.min_detectable_difference(0, 0.25))


def _design(factions, n_params):
    x = np.zeros((len(factions), len(factions[0]), n_params))
    for g, row in enumerate(factions):
        for s, f in enumerate(row):
            x[g, s, f] = 1
    return x


def test_plackett_luce_two_players_is_bradley_terry():
    # A beats B 30 times, B beats A 10 times: log-odds log 3, variance 1/30 + 1/10.
    factions = [[0, 1]] * 40
    ranks = np.array([[1.0, 2.0]] * 30 + [[2.0, 1.0]] * 10)
    fit = stats.plackett_luce([(_design(factions, 2), ranks)], ["A", "B"], ["faction"] * 2)
    assert fit.converged
    assert fit.theta == pytest.approx([math.log(3) / 2, -math.log(3) / 2], abs=1e-8)
    assert fit.se == pytest.approx([math.sqrt(1 / 30 + 1 / 10) / 2] * 2, abs=1e-8)


def _brute_force_loglik(theta, games):
    ll = 0.0
    for fs, rs in games:
        for f, r in zip(fs, rs, strict=True):
            risk = [fs[k] for k in range(len(fs)) if rs[k] >= r]
            ll += theta[f] - math.log(sum(math.exp(theta[k]) for k in risk))
    return ll


def test_plackett_luce_matches_direct_maximisation_with_ties():
    rng = np.random.default_rng(5)
    true = np.array([0.8, 0.2, -0.3, -0.7])
    games = []
    for _ in range(150):
        fs = list(rng.permutation(4)[:3])
        score = true[fs] + rng.gumbel(size=3)
        order = np.round(-score * 1.5)  # coarse rounding makes some ties
        rs = list(sps.rankdata(order, method="average"))
        games.append((fs, rs))
    x = _design([g[0] for g in games], 4)
    r = np.array([g[1] for g in games], dtype=float)
    assert (r % 1 != 0).any()  # the data do hold ties
    fit = stats.plackett_luce([(x, r)], list("abcd"), ["faction"] * 4)

    def neg(t):
        return -_brute_force_loglik(np.concatenate([[0.0], t]), games)

    res = optimize.minimize(neg, np.zeros(3), method="BFGS")
    ref = np.concatenate([[0.0], res.x])
    ref -= ref.mean()
    assert fit.theta == pytest.approx(ref, abs=1e-4)
    assert fit.loglik == pytest.approx(-res.fun, abs=1e-6)
    # Standard errors against a numerical Hessian of the brute-force likelihood, with the
    # first strength pinned at 0: compare the SE of a difference, which is identifiable.
    h = np.zeros((3, 3))
    eps = 1e-4
    for i in range(3):
        for j in range(3):
            e_i, e_j = np.eye(3)[i] * eps, np.eye(3)[j] * eps
            h[i, j] = (neg(res.x + e_i + e_j) - neg(res.x + e_i - e_j) - neg(res.x - e_i + e_j)
                       + neg(res.x - e_i - e_j)) / (4 * eps * eps)
    se_diff = math.sqrt(np.linalg.inv(h)[0, 0])  # SE of theta_b - theta_a
    info = stats._pl_parts(fit.theta, [(x, r)])[2]
    cov = np.linalg.pinv(info)
    assert math.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]) == pytest.approx(se_diff, rel=1e-3)


def test_plackett_luce_flags_a_faction_that_never_loses():
    factions = [[0, 1, 2]] * 30
    ranks = np.array([[1.0, 2.0, 3.0]] * 30)  # a always first, c always last
    fit = stats.plackett_luce([(_design(factions, 3), ranks)], list("abc"), ["faction"] * 3)
    assert not fit.converged
    assert fit.theta[0] > stats.MAX_LOG_STRENGTH > -stats.MAX_LOG_STRENGTH > fit.theta[2]


def _games_with_ties(rng, counts, factions=6, strategies=3, rounding=1.2):
    """Random finishing orders per player count, faction and strategy effects, coarse scores so
    that some places are tied; as dense designs and as parameter indices."""
    f_eff, s_eff = rng.normal(0, 0.6, factions), rng.normal(0, 0.3, strategies)
    k = factions + strategies
    dense, indexed = [], []
    for n, g in counts:
        f = np.array([rng.permutation(factions)[:n] for _ in range(g)])
        s = rng.integers(0, strategies, (g, n))
        score = f_eff[f] + s_eff[s] + rng.gumbel(size=(g, n))
        ranks = np.array([sps.rankdata(np.round(-row * rounding), method="average")
                          for row in score])
        x = np.zeros((g, n, k))
        gi, si = np.indices((g, n))
        x[gi, si, f] = 1.0
        x[gi, si, factions + s] = 1.0
        dense.append((x, ranks))
        indexed.append((np.stack([f, s + factions], axis=2), ranks))
    names = [f"f{i}" for i in range(factions)] + [f"s{i}" for i in range(strategies)]
    return dense, indexed, names, ["faction"] * factions + ["strategy"] * strategies


def test_plackett_luce_on_risk_sets_is_the_per_game_fit():
    rng = np.random.default_rng(11)
    dense, indexed, names, blocks = _games_with_ties(rng, [(4, 400), (3, 150), (2, 200)])
    assert any((r % 1 != 0).any() for _, r in dense)  # ties, at several player counts
    rs = stats.risk_sets(indexed, len(names))
    assert rs.games == 750
    # Fewer distinct risk sets than events: the point of the statistics.
    assert sum(w.size for _, w in rs.sets) < sum(r.size for _, r in dense)
    # Every player is one event: the event counts add up to the players.
    assert sum(w.sum() for _, w in rs.sets) == sum(r.size for _, r in dense)
    for theta in (np.zeros(len(names)), rng.normal(0, 1, len(names))):
        ll, grad, info = stats._pl_parts(theta, dense)
        ll2, grad2, info2 = stats._risk_parts(theta, rs)
        assert ll2 == pytest.approx(ll, rel=1e-12)
        assert grad2 == pytest.approx(grad, abs=1e-9)
        assert info2 == pytest.approx(info, abs=1e-9)
    per_game = stats.plackett_luce(dense, names, blocks)
    fit = stats.plackett_luce(rs, names, blocks)
    assert fit.converged and per_game.converged
    assert fit.theta == pytest.approx(per_game.theta, abs=1e-10)
    assert fit.se == pytest.approx(per_game.se, abs=1e-10)
    assert fit.loglik == pytest.approx(per_game.loglik, rel=1e-12)
    assert (fit.games, fit.iterations) == (per_game.games, per_game.iterations)


def test_risk_sets_of_repeated_games_only_weigh_more(monkeypatch):
    """The same games played 25 times over: the same distinct risk sets with 25 times the
    weight, however the games are cut into steps, and the fit of all the games."""
    rng = np.random.default_rng(3)
    dense, indexed, names, blocks = _games_with_ties(rng, [(4, 40)])
    once = stats.risk_sets(indexed, len(names))
    (p, r), = indexed
    many = [(np.tile(p, (25, 1, 1)), np.tile(r, (25, 1)))]
    monkeypatch.setattr(stats, "RISK_GAMES", 7)  # many small steps, merged at the end
    tiled = stats.risk_sets(many, len(names))
    assert tiled.games == 1000
    for (m1, w1), (m2, w2) in zip(once.sets, tiled.sets, strict=True):
        assert np.array_equal(m1, m2) and w2 == pytest.approx(25 * w1)
    monkeypatch.setattr(stats, "RISK_CHUNK", 5)  # the likelihood in small steps too
    fit = stats.plackett_luce(tiled, names, blocks)
    (x, _), = dense
    per_game = stats.plackett_luce([(np.tile(x, (25, 1, 1)), many[0][1])], names, blocks)
    assert fit.theta == pytest.approx(per_game.theta, abs=1e-10)
    assert fit.se == pytest.approx(per_game.se, abs=1e-10)


def test_risk_sets_with_one_parameter_per_player_match_bradley_terry():
    # The two-player case of test_plackett_luce_two_players_is_bradley_terry, as statistics.
    params = np.array([[[0], [1]]] * 40)
    ranks = np.array([[1.0, 2.0]] * 30 + [[2.0, 1.0]] * 10)
    fit = stats.plackett_luce(stats.risk_sets([(params, ranks)], 2), ["A", "B"], ["faction"] * 2)
    assert fit.theta == pytest.approx([math.log(3) / 2, -math.log(3) / 2], abs=1e-8)
    assert fit.se == pytest.approx([math.sqrt(1 / 30 + 1 / 10) / 2] * 2, abs=1e-8)


def test_quantiles_from_counts_are_the_sample_quantiles():
    rng = np.random.default_rng(8)
    qs = (0.05, 0.25, 0.5, 0.75, 0.95)
    for size in (1, 2, 7, 100, 1001):
        sample = rng.integers(-3, 40, size)
        values, counts = np.unique(sample, return_counts=True)
        # exactly numpy's "linear" quantile, not merely close to it
        assert stats.quantiles_from_counts(values, counts, qs) == list(np.quantile(sample, qs))
    assert stats.quantiles_from_counts([], [], (0.5,)) == [None]


def _handicap_games(rng, effect, players, games, sd=10.0):
    """Seeded games of `players` factions drawn from len(effect), VP = 100 + effect + noise;
    returns (game, faction, margin) player rows."""
    f = np.concatenate([rng.choice(effect.size, players, replace=False) for _ in range(games)])
    g = np.repeat(np.arange(games), players)
    vp = 100 + effect[f] + rng.normal(0, sd, f.size)
    return g, f, vp - (np.bincount(g, weights=vp) / players)[g]


def test_equalising_handicaps_zero_every_margin_and_recover_the_effects():
    rng = np.random.default_rng(3)
    effect = np.array([4.0, 2.0, 0.0, -1.0, -2.0, -3.0])
    g, f, m = _handicap_games(rng, effect, 3, 3000)
    h, lo, hi = stats.equalising_handicaps(g, f, m, 7)  # faction 6 never plays
    assert np.isnan(h[6]) and np.isnan(lo[6])
    h, lo, hi = h[:6], lo[:6], hi[:6]
    assert h.sum() == pytest.approx(0, abs=1e-9)
    after = m + h[f] - (np.bincount(g, weights=h[f]) / 3)[g]
    assert np.abs(np.bincount(f, weights=after) / np.bincount(f)).max() < 1e-9
    assert np.all((lo < -(effect - effect.mean())) & (-(effect - effect.mean()) < hi))
    # More than minus the margin: by about n(F-1)/((n-1)F) = 1.25 with 3 seats of 6 factions.
    margin = np.bincount(f, weights=m) / np.bincount(f)
    assert h[0] / -margin[0] == pytest.approx(1.25, rel=0.05)


def test_equalising_handicaps_two_factions_is_minus_the_margin_and_intervals_cover():
    rng = np.random.default_rng(4)
    g = np.repeat(np.arange(200), 2)
    f = np.tile([0, 1], 200)
    vp = 100 + np.where(f == 0, 3.0, 0.0) + rng.normal(0, 8, f.size)
    m = vp - (np.bincount(g, weights=vp) / 2)[g]
    h, lo, hi = stats.equalising_handicaps(g, f, m, 2)
    assert h == pytest.approx([-m[f == 0].mean(), -m[f == 1].mean()], abs=1e-9)
    tlo, thi = stats.t_interval(m[f == 0].mean(), m[f == 0].std(ddof=1), 200)
    assert hi[0] - lo[0] == pytest.approx(thi - tlo, rel=0.02)
    effect = np.array([2.0, 0.0, -1.0, -1.0])
    covered = 0
    for _ in range(200):
        g, f, m = _handicap_games(rng, effect, 2, 300)
        h, lo, hi = stats.equalising_handicaps(g, f, m, 4)
        covered += int(np.sum((lo < -effect) & (-effect < hi)))  # effect sums to 0
    assert 0.92 < covered / 800 < 0.98
