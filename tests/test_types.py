"""The library type-checks: hints on the API stay true, and the modules stay ready for a compiler
that needs them right (mypyc)."""

from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_errors(monkeypatch):
    monkeypatch.chdir(ROOT)  # the [tool.mypy] table in pyproject.toml names what to check
    out, err, status = api.run([])
    assert status == 0, out + err
