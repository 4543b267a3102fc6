"""Playing and replaying one game with given bots: the loop and the GameRecord it returns.

The core knows no game and no strategy registry: callers hand it a Game, and bots already built
(terra_sim.play resolves names into both).
"""

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from terra_sim.core.errors import IllegalAction, StrategyError, UserError
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
         decision_timeout: float | None = None, log_actions: bool = True) -> GameRecord:
    """Play `state` to the end, asking `bots[seat]` for every decision of that seat.

    Raises StrategyError when a bot raises, times out or returns an illegal action; the caller
    records that seat's forfeit.
    """
    t0 = time.perf_counter()
    n = len(setup["factions"])
    if len(bots) != n:
        raise UserError(f"{len(bots)} strategies for {n} players")
    names = [b.name for b in bots]
    log: dict[str, list] = {"actions": [], "action_seats": [], "action_rounds": [],
                            "action_vp": []}
    spent = [0.0] * n
    decisions = 0
    while not state.is_over():
        seat = state.current_player()
        legal = state.legal_actions()
        t = time.perf_counter()
        try:
            action = bots[seat].choose(state, legal)
        except Exception as e:  # a bot bug must cost its seat the game, never the run
            raise StrategyError(seat, names[seat], f"raised {type(e).__name__}: {e}") from e
        dt = time.perf_counter() - t
        spent[seat] += dt
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
