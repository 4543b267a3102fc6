"""`terra-sim run`, `replay` and `bench` through the command line, tables read back with polars."""

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import polars as pl
import pytest
from click.testing import CliRunner

from terra_sim.cli import cli

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
BOOM = '''
from strategies.base import Strategy


class Boom(Strategy):
    name = "boom"

    def choose(self, state, legal):
        raise ValueError("this bot always fails")
'''


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def run_ok(out, *args):
    result = invoke("run", "--out", out, "--no-report", "--strategies", "random", *args)
    assert result.exit_code == 0, result.output
    return result


RAW_TABLE = ["faction", "games", "win", "share", "mean", "VP"]  # the header of --verbose's table


def test_run_writes_parquet_and_prints_the_summary(tmp_path):
    out = tmp_path / "run"
    result = run_ok(out, "--games", 8, "--workers", 2, "--players", "3,4", "--seed", 5)
    lines = result.stdout.rstrip().splitlines()
    assert lines[-1].startswith("8 of 8 games finished") and lines[-1].endswith(str(out))
    assert RAW_TABLE not in [line.split() for line in lines]  # without --verbose
    games = pl.scan_parquet(out / "games" / "*.parquet").collect()
    players = pl.scan_parquet(out / "players" / "*.parquet").collect()
    assert sorted(games["game_id"]) == list(range(8))
    assert players.height == 4 * 3 + 4 * 4
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["master_seed"] == 5 and manifest["player_counts"] == [3, 4]
    assert manifest["finished_games"] == manifest["planned_games"] == 8


def test_default_run_with_report(tmp_path, monkeypatch):
    import webbrowser

    monkeypatch.chdir(tmp_path)
    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    result = invoke("run", "--games", 4, "--workers", 1, "--open")
    assert result.exit_code == 0, result.output
    runs = list((tmp_path / "runs").iterdir())
    assert len(runs) == 1 and runs[0].name.startswith("terra-nova-")
    assert "report: factions..." in result.stderr  # the report's stages as they run
    # It ends on the answer: the verdicts, then the file to open, which --open opened.
    page = Path("reports") / runs[0].name / "report.html"
    out = result.stdout.rstrip().splitlines()
    assert out[-1].endswith(f"open {page}") and (tmp_path / page).is_file()
    verdict = next(i for i, line in enumerate(out) if line.startswith("Verdict: "))
    assert out[verdict + 2].split() == ["faction", "verdict", "win-share", "edge",
                                        "[95%", "Wilson]", "VP", "margin", "[95%", "t]",
                                        "games"]
    assert "This run finds an edge of" in result.stdout
    assert opened == [(tmp_path / page).resolve().as_uri()]
    assert pl.read_parquet(runs[0] / "players" / "*.parquet")["n_players"].unique().to_list() == [4]


def test_run_ends_on_the_verdicts_and_the_report_and_verbose_adds_the_raw_table(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    page = Path("reports") / "run" / "report.html"
    args = ("run", "--out", "run", "--games", 6, "--workers", 1, "--strategies", "random")
    for verbose in (False, True):  # the second continues the first: no new games, same report
        result = invoke(*args, *(["--verbose"] if verbose else []))
        assert result.exit_code == 0, result.output
        out = [line.split() for line in result.stdout.rstrip().splitlines()]
        finished = next(i for i, line in enumerate(out) if line[:5] == ["6", "of", "6", "games",
                                                                      "finished"])
        verdict = next(i for i, line in enumerate(out) if line[:1] == ["Verdict:"])
        # The run's line, then the verdicts and the file to open, last.
        assert finished < verdict and " ".join(out[-1]).endswith(f"open {page}")
        assert any(line[:5] == ["This", "run", "finds", "an", "edge"]
                   for line in out[verdict:-1])
        if verbose:
            table = out.index(RAW_TABLE)
            assert table < finished and len(out[table + 1]) == 4  # faction, games, share, VP
        else:
            assert RAW_TABLE not in out


def test_replay_checks_scores_and_prints_rounds_and_map(tmp_path):
    out = tmp_path / "run"
    run_ok(out, "--games", 3, "--workers", 1)
    result = invoke("replay", out, 2)
    assert result.exit_code == 0, result.output
    assert "Round 1" in result.output and "Round 5" in result.output
    assert "Scores match the log." in result.output
    vp = pl.read_parquet(out / "players" / "*.parquet").filter(pl.col("game_id") == 2)["vp"]
    for v in vp:
        assert f": {v} VP" in result.output
    step = invoke("replay", out, 2, "--step")
    n_actions = pl.read_parquet(out / "games" / "*.parquet").filter(
        pl.col("game_id") == 2)["n_actions"].item()
    assert f"{n_actions - 1:4d} seat" in step.output and "(vp " in step.output


def test_a_bot_with_inline_parameters_runs_is_recorded_and_replays(tmp_path):
    out = tmp_path / "run"
    result = invoke("run", "--out", out, "--no-report", "--games", 2, "--workers", 1,
                    "--players", 2, "--per-seat", "--strategies",
                    "mcts:budget=4:candidates=2,random")
    assert result.exit_code == 0, result.output
    players = pl.read_parquet(out / "players" / "*.parquet")
    assert sorted(set(players["strategy"])) == ["mcts:budget=4:candidates=2", "random"]
    result = invoke("replay", out, 1)
    assert result.exit_code == 0, result.output
    assert "Scores match the log." in result.output
    bad = invoke("run", "--out", tmp_path / "bad", "--no-report", "--games", 1,
                 "--strategies", "mcts:budget=lots")
    assert bad.exit_code == 2 and "must be an integer" in bad.output
    assert "Traceback" not in bad.output


def test_replay_without_action_log_replays_from_seed(tmp_path):
    out = tmp_path / "run"
    run_ok(out, "--games", 2, "--workers", 1, "--no-actions")
    result = invoke("replay", out, 1)
    assert result.exit_code == 0, result.output
    assert "re-playing the game from its seed" in result.output
    assert "Scores match the log." in result.output


def test_failed_games_are_logged_and_exit_1(tmp_path):
    bot = tmp_path / "boom.py"
    bot.write_text(BOOM)
    out = tmp_path / "run"
    result = invoke("run", "--out", out, "--no-report", "--games", 6, "--workers", 2,
                    "--players", 2, "--strategies", f"{bot}:Boom,random", "--per-seat")
    assert result.exit_code == 1, result.output
    assert "6 games failed" in result.output and f"terra-sim replay {out} 0" in result.output
    errors = pl.read_parquet(out / "errors" / "*.parquet")
    assert errors.height == 6 and errors["message"].str.contains("always fails").all()
    replay = invoke("replay", out, 0)
    assert "failed in the run" in replay.output and "ValueError" in replay.output
    assert replay.exit_code == 1


def test_resume_finishes_only_missing_games(tmp_path):
    out = tmp_path / "run"
    run_ok(out, "--games", 6, "--workers", 1, "--chunk-size", 2)
    before = pl.read_parquet(out / "actions" / "*.parquet").sort("game_id", "index")
    (out / "games" / "part-00000002-00000003.parquet").unlink()
    result = invoke("run", "--resume", out, "--no-report", "--workers", 2)
    assert result.exit_code == 0, result.output
    after = pl.read_parquet(out / "actions" / "*.parquet").sort("game_id", "index")
    assert after.equals(before)
    assert sorted(pl.read_parquet(out / "games" / "*.parquet")["game_id"]) == list(range(6))


def test_same_out_same_config_continues_and_different_config_is_refused(tmp_path):
    out = tmp_path / "run"
    run_ok(out, "--games", 2, "--workers", 1)
    again = run_ok(out, "--games", 2, "--workers", 1)
    assert "2 of 2 games finished" in again.output
    result = invoke("run", "--out", out, "--no-report", "--strategies", "random",
                    "--games", 2, "--seed", 9)
    assert result.exit_code == 2
    assert "already holds a different run" in result.output and "seed" in result.output


def test_configs_run(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text('games = 3\nworkers = 1\nplayers = 2\n[options]\nvariant = "planner"\n'
                      '[strategies]\npool = ["random", "calm"]\n'
                      '[strategies.calm]\nbase = "random"\n')
    out = tmp_path / "run"
    result = invoke("run", config, "--out", out, "--no-report", "--games", 4)
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["planned_games"] == 4 and manifest["options"] == {"variant": "planner"}
    assert pl.read_parquet(out / "games" / "*.parquet")["variant"].unique().to_list() == [
        manifest["variant"]]


@pytest.mark.parametrize("name", sorted(p.name for p in CONFIGS.glob("*.toml")))
def test_shipped_configs_are_valid(name):
    from terra_sim.run.config import load, read_toml, validate
    from terra_sim.run.ladder import plan

    if "ladder" in read_toml(CONFIGS / name):  # a ladder's config: every rung's run, checked
        configs = plan(CONFIGS / name)[2]
    else:
        configs = [validate(load(CONFIGS / name))]  # every game, faction, strategy, override
    assert all(cfg.games > 0 for cfg in configs) and (CONFIGS / name).read_text().startswith("#")


@pytest.mark.parametrize("args,expected", [
    (["--game", "chess"], "terra-nova"),
    (["--factions", "golems,elves"], "unknown faction 'elves'"),
    (["--strategies", "genius"], "unknown strategy 'genius'"),
    (["--players", "5"], "not 5"),
    (["--players", "four"], "players must be"),
    (["--design", "clever"], "balanced"),
    (["--games", "0"], "at least 1"),
    (["--per-seat", "--strategies", "random,random"], "one strategy per seat"),
    (["--factions", "golems,fire-sprites,druids,fairies"], "same colour"),
    (["--resume", "{tmp}"], "no run here"),
    (["{tmp}/lucky.toml", "--players", "2,4"], "lucky-digger"),
    (["{tmp}/missing.toml"], "config file not found"),
])
def test_user_mistakes_exit_2_with_one_clear_line(tmp_path, args, expected):
    (tmp_path / "lucky.toml").write_text('[options]\nvariant = "lucky-digger"\n')
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = invoke("run", "--out", tmp_path / "r", "--no-report", *args)
    assert result.exit_code == 2, result.output
    assert expected in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("text,expected", [
    ("games = [", "not valid TOML"),
    ("gmaes = 3", "unknown key 'gmaes'"),
    ("games = 'ten'", "games must be an integer"),
    ("[strategies]\nlist = 3", "pool = [...]"),
    ("[strategies.x]\nbias = 2", "needs base"),
    ("[strategies]\npool = ['x']\n[strategies.x]\nbase = 'random'\nbias = 2", "unknown param"),
    ("[options]\nvariant = 'huge'", "variant = 'huge'"),
    ("[options]\ncolour = 'red'", "unknown option 'colour'"),
    ("[overrides.factions.factions.golems]\nstart_cash = 9", "no such field"),
])
def test_malformed_configs_exit_2(tmp_path, text, expected):
    config = tmp_path / "bad.toml"
    config.write_text(text)
    result = invoke("run", config, "--out", tmp_path / "r", "--no-report")
    assert result.exit_code == 2, result.output
    assert expected in result.output and "Traceback" not in result.output


def test_resume_cannot_change_the_run_but_may_grow_it(tmp_path):
    out = tmp_path / "run"
    run_ok(out, "--games", 2, "--workers", 1)
    result = invoke("run", "--resume", out, "--seed", 5)
    assert result.exit_code == 2 and "cannot change seed" in result.output
    result = invoke("run", "--resume", out, "--games", 5, "--no-report", "--workers", 1)
    assert result.exit_code == 0, result.output
    assert "5 of 5 games finished" in result.output


def test_non_run_folder_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    result = invoke("run", "--out", tmp_path, "--no-report", "--games", 2)
    assert result.exit_code == 2 and "holds no run" in result.output


def test_replay_mistakes_exit_2(tmp_path):
    out = tmp_path / "run"
    run_ok(out, "--games", 2, "--workers", 1)
    result = invoke("replay", out, 99)
    assert result.exit_code == 2 and "game 99 is not in" in result.output
    assert invoke("replay", tmp_path, 0).exit_code == 2


def test_bench_reports_throughput(tmp_path):
    result = invoke("bench", "--games", 4, "--strategies", "random", "--workers", 2)
    assert result.exit_code == 0, result.output
    assert "games/s" in result.output and "decisions/s" in result.output
    assert "speed-up with 2 workers" in result.output and "peak memory" in result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("build: ") and "games/s" in lines[1]  # the header comes first
    assert [line.split()[0] for line in lines[2:4]] == ["1", "2"]


def test_bench_measures_the_machines_own_speed_up_beside_the_runs():
    result = invoke("bench", "--games", 6, "--strategies", "random", "--workers", 2,
                    "--ceiling", "--rounds", 2)
    assert result.exit_code == 0, result.output
    rounds = [x for x in result.output.splitlines() if x.startswith("  round ")]
    assert len(rounds) == 2 and all("bare processes" in x and "with 2)" in x for x in rounds)
    assert "median of 2 rounds: the runner " in result.output
    refused = invoke("bench", "--ceiling", "--against", "HEAD")
    assert refused.exit_code == 2 and "--ceiling goes with the plain bench" in refused.output


def test_the_ceiling_plays_every_game_once_per_measurement(monkeypatch, tmp_path):
    from terra_sim.run import bench as b

    log = tmp_path / "played"

    def record(content, ids):  # runs in the forked children
        with open(log, "a") as f:
            f.write(f"{os.getpid()} {' '.join(map(str, ids))}\n")

    monkeypatch.setattr(b, "play_chunk", record)
    walls = b.ceiling(games=7, strategies="random", workers=2)
    assert set(walls) == {1, 2}
    rows = [line.split() for line in log.read_text().splitlines()]
    assert len(rows[0]) - 1 == 7  # one process plays them all, then two share them
    assert sorted(len(r) - 1 for r in rows[1:]) == [3, 4]
    assert sorted(int(i) for r in rows[1:] for i in r[1:]) == list(range(7))
    assert len({r[0] for r in rows}) == 3 and str(os.getpid()) not in {r[0] for r in rows}


def test_bench_tells_each_line_as_it_is_measured():
    from terra_sim.run import bench as b

    heard = []
    lines, _ = b.bench(games=2, strategies="random", workers=2, on_line=heard.append)
    assert heard == lines and [x.workers for x in lines] == [1, 2]
    # In another tree, the child prints each line as one JSON object as soon as it has it,
    # before the final summary.
    env = {**os.environ, "PYTHONPATH": str(b.source_tree())}
    out = subprocess.run([sys.executable, "-c", b.DRIVER,
                          json.dumps(["terra-nova", "4", 2, "random", 2])], env=env,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    messages = [json.loads(line) for line in out if line.startswith("{")]
    assert [list(m) for m in messages] == [["line"], ["line"], ["lines", "build"]]
    assert [m["line"] for m in messages[:2]] == messages[2]["lines"]


def test_bench_of_an_older_tree_tells_its_lines_at_the_end(tmp_path):
    """A revision whose bench cannot tell lines early gives them all at the end; they are
    still told, in order."""
    from terra_sim.run import bench as b

    pkg = tmp_path / "terra_sim"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    line = {"workers": 1, "games": 2, "wall_s": 1.0, "games_per_s": 2.0,
            "decisions_per_s": 50.0, "parquet_share": 0.1, "overhead_share": 0.1,
            "cpu_share": 1.0}
    fields = "\n".join(f"    {k}: float" for k in line)
    (pkg / "bench.py").write_text(  # the old signature: no on_line
        "from dataclasses import dataclass\n\n@dataclass\nclass BenchLine:\n"
        f"{fields}\n\n"
        "def bench(game, players, games, strategies, workers):\n"
        f"    return [BenchLine(**{line!r}), BenchLine(**{dict(line, workers=2)!r})], {{}}\n")
    heard = []
    lines, build = b._run_in(tmp_path, ["terra-nova", "4", 2, None, 2], heard.append)
    assert [x.workers for x in heard] == [x.workers for x in lines] == [1, 2]
    assert build == "plain Python"


def test_bench_against_a_revision_measures_both_in_turns(monkeypatch):
    monkeypatch.setenv("TERRA_SIM_PURE", "1")  # no compiling of the exported revision here
    result = invoke("bench", "--games", 3, "--strategies", "random", "--workers", 1,
                    "--against", "HEAD", "--rounds", 2)
    assert result.exit_code == 0, result.output
    rounds = [line for line in result.output.splitlines() if line.startswith("  round")]
    assert [r.split(",")[1].split(":")[0].strip() for r in rounds] == [
        "this tree", "HEAD", "HEAD", "this tree"]  # who goes first alternates
    assert "HEAD: plain Python" in result.output and "this tree: plain Python" in result.output
    ratio = [line for line in result.output.splitlines() if "worker(s), games/s" in line]
    assert len(ratio) == 1 and ratio[0].endswith("x")


def test_bench_against_compares_the_sides_round_by_round():
    """The ratio is the median of each round's ratio: a load that eases between rounds falls on
    both sides of a round and leaves it, where a ratio of the medians takes it for a speed-up."""
    from pathlib import Path

    from terra_sim.run.bench import BenchLine, Side

    def line(gps):
        return BenchLine(workers=1, games=2, wall_s=1.0, games_per_s=gps, decisions_per_s=gps,
                         parquet_share=0.0, overhead_share=0.0, cpu_share=1.0)

    new = Side("this tree", Path("."), [[line(16.2)], [line(24.6)], [line(24.9)]])
    old = Side("REV", Path("."), [[line(16.1)], [line(16.5)], [line(24.4)]])
    assert new.median(0, "games_per_s") / old.median(0, "games_per_s") > 1.4
    assert new.ratio(old, 0, "games_per_s") == pytest.approx(24.9 / 24.4)


def test_bench_against_an_unknown_revision_is_a_user_error():
    result = CliRunner().invoke(cli, ["bench", "--against", "no-such-rev", "--games", "2"])
    assert result.exit_code == 2 and "not a revision" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["run", "replay", "bench"])
def test_every_command_has_help(command):
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert cli.commands[command].help and "Usage:" in result.output
    assert all(p.help for p in cli.commands[command].params if isinstance(p, click.Option))
