"""Starting VP as data: every game's factions have a `start_vp` field that a what-if override
changes."""

import pytest

from terra_sim import get_game
from terra_sim.core.errors import DataError

PRINTED = {"terra-nova": 0, "terra-mystica": 20, "terramara": 0}


def merged(*fragments):
    out: dict = {}

    def merge(a, b):
        for k, v in b.items():
            if isinstance(v, dict):
                merge(a.setdefault(k, {}), v)
            else:
                a[k] = v

    for f in fragments:
        merge(out, f)
    return out


@pytest.mark.parametrize("slug", sorted(PRINTED))
def test_every_faction_starts_with_the_printed_vp_and_an_override_changes_it(slug):
    g = get_game(slug)
    factions = g.faction_slugs()
    assert {g.start_vp(f) for f in factions} == {PRINTED[slug]}
    f = factions[-1]
    h = get_game(slug, g.start_vp_override(f, PRINTED[slug] + 3))
    assert h.start_vp(f) == PRINTED[slug] + 3
    assert all(h.start_vp(x) == PRINTED[slug] for x in factions if x != f)
    assert h.data_hash != g.data_hash
    # The state starts with it, in a category of its own.
    partner = next(o for o in factions if o != f
                   and not any({f, o} <= grp for grp in h.exclusive_groups()))
    chosen = [f, partner]
    state = h.new_state(chosen, 1)
    assert state.vp()[0] - get_game(slug).new_state(chosen, 1).vp()[0] == 3
    assert state.breakdown()[0]["start"] == PRINTED[slug] + 3


def test_a_start_vp_override_naming_no_faction_is_refused():
    with pytest.raises(DataError, match="start_vp"):
        get_game("terramara", {"rules": {"start_vp": {"nobody+card01": 2}}})
    with pytest.raises(DataError, match="no such field"):
        get_game("terra-nova", {"factions": {"factions": {"nobody": {"start_vp": 2}}}})
