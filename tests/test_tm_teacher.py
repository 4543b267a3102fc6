"""strategies.terra_mystica.teacher: greedy's first choice beside the search bot's, by family."""

import pytest

from strategies.terra_mystica.teacher import PASS, compare, jobs, table


def test_a_search_without_simulations_plays_greedys_first_choice():
    """With no simulations the search plays its first root move, greedy's best: every recorded
    turn agrees, except where that move falls short of the pass margin (greedy would pass)."""
    search = ("mcts", {"simulations": 0}, "mcts-0")
    [job] = jobs(search, 1, 11)
    bots, seed, factions, players = job
    assert bots.count(search) == 1 and bots[0] == search
    pairs = compare(bots, seed, factions, players)["pairs"]
    assert len(pairs) > 10
    assert all(g == s for g, s in pairs if g != PASS)
    assert any(s.startswith(("build", "upgrade")) for _, s in pairs)


def test_the_table_shares_each_side_and_puts_the_widest_gap_first():
    pairs = [("build", "action-ACT2"), ("build", "build"), ("pass", "action-ACT2"),
             ("send", "send")]
    rows = table(pairs)
    assert rows[0] == ("action-ACT2", 0.0, 0.5)
    by = {f: (g, s) for f, g, s in rows}
    assert by["build"] == (0.5, 0.25) and by["pass"] == (0.25, 0.0)
    assert by["send"] == (0.25, 0.25)
    assert sum(g for g, _ in by.values()) == pytest.approx(1.0)
    assert sum(s for _, s in by.values()) == pytest.approx(1.0)


def test_watching_the_search_leaves_its_game_as_play_game_plays_it():
    """The comparison only reads what the search chose: asking the heuristic again beforehand
    made greedy's queued turn advance twice, and the games were not the search bot's."""
    from terra_sim import play_game

    search = ("mcts", {"simulations": 8}, "mcts-8")
    [(bots, seed, factions, players)] = jobs(search, 1, 12)
    watched = compare(bots, seed, factions, players)
    assert watched["pairs"]
    played = play_game("terra-mystica", factions, bots, seed, players=players, log_actions=False)
    assert watched["vp"] == played.final_vp


def test_a_faction_puts_the_search_seat_in_that_faction_in_every_game():
    """--faction: the search's seat (rotating) plays the faction; the other three draw factions
    of other home terrains, a legal game each; without it the seed draws them."""
    from terra_sim import get_game

    search = ("mcts", {"simulations": 0}, "mcts-0")
    game = get_game("terra-mystica")
    games = jobs(search, 8, 3, "engineers")
    assert [b.index(search) for b, *_ in games] == [0, 1, 2, 3, 0, 1, 2, 3]
    for bots, _, factions, _ in games:
        assert factions[bots.index(search)] == "engineers" and factions.count("engineers") == 1
        game.check_factions(factions)  # raises on two factions of one terrain
    assert len({tuple(f) for *_, f, _ in games}) > 1
    assert all(f is None for *_, f, _ in jobs(search, 4, 3))
    [(bots, seed, factions, players)] = jobs(search, 1, 3, "witches")
    assert compare(bots, seed, factions, players)["pairs"]
