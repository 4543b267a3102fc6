"""Handicap calibration: one exact run where starting VP cannot change play, iterations where it
can, the handicap carried by the what-if overrides of each iteration's config, the handicap
checked against the players table, and bad input refused in one line."""

import json
import sys

import numpy as np
import plugin_game
import polars as pl
import pytest
from click.testing import CliRunner

from terra_sim.analysis.report import build_report
from terra_sim.cli import cli
from terra_sim.core.data import apply_overrides, content_hash
from terra_sim.games import register_game, unregister_game
from terra_sim.run.calibrate import calibrate, nearest


class HeadStartState(plugin_game.TallyState):
    """Tally with a head start per seat; with `lead_rule`, a seat that leads on VP when it lands
    on a multiple of five gets no bonus: a rule that reads the score."""

    def __init__(self, factions, seed, rounds, head, lead_rule):
        super().__init__(factions, seed, rounds)
        self.head, self.lead_rule = head, lead_rule

    def apply(self, action):
        seat = self.current_player()
        vp = self.vp()
        leads = vp[seat] > max(v for i, v in enumerate(vp) if i != seat)
        bonus = self.table[seat][1]
        super().apply(action)
        if self.lead_rule and leads and self.table[seat][1] > bonus:
            self.table[seat][1] = bonus

    def vp(self):
        return [sum(v) + h for v, h in zip(self.table, self.head, strict=True)]

    def breakdown(self):
        return [{"start": h, **dict(zip(plugin_game.CATEGORIES, v, strict=True))}
                for v, h in zip(self.table, self.head, strict=True)]


class HeadStartTally(plugin_game.Tally):
    """The plug-in test game with starting VP as data, overridable like any game's."""

    slug = "head-start"
    categories = ("start", *plugin_game.CATEGORIES)
    vp_affects_play = False

    def __init__(self, overrides=None):
        data = {"factions": {f: {"start_vp": 0} for f in plugin_game.FACTIONS}}
        self.data = apply_overrides(data, overrides or {})
        self.data_hash = content_hash(self.data)

    def start_vp(self, faction):
        return self.data["factions"][faction]["start_vp"]

    def start_vp_override(self, faction, vp):
        return {"factions": {faction: {"start_vp": vp}}}

    def new_state(self, factions, seed, **options):
        plain = super().new_state(factions, seed, **options)
        return HeadStartState(factions, seed, plain.rounds,
                              [self.start_vp(f) for f in factions], self.vp_affects_play)


class LeaderTally(HeadStartTally):
    slug = "leader"
    vp_affects_play = True  # the lead rule: a head start changes who gets bonuses


@pytest.fixture
def games():
    bots = sys.modules["plugin_game"]
    register_game("head-start", HeadStartTally, bots)
    register_game("leader", LeaderTally, bots)
    yield
    unregister_game("head-start")
    unregister_game("leader")


def players_of(run_dir):
    return pl.read_parquet(run_dir / "players" / "*.parquet")


def test_nearest_rounds_halves_away_from_zero():
    assert [nearest(x) for x in (2.5, 3.5, -2.5, -0.49, 0.5, 1.49)] == [3, 4, -3, 0, 1, 1]


def test_two_factions_one_exact_run_handicap_is_minus_the_margin(games, tmp_path):
    # Two factions that always meet, two seats: giving one h VP moves its margin by h/2 and
    # the other's by -h/2, so the handicap is exactly minus each faction's mean margin.
    result = calibrate({"game": "head-start", "players": 2, "factions": ["ant", "cat"],
                        "strategies": ["random"], "games": 120}, tmp_path / "cal", workers=2)
    assert result.exact and len(result.iterations) == 1
    assert result.stopped.startswith("exact: one run gives the handicaps")
    p = players_of(tmp_path / "cal" / "iter-1")
    margin = dict(p.group_by("faction").agg(pl.col("margin").mean()).iter_rows())
    est = result._table()
    for f in ("ant", "cat"):
        assert est[f][0] == pytest.approx(-margin[f], abs=1e-9)
        lo, hi = result.final.margin[f][1:]
        # The interval is minus the margin's, up to a normal quantile for a t one.
        assert est[f][2] - est[f][1] == pytest.approx(hi - lo, rel=0.03)
    assert est["ant"][0] == pytest.approx(-est["cat"][0], abs=1e-9)
    for name in ("calibration.csv", "calibration.md", "iterations.csv", "handicap.toml",
                 "convergence.png", "calibration.json"):
        assert (tmp_path / "cal" / name).is_file(), name
    table = pl.read_csv(tmp_path / "cal" / "calibration.csv")
    assert set(table["faction"]) == {"ant", "cat"}
    assert "**Exact.**" in (tmp_path / "cal" / "calibration.md").read_text()
    # An iteration is an ordinary run: its report builds.
    report = build_report(tmp_path / "cal" / "iter-1", tmp_path / "rep", formats="md")
    assert (report.out_dir / "report.md").is_file()


def test_the_handicaps_zero_every_margin_and_the_overrides_carry_them(games, tmp_path):
    result = calibrate({"game": "head-start", "players": 3,
                        "factions": ["ant", "cat", "eel", "gnu", "ibis", "koi"],
                        "strategies": ["random"], "games": 150, "seed": 4},
                       tmp_path / "cal", verify=True, workers=2)
    assert result.exact and len(result.iterations) == 2 and result.verified is True
    est = {f: t[0] for f, t in result._table().items()}
    assert sum(est.values()) == pytest.approx(0, abs=1e-9)
    # Independently, from the first run's players table: with the handicaps added to every
    # score, every faction's mean margin is 0.
    p = players_of(tmp_path / "cal" / "iter-1").with_columns(
        (pl.col("vp") + pl.col("faction").replace_strict(est, return_dtype=pl.Float64))
        .alias("vp_h"))
    p = p.with_columns((pl.col("vp_h") - pl.col("vp_h").mean().over("game_id")).alias("m_h"))
    after = p.group_by("faction").agg(pl.col("m_h").mean())["m_h"].to_numpy()
    assert np.abs(after).max() < 1e-9
    # With more factions than seats a handicap exceeds minus the margin (here by a third or so).
    margin = dict(p.group_by("faction").agg(pl.col("margin").mean()).iter_rows())
    big = max(margin, key=lambda f: abs(margin[f]))
    assert 1.0 < est[big] / -margin[big] < 2.0
    # The second run carries the handicaps (to the nearest VP) as overrides in its config, and
    # plays the same games with every score moved by its faction's handicap.
    applied = {f: nearest(h) for f, h in est.items()}
    manifest = json.loads((tmp_path / "cal" / "iter-2" / "manifest.json").read_text())
    assert manifest["config"]["overrides"] == {
        "factions": {f: {"start_vp": h} for f, h in applied.items() if h}}
    assert manifest["config"]["seed"] == 4  # common random numbers
    one, two = players_of(tmp_path / "cal" / "iter-1"), players_of(tmp_path / "cal" / "iter-2")
    joined = one.join(two, on=["game_id", "seat"], suffix="_2")
    assert joined.height == one.height
    assert (joined["vp_2"] - joined["vp"]).to_list() == [applied[f] for f in joined["faction"]]
    assert result.start_vp() == applied  # printed start_vp 0
    toml = (tmp_path / "cal" / "handicap.toml").read_text()
    for f, h in applied.items():
        if h:
            assert f"[overrides.factions.{f}]\nstart_vp = {h}\n" in toml


def test_iterates_where_starting_vp_changes_play(games, tmp_path):
    # Greedy tally favours the factions whose knack is the long step; the lead rule makes a
    # head start change the game, so the runs go on.
    spec = {"game": "leader", "players": 3, "factions": ["ant", "cat", "eel", "gnu", "koi"],
            "strategies": ["greedy"], "games": 200}
    result = calibrate(spec, tmp_path / "cal", rounds=4, workers=2)
    assert not result.exact and "leader's rules let VP change play" in result.why
    its = result.iterations
    assert len(its) >= 2 and not its[0].margins_contain_zero()
    for prev, it in zip(its, its[1:], strict=False):
        assert it.applied == {f: nearest(h) for f, (h, _, _) in prev.estimate.items()}
        manifest = json.loads((it.run_dir / "manifest.json").read_text())
        assert manifest["config"]["overrides"] == {
            "factions": {f: {"start_vp": h} for f, h in it.applied.items() if h}}
    last = its[-1]
    if result.stopped.startswith("every faction's 95% VP-margin interval contains 0"):
        assert last.margins_contain_zero()
    elif result.stopped.startswith("the handicaps settled"):
        assert {f: nearest(h) for f, (h, _, _) in last.estimate.items()} == last.applied
    else:
        assert result.stopped.startswith("round limit (4)") and len(its) == 4
    # The first run's imbalance shrank: the last run's margins are much nearer 0.
    worst = max(abs(m) for m, _, _ in its[0].margin.values())
    assert max(abs(m) for m, _, _ in last.margin.values()) < worst / 2
    # Calibrating again on the same folder continues it: nothing is played, the same result.
    again = calibrate(spec, tmp_path / "cal", rounds=4, workers=2)
    assert again.stopped == result.stopped and again._table() == result._table()


def test_the_round_limit(games, tmp_path):
    result = calibrate({"game": "leader", "players": 3, "factions": ["ant", "cat", "eel", "koi"],
                        "strategies": ["greedy"], "games": 200}, tmp_path / "cal", rounds=1,
                       workers=1)
    assert len(result.iterations) == 1
    assert result.stopped == ("round limit (1) reached before every faction's VP-margin "
                              "interval contained 0")


def refused(*args):
    result = CliRunner().invoke(cli, ["calibrate", *map(str, args)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    return result.output.strip().removeprefix("Error: ")


def test_bad_input_is_one_line(games, tally_game, tmp_path):
    assert refused("--game", "tally", "--players", "2", "--games", "4", "--out",
                   tmp_path / "c") == ("tally keeps no starting VP in its data (its Game "
                                       "answers no start_vp_override), so it cannot be "
                                       "calibrated")
    message = refused("--game", "leader", "--strategies", "greedy", "--players", "2",
                      "--games", "4", "--verify", "--out", tmp_path / "c")
    assert message.startswith("--verify replays a one-run (exact) calibration with its "
                              "handicaps; this one iterates")
    assert refused("--game", "head-start", "--rounds", "0", "--out", tmp_path / "c") == \
        "rounds must be at least 1, got 0"
    (tmp_path / "file").write_text("x")
    assert "is a file, not a calibration folder" in refused(
        "--game", "head-start", "--out", tmp_path / "file")
    assert "a run until sure needs max_games" in refused(
        "--game", "head-start", "--until-ci", "0.1", "--out", tmp_path / "c")
    result = CliRunner().invoke(cli, ["calibrate", "--game", "head-start"])
    assert result.exit_code == 2 and "Missing option '--out'" in result.output


def test_the_command_line_prints_the_table(games, tmp_path):
    result = CliRunner().invoke(cli, [
        "calibrate", "--game", "head-start", "--players", "2", "--strategies", "random",
        "--games", "40", "--workers", "1", "--no-actions", "--out", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    assert "handicap [95%]" in result.output and "Exact: neither head-start's rules" in \
        result.output
    assert f"Calibration: {tmp_path / 'c' / 'calibration.md'}" in result.output
