"""Starting VP as data: every game's factions have a `start_vp` field that a what-if override
changes, and where neither the rules nor the bots let VP change play (a game's and a bot's
`vp_affects_play`), a handicapped game is the same game with shifted scores."""

import random

import pytest

import strategies
from terra_sim import get_game, play_game
from terra_sim.core.errors import DataError
from terra_sim.run.config import RunConfig, validate
from terra_sim.run.plan import Plan

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


def test_the_declarations():
    assert get_game("terra-nova").vp_affects_play is False
    assert get_game("terramara").vp_affects_play is False
    assert get_game("terra-mystica").vp_affects_play is True  # a power offer costs VP
    for slug in ("terra-nova", "terramara"):
        roster = strategies.roster(slug)
        assert not any(roster[n].vp_affects_play for n in strategies.default_strategies(slug))
        assert not roster["random"].vp_affects_play
        assert roster["mcts"].vp_affects_play  # it compares the seats' scores
    tm = strategies.roster("terra-mystica")
    assert all(tm[n].vp_affects_play for n in strategies.default_strategies("terra-mystica"))


@pytest.mark.parametrize("slug, players, games", [("terra-nova", 4, 6), ("terra-nova", 2, 6),
                                                  ("terramara", 3, 4)])
def test_a_head_start_changes_no_game_where_nothing_reads_vp(slug, players, games):
    # Handicaps of both signs on every faction: each game plays the same actions, and each
    # seat's final VP moves by exactly its handicap. The bots' valuations count VP earned, so
    # a head start changes no float they compare (a float tie broken differently once did).
    cfg = validate(RunConfig(game=slug, players=[players], games=games, seed=3))
    g = get_game(slug)
    rng = random.Random(5)
    handicap = {f: rng.choice([-7, -2, 3, 9]) for f in cfg.factions}
    over = merged(*(g.start_vp_override(f, g.start_vp(f) + h) for f, h in handicap.items()))
    plan = Plan(cfg.content(), g.exclusive_groups())
    for i in range(games):
        s = plan.spec(i)
        a = play_game(slug, list(s.factions), list(s.strategies), s.seed)
        b = play_game(slug, list(s.factions), list(s.strategies), s.seed, overrides=over)
        assert a.actions == b.actions
        assert b.final_vp == [v + handicap[f] for v, f in zip(a.final_vp, s.factions,
                                                             strict=True)]
