"""The code a run was played with: a hash of each strategy's source and of the tuned data beside
it, recorded in the manifest, so that a resumed run (or a Dask worker) with other bot code or
other tuned weights is noticed instead of mixing games of two versions of a bot in one run."""

import hashlib
import inspect
import random
import sys
from pathlib import Path
from typing import Any

from terra_sim.run.config import RunConfig, strategy_spec


def _source_file(module: Any) -> Path | None:
    path = getattr(module, "__file__", None)
    if not path:
        return None
    path = Path(path)
    if path.suffix != ".py":  # a compiled build: its source sits beside it
        path = path.with_name(path.name.split(".")[0] + ".py")
    return path if path.is_file() else None


def _code_modules(*classes: type) -> list[Any]:
    """The modules a strategy's code lives in: those of its classes and their base classes, and
    the modules of their own package (or file) that they use, followed to the end."""
    seen: dict[str, Any] = {}
    todo = [k.__module__ for cls in classes for k in cls.__mro__ if k.__module__ != "builtins"]
    tops = {name.split(".")[0] for name in todo}
    while todo:
        name = todo.pop()
        module = sys.modules.get(name)
        if name in seen or module is None:
            continue
        seen[name] = module
        for value in vars(module).values():
            used = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__",
                                                                          None)
            if isinstance(used, str) and used.split(".")[0] in tops and used not in seen:
                todo.append(used)
    return [seen[k] for k in sorted(seen)]


def code_files(bot: Any) -> list[tuple[str, Path | None]]:
    """What a bot plays by, as (name, file): the source of its code modules, those of the parts
    it holds (a search bot's game heuristic, bound at run time), and the tuned data (weights, a
    search's leaf model) in a `tuned/` folder beside any of them, or in the folder the bot was
    told to play with instead (its `tuned_folder`), and none for a bot told `tuned = false`.
    None: a module whose source is not on disk."""
    top = type(bot).__module__.split(".")[0]
    parts = [type(v) for v in vars(bot).values()
             if type(v).__module__.split(".")[0] == top and not inspect.isclass(v)]
    out: list[tuple[str, Path | None]] = []
    folders: set[Path] = set()
    for module in _code_modules(type(bot), *parts):
        source = _source_file(module)
        out.append((module.__name__, source))
        if source is not None:
            folders.add(source.parent / "tuned")
    given = getattr(bot, "tuned_folder", None)  # tuned files the bot was told to play with
    if given is not None:
        folders = {given}
    elif getattr(bot, "p", {}).get("tuned") is False:
        folders = set()  # a bot told to play untuned reads none: a retuning leaves it as it was
    for folder in sorted(folders):
        label = "tuned_folder" if folder == given else f"{folder.parent.name}/tuned"
        out += [(f"{label}/{f.name}", f) for f in sorted(folder.glob("*.toml"))]
    return out


def strategy_code(cfg: RunConfig) -> dict[str, str]:
    """A hash of each strategy's code and tuned data, by strategy name: a resumed run compares
    them, so that games of two versions of a bot do not mix in one run unnoticed."""
    import strategies

    out = {}
    for name in cfg.strategies or ():
        bot = strategies.make_strategy(strategy_spec(cfg, name), random.Random(0), cfg.game)
        digest = hashlib.sha256()
        for label, path in code_files(bot):
            digest.update(label.encode() + b"\0")
            digest.update(path.read_bytes() if path else b"?")
        out[name] = digest.hexdigest()[:16]
    return out
