"""`terra-sim tune`: CMA-ES over a weighted bot's weights, judged by self-play. On the plug-in
test game a deliberately bad weight vector (every VP counted as a loss) must improve, a killed
tuning must resume to the very result of an uninterrupted one, and a seed fixes the result."""

import tomllib

import plugin_game
import pytest
from click.testing import CliRunner

import terra_sim.run.tune
from terra_sim.cli import cli

pytestmark = pytest.mark.usefixtures("tally_game")

BAD = ["-w", "steps=-1", "-w", "bonus=-1", "-w", "knack=-1"]
TINY = ["--game", "tally", "--strategy", "plugin_game:TallyWeighted", "--players", "2,3",
        "--pool", "12", "--holdout", "12", "--generations", "4", "--sigma", "1.0"]


def tune(out, *extra, workers="1"):
    return CliRunner().invoke(cli, ["tune", *TINY, *BAD, "--workers", workers, "--out",
                                    str(out), *extra])


def read(path):
    return tomllib.loads(path.read_text())


def test_a_bad_weight_vector_improves(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = tune(tmp_path / "w.toml", workers="2")
    assert result.exit_code == 0, result.output
    data = read(tmp_path / "w.toml")
    prov, w = data["provenance"], data["weights"]
    assert prov["tuned_margin"] > prov["start_margin"] + 3
    assert prov["holdout_tuned_margin"] > prov["holdout_start_margin"] + 3
    assert w["steps"] > 0  # a step is a VP again
    assert prov["games_played"] == 12 + 4 * prov["popsize"] * 12 + 2 * 12
    assert prov["command"].startswith("terra-sim tune --game tally")
    assert "-w steps=-1.0" in prov["command"] and prov["seed"] == 1
    assert "held-out games (12)" in result.output
    assert not (tmp_path / "runs" / "tune" / "w-seed1.pkl").exists()  # done: no checkpoint


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_bot_that_raises_stops_the_tuning_with_the_game_to_replay(tmp_path, monkeypatch,
                                                                    workers):
    """A worker's error comes back whole (it pickles) and names the game and the weights."""
    monkeypatch.chdir(tmp_path)
    args = [a.replace("TallyWeighted", "TallyFragile") for a in TINY]
    result = CliRunner().invoke(cli, ["tune", *args, *BAD, "--workers", workers, "--out",
                                      str(tmp_path / "w.toml")])
    assert result.exit_code == 1, result.output
    assert "Tuning stopped: seat" in result.output
    assert "(fragile): raised ValueError: a negative knack, in game seed" in result.output
    assert "knack=-1" in result.output and "Traceback" not in result.output
    assert "the same command resumes from runs/tune/w-seed1.pkl" in result.output
    assert not (tmp_path / "w.toml").exists()


def test_the_same_seed_gives_the_same_weights_on_any_number_of_workers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert tune(tmp_path / "a.toml", workers="1").exit_code == 0
    assert tune(tmp_path / "b.toml", workers="2").exit_code == 0
    assert tune(tmp_path / "c.toml", "--seed", "2").exit_code == 0
    a, b, c = (read(tmp_path / f"{x}.toml") for x in "abc")
    assert a["weights"] == b["weights"]
    assert a["weights"] != c["weights"]


def test_a_killed_tuning_resumes_to_the_same_result(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert tune(tmp_path / "whole.toml").exit_code == 0
    real_save, saves = terra_sim.run.tune._save, []

    def killed_after_two(path, state):
        real_save(path, state)
        saves.append(state["generation"])
        if len(saves) == 2:
            raise KeyboardInterrupt  # the kill lands right after a checkpoint

    monkeypatch.setattr(terra_sim.run.tune, "_save", killed_after_two)
    first = tune(tmp_path / "cut.toml")
    assert first.exit_code == 130 and "resumes from" in first.output
    checkpoint = tmp_path / "runs" / "tune" / "cut-seed1.pkl"
    assert checkpoint.exists() and not (tmp_path / "cut.toml").exists()
    monkeypatch.setattr(terra_sim.run.tune, "_save", real_save)
    second = tune(tmp_path / "cut.toml")
    assert second.exit_code == 0, second.output
    whole, cut = read(tmp_path / "whole.toml"), read(tmp_path / "cut.toml")
    assert cut["weights"] == whole["weights"]
    assert cut["provenance"]["games_played"] == whole["provenance"]["games_played"]
    assert cut["provenance"]["tuned_margin"] == whole["provenance"]["tuned_margin"]


def test_a_checkpoint_of_another_plan_is_refused_until_fresh(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def kill(path, state):
        raise KeyboardInterrupt

    real_save = terra_sim.run.tune._save
    monkeypatch.setattr(terra_sim.run.tune, "_save", lambda p, s: (real_save(p, s), kill(p, s)))
    assert tune(tmp_path / "x.toml").exit_code == 130
    monkeypatch.setattr(terra_sim.run.tune, "_save", real_save)
    other = tune(tmp_path / "x.toml", "--pool", "10")
    assert other.exit_code == 2 and "checkpoint of another tuning" in other.output
    assert tune(tmp_path / "x.toml", "--pool", "10", "--fresh").exit_code == 0


@pytest.mark.parametrize("args,message", [
    (["--strategy", "random"], "has no weights to tune"),
    (["-w", "speed=2"], "unknown weights ['speed']"),
    (["-w", "steps"], "expected NAME=NUMBER"),
    (["--weights", "steps,wings"], "unknown weights ['wings']"),
    (["--faction", "owl"], "unknown faction 'owl'"),
    (["--players", "7"], "not 7"),
    (["--generations", "0"], "--generations must be at least 1"),
    (["--opponents", "nobody"], "unknown strategy 'nobody'"),
])
def test_bad_input_is_one_readable_line(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["tune", *TINY, "--out", str(tmp_path / "w.toml"), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_one_faction_sits_in_the_tuned_seat_of_every_game():
    from terra_sim.run.tune import TunePlan, pool_games

    plan = TunePlan(game="tally", strategy="greedy", start={}, names=[], opponents=["greedy"],
                    players=[2, 3, 4], faction="hen")
    games = pool_games(plan, "pool", 24)
    assert all(pg.factions[pg.seat] == "hen" for pg in games)
    assert {pg.seat for pg in games} == {0, 1, 2, 3}  # the seat rotates
    assert all(len(set(pg.factions)) == len(pg.factions) for pg in games)
    assert pool_games(plan, "holdout", 24) != games


def test_a_real_game_tunes_on_a_tiny_budget(tmp_path, monkeypatch):
    """Terra Nova's greedy, two weights, one generation of two candidates on two games: the
    command runs end to end on a shipped game and keeps the weights it did not search."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, [
        "tune", "--game", "terra-nova", "--strategy", "greedy", "--players", "2",
        "--weights", "money,power3", "--pool", "2", "--holdout", "2", "--generations", "1",
        "--popsize", "2", "--workers", "1", "--out", str(tmp_path / "tn.toml")])
    assert result.exit_code == 0, result.output
    data = read(tmp_path / "tn.toml")
    from strategies.terra_nova.greedy import GreedyStrategy

    same = {k: v for k, v in data["weights"].items() if k not in ("money", "power3")}
    # it goes on from the shipped tuned weights
    assert same == {k: v for k, v in GreedyStrategy.start_weights().items()
                    if k not in ("money", "power3")}
    assert data["provenance"]["engine"] and data["provenance"]["data_set"]


def test_every_faction_in_turn_a_file_each(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["tune", *TINY, *BAD, "--faction", "all", "--generations",
                                      "1", "--pool", "4", "--holdout", "2", "--workers", "1",
                                      "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    files = sorted(p.name for p in tmp_path.glob("*.toml"))
    assert files == sorted(f"weighted-{f}.toml" for f in plugin_game.FACTIONS)
    assert read(tmp_path / "weighted-hen.toml")["provenance"]["faction"] == "hen"
    assert "--faction hen" in read(tmp_path / "weighted-hen.toml")["provenance"]["command"]


def test_a_dask_cluster_tunes_to_the_weights_of_local_workers(tmp_path, monkeypatch):
    """The same seed, the same weights, whichever executor plays the games (a LocalCluster
    here; Terra Nova, since a game registered in this process does not reach its workers)."""
    monkeypatch.chdir(tmp_path)
    args = ["tune", "--game", "terra-nova", "--strategy", "greedy", "--players", "2",
            "--weights", "money,power3", "--pool", "2", "--holdout", "1", "--generations", "1",
            "--popsize", "2", "--workers", "2"]
    local = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "local.toml")])
    dask = CliRunner().invoke(cli, [*args, "--executor", "dask", "--out",
                                    str(tmp_path / "dask.toml")])
    assert local.exit_code == 0 and dask.exit_code == 0, dask.output
    assert read(tmp_path / "local.toml")["weights"] == read(tmp_path / "dask.toml")["weights"]


def test_a_factions_tuning_that_does_not_pay_on_held_out_games_writes_nothing(tmp_path,
                                                                            monkeypatch):
    """Per faction, tuned weights ship only where they beat their start on games the tuning
    never saw; elsewhere the faction keeps the shared weights."""
    monkeypatch.chdir(tmp_path)

    def no_gain(plan, *args, **kwargs):
        return terra_sim.run.tune.TuneResult(plan, dict(plan.start), 0.0, 2.0, 1.0, 0.5, 8, 2,
                                             [])

    monkeypatch.setattr(terra_sim.run.tune, "tune", no_gain)
    result = CliRunner().invoke(cli, ["tune", *TINY, "--faction", "ant",
                                      "--out", str(tmp_path / "f.toml")])
    assert result.exit_code == 0, result.output
    assert "no gain on the held-out games" in result.output
    assert not (tmp_path / "f.toml").exists()


def test_a_factions_tuning_goes_on_from_the_weights_that_faction_plays(tmp_path, monkeypatch):
    """With --faction, the start is that faction's own tuned file where one ships (else the
    shared weights), with --start and -w laid over it; the file's command spells it out."""
    monkeypatch.chdir(tmp_path)
    cls = plugin_game.TallyWeighted
    shared = cls.start_weights()
    own = {**shared, "steps": 5.0, "bonus": 7.0}
    monkeypatch.setattr(cls, "start_weights", classmethod(
        lambda c, faction="", tuned=True: own if faction == "hen" else shared))
    starts = {}

    def no_gain(plan, *args, **kwargs):
        starts[plan.faction] = dict(plan.start)
        return terra_sim.run.tune.TuneResult(plan, dict(plan.start), 0.0, 2.0, 1.0, 0.5, 8, 2,
                                             [])

    monkeypatch.setattr(terra_sim.run.tune, "tune", no_gain)
    result = CliRunner().invoke(cli, ["tune", *TINY, "-w", "bonus=3", "--faction", "all",
                                      "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert starts["hen"] == {**own, "bonus": 3.0}
    others = [f for f in plugin_game.FACTIONS if f != "hen"]
    assert others and all(starts[f] == {**shared, "bonus": 3.0} for f in others)


def test_the_file_holds_every_weight_to_six_places(tmp_path, monkeypatch):
    """The weights a tuning held come from its start as they are: a plan's departures scaled to
    a tuned file (0.1 + 0.2 here) carry float noise in their last digits, which the file drops
    as it does for the searched ones."""
    monkeypatch.chdir(tmp_path)

    def noisy(plan, *args, **kwargs):
        return terra_sim.run.tune.TuneResult(plan, {**plan.start, "steps": 0.1 + 0.2}, 0.0, 2.0,
                                             0.5, 1.0, 8, 2, [])

    monkeypatch.setattr(terra_sim.run.tune, "tune", noisy)
    result = CliRunner().invoke(cli, ["tune", *TINY, "--out", str(tmp_path / "w.toml")])
    assert result.exit_code == 0, result.output
    assert "steps = 0.3\n" in (tmp_path / "w.toml").read_text()
    assert read(tmp_path / "w.toml")["weights"]["steps"] == 0.3
