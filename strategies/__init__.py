"""Strategy registry: names -> strategy classes, and loading user bots from files or modules."""

import hashlib
import importlib
import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

from strategies.base import Strategy
from strategies.greedy import GreedyStrategy
from strategies.mcts import MctsStrategy
from strategies.plans import PLANS
from strategies.random_bot import RandomStrategy
from terra_sim.core.errors import UserError

REGISTRY: dict[str, type[Strategy]] = {
    cls.name: cls for cls in (RandomStrategy, GreedyStrategy, *PLANS, MctsStrategy)
}


def _load_file(path: Path) -> Any:
    # One module per file (the name carries a hash of the resolved path), cached in sys.modules
    # so a file named in many games is executed once and two files with the same stem differ.
    resolved = path.resolve()
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:12]
    mod_name = f"_terra_sim_bot_{resolved.stem}_{digest}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    mod_spec = importlib.util.spec_from_file_location(mod_name, resolved)
    if mod_spec is None or mod_spec.loader is None:
        raise UserError(f"cannot load strategy file {path}")
    module = importlib.util.module_from_spec(mod_spec)
    sys.modules[mod_name] = module  # dataclasses and pickling look the module up here
    try:
        mod_spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[mod_name]
        raise
    return module


def load_class(spec: str) -> type[Strategy]:
    """A strategy class from `path/to/file.py:ClassName` or `package.module:ClassName`."""
    target, _, cls_name = spec.rpartition(":")
    if not target or not cls_name:
        raise UserError(f"strategy {spec!r}: expected path/to/file.py:ClassName or "
                        "package.module:ClassName")
    try:
        if target.endswith(".py"):
            path = Path(target)
            if not path.is_file():
                raise UserError(f"strategy file not found: {target}")
            module = _load_file(path)
        else:
            module = importlib.import_module(target)
    except UserError:
        raise
    except Exception as e:  # a user's file with a syntax error or a failing import
        raise UserError(f"cannot load strategy {spec!r}: {type(e).__name__}: {e}") from None
    cls = getattr(module, cls_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Strategy)):
        raise UserError(f"{spec!r}: {cls_name} is not a Strategy subclass in {target}")
    if cls.choose is Strategy.choose:
        raise UserError(f"{spec!r}: {cls_name} does not implement choose(state, legal)")
    return cls


def resolve(spec: str) -> type[Strategy]:
    if not isinstance(spec, str):
        raise UserError(f"a strategy is named by a string, got {spec!r}")
    if spec in REGISTRY:
        return REGISTRY[spec]
    if ":" in spec:
        return load_class(spec)
    raise UserError(f"unknown strategy {spec!r} (valid: {', '.join(REGISTRY)}, "
                    "or path/to/file.py:ClassName, or package.module:ClassName)")


def _construct(cls: type[Strategy], rng: random.Random, params: dict[str, Any],
               label: str) -> Strategy:
    if not isinstance(params, dict):
        raise UserError(f"strategy {label}: parameters must be a table, got {params!r}")
    try:
        return cls(rng, **params)
    except (ValueError, TypeError) as e:
        raise UserError(f"strategy {label}: {e}") from None


def variant_spec(name: str, table: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A config table `[strategies.<name>]` -> (base, params), validated.

    The table names a shipped (or file/module) strategy as `base`; every other key is one of
    its parameters, e.g. {"base": "greedy", "weights": {"money": 0.5}} or
    {"base": "greedy", "money": 0.5}.
    """
    if not isinstance(table, dict):
        raise UserError(f"strategy variant {name!r}: expected a table, got {table!r}")
    base = table.get("base")
    if not isinstance(base, str) or not base:
        raise UserError(f"strategy variant {name!r} needs base = \"<strategy>\"")
    if base == name:
        raise UserError(f"strategy variant {name!r} cannot be its own base")
    params = {k: v for k, v in table.items() if k != "base"}
    cls = resolve(base)  # UserError for an unknown base
    _construct(cls, random.Random(0), params, f"variant {name!r} (base {base!r})")
    return base, params


def make_strategy(spec: Any, rng: random.Random, game: str | None = None) -> Strategy:
    """A strategy instance from a name, a spec string, (base, params), (base, params, name)
    or an instance. A triple names a config variant: the instance reports that name."""
    if isinstance(spec, Strategy):
        return spec
    params: dict[str, Any] = {}
    label: str | None = None
    if isinstance(spec, tuple | list):
        if len(spec) == 2:
            spec, params = spec
        elif len(spec) == 3:
            spec, params, label = spec
        else:
            raise UserError(f"strategy spec {spec!r}: expected (base, params) or "
                            "(base, params, name)")
    cls = resolve(spec)
    if game is not None and cls.games and game not in cls.games:
        raise UserError(f"strategy {spec!r} plays {', '.join(cls.games)}, not {game}")
    bot = _construct(cls, rng, params or {}, repr(label or spec))
    if label is not None:
        bot.name = label  # an instance attribute: the class keeps its registry name
    return bot
