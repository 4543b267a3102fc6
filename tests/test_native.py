"""The compiled build and the plain one: which runs, and that a stale build never does."""

import importlib.machinery
import os
import subprocess
import sys

import pytest

import terra_sim.games.terra_nova.state as state_module
from terra_sim import native

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def tree(tmp_path, source_newer: bool):
    (tmp_path / "terra_sim").mkdir()
    (tmp_path / "pyproject.toml").write_text("")  # a checkout, where sources get edited
    src, ext = tmp_path / "terra_sim" / "hot.py", tmp_path / "terra_sim" / f"hot{SUFFIX}"
    src.write_text("x = 1\n")
    ext.write_bytes(b"")
    old, new = 1_000_000_000, 1_000_000_100
    os.utime(src, (new, new) if source_newer else (old, old))
    os.utime(ext, (old, old) if source_newer else (new, new))
    return tmp_path


def test_a_fresh_build_runs_compiled(tmp_path, monkeypatch):
    monkeypatch.delenv("TERRA_SIM_PURE", raising=False)
    assert native.choose(tree(tmp_path, source_newer=False)) == (
        True, "compiled by mypyc (1 modules)")


def test_a_source_newer_than_its_build_runs_plain_with_a_warning(tmp_path, monkeypatch):
    monkeypatch.delenv("TERRA_SIM_PURE", raising=False)
    with pytest.warns(RuntimeWarning, match=r"terra_sim/hot\.py changed since"):
        compiled, why = native.choose(tree(tmp_path, source_newer=True))
    assert not compiled and "stale" in why


def test_an_installed_package_trusts_its_build(tmp_path, monkeypatch):
    monkeypatch.delenv("TERRA_SIM_PURE", raising=False)
    root = tree(tmp_path, source_newer=True)
    (root / "pyproject.toml").unlink()
    assert native.choose(root)[0] is True


def test_the_switch_and_an_uncompiled_tree_run_plain(tmp_path, monkeypatch):
    monkeypatch.setenv("TERRA_SIM_PURE", "1")
    assert native.choose(tree(tmp_path, source_newer=False))[0] is False
    monkeypatch.delenv("TERRA_SIM_PURE")
    (tmp_path / "terra_sim" / f"hot{SUFFIX}").unlink()
    assert native.choose(tmp_path) == (False, "plain Python (no compiled modules: built "
                                              "without mypyc or a C compiler)")


def test_the_running_build_is_the_one_announced():
    assert state_module.__file__.endswith(SUFFIX if native.COMPILED else ".py")


def test_the_switch_loads_the_sources_even_beside_a_build():
    code = ("import terra_sim.games.terra_nova.state as s, strategies.terra_nova.valuation as v;"
            "print(s.__file__, v.__file__)")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "TERRA_SIM_PURE": "1"},
                         capture_output=True, text=True, check=True).stdout.split()
    assert all(path.endswith(".py") for path in out), out
