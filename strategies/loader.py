"""Loading a user's bot class from a file (path/to/file.py:Class) or a module (pkg.mod:Class)."""

import functools
import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from strategies.base import Strategy
from terra_sim.core.errors import UserError


@functools.cache
def module_folder(module: str) -> Path:
    """The folder of an imported module's file: for a bot's module, its game's bot folder, which
    holds the tuned/ files. Kept: bots ask for it for every seat of every game and the search
    for every leaf, and building the Path each time cost 4% of a game of the fastest shipped one."""
    return Path(sys.modules[module].__file__ or ".").parent


_FOLDERS: dict[type, tuple[Path, ...]] = {}


def class_folders(cls: type) -> tuple[Path, ...]:
    """The folders of cls's module and of the modules of the classes it derives from, nearest
    first: where its tuned data is looked for, in turn. A bot defined elsewhere (a plug-in that
    subclasses greedy or a game's heuristic) so plays with the shipped bot's tuned weights and
    leaf model, unless a tuned/ beside it has its own; it used to get neither, silently."""
    got = _FOLDERS.get(cls)
    if got is None:
        folders: list[Path] = []
        for k in cls.__mro__:
            if getattr(sys.modules.get(k.__module__), "__file__", None):
                f = module_folder(k.__module__)
                if f not in folders:
                    folders.append(f)
        got = _FOLDERS[cls] = tuple(folders)
    return got


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
