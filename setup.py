"""Compile the hot modules with mypyc when the build can; otherwise they stay plain Python.

A module opts in with a line `# terra-sim: compile` of its own (a game's folder marks its own
modules). Each compiled module is an optional extension: with no C compiler, or with
TERRA_SIM_PURE=1 set while installing, the package installs as plain Python and behaves the
same. terra_sim/native.py decides at import time which of the two runs.
"""

import os
from pathlib import Path

from setuptools import setup

MARK = "# terra-sim: compile"


def marked_modules() -> list[str]:
    found = []
    for top in ("terra_sim", "strategies"):
        for path in sorted(Path(top).rglob("*.py")):
            if any(line.strip() == MARK for line in path.read_text().splitlines()[:40]):
                found.append(path.as_posix())
    return found


def native_extensions() -> list:
    if os.environ.get("TERRA_SIM_PURE") == "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    # Third-party packages are not installed in the isolated build: their types are Any here.
    try:
        extensions = mypycify([*marked_modules(), "--ignore-missing-imports"], opt_level="3")
    except (Exception, SystemExit) as e:  # mypyc exits on a type error: install plain instead
        print(f"terra-sim: not compiling ({type(e).__name__}: {e}); plain Python it is")
        return []
    for ext in extensions:
        ext.optional = True  # a failed compile leaves the plain module in place
    return extensions


setup(ext_modules=native_extensions())
