"""Run until sure: batches of a fixed schedule, a stop at a batch boundary that is the same on
any number of workers and after a resume, the first N games of the plan, and the stop's
reason and widest interval in the manifest, the report and the command line."""

import json

import pytest
from click.testing import CliRunner
from run_checks import assert_same

from terra_sim.analysis import tables
from terra_sim.analysis.report import build_report
from terra_sim.cli import cli
from terra_sim.run.config import RunConfig, validate
from terra_sim.run.runner import RunInterrupted, run_tournament
from terra_sim.store import rundir

# Random 2-player Terra Nova: fast in plain Python, and each faction plays 1 game in 5, so a
# 35 pp interval takes some 100-200 games.
KW = {"players": 2, "strategies": "random", "report": False, "until_batch": 20}
WIDTH = 0.35


def widest(run_dir, col="win"):
    ft = tables.faction_table(tables.open_run(run_dir))
    w = (ft[f"{col}_hi"] - ft[f"{col}_lo"]).to_list()
    return max(w), ft["faction"][w.index(max(w))]


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """An until run that stops early, on one worker."""
    out = tmp_path_factory.mktemp("until") / "one"
    return run_tournament(out=out, workers=1, until_ci=WIDTH, max_games=400, **KW)


def test_stops_at_the_first_batch_boundary_where_every_interval_is_narrow(stopped):
    u = stopped.manifest["until"]
    n = u["games"]
    assert u["stopped"] == "sure" and n % 20 == 0 and 20 < n < 400
    assert [c["games"] for c in u["checks"]] == list(range(20, n + 1, 20))
    assert all(c["widest_win"] is None or c["widest_win"] > WIDTH for c in u["checks"][:-1])
    assert stopped.games["game_id"].to_list() == list(range(n))
    assert stopped.manifest["finished_games"] == n and stopped.manifest["planned_games"] == 400
    assert stopped.manifest["finished_at"] is not None
    # The widest interval recorded is the one the report's faction table shows.
    width, faction = widest(stopped.run_dir)
    assert u["widest_win"] == {"faction": faction, "width": pytest.approx(width, abs=1e-12)}
    assert width <= WIDTH
    assert u["checks"][-1]["widest_win"] == pytest.approx(width, abs=1e-12)


def test_the_result_is_the_first_n_games_of_a_plain_run(stopped, tmp_path):
    n = stopped.manifest["until"]["games"]
    plain = run_tournament(out=tmp_path / "plain", workers=2, games=n, players=2,
                           strategies="random", report=False)
    assert_same(stopped, plain)


def test_n_is_the_same_on_two_workers_and_any_chunk_size(stopped, tmp_path):
    two = run_tournament(out=tmp_path / "two", workers=2, chunk_size=3, until_ci=WIDTH,
                         max_games=400, **KW)
    assert two.manifest["until"]["games"] == stopped.manifest["until"]["games"]
    assert two.manifest["until"]["checks"] == stopped.manifest["until"]["checks"]
    assert_same(stopped, two)


def test_a_killed_until_run_resumes_to_the_same_n(stopped, tmp_path, ctrl_c_at_chunk):
    ctrl_c_at_chunk(16)  # in the third batch of 20 games (7 chunks of 3 a batch)
    with pytest.raises(RunInterrupted):
        run_tournament(out=tmp_path / "cut", workers=1, chunk_size=3, until_ci=WIDTH,
                       max_games=400, **KW)
    ctrl_c_at_chunk(None)
    cut = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    assert cut["until"]["stopped"] is None and cut["finished_at"] is None
    assert [c["games"] for c in cut["until"]["checks"]] == [20, 40]
    # and two chunks of the third batch: the one being written when Ctrl-C came is kept too
    assert len(rundir.done_ids(tmp_path / "cut")) == 40 + 6
    resumed = run_tournament(resume=tmp_path / "cut", workers=2)
    assert resumed.manifest["until"]["games"] == stopped.manifest["until"]["games"]
    assert_same(stopped, resumed)
    # A stopped run resumed plays nothing and stops where it stopped.
    again = run_tournament(resume=tmp_path / "cut")
    assert again.stats.games == 0
    assert again.manifest["until"] == resumed.manifest["until"]


def test_a_run_that_never_gets_sure_stops_at_max_games(tmp_path):
    r = run_tournament(out=tmp_path / "r", workers=2, until_ci=0.05, max_games=50, **KW)
    u = r.manifest["until"]
    assert u["stopped"] == "max_games" and u["games"] == 50 and r.games.height == 50
    assert [c["games"] for c in u["checks"]] == [20, 40, 50]  # the last batch is short
    assert u["reason"].startswith("Stopped at max_games, 50 games, before every faction's 95% "
                                  "win-share interval at most 5.00 pp wide")


def test_the_margin_interval_alone_can_stop_a_run(tmp_path):
    r = run_tournament(out=tmp_path / "r", workers=2, until_margin_ci=6.0, max_games=400, **KW)
    u = r.manifest["until"]
    width, faction = widest(r.run_dir, "margin")
    assert u["stopped"] == "sure" and width <= 6.0
    assert u["widest_margin"] == {"faction": faction, "width": pytest.approx(width, abs=1e-12)}
    assert all(c["widest_margin"] is None or c["widest_margin"] > 6.0
               for c in u["checks"][:-1])


def test_the_report_and_the_command_line_say_why_the_run_stopped(stopped, tmp_path):
    u = stopped.manifest["until"]
    report = build_report(stopped.run_dir, tmp_path / "rep", formats="md")
    text = (tmp_path / "rep" / "report.md").read_text()
    assert text.index("## Why the run stopped") < text.index("## Factions")
    assert u["reason"] in text and u["reason"] in report.summary
    w = u["widest_win"]
    assert f"{100 * w['width']:.2f} pp ({w['faction']})" in u["reason"]
    result = CliRunner().invoke(cli, ["run", "--out", str(tmp_path / "cli"), "--no-report",
                                      "--players", "2", "--strategies", "random",
                                      "--until-ci", "0.05", "--max-games", "30",
                                      "--until-batch", "15", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "Stopped at max_games, 30 games" in result.output


def test_the_automatic_batch_is_about_500_games_in_whole_design_periods():
    def batch(**kw):
        return validate(RunConfig(until_ci=0.02, max_games=10_000, **kw)).until_batch

    assert batch() == 510  # 10 factions x 6 scripted bots: periods of 30 games
    assert batch(strategies=["random"]) == 500
    assert batch(players=[2, 3, 4], strategies=["random"]) == 510  # 3 counts x 10 factions
    assert batch(design="random") == 500
    cfg = validate(RunConfig(until_ci=0.02, max_games=10_000))
    assert cfg.games == 10_000  # an until run plans max_games


def refused(*args):
    result = CliRunner().invoke(cli, ["run", "--no-report", "--strategies", "random",
                                      *map(str, args)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    return result.output.strip().removeprefix("Error: ")


@pytest.mark.parametrize("args, message", [
    (["--until-ci", "-0.1", "--max-games", "10"], "until_ci (--until-ci) is the widest 95% "
     "win-share interval to stop at, a share between 0 and 1 (0.02 is 2 percentage points), "
     "got -0.1"),
    (["--until-ci", "2", "--max-games", "10"], "a share between 0 and 1"),
    (["--until-margin-ci", "0", "--max-games", "10"], "in VP, more than 0; got 0.0"),
    (["--until-ci", "0.02"], "a run until sure needs max_games (--max-games): the most games to "
     "play if the intervals never get that narrow"),
    (["--max-games", "100"], "max_games (--max-games) belongs to a run until sure: give "
     "--until-ci or --until-margin-ci too, or --games for a run of a fixed size"),
    (["--until-batch", "10"], "until_batch (--until-batch) belongs to a run until sure"),
    (["--until-ci", "0.1", "--max-games", "0"], "max_games must be at least 1, got 0"),
    (["--until-ci", "0.1", "--max-games", "10", "--until-batch", "0"],
     "until_batch must be at least 1 game, got 0"),
    (["--games", "10", "--until-ci", "0.1", "--max-games", "20"], "games and max_games both "
     "given: a run until sure plays up to max_games (--max-games) games; drop games (--games)"),
])
def test_bad_until_options_are_one_line(tmp_path, args, message):
    assert message in refused("--out", tmp_path / "r", *args)


def test_a_config_file_takes_the_until_keys_and_checks_them(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text('players = 2\nuntil_ci = "narrow"\nmax_games = 10\n')
    assert refused(config, "--out", tmp_path / "r") == ("config: until_ci must be a number, "
                                                        "got 'narrow'")
    config.write_text("players = 2\nuntil_ci = 0.5\nmax_games = 30\nuntil_batch = 10\n")
    result = CliRunner().invoke(cli, ["run", str(config), "--out", str(tmp_path / "r"),
                                      "--no-report", "--strategies", "random"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["until"]["win_ci"] == 0.5 and manifest["until"]["batch"] == 10
    # Another target is another run: the folder is not continued with it.
    message = refused(config, "--out", tmp_path / "r", "--until-ci", "0.4")
    assert "already holds a different run (differs in until_ci)" in message


def test_on_dask_an_until_run_stops_at_the_same_n(stopped, tmp_path):
    distributed = pytest.importorskip("distributed")
    from terra_sim.run.dask_executor import DaskExecutor

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    try:
        on_dask = run_tournament(out=tmp_path / "dask", until_ci=WIDTH, max_games=400,
                                 executor=DaskExecutor(cluster.scheduler_address), **KW)
    finally:
        cluster.close()
    assert on_dask.manifest["until"]["checks"] == stopped.manifest["until"]["checks"]
    assert_same(stopped, on_dask)
