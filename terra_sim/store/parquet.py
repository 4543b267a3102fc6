"""Parquet files of the run tables, written in plain Python.

Forked workers cannot use polars: a fork leaves polars' thread pool without its threads, and
the child's first parallel call waits for them forever. Yet a chunk's part files are best made
where the chunk is played, in parallel: made by the parent, they took about 6 ms of its CPU a
chunk, time the workers lost whenever no core was spare. So this module encodes a table the
way polars reads it back (same dtypes, same values), with nothing but the standard library: one
row group, one data page per column (numbers PLAIN, strings through a dictionary page),
gzip-compressed, each column OPTIONAL (as polars writes them, so parts written either way mix
in one scan), with min/max statistics for the numeric columns (readers skip row groups by
them). An empty table has no row group. Compiled by mypyc, it encodes about an eighth faster.

The format: https://github.com/apache/parquet-format (parquet.thrift holds every field number
used below; the footer is Thrift's compact protocol).
"""

# terra-sim: compile

import struct
import zlib
from array import array
from typing import Any

import polars as pl

MAGIC = b"PAR1"
# parquet.thrift enums
INT64, DOUBLE, BYTE_ARRAY = 2, 5, 6  # Type
OPTIONAL = 1  # FieldRepetitionType
UTF8, UINT_64 = 0, 14  # ConvertedType
PLAIN, RLE, RLE_DICTIONARY = 0, 3, 8  # Encoding
GZIP = 2  # CompressionCodec
DATA_PAGE, DICTIONARY_PAGE = 0, 2  # PageType
# Thrift compact protocol types
T_TRUE, T_FALSE, T_BYTE, T_I32, T_I64, T_BINARY, T_LIST, T_STRUCT = 1, 2, 3, 5, 6, 8, 9, 12
_SIZE = struct.Struct("<I").pack
GZIP_LEVEL = 1  # level 6 made a chunk's pages about a quarter smaller for 3-4 times the CPU

# dtype -> (physical type, array typecode (None: strings), converted type, the LogicalType
# union's field (10 INTEGER, 1 STRING, 0 none), signed)
COLUMN_TYPES: dict[Any, tuple[int, str | None, int, int, bool]] = {
    pl.Int64: (INT64, "q", -1, 10, True),
    pl.UInt64: (INT64, "Q", UINT_64, 10, False),
    pl.Float64: (DOUBLE, "d", -1, 0, True),
    pl.String: (BYTE_ARRAY, None, UTF8, 1, True),
}


def _zigzag(n: int) -> int:
    return (n << 1) ^ (n >> 63)


class Thrift:
    """Thrift's compact protocol, written field by field into one buffer: a struct is its
    fields (a header each: the field id as a delta from the previous one, and the type), then a
    stop byte."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.last = [0]  # the previous field id of each open struct

    def varint(self, n: int) -> None:
        while n > 0x7F:
            self.out.append((n & 0x7F) | 0x80)
            n >>= 7
        self.out.append(n)

    def field(self, fid: int, kind: int) -> None:
        delta = fid - self.last[-1]
        if 0 < delta <= 15:
            self.out.append(delta << 4 | kind)
        else:
            self.out.append(kind)
            self.varint(_zigzag(fid))
        self.last[-1] = fid

    def i32(self, fid: int, value: int, kind: int = T_I32) -> None:
        self.field(fid, kind)
        self.varint(_zigzag(value))

    def i64(self, fid: int, value: int) -> None:
        self.i32(fid, value, T_I64)

    def binary(self, fid: int, value: bytes) -> None:
        self.field(fid, T_BINARY)
        self.varint(len(value))
        self.out += value

    def begin(self, fid: int = 0) -> None:
        """Open a struct: a field of the struct open now, or (fid 0) an item of a list."""
        if fid:
            self.field(fid, T_STRUCT)
        self.last.append(0)

    def end(self) -> None:
        self.out.append(0)
        self.last.pop()

    def items(self, fid: int, kind: int, n: int) -> None:
        """A list field of n items of type `kind`, which follow without field headers."""
        self.field(fid, T_LIST)
        if n < 15:
            self.out.append(n << 4 | kind)
        else:
            self.out.append(0xF0 | kind)
            self.varint(n)


def _levels(values: list) -> tuple[bytes, list]:
    """The definition levels (RLE runs: 1 present, 0 null) and the values that are present."""
    runs = Thrift()  # only for its varint
    if None not in values:
        runs.varint(len(values) << 1)
        runs.out.append(1)
        return _SIZE(len(runs.out)) + runs.out, values
    present = []
    i, n = 0, len(values)
    while i < n:
        level = values[i] is not None
        j = i
        while j < n and (values[j] is not None) == level:
            j += 1
        runs.varint((j - i) << 1)
        runs.out.append(1 if level else 0)
        if level:
            present.extend(values[i:j])
        i = j
    return _SIZE(len(runs.out)) + runs.out, present


def _plain(values: list, typecode: str | None) -> bytes:
    if typecode is not None:
        return array(typecode, values).tobytes()
    parts = []
    for s in values:  # a string is its length (4 bytes) and its UTF-8
        b = s.encode()
        parts.append(_SIZE(len(b)))
        parts.append(b)
    return b"".join(parts)


def _schema_element(t: Thrift, name: str, dtype: Any) -> None:
    physical, _, converted, logical, signed = COLUMN_TYPES[dtype]
    t.begin()
    t.i32(1, physical)
    t.i32(3, OPTIONAL)
    t.binary(4, name.encode())
    if converted >= 0:
        t.i32(6, converted)
    if logical:
        t.begin(10)  # LogicalType
        t.begin(logical)
        if logical == 10:  # IntType
            t.field(1, T_BYTE)
            t.out.append(64)
            t.field(2, T_TRUE if signed else T_FALSE)
        t.end()
        t.end()
    t.end()


def _page(out: bytearray, raw: bytes, count: int, encoding: int | None) -> tuple[int, int]:
    """Append a gzip-compressed page of `count` values to `out`: a data page of values in
    `encoding`, or (None) a dictionary page. Return its sizes with the header, uncompressed
    and as written."""
    body = zlib.compress(raw, GZIP_LEVEL, 31)  # wbits 31: the gzip format
    header = Thrift()  # PageHeader
    header.i32(1, DATA_PAGE if encoding is not None else DICTIONARY_PAGE)
    header.i32(2, len(raw))
    header.i32(3, len(body))
    if encoding is None:
        header.begin(7)  # DictionaryPageHeader
        header.i32(1, count)
        header.i32(2, PLAIN)
    else:
        header.begin(5)  # DataPageHeader
        header.i32(1, count)
        header.i32(2, encoding)
        header.i32(3, RLE)
        header.i32(4, RLE)
    header.end()
    header.end()
    out += header.out
    out += body
    return len(header.out) + len(raw), len(header.out) + len(body)


def _dictionary(strings: list) -> tuple[bytes, bytes, int]:
    """Strings as a dictionary (its distinct values, PLAIN, in first-seen order) and their
    codes, RLE_DICTIONARY-encoded: a bit width of 16 (or 32) makes each group of eight codes
    bit-packed exactly as eight little-endian integers, so an array writes them."""
    index = dict.fromkeys(strings, 0)
    for k, value in enumerate(index):
        index[value] = k
    width, typecode = (16, "H") if len(index) <= 1 << 16 else (32, "I")
    codes = array(typecode, map(index.__getitem__, strings))
    codes.extend([0] * (-len(codes) % 8))
    run = Thrift()  # only for its varint
    run.out.append(width)
    run.varint(len(codes) // 8 << 1 | 1)  # one bit-packed run of that many groups
    return _plain(list(index), None), bytes(run.out) + codes.tobytes(), len(index)


def encode(columns: dict[str, list], schema: dict[str, Any]) -> bytes:
    """The Parquet file of a table given by column (`columns`, in `schema`'s order and dtypes:
    Int64, UInt64, Float64 or String; None is null). Strings are dictionary-encoded (a chunk's
    actions repeat: an eighth to a fifth of them are distinct). Raises ValueError for a column of
    another length or a dtype it does not write, and TypeError or OverflowError for a value
    that does not fit its dtype."""
    names = list(schema)
    rows = len(columns[names[0]]) if names else 0
    for name in names:
        if schema[name] not in COLUMN_TYPES:
            raise ValueError(f"column {name}: cannot write dtype {schema[name]}")
        if len(columns[name]) != rows:
            raise ValueError(f"column {name} has {len(columns[name])} values, not {rows}")
    out = bytearray(MAGIC)
    meta = Thrift()  # the column chunks, as the footer lists them
    total = compressed = 0
    for name in names if rows else ():
        physical, typecode, _, _, _ = COLUMN_TYPES[schema[name]]
        levels, present = _levels(columns[name])
        offset = len(out)
        size = stored = 0
        dictionary = typecode is None and bool(present)
        if dictionary:
            words, codes, distinct = _dictionary(present)
            size, stored = _page(out, words, distinct, None)
        data_offset = len(out)
        a, b = _page(out, levels + (codes if dictionary else _plain(present, typecode)), rows,
                     RLE_DICTIONARY if dictionary else PLAIN)
        size, stored = size + a, stored + b
        meta.begin()  # ColumnChunk
        meta.i64(2, offset)
        meta.begin(3)  # ColumnMetaData
        meta.i32(1, physical)
        encodings = [PLAIN, RLE, RLE_DICTIONARY] if dictionary else [PLAIN, RLE]
        meta.items(2, T_I32, len(encodings))
        for e in encodings:
            meta.varint(_zigzag(e))
        meta.items(3, T_BINARY, 1)
        meta.varint(len(name.encode()))
        meta.out += name.encode()
        meta.i32(4, GZIP)
        meta.i64(5, rows)
        meta.i64(6, size)
        meta.i64(7, stored)
        meta.i64(9, data_offset)
        if dictionary:
            meta.i64(11, offset)
        meta.begin(12)  # Statistics
        meta.i64(3, rows - len(present))
        if typecode is not None and present and not (
                typecode == "d" and any(v != v for v in present)):  # no order with a NaN
            pair = array(typecode, [max(present), min(present)]).tobytes()
            meta.binary(5, pair[:len(pair) // 2])  # max_value
            meta.binary(6, pair[len(pair) // 2:])  # min_value
        meta.end()
        meta.end()
        meta.end()
        total += size
        compressed += stored
    footer = Thrift()  # FileMetaData
    footer.i32(1, 1)
    footer.items(2, T_STRUCT, len(names) + 1)
    footer.begin()  # the root of the schema
    footer.binary(4, b"schema")
    footer.i32(5, len(names))
    footer.end()
    for name in names:
        _schema_element(footer, name, schema[name])
    footer.i64(3, rows)
    footer.items(4, T_STRUCT, 1 if rows else 0)
    if rows:
        footer.begin()  # RowGroup
        footer.items(1, T_STRUCT, len(names))
        footer.out += meta.out
        footer.i64(2, total)
        footer.i64(3, rows)
        footer.i64(5, len(MAGIC))
        footer.i64(6, compressed)
        footer.end()
    footer.binary(6, b"terra-sim")
    footer.items(7, T_STRUCT, len(names))
    for _ in names:  # ColumnOrder: TYPE_ORDER, an empty TypeDefinedOrder
        footer.begin()
        footer.begin(1)
        footer.end()
        footer.end()
    footer.end()
    out += footer.out
    out += _SIZE(len(footer.out))
    out += MAGIC
    return bytes(out)
