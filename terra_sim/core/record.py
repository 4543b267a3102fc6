"""Playing and replaying one game: play_game, replay_game and the GameRecord they return."""

import time
from dataclasses import dataclass, field
from typing import Any

from terra_sim.core.errors import IllegalAction, StrategyError, UserError
from terra_sim.core.protocol import Game, State
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


def _resolve_game(game: str | Game, overrides: dict | None) -> Game:
    if isinstance(game, str):
        from terra_sim.games import get_game

        return get_game(game, overrides)
    return game


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


def new_game(game: str | Game, factions: list[str] | None, seed: int, players: int | None,
             overrides: dict | None, options: dict) -> tuple[Game, State, dict]:
    """Set up a game: resolve the game, draw factions if none are given, make the start state."""
    g = _resolve_game(game, overrides)
    if factions is None:
        n = players or 4
        if n not in g.player_counts:
            raise UserError(f"{g.slug} plays with {g.player_counts} players, not {n}")
        factions = g.random_factions(n, stream(seed, "factions"))
    factions = list(factions)
    g.check_factions(factions)
    state = g.new_state(factions, seed, **options)
    setup = {"game": g.slug, "seed": seed, "factions": factions, "options": dict(options),
             "overrides": overrides or {}, **state.setup_info()}
    return g, state, setup


def play_game(
    game: str | Game,
    factions: list[str] | None = None,
    strategies: Any = "random",
    seed: int = 0,
    *,
    players: int | None = None,
    overrides: dict | None = None,
    decision_timeout: float | None = None,
    log_actions: bool = True,
    **options: Any,
) -> GameRecord:
    """Play one game between strategies (a name, or one name/spec/instance per seat).

    Raises StrategyError when a strategy raises, times out or returns an illegal action; the
    caller records that seat's forfeit.
    """
    from strategies import make_strategy

    t0 = time.perf_counter()
    g, state, setup = new_game(game, factions, seed, players, overrides, options)
    n = len(setup["factions"])
    specs = [strategies] * n if isinstance(strategies, str) or not isinstance(
        strategies, list | tuple) else list(strategies)
    if len(specs) != n:
        raise UserError(f"{len(specs)} strategies for {n} players")
    bots = [make_strategy(spec, stream(seed, "strategy", seat), game=g.slug)
            for seat, spec in enumerate(specs)]
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


def replay_game(record_or_setup: GameRecord | dict, actions: list[str] | None = None) -> GameRecord:
    """Replay action texts from a setup (or a record) and return the resulting record."""
    if isinstance(record_or_setup, GameRecord):
        setup = record_or_setup.setup
        actions = record_or_setup.actions if actions is None else actions
    else:
        setup = record_or_setup
    if actions is None:
        raise UserError("replay_game needs the action texts")
    g, state, setup = new_game(setup["game"], setup["factions"], setup["seed"], None,
                               setup.get("overrides") or None, setup.get("options", {}))
    log: dict[str, list] = {"actions": [], "action_seats": [], "action_rounds": [],
                            "action_vp": []}
    for i, text in enumerate(actions):
        if state.is_over():
            raise IllegalAction(f"action {i} {text!r}: the game is already over")
        action = state.parse_action(text)
        if action not in state.legal_actions():
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
