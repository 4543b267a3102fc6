"""The part files made without polars read back as polars would have built them, mix with the
parts polars writes, carry statistics that filters may trust, and can be made in a forked
worker after the parent has used polars' threads (where polars itself would hang)."""

import io
import json
import math
import os
import select
import signal

import polars as pl
import pytest

from terra_sim.games import game_slugs
from terra_sim.run import chunk, runner
from terra_sim.store import parquet, schema

SCHEMA = {"i": pl.Int64, "u": pl.UInt64, "f": pl.Float64, "s": pl.String}


def read(data: bytes) -> pl.DataFrame:
    return pl.read_parquet(io.BytesIO(data))


def test_values_nulls_and_extremes_read_back_exactly():
    columns = {
        "i": [None, -2**63, 2**63 - 1, 0, None, None, 7],
        "u": [0, 2**64 - 1, None, 5, 6, 7, 2**63],
        "f": [1.5, float("nan"), None, -0.0, math.inf, -math.inf, 1e-300],
        "s": ["é☃ 𝄞", "", None, "x" * 70_000, "a", None, "line\nbreak"],
    }
    got = read(parquet.encode(columns, SCHEMA))
    want = pl.DataFrame(columns, schema=SCHEMA)
    assert got.schema == want.schema
    assert got.equals(want)
    assert math.copysign(1, got["f"][3]) == -1  # -0.0 stays negative


def test_many_columns_and_rows_and_an_empty_table():
    wide = {f"c{k}": pl.Int64 for k in range(40)}  # past 15: the long list and field forms
    columns = {c: list(range(k, k + 300)) for k, c in enumerate(wide)}
    assert read(parquet.encode(columns, wide)).equals(pl.DataFrame(columns, schema=wide))
    empty = read(parquet.encode({k: [] for k in SCHEMA}, SCHEMA))
    assert empty.height == 0 and empty.schema == pl.Schema(SCHEMA)


def test_strings_of_any_count_of_distinct_values_and_all_null():
    schema = {"s": pl.String, "n": pl.String}
    for distinct in (1, 7, 9, 70_000):  # past 65,536: codes of 32 bits instead of 16
        values = [f"v{k % distinct}" for k in range(max(distinct, 1_000) + 3)]
        columns = {"s": values, "n": [None] * len(values)}
        got = read(parquet.encode(columns, schema))
        assert got.equals(pl.DataFrame(columns, schema=schema)), distinct


def test_a_scan_mixes_them_with_polars_parts_and_filters_by_their_statistics(tmp_path):
    ours = {"i": [5, 6, 10], "u": [1, 2, 2**64 - 1], "f": [0.5, 1.5, 2.5], "s": ["a", "b", "c"]}
    (tmp_path / "ours.parquet").write_bytes(parquet.encode(ours, SCHEMA))
    pl.DataFrame({"i": [1, 20], "u": [3, 4], "f": [9.0, None], "s": ["p", None]},
                 schema=SCHEMA).write_parquet(tmp_path / "polars.parquet")
    scan = pl.scan_parquet(sorted(tmp_path.glob("*.parquet")))
    assert scan.collect().height == 5
    assert scan.filter(pl.col("i") > 5).collect()["i"].sort().to_list() == [6, 10, 20]
    assert scan.filter(pl.col("i") > 20).collect().height == 0
    assert scan.filter(pl.col("u") > 2**63).collect()["s"].to_list() == ["c"]  # unsigned order
    assert scan.filter(pl.col("f") < 1.0).collect()["i"].to_list() == [5]


def test_a_part_with_nan_keeps_no_bounds_that_would_hide_rows(tmp_path):
    (tmp_path / "p.parquet").write_bytes(parquet.encode(
        {"i": [1, 2], "u": [1, 2], "f": [float("nan"), 3.0], "s": ["a", "b"]}, SCHEMA))
    assert pl.scan_parquet(tmp_path / "p.parquet").filter(pl.col("f") > 2).collect().height == 2


def test_what_it_cannot_write_is_refused():
    with pytest.raises(ValueError, match="cannot write dtype"):
        parquet.encode({"b": [True]}, {"b": pl.Boolean})
    with pytest.raises(ValueError, match="has 1 values, not 2"):
        parquet.encode({"i": [1, 2], "u": [1]}, {"i": pl.Int64, "u": pl.UInt64})
    with pytest.raises(ValueError, match="has 1 values, not 0"):  # an empty first column too
        parquet.encode({"i": [], "u": [1]}, {"i": pl.Int64, "u": pl.UInt64})
    with pytest.raises(OverflowError):
        parquet.encode({"i": [2**63]}, {"i": pl.Int64})


@pytest.mark.parametrize("slug", game_slugs())
def test_every_games_run_rows_read_back_as_polars_builds_them(slug, monkeypatch):
    seen = {}
    real = schema.encode_chunk

    def capture(columns, schemas):
        seen.update(columns=columns, schemas=schemas)
        return real(columns, schemas)

    monkeypatch.setattr(schema, "encode_chunk", capture)
    cfg, _ = runner._resolve(None, None, {"game": slug, "games": 2, "strategies": "random"})
    _, parts, stats = chunk.play_chunk(json.dumps(cfg.content(), sort_keys=True), [0, 1])
    assert stats["games"] == 2
    for table in schema.TABLES:
        want = pl.DataFrame(seen["columns"][table], schema=seen["schemas"][table])
        got = read(parts[table])
        assert got.schema == want.schema and got.equals(want), table
    assert read(parts["actions"]).height > 0


def test_a_forked_child_encodes_after_the_parent_used_polars_threads():
    # The parent starts polars' thread pool; a forked child that then called polars would wait
    # for threads it does not have. The encoder must not.
    pl.DataFrame({"a": range(200_000)}).group_by(pl.col("a") % 7).agg(pl.len())
    columns = {"i": list(range(5000)), "u": [1] * 5000, "f": [0.5] * 5000,
               "s": ["x"] * 5000}
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: encode, report the size, leave at once
        try:
            os.write(w, str(len(parquet.encode(columns, SCHEMA))).encode())
        finally:
            os._exit(0)
    os.close(w)
    ready: list = []
    try:
        ready, _, _ = select.select([r], [], [], 60)
        assert ready, "the forked child hung encoding a part"
        assert int(os.read(r, 64)) == len(parquet.encode(columns, SCHEMA))
    finally:
        os.close(r)
        if not ready:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
