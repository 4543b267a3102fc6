"""The seeded Terramara games whose action logs are recorded (tests/action_logs.py says why).

`python tests/tmr_action_logs.py` re-records tests/fixtures/tmr_action_logs.json, only in a commit
that means to change games.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import action_logs

HERE = Path(__file__).resolve().parent
GAME = "terramara"
FIXTURE = HERE / "fixtures" / "tmr_action_logs.json"
SCRIPTED = ["greedy", "raider", "road-runner", "artifact-collector", "river"]
TINY_SEARCH = ["mcts", {"simulations": 6, "candidates": 3}]


def specs() -> list[dict[str, Any]]:
    """48 games: every character (with starting cards), 2 to 4 players, every shipped bot (the
    search bot on a small budget in a few)."""
    from terra_sim import get_game

    game = get_game("terramara")
    groups = [sorted(g) for g in game.exclusive_groups()]
    roster: list[Any] = ["random", *SCRIPTED]
    rng = random.Random(2026)
    out: list[dict[str, Any]] = []
    for i in range(45):
        n = 2 + i % 3
        picks = [g[(i // 3 + 5 * k) % len(g)] for k, g in enumerate(rng.sample(groups, n))]
        out.append({"factions": picks,
                    "strategies": [roster[(i + 2 * k) % len(roster)] for k in range(n)],
                    "seed": 700 + i, "options": {}})
    for i in range(3):
        n = 2 + i % 2
        picks = [g[i % len(g)] for g in rng.sample(groups, n)]
        bots: list[Any] = [TINY_SEARCH, *(SCRIPTED[(i + k) % 5] for k in range(n - 1))]
        out.append({"factions": picks, "strategies": bots[i % n:] + bots[:i % n],
                    "seed": 950 + i, "options": {}})
    return out


def digest(spec: dict[str, Any]) -> dict[str, Any]:
    return action_logs.digest(GAME, spec)


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    action_logs.record(GAME, specs(), FIXTURE)
