"""Playing and replaying one game with given bots: the loop and the GameRecord it returns.

The core knows no game and no strategy registry: callers hand it a Game, and bots already built
(terra_sim.play resolves names into both).
"""

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from terra_sim.core.deadline import Deadline, DecisionTimeout
from terra_sim.core.errors import IllegalAction, StrategyError, UserError
from terra_sim.core.guard import StateGuard
from terra_sim.core.protocol import Game, State, Strategy
from terra_sim.core.rng import stream


@dataclass
class GameRecord:
    game: str
    engine_version: str
    data_set: str
    data_hash: str
    seed: int
    setup: dict[str, Any]  # everything replay_game needs besides the action texts
    factions: list[str]
    strategies: list[str]
    final_vp: list[int]
    breakdown: list[dict[str, int]]
    actions: list[str] = field(default_factory=list)
    action_seats: list[int] = field(default_factory=list)
    action_rounds: list[int] = field(default_factory=list)
    action_vp: list[int] = field(default_factory=list)  # the acting seat's VP after the action
    rounds: int = 0
    n_decisions: int = 0  # counted even when the action log is off
    duration_s: float = 0.0
    decision_s: list[float] = field(default_factory=list)  # time spent choosing, by seat

    @property
    def n_players(self) -> int:
        return len(self.factions)


def _record(g: Game, state: State, setup: dict, strategies: list[str], log: dict) -> GameRecord:
    return GameRecord(
        game=g.slug,
        engine_version=g.version,
        data_set=g.data_set,
        data_hash=g.data_hash,
        seed=setup["seed"],
        setup=setup,
        factions=list(setup["factions"]),
        strategies=strategies,
        final_vp=state.vp(),
        breakdown=state.breakdown(),
        rounds=state.round,
        **log,
    )


def new_game(g: Game, factions: list[str] | None, seed: int, players: int | None = None,
             overrides: dict | None = None, options: dict | None = None) -> tuple[State, dict]:
    """The start state of a game of `g` and its setup record (everything a replay needs
    besides the action texts); factions are drawn from the seed when none are given.
    `overrides` are the data overrides `g` was built with: recorded, not applied."""
    options = dict(options or {})
    if factions is None:
        n = players or 4
        if n not in g.player_counts:
            raise UserError(f"{g.slug} plays with {g.player_counts} players, not {n}")
        factions = g.random_factions(n, stream(seed, "factions"))
    factions = list(factions)
    g.check_factions(factions)
    state = g.new_state(factions, seed, **options)
    setup = {"game": g.slug, "seed": seed, "factions": factions, "options": options,
             "overrides": overrides or {}, **state.setup_info()}
    return state, setup


def play(g: Game, state: State, setup: dict, bots: Sequence[Strategy], *,
         decision_timeout: float | None = None, log_actions: bool = True,
         guarded: Sequence[bool] | None = None) -> GameRecord:
    """Play `state` to the end, asking `bots[seat]` for every decision of that seat.

    Raises StrategyError when a bot raises (or calls sys.exit), thinks longer than
    `decision_timeout` seconds (it is interrupted: see core.deadline), returns an action that
    is not legal, or changes the state it was handed (see core.guard: checked for the seats
    `guarded` names, every seat by default); the caller records that seat's forfeit.
    """
    if decision_timeout is not None and not decision_timeout > 0:
        raise UserError(f"decision_timeout must be a positive number of seconds, "
                        f"got {decision_timeout}")
    t0 = time.perf_counter()
    n = len(setup["factions"])
    if len(bots) != n:
        raise UserError(f"{len(bots)} strategies for {n} players")
    names = [b.name for b in bots]
    log: dict[str, list] = {"actions": [], "action_seats": [], "action_rounds": [],
                            "action_vp": []}
    spent = [0.0] * n
    decisions = 0
    guard = StateGuard()
    check = [True] * n if guarded is None else list(guarded)
    deadline = Deadline(decision_timeout) if decision_timeout is not None else None
    with deadline or contextlib.nullcontext():
        while not state.is_over():
            seat = state.current_player()
            legal = state.legal_actions()
            token = guard.before(state) if check[seat] else None
            t = time.perf_counter()
            try:
                if deadline is not None:
                    deadline.arm(seat)
                # The bot gets a copy of the list: what it returns is checked against ours.
                action = bots[seat].choose(state, list(legal))
                if deadline is not None:
                    deadline.disarm()
            except DecisionTimeout:
                deadline.disarm()  # type: ignore[union-attr]  # only raised with a deadline
                raise StrategyError(seat, names[seat],
                                    f"was still thinking after {decision_timeout}s, the "
                                    "limit for one decision (interrupted)") from None
            except (Exception, SystemExit) as e:  # a bot bug costs its seat the game, never the run
                if deadline is not None:
                    deadline.disarm()
                raise StrategyError(seat, names[seat],
                                    f"raised {type(e).__name__}: {e}") from e
            dt = time.perf_counter() - t
            spent[seat] += dt
            changed = guard.changes(state, token) if token is not None else []
            if changed:
                raise StrategyError(seat, names[seat], "changed the game state it was handed: "
                                    + "; ".join(changed[:5])
                                    + (f"; and {len(changed) - 5} more" if len(changed) > 5
                                       else ""))
            if decision_timeout is not None and dt > decision_timeout:
                raise StrategyError(seat, names[seat],
                                    f"took {dt:.3f}s for one decision (limit {decision_timeout}s)")
            if action not in legal:
                raise StrategyError(seat, names[seat], f"returned an illegal action {action!r}")
            decisions += 1
            if log_actions:
                log["actions"].append(state.action_text(action))
                log["action_seats"].append(seat)
                log["action_rounds"].append(state.round)
            state.apply(action)
            if log_actions:
                log["action_vp"].append(state.vp()[seat])
    rec = _record(g, state, setup, names, log)
    rec.duration_s = time.perf_counter() - t0
    rec.decision_s = spent
    rec.n_decisions = decisions
    return rec


def is_legal(state: State, action: Any) -> bool:
    """Whether `action` may be applied now. A state may answer itself (`is_legal`): a game
    whose imported logs carry moves no bot is offered (a manual fix) replays them that way."""
    check = getattr(state, "is_legal", None)
    return check(action) if check is not None else action in state.legal_actions()


def replay(g: Game, setup: dict, actions: list[str]) -> GameRecord:
    """Replay action texts from a setup record; raises IllegalAction where the log and the
    engine part ways."""
    state, setup = new_game(g, setup["factions"], setup["seed"], None,
                            setup.get("overrides") or None, setup.get("options", {}))
    log: dict[str, list] = {"actions": [], "action_seats": [], "action_rounds": [],
                            "action_vp": []}
    for i, text in enumerate(actions):
        if state.is_over():
            raise IllegalAction(f"action {i} {text!r}: the game is already over")
        action = state.parse_action(text)
        if not is_legal(state, action):
            raise IllegalAction(f"action {i} {text!r} is not legal here")
        seat = state.current_player()
        log["actions"].append(text)
        log["action_seats"].append(seat)
        log["action_rounds"].append(state.round)
        state.apply(action)
        log["action_vp"].append(state.vp()[seat])
    if not state.is_over():
        raise IllegalAction(f"the game is not over after {len(actions)} actions")
    rec = _record(g, state, setup, ["replay"] * len(setup["factions"]), log)
    rec.n_decisions = len(actions)
    return rec
