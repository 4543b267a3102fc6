"""What-if overrides of game data: they may change values, never the shape of the data."""

import pytest

from terra_sim.core.data import apply_overrides
from terra_sim.core.errors import DataError

DATA = {"factions": {"golems": {"start_money": 7, "ability": {"town_vp": 2}}}, "rounds": 5}


def test_an_override_changes_a_value_and_leaves_the_rest():
    out = apply_overrides(DATA, {"factions": {"golems": {"start_money": 9}}})
    assert out["factions"]["golems"] == {"start_money": 9, "ability": {"town_vp": 2}}
    assert DATA["factions"]["golems"]["start_money"] == 7  # the original is untouched


def test_a_plain_value_cannot_replace_a_table():
    with pytest.raises(DataError, match=r"^override factions: expected a table of its fields "
                                        r"\(golems\), got 5$"):
        apply_overrides(DATA, {"factions": 5})


def test_an_unknown_field_is_named_with_the_valid_ones():
    with pytest.raises(DataError, match="override factions.golems.money: no such field"):
        apply_overrides(DATA, {"factions": {"golems": {"money": 9}}})
