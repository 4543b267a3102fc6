"""Seeded Terramara games give byte-identical action logs to the recorded ones."""

import json

import pytest
from tmr_action_logs import FIXTURE, digest, specs

RECORDED = json.loads(FIXTURE.read_text())


def test_the_fixture_covers_the_games_specs_describes():
    assert [{k: r[k] for k in ("factions", "strategies", "seed", "options")}
            for r in RECORDED] == specs()


@pytest.mark.parametrize("record", RECORDED, ids=lambda r: f"seed{r['seed']}")
def test_same_seed_same_action_log(record):
    spec = {k: record[k] for k in ("factions", "strategies", "seed", "options")}
    assert digest(spec) == record
