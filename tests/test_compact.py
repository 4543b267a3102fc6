"""Compaction: a run's many small chunks merged into few large ones, the games unchanged, safe
to interrupt at any point, done by a long run itself and by `terra-sim compact`."""

import shutil
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from report_fixtures import make_run

from terra_sim.analysis import tables
from terra_sim.analysis.bench_report import tile_run
from terra_sim.cli import cli
from terra_sim.core.errors import UserError
from terra_sim.run.runner import run_tournament
from terra_sim.store import compaction, rundir, runlock, schema


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    return make_run(tmp_path_factory.mktemp("runs") / "source", n4=60, n2=20, errors=0)


@pytest.fixture
def chunked(source, tmp_path) -> Path:
    """200 games in chunks of 4, every table with a part per chunk, as a long run leaves."""
    return tile_run(source, tmp_path / "chunked", 200, part_games=4)


def _tables(run_dir: Path) -> dict[str, pl.DataFrame]:
    return {t: pl.read_parquet(run_dir / t / "*.parquet").sort("game_id", maintain_order=True)
            for t in ("games", "players")}


def _names(run_dir: Path) -> dict[str, list[str]]:
    return {t: sorted(p.name for p in (run_dir / t).glob("*.parquet")) for t in schema.TABLES}


def test_compact_merges_chunks_and_keeps_every_game(chunked):
    before = _tables(chunked)
    ft = tables.faction_table(tables.open_run(chunked))
    assert len(_names(chunked)["games"]) == 50
    assert compaction.compact(chunked, games_per_part=40) == (50, 5)
    names = _names(chunked)
    # every table holds the same chunks, each spanning 40 games
    assert all(n == names["games"] for n in names.values())
    assert names["games"][0] == rundir.part_name(0, 39)
    after = _tables(chunked)
    for t in before:
        assert after[t].equals(before[t])
    again = tables.faction_table(tables.open_run(chunked))
    assert again.select("faction", "games").equals(ft.select("faction", "games"))
    # (wins sum thirds and halves: on several threads their last bit may differ)
    assert again["wins"].to_list() == pytest.approx(ft["wins"].to_list(), rel=1e-12)
    assert not (chunked / rundir.COMPACT_DIR).exists()
    assert compaction.compact(chunked, games_per_part=40) == (5, 5)  # nothing left to merge


def test_big_chunks_stay_and_small_ones_between_them_merge(tmp_path):
    d = tmp_path / "r"
    (d / "games").mkdir(parents=True)
    for a, b in [(0, 0), (1, 1), (2, 3), (4, 7), (8, 40), (41, 41), (42, 42), (43, 143),
                 (144, 150)]:
        (d / "games" / rundir.part_name(a, b)).touch()
    assert compaction.plan_compaction(d, 10) == [
        [rundir.part_name(0, 0), rundir.part_name(1, 1), rundir.part_name(2, 3),
         rundir.part_name(4, 7)],
        [rundir.part_name(41, 41), rundir.part_name(42, 42)]]


def test_an_interrupted_compaction_is_finished_by_the_next_reader(chunked, monkeypatch):
    before = _tables(chunked)
    real_apply = compaction._apply
    calls = []

    def crash(run_dir, entry):  # the power fails after the second group's journal is written
        calls.append(entry)
        if len(calls) == 2:
            # ... and after its players part went in, before anything else moved
            staged = run_dir / rundir.COMPACT_DIR / "players" / entry["merged"]
            staged.rename(run_dir / "players" / entry["merged"])
            raise KeyboardInterrupt
        real_apply(run_dir, entry)

    monkeypatch.setattr(compaction, "_apply", crash)
    with pytest.raises(KeyboardInterrupt):
        compaction.compact(chunked, games_per_part=40)
    monkeypatch.setattr(compaction, "_apply", real_apply)
    assert rundir.compacting(chunked)
    # The players table now holds the second group twice over: no reader may count it.
    with pytest.raises(UserError, match="being compacted"):
        rundir.scan(chunked, "players", {"game_id": pl.Int64})
    # The report's reader finishes the compaction (the run is free) and sees every game once.
    run = tables.open_run(chunked)
    assert not rundir.compacting(chunked)
    assert run.frame.height == before["players"].height
    after = _tables(chunked)
    for t in before:
        assert after[t].equals(before[t])
    names = _names(chunked)
    assert all(n == names["games"] for n in names.values())


def test_staging_without_a_journal_is_dropped(chunked):
    before = _tables(chunked)
    stage = chunked / rundir.COMPACT_DIR / "players"
    stage.mkdir(parents=True)
    shutil.copy(next((chunked / "players").glob("*.parquet")), stage / "part-x.parquet")
    assert not rundir.compacting(chunked)  # nothing was committed: readers go on
    assert compaction.finish_compaction(chunked) is False
    assert not (chunked / rundir.COMPACT_DIR).exists()
    assert _tables(chunked)["players"].equals(before["players"])


def test_a_run_in_use_is_not_compacted(chunked):
    with runlock.RunLock(chunked), pytest.raises(UserError, match="in use"):
        compaction.compact(chunked)


def test_a_long_run_compacts_itself_and_resumes(tmp_path, monkeypatch):
    monkeypatch.setattr(compaction, "COMPACT_AFTER", 4)
    monkeypatch.setattr(compaction, "COMPACT_GAMES", 5)
    kw = {"games": 12, "players": 2, "strategies": "random", "workers": 1, "chunk_size": 1}
    result = run_tournament(out=tmp_path / "r", **kw)
    names = _names(result.run_dir)
    assert names["games"] == [rundir.part_name(0, 4), rundir.part_name(5, 9),
                              rundir.part_name(10, 11)]
    assert all(n == names["games"] for n in names.values())
    assert any("merged the run's 12 chunks into 3" in n for n in result.stats.notes)
    assert result.manifest["finished_games"] == 12
    assert rundir.done_ids(result.run_dir) == set(range(12))
    # The same games as a run that was not compacted.
    monkeypatch.setattr(compaction, "COMPACT_AFTER", 1_000)
    plain = run_tournament(out=tmp_path / "plain", **kw)
    assert len(_names(plain.run_dir)["games"]) == 12
    a, b = _tables(result.run_dir), _tables(plain.run_dir)
    assert a["players"].equals(b["players"])
    assert a["games"].drop("duration_s").equals(b["games"].drop("duration_s"))
    # A resume over merged chunks plays what is missing, and only that.
    for t in schema.TABLES:
        (result.run_dir / t / rundir.part_name(5, 9)).unlink()
    again = run_tournament(resume=result.run_dir)
    assert again.manifest["finished_games"] == 12 and again.stats.games == 5
    assert _tables(again.run_dir)["players"].equals(b["players"])


def test_cli_compact(chunked, tmp_path):
    res = CliRunner().invoke(cli, ["compact", str(chunked), "--games-per-part", "100"])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == f"{chunked}: merged 50 part files per table into 2"
    res = CliRunner().invoke(cli, ["compact", str(chunked), "--games-per-part", "100"])
    assert "nothing to merge" in res.stdout
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(cli, ["compact", str(tmp_path / "empty")])
    assert res.exit_code == 2 and "not a run directory" in res.output


def test_a_damaged_part_stops_the_merge_of_its_group_only(chunked):
    before = _names(chunked)
    part = chunked / "players" / before["players"][-3]  # in the last group of 40 games
    part.write_bytes(part.read_bytes()[:50])
    with pytest.raises(UserError, match="cannot merge the chunks .* they are left as they were"):
        compaction.compact(chunked, games_per_part=40)
    after = _names(chunked)
    assert len(after["games"]) == 4 + 10  # the first four groups merged, the fifth as it was
    assert all(n == after["games"] for n in after.values())
    assert not (chunked / rundir.COMPACT_DIR).exists()
    res = CliRunner().invoke(cli, ["compact", str(chunked)])
    assert res.exit_code == 2 and "cannot merge the chunks" in res.output


def test_the_report_says_when_a_run_wants_compacting(chunked, tmp_path, monkeypatch):
    from terra_sim.analysis.report import build_report

    monkeypatch.setattr(tables, "MANY_CHUNKS", 10)
    heard: list[str] = []
    build_report(chunked, out=tmp_path / "a", formats="md", progress=heard.append)
    assert heard[0] == (f"reading the run (50 part files per table; `terra-sim compact "
                        f"{chunked}` merges them and makes reading much faster)")
    compaction.compact(chunked)
    heard.clear()
    build_report(chunked, out=tmp_path / "b", formats="md", progress=heard.append)
    assert heard[0] == "reading the run"
