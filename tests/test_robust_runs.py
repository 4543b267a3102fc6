"""Nothing breaks a run: lost workers, SIGTERM, a second writer, damaged parts, changed code and
broken manifests. Every test that could hang on a regression is bounded by a timeout."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from bot_sources import slow
from click.testing import CliRunner
from hang_limit import hang_limit
from run_checks import assert_same

from terra_sim.cli import cli
from terra_sim.core.errors import UserError
from terra_sim.core.rng import derive_seed
from terra_sim.run.chunk import ChunkSizer
from terra_sim.run.runner import run_tournament
from terra_sim.store import rundir, runlock, schema

ROOT = Path(__file__).resolve().parent.parent
EXIT = '''
import os
from strategies.base import Strategy


class Exit(Strategy):
    name = "exit"

    def choose(self, state, legal):
        if state.seed % 3 == 0:
            os._exit(3)
        return self.rng.choice(legal)
'''


bounded = hang_limit(240)


def children(pid):
    """Process ids whose parent is `pid` (the run's workers)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def start_cli(out, *args):
    return subprocess.Popen(
        [sys.executable, "-m", "terra_sim", "run", "--out", str(out), "--no-report", *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_parts(out, n=1, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if len(list((out / "games").glob("*.parquet"))) >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"no part file in {out} after {timeout}s")


# ---------------------------------------------------------------- lost workers


def test_a_killed_worker_is_replaced_and_its_games_played_again(tmp_path):
    bot = tmp_path / "slow.py"
    bot.write_text(slow(0.002))
    args = ["--games", "40", "--players", "2", "--workers", "2", "--strategies",
            f"{bot}:Slow,random", "--seed", "11"]
    run = start_cli(tmp_path / "killed", *args)
    wait_for_parts(tmp_path / "killed")
    os.kill(children(run.pid)[0], signal.SIGKILL)
    out, err = run.communicate(timeout=180)
    assert run.returncode == 0, err
    assert "40 of 40 games finished" in out
    lines = [line for line in err.replace("\r", "\n").splitlines() if "SIGKILL" in line]
    assert len(lines) == 1 and "a new worker plays them again" in lines[0]
    whole = run_tournament(out=tmp_path / "whole", games=40, players=2, workers=2, seed=11,
                           strategies=f"{bot}:Slow,random")
    killed = rundir.scan(tmp_path / "killed", "actions", schema.ACTIONS_SCHEMA).collect()
    assert killed.sort("game_id", "index").equals(whole.actions)  # the same games, once each


def test_a_game_that_kills_its_worker_is_found_and_logged(tmp_path):
    bot = tmp_path / "exit.py"
    bot.write_text(EXIT)
    result = run_tournament(out=tmp_path / "r", games=12, players=2, workers=2, chunk_size=4,
                            strategies=f"{bot}:Exit,random", per_seat=True)
    killers = {i for i in range(12) if derive_seed(1, "game", i) % 3 == 0}
    assert 0 < len(killers) < 12
    assert set(result.errors["game_id"]) == killers
    assert result.errors["message"].str.contains("killed its worker process").all()
    assert result.errors["message"].str.contains("exited with status 3").all()
    assert set(result.games["game_id"]) == set(range(12)) - killers
    assert result.manifest["finished_at"] is not None
    assert any("one by one in fresh workers" in n for n in result.stats.notes)


def test_sigterm_stops_a_run_like_ctrl_c(tmp_path):
    bot = tmp_path / "slow.py"
    bot.write_text(slow(0.002))
    out = tmp_path / "r"
    run = start_cli(out, "--games", "200", "--players", "2", "--workers", "2",
                    "--strategies", f"{bot}:Slow,random")
    wait_for_parts(out, 2)
    workers = children(run.pid)
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "Interrupted:" in err and f"terra-sim run --resume {out}" in err
    assert "Traceback" not in err and "BrokenPipe" not in err
    time.sleep(0.2)
    assert not [p for p in workers if Path(f"/proc/{p}").exists()
                and "Z" not in Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1][:3]]
    manifest = json.loads((out / "manifest.json").read_text())
    kept = pl.read_parquet(out / "games" / "*.parquet").height
    assert 0 < kept == manifest["finished_games"] < 200 and manifest["finished_at"] is None


# ---------------------------------------------------------------- chunks


def test_chunks_start_with_one_game_and_grow_toward_seconds_of_play():
    sizer = ChunkSizer(0, workers=2)
    assert [sizer.next(1000), sizer.next(1000)] == [1, 1]  # before any game time is known
    sizer.observe(2, 0.02)  # 10 ms a game
    sizes = [sizer.next(1000) for _ in range(8)]
    assert sizes == [2, 4, 8, 16, 32, 64, 100, 100]  # doubling up to the cap
    sizer.observe(10, 10.0)  # slow games: about two seconds' worth
    assert sizer.next(1000) <= 3
    assert sizer.next(3) == 1  # the tail: small chunks so no worker idles
    assert ChunkSizer(7, workers=2).next(1000) == 7


def test_the_last_chunks_shrink_to_a_floor_of_play_time():
    sizer = ChunkSizer(0, workers=2)
    sizer.next(1000)
    sizer.observe(1, 0.01)  # 10 ms a game: TAIL_S (50 ms) of play is 5 games
    tail = [sizer.next(left) for left in (600, 60, 12, 3)]
    assert tail == [2, 4, 5, 5]  # (still doubling), left / 6, then the floor


def test_automatic_chunks_write_the_first_game_at_once_and_change_no_game(tmp_path):
    kw = {"games": 30, "strategies": "random", "players": "2,3"}
    auto = run_tournament(out=tmp_path / "auto", workers=2, **kw)
    fixed = run_tournament(out=tmp_path / "fixed", workers=1, chunk_size=7, **kw)
    parts = sorted(p.name for p in (tmp_path / "auto" / "games").glob("*.parquet"))
    assert parts[0] == "part-00000000-00000000.parquet"
    assert_same(auto, fixed)


# ---------------------------------------------------------------- the lock


def test_a_folder_in_use_is_refused(tmp_path):
    out = tmp_path / "r"
    run_tournament(out=out, games=2, strategies="random", workers=1)
    with runlock.RunLock(out):
        with pytest.raises(UserError, match="in use by another terra-sim run"):
            run_tournament(out=out, games=2, strategies="random", workers=1)
        result = CliRunner().invoke(cli, ["run", "--resume", str(out), "--no-report"])
        assert result.exit_code == 2 and "in use by another terra-sim run" in result.output
        assert len(result.output.strip().splitlines()) == 1
    assert run_tournament(resume=out).manifest["finished_games"] == 2


def test_a_killed_run_leaves_no_stale_lock(tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; from terra_sim.store import runlock; "
         f"lock = runlock.RunLock({str(out)!r}).acquire(); "
         "print('locked', flush=True); time.sleep(60)"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    with pytest.raises(UserError, match=f"process {holder.pid}"):
        run_tournament(out=out, games=2, strategies="random", workers=1)
    holder.kill()
    holder.wait(10)
    assert run_tournament(out=out, games=2, strategies="random", workers=1).stats.games == 2


# ---------------------------------------------------------------- damaged parts


def test_a_damaged_part_is_named_set_aside_and_played_again(tmp_path):
    kw = {"games": 9, "strategies": "random", "chunk_size": 3, "workers": 1}
    whole = run_tournament(out=tmp_path / "a", **kw)
    cut = run_tournament(out=tmp_path / "b", **kw)
    part = tmp_path / "b" / "players" / "part-00000003-00000005.parquet"
    part.write_bytes(part.read_bytes()[:100])  # cut short, as by a full disk
    with pytest.warns(rundir.DamagedPartWarning, match="part-00000003-00000005"):
        left = rundir.scan(tmp_path / "b", "players", {}).collect()
    assert left.height == 6 * 4
    resumed = run_tournament(resume=cut.run_dir)
    assert resumed.stats.games == 3
    assert any("players/part-00000003-00000005.parquet" in n for n in resumed.stats.notes)
    for table in schema.TABLES:
        assert (tmp_path / "b" / "damaged" / table / "part-00000003-00000005.parquet").exists()
    assert_same(whole, resumed)
    assert resumed.manifest["finished_at"] is not None


def test_a_run_is_never_finished_with_a_damaged_part(tmp_path, monkeypatch):
    real = rundir.write_chunk

    def write_and_damage(run_dir, name, *a):
        real(run_dir, name, *a)
        if name == "part-00000002-00000003.parquet":
            (run_dir / "actions" / name).write_bytes(b"PAR1 cut")

    monkeypatch.setattr(rundir, "write_chunk", write_and_damage)
    out = tmp_path / "r"
    result = run_tournament(out=out, games=6, strategies="random", chunk_size=2, workers=1)
    assert result.manifest["finished_at"] is None and result.manifest["finished_games"] == 4
    assert (out / "damaged" / "actions" / "part-00000002-00000003.parquet").exists()
    monkeypatch.setattr(rundir, "write_chunk", real)
    assert run_tournament(resume=out).manifest["finished_at"] is not None


# ---------------------------------------------------------------- resuming changed code


@pytest.mark.parametrize("field, value, expected", [
    ("data_hash", "0123456789abcdef", "the game data changed (data_hash 0123456789abcdef"),
    ("engine_version", "tn-0.1", "the engine version changed (tn-0.1"),
])
def test_resuming_over_other_data_or_engine_is_refused_unless_forced(tmp_path, field, value,
                                                                     expected):
    out = tmp_path / "r"
    run_tournament(out=out, games=4, strategies="random", workers=1, chunk_size=2)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest[field] = value
    (out / "manifest.json").write_text(json.dumps(manifest))
    (out / "games" / "part-00000002-00000003.parquet").unlink()
    result = CliRunner().invoke(cli, ["run", "--resume", str(out), "--no-report"])
    assert result.exit_code == 2 and expected in result.output and "--force" in result.output
    assert json.loads((out / "manifest.json").read_text())[field] == value  # untouched
    forced = CliRunner().invoke(cli, ["run", "--resume", str(out), "--no-report", "--force"])
    assert forced.exit_code == 0, forced.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert expected in manifest["forced_resumes"][0]["changes"][0]
    assert manifest["finished_at"] is not None


def test_resuming_after_a_bot_changed_is_refused(tmp_path):
    bot = tmp_path / "slow.py"
    bot.write_text(slow(0.002))
    out = tmp_path / "r"
    spec = f"{bot}:Slow"
    run_tournament(out=out, games=2, strategies=f"{spec},random", workers=1, chunk_size=1)
    assert set(json.loads((out / "manifest.json").read_text())["strategy_code"]) == {
        spec, "random"}
    bot.write_text(slow(0.001))
    sys.modules.pop(next(m for m in sys.modules if m.startswith("_terra_sim_bot_slow")))
    with pytest.raises(UserError, match=f"the code or tuned data of strategy {spec} changed"):
        run_tournament(resume=out)
    assert run_tournament(resume=out, force=True).stats.games == 0


def test_resuming_after_a_bots_tuned_data_changed_is_refused(tmp_path):
    """Tuned weights (and a search's leaf model) change how a bot plays as surely as its code:
    the files in a tuned/ folder beside the bot's code count."""
    bot = tmp_path / "slow.py"
    bot.write_text(slow(0.001))
    (tmp_path / "tuned").mkdir()
    (tmp_path / "tuned" / "slow.toml").write_text("[weights]\nx = 1.0\n")
    out = tmp_path / "r"
    spec = f"{bot}:Slow"
    run_tournament(out=out, games=2, strategies=f"{spec},random", workers=1, chunk_size=1)
    (tmp_path / "tuned" / "slow.toml").write_text("[weights]\nx = 2.0\n")
    with pytest.raises(UserError, match=f"tuned data of strategy {spec} changed"):
        run_tournament(resume=out)


def test_a_search_bots_code_hash_covers_its_game_heuristic_and_the_tuned_files():
    import random

    from strategies import make_strategy
    from terra_sim.run.code import code_files

    names = {n for n, _ in code_files(make_strategy("mcts", random.Random(0), "terra-mystica"))}
    assert {"strategies.search", "strategies.terra_mystica.heuristic",
            "strategies.leaf", "terra_mystica/tuned/search-leaf-4p.toml",
            "terra_mystica/tuned/greedy-witches.toml"} <= names


# ---------------------------------------------------------------- broken folders


@pytest.mark.parametrize("text, expected", [("", "it is empty"), ('{"config": ', "not valid JSON"),
                                            ("[1, 2]", "not a terra-sim manifest")])
@pytest.mark.parametrize("option", ["--resume", "--out"])
def test_a_broken_manifest_is_one_line(tmp_path, text, expected, option):
    out = tmp_path / "r"
    out.mkdir()
    (out / "manifest.json").write_text(text)
    result = CliRunner().invoke(cli, ["run", option, str(out), "--no-report", "--games", "2",
                                      "--strategies", "random"][:3 if option == "--resume"
                                                                 else 8])
    assert result.exit_code == 2, result.output
    assert expected in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_out_naming_a_file_is_one_line(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("mine")
    result = CliRunner().invoke(cli, ["run", "--out", str(path), "--no-report", "--games", "2"])
    assert result.exit_code == 2 and "is a file, not a run folder" in result.output
    assert path.read_text() == "mine"
