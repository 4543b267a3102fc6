"""Every Terra Mystica faction's own power is used by the default mix in seeded games: the
Witches ride, the Engineers bridge, the Chaos Magicians take double turns, and so on for all
fourteen (strategies/terra_mystica/README.md gives the rates the bench measures and why)."""

import pytest
from tm_helpers import do, position

from strategies.registry import default_strategies
from strategies.terra_mystica.bench_bots import FACTION_RULES, play_counted, seatings, special_rule

GAME = "terra-mystica"
# Per faction: 4-player games, the faction in every seat eight times. Sixteen were enough
# until the Witches' files played better without their stronghold: their default mix rides
# in about one game in twenty (2 of 48 from seed 9000), and the first is the 32nd.
GAMES = 32


@pytest.mark.parametrize("faction", sorted(FACTION_RULES))
def test_the_default_mix_uses_every_factions_own_power(faction):
    mix = default_strategies(GAME)
    rule = FACTION_RULES[faction]
    used = 0
    for i, factions in enumerate(seatings(faction, GAMES)):
        bots = [mix[(i + k) % len(mix)] for k in range(4)]
        r = play_counted(bots, 9_000 + i, factions)
        used += r["uses"][factions.index(faction)][rule]
    assert used >= 1, f"{faction} never used {rule} in {GAMES} games"


def test_a_weight_change_is_tried_on_the_same_deals_as_the_shipped_bot():
    """bench_bots --faction: each deal twice, the faction's seat changed and nothing else."""
    from strategies.terra_mystica.bench_bots import variant_jobs

    jobs = variant_jobs("witches", {"ability": 2.0}, 4, 5)
    assert len(jobs) == 8
    for i in range(4):
        (bots_a, seed_a, f_a, n_a), (bots_b, seed_b, f_b, n_b) = jobs[2 * i], jobs[2 * i + 1]
        assert (seed_a, f_a, n_a) == (seed_b, f_b, n_b) == (5 + i, f_a, 4)
        assert f_a.index("witches") == i % 4
        assert bots_a[i % 4] == ("greedy", {"ability": 2.0}) and bots_b[i % 4] == "greedy"
        assert [b for k, b in enumerate(bots_a) if k != i % 4] == [
            b for k, b in enumerate(bots_b) if k != i % 4]


def test_a_weight_change_for_any_faction_rotates_its_seat_over_deals_the_seed_deals(capsys):
    """bench_bots --faction any: the changed seat is deal % 4, the factions are the deal seed's
    (the same in both games), and the paired report reads each seat's own rule."""
    from strategies.terra_mystica.bench_bots import ANY, variant_jobs, variant_report

    jobs = variant_jobs(ANY, {"power_tempo": 0.0}, 4, 5)
    for i in range(4):
        (bots_a, seed_a, f_a, n_a), (bots_b, seed_b, f_b, n_b) = jobs[2 * i], jobs[2 * i + 1]
        assert (seed_a, f_a, n_a) == (seed_b, f_b, n_b) == (5 + i, None, 4)
        assert bots_a[i % 4] == ("greedy", {"power_tempo": 0.0}) and bots_b[i % 4] == "greedy"
        assert [b for k, b in enumerate(bots_a) if k != i % 4] == [
            b for k, b in enumerate(bots_b) if k != i % 4]
    variant_report(ANY, {"power_tempo": 0.0}, 2, 5, 1)
    out = capsys.readouterr().out
    assert "in a seat of every faction in turn, 2 deals" in out
    assert "its own rule" in out and "paired margin difference" in out


def test_every_engineers_bridge_counts_once_whichever_action_built_it():
    """The bench counts the Engineers' bridges at the bridge: one built after their own action
    (ACTE) and one after the board's (ACT1) count alike, and the action itself counts none."""
    s = position(["engineers", "nomads"], d={0: ["C2"]}, res={0: {"workers": 6}},
                 power={0: (0, 0, 6)})
    uses = []
    for text in ("action ACTE", "bridge C2-D4", "done"):
        uses += special_rule(s, 0, s.parse_action(text))
        do(s, text)
    s.turn = 0
    for text in ("action ACT1", "bridge C2-D3", "done"):
        uses += special_rule(s, 0, s.parse_action(text))
        do(s, text)
    assert uses.count("engineers-bridge") == 2 and uses.count("bridge") == 2
    assert uses.count("power-action") == 1


def test_the_power_table_splits_each_factions_own_rule_by_the_plan_that_played_it():
    """bench_bots' per-plan rows: a seat counts for its faction and its plan, and only its
    faction's own rule is counted, not the shared ones."""
    from collections import Counter

    from strategies.terra_mystica.bench_bots import own_rule_by_plan

    res = [
        {"bots": ["greedy", "expander", "greedy", "town-builder"],
         "factions": ["witches", "nomads", "auren", "giants"],
         "uses": [Counter({"witches-ride": 2, "town": 1}), Counter({"nomads-sandstorm": 1}),
                  Counter(), Counter({"giants-spade-action": 3})]},
        {"bots": ["expander", "greedy", "town-builder", "greedy"],
         "factions": ["witches", "auren", "nomads", "giants"],
         "uses": [Counter({"witches-ride": 1}), Counter({"auren-cult-action": 1, "town": 2}),
                  Counter(), Counter({"giants-spade-action": 1})]},
    ]
    assert own_rule_by_plan(res) == {
        ("witches", "greedy"): (1, 2), ("witches", "expander"): (1, 1),
        ("nomads", "expander"): (1, 1), ("nomads", "town-builder"): (1, 0),
        ("auren", "greedy"): (2, 1),
        ("giants", "town-builder"): (1, 3), ("giants", "greedy"): (1, 1),
    }
