"""Seeded games of every game give byte-identical action logs to the recorded ones
(tests/action_logs.py)."""

import json

import pytest
import tm_action_logs
import tmr_action_logs
import tn_action_logs

MODULES = [tn_action_logs, tm_action_logs, tmr_action_logs]
RECORDED = [(m, r) for m in MODULES for r in json.loads(m.FIXTURE.read_text())]
KEYS = ("factions", "strategies", "seed", "options")


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.GAME)
def test_the_fixture_covers_the_games_specs_describes(module):
    recorded = json.loads(module.FIXTURE.read_text())
    assert [{k: r[k] for k in KEYS} for r in recorded] == module.specs()


@pytest.mark.parametrize("module,record", RECORDED,
                         ids=[f"{m.GAME}-seed{r['seed']}" for m, r in RECORDED])
def test_same_seed_same_action_log(module, record):
    assert module.digest({k: record[k] for k in KEYS}) == record
