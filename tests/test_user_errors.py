"""User mistakes that once gave a traceback or a silently wrong result: each now exits 2 with
one readable line, or (too many workers, runs of different player counts) goes on and says so."""

import errno
import json
import re
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner, Result
from report_fixtures import make_run

from terra_sim.analysis.files import check_footers
from terra_sim.cli import cli

README = Path(__file__).resolve().parent.parent / "README.md"
BAD_INIT = '''
from strategies.base import Strategy


class NoModel(Strategy):
    name = "no-model"

    def __init__(self, rng, **params):
        super().__init__(rng, **params)
        raise FileNotFoundError("weights.bin is missing\\nsecond line of detail")

    def choose(self, state, legal):
        return legal[0]
'''


def invoke(*args) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


STAGE = re.compile(r"report: [\w ().,-]+\.\.\.")  # a report's stages, told as they start


def refused(result: Result) -> str:
    """The one line a refused command printed, after checking it is one line and exit 2 (the
    stages a report had begun are told before it, and are not part of the error)."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.strip().splitlines() if not STAGE.fullmatch(line)]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0].removeprefix("Error: ")


def run_config(tmp_path: Path, text: bytes | str) -> Result:
    config = tmp_path / "c.toml"
    if isinstance(text, str):
        config.write_text(text, encoding="utf-8")
    else:
        config.write_bytes(text)
    return invoke("run", config, "--out", tmp_path / "r", "--no-report")


# --- config files -------------------------------------------------------------------------------


def test_non_utf8_config(tmp_path):
    message = refused(run_config(tmp_path, 'games = 2\nfactions = ["g\xe9"]\n'.encode("latin-1")))
    assert message == (f"config {tmp_path / 'c.toml'}: not UTF-8 text (byte 0xe9 at offset 24); "
                       "save it as UTF-8")


def test_empty_faction_pool(tmp_path):
    message = refused(run_config(tmp_path, "games = 2\nfactions = []\n"))
    assert message == ("the faction pool is empty; name at least 4 factions, or leave factions "
                       "out to use all of terra-nova's")


def test_override_that_is_not_a_table(tmp_path):
    message = refused(run_config(tmp_path, "games = 2\n[overrides]\nfactions = 5\n"))
    assert message == ("config: overrides.factions must be a table of the factions data fields "
                       "to change, like [overrides.factions.<table>], got 5")


def test_nested_override_that_breaks_the_data_is_the_users_mistake(tmp_path):
    message = refused(run_config(tmp_path, "games = 2\n[overrides.factions]\nfactions = 5\n"))
    assert message.startswith("override factions.factions: expected a table of its fields (")
    assert message.endswith("water-sprites), got 5")


# --- user bots ----------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["run", "--games", "2", "--no-report"], ["play"]])
def test_user_bot_failing_in_init_is_named(tmp_path, command):
    bot = tmp_path / "nomodel.py"
    bot.write_text(BAD_INIT)
    spec = f"{bot}:NoModel"
    out = ["--out", tmp_path / "r"] if command[0] == "run" else []
    message = refused(invoke(*command, *out, "--strategies", spec))
    assert message == (f"strategy {spec!r} (NoModel) failed to start: __init__ raised "
                       "FileNotFoundError: weights.bin is missing")


# --- --out --------------------------------------------------------------------------------------


def test_run_refuses_an_empty_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    message = refused(invoke("run", "--out", "", "--games", "1", "--no-report"))
    assert message == ("--out (out in a config) is empty: name the run folder, or omit it for "
                       "the default runs/<game>-<timestamp>")
    assert not (tmp_path / "runs").exists()


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("runs")
    return {"four": make_run(base / "four", n4=40, n2=0, errors=0),
            "four-b": make_run(base / "four-b", n4=40, n2=0, seed=8, errors=0),
            "two": make_run(base / "two", n4=0, n2=40, errors=0),
            "mixed": make_run(base / "mixed", n4=20, n2=20, errors=0)}


def test_report_and_compare_refuse_an_empty_out(runs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    message = refused(invoke("report", runs["four"], "--out", ""))
    assert message == "--out is empty: name the output folder, or omit it for the default " \
                      "reports/four/"
    message = refused(invoke("compare", runs["four"], runs["four-b"], "--out", ""))
    assert message == "--out is empty: name the output folder, or omit it for the default " \
                      "reports/compare-four-vs-four-b/"
    assert list(tmp_path.iterdir()) == []


# --- play ---------------------------------------------------------------------------------------


def test_play_refuses_players_that_disagree_with_factions():
    message = refused(invoke("play", "--factions", "golems,fairies", "--players", "4"))
    assert message == ("--players 4 but --factions names 2 factions (golems, fairies): name one "
                       "faction per seat, or omit --players to play one seat per faction")


def test_play_seats_follow_factions_without_players():
    result = invoke("play", "--factions", "golems,fairies", "--seed", "2")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == ("terra-nova seed 2: seat 0 golems (random), "
                                             "seat 1 fairies (random)")


@pytest.mark.parametrize("players", ["0", "5"])
def test_play_refuses_a_player_count_the_game_does_not_have(players):
    message = refused(invoke("play", "--players", players))
    assert message == f"terra-nova plays with 2, 3, 4 players, not {players}"


def test_play_refuses_an_empty_faction_list():
    message = refused(invoke("play", "--factions", ""))
    assert message == ("--factions is empty: name one faction per seat, e.g. golems,fairies, or "
                       "omit it to draw the factions")


def test_negative_seed_is_refused_alike_by_play_and_run(tmp_path):
    play = refused(invoke("play", "--seed", "-1"))
    run = refused(invoke("run", "--seed", "-1", "--games", "1", "--out", tmp_path / "r"))
    assert play == run == "seed must be 0 or more, got -1"


# --- run ----------------------------------------------------------------------------------------


def test_run_says_the_pool_is_too_small_not_that_colours_clash(tmp_path):
    message = refused(invoke("run", "--players", "4", "--factions", "golems,fairies",
                             "--out", tmp_path / "r", "--no-report"))
    assert message == ("the faction pool (golems, fairies) has 2 factions, too few for "
                       "4 players; name at least 4")


def test_workers_are_capped_at_the_games_with_one_warning(tmp_path, caplog):
    out = tmp_path / "r"
    result = invoke("run", "--workers", "1000", "--games", "1", "--strategies", "random",
                    "--out", out, "--no-report")
    assert result.exit_code == 0, result.output
    assert caplog.messages == ["warning: 1000 workers asked for, 1 used: the run has only 1 game"]
    assert json.loads((out / "manifest.json").read_text())["config"]["workers"] == 1


def test_workers_are_capped_at_the_cores_with_one_warning(tmp_path, caplog, monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    out = tmp_path / "r"
    result = invoke("run", "--workers", "1000", "--games", "6", "--strategies", "random",
                    "--out", out, "--no-report")
    assert result.exit_code == 0, result.output
    assert caplog.messages == ["warning: 1000 workers asked for, 2 used: this machine has 2 "
                               "cores"]


# --- compare ------------------------------------------------------------------------------------


@pytest.mark.parametrize("a,counts,verdict", [
    ("two", "2", "No player count is in both runs, so no faction can be compared like with "
                 "like."),
    ("mixed", "2 and 4", "Significant by player count after Holm correction (alpha = 0.05) at "
                         "the counts both runs played: "),
])
def test_compare_of_different_player_counts_compares_per_count(runs, tmp_path, a, counts,
                                                               verdict):
    result = invoke("compare", runs[a], runs["four"], "--out", tmp_path / "c")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    i = lines.index(f"Player counts differ: run A played {counts} players, run B 4; pooled "
                    "changes are not tested, only the same player count is compared.")
    assert lines[i + 1].startswith(verdict)
    pooled = pl.read_csv(tmp_path / "c" / "tables" / "faction_changes.csv")
    assert pooled["win_change_p"].null_count() == pooled.height  # no pooled test at all
    assert not pooled["win_change_significant"].any()
    assert not pooled["margin_change_significant"].any()
    assert "Player counts differ" in (tmp_path / "c" / "report.md").read_text()


# --- damaged runs and failed writes -------------------------------------------------------------


def test_report_names_a_truncated_part(tmp_path):
    run = make_run(tmp_path / "run", n4=20, n2=0, errors=0)
    part = sorted((run / "players").glob("*.parquet"))[-1]
    data = part.read_bytes()
    part.write_bytes(data[:len(data) // 2])
    message = refused(invoke("report", run, "--out", tmp_path / "rep"))
    assert message.startswith(f"{part}: cannot read this Parquet part, it is truncated or "
                              "damaged (")


def test_report_names_a_part_damaged_inside(tmp_path):
    run = make_run(tmp_path / "run", n4=20, n2=0, errors=0)
    part = sorted((run / "players").glob("*.parquet"))[-1]
    data = bytearray(part.read_bytes())
    for i in range(100, len(data) // 2):  # the pages, not the footer
        data[i] ^= 0x5A
    part.write_bytes(bytes(data))
    check_footers(run)  # the footer is whole: found only when the report's query fails
    message = refused(invoke("report", run, "--out", tmp_path / "rep"))
    assert message.startswith(f"{part}: cannot read this Parquet part, it is truncated or "
                              "damaged (")


def test_report_into_a_folder_that_cannot_be_made(runs, tmp_path):
    (tmp_path / "file").write_text("not a folder")
    out = tmp_path / "file" / "rep"
    message = refused(invoke("report", runs["four"], "--out", out))
    assert message == (f"cannot write {out / 'plots'}: Not a directory; free some space or give "
                       "a writable folder with --out")


def test_report_on_a_full_disk(runs, tmp_path, monkeypatch):
    def full(self, path, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pl.DataFrame, "write_csv", full)
    out = tmp_path / "rep"
    message = refused(invoke("report", runs["four"], "--out", out))
    assert message == (f"cannot write {out / 'tables' / 'factions.csv'}: No space left on "
                       "device; free some space or give a writable folder with --out")


# --- README -------------------------------------------------------------------------------------


def test_readme_python_example_runs():
    text = README.read_text(encoding="utf-8")
    example = re.search(r"From Python:\n\n```python\n(.*?)```", text, re.S)
    assert example is not None, "README lost its Python example"
    scope: dict = {}
    exec(example.group(1), scope)  # noqa: S102 - our own README
    rec = scope["rec"]
    assert len(rec.final_vp) == 4 and len(set(rec.factions)) == 4
