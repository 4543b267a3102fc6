"""Recorded action logs of seeded games, for any game: a change that is not meant to change
games (a move, a refactor, speed work, the compiled build) must leave every one of them
byte-identical. Each game's module (tn_action_logs.py, tm_action_logs.py, tmr_action_logs.py)
says which games it records; `python tests/<module>.py` re-records its fixture. Do that only in
a commit that means to change games, and say which games changed and why.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any


def digest(game: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The game `spec` describes, played: its spec, action count, log hash and final VP."""
    from terra_sim import play_game

    strategies = [tuple(s) if isinstance(s, list) else s for s in spec["strategies"]]
    rec = play_game(game, spec["factions"], strategies, spec["seed"], **spec["options"])
    text = "\n".join(rec.actions).encode()
    return {**spec, "actions": len(rec.actions), "sha256": hashlib.sha256(text).hexdigest(),
            "final_vp": rec.final_vp}


def record(game: str, specs: list[dict[str, Any]], fixture: Path) -> None:
    records = [digest(game, s) for s in specs]
    fixture.write_text("[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]\n")
    print(f"recorded {len(records)} games in {fixture}", file=sys.stderr)
