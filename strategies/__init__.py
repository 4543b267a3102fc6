"""Strategy registry: names -> strategy classes, and loading user bots from files or modules."""

import importlib
import importlib.util
import random
from pathlib import Path
from typing import Any

from strategies.base import Strategy
from strategies.random_bot import RandomStrategy
from terra_sim.core.errors import UserError

REGISTRY: dict[str, type[Strategy]] = {cls.name: cls for cls in (RandomStrategy,)}


def load_class(spec: str) -> type[Strategy]:
    """A strategy class from `path/to/file.py:ClassName` or `package.module:ClassName`."""
    target, _, cls_name = spec.rpartition(":")
    try:
        if target.endswith(".py"):
            path = Path(target)
            if not path.is_file():
                raise UserError(f"strategy file not found: {target}")
            mod_spec = importlib.util.spec_from_file_location(f"_bot_{path.stem}", path)
            module = importlib.util.module_from_spec(mod_spec)
            mod_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except UserError:
        raise
    except Exception as e:
        raise UserError(f"cannot load strategy {spec!r}: {type(e).__name__}: {e}") from None
    cls = getattr(module, cls_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Strategy)):
        raise UserError(f"{spec!r}: {cls_name} is not a Strategy subclass in {target}")
    return cls


def resolve(spec: str) -> type[Strategy]:
    if spec in REGISTRY:
        return REGISTRY[spec]
    if ":" in spec:
        return load_class(spec)
    raise UserError(f"unknown strategy {spec!r} (valid: {', '.join(REGISTRY)}, "
                    "or path/to/file.py:ClassName, or package.module:ClassName)")


def make_strategy(spec: Any, rng: random.Random, game: str | None = None) -> Strategy:
    """A strategy instance from a name, a spec string, a (name, params) pair or an instance."""
    if isinstance(spec, Strategy):
        return spec
    params: dict[str, Any] = {}
    if isinstance(spec, tuple | list):
        spec, params = spec
    cls = resolve(spec)
    try:
        return cls(rng, **params)
    except ValueError as e:
        raise UserError(str(e)) from None
