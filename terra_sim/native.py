"""Which build runs: the modules compiled by mypyc (setup.py), or the same modules as plain Python.

Plain Python runs when TERRA_SIM_PURE=1 is set, or when a compiled module is older than its
source (an edit or a checkout since the last `pip install -e .`), because a stale build would
run old code. terra_sim/__init__.py imports this first, before any compiled module can load.
"""

import importlib.abc
import importlib.machinery
import os
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

PACKAGES = ("terra_sim", "strategies")
ROOT = Path(__file__).resolve().parent.parent


def compiled_modules(root: Path = ROOT) -> dict[Path, Path]:
    """The compiled extension of each module that has one, and its source."""
    found = {}
    for top in PACKAGES:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            for ext in (root / top).rglob(f"*{suffix}"):
                source = ext.with_name(ext.name[: -len(suffix)] + ".py")
                if source.is_file():
                    found[ext] = source
    return found


class SourceFirst(importlib.abc.MetaPathFinder):
    """Finds this project's modules as .py sources, passing over compiled extensions."""

    def find_spec(self, name: str, path: Any, target: ModuleType | None = None) -> Any:
        if path is None or name.partition(".")[0] not in PACKAGES:
            return None
        loaders = (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)
        for entry in path:
            spec = importlib.machinery.FileFinder(entry, loaders).find_spec(name, target)
            if spec is not None:
                return spec
        return None


def choose(root: Path = ROOT) -> tuple[bool, str]:
    """(whether the compiled build runs, why) for the tree at `root`."""
    if os.environ.get("TERRA_SIM_PURE") == "1":
        return False, "plain Python (TERRA_SIM_PURE=1)"
    modules = compiled_modules(root)
    if not modules:
        return False, "plain Python (no compiled modules: built without mypyc or a C compiler)"
    # Only a checkout is edited; an installed package's file times are the installer's.
    checkout = (root / "pyproject.toml").is_file()
    stale = sorted(src.relative_to(root).as_posix() for ext, src in modules.items()
                   if checkout and src.stat().st_mtime > ext.stat().st_mtime)
    if stale:
        warnings.warn(f"terra-sim runs as plain Python: {', '.join(stale)} changed since the "
                      "compiled build; `pip install -e .` rebuilds it", RuntimeWarning,
                      stacklevel=2)
        return False, f"plain Python ({len(stale)} compiled modules are stale)"
    return True, f"compiled by mypyc ({len(modules)} modules)"


COMPILED, STATUS = choose()
if not COMPILED and not any(isinstance(f, SourceFirst) for f in sys.meta_path):
    sys.meta_path.insert(0, SourceFirst())
