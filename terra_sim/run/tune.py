"""Tuning a weighted bot by self-play: CMA-ES over its valuation weights, each candidate judged
by the games it plays against the game's other bots.

Why CMA-ES, from the `cma` package: the weights are a few dozen continuous numbers, the
objective is noisy and has no gradient, and CMA-ES is the standard optimiser for exactly that.
`cma` is its author's reference implementation, maintained, small (numpy only); its ask-and-
tell interface hands over a whole generation, which the worker processes play at once; it
is seeded (the same seed gives the same result) and its state pickles, so a tuning resumes
where it was killed. (optuna's samplers suit few, mostly categorical trials and keep their
state in a database; nevergrad wraps the same CMA-ES among many others.)

Common random numbers: every candidate plays the same fixed pool of games (the same deals,
factions, seats, opponents and seeds), so differences between candidates come from the
weights, not the deal. The score is the candidate seat's mean VP margin (its VP minus the
game's mean VP: continuous, so it tells candidates apart with far fewer games than wins do).
A held-out pool of other games then measures the start weights and the tuned ones honestly,
since the optimiser has seen the tuning pool.

Nothing here names a game: any bot whose play is a set of weights (strategies.weighted) tunes.
"""

import json
import os
import pickle
import random
import sys
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from terra_sim.core.errors import StrategyError, UserError

# Candidates' weights are searched on a scale where every weight starts near 1 (a weight over
# its scale), so one step size suits them all; a weight near 0 still moves by SCALE_FLOOR.
SCALE_FLOOR = 0.1


@dataclass(frozen=True)
class TunePlan:
    """What a tuning is: a checkpoint resumes only the same plan."""

    game: str
    strategy: str  # a name or spec of a weighted bot
    start: dict[str, float]  # every weight of the bot where the search starts
    names: list[str]  # the weights searched (the others stay at start)
    opponents: list[str]  # the other seats draw from these
    players: list[int]
    faction: str = ""  # "" tunes for every faction; a name puts it in the tuned seat
    pool: int = 64  # games a candidate plays (the same games for every candidate)
    holdout: int = 64  # other games, for the start-against-tuned measure
    generations: int = 20
    popsize: int = 0  # 0: CMA-ES's default for the number of weights
    sigma: float = 0.3  # the first step size, on the scale of a weight's start value
    seed: int = 1
    overrides: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PoolGame:
    factions: list[str]
    seat: int  # the tuned bot's seat
    opponents: list[str]  # the strategies of the other seats, in seat order
    seed: int


@dataclass
class TuneResult:
    plan: TunePlan
    weights: dict[str, float]
    start_margin: float  # mean VP margin of the start weights on the tuning pool
    tuned_margin: float
    holdout_start: float  # the same on the held-out pool
    holdout_tuned: float
    games_played: int
    popsize: int  # candidates a generation
    history: list[tuple[float, float]]  # per generation: best and mean score


def pool_games(plan: TunePlan, which: str, n: int) -> list[PoolGame]:
    """The fixed games of the tuning pool (`which` = "pool") or the held-out one: seats rotate
    over the games, so the tuned bot plays every seat equally often."""
    from terra_sim.games import get_game

    g = get_game(plan.game, plan.overrides or None)
    out = []
    for i in range(n):
        rng = random.Random(f"tune:{which}:{plan.seed}:{i}")
        k = plan.players[i % len(plan.players)]
        factions = g.random_factions(k, rng)
        seat = i // len(plan.players) % k
        if plan.faction:
            factions = _with_faction(g, factions, plan.faction)
            j = factions.index(plan.faction)
            factions[j], factions[seat] = factions[seat], factions[j]
        opponents = [rng.choice(plan.opponents) for _ in range(k - 1)]
        out.append(PoolGame(factions, seat, opponents, rng.randrange(2**31)))
    return out


def _with_faction(g: Any, factions: list[str], faction: str) -> list[str]:
    """`factions` with `faction` in: in place of one it cannot play beside, else of the last."""
    if faction in factions:
        return factions
    group = next((grp for grp in g.exclusive_groups() if faction in grp), {faction})
    clash = [i for i, f in enumerate(factions) if f in group]
    factions = factions[:]
    factions[clash[0] if clash else -1] = faction
    return factions


def margin(plan: TunePlan, weights: dict[str, float], pg: PoolGame) -> float:
    """The tuned seat's VP minus the game's mean VP, in one game of the pool."""
    from terra_sim.play import play_game

    strategies: list[Any] = list(pg.opponents)
    strategies.insert(pg.seat, (plan.strategy, {"weights": weights}))
    try:
        rec = play_game(plan.game, pg.factions, strategies, pg.seed,
                        overrides=plan.overrides or None, log_actions=False)
    except StrategyError as e:  # a bot bug: say which game shows it, for a replay
        weights_text = ", ".join(f"{k}={v:.6g}" for k, v in weights.items())
        raise StrategyError(e.seat, e.strategy, f"{e.message}, in game seed {pg.seed} "
                            f"({', '.join(pg.factions)}; the tuned seat {pg.seat} with "
                            f"{weights_text})") from None
    vp = rec.final_vp
    return vp[pg.seat] - sum(vp) / len(vp)


def _task(job: tuple[TunePlan, dict[str, float], PoolGame]) -> float:
    return margin(*job)


class Scorer:
    """Mean margins of candidates over a pool, the games spread over local worker processes or
    a Dask cluster (`client`, a distributed.Client: the games go out one task each)."""

    def __init__(self, workers: int, client: Any = None):
        self.workers = workers
        self.client = client
        self._pool: Any = None
        self.played = 0

    def __enter__(self) -> "Scorer":
        if self.client is None and self.workers > 1:
            import multiprocess

            # fork: a game registered in this process (a plug-in) is known to the workers
            self._pool = multiprocess.get_context("fork").Pool(self.workers)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()

    def scores(self, plan: TunePlan, candidates: list[dict[str, float]], games: list[PoolGame],
               tick: Callable[[int], None] = lambda n: None) -> list[float]:
        jobs = [(plan, w, pg) for w in candidates for pg in games]
        results: Iterator[float]
        if self.client is not None:
            results = self._on_dask(jobs)
        elif self._pool is None:
            results = map(_task, jobs)
        else:
            chunk = max(1, len(jobs) // (8 * self.workers))
            results = self._pool.imap(_task, jobs, chunksize=chunk)
        margins = []
        for m in results:
            margins.append(m)
            tick(1)
        self.played += len(jobs)
        n = len(games)
        return [sum(margins[i * n:(i + 1) * n]) / n for i in range(len(candidates))]


    def _on_dask(self, jobs: list[tuple[TunePlan, dict[str, float], PoolGame]]
                 ) -> Iterator[float]:
        from distributed import as_completed

        futures = self.client.map(_task, jobs, pure=False)
        where = {f.key: i for i, f in enumerate(futures)}
        done: dict[int, float] = {}
        following = 0
        for f in as_completed(futures):
            done[where[f.key]] = f.result()
            while following in done:  # in job order, as soon as the order allows
                yield done.pop(following)
                following += 1


def checkpoint_path(runs: Path, out: Path, plan: TunePlan) -> Path:
    return runs / "tune" / f"{out.stem}-seed{plan.seed}.pkl"


def tune(plan: TunePlan, checkpoint: Path, workers: int = 1, progress: bool = False,
         fresh: bool = False, client: Any = None) -> TuneResult:
    """Run (or resume from `checkpoint`) the tuning, on local workers or a Dask `client`; the
    checkpoint is rewritten after every generation and removed at the end."""
    import cma
    import numpy as np

    scale = [max(abs(plan.start[k]), SCALE_FLOOR) for k in plan.names]

    def weights_of(x: Any) -> dict[str, float]:
        w = dict(plan.start)
        for k, s, v in zip(plan.names, scale, x, strict=True):
            w[k] = round(float(v) * s, 6)
        return w

    state = _load(checkpoint, plan) if checkpoint.exists() and not fresh else None
    if state is None:
        opts = {"seed": plan.seed, "verbose": -9}
        if plan.popsize:
            opts["popsize"] = plan.popsize
        es = cma.CMAEvolutionStrategy([plan.start[k] / s for k, s in zip(plan.names, scale,
                                                                         strict=True)],
                                      plan.sigma, opts)
        state = {"plan": plan, "es": es, "generation": 0, "history": [], "played": 0,
                 "numpy": np.random.get_state(), "start_margin": None}
    else:
        np.random.set_state(state["numpy"])  # cma draws from numpy's global generator
    es = state["es"]
    games = pool_games(plan, "pool", plan.pool)
    bar = _bar(progress, plan.generations * es.popsize * plan.pool,
               state["generation"] * es.popsize * plan.pool)
    with Scorer(workers, client) as scorer:
        scorer.played = state["played"]
        if state["start_margin"] is None:
            state["start_margin"] = scorer.scores(plan, [dict(plan.start)], games)[0]
        while state["generation"] < plan.generations:
            xs = es.ask()
            scores = scorer.scores(plan, [weights_of(x) for x in xs], games, bar.update)
            es.tell(xs, [-v for v in scores])  # cma minimises
            state["generation"] += 1
            state["history"].append((max(scores), sum(scores) / len(scores)))
            state["played"] = scorer.played
            state["numpy"] = np.random.get_state()
            _save(checkpoint, state)
            bar.set_postfix_str(f"best margin {-es.result.fbest:+.2f} VP")
        bar.close()
        best = weights_of(es.result.xbest) if es.result.xbest is not None else dict(plan.start)
        tuned_margin = -es.result.fbest if es.result.xbest is not None else state["start_margin"]
        held = pool_games(plan, "holdout", plan.holdout)
        holdout_start, holdout_tuned = scorer.scores(plan, [dict(plan.start), best], held)
        played = scorer.played
    checkpoint.unlink(missing_ok=True)
    return TuneResult(plan, best, state["start_margin"], tuned_margin, holdout_start,
                      holdout_tuned, played, es.popsize, state["history"])


def _bar(progress: bool, total: int, done: int) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=done, unit="game", desc="tuning", disable=not progress,
                file=sys.stderr)


def _load(path: Path, plan: TunePlan) -> dict[str, Any]:
    try:
        state = pickle.loads(path.read_bytes())
    except Exception as e:
        raise UserError(f"cannot read the tuning checkpoint {path} ({e}); --fresh starts over"
                        ) from None
    if state.get("plan") != plan:
        raise UserError(f"{path} is the checkpoint of another tuning (other options or start "
                        "weights); --fresh starts over")
    return state


def _save(path: Path, state: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps(state))
    os.replace(tmp, path)  # a kill leaves the old checkpoint or the new, never half of one


def read_weights(path: Path) -> dict[str, float]:
    """The [weights] table of a tuned-weights file (or any TOML with one)."""
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise UserError(f"cannot read weights from {path}: {e}") from None
    w = data.get("weights")
    if not isinstance(w, dict) or not all(isinstance(v, int | float) and not isinstance(v, bool)
                                          for v in w.values()):
        raise UserError(f"{path}: expected a [weights] table of numbers")
    return {k: float(v) for k, v in w.items()}


def write_weights(path: Path, result: TuneResult, command: str, engine: str,
                  data_set: str) -> None:
    """Tuned weights as data, with their provenance: how they were made and how strong."""
    import cma

    plan = result.plan
    prov: dict[str, Any] = {
        "command": command, "game": plan.game, "engine": engine, "data_set": data_set,
        "strategy": plan.strategy, "faction": plan.faction or "all",
        "opponents": plan.opponents, "players": plan.players, "seed": plan.seed,
        "optimiser": f"CMA-ES (cma {cma.__version__})", "generations": plan.generations,
        "popsize": result.popsize, "sigma": plan.sigma, "pool_games": plan.pool,
        "holdout_games": plan.holdout, "games_played": result.games_played,
        "date": date.today().isoformat(),
        "start_margin": round(result.start_margin, 3),
        "tuned_margin": round(result.tuned_margin, 3),
        "holdout_start_margin": round(result.holdout_start, 3),
        "holdout_tuned_margin": round(result.holdout_tuned, 3),
    }
    lines = [f"# {plan.strategy}'s weights for {plan.game}"
             f"{' as ' + plan.faction if plan.faction else ''}, tuned by self-play "
             "(terra-sim tune).",
             "# Margins are the tuned seat's mean VP minus the game's mean VP against the",
             "# opponents; holdout_* are on games the tuning never saw. Run the command again",
             "# after changing the game's data: tuned bots make the honest what-if.",
             "", "[provenance]"]
    lines += [f"{k} = {toml_value(v)}" for k, v in prov.items()]
    # the weights held fixed come from the start as they are: a plan's scaled departures
    # carry float noise in their last digits
    lines += ["", "[weights]"] + [f"{k} = {toml_value(round(v, 6))}"
                                  for k, v in result.weights.items()]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    os.replace(tmp, path)


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return json.dumps(str(v))  # a TOML basic string is a JSON string
