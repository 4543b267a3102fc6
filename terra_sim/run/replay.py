"""Replaying one logged game of a run: from its action log, or from its seed when the run was
made without one, checking the final scores against the players table."""

import json
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from terra_sim.core.errors import UserError
from terra_sim.core.record import is_legal
from terra_sim.run.config import strategy_spec
from terra_sim.run.local import WATCHDOG_KILLED
from terra_sim.store import rundir, schema


@dataclass
class ReplayResult:
    game_id: int
    matches: bool  # replayed final VP equal the logged ones
    from_seed: bool  # re-played by the strategies (no action log), not replayed from texts
    logged_vp: list[int]
    replayed_vp: list[int]


def _rows(run_dir: Path, table: str, schema: dict[str, Any], game_id: int) -> pl.DataFrame:
    return rundir.scan(run_dir, table, schema).filter(pl.col("game_id") == game_id).collect()


def _replay_texts(manifest: dict[str, Any], factions: list[str], seed: int, texts: list[str],
                  seat_names: list[str], step: bool, echo: Callable[[str], None],
                  options: dict[str, Any] | None = None) -> Any:
    from terra_sim.games import get_game

    g = get_game(manifest["game"], manifest["overrides"] or None)
    state = g.new_state(factions, seed, **(manifest["options"] if options is None else options))
    current: int | None = None
    line: list[str] = []
    line_seat = -1

    def flush() -> None:
        if line:
            echo(f"  {seat_names[line_seat]}: {' · '.join(line)}")
            line.clear()

    for idx, text in enumerate(texts):
        if state.round != current:
            flush()
            current = state.round
            echo(f"\nRound {current}" if current else "\nSetup")
        seat = state.current_player()
        action = state.parse_action(text)
        if not is_legal(state, action):
            raise UserError(f"action {idx} {text!r} is not legal when replayed: the log does "
                            "not match this engine version")
        state.apply(action)
        if step:
            echo(f"  {idx:4d} {seat_names[seat]}: {text}  (vp {state.vp()[seat]})")
        else:
            if seat != line_seat:
                flush()
                line_seat = seat
            line.append(text)
    flush()
    return state


def replay(run_dir: str | Path, game_id: int, step: bool = False,
           echo: Callable[[str], None] = print) -> ReplayResult:
    """Print game `game_id` of the run in `run_dir` round by round and its final map."""
    from terra_sim.play import play_game

    run_dir = Path(run_dir)
    manifest = rundir.read_manifest(run_dir)
    if manifest is None:
        raise UserError(f"{run_dir}: no run here (no manifest.json)")
    schemas = schema.schemas(manifest["categories"])
    game = _rows(run_dir, "games", schemas["games"], game_id)
    if game.is_empty():
        return _replay_failed(run_dir, manifest, schemas, game_id, echo)
    seed = game["seed"][0]
    players = _rows(run_dir, "players", schemas["players"], game_id).sort("seat")
    factions = players["faction"].to_list()
    names = players["strategy"].to_list()
    logged_vp = players["vp"].to_list()
    logged = _rows(run_dir, "actions", schemas["actions"], game_id).sort("index")["action"]
    from_seed = logged.is_empty()
    seat_names = [f"seat {s} {f} ({n})" for s, (f, n) in enumerate(zip(factions, names,
                                                                       strict=True))]
    echo(f"Game {game_id} of {run_dir} ({manifest['game']}, {len(factions)} players, "
         f"seed {seed})")
    if from_seed:
        echo("This run was logged without actions (--no-actions): re-playing the game from its "
             "seed with the same strategies.")
        rec = play_game(manifest["game"], factions,
                        [strategy_spec(manifest["config"], s) for s in names], seed,
                        overrides=manifest["overrides"] or None, **manifest["options"])
        texts = rec.actions
    else:
        texts = logged.to_list()
    # the game's own options: an imported game's setup is fixed by its log, not by the seed
    options = json.loads(game["setup"][0] or "{}").get("options")
    state = _replay_texts(manifest, factions, seed, texts, seat_names, step, echo, options)
    replayed = state.vp()
    echo("\nFinal scores")
    for s, name in enumerate(seat_names):
        mark = "" if replayed[s] == logged_vp[s] else f"  MISMATCH: logged {logged_vp[s]}"
        echo(f"  {name}: {replayed[s]} VP{mark}")
    echo("\n" + state.render())
    matches = replayed == logged_vp
    echo("Scores match the log." if matches else "Scores DO NOT match the log.")
    return ReplayResult(game_id, matches, from_seed, logged_vp, replayed)


def _replay_failed(run_dir: Path, manifest: dict[str, Any], schemas: dict[str, Any],
                   game_id: int, echo: Callable[[str], None]) -> ReplayResult:
    """A game that failed in the run: play it again from its seed to show the error."""
    from terra_sim.play import play_game

    err = _rows(run_dir, "errors", schemas["errors"], game_id)
    if err.is_empty():
        raise UserError(f"game {game_id} is not in {run_dir} (planned ids: 0 to "
                        f"{manifest['planned_games'] - 1}; unfinished ones need --resume)")
    row = err.row(0, named=True)
    echo(f"Game {game_id} failed in the run: {row['message']}")
    if WATCHDOG_KILLED in row["message"]:  # played here, it would hang this process as it did
        echo(row["traceback"])
        echo("Not played again: the bot hung where its decision timeout could not stop it, and "
             "would hang this process too.")
        return ReplayResult(game_id, False, False, [], [])
    echo(f"Re-playing it from seed {row['seed']} ({row['factions']}; {row['strategies']}):")
    try:
        play_game(manifest["game"], row["factions"].split(","),
                  [strategy_spec(manifest["config"], s) for s in row["strategies"].split(",")],
                  row["seed"], overrides=manifest["overrides"] or None,
                  decision_timeout=manifest["config"]["decision_timeout"], **manifest["options"])
    except Exception:
        echo(traceback.format_exc())
        return ReplayResult(game_id, False, True, [], [])
    echo("It finished this time: the failure depends on something outside the seed "
         "(a decision timeout, or code changed since the run).")
    return ReplayResult(game_id, False, True, [], [])
