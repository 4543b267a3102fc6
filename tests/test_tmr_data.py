"""Terramara data: the box's counts, the effect vocabulary and references hold for the data set
on disk, the stand-in set is what its script writes, and a broken file fails in one line
naming file and field."""

import shutil
import tomllib

import pytest

from terra_sim.core.errors import DataError
from terra_sim.games.terramara import data as tmr_data
from terra_sim.games.terramara import make_standin
from terra_sim.games.terramara.data import (
    CATEGORIES,
    CHARACTER,
    END,
    GAINS,
    PERMANENT,
    load_data,
)
from terra_sim.games.terramara.game import Terramara


def test_the_box_counts():
    d = load_data()
    assert len(d.artifacts) == 52 and len(d.tiles) == 24 and len(d.bonus) == 18
    assert len(d.characters) == 7 and len(d.starting) == 12 and len(d.outposts) == 8
    assert {a.category for a in d.artifacts.values()} == set(range(len(CATEGORIES)))
    assert {a.level for a in d.artifacts.values()} == {1, 2, 3}
    for level in (1, 2, 3):
        assert sum(b.level == level for b in d.bonus.values()) == 6
        for column in ("plains", "forest"):
            assert sum(t.level == level and t.column == column for t in d.tiles.values()) == 4


def test_every_effect_is_from_the_vocabulary_and_every_reference_resolves():
    d = load_data()
    for a in d.artifacts.values():
        assert set(a.instant) | set(a.round) <= set(GAINS)
        assert set(a.permanent) <= set(PERMANENT) and set(a.end) <= set(END)
    for t in d.tiles.values():
        assert len(t.spaces) == 3
        for sp in t.spaces:
            assert set(sp.effects) <= set(GAINS)
        assert (t.outpost in d.outposts) == (t.column == "plains" and t.level < 3)
    for c in d.characters.values():
        assert set(c.young) | set(c.experienced) <= set(CHARACTER)
    assert sorted(t.outpost for t in d.tiles.values() if t.outpost) == sorted(d.outposts)


def test_every_stand_in_record_says_it_is_approximate():
    for stem in ("artifacts", "territories", "outposts", "bonus", "characters", "starting"):
        with open(tmr_data.DATA_DIR / f"{stem}.toml", "rb") as f:
            raw = tomllib.load(f)
        assert raw["meta"]["name"] == "approximate-v1"
        assert all(r["provenance"] == "approximate" for r in raw[stem].values()), stem


def test_the_stand_in_files_are_what_the_seeded_script_writes():
    for name, text in make_standin.build().items():
        assert (tmr_data.DATA_DIR / name).read_text(encoding="utf-8") == text, name


def test_reports_learn_that_the_cards_are_stand_ins():
    g = Terramara()
    assert g.data_set == "approximate-v1"
    assert g.approximate[0].startswith("STAND-IN CARDS")
    assert any("faction = character + starting resources card" in a for a in g.approximate)


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    """A copy of the data files to break, loaded instead of the real ones."""
    for f in tmr_data.DATA_DIR.iterdir():
        shutil.copy(f, tmp_path / f.name)
    monkeypatch.setattr(tmr_data, "DATA_DIR", tmp_path)
    return tmp_path


def _edit(folder, stem: str, after: str, old: str, new: str) -> None:
    """Replace `old` by `new` in the first record after the line `after`."""
    path = folder / f"{stem}.toml"
    text = path.read_text()
    at = text.index(after)
    k = text.index(old, at)
    path.write_text(text[:k] + new + text[k + len(old):])


@pytest.mark.parametrize("stem, after, old, new, where", [
    ("artifacts", "[artifacts.A02]", "cost = {", "cost = { tin = 1,",
     "artifacts.toml: artifacts.A02.cost.tin: unknown effect"),
    ("artifacts", "[artifacts.A02]", "instant = {", "instant = { gold = 1,",
     "artifacts.toml: artifacts.A02.instant.gold: unknown effect"),
    ("artifacts", "[artifacts.A02]", "level = 1", "level = 4",
     "artifacts.toml: artifacts.A02.level"),
    ("territories", "[territories.T01]", 'outpost = "', 'outpost = "X',
     "territories.toml: territories.T01.outpost: no outpost"),
    ("characters", "[characters.hunter]", "young = {", "young = { fly = 1,",
     "characters.toml: characters.hunter.young.fly: unknown effect"),
    ("bonus", "[bonus.B01]", "level = 1", "level = 4", "bonus.toml: bonus.B01.level"),
    ("outposts", "[outposts.O1]", 'require = "', 'require = "luck',
     "outposts.toml: outposts.O1.require"),
    ("rules", "[rules]", "military_vp = [8, 5, 2]", "military_vp = [8, 5]",
     "rules.toml: rules.military_vp"),
    ("starting", "[starting.card12]", "effects = { military = 1,", "effects = { military = 0,",
     "starting.toml: starting.card12.effects.military: expected an integer"),
])
def test_a_broken_field_is_one_line_naming_file_and_field(data_copy, stem, after, old, new,
                                                           where):
    _edit(data_copy, stem, after, old, new)
    with pytest.raises(DataError) as e:
        load_data()
    assert where in str(e.value) and "\n" not in str(e.value)


def test_a_missing_record_breaks_the_count(data_copy):
    text = (data_copy / "starting.toml").read_text()
    (data_copy / "starting.toml").write_text(text[:text.index("[starting.card12]")])
    with pytest.raises(DataError, match=r"starting.toml: \[starting.\*\]: expected 12 records"):
        load_data()


def test_an_override_of_a_field_is_validated_like_the_file():
    with pytest.raises(DataError, match="artifacts.toml: artifacts.A01.cost.leather"):
        load_data({"artifacts": {"artifacts": {"A01": {"cost": {"leather": -1}}}}})


def test_faction_mode_character_makes_factions_the_characters():
    g = Terramara({"rules": {"rules": {"faction_mode": "character"}}})
    assert g.faction_slugs() == list(g.data.characters)
    assert g.exclusive_groups() == []
    s = g.new_state(["hunter", "sage"], 3)
    assert {p.card for p in s.players} <= set(g.data.starting)
    assert s.players[0].card != s.players[1].card


def test_a_report_of_a_run_says_first_that_the_cards_are_stand_ins(tmp_path):
    from terra_sim.analysis.report import build_report
    from terra_sim.run.runner import run_tournament

    run = run_tournament(game="terramara", players=[3], games=3, strategies=["random"],
                         workers=1, out=str(tmp_path / "run"))
    result = build_report(run.run_dir, tmp_path / "rep", formats="md")
    assert result.summary.splitlines()[1].startswith("Data marked approximate: STAND-IN CARDS")
    md = (tmp_path / "rep" / "report.md").read_text()
    first = md.split("\n## ")[1]  # the first section, before any result
    assert "**Data marked approximate:** STAND-IN CARDS" in first
