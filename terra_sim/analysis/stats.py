"""Pure statistics for balance reports: intervals, tests, multiple-testing corrections, power and a
Plackett-Luce strength model. Everything here takes plain numbers or numpy arrays (vectorised
over table rows) and knows nothing about runs, Parquet or plots."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize
from scipy import stats as sps

Z95 = float(sps.norm.ppf(0.975))


def _z(confidence: float) -> float:
    return float(sps.norm.ppf(0.5 + confidence / 2))


def wilson_interval(successes, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a proportion, vectorised over arrays.

    `successes` may be fractional: a k-way tie for first counts 1/k of a win. Rows with n == 0
    get NaN bounds.
    """
    s = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    z = _z(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = s / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        lo = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        hi = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return lo, hi


def wilson_half_width(p, n, confidence: float = 0.95) -> np.ndarray:
    """Half the width of the Wilson interval at share p after n trials."""
    lo, hi = wilson_interval(np.asarray(p, dtype=float) * np.asarray(n, dtype=float), n,
                             confidence)
    return (hi - lo) / 2


def t_interval(mean, sd, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Student t interval of a mean from its summary (mean, sample sd, count), vectorised.

    Rows with fewer than two observations get NaN bounds: one value says nothing of spread.
    """
    mean = np.asarray(mean, dtype=float)
    sd = np.asarray(sd, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.where(n > 1, n - 1, np.nan)
        tq = sps.t.ppf(0.5 + confidence / 2, df)
        half = tq * sd / np.sqrt(n)
        ok = n > 1
        return np.where(ok, mean - half, np.nan), np.where(ok, mean + half, np.nan)


def t_test_mean(mean, sd, n, mu0: float = 0.0) -> np.ndarray:
    """Two-sided one-sample t-test p-value of mean == mu0 from summaries, vectorised."""
    mean = np.asarray(mean, dtype=float)
    sd = np.asarray(sd, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (mean - mu0) / (sd / np.sqrt(n))
        p = 2 * sps.t.sf(np.abs(t), np.where(n > 1, n - 1, np.nan))
        # A constant sample that sits exactly on mu0 is no evidence against it.
        p = np.where((sd == 0) & (mean == mu0), 1.0, p)
    return p


def win_share_test(wins, expected_wins, variance) -> np.ndarray:
    """Two-sided score test of observed wins against expected wins, vectorised.

    `expected_wins` is the sum over the faction's games of 1/n and `variance` the sum of
    (1/n)(1 - 1/n), so mixed player counts are compared with what each game promised. For one
    player count this is the binomial score test, the test the Wilson interval inverts.
    """
    w = np.asarray(wins, dtype=float)
    e = np.asarray(expected_wins, dtype=float)
    v = np.asarray(variance, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (w - e) / np.sqrt(v)
        return np.where(v > 0, 2 * sps.norm.sf(np.abs(z)), np.nan)


def _step(pvalues, adjust_sorted) -> np.ndarray:
    """Apply a step-wise adjustment to the non-NaN p-values (sorted ascending for
    `adjust_sorted`, results put back in place). NaN stays NaN and is not counted in the family."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    if q.size == 0:
        return out
    order = np.argsort(q, kind="stable")
    res = np.empty(q.size)
    res[order] = np.minimum(adjust_sorted(q[order], q.size), 1.0)
    out[ok] = res
    return out


def holm(pvalues) -> np.ndarray:
    """Holm step-down adjusted p-values (controls the family-wise error rate)."""
    return _step(pvalues, lambda q, m: np.maximum.accumulate((m - np.arange(m)) * q))


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (controls the false discovery rate)."""
    return _step(pvalues, lambda q, m: np.minimum.accumulate((q * m / np.arange(1, m + 1))[::-1])
                 [::-1])


CORRECTIONS = {"holm": ("Holm", holm), "bh": ("Benjamini-Hochberg", benjamini_hochberg)}


def adjust(pvalues, method: str = "holm") -> np.ndarray:
    """Adjust p-values with 'holm' (family-wise error) or 'bh' (false discovery rate)."""
    return CORRECTIONS[method][1](pvalues)


def verdicts(observed, expected, adjusted_p, alpha: float = 0.05) -> list[str]:
    """'above fair' / 'below fair' where the adjusted p-value is below alpha, else 'consistent
    with fair' (or 'too few games' where there was no test)."""
    out = []
    for o, e, p in zip(np.asarray(observed, float), np.asarray(expected, float),
                       np.asarray(adjusted_p, float), strict=True):
        if np.isnan(p):
            out.append("too few games")
        elif p < alpha:
            out.append("above fair" if o > e else "below fair")
        else:
            out.append("consistent with fair")
    return out


# One verdict per row from two measures (win share, VP margin), each tested and corrected on its
# own. A measure that is significant decides unless the other is significant the other way.
TOO_STRONG, TOO_WEAK, DISPUTED, FAIR, TOO_FEW = ("too strong", "too weak", "disputed", "fair",
                                                 "too few games")
VERDICTS = (TOO_STRONG, TOO_WEAK, DISPUTED, FAIR, TOO_FEW)


def combined_verdicts(win: list[str], margin: list[str]) -> list[str]:
    """One verdict per row from the per-measure verdicts of `verdicts` (win share, margin):
    'too strong' when either is above fair and neither below, 'too weak' the mirror,
    'disputed' when one is above and the other below, 'fair' when neither differs, and
    'too few games' when neither could be tested."""
    out = []
    for w, m in zip(win, margin, strict=True):
        tested = [v for v in (w, m) if v != "too few games"]
        up, down = "above fair" in tested, "below fair" in tested
        out.append(TOO_FEW if not tested else DISPUTED if up and down else
                   TOO_STRONG if up else TOO_WEAK if down else FAIR)
    return out


def newcombe_diff_interval(s1, n1, s2, n2, confidence: float = 0.95):
    """Interval for p2 - p1 (share in run 2 minus run 1) by Newcombe's hybrid score method,
    built from the two Wilson intervals, so it behaves near 0 and 1 like they do."""
    p1 = np.asarray(s1, float) / np.asarray(n1, float)
    p2 = np.asarray(s2, float) / np.asarray(n2, float)
    l1, u1 = wilson_interval(s1, n1, confidence)
    l2, u2 = wilson_interval(s2, n2, confidence)
    d = p2 - p1
    lo = d - np.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    hi = d + np.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return lo, hi


def two_proportion_test(s1, n1, s2, n2) -> np.ndarray:
    """Two-sided pooled z-test p-value for equal proportions, vectorised."""
    s1, n1, s2, n2 = (np.asarray(x, float) for x in (s1, n1, s2, n2))
    with np.errstate(invalid="ignore", divide="ignore"):
        pool = (s1 + s2) / (n1 + n2)
        se = np.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2))
        z = (s2 / n2 - s1 / n1) / se
        p = 2 * sps.norm.sf(np.abs(z))
        # Both samples all wins or all losses: identical, nothing to test against.
        return np.where(se > 0, p, np.where((n1 > 0) & (n2 > 0), 1.0, np.nan))


def welch_diff(mean1, sd1, n1, mean2, sd2, n2, confidence: float = 0.95):
    """Welch interval and two-sided p-value for mean2 - mean1 from summaries.

    Returns (difference, low, high, p)."""
    m1, s1, k1, m2, s2, k2 = (np.asarray(x, float) for x in (mean1, sd1, n1, mean2, sd2, n2))
    with np.errstate(invalid="ignore", divide="ignore"):
        v1, v2 = s1 ** 2 / k1, s2 ** 2 / k2
        se = np.sqrt(v1 + v2)
        df = (v1 + v2) ** 2 / (v1 ** 2 / (k1 - 1) + v2 ** 2 / (k2 - 1))
        d = m2 - m1
        tq = sps.t.ppf(0.5 + confidence / 2, df)
        p = 2 * sps.t.sf(np.abs(d / se), df)
    return d, d - tq * se, d + tq * se, p


def quantiles_from_counts(values, counts, qs) -> list[float | None]:
    """Quantiles of a sample given as sorted distinct values and their counts, linearly
    interpolated between order statistics (numpy's and polars' "linear": position (N - 1) q);
    the same numbers the full sample gives. None for an empty sample."""
    v = np.asarray(values, dtype=float)
    cum = np.cumsum(np.asarray(counts, dtype=np.int64))
    total = int(cum[-1]) if cum.size else 0
    out: list[float | None] = []
    for q in qs:
        if total == 0:
            out.append(None)
            continue
        pos = (total - 1) * q
        lo, hi = int(np.floor(pos)), int(np.ceil(pos))
        a, b = (float(v[np.searchsorted(cum, i, side="right")]) for i in (lo, hi))
        out.append(a if a == b else (pos - lo) * (b - a) + a)
    return out


def min_detectable_difference(n, p0: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest edge d (p0 + d) that a two-sided test at `alpha` detects with `power` after n
    appearances, by the normal approximation that uses the variance under both hypotheses:
    n = (z_a sqrt(p0 q0) + z_b sqrt(p1 q1))^2 / d^2."""
    if n <= 0 or not 0 < p0 < 1:
        return float("nan")
    za = float(sps.norm.ppf(1 - alpha / 2))
    zb = float(sps.norm.ppf(power))

    def gap(d: float) -> float:
        p1 = p0 + d
        return (za * np.sqrt(p0 * (1 - p0)) + zb * np.sqrt(p1 * (1 - p1))) / np.sqrt(n) - d

    top = 1 - p0 - 1e-9
    if gap(top) > 0:
        return float("nan")  # not even a certain winner would be told apart
    return float(optimize.brentq(gap, 1e-12, top))


def min_detectable_mean_difference(sd, n, alpha: float = 0.05, power: float = 0.8) -> np.ndarray:
    """Smallest shift d of a mean (from 0) that a two-sided test at `alpha` detects with `power`
    after n observations of spread sd, by the same normal approximation as
    min_detectable_difference; a mean's variance does not depend on d, so
    d = (z_a + z_b) sd / sqrt(n). Vectorised; NaN where n < 2 or sd is unknown."""
    sd = np.asarray(sd, dtype=float)
    n = np.asarray(n, dtype=float)
    za = float(sps.norm.ppf(1 - alpha / 2))
    zb = float(sps.norm.ppf(power))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 1, (za + zb) * sd / np.sqrt(n), np.nan)


def sample_size_for_difference(d: float, p0: float, alpha: float = 0.05,
                               power: float = 0.8) -> float:
    """Appearances needed to detect p0 + d against p0 (the inverse of min_detectable_difference)."""
    za = float(sps.norm.ppf(1 - alpha / 2))
    zb = float(sps.norm.ppf(power))
    p1 = p0 + d
    return float((za * np.sqrt(p0 * (1 - p0)) + zb * np.sqrt(p1 * (1 - p1))) ** 2 / d ** 2)


def n_for_half_width(p: float, half_width: float, confidence: float = 0.95) -> float:
    """Trials needed for the Wilson interval at share p to have the given half-width."""
    if not half_width > 0:
        return float("nan")

    def gap(n: float) -> float:
        return float(wilson_half_width(p, n, confidence)) - half_width

    hi = 10.0
    while gap(hi) > 0:
        hi *= 4
    return float(optimize.brentq(gap, 1e-6, hi))


# --- handicaps -----------------------------------------------------------------------------------


def equalising_handicaps(game, faction, margin, n_factions: int, confidence: float = 0.95):
    """VP to add to each faction's score so that every faction's mean VP margin over these
    games becomes 0, with a confidence interval; vectorised over player rows.

    `game` and `faction` (an index below n_factions) label each player row, `margin` is its VP
    minus its game's mean VP. A handicap h raises a row's margin by h[f] less its game's mean
    handicap, so asking each faction's summed margin to vanish is a linear system L h = -S,
    with S the summed margins and L = diag(appearances) - C, C[f, q] the sum over the games f
    and q share of 1/n: a graph Laplacian, so h is defined up to a constant and the solution
    taken sums to 0. (It is the faction effect of a least-squares fit with a fixed effect per
    game; with two factions in 2-player games it is minus the mean margin, with more factions
    it is larger, since a faction's own handicap also raises its games' mean.)

    The interval is a normal one from the game-clustered sandwich variance: the games are
    independent, the players of one game are not. Returns (h, lo, hi); a faction with no
    appearance gets NaN.
    """
    g = np.asarray(game)
    f = np.asarray(faction, dtype=np.int64)
    m = np.asarray(margin, dtype=float)
    _, gi, size = np.unique(g, return_inverse=True, return_counts=True)
    n_games = size.size
    x = np.zeros((n_games, n_factions))
    x[gi, f] = 1.0
    appearances = x.sum(axis=0)
    lap = np.diag(appearances) - x.T @ (x / size[:, None])
    # Solved among the factions that played; the Laplacian's null direction (a constant added
    # to every handicap) is cut by a relative tolerance, as in plackett_luce: left to
    # machine precision it can be inverted into noise.
    played = np.flatnonzero(appearances)
    inv = np.zeros((n_factions, n_factions))
    inv[np.ix_(played, played)] = np.linalg.pinv(lap[np.ix_(played, played)], rcond=1e-10)
    h = -inv @ np.bincount(f, weights=m, minlength=n_factions)
    residual = m + h[f] - ((x @ h) / size)[gi]  # the margins once the handicaps are added
    u = np.zeros((n_games, n_factions))
    u[gi, f] = residual
    meat = u.T @ u * (n_games / (n_games - 1) if n_games > 1 else np.nan)
    se = np.sqrt(np.clip(np.diag(inv @ meat @ inv), 0, None))
    half = _z(confidence) * se
    none = appearances == 0
    h, half = np.where(none, np.nan, h), np.where(none, np.nan, half)
    return h, h - half, h + half


# --- Plackett-Luce ------------------------------------------------------------------------------


MAX_LOG_STRENGTH = 12.0  # odds of e^12 ~ 160,000 to 1: beyond this the data hold no estimate


@dataclass
class PlackettLuceFit:
    """Log-strengths, one per parameter name, centred on 0 within each block (faction,
    strategy); `se` their standard errors from the observed information."""

    names: list[str]
    blocks: list[str]
    theta: np.ndarray
    se: np.ndarray
    loglik: float
    iterations: int
    converged: bool
    games: int


def _pl_parts(theta, groups):
    """Log-likelihood, gradient and observed information of the Plackett-Luce model.

    Each player is an event at its own rank; its risk set is everyone in the game with rank at
    least as bad (Breslow's handling of ties), so a tie for a place is a shared choice from the
    same remaining players and the last player alone contributes nothing.
    """
    k = theta.size
    ll = 0.0
    grad = np.zeros(k)
    info = np.zeros((k, k))
    for x, ranks in groups:
        # x: (G, n, K) design, ranks: (G, n)
        eta = x @ theta  # (G, n)
        risk = ranks[:, None, :] >= ranks[:, :, None]  # risk[g, r, k]: k still in at r's turn
        # Log-sum-exp over each risk set with its own maximum, so a hopeless player left alone
        # in the risk set cannot underflow to log(0) when strengths run far apart.
        e = np.where(risk, eta[:, None, :], -np.inf)
        m = e.max(axis=2)
        w = np.exp(e - m[:, :, None])
        s = w.sum(axis=2)
        ll += float(eta.sum() - (m + np.log(s)).sum())
        p = w / s[:, :, None]  # choice probabilities at each event
        g, n, _ = x.shape
        xf = x.reshape(g * n, k)
        chosen = p.sum(axis=1).reshape(g * n)  # expected times each player is "chosen"
        q = np.einsum("grk,gka->gra", p, x).reshape(g * n, k)  # expected x at each event
        grad += xf.sum(axis=0) - chosen @ xf
        info += xf.T @ (chosen[:, None] * xf) - q.T @ q
    return ll, grad, info


@dataclass
class RiskSets:
    """The sufficient statistics of the Plackett-Luce likelihood with Breslow ties.

    Every player of every game is an event (taking its place) chosen from its risk set, the
    players of its game with a rank at least as bad. The likelihood depends on the games only
    through `chosen`, how often each parameter appears among the events (every player once),
    and through the distinct risk sets with the number of events drawn from each: `sets` holds,
    per risk-set size s, a (D, s, m) array of the members' parameter indices (each member's
    log-strength is the sum of its m parameters) and a (D,) array of event counts. Distinct risk
    sets are bounded by the ways of choosing players, not by the games (a million 4-player games
    of 10 factions and 6 bots have at most about 300,000), so a fit on them costs what the sets
    cost, and gives the estimates and standard errors of a fit over every game (up to
    floating-point rounding).
    """

    k: int
    chosen: np.ndarray
    sets: list[tuple[np.ndarray, np.ndarray]]
    games: int


def _distinct_rows(codes: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of an integer array and the summed weights of each."""
    if codes.shape[0] == 0:
        return codes, weights
    order = np.lexsort(codes.T[::-1])
    c, w = codes[order], weights[order]
    start = np.concatenate([[True], (c[1:] != c[:-1]).any(axis=1)])
    first = np.flatnonzero(start)
    return c[first], np.add.reduceat(w, first)


RISK_GAMES = 65_536  # games per step when collecting risk sets: bounds the memory used


def risk_sets(groups: list[tuple[np.ndarray, np.ndarray]], k: int) -> RiskSets:
    """The RiskSets of finished games given, per player count, as a (G, n, m) integer array of
    each player's parameter indices (say its faction and its strategy) and a (G, n) array of
    ranks (1 = best, tied players share the mean of their places)."""
    chosen = np.zeros(k)
    found: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
    games = 0
    widths = {params.shape[2] for params, _ in groups}
    if len(widths) > 1:
        raise ValueError("every group needs the same number of parameters per player")
    m = widths.pop() if widths else 1
    for params, ranks in groups:
        games += params.shape[0]
        chosen += np.bincount(params.reshape(-1), minlength=k)
        for a in range(0, params.shape[0], RISK_GAMES):
            _collect_risk_sets(params[a:a + RISK_GAMES], ranks[a:a + RISK_GAMES], k, found)
    sets = []
    for s in sorted(found):
        codes, weights = _distinct_rows(np.concatenate([a for a, _ in found[s]]),
                                        np.concatenate([w for _, w in found[s]]))
        sets.append((np.stack([(codes // k ** j) % k for j in range(m)], axis=2), weights))
    return RiskSets(k, chosen, sets, games)


def _collect_risk_sets(params: np.ndarray, ranks: np.ndarray, k: int,
                       found: dict[int, list[tuple[np.ndarray, np.ndarray]]]) -> None:
    g, n, m = params.shape
    # One code per player for its parameter tuple, so a risk set is a sorted row of codes.
    code = (params.astype(np.int64) * (k ** np.arange(m))).sum(axis=2)
    order = np.argsort(-ranks, axis=1, kind="stable")  # worst first
    r = np.take_along_axis(ranks, order, axis=1)
    c = np.take_along_axis(code, order, axis=1)
    for s in range(1, n + 1):
        # The s worst players are a risk set when the next player is strictly better: then the
        # players tied at the s-th worst rank each take a place from exactly this set.
        last = r[:, s - 1]
        valid = np.ones(g, dtype=bool) if s == n else r[:, s] < last
        if not valid.any():
            continue
        tied = (r[valid, :s] == last[valid, None]).sum(axis=1).astype(float)
        found.setdefault(s, []).append(_distinct_rows(np.sort(c[valid, :s], axis=1), tied))


RISK_CHUNK = 65_536  # risk sets per step: bounds the memory of a likelihood evaluation


def _risk_parts(theta, rs: RiskSets):
    """_pl_parts from sufficient statistics: the same log-likelihood, gradient and observed
    information, summed over distinct risk sets weighted by their event counts."""
    k = theta.size
    ll = float(rs.chosen @ theta)
    grad = rs.chosen.astype(float).copy()
    info = np.zeros((k, k))
    for members, weights in rs.sets:
        d, s, m = members.shape
        for a in range(0, d, RISK_CHUNK):
            mem, w = members[a:a + RISK_CHUNK], weights[a:a + RISK_CHUNK]
            dd = mem.shape[0]
            eta = theta[mem].sum(axis=2)  # (dd, s): each member's log-strength
            top = eta.max(axis=1)
            e = np.exp(eta - top[:, None])
            tot = e.sum(axis=1)
            ll -= float(w @ (top + np.log(tot)))
            p = (e / tot[:, None]).reshape(dd * s)  # choice probabilities within each set
            wp = np.repeat(w, s) * p
            flat = mem.reshape(dd * s, m)
            rows = np.repeat(np.arange(dd), s) * k
            q = np.zeros(dd * k)  # expected x of each set's choice
            for c in range(m):
                grad -= np.bincount(flat[:, c], wp, k)
                q += np.bincount(rows + flat[:, c], p, dd * k)
                for c2 in range(m):
                    info += np.bincount(flat[:, c] * k + flat[:, c2], wp, k * k).reshape(k, k)
            q = q.reshape(dd, k)
            info -= (q * w[:, None]).T @ q
    return ll, grad, info


def plackett_luce(games: list[tuple[np.ndarray, np.ndarray]] | RiskSets, names: list[str],
                  blocks: list[str], max_iter: int = 100, tol: float = 1e-9) -> PlackettLuceFit:
    """Fit a Plackett-Luce model to finishing orders by Newton's method.

    `games` holds, per player count, a (G, n, K) design array (usually one-hot faction plus
    one-hot strategy, so a player's log-strength is faction effect + strategy effect) and a (G, n)
    array of ranks (1 = best, ties equal); or the same games' sufficient statistics (RiskSets,
    from `risk_sets`), which give the same fit at a cost set by the distinct risk sets rather
    than by the games. Strengths are only defined up to a constant per block; the pseudo-inverse
    of the information picks the solution that sums to zero in each block and gives its
    covariance. Iterations are bounded: a faction that never loses has no finite
    estimate, and the fit then stops with converged=False.
    """
    k = len(names)
    theta = np.zeros(k)
    data = games
    if isinstance(data, RiskSets):
        n_games = data.games
    else:
        n_games = int(sum(r.shape[0] for _, r in data))

    def parts(t: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        return _risk_parts(t, data) if isinstance(data, RiskSets) else _pl_parts(t, data)

    ll, grad, info = parts(theta)
    converged = False
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 (the count is reported)
        step = np.linalg.pinv(info, rcond=1e-10) @ grad
        t = 1.0
        while True:  # halve the step until the likelihood does not fall
            cand = theta + t * step
            ll2, g2, i2 = parts(cand)
            if ll2 >= ll - 1e-12 or t < 1e-6:
                break
            t /= 2
        theta, ll, grad, info = cand, ll2, g2, i2
        if np.max(np.abs(t * step)) < tol:
            converged = True
            break
    cov = np.linalg.pinv(info, rcond=1e-10)
    # Centre each block: the likelihood cannot tell a constant added to a whole block.
    for b in set(blocks):
        idx = [i for i, bb in enumerate(blocks) if bb == b]
        theta[idx] -= theta[idx].mean()
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    # A faction that always (or never) finishes ahead has no finite strength: Newton then
    # creeps off towards infinity while the gradient vanishes, which looks like convergence.
    if np.any(np.abs(theta) > MAX_LOG_STRENGTH):
        converged = False
    return PlackettLuceFit(list(names), list(blocks), theta, se, ll, iterations, converged,
                           n_games)
