"""The command line starts light: scipy and matplotlib (and polars) are imported by the commands
that use them, not by `--help` or `list`. Checked on the modules loaded, not on a clock."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("scipy", "matplotlib", "polars")
PROBE = """
import json, runpy, sys
heavy = json.loads(sys.argv[2])
sys.argv = ["terra-sim", *json.loads(sys.argv[1])]
try:
    runpy.run_module("terra_sim", run_name="__main__")
except SystemExit as e:
    code = e.code
else:
    code = 0
print(json.dumps({"code": code, "heavy": sorted(m for m in heavy if m in sys.modules)}),
      file=sys.stderr)
"""


def _loaded(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args), json.dumps(HEAVY)],
                          env=env,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("args", [("--help",), ("list", "factions"), ("list", "games"),
                                  ("report", "--help"), ("run", "--help")])
def test_light_commands_import_no_heavy_library(args):
    result = _loaded(*args)
    assert result["code"] in (0, None)
    assert result["heavy"] == [], f"terra-sim {' '.join(args)} imported {result['heavy']}"


def test_the_probe_sees_a_heavy_import():
    # The same probe on a command that needs the analysis does see the libraries.
    result = _loaded("report", str(ROOT / "no-such-run"))
    assert result["code"] == 2 and "polars" in result["heavy"]
