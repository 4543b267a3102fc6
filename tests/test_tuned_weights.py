"""Tuned weights are data beside a game's bots: a bot plays with them unless told not to, a
faction's own file wins for that faction's seat, and a plan builds on its family's file."""

import random
import statistics

import pytest

from strategies.loader import load_class
from strategies.weighted import WeightedStrategy

BOTS = '''
from strategies.weighted import WeightedStrategy


class Base(WeightedStrategy):
    name = "base"
    family = "base"
    default_weights = {"a": 1.0, "b": 2.0, "c": 3.0}

    def choose(self, state, legal):
        if not self.seated:
            self.seat(state)
        return legal[0]


class Plan(Base):
    name = "plan"
    plan_weights = {"c": 30.0}
'''


@pytest.fixture
def kit(tmp_path):
    (tmp_path / "kit_bots.py").write_text(BOTS)
    tuned = tmp_path / "tuned"
    tuned.mkdir()
    (tuned / "base.toml").write_text("[provenance]\nseed = 1\n\n[weights]\na = 10.0\nb = 20.0\n")
    (tuned / "base-hens.toml").write_text("[weights]\na = 100.0\n")
    return (load_class(f"{tmp_path / 'kit_bots.py'}:Base"),
            load_class(f"{tmp_path / 'kit_bots.py'}:Plan"))


def test_a_bot_plays_its_tuned_weights_unless_told_not_to(kit):
    base, _ = kit
    assert base(random.Random(0)).w == {"a": 10.0, "b": 20.0, "c": 3.0}
    assert base(random.Random(0), tuned=False).w == {"a": 1.0, "b": 2.0, "c": 3.0}
    # a config's own weights stay on top of the tuned ones
    assert base(random.Random(0), b=5.0).w == {"a": 10.0, "b": 5.0, "c": 3.0}


def test_a_factions_file_wins_for_that_factions_seat(kit):
    base, _ = kit
    bot = base(random.Random(0), b=5.0)
    bot.seat("hens")
    assert bot.w == {"a": 100.0, "b": 5.0, "c": 3.0}
    other = base(random.Random(0))
    other.seat("foxes")  # no file of its own: the all-factions file
    assert other.w == {"a": 10.0, "b": 20.0, "c": 3.0}
    untuned = base(random.Random(0), tuned=False)
    untuned.seat("hens")
    assert untuned.w == {"a": 1.0, "b": 2.0, "c": 3.0}


def test_a_bot_told_a_folder_plays_the_tuned_files_in_it_and_only_them(kit, tmp_path):
    """tuned = "<folder>": another tuning's files take the shipped ones' place, for the shared
    file, a faction's own and a plan's family alike; a faction without a file there plays the
    folder's shared file, and a folder without the bot's files its defaults."""
    base, plan = kit
    other = tmp_path / "other"
    other.mkdir()
    (other / "base.toml").write_text("[weights]\na = 11.0\n")
    (other / "base-foxes.toml").write_text("[weights]\nb = 22.0\n")
    bot = base(random.Random(0), tuned=str(other))
    assert bot.w == {"a": 11.0, "b": 2.0, "c": 3.0}
    assert bot.tuned_folder == other
    bot.seat("foxes")
    assert bot.w == {"a": 1.0, "b": 22.0, "c": 3.0}
    assert seated(base, "hens", tuned=str(other)).w == {"a": 11.0, "b": 2.0, "c": 3.0}
    assert seated(plan, "hens", tuned=str(other)).w == {"a": 11.0, "b": 2.0, "c": 30.0}
    empty = tmp_path / "empty"
    empty.mkdir()
    assert seated(base, "hens", tuned=str(empty)).w == {"a": 1.0, "b": 2.0, "c": 3.0}
    assert base(random.Random(0)).tuned_folder is None


@pytest.mark.parametrize("tuned", ["no/such/folder", "", 1, None])
def test_a_tuned_setting_that_names_no_folder_is_refused(kit, tuned):
    base, _ = kit
    with pytest.raises(ValueError, match="tuned must be true, false or a folder"):
        base(random.Random(0), tuned=tuned)


def test_a_runs_code_hash_covers_the_tuned_files_a_bot_plays_and_no_others(kit, tmp_path):
    """A resumed run notices another tuning: the files of the folder a bot plays are part of
    what it plays by, the shipped ones when it plays those, none when it plays untuned."""
    from terra_sim.run.code import code_files

    base, _ = kit
    other = tmp_path / "other"
    other.mkdir()
    (other / "base.toml").write_text("[weights]\na = 11.0\n")
    files = dict(code_files(base(random.Random(0), tuned=str(other))))
    assert files["tuned_folder/base.toml"] == other / "base.toml"
    assert f"{tmp_path.name}/tuned/base.toml" not in files  # the shipped files are not played
    shipped = dict(code_files(base(random.Random(0))))
    assert f"{tmp_path.name}/tuned/base.toml" in shipped and "tuned_folder/base.toml" not in shipped
    # told untuned, a bot reads no tuned file: a retuning does not change what it plays by
    assert not any("tuned" in n for n in dict(code_files(base(random.Random(0), tuned=False))))


def test_a_plan_builds_its_departures_on_its_familys_tuned_weights(kit, tmp_path):
    _, plan = kit
    assert plan(random.Random(0)).w == {"a": 10.0, "b": 20.0, "c": 30.0}
    (tmp_path / "tuned" / "plan.toml").write_text("[weights]\nb = 7.0\nc = 8.0\n")
    # the plan's own file is a whole tuning of the plan: used as it is
    fresh = load_class(f"{tmp_path / 'kit_bots.py'}:Plan")
    from strategies.weighted import _tuned

    _tuned.cache_clear()
    assert fresh(random.Random(0)).w == {"a": 1.0, "b": 7.0, "c": 8.0}


@pytest.fixture
def hens(kit, tmp_path, monkeypatch):
    """Arranges the kit: its default weights, a plan's departures if given, and the hens'
    tuned file (tuned/base-hens.toml)."""
    from strategies.weighted import _tuned

    base, plan = kit

    def arrange(defaults, tuned, plan_weights=None):
        monkeypatch.setattr(base, "default_weights", defaults)
        if plan_weights is not None:
            monkeypatch.setattr(plan, "plan_weights", plan_weights)
        (tmp_path / "tuned" / "base-hens.toml").write_text(
            "[weights]\n" + "".join(f"{k} = {v}\n" for k, v in tuned.items()))
        _tuned.cache_clear()

    yield arrange
    _tuned.cache_clear()


def seated(cls, faction="hens", **params):
    bot = cls(random.Random(0), **params)
    bot.seat(faction)
    return bot


def test_a_plans_departures_scale_with_its_familys_tuning(kit, hens):
    """A plan that sets a weight to ten times its default plays ten times the tuned value;
    one that adds to a weight whose default is zero, or whose tuning crossed zero, adds as
    much to the tuned one."""
    _, plan = kit
    hens({"a": 1.0, "b": 2.0, "c": 3.0, "d": 0.0}, {"b": -1.0, "c": 0.25, "d": -0.1},
         plan_weights={"b": 5.0, "c": 30.0, "d": 0.5})
    assert seated(plan).w == pytest.approx({"a": 1.0, "b": 2.0, "c": 2.5, "d": 0.4})
    # untuned, the plan plays its weights as written
    assert plan(random.Random(0), tuned=False).w == {"a": 1.0, "b": 5.0, "c": 30.0, "d": 0.5}


def test_a_plans_biases_scale_with_its_familys_tuning(kit, hens):
    """A plan's biases are played at its family's tuned scale for the seat's faction: the
    median ratio of the tuned weights to the defaults, over the weights of some size that the
    plan leaves alone. Greedy itself, and any bot untuned, keeps its biases as written."""
    base, plan = kit
    hens({"a": 1.0, "b": 2.0, "c": 3.0, "d": 0.1, "e": 4.0},
         {"a": 0.5, "b": 0.5, "c": 99.0, "d": 5.0, "e": 3.0})
    bot = plan(random.Random(0))
    # base.toml holds a (10x) and b (10x): the tuning's scale is read from the weights it tuned
    assert bot.scale == pytest.approx(10.0)
    bot.seat("hens")
    # c is the plan's own weight and d too small to say a scale: a 0.5x, b 0.25x, e 0.75x
    assert bot.scale == pytest.approx(0.5)
    assert plan(random.Random(0), tuned=False).scale == 1.0
    assert seated(base).scale == 1.0


def test_a_tuned_plan_plays_its_lean_share_of_its_plan(kit, hens):
    """A plan's `lean` scales its departures from the defaults and its biases, tuned; untuned it
    plays its plan whole, and greedy has none to scale. A class sets it; a config or a spec
    (`plan:lean=1`) overrides it."""
    base, plan = kit
    hens({"a": 1.0, "b": 2.0, "c": 3.0, "d": 0.0}, {"a": 2.0, "b": 4.0, "c": 6.0, "d": 1.0},
         plan_weights={"b": 6.0, "c": 30.0, "d": 0.5})
    whole = seated(plan)
    halved = type("Halved", (plan,), {"lean": 0.5, "__module__": plan.__module__})
    half, given, again = seated(halved), seated(plan, lean=0.5), seated(halved, lean=1)
    assert (given.w, given.scale) == (half.w, half.scale)
    assert (again.w, again.scale) == (whole.w, whole.scale)
    # whole: b 3x its default, c 10x, d +0.5; half: b 2x, c 5.5x, d +0.25, on the tuned values
    assert whole.w == pytest.approx({"a": 2.0, "b": 12.0, "c": 60.0, "d": 1.5})
    assert half.w == pytest.approx({"a": 2.0, "b": 8.0, "c": 33.0, "d": 1.25})
    assert half.scale == pytest.approx(whole.scale / 2) and whole.scale == pytest.approx(2.0)
    untuned = plan(random.Random(0), tuned=False)
    assert untuned.w == {"a": 1.0, "b": 6.0, "c": 30.0, "d": 0.5} and untuned.scale == 1.0
    assert seated(base, lean=0.5).scale == 1.0
    with pytest.raises(ValueError, match="lean must be a number >= 0"):
        plan(random.Random(0), lean=-1)


def test_every_shipped_plan_plays_its_biases_at_a_positive_scale():
    """Terra Nova's tunings shrink the valuation (its plans' biases shrink with it), Terra
    Mystica's move it both ways, within a factor of two (the files shipped span 0.60-1.57), and
    Terramara's plans, tuned whole, have no family and keep their biases as written."""
    from strategies.registry import roster
    from terra_sim.games import get_game

    for game, low, high in (("terra-nova", 0.3, 1.0), ("terra-mystica", 0.5, 2.0),
                            ("terramara", 1.0, 1.0)):
        factions = [""] + list(getattr(get_game(game).data, "factions", {}))
        for cls in roster(game).values():
            if not issubclass(cls, WeightedStrategy):
                continue
            for f in factions:
                scale = cls.bias_scale(f) / cls.lean  # the tuning's scale, the plan's share apart
                if cls.name == cls.family or not cls.family:
                    assert scale == 1.0, (game, cls.name, f)
                else:
                    assert low <= scale <= high, (game, cls.name, f, scale)


def test_a_tuned_file_naming_an_unknown_weight_is_refused(kit, tmp_path):
    from strategies.weighted import _tuned

    (tmp_path / "tuned" / "base.toml").write_text("[weights]\nzeta = 1.0\n")
    _tuned.cache_clear()
    with pytest.raises(ValueError, match="unknown weights.*zeta"):
        kit[0](random.Random(0))
    _tuned.cache_clear()



def test_the_shipped_tuned_files_name_only_known_weights_and_say_how_they_were_made():
    import tomllib
    from pathlib import Path

    from strategies.registry import roster
    from terra_sim.games import GAMES

    files = 0
    for game in GAMES:
        for cls in roster(game).values():
            folder = Path(__import__(cls.__module__, fromlist=["x"]).__file__).parent / "tuned"
            for path in folder.glob(f"{cls.name}*.toml"):
                data = tomllib.loads(path.read_text())
                assert set(data["weights"]) <= set(cls.default_weights), path
                prov = data["provenance"]
                for key in ("command", "seed", "games_played", "date", "holdout_tuned_margin"):
                    assert key in prov, (path, key)
                files += 1
    assert files >= 1


def test_the_strength_bench_seats_both_sides_alike_and_scores_the_top_seat():
    """strategies.strength's head to head: each deal is played once each way, the same bot
    names in the same seats, half the seats tuned; a shared top score splits the win."""
    from collections import Counter

    from strategies.strength import head_to_head_jobs, tuned_share

    jobs = head_to_head_jobs(["greedy", "expander"], 4, 40, 5)
    assert len(jobs) == 40
    seats: Counter = Counter()
    for a, b in zip(jobs[::2], jobs[1::2], strict=True):
        assert a[1] == b[1] and [x[0] for x in a[0]] == [x[0] for x in b[0]]
        assert [x[1]["tuned"] for x in a[0]] == [not x[1]["tuned"] for x in b[0]]
        assert sum(x[1]["tuned"] for x in a[0]) == 2
        for bots, *_ in (a, b):
            seats.update(s for s, x in enumerate(bots) if x[1]["tuned"])
    assert seats == {s: 20 for s in range(4)}  # every seat tuned in one game of every pair
    t, u = ("greedy", {"tuned": True}, "greedy"), ("greedy", {"tuned": False}, "greedy-untuned")
    results = [{"bots": [t, u], "vp": [10, 8]}, {"bots": [t, u], "vp": [7, 9]},
               {"bots": [t, u, u], "vp": [9, 9, 1]}]
    assert tuned_share(results) == (1.5, 3)


def test_the_strength_bench_seats_the_search_bot_in_turn_and_scores_its_seat():
    from strategies.strength import search_bot, search_jobs, search_score

    bot = search_bot("mcts:simulations=30:horizon=1")
    assert bot == ("mcts", {"simulations": 30, "horizon": 1}, "mcts:simulations=30:horizon=1")
    jobs = search_jobs(bot, ["greedy", "expander"], 4, 8, 5)
    assert [j[0].index(bot) for j in jobs] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert all(b[0] in ("greedy", "expander") for j in jobs for b in j[0] if b != bot)
    # a bot of the mix by its bare name: its seat is told apart from the mix's seats of it
    greedy = search_bot("greedy", ("greedy", "expander"))
    assert greedy == ("greedy", {}, "greedy (measured seat)")
    mixed = search_jobs(greedy, ["greedy"], 4, 4, 5)
    assert [j[0].index(greedy) for j in mixed] == [0, 1, 2, 3]
    assert all(j[0].count(greedy) == 1 and len(set(map(str, j[0]))) == 2 for j in mixed)
    results = [{"bots": jobs[0][0], "vp": [90, 90, 80, 70], "seconds": 2.0},
               {"bots": jobs[1][0], "vp": [100, 60, 60, 60], "seconds": 1.0}]
    wins, margin, secs = search_score(results, bot)
    assert wins == 0.5 and secs == 1.5
    assert margin == ((90 - 80) + (60 - 220 / 3)) / 2


def test_the_strength_bench_pairs_two_search_bots_on_the_same_games(capsys):
    """--against: the second bot takes the search seat of the very same games, and the two are
    compared game by game (each game's difference, with its t interval)."""
    import math
    import statistics

    from scipy import stats as sps

    from strategies.strength import main, paired, search_bot, search_jobs, swap

    a, b = search_bot("mcts:budget=1"), search_bot("mcts:budget=2")
    for job in search_jobs(a, ["greedy", "expander"], 4, 8, 5):
        twin = swap(job, a, b)
        assert twin[1:] == job[1:]  # the same seed, factions and player count
        assert [x if x != a else b for x in job[0]] == twin[0] and b not in job[0]
    mean, lo, hi = paired([1.0, 0.0, 1.0, 0.5], [0.0, 0.0, 1.0, 1.0])
    d = [1.0, 0.0, 0.0, -0.5]
    half = sps.t.ppf(0.975, 3) * statistics.stdev(d) / 2
    assert mean == statistics.mean(d)
    assert (lo, hi) == pytest.approx((mean - half, mean + half))
    one = paired([1.0], [0.0])
    assert one[0] == 1.0 and all(math.isnan(x) for x in one[1:])  # one game: no spread

    main(["--game", "terra-nova", "--players", "2", "--games", "4", "--workers", "1",
          "--search", "mcts:budget=1", "--against", "mcts:budget=2"])
    out = capsys.readouterr().out
    assert "2 players: one seat against the tuned mix" in out and ", 4 games" in out
    assert "  mcts:budget=1: wins" in out and "  mcts:budget=2: wins" in out
    assert "mcts:budget=1 less mcts:budget=2, game by game: wins" in out


def test_the_strength_bench_sets_a_rival_tuning_against_the_shipped_one(tmp_path, capsys):
    """--rival FOLDER: the head to head's other side plays the folder's tuned files, seat for
    seat as the untuned side would; only the shipped side's top seats count as its wins."""
    from strategies.strength import head_to_head_jobs, main, tuned_share

    jobs = head_to_head_jobs(["greedy"], 4, 8, 5, rival=str(tmp_path))
    for a, b in zip(jobs[::2], jobs[1::2], strict=True):
        sides = [(x[1]["tuned"], y[1]["tuned"]) for x, y in zip(a[0], b[0], strict=True)]
        assert sides.count((True, str(tmp_path))) == sides.count((str(tmp_path), True)) == 2
        assert {x[2] for x in a[0]} == {"greedy", "greedy-rival"}
    t, r = ("greedy", {"tuned": True}, "greedy"), ("greedy", {"tuned": "x"}, "greedy-rival")
    assert tuned_share([{"bots": [t, r], "vp": [7, 9]}, {"bots": [r, t], "vp": [5, 9]}]) == (1, 2)
    with pytest.raises(SystemExit, match="not a folder of tuned files"):
        main(["--game", "terra-nova", "--rival", str(tmp_path)])
    (tmp_path / "greedy.toml").write_text("[weights]\ntown = 9.0\n")
    main(["--game", "terra-nova", "--players", "2", "--games", "4", "--workers", "1",
          "--rival", str(tmp_path)])
    out = capsys.readouterr().out
    assert "self-play, rival mix" in out and "against the rival side" in out


@pytest.mark.parametrize("argv, message", [
    (["--rival", ".", "--search", "mcts"], "give one of --rival and --search"),
    (["--against", "mcts"], "give --search too"),
    (["--search", "mcts", "--against", "mcts"], "the same bot as --search"),
    (["--by-faction"], "give --search too"),
    (["--games", "0"], "--games must be at least 1"),
])
def test_the_strength_bench_refuses_a_pairing_it_cannot_make(argv, message):
    from strategies.strength import main

    with pytest.raises(SystemExit, match=message):
        main(["--game", "terra-nova", *argv])


def test_the_strength_bench_sets_the_search_seat_beside_the_mix_by_faction():
    """--by-faction: each faction the search seat played, its games, wins and margins beside
    those of the mix's seats of that faction in the same games, the search's lift first, with
    a Welch interval worked here by hand."""
    import math

    from scipy import stats as sps

    from strategies.strength import by_faction, faction_table, search_bot

    s = search_bot("mcts")
    g = ("greedy", {}, "greedy")
    results = [  # factions by seat; the search sits in seat 0, then 1, then 0, then 2
        {"bots": [s, g, g], "factions": ["a", "b", "c"], "vp": [30, 30, 0]},
        {"bots": [g, s, g], "factions": ["b", "a", "c"], "vp": [40, 10, 10]},
        {"bots": [s, g, g], "factions": ["b", "a", "c"], "vp": [20, 20, 20]},
        {"bots": [g, g, s], "factions": ["a", "c", "b"], "vp": [5, 20, 35]},
    ]
    rows = {r[0]: r for r in by_faction(results, s)}
    assert set(rows) == {"a", "b"}  # c was never the search's faction
    # a: the search won half of game 1 (margin 30 - 15) and none of game 2 (10 - 25); the
    # mix's a: a third of game 3's three-way tie (margin 0), none of game 4 (5 - 27.5)
    a = rows["a"]
    assert a[:7] == ("a", 2, 2, 0.25, 1 / 6, 0.0, -11.25)
    # b: the search's b in games 3 and 4 (a third, margin 0; all, 35 - 12.5); the mix's b in
    # games 1 and 2 (half, 15; all, 30)
    b = rows["b"]
    assert b[:7] == ("b", 2, 2, (1 / 3 + 1) / 2, 0.75, 11.25, 22.5)

    def welch(mine, theirs):
        v1, v2 = (statistics.variance(x) / len(x) for x in (mine, theirs))
        df = (v1 + v2) ** 2 / (v1 ** 2 / (len(mine) - 1) + v2 ** 2 / (len(theirs) - 1))
        half = sps.t.ppf(0.975, df) * math.sqrt(v1 + v2)
        d = statistics.mean(mine) - statistics.mean(theirs)
        return d - half, d + half

    assert a[7:] == pytest.approx(welch([15, -15], [0, -22.5]))
    assert b[7:] == pytest.approx(welch([0, 22.5], [15, 30]))
    assert [r[0] for r in by_faction(results, s)] == ["a", "b"]  # lift 11.25 before -11.25
    # a faction no mix seat played: its mix columns are unknown, and it comes last
    alone = by_faction(results + [{"bots": [s, g], "factions": ["d", "e"], "vp": [9, 0]}], s)
    assert [r[0] for r in alone] == ["a", "b", "d"]
    assert alone[2][:4] == ("d", 1, 0, 1.0) and all(math.isnan(x) for x in alone[2][4:5] +
                                                    alone[2][6:])
    table = faction_table(results, s)
    assert len(table) == 3 and table[1].split()[0] == "a" and table[2].split()[7] == "-11.2"



def test_a_plug_in_variant_of_a_shipped_bot_plays_its_tuned_weights_unless_it_has_its_own(
        tmp_path):
    from strategies.terra_mystica.greedy import GreedyStrategy

    (tmp_path / "variant.py").write_text(
        "from strategies.terra_mystica.greedy import GreedyStrategy\n\n\n"
        "class Variant(GreedyStrategy):\n    name = 'variant'\n")
    variant = load_class(f"{tmp_path / 'variant.py'}:Variant")
    shipped = GreedyStrategy(random.Random(0))
    shipped.seat("witches")
    bot = variant(random.Random(0))
    bot.seat("witches")
    assert bot.w == shipped.w != GreedyStrategy(random.Random(0), tuned=False).w
    # a tuned file beside the variant is its own, and wins
    (tmp_path / "tuned").mkdir()
    (tmp_path / "tuned" / "variant-witches.toml").write_text("[weights]\ncoin = 9.0\n")
    from strategies.weighted import _tuned

    _tuned.cache_clear()  # the file is new: its absence was kept
    bot = variant(random.Random(0))
    bot.seat("witches")
    assert bot.w["coin"] == 9.0
