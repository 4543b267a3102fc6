"""Real Terra Mystica games, logged by the online server, replay through our engine to the
exact final VP of every faction (tests/fixtures/terra_mystica/README.md)."""

from pathlib import Path

import pytest

from terra_sim.core.errors import UserError
from terra_sim.games.terra_mystica.game import TerraMystica
from terra_sim.games.terra_mystica.notation import read_log, replay_log

FIXTURES = Path(__file__).parent / "fixtures" / "terra_mystica"
FINAL_VP = {
    "real-5p-game-a.txt": {"halflings": 158, "fakirs": 137, "mermaids": 127, "dwarves": 107,
                           "witches": 102},
    "real-5p-game-b.txt": {"halflings": 175, "mermaids": 106, "dwarves": 101,
                           "chaos-magicians": 98, "witches": 94},
    "real-4p-game-c.txt": {"darklings": 135, "nomads": 117, "chaos-magicians": 115,
                           "mermaids": 85},
}


@pytest.fixture(scope="module")
def game():
    return TerraMystica()


@pytest.mark.parametrize("name", sorted(FINAL_VP))
def test_real_game_replays_to_the_exact_final_vp(game, name):
    r = replay_log((FIXTURES / name).read_text(), game)
    assert r.state.is_over()
    assert {p.faction.slug: p.total_vp for p in r.state.players} == FINAL_VP[name]


@pytest.mark.parametrize("name", sorted(FINAL_VP))
def test_a_replayed_game_replays_again_from_its_own_actions(game, name):
    """Our action texts (the log's manual fixes among them) reproduce the game without the
    reader."""
    r = replay_log((FIXTURES / name).read_text(), game)
    log = read_log((FIXTURES / name).read_text())
    s = game.new_state(log.factions, 0, **r.options)
    for text in r.actions:
        s.apply(s.parse_action(text))
    assert s.is_over()
    assert s.vp() == r.state.vp()


def test_the_breakdown_adds_up_to_the_vp(game):
    r = replay_log((FIXTURES / "real-5p-game-a.txt").read_text(), game)
    for p, parts in zip(r.state.players, r.state.breakdown(), strict=True):
        assert sum(parts.values()) == p.total_vp
        assert parts["network"] + parts["cults"] + parts["resources"] > 0


@pytest.mark.parametrize(("old", "new", "why"), [
    ("Nomads: Build F3", "Nomads: Build Z99", "unknown hex 'z99'"),
    ("Nomads: Build F3", "Nomads: Build", "a word is missing"),
    ("Mermaids: Build E4", "Mermaids: Upgrade E4 to XX", "unknown word 'xx'"),
])
def test_a_command_the_engine_cannot_read_names_its_line(game, old, new, why):
    text = (FIXTURES / "real-4p-game-c.txt").read_text().replace(old, new, 1)
    with pytest.raises(UserError, match=rf"^line \d+ \({new.lower()}\): {why}$"):
        replay_log(text, game)


def test_a_log_that_does_not_replay_names_its_line(game):
    text = (FIXTURES / "real-5p-game-a.txt").read_text().replace(
        "mermaids: upgrade e4 to tp", "mermaids: upgrade e4 to sa", 1)
    with pytest.raises(UserError, match=r"^line \d+ \(mermaids: upgrade e4 to sa\): "):
        replay_log(text, game)


def test_unknown_header_commands_are_refused_with_their_line(game):
    with pytest.raises(UserError, match="line 1: unknown command"):
        read_log("shuffle everything\n")
