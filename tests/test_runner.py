"""Tournament runner: seeded designs, determinism across workers and resumes, failure isolation,
the table schemas."""

import json
from collections import Counter
from types import SimpleNamespace

import polars as pl
import pytest
from bot_sources import BOOM
from run_checks import assert_same

import terra_sim
from strategies import default_strategies
from terra_sim.core.errors import UserError
from terra_sim.run.chunk import rows_for
from terra_sim.run.config import RunConfig, validate
from terra_sim.run.plan import Plan
from terra_sim.run.replay import replay
from terra_sim.run.runner import RunInterrupted, run_tournament
from terra_sim.store import schema


def content(**kw):
    return validate(RunConfig(**kw)).content()


def groups():
    return terra_sim.get_game("terra-nova").exclusive_groups()


def same_colour(factions):
    return any(len(g & set(factions)) > 1 for g in groups())


def test_balanced_design_seats_every_faction_equally():
    c = content(games=40, strategies=["random", "random-b"], variants={
        "random-b": {"base": "random"}})
    plan = Plan(c, groups())
    specs = [plan.spec(i) for i in range(40)]
    by_seat = Counter((s.factions[seat], seat) for s in specs for seat in range(4))
    assert set(by_seat.values()) == {4}  # 10 factions x 4 seats, 4 times each in 40 games
    assert not any(same_colour(s.factions) for s in specs)
    strat_seat = Counter((s.strategies[seat], seat) for s in specs for seat in range(4))
    assert set(strat_seat.values()) == {20}
    # A game count that is no multiple of the pool: counts differ by at most one.
    partial = Counter((plan.spec(i).factions[seat], seat) for i in range(23) for seat in range(4))
    assert max(partial.values()) - min(partial.values()) <= 1


@pytest.mark.parametrize("sizes, n", [([2] * 7, 5), ([2, 2, 2, 2, 2, 1], 5), ([2] * 7, 4)])
def test_balanced_design_seats_many_pairs_at_many_seats(sizes, n):
    # Seven colour pairs at five seats (one draw of a shuffle in a thousand fits): every block
    # is found, seats each faction once and never puts a pair together.
    pool = [f"f{g}-{i}" for g, k in enumerate(sizes) for i in range(k)]
    exclusive = [{f for f in pool if f.startswith(f"f{g}-")} for g in range(len(sizes))]
    plan = Plan({"seed": 1, "players": [n], "factions": pool, "strategies": ["random"],
                 "design": "balanced", "per_seat": False}, exclusive)
    specs = [plan.spec(i) for i in range(40 * len(pool))]
    assert set(Counter((s.factions[seat], seat) for s in specs for seat in range(n)).values()) \
        == {40}
    assert all(len({f.split("-")[0] for f in s.factions}) == n for s in specs)


def test_random_design_respects_pool_and_colours():
    pool = ["golems", "fire-sprites", "druids", "fairies", "sand-cats", "inventors"]
    plan = Plan(content(design="random", players=[2, 3, 4], factions=pool), groups())
    specs = [plan.spec(i) for i in range(90)]
    assert Counter(len(s.factions) for s in specs) == {2: 30, 3: 30, 4: 30}
    assert all(set(s.factions) <= set(pool) and not same_colour(s.factions) for s in specs)
    again = Plan(content(design="random", players=[2, 3, 4], factions=pool), groups())
    assert [again.spec(i) for i in (89, 3, 41)] == [specs[89], specs[3], specs[41]]
    assert len({s.seed for s in specs}) == 90


def test_impossible_pool_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="same colour"):
        run_tournament(games=2, workers=1, out=tmp_path / "r", strategies="random",
                       factions="golems,fire-sprites,druids,fairies")


def test_default_run_uses_registered_scripted_bots():
    cfg = validate(RunConfig())
    assert (cfg.game, cfg.players, cfg.games) == ("terra-nova", [4], 1000)
    assert cfg.factions == terra_sim.get_game("terra-nova").faction_slugs()
    assert cfg.strategies == default_strategies("terra-nova")
    assert set(cfg.strategies) == {"greedy", "expander", "merchant", "town-builder",
                                   "power-player", "round-scorer"}


def test_one_worker_equals_two_workers_and_any_chunk_size(tmp_path):
    kw = {"games": 12, "players": "3,4", "strategies": "random", "report": False}
    one = run_tournament(workers=1, out=tmp_path / "one", **kw)
    two = run_tournament(workers=2, chunk_size=2, out=tmp_path / "two", **kw)
    assert one.manifest["finished_games"] == two.manifest["finished_games"] == 12
    assert_same(one, two)
    assert len(list((tmp_path / "two" / "games").glob("*.parquet"))) == 6


def test_interrupt_and_resume_equals_uninterrupted(tmp_path, ctrl_c_at_chunk):
    kw = {"games": 12, "strategies": "random", "chunk_size": 3, "workers": 1}
    whole = run_tournament(out=tmp_path / "whole", **kw)

    # Ctrl-C reaches the parent while its workers play: here, as it writes the third chunk
    # (the fourth is in play by then: the parent writes a chunk once the worker has its next).
    ctrl_c_at_chunk(3)
    with pytest.raises(RunInterrupted) as e:
        run_tournament(out=tmp_path / "cut", **kw)
    assert e.value.finished == 9  # the three chunks played are kept, the fourth is lost
    ctrl_c_at_chunk(None)
    # A kill between part files leaves an uncommitted part and a temporary file behind.
    (tmp_path / "cut" / "players" / "part-00000099-00000099.parquet").write_bytes(b"junk")
    (tmp_path / "cut" / "games" / ".part-x.parquet.tmp").write_bytes(b"junk")
    resumed = run_tournament(resume=tmp_path / "cut", chunk_size=5)
    assert resumed.stats.games == 3
    assert_same(whole, resumed)
    assert resumed.manifest["finished_at"] is not None


def test_resume_after_deleting_a_part_replays_only_that_part(tmp_path):
    kw = {"games": 9, "strategies": "random", "chunk_size": 3, "workers": 1}
    whole = run_tournament(out=tmp_path / "a", **kw)
    cut = run_tournament(out=tmp_path / "b", **kw)
    (tmp_path / "b" / "games" / "part-00000003-00000005.parquet").unlink()
    resumed = run_tournament(resume=cut.run_dir, workers=2)
    assert resumed.stats.games == 3
    assert resumed.games["game_id"].is_unique().all()
    assert_same(whole, resumed)
    again = run_tournament(resume=cut.run_dir)  # nothing left to do
    assert again.stats.games == 0 and again.games.height == 9


def test_a_run_grows_to_more_games_and_equals_the_run_of_that_size(tmp_path):
    """Game i is the same game whatever a run's size: a run resumed with more games (or played
    again into its folder with more) plays only the new ones, and equals the longer run. A run
    does not shrink, and a run until sure keeps the size its checks set."""
    kw = {"strategies": "random", "players": "3,4", "workers": 1, "report": False}
    whole = run_tournament(games=10, out=tmp_path / "whole", **kw)
    small = run_tournament(games=4, out=tmp_path / "small", **kw)
    grown = run_tournament(resume=small.run_dir, games=7)
    assert grown.stats.games == 3 and grown.manifest["planned_games"] == 7
    grown = run_tournament(games=10, out=tmp_path / "small", **kw)
    assert grown.stats.games == 3 and grown.manifest["finished_at"] is not None
    assert_same(whole, grown)
    with pytest.raises(UserError, match="can grow to more games, not shrink to 5"):
        run_tournament(resume=small.run_dir, games=5)
    sure = run_tournament(out=tmp_path / "sure", until_ci=0.9, max_games=20, until_batch=10,
                          **kw)
    with pytest.raises(UserError, match="a run until sure sets its own size"):
        run_tournament(resume=sure.run_dir, games=40)


def test_a_raising_strategy_fails_only_its_games(tmp_path):
    bot = tmp_path / "boom.py"
    bot.write_text(BOOM)
    result = run_tournament(games=16, players=2, design="random", workers=2,
                            strategies=f"random,{bot}:Boom", out=tmp_path / "r")
    errors = result.errors
    assert 0 < errors.height < 16
    assert result.games.height + errors.height == 16
    assert result.manifest["failed_games"] == errors.height
    assert errors["message"].str.contains("boom goes the bot").all()
    assert errors["traceback"].str.contains("RuntimeError").all()
    assert errors["factions"].str.contains(",").all()
    played = set(result.games["game_id"])
    assert not played & set(errors["game_id"])
    assert errors["seed"].to_list() == [
        terra_sim.core.rng.derive_seed(1, "game", i) for i in errors["game_id"]]


def test_schema_and_scoring_columns(tmp_path):
    result = run_tournament(games=8, players="2,4", strategies="random", workers=1,
                            out=tmp_path / "r")
    cats = terra_sim.get_game("terra-nova").categories
    schemas = schema.schemas(cats)
    for name in schema.TABLES:
        df = pl.scan_parquet(tmp_path / "r" / name / "*.parquet").collect()
        assert dict(df.schema) == schemas[name], name
    players = result.players
    vp_sum = pl.sum_horizontal([pl.col(f"vp_{c}") for c in cats])
    assert players.select((vp_sum == pl.col("vp")).all()).item()
    per_game = players.group_by("game_id").agg(
        pl.col("win_share").sum(), pl.col("rank").sum(), pl.col("margin").sum(),
        pl.len().alias("n"))
    assert (per_game["win_share"] - 1).abs().max() < 1e-9
    assert (per_game["margin"]).abs().max() < 1e-9
    assert (per_game["rank"] == per_game["n"] * (per_game["n"] + 1) / 2).all()
    games = result.games
    assert games["n_players"].to_list() == [2, 4] * 4
    assert (games["n_actions"] > 0).all()
    assert games.join(result.actions.group_by("game_id").len(), on="game_id")\
        .select((pl.col("len") == pl.col("n_actions")).all()).item()
    setups = [json.loads(s) for s in games["setup"]]
    assert all(len(s["round_tiles"]) == 5 and s["bonus_tiles"] for s in setups)


@pytest.mark.parametrize("vp,rank,win", [
    ([10, 10, 5, 12], [2.5, 2.5, 4.0, 1.0], [0, 0, 0, 1]),
    ([10, 10, 5], [1.5, 1.5, 3.0], [0.5, 0.5, 0]),
    ([7, 7], [1.5, 1.5], [0.5, 0.5]),
])
def test_ties_share_rank_and_win(vp, rank, win):
    g = terra_sim.get_game("terra-nova")
    n = len(vp)
    rec = SimpleNamespace(
        final_vp=vp, factions=g.faction_slugs()[:n], actions=["a"], action_seats=[0],
        action_rounds=[1], action_vp=[0], rounds=5, n_decisions=1, duration_s=0.1, setup={},
        breakdown=[{"round": v} for v in vp])
    spec = SimpleNamespace(game_id=0, seed=1, strategies=["random"] * n)
    cols = {t: {k: [] for k in s} for t, s in schema.schemas(g.categories).items()}
    rows_for(rec, spec, g, "standard", cols)
    assert cols["players"]["rank"] == rank
    assert cols["players"]["win_share"] == win
    assert cols["players"]["vp_round"] == vp and cols["players"]["vp_town"] == [0] * n


def test_what_if_overrides_and_variants_are_recorded(tmp_path):
    overrides = {"factions": {"factions": {"sun-worshippers": {"start_money": 9}}}}
    config = {"games": 4, "workers": 1, "overrides": overrides,
              "strategies": {"pool": ["random", "lazy"], "lazy": {"base": "random"}}}
    result = run_tournament(config, out=tmp_path / "r")
    m = result.manifest
    assert m["overrides"] == overrides
    assert m["data_hash"] == terra_sim.get_game("terra-nova", overrides).data_hash
    assert m["data_hash"] != terra_sim.get_game("terra-nova").data_hash
    assert m["strategy_specs"]["lazy"] == ["random", {}, "lazy"]
    assert set(result.players["strategy"]) == {"random", "lazy"}
    assert replay(result.run_dir, 3, echo=lambda line: None).matches  # with the overrides
    for key in ("master_seed", "package_version", "engine_version", "data_set",
                "approximate_data", "player_counts", "factions", "strategies", "planned_games",
                "finished_games", "failed_games", "started_at", "finished_at", "wall_s",
                "config", "game"):
        assert key in m, key


def test_result_tables_come_from_disk(tmp_path):
    result = run_tournament(games=3, strategies="random", workers=1, out=tmp_path / "r",
                            actions=False)
    assert result.actions.height == 0 and result.actions.schema["action"] == pl.String
    assert (result.games["n_actions"] > 0).all()  # counted even without the action log
    assert result.players.height == 12


def test_per_seat_strategies_keep_their_seats(tmp_path):
    config = {"games": 6, "players": 2, "workers": 2, "design": "balanced",
              "strategies": {"seats": ["calm", "random"], "calm": {"base": "random"}}}
    players = run_tournament(config, out=tmp_path / "r").players
    assert set(players.filter(pl.col("seat") == 0)["strategy"]) == {"calm"}
    assert set(players.filter(pl.col("seat") == 1)["strategy"]) == {"random"}


def test_balanced_design_for_every_player_count():
    plan = Plan(content(players=[2, 3, 4], strategies=["random"]), groups())
    specs = [plan.spec(i) for i in range(90)]
    for n in (2, 3, 4):
        mine = [s for s in specs if len(s.factions) == n]
        assert len(mine) == 30 and not any(same_colour(s.factions) for s in mine)
        assert set(Counter((s.factions[k], k) for s in mine for k in range(n)).values()) == {3}
