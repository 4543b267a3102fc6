"""Loading and validating declarative game data (TOML), with what-if overrides."""

import builtins
import copy
import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any

from terra_sim.core.errors import DataError


def load_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise DataError(f"{path.name}: not valid TOML: {e}") from None


def apply_overrides(data: dict[str, Any], overrides: dict[str, Any], where: str = "") -> dict:
    """A deep copy of `data` with `overrides` merged in; an override must name existing keys."""
    out = copy.deepcopy(data)
    for key, value in overrides.items():
        path = f"{where}.{key}" if where else key
        if key not in out:
            choices = ", ".join(sorted(map(str, out))) if isinstance(out, dict) else ""
            raise DataError(f"override {path}: no such field (valid: {choices})")
        if isinstance(value, dict) and isinstance(out[key], dict):
            out[key] = apply_overrides(out[key], value, path)
        elif isinstance(out[key], dict):
            raise DataError(f"override {path}: expected a table of its fields "
                            f"({', '.join(sorted(map(str, out[key])))}), got {value!r}")
        else:
            out[key] = copy.deepcopy(value)
    return out


def content_hash(obj: Any) -> str:
    """A short stable hash of JSON-able content (data sets are recorded with it)."""
    text = json.dumps(obj, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Field:
    """Typed access to one table of a data file: each error names the file and the field."""

    def __init__(self, table: dict[str, Any], where: str):
        if not isinstance(table, dict):
            raise DataError(f"{where}: expected a table, got {type(table).__name__}")
        self.table = table
        self.where = where

    def _get(self, key: str, default: Any) -> Any:
        if key in self.table:
            return self.table[key]
        if default is not None:
            return default
        raise DataError(f"{self.where}.{key}: missing")

    def int(self, key: str, default: int | None = None, lo: int = 0, hi: int = 10**6) -> int:
        v = self._get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise DataError(f"{self.where}.{key}: expected an integer in {lo}..{hi}, got {v!r}")
        return v

    def str(self, key: builtins.str, default: builtins.str | None = None,
            choices: Any = None) -> builtins.str:
        v = self._get(key, default)
        if not isinstance(v, str) or (choices is not None and v not in choices):
            valid = f" (one of {', '.join(choices)})" if choices is not None else ""
            raise DataError(f"{self.where}.{key}: expected a string{valid}, got {v!r}")
        return v

    def ints(self, key: builtins.str, length: builtins.int, default: list | None = None,
             lo: builtins.int = 0) -> tuple:
        v = self._get(key, default)
        ok = isinstance(v, list) and len(v) == length
        if not ok or not all(isinstance(x, int) and not isinstance(x, bool) and x >= lo for x in v):
            raise DataError(f"{self.where}.{key}: expected {length} integers >= {lo}, got {v!r}")
        return tuple(v)

    def table_of(self, key: builtins.str) -> "Field":
        return Field(self._get(key, None), f"{self.where}.{key}")
