"""Real games in and out: `terra-sim import` replays logs in the online server's notation into a
run folder that report, replay and compare read; `terra-sim export` writes a game back."""

import json
from pathlib import Path

import polars as pl
from click.testing import CliRunner

from terra_sim.cli import cli

FIXTURES = Path(__file__).parent / "fixtures" / "terra_mystica"
LOGS = sorted(FIXTURES.glob("real-*.txt"))


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_import_stores_real_games_as_a_run_that_reports_and_replays(tmp_path):
    out = tmp_path / "human"
    result = invoke("import", *LOGS, "--out", out)
    assert result.exit_code == 0, result.output
    assert "3 of 3 games imported" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["game"] == "terra-mystica" and manifest["strategies"] == ["human"]
    players = pl.read_parquet(out / "players" / "*.parquet")
    assert set(players["strategy"]) == {"human"}
    by_faction = dict(zip(players.filter(pl.col("n_players") == 4)["faction"],
                          players.filter(pl.col("n_players") == 4)["vp"], strict=True))
    assert by_faction == {"darklings": 135, "nomads": 117, "chaos-magicians": 115,
                          "mermaids": 85}
    for game_id in range(3):
        assert invoke("replay", out, game_id).exit_code == 0
    report = invoke("report", out, "--out", tmp_path / "rep")
    assert report.exit_code == 0, report.output
    assert "imported from their logs" in report.output


def test_a_log_that_does_not_replay_is_named_and_the_others_still_import(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text(LOGS[0].read_text().replace("Mermaids: Upgrade E4 to TP",
                                               "Mermaids: Upgrade E4 to SH", 1))
    result = CliRunner().invoke(cli, ["import", str(bad), str(LOGS[1]), "--out",
                                      str(tmp_path / "r")])
    assert result.exit_code == 0
    assert f"skipped {bad}: line " in result.output
    assert "1 of 2 games imported" in result.output
    errors = pl.read_parquet(tmp_path / "r" / "errors" / "*.parquet")
    assert errors.height == 1 and "line" in errors["message"][0]


def test_export_writes_a_game_that_imports_to_the_same_result(tmp_path):
    invoke("import", *LOGS, "--out", tmp_path / "human")
    for game_id in range(3):
        text_file = tmp_path / f"g{game_id}.txt"
        assert invoke("export", tmp_path / "human", game_id, "--out", text_file).exit_code == 0
        assert invoke("import", text_file, "--out", tmp_path / f"again{game_id}").exit_code == 0
        a = pl.read_parquet(tmp_path / "human" / "players" / "*.parquet").filter(
            pl.col("game_id") == game_id)["vp"].to_list()
        b = pl.read_parquet(tmp_path / f"again{game_id}" / "players" / "*.parquet")["vp"]
        assert b.to_list() == a


def test_a_simulated_game_exports_and_imports_unchanged(tmp_path):
    run = tmp_path / "sim"
    result = invoke("run", "--game", "terra-mystica", "--players", "3", "--games", "2",
                    "--strategies", "random", "--workers", "1", "--no-report", "--out", run)
    assert result.exit_code == 0, result.output
    for game_id in range(2):
        f = tmp_path / f"sim{game_id}.txt"
        invoke("export", run, game_id, "--out", f)
        assert invoke("import", f, "--out", tmp_path / f"back{game_id}").exit_code == 0
        a = pl.read_parquet(run / "players" / "*.parquet").filter(
            pl.col("game_id") == game_id).sort("seat")["vp"].to_list()
        b = pl.read_parquet(tmp_path / f"back{game_id}" / "players" / "*.parquet").sort(
            "seat")["vp"].to_list()
        assert b == a


def test_import_refuses_a_game_without_a_log_format(tmp_path):
    result = CliRunner().invoke(cli, ["import", str(LOGS[0]), "--game", "terra-nova",
                                      "--out", str(tmp_path / "x")])
    assert result.exit_code == 2
    assert "terra-nova has no log format to import" in result.output


def test_an_empty_out_is_refused_in_one_line(tmp_path):
    for args in (["import", str(LOGS[0]), "--out", ""],
                 ["export", str(tmp_path), "0", "--out", ""]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2, result.output
        assert "--out is empty" in result.output and "Traceback" not in result.output
