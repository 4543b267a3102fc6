"""strategies.leaf and strategies.fit_leaf: the search bot's leaf value fitted to how games
ended, for each game whose heuristic names its valuation's terms."""

import random

import numpy as np
import pytest

from strategies import fit_leaf, leaf
from strategies.fit_leaf import fit_rounds, record
from strategies.leaf import LeafModel
from terra_sim.games import game_bots

# (game, the round whose start or end a search's playout stops at first, the rounds fitted)
GAMES = [("terra-mystica", [2, 3, 4, 5, 6]), ("terra-nova", [1, 2, 3, 4, 5])]
TM_TERMS = game_bots("terra-mystica").HEURISTIC.leaf_names


def _heuristic(game: str):
    return game_bots(game).HEURISTIC(random.Random(1), 4, 0.5)


def _synthetic(n: int, seed: int, beta: list[float], const: dict[str, float]) -> list[dict]:
    """Games whose final VP is exactly a game's own level plus beta . terms plus a faction's
    constant: the fit must find beta and the constants' differences, whatever the levels."""
    rng = random.Random(seed)
    factions = sorted(const)
    out = []
    for _ in range(n):
        level = rng.uniform(60, 140)
        seats = rng.sample(factions, 4)
        rows, vp = [], []
        for seat, f in enumerate(seats):
            t = [rng.uniform(0, 40) for _ in beta]
            rows.append((2, seat, f, t))
            vp.append(level + sum(b * x for b, x in zip(beta, t, strict=True)) + const[f])
        out.append({"rows": rows, "vp": vp})
    return out


def test_the_fit_finds_a_known_model_within_each_game():
    beta = [0.5 + 0.1 * i for i in range(9)]
    const = {"auren": 3.0, "giants": -2.0, "nomads": 0.0, "witches": 5.0, "dwarves": 1.0}
    train, holdout = _synthetic(400, 1, beta, const), _synthetic(100, 2, beta, const)
    model, quality = fit_rounds(train, holdout)
    coef, faction = model[2]
    assert coef == pytest.approx(beta, abs=0.01)
    # only differences between factions are identified: compare them to auren's
    for f, c in const.items():
        assert faction[f] - faction["auren"] == pytest.approx(c - const["auren"], abs=0.2)
    val, fitted = quality[2]
    assert fitted == pytest.approx(1.0, abs=1e-3)
    assert val < fitted  # the plain sum weighs every term alike, not as the outcome did


def _first_leaf(game: str, seed: int, players: int = 4):
    """The state where a search's playout from round 1 would first stop, played by greedy."""
    from strategies import make_strategy
    from terra_sim.core.rng import stream
    from terra_sim.games import get_game
    from terra_sim.play import new_game

    state, _ = new_game(get_game(game), None, seed, players, None, {})
    bots = [make_strategy("greedy", stream(seed, "strategy", i), game) for i in range(players)]
    h = _heuristic(game)
    while not h.playout_over(state, 1):
        state.apply(bots[state.current_player()].choose(state, state.legal_actions()))
    return state


def _valuation(game: str, h, state, seat: int) -> float:
    """The leaf value a player count without a model gets: the game's plain valuation."""
    q = state.players[seat]
    if game == "terra-mystica":
        from strategies.terra_mystica import valuation as tm

        return tm.valuation(state, seat, tm.Context.of(state, seat, h.guides[q].w))
    from strategies.terra_nova import valuation as tn
    from terra_sim.games.terra_nova.scoring import network_size

    sizes = [network_size(state, p) for p in state.players]
    ctx = tn.Context(seat, h.guides[q].weights, 0, sizes[:seat] + sizes[seat + 1:])
    return tn.valuation(state, seat, ctx) + q.faction.start_vp


@pytest.mark.parametrize("game, rounds", GAMES)
def test_the_terms_sum_to_the_valuation(game, rounds):
    h = _heuristic(game)
    state = _first_leaf(game, 4)
    assert state.round == rounds[0]
    counts = len(h.leaf_features)
    for i in range(len(state.players)):
        faction, t = h.leaf_terms(state, i)
        assert faction == state.players[i].faction.slug and len(t) == len(h.leaf_names)
        total = 0.0
        for x in t[:len(t) - counts]:  # in order, as the valuation adds them
            total += x
        start = 0 if game == "terra-mystica" else state.players[i].faction.start_vp
        assert total + start == _valuation(game, h, state, i)
        assert sum(1 for x in t if x) >= 6  # most terms are at work by the first leaf


def test_terra_mystica_leaves_weigh_counts_of_the_position_too():
    h = _heuristic("terra-mystica")
    assert h.leaf_names[-len(h.leaf_features):] == h.leaf_features
    state = _first_leaf("terra-mystica", 4)
    for i, p in enumerate(state.players):
        named = dict(zip(h.leaf_names, h.leaf_terms(state, i)[1], strict=True))
        assert (named["coins"], named["workers"], named["power_3"]) == (p.coins, p.workers, p.p3)
        assert named["dwellings"] == p.b["D"].bit_count() and named["shipping"] == p.ship
        assert [named[f"cult_{k}"] for k in range(1, 5)] == p.cults
        assert named["top_cult"] == max(p.cults) and named["town_tiles"] == len(p.town_tiles)
        assert named["free_land_in_reach"] > 0 and named["network_size"] >= 1


def test_the_fits_plain_sum_leaves_the_counts_out():
    """The valuation the fit is compared with sums the terms, not the counts after them."""
    from strategies.fit_leaf import table

    played = [{"vp": [100, 80], "rows": [(2, 0, "auren", [3.0, 1.0, 50.0]),
                                         (2, 1, "giants", [1.0, 2.0, 10.0])]}]
    _, _, v = table(played, 2, ["auren", "giants"], 2)
    assert list(v) == [0.5, -0.5]  # 4 and 3, centred; the count (50, 10) is left out


def test_terra_nova_terms_in_the_last_round_are_its_own_few():
    """With no income to come the valuation counts money, territory and a town in reach: the
    terms that price the future are zero, and the two of the last round carry it."""
    from strategies import make_strategy
    from terra_sim.core.rng import stream
    from terra_sim.games import get_game
    from terra_sim.play import new_game

    state, _ = new_game(get_game("terra-nova"), None, 8, 3, None, {})
    bots = [make_strategy("greedy", stream(8, "strategy", i), "terra-nova") for i in range(3)]
    while state.round < state.data.rounds:
        state.apply(bots[state.current_player()].choose(state, state.legal_actions()))
    h = _heuristic("terra-nova")
    names = h.leaf_names
    for i in range(3):
        _, t = h.leaf_terms(state, i)
        total = 0.0
        for x in t:
            total += x
        assert total + state.players[i].faction.start_vp == _valuation("terra-nova", h, state, i)
        named = dict(zip(names, t, strict=True))
        assert named["final"] > 0
        assert all(named[k] == 0.0 for k in ("resources", "income", "territory", "reach"))


def test_terra_mystica_terms_are_the_vp_alone_after_the_game():
    from strategies.terra_mystica.greedy import GreedyStrategy
    from strategies.terra_mystica.valuation import Context, terms

    state = _first_leaf("terra-mystica", 4)
    state.stage = "over"
    ctx = Context.of(state, 0, GreedyStrategy.start_weights(state.players[0].faction.slug))
    assert terms(state, 0, ctx) == [float(state.players[0].total_vp)] + [0.0] * (
        len(TM_TERMS) - len(game_bots("terra-mystica").HEURISTIC.leaf_features) - 1)


@pytest.mark.parametrize("game, rounds", GAMES)
def test_the_search_values_its_leaves_by_the_shipped_model(game, rounds):
    h = _heuristic(game)
    model = h.leaf_model(4)
    assert model is not None and sorted(model.rounds) == rounds
    state = _first_leaf(game, 6)
    values = h.values(state)
    for i, q in enumerate(state.players):
        coef, faction = model.rounds[state.round]
        _, t = h.leaf_terms(state, i)
        expected = sum(c * x for c, x in zip(coef, t, strict=True)) + faction[q.faction.slug]
        assert values[i] == pytest.approx(expected)
        assert values[i] != pytest.approx(_valuation(game, h, state, i))
    state.round = 0 if game == "terra-nova" else 1  # no fit for that round: the valuation
    values = h.values(state)
    assert values[0] == _valuation(game, h, state, 0)


@pytest.mark.parametrize("game, rounds", GAMES)
def test_a_player_count_without_its_model_is_valued_by_the_valuation(monkeypatch, tmp_path,
                                                                     game, rounds):
    monkeypatch.setattr(leaf, "path", lambda folder, players: tmp_path / f"{players}p.toml")
    leaf.shipped.cache_clear()
    try:
        h = _heuristic(game)
        state = _first_leaf(game, 7, players=2)
        values = h.values(state)
        for i in range(len(state.players)):
            assert values[i] == _valuation(game, h, state, i)
    finally:
        leaf.shipped.cache_clear()


@pytest.mark.parametrize("game, rounds", GAMES)
def test_recording_a_game_leaves_it_as_play_game_plays_it(game, rounds):
    from terra_sim import play_game

    bots = ["greedy", "expander", "greedy", "expander"]
    rec = record(bots, 21, None, 4, game)
    played = play_game(game, None, bots, 21, players=4, log_actions=False)
    assert rec["vp"] == played.final_vp
    keys = sorted({r for r, *_ in rec["rows"]})
    # Terra Nova's last round ends in an exchange only when someone can make one
    assert keys == rounds[:len(keys)] and len(keys) >= len(rounds) - 1
    assert len(rec["rows"]) == len(keys) * 4


@pytest.mark.parametrize("game, rounds", GAMES)
def test_the_command_writes_a_model_the_search_can_read(tmp_path, capsys, game, rounds):
    names = game_bots(game).HEURISTIC.leaf_names
    out = tmp_path / "leaf.toml"
    argv = ["--game", game, "--games", "6", "--holdout", "2", "--workers", "1", "--seed", "5",
            "--out", str(out)]
    fit_leaf.main(argv)
    model = LeafModel.read(out, names)
    assert sorted(model.rounds) == rounds
    coef, faction = model.rounds[3]
    assert len(coef) == len(names) and all(np.isfinite(coef))
    assert len(faction) >= 4
    text = out.read_text()
    assert f"--game {game} --games 6 --holdout 2" in text and f'game = "{game}"' in text
    assert "valuation" in capsys.readouterr().out
    assert not list(tmp_path.glob("*.tmp"))
    # the same seed fits the same model
    again = tmp_path / "again.toml"
    fit_leaf.main([*argv[:-1], str(again)])
    assert LeafModel.read(again, names).rounds == model.rounds


def test_a_game_without_leaf_terms_or_a_player_count_it_lacks_is_refused_in_one_line():
    with pytest.raises(SystemExit, match="names no leaf terms"):
        fit_leaf.main(["--game", "terramara", "--games", "2", "--holdout", "1"])
    with pytest.raises(SystemExit, match="unknown game"):
        fit_leaf.main(["--game", "chess", "--games", "2", "--holdout", "1"])
    with pytest.raises(SystemExit, match=r"plays with \(2, 3, 4\) players, not 5"):
        fit_leaf.main(["--game", "terra-nova", "--players", "5", "--games", "2",
                       "--holdout", "1"])


@pytest.mark.parametrize("body, says", [
    ("[round.2.terms]\nvp = 1.0\n", "has terms"),
    ("[round.x]\nvp = 1\n", "not a round"),
    ("round = 3\n", "not a round"),
    ("[round.2]\nterms = 1\n", "not a round"),
    ("", "no [round.N]"),
    ("[round.2", "cannot read"),
])
def test_a_model_file_that_does_not_fit_the_valuation_is_refused_clearly(tmp_path, body, says):
    path = tmp_path / "leaf.toml"
    path.write_text(body)
    with pytest.raises(ValueError, match=says.replace("[", r"\[")):
        LeafModel.read(path, TM_TERMS)


def test_a_model_value_that_is_not_a_number_is_refused(tmp_path):
    path = tmp_path / "leaf.toml"
    lines = ["[round.2.terms]"] + [f"{t} = 1.0" for t in TM_TERMS] + ['[round.2.faction]',
                                                                      'auren = "x"']
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="not a number"):
        LeafModel.read(path, TM_TERMS)


@pytest.mark.parametrize("game, rounds", GAMES)
def test_a_plug_in_heuristic_values_its_leaves_by_its_games_model(tmp_path, game, rounds):
    from strategies.loader import load_class

    module = game_bots(game).HEURISTIC.__module__
    name = game_bots(game).HEURISTIC.__name__
    (tmp_path / "variant.py").write_text(
        f"from strategies.search import SearchStrategy\nfrom {module} import {name}\n\n\n"
        f"class Mine({name}):\n    pass\n\n\nclass MySearch(SearchStrategy):\n"
        f"    name = 'my-search'\n    games = ({game!r},)\n")
    import sys

    mine = sys.modules[load_class(f"{tmp_path / 'variant.py'}:MySearch").__module__].Mine
    shipped = _heuristic(game).leaf_model(4)
    got = mine(random.Random(1), 4, 0.5).leaf_model(4)
    assert shipped is not None and got is shipped
