"""Games played elsewhere (by people, on a game's online server) in and out of our run folders.

A game that can read logs offers `read_log(text) -> {"factions", "options", "actions"}` and
`write_log(factions, seed, options, actions) -> str` (and names its `log_format`). Imported games
are replayed through our engine and stored with the same schema as simulated ones, strategy
`human`, so `report`, `compare` and `replay` work on them.
"""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from terra_sim.core.errors import IllegalAction, UserError
from terra_sim.core.record import replay
from terra_sim.games import game_slugs, get_game
from terra_sim.run.config import RunConfig
from terra_sim.store import rundir, schema

HUMAN = "human"


def _reader(game: str | None) -> Any:
    if game is None:  # the one game that reads logs, if there is one
        readers = [s for s in game_slugs() if hasattr(get_game(s), "read_log")]
        if len(readers) != 1:
            raise UserError(f"name the game with --game ({', '.join(readers) or 'none'} can "
                            f"import logs)")
        game = readers[0]
    g = get_game(game)
    if not hasattr(g, "read_log"):
        raise UserError(f"{game} has no log format to import")
    return g


def import_logs(files: list[Path], out: Path, game: str | None = None,
                warn: Any = print) -> dict[str, Any]:
    """Replay each log file and write the ones that replay to a new run folder `out`; a file
    that does not replay is reported (one line) and recorded in the errors table."""
    g = _reader(game)
    if out.exists() and any(out.iterdir()):
        raise UserError(f"{out} is not empty; choose another --out")
    tables = schema.schemas(g.categories)
    cols: dict[str, dict[str, list]] = {t: {k: [] for k in s} for t, s in tables.items()}
    from terra_sim.run.chunk import rows_for
    from terra_sim.run.plan import GameSpec

    imported = 0
    for i, path in enumerate(files):
        try:
            text = Path(path).read_text(encoding="utf-8")
            info = g.read_log(text)
            setup = {"game": g.slug, "seed": 0, "factions": info["factions"],
                     "options": info["options"], "overrides": {}}
            rec = replay(g, setup, info["actions"])
        except (UserError, IllegalAction, OSError, UnicodeDecodeError) as e:
            warn(f"{path}: {e}")
            row = {"game_id": i, "seed": 0, "strategies": HUMAN, "factions": "",
                   "message": f"{path}: {e}", "traceback": ""}
            for k, v in row.items():
                cols["errors"][k].append(v)
            continue
        n = len(rec.factions)
        rec.strategies = [HUMAN] * n
        spec = GameSpec(i, 0, tuple(rec.factions), (HUMAN,) * n)
        rows_for(rec, spec, g, g.variant_name({}), cols)
        cols["games"]["setup"][-1] = json.dumps(
            {**json.loads(cols["games"]["setup"][-1]), "source": str(path)}, sort_keys=True)
        imported += 1
    rundir.init_dirs(out)
    if files:
        rundir.write_chunk(out, rundir.part_name(0, len(files) - 1),
                            schema.encode_chunk(cols, tables))
    counts = sorted(set(cols["players"]["n_players"]))
    cfg = RunConfig(game=g.slug, players=counts or [0], games=len(files), seed=0,
                    strategies=[HUMAN], out=str(out))
    now = datetime.now(UTC).isoformat(timespec="seconds")
    from terra_sim.version import __version__

    manifest = {
        "game": g.slug, "title": g.title, "variant": g.variant_name({}), "master_seed": None,
        "package_version": __version__, "engine_version": g.version, "data_set": g.data_set,
        "data_hash": g.data_hash, "overrides": {}, "approximate_data": list(g.approximate),
        "player_counts": counts, "factions": None, "strategies": [HUMAN],
        "strategy_specs": {HUMAN: f"real games imported from logs ({g.log_format})"},
        "categories": list(g.categories), "design": "imported", "options": {},
        "planned_games": len(files), "finished_games": imported,
        "failed_games": len(files) - imported, "started_at": now, "finished_at": now,
        "wall_s": 0.0, "run_dir": str(out), "config": cfg.to_dict(),
        "imported_from": [str(f) for f in files],
    }
    rundir.write_manifest(out, manifest)
    return manifest


def export_game(run_dir: Path, game_id: int) -> str:
    """Game `game_id` of a run folder in its game's log format."""
    manifest = rundir.read_manifest(run_dir)
    if manifest is None:
        raise UserError(f"{run_dir}: no run here (no manifest.json)")
    g = get_game(manifest["game"], manifest["overrides"] or None)
    if not hasattr(g, "write_log"):
        raise UserError(f"{manifest['game']} has no log format to export to")
    schemas = schema.schemas(manifest["categories"])

    def rows(table: str) -> pl.DataFrame:
        return (rundir.scan(run_dir, table, schemas[table])
                .filter(pl.col("game_id") == game_id).collect())

    game = rows("games")
    if game.is_empty():
        raise UserError(f"{run_dir}: no finished game {game_id}")
    actions = rows("actions").sort("index")["action"].to_list()
    if not actions:
        raise UserError(f"{run_dir}: game {game_id} was logged without actions (--no-actions)")
    factions = rows("players").sort("seat")["faction"].to_list()
    setup = json.loads(game["setup"][0])
    return g.write_log(factions, int(game["seed"][0]), setup.get("options", {}), actions)
