"""Runs on Dask: the same tables as a local run, resumes across executors, lost workers, Ctrl-C,
kill -9, the user's logging, and one clear line for each setup mistake. Runs on real
LocalClusters of 2 worker processes."""

import contextlib
import io
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from bot_sources import BOOM, slow
from click.testing import CliRunner
from hang_limit import hang_limit
from run_checks import assert_same

distributed = pytest.importorskip(
    "distributed", reason="dask[distributed] is not installed (pip install -e '.[dask]')")

import dask  # noqa: E402

from terra_sim.cli import cli  # noqa: E402
from terra_sim.core.errors import UserError  # noqa: E402
from terra_sim.core.rng import derive_seed  # noqa: E402
from terra_sim.run import dask_executor  # noqa: E402
from terra_sim.run.dask_executor import ChunkWriter, DaskExecutor  # noqa: E402
from terra_sim.run.runner import RunInterrupted, run_tournament  # noqa: E402
from terra_sim.store import rundir, schema  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
KW = {"games": 24, "players": "2,3", "strategies": "random", "seed": 5, "report": False}
# A bot that kills its own worker process: once for game `seed` (the first worker to get there
# makes the marker file), or every time when `marker` is None.
KILLER = '''
import os
import signal
from strategies.base import Strategy


MARKER = {marker!r}


class Killer(Strategy):
    name = "killer"

    def choose(self, state, legal):
        if state.seed == {seed}:
            if MARKER is None:
                os._exit(3)
            try:
                os.close(os.open(MARKER, os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                pass
            else:
                os.kill(os.getpid(), signal.SIGKILL)
        return self.rng.choice(legal)
'''

# A bot that says which worker process plays it, then holds the GIL in C code for good: nothing
# in Python runs in that process again, distributed's own check on its parent included.
HOG = '''
import os
from pathlib import Path
from strategies.base import Strategy


class Hog(Strategy):
    name = "hog"

    def choose(self, state, legal):
        (Path({folder!r}) / str(os.getpid())).touch()
        sum(range(10**15))
        return self.rng.choice(legal)
'''


bounded = hang_limit(240)


@pytest.fixture(scope="module")
def scheduler():
    """An existing cluster, as `--scheduler` finds one: 2 worker processes of one thread, with
    the retry setting a run's own LocalCluster has."""
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=":0")
    yield cluster.scheduler_address
    cluster.close()


def bot(tmp_path, seed, marker):
    path = tmp_path / "killer.py"
    path.write_text(KILLER.format(seed=seed, marker=marker and str(marker)))
    return f"{path}:Killer"


# ---------------------------------------------------------------- the same games


def test_a_dask_run_writes_the_tables_of_a_local_run(tmp_path):
    out = tmp_path / "dask"
    result = CliRunner().invoke(cli, [
        "run", "--executor", "dask", "--workers", "2", "--games", "24", "--players", "2,3",
        "--strategies", "random", "--seed", "5", "--no-report", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "24 of 24 games finished" in result.output
    local = run_tournament(out=tmp_path / "local", workers=1, chunk_size=5, **KW)
    on_dask = run_tournament(resume=out)  # nothing left to play: reads the tables
    assert on_dask.stats.games == 0
    assert_same(local, on_dask)
    manifest = json.loads((out / "manifest.json").read_text())
    assert [e["executor"] for e in manifest["executors"]] == ["dask"]
    assert manifest["executors"][0]["scheduler"] == "LocalCluster"
    assert "executor" not in manifest["config"]  # how the games ran is not what they are
    assert manifest["finished_games"] == 24 and manifest["finished_at"] is not None


@pytest.mark.parametrize("first, then", [("local", "dask"), ("dask", "local")])
def test_a_run_resumes_on_the_other_executor(tmp_path, ctrl_c_at_chunk, scheduler, first,
                                             then):
    on = {"local": None, "dask": DaskExecutor(scheduler)}
    kw = KW | {"chunk_size": 3, "workers": 2}
    whole = run_tournament(out=tmp_path / "whole", **kw)

    # Ctrl-C reaches the driver as it writes the third chunk. Dask's driver loses that chunk;
    # the local pool keeps it and any other chunk already received (one or two: timing).
    ctrl_c_at_chunk(3)
    with pytest.raises(RunInterrupted) as e:
        run_tournament(out=tmp_path / "cut", executor=on[first], **kw)
    kept = e.value.finished
    assert kept == 6 if first == "dask" else kept in (9, 12)
    ctrl_c_at_chunk(None)
    manifest = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    assert manifest["finished_games"] == kept and manifest["finished_at"] is None
    resumed = run_tournament(resume=tmp_path / "cut", executor=on[then], chunk_size=5)
    assert resumed.stats.games == 24 - kept
    assert_same(whole, resumed)
    assert [e["executor"] for e in resumed.manifest["executors"]] == [first, then]


def test_workers_write_part_files_to_a_shared_folder(tmp_path, scheduler):
    shared = tmp_path / "shared"
    shared.mkdir()
    kw = KW | {"chunk_size": 4}
    result = run_tournament(out=tmp_path / "dask", executor=DaskExecutor(scheduler, shared), **kw)
    assert_same(run_tournament(out=tmp_path / "local", workers=1, **kw), result)
    assert list(shared.iterdir()) == []  # every staged part moved into the run
    assert len(list((tmp_path / "dask" / "games").glob("*.parquet"))) == 6


def test_dask_scheduler_address_points_a_run_at_a_cluster(tmp_path, monkeypatch, scheduler):
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", scheduler)
    dask.config.refresh()  # Dask reads its environment variables on import
    try:
        result = CliRunner().invoke(cli, ["run", "--executor", "dask", "--games", "4",
                                          "--strategies", "random", "--no-report", "--out",
                                          str(tmp_path / "r")])
    finally:
        monkeypatch.delenv("DASK_SCHEDULER_ADDRESS")
        dask.config.refresh()
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["executors"][0]["scheduler"] == scheduler


def test_a_chunk_is_written_once(tmp_path):
    run_dir = tmp_path / "r"
    rundir.init_dirs(run_dir)
    tables = schema.schemas(["a"])
    cols = {t: {k: [] for k in s} for t, s in tables.items()}
    cols["errors"] = {"game_id": [4], "seed": [1], "strategies": ["x"], "factions": ["y"],
                      "message": ["m"], "traceback": ["t"]}
    parts = schema.encode_chunk(cols, tables)
    writer = ChunkWriter(run_dir)
    assert writer.write([4], parts)
    # Distributed delivering the chunk again (a retry after a lost worker, or a duplicate):
    staged = tmp_path / "staged"
    rundir.init_dirs(staged)
    rundir.write_chunk(staged, rundir.part_name(4, 4), parts)
    assert not writer.write([4], staged=str(staged))
    assert not staged.exists()
    assert pl.read_parquet(run_dir / "errors" / "*.parquet")["game_id"].to_list() == [4]


# ---------------------------------------------------------------- lost workers


def test_a_worker_killed_mid_chunk_costs_a_replay_of_its_chunk(tmp_path):
    spec = bot(tmp_path, derive_seed(5, "game", 5), tmp_path / "killed-once")
    kw = {"games": 12, "players": 2, "strategies": f"{spec},random", "seed": 5,
          "chunk_size": 4, "workers": 2}
    killed = run_tournament(out=tmp_path / "dask", executor=DaskExecutor(), **kw)
    assert (tmp_path / "killed-once").exists()  # the kill happened, in the middle of games 4-7
    assert any("was lost while playing games 4-7" in n for n in killed.stats.notes), \
        killed.stats.notes
    assert killed.errors.height == 0 and killed.games["game_id"].to_list() == list(range(12))
    assert_same(run_tournament(out=tmp_path / "local", **kw), killed)  # the same games, once


def test_a_game_that_kills_its_worker_is_found_and_logged(tmp_path):
    spec = bot(tmp_path, derive_seed(1, "game", 4), None)
    result = run_tournament(out=tmp_path / "r", games=6, players=2, workers=2, chunk_size=3,
                            strategies=f"{spec},random", per_seat=True, executor=DaskExecutor())
    assert result.errors["game_id"].to_list() == [4]
    assert "the game killed its worker process: 2 Dask workers died" in result.errors[
        "message"][0]
    assert result.games["game_id"].to_list() == [0, 1, 2, 3, 5]
    assert result.manifest["failed_games"] == 1 and result.manifest["finished_at"] is not None
    assert any("playing them one by one" in n for n in result.stats.notes)


# ---------------------------------------------------------------- as in local runs


def test_failed_games_are_logged_as_in_a_local_run(tmp_path, scheduler):
    path = tmp_path / "boom.py"
    path.write_text(BOOM)
    kw = {"games": 16, "players": 2, "design": "random", "strategies": f"random,{path}:Boom"}
    result = run_tournament(out=tmp_path / "dask", executor=DaskExecutor(scheduler), **kw)
    assert 0 < result.failed == result.errors.height < 16
    assert result.errors["message"].str.contains("boom goes the bot").all()
    assert_same(run_tournament(out=tmp_path / "local", workers=1, **kw), result)


def test_a_decision_past_the_timeout_forfeits_on_a_dask_worker(tmp_path, scheduler):
    path = tmp_path / "slow.py"
    path.write_text(slow(0.03))
    result = run_tournament(out=tmp_path / "r", games=2, players=2, decision_timeout=0.01,
                            strategies=f"{path}:Slow,random", per_seat=True,
                            executor=DaskExecutor(scheduler))
    assert result.errors.height == 2
    assert result.errors["message"].str.contains(r"for one decision \(limit 0.01s\)").all()
    assert any("not interrupted while it thinks" in n for n in result.stats.notes)


def test_a_worker_with_other_code_is_refused(tmp_path, monkeypatch, scheduler):
    real = dask_executor.code_fingerprint

    def elsewhere(content_json):
        return real(content_json) | {"engine_version": "tn-0.0"}

    monkeypatch.setattr(dask_executor, "code_fingerprint", elsewhere)  # this side only
    with pytest.raises(UserError, match=r"has other game code or data than this machine "
                                        r"\(engine_version tn-\S+ there, tn-0.0 here\)"):
        run_tournament(out=tmp_path / "r", executor=DaskExecutor(scheduler), **KW)
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["finished_games"] == 0 and manifest["finished_at"] is None


def test_ctrl_c_stops_a_dask_run_and_its_cluster(tmp_path):
    out = tmp_path / "r"
    # A terminal's Ctrl-C signals the whole process group: the driver and the cluster. The run
    # is far longer than the interrupt takes to arrive, however fast the machine is.
    # A terminal starts the command with Ctrl-C at its default. A test runner started as a
    # shell's background job (`pytest &` in a script, as a CI may) ignores SIGINT, and a child
    # inherits that: so the driver here restores the default before it runs, as from a terminal.
    terminal = ("import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler);"
                " runpy.run_module('terra_sim', run_name='__main__', alter_sys=True)")
    run = subprocess.Popen(
        [sys.executable, "-c", terminal, "run", "--executor", "dask", "--workers", "2",
         "--games", "20000", "--players", "2", "--strategies", "random", "--no-report",
         "--out", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    end = time.monotonic() + 60
    while not list((out / "games").glob("*.parquet")) and time.monotonic() < end:
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "Interrupted:" in err and f"terra-sim run --resume {out}" in err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    manifest = json.loads((out / "manifest.json").read_text())
    kept = pl.read_parquet(out / "games" / "*.parquet").height
    assert 0 < kept == manifest["finished_games"] < 20000
    end = time.monotonic() + 30
    while session(run.pid) and time.monotonic() < end:  # the cluster's processes end too
        time.sleep(0.2)
    assert session(run.pid) == []


def session(sid):
    """Live processes of session `sid` (a run started with start_new_session)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            out.append(int(stat.parent.name))
    return out


def test_a_killed_driver_takes_its_cluster_with_it(tmp_path):
    # kill -9 runs no cleanup: the LocalCluster's worker processes must end by themselves, and
    # at once, even while a game holds the GIL (distributed's own watch is a Python thread).
    (tmp_path / "hog.py").write_text(HOG.format(folder=str(tmp_path)))
    with open(tmp_path / "stderr", "w") as err:
        run = subprocess.Popen(
            [sys.executable, "-m", "terra_sim", "run", "--executor", "dask", "--workers", "2",
             "--games", "4", "--players", "2", "--strategies", f"{tmp_path / 'hog.py'}:Hog",
             "--no-report", "--out", str(tmp_path / "r")],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    try:
        end = time.monotonic() + 60
        while len(hogs := [int(p.name) for p in tmp_path.glob("[0-9]*")]) < 2:
            assert run.poll() is None and time.monotonic() < end, \
                (tmp_path / "stderr").read_text()
            time.sleep(0.05)
        assert set(hogs) <= set(session(run.pid))  # the cluster's workers, both in a game
        run.kill()
        run.wait(timeout=10)
        end = time.monotonic() + 10
        while session(run.pid) and time.monotonic() < end:
            time.sleep(0.1)
        assert session(run.pid) == []
    finally:  # a failure must not leave processes that spin for good
        run.kill()
        run.wait()
        for pid in session(run.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def user_log():
    """A library user's own logging of distributed: levels of their choosing and a handler of
    their own (a stream); put back after the test."""
    levels = {"distributed": logging.INFO, "distributed.scheduler": logging.WARNING}
    old = {name: logging.getLogger(name).level for name in levels}
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
    handler = logging.StreamHandler(io.StringIO())
    handler.setLevel(logging.INFO)
    logging.getLogger("distributed").addHandler(handler)
    yield levels, handler
    logging.getLogger("distributed").removeHandler(handler)
    for name, level in old.items():
        logging.getLogger(name).setLevel(level)


def test_a_local_cluster_leaves_the_user_s_logging_as_it_found_it(tmp_path, monkeypatch,
                                                                   user_log):
    # A LocalCluster silences distributed's log handlers while it runs. Distributed puts them
    # back when its close succeeds, not when the close fails midway: here a silence that is
    # never lifted, so the run has to put them back itself.
    def never_restored(level, root="distributed"):
        for h in logging.getLogger(root).handlers:
            h.setLevel(level)
        return contextlib.nullcontext()

    monkeypatch.setattr(distributed.deploy.spec, "silence_logging_cmgr", never_restored)
    levels, handler = user_log
    result = run_tournament(out=tmp_path / "r", executor=DaskExecutor(), workers=2,
                            **KW | {"games": 4})
    assert result.stats.games == 4
    assert {name: logging.getLogger(name).level for name in levels} == levels
    assert handler.level == logging.INFO
    logging.getLogger("distributed").info("heard after the run")
    assert "heard after the run" in handler.stream.getvalue()


# ---------------------------------------------------------------- setup mistakes


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("args, expected", [
    (["--scheduler", "tcp://127.0.0.1:{port}"], "cannot reach the Dask scheduler at tcp://"),
    (["--scheduler", "nowhere"], "cannot reach the Dask scheduler at nowhere"),
    (["--executor", "local", "--scheduler", "tcp://127.0.0.1:1"],
     "--scheduler only apply to --executor dask"),
    (["--executor", "dask", "--shared-dir", "{tmp}/missing"], "no such folder"),
])
def test_setup_mistakes_are_one_line(tmp_path, args, expected):
    args = [a.format(port=free_port(), tmp=tmp_path) for a in args]
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = CliRunner().invoke(cli, ["run", "--games", "2", "--no-report", "--out",
                                          str(tmp_path / "r"), *args])
    assert result.exit_code == 2, result.output
    assert expected in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()  # refused before the run folder is made


def test_dask_not_installed_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    result = CliRunner().invoke(cli, ["run", "--executor", "dask", "--games", "2",
                                      "--no-report", "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "pip install -e '.[dask]'" in result.output
    assert len(result.output.strip().splitlines()) == 1
