"""Bots whose play is a set of weights: each game's greedy and its plans.

A plan is its game's greedy with `plan_weights` departing from the game's `default_weights`;
a config may change any weight, by name directly (`coin = 0.5`) or inside `weights`, and the
look-ahead's width (`top_k`). Bad values are refused here, once, for every game.

Tuned weights (`terra-sim tune`) are data in `strategies/<game>/tuned/`: `<bot>.toml` for
every faction, `<bot>-<faction>.toml` for one. A bot plays with them unless told
`tuned = false`, or told `tuned = "<folder>"` to play with the files in that folder instead
(another tuning's, say an earlier commit's, to set it against the shipped one). A plan without
files of its own builds its departures on its family's (greedy's) tuned weights, so one tuning
lifts every plan. A departure keeps its size on the tuned scale (`depart`), and so do a plan's
biases (`scale`); a tuned plan may play only a share of both (`lean`).
"""

import functools
import random
import statistics
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from strategies.base import Strategy
from strategies.loader import class_folders

# The weights of some size that say a tuning's scale; the smaller ones (a coin in bowl I) are
# ratios of noise.
SCALE_MIN = 0.3


class WeightedStrategy(Strategy):
    default_weights: ClassVar[dict[str, float]] = {}  # the game's valuation weights
    plan_weights: ClassVar[dict[str, float]] = {}  # a plan's departures from them
    family: ClassVar[str] = ""  # the bot whose tuned weights a plan builds on
    # The share of its plan a tuned plan plays: its departures and biases times this. A plan
    # played whole can cost its seat far more than its idea is worth (a game's README says).
    # A config or spec may set it (`<plan>:lean=1` plays the plan whole).
    lean: ClassVar[float] = 1.0
    params: ClassVar[dict[str, Any]] = {"top_k": 6, "weights": {}, "tuned": True, "lean": 1.0}

    def __init_subclass__(cls, **kwargs: Any):
        super().__init_subclass__(**kwargs)
        # `terra-sim list strategies` shows a plan's weights as its default `weights`
        cls.params = {"top_k": 6, "weights": dict(cls.plan_weights), "tuned": True,
                      "lean": cls.lean}

    def __init__(self, rng: random.Random, **params: Any):
        defaults = self.default_weights
        direct = {k: params.pop(k) for k in list(params) if k in defaults}
        super().__init__(rng, **params)
        # the weights a config gave (the `weights` parameter's default only shows the plan's)
        given = {**dict(params.get("weights") or {}), **direct}
        unknown = set(given) - set(defaults)
        if unknown:
            raise ValueError(f"{self.name}: unknown weights {sorted(unknown)} "
                             f"(valid: {', '.join(defaults)})")
        for k, v in given.items():
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise ValueError(f"{self.name}: weight {k} must be a number, got {v!r}")
        tuned = self.p["tuned"]
        if not isinstance(tuned, bool) and not (isinstance(tuned, str) and tuned
                                                and Path(tuned).is_dir()):
            raise ValueError(f"{self.name}: tuned must be true, false or a folder of tuned "
                             f"files, got {tuned!r}")
        # the folder of tuned files the bot was told to play with, if not its own
        self.tuned_folder = Path(tuned) if isinstance(tuned, str) else None
        top_k = self.p["top_k"]
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ValueError(f"{self.name}: top_k must be a positive integer, got {top_k!r}")
        self.noise = 0.0  # random jitter on look-ahead scores; the search's playouts set it
        self.memo: dict[str, Any] | None = None  # a search's scratch for this state (playouts)
        lean = self.p["lean"]
        if isinstance(lean, bool) or not isinstance(lean, int | float) or lean < 0:
            raise ValueError(f"{self.name}: lean must be a number >= 0, got {lean!r}")
        self.given = {k: float(v) for k, v in given.items()}
        self.w: dict[str, float] = {**self.start_weights(tuned=tuned, lean=lean), **self.given}
        # what a plan's biases are multiplied by: the scale of the valuation they are added to
        self.scale = self.bias_scale(tuned=tuned, lean=lean)
        self.seated = False

    @classmethod
    def start_weights(cls, faction: str = "", tuned: bool | str = True,
                      lean: float | None = None) -> dict[str, float]:
        """The weights the bot plays with before a config's own: the game's defaults and the
        plan's departures (at its `lean`, or the one given, when tuned), or the tuned files that
        replace them (see the module's doc; `tuned` a folder: the files in it)."""
        if tuned is False:
            return {**cls.default_weights, **cls.plan_weights}
        d = cls.default_weights
        k = cls.lean if lean is None else lean
        leaned = {n: d[n] + k * (v - d[n]) for n, v in cls.plan_weights.items()}
        w = {**d, **leaned}
        for name, plan in ((cls.name, {}), (cls.family, leaned)):
            got = cls.tuned_for(name, faction, tuned) if name else None
            if got is not None:
                return cls.depart({**cls.default_weights, **got}, plan)
        return w

    @classmethod
    def tuned_for(cls, name: str, faction: str,
                  tuned: bool | str = True) -> dict[str, float] | None:
        """`name`'s tuned weights for the faction: its own file, else the all-factions one (in
        the folder `tuned` names, if it names one)."""
        for stem in ((f"{name}-{faction}", name) if faction else (name,)):
            got = tuned_file(cls, stem, tuned if isinstance(tuned, str) else None)
            if got is not None:
                return got
        return None

    @classmethod
    def depart(cls, base: dict[str, float], plan: dict[str, float]) -> dict[str, float]:
        """A plan's departures applied to tuned weights, as they depart from the defaults: a
        plan that doubles a default weight doubles its tuned value. Where the default is zero,
        or the tuning took the weight across zero, a ratio would say nothing or the opposite
        (a town-builder caring less for towns), so the plan adds what it adds to the default.
        Tuning rescales a faction's whole valuation (one file's territory is a tenth of the
        default's), so a departure set on the default scale and copied as it is would make the
        plan care about little else."""
        out = dict(base)
        for k, v in plan.items():
            d, b = cls.default_weights[k], base[k]
            out[k] = v / d * b if d * b > 0 else b + v - d
        return out

    @classmethod
    def bias_scale(cls, faction: str = "", tuned: bool | str = True,
                   lean: float | None = None) -> float:
        """The scale a plan's biases (its extra liking for an action, a tile, a palace) are
        played at: the family's tuning's scale for the faction, the median ratio of its tuned
        weights to the defaults over the weights the plan leaves alone (those of some size; a
        weight the file does not hold was not tuned and says nothing of the tuning's scale).
        The biases are set by hand on the defaults' scale, in VP. A tuning that halves most of
        a faction's valuation would otherwise leave them weighing twice what they were meant
        to (strategies/README.md has the case that showed it). Times the plan's `lean`. 1 for
        greedy (its file was tuned with its own biases) and for a bot played untuned."""
        if tuned is False or cls.name == cls.family:
            return 1.0
        share = cls.lean if lean is None else lean
        got = cls.tuned_for(cls.family, faction, tuned) if cls.family else None
        if got is None:
            return share
        d = cls.default_weights
        ratios = [got[k] / v for k, v in d.items()
                  if abs(v) >= SCALE_MIN and k in got and k not in cls.plan_weights]
        scale = statistics.median(ratios) if ratios else 1.0
        # a tuning that took most weights across zero says nothing of size: keep the biases
        return share * (scale if scale > 0 else 1.0)

    @staticmethod
    def faction_of(player: Any) -> str:
        """A player's faction as the tuned files name it (`<bot>-<faction>.toml`)."""
        return str(player.faction.slug)

    def seat(self, faction: str) -> None:
        """Told its seat's faction on its first decision: a faction's tuned weights, if there
        are any, replace the bot's (its config's own weights stay on top)."""
        self.seated = True
        tuned = self.p["tuned"]
        if tuned is not False:
            self.w = {**self.start_weights(faction, tuned, self.p["lean"]), **self.given}
            self.scale = self.bias_scale(faction, tuned, self.p["lean"])

    def play_out(self, state: Any, legal: list, memo: dict[str, Any], noise: float) -> Any:
        """choose() as a search's playout policy: scores jittered by `noise`, the look-ahead
        kept in the search's memo of this state."""
        self.memo, self.noise = memo, noise
        a = self.choose(state, legal)
        self.memo = None
        return a

    def memoised(self, key: str, compute: Callable[[], Any]) -> Any:
        """compute(), kept in the search's memo of this state when a playout asks: a search
        reaches the same state again and again, and the look-ahead is a pure function of it."""
        memo = self.memo
        if memo is None:
            return compute()
        got = memo.get(key)
        if got is None:
            got = memo[key] = compute()
        return got


B = TypeVar("B", bound=WeightedStrategy)


class Seated(Generic[B]):
    """A search's bots for every seat: one per faction, with that faction's tuned weights (a
    Chaos Magician's playout should not play a Giant's game), made when first needed."""

    def __init__(self, make: Callable[[], B], faction: Callable[[Any], str]):
        self.make = make
        self.faction = faction  # the bots' faction_of
        self.bots: dict[str, B] = {}

    def __getitem__(self, player: Any) -> B:
        f = self.faction(player)
        bot = self.bots.get(f)
        if bot is None:
            bot = self.bots[f] = self.make()
            bot.seat(f)
        return bot

    def to_move(self, state: Any) -> B:
        return self[state.players[state.current_player()]]

    @staticmethod
    def guides_and_policies(cls: type[B], rng: random.Random,
                            noise: float) -> tuple["Seated[B]", "Seated[B]"]:
        """A search heuristic's bots: guides (the tuned bot as it plays) and playout policies
        (its two best candidates, jittered by `noise`)."""

        def policy() -> B:
            bot = cls(rng, top_k=2)
            bot.noise = noise
            return bot

        return Seated(lambda: cls(rng), cls.faction_of), Seated(policy, cls.faction_of)


def tuned_file(cls: type[WeightedStrategy], stem: str,
               folder: str | None = None) -> dict[str, float] | None:
    """The [weights] of tuned/<stem>.toml beside cls's bots or the bots it derives from (the
    nearest that has one), or of <stem>.toml in `folder` if one is named; else None."""
    known = tuple(cls.default_weights)
    if folder is not None:
        return _tuned(Path(folder), stem, known)
    for f in class_folders(cls):
        got = _tuned(f / "tuned", stem, known)
        if got is not None:
            return got
    return None


@functools.cache  # a bot is made for every seat of every game, and asks for a few files
def _tuned(folder: Path, stem: str, known: tuple[str, ...]) -> dict[str, float] | None:
    path = folder / f"{stem}.toml"
    if not path.exists():
        return None
    w = tomllib.loads(path.read_text()).get("weights")
    if not isinstance(w, dict):
        raise ValueError(f"{path}: no [weights] table")
    unknown = set(w) - set(known)
    if unknown:  # a weight the valuation dropped since the tuning: retune
        raise ValueError(f"{path}: unknown weights {sorted(unknown)}")
    return {k: float(v) for k, v in w.items()}
