"""The seeded Terra Nova games whose action logs are recorded (tests/action_logs.py says why).

`python tests/tn_action_logs.py` re-records tests/fixtures/tn_action_logs.json, only in a commit
that means to change games.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import action_logs

HERE = Path(__file__).resolve().parent
GAME = "terra-nova"
FIXTURE = HERE / "fixtures" / "tn_action_logs.json"
SCRIPTED = ["greedy", "expander", "merchant", "town-builder", "power-player", "round-scorer"]
TINY_SEARCH = ["mcts", {"simulations": 8, "candidates": 3}]
EXAMPLE_BOT = "strategies.terra_nova.examples.house_first:HouseFirst"


def specs() -> list[dict[str, Any]]:
    """248 games: every faction (each mat side), 2, 3 and 4 players, every shipped bot (the
    search bot flat and with a tree, on small budgets), the example user bot, both two-player
    variants and the drop-out turn order."""
    from terra_sim import get_game

    game = get_game("terra-nova")
    groups = [sorted(g) for g in game.exclusive_groups()]
    roster: list[Any] = ["random", *SCRIPTED]
    rng = random.Random(2026)
    out: list[dict[str, Any]] = []
    for i in range(42):
        n = 2 + i % 3
        picks = [g[(i // 3 + k) % len(g)] for k, g in enumerate(rng.sample(groups, n))]
        options: dict[str, str] = {}
        if n == 2 and i % 4 == 0:
            options["variant"] = ("planner", "lucky-digger")[i // 4 % 2]
        if i % 5 == 0:
            options["turn_order"] = "dropout"
        out.append({"factions": picks, "strategies": [roster[(i + k) % len(roster)]
                                                     for k in range(n)],
                    "seed": 500 + i, "options": options})
    for i in range(6):
        n = 2 + i % 3
        picks = [g[i % len(g)] for g in rng.sample(groups, n)]
        bots: list[Any] = [TINY_SEARCH, *(SCRIPTED[(i + k) % 6] for k in range(n - 1))]
        out.append({"factions": picks, "strategies": bots[i % n:] + bots[:i % n],
                    "seed": 900 + i, "options": {}})
    rng = random.Random(2027)
    roster += [EXAMPLE_BOT, ["mcts", {"simulations": 6, "candidates": 2, "expand_after": 2}]]
    for i in range(200):
        n = 2 + i % 3
        picks = [rng.choice(g) for g in rng.sample(groups, n)]
        options = {}
        if n == 2 and i % 6 == 1:
            options["variant"] = ("planner", "lucky-digger")[i // 6 % 2]
        if i % 4 == 3:
            options["turn_order"] = "dropout"
        bots = [roster[(i + 3 * k) % len(roster)] for k in range(n)]
        if i % 20:  # the search bots in one game of every twenty: they are slow
            bots = [b if isinstance(b, str) else SCRIPTED[k] for k, b in enumerate(bots)]
        out.append({"factions": picks, "strategies": bots, "seed": 2000 + i, "options": options})
    return out


def digest(spec: dict[str, Any]) -> dict[str, Any]:
    return action_logs.digest(GAME, spec)


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    action_logs.record(GAME, specs(), FIXTURE)
