"""strategies.terra_mystica.leaf: the search bot's leaf value fitted to how games ended."""

import random

import numpy as np
import pytest

from strategies.terra_mystica import fit_leaf, leaf
from strategies.terra_mystica.fit_leaf import fit_rounds, record
from strategies.terra_mystica.leaf import LeafModel
from strategies.terra_mystica.valuation import TERMS, Context, terms, valuation

GAME = "terra-mystica"


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
            t = [rng.uniform(0, 40) for _ in TERMS]
            rows.append((2, seat, f, t))
            vp.append(level + sum(b * x for b, x in zip(beta, t, strict=True)) + const[f])
        out.append({"rows": rows, "vp": vp})
    return out


def test_the_fit_finds_a_known_model_within_each_game():
    beta = [0.5 + 0.1 * i for i in range(len(TERMS))]
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


def _round_two(seed: int, players: int = 4):
    from strategies import make_strategy
    from terra_sim.core.rng import stream
    from terra_sim.games import get_game
    from terra_sim.play import new_game

    state, _ = new_game(get_game(GAME), None, seed, players, None, {})
    bots = [make_strategy("greedy", stream(seed, "strategy", i), GAME) for i in range(players)]
    while not (state.round == 2 and state.stage == "play"):
        state.do(bots[state.current_player()].choose(state, state.legal_actions()))
    return state


def test_the_terms_sum_to_the_valuation_and_are_the_vp_alone_after_the_game():
    from strategies.terra_mystica.greedy import GreedyStrategy

    state = _round_two(4)
    for i, p in enumerate(state.players):
        ctx = Context.of(state, i, GreedyStrategy.start_weights(p.faction.slug))
        t = terms(state, i, ctx)
        assert len(t) == len(TERMS) and t[0] == p.total_vp
        assert sum(t) == valuation(state, i, ctx)
        assert sum(1 for x in t if x) >= 8  # most terms are at work by round 2
    state.stage = "over"
    ctx = Context.of(state, 0, GreedyStrategy.start_weights(state.players[0].faction.slug))
    assert terms(state, 0, ctx) == [float(state.players[0].total_vp)] + [0.0] * (len(TERMS) - 1)


def test_the_search_values_its_leaves_by_the_shipped_model():
    from strategies.terra_mystica.heuristic import TerraMysticaHeuristic

    model = leaf.shipped(4)
    assert model is not None and sorted(model.rounds) == [2, 3, 4, 5, 6]
    h = TerraMysticaHeuristic(random.Random(1), 4, 0.5)
    state = _round_two(6)
    values = h.values(state)
    for i, q in enumerate(state.players):
        ctx = Context.of(state, i, h.guides[q].w)
        coef, faction = model.rounds[2]
        t = terms(state, i, ctx)
        expected = sum(c * x for c, x in zip(coef, t, strict=True)) + faction[q.faction.slug]
        assert values[i] == pytest.approx(expected)
        assert values[i] != pytest.approx(valuation(state, i, ctx))
    state.round = 1  # no fit for round 1 (never a leaf): the valuation
    values = h.values(state)
    assert values[0] == valuation(state, 0, Context.of(state, 0, h.guides[state.players[0]].w))


def test_a_player_count_without_its_model_is_valued_by_the_valuation(monkeypatch, tmp_path):
    from strategies.terra_mystica.heuristic import TerraMysticaHeuristic

    monkeypatch.setattr(leaf, "path", lambda players: tmp_path / f"{players}p.toml")
    leaf.shipped.cache_clear()
    try:
        h = TerraMysticaHeuristic(random.Random(1), 4, 0.5)
        state = _round_two(7, players=2)
        values = h.values(state)
        for i, q in enumerate(state.players):
            assert values[i] == valuation(state, i, Context.of(state, i, h.guides[q].w))
    finally:
        leaf.shipped.cache_clear()


def test_recording_a_game_leaves_it_as_play_game_plays_it():
    from terra_sim import play_game

    bots = ["greedy", "expander", "cult-runner", "power-player"]
    rec = record(bots, 21, None, 4)
    played = play_game(GAME, None, bots, 21, players=4, log_actions=False)
    assert rec["vp"] == played.final_vp
    assert sorted({r for r, *_ in rec["rows"]}) == [2, 3, 4, 5, 6]
    assert len(rec["rows"]) == 5 * 4


def test_the_command_writes_a_model_the_search_can_read(tmp_path, capsys):
    out = tmp_path / "leaf.toml"
    fit_leaf.main(["--games", "6", "--holdout", "2", "--workers", "1", "--seed", "5",
                   "--out", str(out)])
    model = LeafModel.read(out)
    assert sorted(model.rounds) == [2, 3, 4, 5, 6]
    coef, faction = model.rounds[3]
    assert len(coef) == len(TERMS) and all(np.isfinite(coef))
    assert len(faction) >= 4
    text = out.read_text()
    assert "--games 6 --holdout 2" in text and "holdout_r2_round_2" in text
    assert "valuation" in capsys.readouterr().out
    assert not list(tmp_path.glob("*.tmp"))
    # the same seed fits the same model
    again = tmp_path / "again.toml"
    fit_leaf.main(["--games", "6", "--holdout", "2", "--workers", "1", "--seed", "5",
                   "--out", str(again)])
    assert LeafModel.read(again).rounds == model.rounds


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
        LeafModel.read(path)


def test_a_model_value_that_is_not_a_number_is_refused(tmp_path):
    path = tmp_path / "leaf.toml"
    lines = ["[round.2.terms]"] + [f"{t} = 1.0" for t in TERMS] + ['[round.2.faction]',
                                                                   'auren = "x"']
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="not a number"):
        LeafModel.read(path)

