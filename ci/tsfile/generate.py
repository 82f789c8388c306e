#!/usr/bin/env python3
"""Write TsFiles with the official Apache TsFile library (the `tsfile` package
on PyPI, C++ with Python bindings) and, next to each, a JSON file with every
value it was given. crossdec's streaming reader (`tsfile/`, its tests and
the harness's `tsfile_oracle` / `tsfile_reader` tests)
decodes the files and must get the same values back.

    generate.py --out DIR [--seed N] [--files N] [--max-rows N]
                [--all] [--matrix] [--read-back] [--page-points N]
                [--queries N] [--official-statistics]
    generate.py --out tsfile/tests/fixtures --scan-fixtures
    generate.py --out tsfile/tests/fixtures/size-lies --size-lies
    generate.py --out tsfile/tests/fixtures --statistics-fixtures
    generate.py --out harness/tests/fixtures/tsfile --statistics-fixtures
    generate.py --inspect FILE...

Each file is either non-aligned (tree model: per-series encoding and
compression) or aligned (table model: one encoding per data type and one
compression per file, nulls as bitmaps). Series shapes: constant, monotone,
random walk, full range, edge values (int MIN/MAX/0/+-1, NaN, +-inf, -0.0,
subnormals, the GORILLA terminators) and spiked (a slow walk with extremes
mixed in: see spiked()). Page sizes vary from a few points to thousands,
so pages hit block and run boundaries. --matrix: one tree-model file per
compression with every type x encoding, and table-model files that
together hold every pair and compression (write_matrix_table).

JSON values: integers for BOOLEAN (0/1), INT32, INT64 (and TIMESTAMP; DATE
as the stored yyyymmdd integer); the IEEE bit pattern as an unsigned integer
for FLOAT and DOUBLE (so NaNs compare exactly); hex for TEXT (and STRING,
BLOB); null for a null cell.

--queries N: for every table-model file (write_table; --matrix and the tree
files are tree model, --large is left out) also run N filtered queries
through the official reader and write them beside the file as
`<file>.queries.json`:

    {"file": "gen-7-001.tsfile", "table": "tb", "library": "2.5.0",
     "columns": {"f0": 2, "f1": 5},          # every FIELD column: type id
     "queries": [{"kind": "in_page", "api": "query_table",
                  "columns": ["f1", "f0"], "start": 5, "end": 9,
                  "offset": null, "limit": null,
                  "devices": {"tb.dev0": [[5, "6162", 7], [6, null, 8]]},
                  "order": ["tb.dev0"]}]}

`start` and `end` are inclusive; `offset` / `limit` (null: none /
unlimited) skip / keep rows over the whole answer, across devices, after
the time filter. `devices` holds, per device with a row in the answer
("table.tag"), its rows [time, cell of each of `columns`]; `order` the
order the devices come in. The reader returns one device's rows after
another, devices in the order of their ids, each device's rows in time
order, and a row wherever the device has a time in the window, whatever
its selected cells hold. `devices` / `order` are the rows of the same
columns over every time (one query_table call), cut to the window and to
offset / limit; every answer of the official reader is held to them, and
where it differs (a bug of the library's with nulls in BOOLEAN columns,
see build_queries) the query also has `official`: {"devices": ...,
"order": ...} as the reader returned them.

A `query_table` query may also have `tag`: a tag filter the official
reader applied (its `tag_filter` argument): {"op": "eq" | "neq" | "lt" |
"lteq" | "gt" | "gteq", "value": v} or {"op": "between" | "not_between",
"lower": a, "upper": b} on the tag column, tags compared as byte strings;
`devices` / `order` then hold only the devices it passes (not in the
committed scan fixtures' queries).

`api` names the call: `query_table` (Python: time range),
`query_table_by_row` (Python: offset / limit over every time, so start /
end are the i64 extremes) or `tsfile_reader_query_table` (the library's C
API through ctypes: time range and offset / limit, which the Python
binding does not take together). `kind` names the case the window was
made for: in_page, across_pages, across_chunks, exact, off_by_one,
everything, before, after, gap, point, extreme, inverted (start > end:
empty). The queries draw on a random stream of their own: the files and
their .json are the same with or without --queries.

--scan-fixtures writes the committed scan fixtures (fixed seed
SCAN_SEED, SCAN_QUERIES queries each): `scan-<compression>-<n>.tsfile`,
its `.json` with the official read-back and its `.queries.json`. Each is
one table written in several batches with a flush after each round (a
chunk group per batch, so several per device), small pages (several per
chunk) beside batches of one page, nulls (sparse, page-aligned runs that
make all-null pages, whole batches, all-null rows) and every data type
the table writer takes. After writing, the script parses the files' chunk
and page headers and fails unless the set has all that. Regenerate with

    /opt/crossdec-venv/bin/python ci/tsfile/generate.py \
        --out tsfile/tests/fixtures --scan-fixtures

(the official writer is deterministic: same library, same bytes).
--official-statistics (with --read-back): the JSON also has
`official_statistics`, the index's statistics of every series as the
official reader reads them (`get_timeseries_metadata`): [{"device",
"measurement" ("" for a table device's time column), "count", "start",
"end", "chunks"}]. --statistics-fixtures writes the committed
`stats-tree.tsfile`, `stats-table.tsfile` and a copy of the latter with
the index flags Java's writer sets (fixed content, with
read-back and official statistics; the same files go to
tsfile/tests/fixtures and harness/tests/fixtures/tsfile): between them
every way a header says whether statistics follow (chunks of one page and
of several, all-null value pages in both, series of one chunk and of
several, tree and table model, Java's aligned flags). --size-lies writes the committed
size-lies fixtures: for each compression a file and the official reader's
verdict on it with its first page's uncompressed size replaced by lies
(`size-lies.json`).

--inspect prints a file's chunk groups, chunk headers and pages.

The official Python reader hands TEXT / STRING / BLOB values back cut at
the first NUL byte, so the generated values hold none.
"""

import argparse
import ctypes
import datetime
import importlib.metadata
import json
import os
import random
import struct
import sys

import tsfile as t

DT = t.TSDataType
ENC = t.TSEncoding
COMP = t.Compressor

# The encodings crossdec decodes, per data type, as the C++ writer accepts them
# (it refuses BOOLEAN RLE: "invalid argument").
ENCODINGS = {
    DT.BOOLEAN: [ENC.PLAIN],
    DT.INT32: [ENC.PLAIN, ENC.RLE, ENC.TS_2DIFF, ENC.GORILLA],
    DT.INT64: [ENC.PLAIN, ENC.RLE, ENC.TS_2DIFF, ENC.GORILLA],
    DT.FLOAT: [ENC.PLAIN, ENC.GORILLA],
    DT.DOUBLE: [ENC.PLAIN, ENC.GORILLA],
    DT.TEXT: [ENC.PLAIN],
}
COMPRESSIONS = [COMP.UNCOMPRESSED, COMP.SNAPPY, COMP.LZ4, COMP.ZSTD]

# Every type x encoding the C++ writer (PyPI tsfile 2.5) accepts, and every
# compression it offers (--all; docs/reference/tsfile-encodings.md has the table).
ALL_ENCODINGS = {
    DT.BOOLEAN: [ENC.PLAIN],
    DT.INT32: [ENC.PLAIN, ENC.RLE, ENC.TS_2DIFF, ENC.GORILLA, ENC.ZIGZAG, ENC.CHIMP, ENC.SPRINTZ, ENC.RLBE],
    DT.INT64: [ENC.PLAIN, ENC.RLE, ENC.TS_2DIFF, ENC.GORILLA, ENC.ZIGZAG, ENC.CHIMP, ENC.SPRINTZ, ENC.RLBE],
    DT.FLOAT: [ENC.PLAIN, ENC.GORILLA, ENC.TS_2DIFF, ENC.CHIMP, ENC.SPRINTZ, ENC.RLBE],
    DT.DOUBLE: [ENC.PLAIN, ENC.GORILLA, ENC.TS_2DIFF, ENC.CHIMP, ENC.SPRINTZ, ENC.RLBE, ENC.CAMEL],
    DT.TEXT: [ENC.PLAIN, ENC.DICTIONARY],
}
ALL_COMPRESSIONS = COMPRESSIONS + [COMP.GZIP, COMP.LZO, COMP.LZMA2]
PAGE_POINTS = [2, 3, 7, 8, 9, 64, 128, 129, 130, 131, 500, 10000]

I32 = (-(2**31), 2**31 - 1)
I64 = (-(2**63), 2**63 - 1)


def f32_bits(x):
    return struct.unpack(">I", struct.pack(">f", x))[0]


def f64_bits(x):
    return struct.unpack(">Q", struct.pack(">d", x))[0]


def from_f64_bits(b):
    return struct.unpack(">d", struct.pack(">Q", b))[0]


def from_f32_bits(b):
    return struct.unpack(">f", struct.pack(">I", b))[0]


F32_EDGES = [0x7FC00000, 0x7F800000, 0xFF800000, 0x80000000, 0, 1, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF]
F64_EDGES = [0x7FF8000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x8000000000000000, 0, 1,
             0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF]


# Series shapes; main() adds "spiked" (twice as likely) for every file but
# the committed scan fixtures, whose random stream stays as it was.
SHAPES = ["constant", "monotone", "walk", "full", "edges"]


def series(rng, dtype, n, tree=False):
    """n values of dtype (Python values as the writer takes them). The Python
    binding stores DOUBLE NaNs as the canonical NaN (payloads are not kept),
    and the tree model's row records refuse non-finite FLOAT values (`tree`),
    so the series keep to what the library can store."""
    shape = rng.choice(SHAPES)
    if shape == "spiked" and dtype in (DT.INT32, DT.INT64, DT.TIMESTAMP, DT.FLOAT, DT.DOUBLE):
        return spiked(rng, dtype, n, tree)
    if shape == "spiked":
        shape = "walk"
    if dtype in (DT.INT32, DT.INT64, DT.TIMESTAMP):
        lo, hi = I32 if dtype == DT.INT32 else I64
        step = rng.choice([1, 10, 1000, 2**20, 2**40])
        v = rng.randint(-1000, 1000) * (rng.choice([1, hi // 1000]))
        out = []
        for _ in range(n):
            out.append(v)
            if shape == "monotone":
                v += rng.randint(0, step)
            elif shape == "walk":
                v += rng.randint(-step, step)
            elif shape == "full":
                v = rng.randint(lo, hi)
            elif shape == "edges":
                v = rng.choice([lo, lo + 1, -1, 0, 1, hi - 1, hi])
            v = max(lo, min(hi, v))
        return out
    if dtype in (DT.FLOAT, DT.DOUBLE):
        is32 = dtype == DT.FLOAT
        x = rng.uniform(-1e6, 1e6)
        step = rng.choice([0.5, 0.01, 1.0, 1e-9, 1e9])
        out = []
        for _ in range(n):
            if shape == "constant":
                v = x
            elif shape in ("monotone", "walk"):
                x += step * (rng.uniform(0, 2) if shape == "monotone" else rng.uniform(-1, 1))
                v = x
            elif shape == "full":
                # Random bit patterns, finite or not; FLOAT NaNs only canonical.
                if is32:
                    b = rng.getrandbits(32)
                    if (b >> 23) & 0xFF == 0xFF and b & 0x7FFFFF:
                        b = 0x7FC00000
                    v = from_f32_bits(b)
                else:
                    v = from_f64_bits(rng.getrandbits(64))
            else:
                v = from_f32_bits(rng.choice(F32_EDGES)) if is32 else from_f64_bits(rng.choice(F64_EDGES))
            if is32:
                v = from_f32_bits(f32_bits(v)) if v == v else v
                if tree and (v != v or v in (float("inf"), float("-inf"))):
                    v = 0.5
            elif v != v:
                v = from_f64_bits(0x7FF8000000000000)
            out.append(v)
        return out
    if dtype == DT.BOOLEAN:
        first = rng.random() < 0.5
        if shape == "constant":
            return [first] * n
        p = 0.5 if shape == "full" else 0.1
        out, cur = [], first
        for _ in range(n):
            if rng.random() < p:
                cur = not cur
            out.append(cur)
        return out
    if dtype == DT.DATE:
        # The writer takes years 1000 to 9999.
        lo, hi = datetime.date(1000, 1, 1).toordinal(), datetime.date(9999, 12, 31).toordinal()
        d = rng.randint(datetime.date(1900, 1, 1).toordinal(), datetime.date(2100, 1, 1).toordinal())
        out = []
        for _ in range(n):
            if shape == "monotone":
                d = min(hi, d + rng.randint(0, 40))
            elif shape == "walk":
                d = max(lo, min(hi, d + rng.randint(-40, 40)))
            elif shape == "full":
                d = rng.randint(lo, hi)
            elif shape == "edges":
                d = rng.choice([lo, lo + 1, hi - 1, hi, datetime.date(1970, 1, 1).toordinal(),
                                datetime.date(2000, 2, 29).toordinal(), datetime.date(2024, 12, 31).toordinal()])
            out.append(datetime.date.fromordinal(d))
        return out
    if dtype == DT.BLOB:
        # No NUL byte: the Python reader cuts values at the first one.
        if shape == "constant":
            b = bytes(rng.randint(1, 255) for _ in range(rng.randint(0, 8)))
            return [b] * n
        return [bytes(rng.randint(1, 255) for _ in range(rng.randint(0, 16))) for _ in range(n)]
    if dtype == DT.STRING:
        chars = "abcxyz019-_ \u00e9\u00fc\u6f22\u5b57\U0001f600"
        if shape == "constant":
            return ["".join(rng.choice(chars) for _ in range(rng.randint(0, 6)))] * n
        return ["".join(rng.choice(chars) for _ in range(rng.randint(0, 12))) for _ in range(n)]
    # TEXT
    if shape == "constant":
        s = "".join(rng.choice("abcxyz") for _ in range(rng.randint(0, 10)))
        return [s] * n
    return ["".join(rng.choice("abcdefghij0123456789-_ ") for _ in range(rng.randint(0, 40))) for _ in range(n)]


# Pairs (a, b): b's bits are a's minus 2^30 (2^62), so the first FIRE error
# after a block's first value a is exactly -2^30 (-2^62), the mapped error
# MIN the Java and C++ SPRINTZ readers read with opposite signs.
F32_MIN_ERROR_PAIRS = [(0x00000000, 0xC0000000), (0x80000000, 0x40000000), (0x3F800000, 0xFF800000)]
F64_MIN_ERROR_PAIRS = [(0, 0xC000000000000000), (0x8000000000000000, 0x4000000000000000),
                       (0x3FF0000000000000, 0xFFF0000000000000)]
# Extremes of each float type: +-inf, NaN (canonical and with a payload),
# MAX, MIN, the smallest subnormal of each sign, -0.0.
F32_EXTREMES = [0x7F800000, 0xFF800000, 0x7FC00000, 0x7FC00100, 0x7F7FFFFF, 0xFF7FFFFF, 1, 0x80000001, 0x80000000]
F64_EXTREMES = [0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0x7FF8002000000000,
                0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 1, 0x8000000000000001, 0x8000000000000000]


def spiked(rng, dtype, n, tree=False):
    """A slow walk with the type's extremes mixed in: at random rows (so
    before, inside, at the end of SPRINTZ blocks of 9 and in their tails),
    alone or in runs, and sometimes a pair whose first FIRE error is exactly
    -2^30 (-2^62). The official SPRINTZ writer is lossy after some of them
    (errors of 2^30 and more wrap); the oracle is what its reader returns."""
    is_int = dtype in (DT.INT32, DT.INT64, DT.TIMESTAMP)
    if is_int:
        lo, hi = I32 if dtype == DT.INT32 else I64
        x = rng.randint(-1000, 1000)
    else:
        x = rng.uniform(-100, 100)
    p = rng.choice([0.002, 0.01, 0.05, 0.2])
    out = []
    while len(out) < n:
        x += rng.choice([0, 1, -1, 2]) if is_int else rng.choice([0.0, 0.5, -0.5, 1.0])
        r = rng.random()
        if r < p:
            if is_int:
                v = rng.choice([lo, hi, 0, -1, lo + 1, hi - 1])
            elif dtype == DT.FLOAT:
                v = from_f32_bits(rng.choice(F32_EXTREMES))
            else:
                v = from_f64_bits(rng.choice(F64_EXTREMES))
            out += [v] * rng.choice([1, 1, 1, 2, 9])
        elif r < p * 1.5:
            if is_int:
                step = 2**30 if dtype == DT.INT32 else 2**62
                a = rng.randint(lo + step, hi)
                out += [a, a - step]
            elif dtype == DT.FLOAT:
                out += [from_f32_bits(b) for b in rng.choice(F32_MIN_ERROR_PAIRS)]
            else:
                out += [from_f64_bits(b) for b in rng.choice(F64_MIN_ERROR_PAIRS)]
        else:
            out.append(x if not is_int else max(lo, min(hi, x)))
    out = out[:n]
    if dtype == DT.FLOAT:
        out = [v if v != v else from_f32_bits(f32_bits(v)) for v in out]
        if tree:
            # The tree model's row records refuse non-finite FLOAT values.
            out = [0.5 if v != v or v in (float("inf"), float("-inf")) else v for v in out]
    return out


def to_json(dtype, v):
    if v is None:
        return None
    if dtype == DT.BOOLEAN:
        return int(v)
    if dtype in (DT.INT32, DT.INT64, DT.TIMESTAMP):
        return v
    if dtype == DT.DATE:
        # As the file stores it: an INT32 yyyymmdd.
        return v.year * 10000 + v.month * 100 + v.day if isinstance(v, datetime.date) else v
    if dtype == DT.FLOAT:
        return f32_bits(v)
    if dtype == DT.DOUBLE:
        return f64_bits(v)
    if isinstance(v, bytes):
        return v.hex()
    return v.encode().hex()


def timestamps(rng, n):
    t0 = rng.choice([0, 1_700_000_000_000, rng.randint(-10**12, 10**12)])
    gap = rng.choice([1, 1000, 60_000])
    out, cur = [], t0
    for _ in range(n):
        out.append(cur)
        cur += gap + (rng.randint(0, gap) if rng.random() < 0.5 else 0)
    return out


def configure(rng, type_encodings=None, compression=COMP.UNCOMPRESSED):
    # Set after the writer exists: creating a writer resets the global config.
    cfg = {
        "page_writer_max_point_num_": rng.choice(PAGE_POINTS),
        "time_encoding_type_": ENC.TS_2DIFF,
        "time_compress_type_": compression,
        "default_compression_type_": compression,
    }
    for dtype, key in [(DT.BOOLEAN, "boolean"), (DT.INT32, "int32"), (DT.INT64, "int64"),
                       (DT.FLOAT, "float"), (DT.DOUBLE, "double"), (DT.TEXT, "string")]:
        if type_encodings and dtype in type_encodings:
            cfg[key + "_encoding_type_"] = type_encodings[dtype]
    t.set_tsfile_config(cfg)
    return cfg["page_writer_max_point_num_"]


def write_tree(rng, path, max_rows):
    """Non-aligned series: per-series encoding and compression."""
    w = t.TsFileWriter(path)
    page_points = configure(rng)
    meta = {"model": "tree", "page_points": page_points, "series": []}
    for d in range(rng.randint(1, 2)):
        device = f"root.d{d}"
        cols = []
        for m in range(rng.randint(1, 5)):
            dtype = rng.choice(list(ENCODINGS))
            enc = rng.choice(ENCODINGS[dtype])
            comp = rng.choice(COMPRESSIONS)
            name = f"s{m}"
            w.register_timeseries(device, t.TimeseriesSchema(name, dtype, enc, comp))
            cols.append((name, dtype, enc, comp))
        n = rng.randint(1, max_rows)
        times = timestamps(rng, n)
        values = {name: series(rng, dtype, n, tree=True) for name, dtype, _, _ in cols}
        nulls = {name: rng.choice([0.0, 0.0, 0.2]) for name, _, _, _ in cols}
        present = {name: [rng.random() >= nulls[name] for _ in range(n)] for name, _, _, _ in cols}
        for i in range(n):
            fields = [t.Field(name, values[name][i], dtype) for name, dtype, _, _ in cols if present[name][i]]
            if fields:
                w.write_row_record(t.RowRecord(device, times[i], fields))
        for name, dtype, enc, comp in cols:
            pts = [[times[i], to_json(dtype, values[name][i])] for i in range(n) if present[name][i]
                   and any(present[c[0]][i] for c in cols)]
            meta["series"].append({"device": device, "measurement": name, "dtype": int(dtype),
                                   "encoding": int(enc), "compression": int(comp), "points": pts})
    w.close()
    return meta


def write_rows(w, tab, meta, tag, fields, times, cols, encoding_of, comp):
    """Fill the table model's tablet with one device's rows (None: a null),
    write it, and record each field's points as the JSON's series."""
    n = len(times)
    for i in range(n):
        tab.add_timestamp(i, times[i])
        tab.add_value_by_name("id", i, tag)
        for name, _ in fields:
            if cols[name][i] is not None:
                tab.add_value_by_name(name, i, cols[name][i])
    w.write_table(tab)
    for name, dtype in fields:
        meta["series"].append({"device": f"tb.{tag}", "measurement": name, "dtype": int(dtype),
                               "encoding": int(encoding_of(dtype)), "compression": int(comp),
                               "points": [[times[i], to_json(dtype, cols[name][i])] for i in range(n)]})


def write_table(rng, path, max_rows):
    """Aligned chunks: one table, several devices (tag values), nulls."""
    w = t.TsFileWriter(path)
    types = rng.sample(list(ENCODINGS), rng.randint(1, len(ENCODINGS)))
    type_enc = {dtype: rng.choice(ENCODINGS[dtype]) for dtype in types}
    comp = rng.choice(COMPRESSIONS)
    page_points = configure(rng, type_enc, comp)
    fields = [(f"f{k}", dtype) for k, dtype in enumerate(types)]
    schema = t.TableSchema("tb", [t.ColumnSchema("id", DT.STRING, t.ColumnCategory.TAG)]
                           + [t.ColumnSchema(name, dtype, t.ColumnCategory.FIELD) for name, dtype in fields])
    w.register_table(schema)
    meta = {"model": "table", "page_points": page_points, "series": []}
    # What --queries builds its windows from (not written to the JSON).
    meta["_layout"] = {"table": "tb", "fields": fields, "devices": {}}
    for d in range(rng.randint(1, 3)):
        device = f"dev{d}"
        n = rng.randint(1, max_rows)
        times = timestamps(rng, n)
        meta["_layout"]["devices"][device] = {"times": times, "chunks": [(0, n)]}
        tab = t.Tablet(["id"] + [name for name, _ in fields], [DT.STRING] + [dtype for _, dtype in fields], n)
        tab.set_table_name("tb")
        cols = {}
        for name, dtype in fields:
            p_null = rng.choice([0.0, 0.1, 0.5, 1.0 if rng.random() < 0.1 else 0.3])
            vals = series(rng, dtype, n)
            cols[name] = [None if rng.random() < p_null else v for v in vals]
        write_rows(w, tab, meta, device, fields, times, cols, lambda dtype: type_enc[dtype], comp)
    w.close()
    return meta


def write_matrix(rng, path, comp, max_rows):
    """Tree model: one device per data type, one series per encoding the
    writer accepts for it, all with compression `comp` (--matrix)."""
    w = t.TsFileWriter(path)
    page_points = configure(rng, compression=comp)
    meta = {"model": "tree", "page_points": page_points, "series": []}
    for dtype, encodings in ALL_ENCODINGS.items():
        device = f"root.{dtype.name.lower()}"
        cols = [(f"{enc.name.lower()}", enc) for enc in encodings]
        for name, enc in cols:
            w.register_timeseries(device, t.TimeseriesSchema(name, dtype, enc, comp))
        n = rng.randint(max_rows // 2, max_rows)
        times = timestamps(rng, n)
        values = {name: series(rng, dtype, n, tree=True) for name, _ in cols}
        for i in range(n):
            w.write_row_record(t.RowRecord(device, times[i], [t.Field(name, values[name][i], dtype) for name, _ in cols]))
        for name, enc in cols:
            meta["series"].append({"device": device, "measurement": name, "dtype": int(dtype), "encoding": int(enc),
                                   "compression": int(comp),
                                   "points": [[times[i], to_json(dtype, values[name][i])] for i in range(n)]})
    w.close()
    return meta


def one_page_writer(path, n, extra_config):
    """A writer of table "big" (tag id, INT64 field i, TS_2DIFF, LZ4) whose
    pages hold up to `n` points: --large and --huge write one page."""
    w = t.TsFileWriter(path)
    t.set_tsfile_config({
        "page_writer_max_point_num_": n,
        "page_writer_max_memory_bytes_": 2**31 - 1,
        "time_encoding_type_": ENC.TS_2DIFF,
        "time_compress_type_": COMP.LZ4,
        "default_compression_type_": COMP.LZ4,
        "int64_encoding_type_": ENC.TS_2DIFF,
        **extra_config,
    })
    w.register_table(t.TableSchema("big", [t.ColumnSchema("id", DT.STRING, t.ColumnCategory.TAG),
                                           t.ColumnSchema("i", DT.INT64, t.ColumnCategory.FIELD)]))
    return w


def write_large(rng, path, n):
    """One table, one device, `n` rows in one page (--large N): an INT64
    TS_2DIFF column, LZ4. Pages past 2^20 points are what the official
    library writes once its page size is raised. TS_2DIFF on INT64 keeps
    every value, so the values written are the oracle (reading a million
    rows back through the Python binding takes a minute)."""
    w = one_page_writer(path, n, {"double_encoding_type_": ENC.GORILLA})
    tab = t.Tablet(["id", "i"], [DT.STRING, DT.INT64], n)
    tab.set_table_name("big")
    times = timestamps(rng, n)
    ints = series(rng, DT.INT64, n)
    for k in range(n):
        tab.add_timestamp(k, times[k])
        tab.add_value_by_name("id", k, "dev")
        tab.add_value_by_name("i", k, ints[k])
    w.write_table(tab)
    w.close()
    return {"model": "table", "page_points": n, "series": [
        {"device": "big.dev", "measurement": "i", "dtype": int(DT.INT64), "encoding": int(ENC.TS_2DIFF),
         "compression": int(COMP.LZ4), "points": [[times[k], ints[k]] for k in range(n)]},
    ]}


def write_huge(path, n):
    """One table, one device, `n` rows in one page through Arrow batches
    (--huge N): time 1000 + 3k, INT64 TS_2DIFF value (7k mod 1000003) -
    500000, LZ4. Above 2^27 rows this is the page the old default
    max_page_values refused and the official reader reads; too big for a
    JSON of its points, so the JSON names the formula. About 15 s and
    0.5 GB for 134,218,728 rows."""
    import numpy as np
    import pyarrow as pa
    w = one_page_writer(path, n, {})
    per = 5_000_000
    for start in range(0, n, per):
        m = min(per, n - start)
        k = np.arange(start, start + m, dtype=np.int64)
        ids = pa.DictionaryArray.from_arrays(pa.array(np.zeros(m, dtype=np.int32)), pa.array(["dev"]))
        batch = pa.record_batch([pa.array(1000 + 3 * k), ids.cast(pa.string()), pa.array(7 * k % 1000003 - 500000)],
                                names=["time", "id", "i"])
        w.write_arrow_batch("big", batch, 0)
    w.close()
    return {"model": "table", "rows": n, "device": "big.dev", "measurement": "i",
            "time": "1000 + 3k", "value": "7k mod 1000003 - 500000"}


def read_back(path, meta):
    """Every series as the official reader returns it (`official`: the oracle
    for encodings that do not store every value exactly as given, such as
    TS_2DIFF on floats, which scales and rounds)."""
    r = t.TsFileReader(path)
    for s in meta["series"]:
        dtype = DT(s["dtype"])
        got = []
        if meta["model"] == "tree":
            rs = r.query_timeseries(s["device"], [s["measurement"]], -2**63, 2**63 - 1)
        else:
            table, tag = s["device"].split(".", 1)
            rs = r.query_table(table, ["id", s["measurement"]], -2**63, 2**63 - 1)
        while rs.next():
            if meta["model"] == "table" and rs.get_value_by_name("id") != tag:
                continue
            time = rs.get_value_by_index(1)
            if rs.is_null_by_name(s["measurement"]):
                v = None
            else:
                # to_json writes bytes and str alike, as hex of their bytes.
                v = rs.get_value_by_name(s["measurement"])
            if v is None and meta["model"] == "tree":
                continue
            got.append([time, to_json(dtype, v)])
        rs.close()
        s["official"] = got
        # The oracle is what the official reader returns; what was written
        # only adds size.
        del s["points"]
    if OFFICIAL_STATISTICS:
        meta["official_statistics"] = official_statistics(r)
    r.close()


def official_statistics(r):
    """The series statistics the official reader takes from the index
    (`get_timeseries_metadata`): per series its count, first and last
    time and number of chunks; per table device also its time column's
    (measurement "")."""
    out = []
    for group in r.get_timeseries_metadata().values():
        device = ".".join("null" if seg is None else seg for seg in group.segments)
        time_column = None
        for ts in group.timeseries:
            st = ts.statistic
            out.append({"device": device, "measurement": ts.measurement_name, "count": st.row_count,
                        "start": st.start_time, "end": st.end_time, "chunks": ts.chunk_meta_count})
            if ts.time_chunk_meta_count:
                tl = ts.timeline_statistic
                time_column = {"device": device, "measurement": "", "count": tl.row_count, "start": tl.start_time,
                               "end": tl.end_time, "chunks": ts.time_chunk_meta_count}
        if time_column:
            out.append(time_column)
    return out


def library_version():
    try:
        return importlib.metadata.version("tsfile")
    except importlib.metadata.PackageNotFoundError:
        return getattr(t, "__version__", None) or "2.5"


# --- Chunk groups, chunk headers and pages as written (--inspect, and the
# scan fixtures' checks). Follows tsfile/src/chunk.rs. ---

def _uvarint(b, i):
    r = shift = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            return r, i


def _var_string(b, i):
    u, i = _uvarint(b, i)
    n = (u >> 1) ^ -(u & 1)
    if n < 0:
        return None, i
    return b[i:i + n].decode(), i + n


# Bytes of the typed part of page statistics, after count, start and end time
# (TEXT: 2, STRING: 4 length-prefixed strings instead).
_STAT_WIDTH = {0: 10, 1: 24, 9: 24, 2: 40, 8: 40, 3: 24, 4: 40, 6: 0, 10: 0}


def chunk_layout(path):
    """The chunk groups of a TsFile in file order: per group the device's
    segments and its chunks; per chunk its marker, measurement ("" for an
    aligned time column), type, compression and encoding ids and its pages:
    per page the row count of its statistics, "empty" for an all-null
    aligned value page (no body), None for the page of a one-page chunk
    (which has no statistics)."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:6] != b"TsFile":
        raise ValueError(f"{path}: not a TsFile")
    i, groups = 7, []
    while True:
        m = b[i]
        i += 1
        if m == 0x00:
            n, i = _uvarint(b, i)
            segments = []
            for _ in range(n):
                seg, i = _var_string(b, i)
                segments.append(seg)
            groups.append({"device": segments, "chunks": []})
        elif m in (0x01, 0x05, 0x41, 0x45, 0x81, 0x85):
            name, i = _var_string(b, i)
            size, i = _uvarint(b, i)
            dtype, comp, enc = b[i], b[i + 1], b[i + 2]
            i += 3
            end, pages = i + size, []
            while i < end:
                uncompressed, i = _uvarint(b, i)
                if m & 0x40 and uncompressed == 0:
                    pages.append("empty")
                    continue
                compressed, i = _uvarint(b, i)
                count = None
                if not m & 0x04:
                    count, i = _uvarint(b, i)
                    i += 16
                    if dtype in _STAT_WIDTH:
                        i += _STAT_WIDTH[dtype]
                    else:
                        for _ in range(2 if dtype == 5 else 4):
                            i += 4 + struct.unpack(">i", b[i:i + 4])[0]
                i += compressed
                pages.append(count)
            if i != end:
                raise ValueError(f"{path}: the pages of chunk {name!r} overrun its data")
            groups[-1]["chunks"].append({"marker": m, "measurement": name, "dtype": dtype, "compression": comp,
                                         "encoding": enc, "pages": pages})
        elif m == 0x04:
            i += 16  # operation index range
        elif m == 0x02:
            return groups
        else:
            raise ValueError(f"{path}: unknown marker {m:#x} at {i - 1}")


def _id_name(enum, value):
    try:
        return enum(value).name
    except ValueError:
        return {6: "VECTOR"}.get(value, str(value)) if enum is DT else str(value)


def print_layout(path):
    print(f"{path}:")
    for g in chunk_layout(path):
        print(f"  chunk group {'.'.join(str(s) for s in g['device'])}")
        for c in g["chunks"]:
            kind = {0x80: "time", 0x40: "value"}.get(c["marker"] & 0xC0, "series")
            one = "one-page" if c["marker"] & 0x04 else f"{len(c['pages'])} pages"
            print(f"    {kind:6} {c['measurement'] or '-':8} {_id_name(DT, c['dtype']):9} "
                  f"{_id_name(ENC, c['encoding']):9} {_id_name(COMP, c['compression']):12} {one}: "
                  f"{', '.join('-' if p is None else str(p) for p in c['pages'])}")


# --- Filtered queries through the official reader (--queries, --scan-fixtures) ---

class CReader:
    """The C API of the library the package ships (libtsfile.so), through
    ctypes: its `tsfile_reader_query_table` takes a time range together
    with offset / limit, which no method of the Python reader does
    (`query_table` has the time range, `query_table_by_row` offset / limit).
    `open` gives None where the library or the function is missing."""

    GETTER = {DT.BOOLEAN: "bool", DT.INT32: "int32_t", DT.DATE: "int32_t", DT.INT64: "int64_t",
              DT.TIMESTAMP: "int64_t", DT.FLOAT: "float", DT.DOUBLE: "double"}

    @classmethod
    def open(cls, path):
        try:
            return cls(path)
        except (OSError, AttributeError) as e:
            print(f"tsfile generator: no C query API ({e}): offset / limit only without a time range",
                  file=sys.stderr)
            return None

    def __init__(self, path):
        c = ctypes
        lib = c.CDLL(os.path.join(os.path.dirname(t.__file__), "libtsfile.so"))
        libc = c.CDLL(None)
        vp, err_p = c.c_void_p, c.POINTER(c.c_int32)
        lib.tsfile_reader_new.restype = vp
        lib.tsfile_reader_new.argtypes = [c.c_char_p, err_p]
        lib.tsfile_reader_close.restype = c.c_int32
        lib.tsfile_reader_close.argtypes = [vp]
        lib.tsfile_reader_query_table.restype = vp
        lib.tsfile_reader_query_table.argtypes = [vp, c.c_char_p, c.POINTER(c.c_char_p), c.c_uint32, c.c_int64,
                                                  c.c_int64, c.c_int, c.c_int, vp, c.c_int, err_p]
        lib.tsfile_result_set_next.restype = c.c_bool
        lib.tsfile_result_set_next.argtypes = [vp, err_p]
        lib.tsfile_result_set_is_null_by_index.restype = c.c_bool
        lib.tsfile_result_set_is_null_by_index.argtypes = [vp, c.c_uint32]
        self.get = {}
        for name, ctype in [("bool", c.c_bool), ("int32_t", c.c_int32), ("int64_t", c.c_int64),
                            ("float", c.c_float), ("double", c.c_double)]:
            f = getattr(lib, "tsfile_result_set_get_value_by_index_" + name)
            f.restype, f.argtypes = ctype, [vp, c.c_uint32]
            self.get[name] = f
        lib.tsfile_result_set_get_value_by_index_binary.restype = c.c_int32
        lib.tsfile_result_set_get_value_by_index_binary.argtypes = [
            vp, c.c_uint32, c.POINTER(c.POINTER(c.c_uint8)), c.POINTER(c.c_uint32)]
        lib.free_tsfile_result_set.restype = None
        lib.free_tsfile_result_set.argtypes = [c.POINTER(vp)]
        libc.free.restype = None
        libc.free.argtypes = [vp]
        self.lib, self.libc = lib, libc
        err = c.c_int32(0)
        self.reader = lib.tsfile_reader_new(path.encode(), c.byref(err))
        if not self.reader or err.value:
            raise OSError(f"tsfile_reader_new({path}): error {err.value}")

    def _bytes(self, rs, k):
        p, n = ctypes.POINTER(ctypes.c_uint8)(), ctypes.c_uint32(0)
        e = self.lib.tsfile_result_set_get_value_by_index_binary(rs, k, ctypes.byref(p), ctypes.byref(n))
        if e:
            raise RuntimeError(f"tsfile_result_set_get_value_by_index_binary: error {e}")
        v = ctypes.string_at(p, n.value) if n.value else b""
        if p:
            self.libc.free(ctypes.cast(p, ctypes.c_void_p))
        return v

    def query(self, table, names, fields, start, end, offset, limit, with_tag):
        arr = (ctypes.c_char_p * len(names))(*[n.encode() for n in names])
        err = ctypes.c_int32(0)
        rs = self.lib.tsfile_reader_query_table(self.reader, table.encode(), arr, len(names), start, end, offset,
                                                -1 if limit is None else limit, None, 0, ctypes.byref(err))
        if not rs or err.value:
            raise RuntimeError(f"tsfile_reader_query_table: error {err.value}")
        rows = []
        try:
            while self.lib.tsfile_result_set_next(rs, ctypes.byref(err)):
                row = [self._bytes(rs, 2).decode() if with_tag else None, self.get["int64_t"](rs, 1)]
                for k, (_, dtype) in enumerate(fields, start=3 if with_tag else 2):
                    if self.lib.tsfile_result_set_is_null_by_index(rs, k):
                        row.append(None)
                    elif dtype in self.GETTER:
                        row.append(to_json(dtype, self.get[self.GETTER[dtype]](rs, k)))
                    else:
                        row.append(to_json(dtype, self._bytes(rs, k)))
                rows.append(tuple(row))
            if err.value:
                raise RuntimeError(f"tsfile_result_set_next: error {err.value}")
        finally:
            self.lib.free_tsfile_result_set(ctypes.byref(ctypes.c_void_p(rs)))
        return rows

    def close(self):
        self.lib.tsfile_reader_close(self.reader)


class Official:
    """The official reader on one table of one file."""

    def __init__(self, path, table, tag="id"):
        self.path, self.table, self.tag = path, table, tag
        self.py = t.TsFileReader(path)
        self.c = CReader.open(path)

    def run(self, api, fields, start, end, offset, limit, with_tag=True, tag=None):
        """Rows (tag or None, time, cell of each field as JSON) in the
        order the reader returns them; `tag` (query_table only): a tag
        filter as tag_predicate takes it."""
        names = ([self.tag] if with_tag else []) + [name for name, _ in fields]
        if api == "tsfile_reader_query_table":
            return self.c.query(self.table, names, fields, start, end, offset or 0, limit, with_tag)
        if api == "query_table" and tag is not None:
            rs = self.py.query_table(self.table, names, start, end, tag_filter=tag_filter(self.tag, tag))
        elif api == "query_table":
            rs = self.py.query_table(self.table, names, start, end)
        else:
            rs = self.py.query_table_by_row(self.table, names, offset or 0, -1 if limit is None else limit)
        got = list(rs.get_result_column_info())
        if got != ["time"] + names:
            raise RuntimeError(f"{api}: result columns {got}, asked for {names}")
        rows = []
        while rs.next():
            row = [rs.get_value_by_index(2) if with_tag else None, rs.get_value_by_index(1)]
            for k, (_, dtype) in enumerate(fields, start=3 if with_tag else 2):
                row.append(None if rs.is_null_by_index(k) else to_json(dtype, rs.get_value_by_index(k)))
            rows.append(tuple(row))
        rs.close()
        return rows

    def close(self):
        if self.c:
            self.c.close()
        self.py.close()


# main() turns tag filters on for every file but the committed scan
# fixtures, whose queries stay as they were.
TAG_FILTERS = False
# Tag filters (query_table's tag_filter): {"op": one of these, "value": a
# tag, or "lower" / "upper" for the between forms}. Tags compare as byte
# strings.
TAG_OPS = ["eq", "neq", "lt", "lteq", "gt", "gteq", "between", "not_between"]


def tag_filter(column, tag):
    """The official library's TagFilter for `tag` on `column`."""
    import tsfile.tag_filter as tf
    if tag["op"] in ("between", "not_between"):
        return getattr(tf, "tag_" + tag["op"])(column, tag["lower"], tag["upper"])
    return getattr(tf, "tag_" + tag["op"])(column, tag["value"])


def tag_predicate(tag, value):
    """Whether a device whose tag is `value` passes the filter `tag`."""
    v = value.encode()
    if tag["op"] in ("between", "not_between"):
        inside = tag["lower"].encode() <= v <= tag["upper"].encode()
        return inside if tag["op"] == "between" else not inside
    w = tag["value"].encode()
    return {"eq": v == w, "neq": v != w, "lt": v < w, "lteq": v <= w, "gt": v > w, "gteq": v >= w}[tag["op"]]


def pick_tag(rng, tags):
    """A tag filter over the devices' tags: their values, and values
    between and beyond them."""
    values = sorted(tags) + [rng.choice(sorted(tags)) + "0", ""]
    op = rng.choice(TAG_OPS)
    if op in ("between", "not_between"):
        lower, upper = sorted(rng.choice(values) for _ in range(2))
        return {"op": op, "lower": lower, "upper": upper}
    return {"op": op, "value": rng.choice(values)}


QUERY_KINDS = ["in_page", "across_pages", "across_chunks", "exact", "off_by_one", "everything", "before", "after",
               "gap", "point", "extreme", "inverted"]

# Windows that usually hold rows, for the queries with offset / limit.
PAGED_KINDS = ["in_page", "across_pages", "across_chunks", "exact", "off_by_one", "everything", "extreme"]


def _clamp(x):
    return max(I64[0], min(I64[1], x))


def query_window(rng, kind, devices, page_points):
    """(kind, start, end): a window of `kind` over `devices` ({tag:
    {"times": every time in order, "chunks": [(first row, end row) of each
    chunk group]}}), or of the kind it falls back to where the data has no
    such window."""
    while True:
        window = _window(rng, kind, devices, page_points)
        if not isinstance(window, str):
            return (kind, *window)
        kind = window


def _window(rng, kind, devices, page_points):
    """(start, end), or the kind to fall back to."""
    devs = [d for d in devices.values() if d["times"]]
    union = sorted({x for d in devs for x in d["times"]})
    first, last = union[0], union[-1]
    gaps = [(a, b) for a, b in zip(union, union[1:]) if b - a >= 2]
    d = rng.choice(devs)
    times = d["times"]

    def pages(dev):
        return [[(k, min(hi, k + page_points)) for k in range(lo, hi, page_points)] for lo, hi in dev["chunks"]]

    if kind == "in_page":
        a, b = rng.choice([p for chunk in pages(d) for p in chunk])
        i = rng.randint(a, b - 1)
        j = rng.randint(i, b - 1)
        start, end = times[i], times[j]
        if rng.random() < 0.4:
            # Widened to just after the row before and just before the row after.
            start = times[i - 1] + 1 if i > 0 else _clamp(start - 1)
            end = times[j + 1] - 1 if j + 1 < len(times) else _clamp(end + 1)
        return start, end
    if kind == "across_pages":
        chunks = [(dev, chunk) for dev in devs for chunk in pages(dev) if len(chunk) >= 2]
        if not chunks:
            return "exact"
        dev, chunk = rng.choice(chunks)
        k = rng.randrange(len(chunk) - 1)
        m = rng.randint(k + 1, len(chunk) - 1)
        i = rng.randint(chunk[k][0], chunk[k][1] - 1)
        j = rng.randint(chunk[m][0], chunk[m][1] - 1)
        return dev["times"][i], dev["times"][j]
    if kind == "across_chunks":
        multi = [dev for dev in devs if len(dev["chunks"]) >= 2]
        if not multi:
            return "across_pages"
        dev = rng.choice(multi)
        c = rng.randrange(len(dev["chunks"]) - 1)
        e = rng.randint(c + 1, len(dev["chunks"]) - 1)
        i = rng.randint(dev["chunks"][c][0], dev["chunks"][c][1] - 1)
        j = rng.randint(dev["chunks"][e][0], dev["chunks"][e][1] - 1)
        return dev["times"][i], dev["times"][j]
    if kind == "exact":
        if rng.random() < 0.3:
            return times[0], times[-1]
        i, j = sorted(rng.choice([0, len(times) - 1, rng.randrange(len(times))]) for _ in range(2))
        return times[i], times[j]
    if kind == "off_by_one":
        i, j = sorted(rng.randrange(len(times)) for _ in range(2))
        a, b = _clamp(times[i] + rng.choice([-1, 1])), _clamp(times[j] + rng.choice([-1, 1]))
        return min(a, b), max(a, b)
    if kind == "everything":
        return rng.choice([I64, (first, last), (_clamp(first - 1), _clamp(last + 1))])
    if kind == "before":
        if first == I64[0]:
            return "after" if last < I64[1] else "gap"
        end = first - 1
        return rng.choice([I64[0], max(I64[0], first - rng.randint(1, 1000)), end]), end
    if kind == "after":
        if last == I64[1]:
            return "before" if first > I64[0] else "gap"
        start = last + 1
        return start, rng.choice([I64[1], min(I64[1], last + rng.randint(1, 1000)), start])
    if kind == "gap":
        if not gaps:
            return "before" if first > I64[0] else "after"
        a, b = rng.choice(gaps)
        if rng.random() < 0.5:
            return a + 1, b - 1
        s = rng.randint(a + 1, b - 1)
        return s, rng.randint(s, b - 1)
    if kind == "point":
        if rng.random() < 0.7:
            x = rng.choice(times)
        elif gaps:
            a, b = rng.choice(gaps)
            x = rng.randint(a + 1, b - 1)
        else:
            x = first - 1 if first > I64[0] else _clamp(last + 1)
        return x, x
    if kind == "extreme":
        return rng.choice([(I64[0], I64[0]), (I64[1], I64[1]), (I64[0], rng.choice(times)),
                           (rng.choice(times), I64[1]), I64])
    if kind == "inverted":
        x = rng.choice(times)
        return (x, x - 1) if x > I64[0] else (x + 1, x)
    raise ValueError(kind)


def pick_columns(rng, fields, mode):
    """Field columns in a random order: one, all or some."""
    if mode == "one" or len(fields) == 1:
        return [rng.choice(fields)]
    if mode == "all":
        cols = list(fields)
        if rng.random() < 0.7:
            rng.shuffle(cols)
        return cols
    return rng.sample(fields, rng.randint(2, len(fields)))


def pick_offset_limit(rng, total):
    """Mostly inside the answer; sometimes 0, past the end or unlimited."""
    while True:
        offset = rng.choices([0, 1, rng.randint(0, total), total, total + 2], [2, 2, 4, 1, 1])[0]
        limit = rng.choices([None, 0, 1, rng.randint(1, max(1, total)), total + 3], [3, 1, 2, 4, 1])[0]
        if (offset, limit) != (0, None):
            return offset, limit


def _by_device(table, rows, strict=True):
    """{"devices": {"table.tag": [[time, cells...], ...]}, "order": [...]}."""
    devices, order = {}, []
    for tag, *row in rows:
        name = f"{table}.{tag}"
        if name not in devices:
            devices[name] = []
            order.append(name)
        elif order[-1] != name and strict:
            raise RuntimeError(f"the rows of {name} do not come together")
        devices[name].append(row)
    return {"devices": devices, "order": order}


def build_queries(rng, layout, page_points, n, official):
    """`n` queries over the file `official` reads: about one in four with
    offset / limit (the first of those through query_table_by_row, over
    every time; the others through the C API, with a window), the rest
    with a time range only, their windows of every kind in turn.

    Every answer is held to the rows of the same columns over every time
    (one query_table call), cut to the window and then to offset / limit.
    Where the official reader's answer differs, `devices` / `order` hold
    the cut rows and `official` what the reader returned. That happens
    (tsfile 2.5.0) when the window lies inside the time span of a page of
    a device but holds none of its rows, and a BOOLEAN column asked for
    has nulls in that page: the reader returns the page's rows where that
    column is null, outside the window, with every cell null."""
    fields, table = layout["fields"], layout["table"]
    paged = max(1, n // 4) if n >= 4 else 0
    plain = n - paged
    kinds = []
    while len(kinds) < plain:
        more = list(QUERY_KINDS)
        rng.shuffle(more)
        kinds += more
    specs = [(kind, "query_table") for kind in kinds[:plain]]
    if paged:
        specs.append(("everything", "query_table_by_row"))
        c_api = "tsfile_reader_query_table" if official.c else "query_table_by_row"
        specs += [(rng.choice(PAGED_KINDS), c_api) for _ in range(paged - 1)]
    modes = (["one", "all"] + [rng.choice(["one", "all", "some", "some"]) for _ in range(n)])[:n]
    rng.shuffle(specs)
    rng.shuffle(modes)
    queries = []
    for (kind, api), mode in zip(specs, modes):
        cols = pick_columns(rng, fields, mode)
        everything = official.run("query_table", cols, *I64, None, None)
        for _ in range(8):
            # A window with rows to page through, if the data has one.
            if api == "query_table_by_row":
                got_kind, (start, end) = "everything", I64
            else:
                got_kind, start, end = query_window(rng, kind, layout["devices"], page_points)
            rows = [r for r in everything if start <= r[1] <= end]
            if api == "query_table" or len(rows) >= 2:
                break
        kind = got_kind
        offset = limit = None
        if api != "query_table":
            offset, limit = pick_offset_limit(rng, len(rows))
            rows = rows[offset:] if limit is None else rows[offset:offset + limit]
        tag = None
        if TAG_FILTERS and api == "query_table" and rng.random() < 0.4:
            # A tag filter: the devices it passes, the rest cut.
            tag = pick_tag(rng, list(layout["devices"]))
            rows = [r for r in rows if tag_predicate(tag, r[0])]
        got = official.run(api, cols, start, end, offset, limit, tag=tag)
        bare = official.run(api, cols, start, end, offset, limit, with_tag=False, tag=tag)
        if [r[1:] for r in bare] != [r[1:] for r in got]:
            raise RuntimeError(f"{api} [{start}, {end}]: other rows without the tag column")
        query = {"kind": kind, "api": api, "columns": [name for name, _ in cols], "start": start, "end": end,
                 "offset": offset, "limit": limit, **_by_device(table, rows)}
        if tag is not None:
            query["tag"] = tag
        if got != rows:
            query["official"] = _by_device(table, got, strict=False)
            print(f"tsfile generator: {official.path}: {api} {query['columns']} [{start}, {end}] offset {offset} "
                  f"limit {limit}: the official reader returned {len(got)} rows, the answer has {len(rows)}",
                  file=sys.stderr)
        queries.append(query)
    return queries


def write_queries(path, layout, page_points, n, rng):
    """`<path>.queries.json`: `n` filtered queries and what the official
    reader returned for them."""
    official = Official(path, layout["table"])
    try:
        queries = build_queries(rng, layout, page_points, n, official)
    finally:
        official.close()
    doc = {"file": os.path.basename(path), "table": layout["table"], "library": library_version(),
           "columns": {name: int(dtype) for name, dtype in layout["fields"]}, "queries": queries}
    with open(path + ".queries.json", "w") as f:
        json.dump(doc, f)
    return doc


# --- The committed scan fixtures (--scan-fixtures) ---

# --official-statistics: read_back also records the index's series
# statistics as the official reader gives them.
OFFICIAL_STATISTICS = False

SCAN_SEED = 20250601
SCAN_QUERIES = 16
SCAN_TYPES = [DT.BOOLEAN, DT.INT32, DT.INT64, DT.FLOAT, DT.DOUBLE, DT.TEXT, DT.STRING, DT.DATE, DT.TIMESTAMP, DT.BLOB]
# The writer's config key for each type's encoding, and the type whose
# encodings it takes (DATE is stored as INT32, TIMESTAMP as INT64).
SCAN_ENCODING_KEY = {DT.BOOLEAN: "boolean", DT.INT32: "int32", DT.DATE: "int32", DT.INT64: "int64",
                     DT.TIMESTAMP: "int64", DT.FLOAT: "float", DT.DOUBLE: "double", DT.TEXT: "string",
                     DT.STRING: "string", DT.BLOB: "string"}
SCAN_KEY_TYPE = {"boolean": DT.BOOLEAN, "int32": DT.INT32, "int64": DT.INT64, "float": DT.FLOAT,
                 "double": DT.DOUBLE, "string": DT.TEXT}
# What the table writer refuses ("invalid argument") of its key's encodings.
SCAN_REFUSED = {DT.DATE: {ENC.ZIGZAG, ENC.SPRINTZ}, DT.TIMESTAMP: {ENC.ZIGZAG, ENC.SPRINTZ}, DT.BLOB: {ENC.DICTIONARY}}
# Per file: compression, points per page, field types, and per device (tag)
# the rows of each batch; a flush after each round of batches makes each
# batch a chunk group. The device "edge" has times at the i64 extremes.
SCAN_FIXTURES = [
    (COMP.UNCOMPRESSED, 2, SCAN_TYPES, {"b": [5, 2, 9], "a": [12], "c": [1, 4, 3]}),
    (COMP.LZ4, 7, [DT.INT64, DT.DOUBLE, DT.TEXT, DT.BOOLEAN, DT.DATE],
     {"dev2": [30, 7, 3], "dev10": [50], "dev1": [7, 8], "edge": [9, 8]}),
    (COMP.SNAPPY, 64, [DT.INT32, DT.FLOAT, DT.STRING, DT.TIMESTAMP], {"s1": [150, 64], "s0": [20, 70]}),
    (COMP.ZSTD, 129, [DT.INT64, DT.FLOAT, DT.BLOB, DT.BOOLEAN], {"z": [300], "y": [129, 130, 5]}),
    (COMP.GZIP, 10000, [DT.DOUBLE, DT.INT32, DT.TEXT, DT.DATE, DT.STRING], {"g0": [40, 40], "g1": [25], "g2": [3, 3, 3]}),
    (COMP.LZO, 3, [DT.INT32, DT.INT64, DT.BOOLEAN, DT.TIMESTAMP, DT.BLOB], {"l1": [10, 3, 20], "l0": [6]}),
    (COMP.LZMA2, 8, [DT.FLOAT, DT.DOUBLE, DT.TEXT, DT.INT32], {"m": [17, 8, 40], "n": [9]}),
]
EDGE_TIMES = [I64[0], I64[0] + 1, I64[0] + 2, I64[0] + 1000, -(2**62), -10, -1, 0, 1,
              5, 1000, 2**40, 2**62, I64[1] - 1000, I64[1] - 2, I64[1] - 1, I64[1]]


def scan_times(rng, sizes):
    """Increasing times in batches of `sizes`: steady steps, some jitter,
    sometimes a jump between batches."""
    cur = rng.choice([0, 1000, rng.randint(-5000, 5000)])
    step = rng.choice([1, 1, 3, 10])
    out = []
    for size in sizes:
        batch = []
        for _ in range(size):
            batch.append(cur)
            cur += step + (rng.randint(1, 2 * step) if rng.random() < 0.3 else 0)
        out.append(batch)
        if rng.random() < 0.5:
            cur += rng.randint(50, 500)
    return out


def scan_nulls(rng, sizes, page_points):
    """Which rows of one column of one device are null."""
    pattern = rng.choices(["none", "sparse", "half", "pages", "batch", "all"], [2, 2, 1, 4, 1, 0.3])[0]
    out = []
    whole = rng.randrange(len(sizes))
    for b, size in enumerate(sizes):
        if pattern == "pages":
            # Runs over whole pages: all-null pages.
            for k in range(0, size, page_points):
                p = 1.0 if rng.random() < 0.4 else 0.15
                out += [rng.random() < p for _ in range(min(page_points, size - k))]
        elif pattern == "batch":
            out += [b == whole or rng.random() < 0.1 for _ in range(size)]
        else:
            p = {"none": 0.0, "sparse": 0.1, "half": 0.5, "all": 1.0}[pattern]
            out += [rng.random() < p for _ in range(size)]
    return out


def write_scan(rng, path, comp, page_points, types, batches, key_enc=None):
    """One table written in batches (a flush after each round, so a chunk
    group per batch); returns the JSON metadata and the layout --queries
    takes. `key_enc` ({config key: encoding}) fixes the encodings, else
    they are drawn."""
    w = t.TsFileWriter(path)
    if key_enc is None:
        key_enc = {}
        for key, base in SCAN_KEY_TYPE.items():
            refused = set().union(*(SCAN_REFUSED.get(dtype, set()) for dtype in types
                                    if SCAN_ENCODING_KEY[dtype] == key))
            key_enc[key] = rng.choice([enc for enc in ALL_ENCODINGS[base] if enc not in refused])
    cfg = {
        "page_writer_max_point_num_": page_points,
        "time_encoding_type_": ENC.TS_2DIFF,
        "time_compress_type_": comp,
        "default_compression_type_": comp,
    }
    cfg.update({key + "_encoding_type_": enc for key, enc in key_enc.items()})
    t.set_tsfile_config(cfg)
    fields = [(f"f{k}", dtype) for k, dtype in enumerate(types)]
    w.register_table(t.TableSchema("tb", [t.ColumnSchema("id", DT.STRING, t.ColumnCategory.TAG)]
                                   + [t.ColumnSchema(name, dtype, t.ColumnCategory.FIELD) for name, dtype in fields]))
    layout = {"table": "tb", "fields": fields, "devices": {}}
    data = {}
    for tag, sizes in batches.items():
        if tag == "edge":
            times, at = [], 0
            for size in sizes:
                times.append(EDGE_TIMES[at:at + size])
                at += size
        else:
            times = scan_times(rng, sizes)
        times = [x for batch in times for x in batch]
        n = len(times)
        bounds, at = [], 0
        for size in sizes:
            bounds.append((at, at + size))
            at += size
        cols = {}
        for name, dtype in fields:
            nulls = scan_nulls(rng, sizes, page_points)
            cols[name] = [None if null else v for v, null in zip(series(rng, dtype, n), nulls)]
        for i in range(n):
            if rng.random() < 0.04:  # a row of nulls only
                for name, _ in fields:
                    cols[name][i] = None
        data[tag] = (times, bounds, cols)
        layout["devices"][tag] = {"times": times, "chunks": bounds}
    for r in range(max(len(sizes) for sizes in batches.values())):
        tags = [tag for tag in batches if r < len(batches[tag])]
        rng.shuffle(tags)
        for tag in tags:
            times, bounds, cols = data[tag]
            lo, hi = bounds[r]
            tab = t.Tablet(["id"] + [name for name, _ in fields], [DT.STRING] + list(types), hi - lo)
            tab.set_table_name("tb")
            for i in range(lo, hi):
                tab.add_timestamp(i - lo, times[i])
                tab.add_value_by_name("id", i - lo, tag)
                for name, _ in fields:
                    if cols[name][i] is not None:
                        tab.add_value_by_name(name, i - lo, cols[name][i])
            w.write_table(tab)
        w.flush()
    w.close()
    meta = {"model": "table", "page_points": page_points, "series": []}
    for tag, (times, _, cols) in data.items():
        for name, dtype in fields:
            meta["series"].append({"device": f"tb.{tag}", "measurement": name, "dtype": int(dtype),
                                   "encoding": int(key_enc[SCAN_ENCODING_KEY[dtype]]), "compression": int(comp),
                                   "points": [[times[i], to_json(dtype, cols[name][i])] for i in range(len(times))]})
    return meta, layout


def write_matrix_table(rng, path, j, comp, max_rows):
    """Table model (--matrix): every data type the table writer takes, each
    config key's j-th encoding (mod its count; a type that refuses it is
    left out), compression `comp`, three devices written in two or three
    batches each (a chunk group per batch), nulls, small pages."""
    key_enc = {key: ALL_ENCODINGS[base][j % len(ALL_ENCODINGS[base])] for key, base in SCAN_KEY_TYPE.items()}
    types = [dtype for dtype in SCAN_TYPES if key_enc[SCAN_ENCODING_KEY[dtype]] not in SCAN_REFUSED.get(dtype, set())]
    page_points = rng.choice([7, 64, 129, 500])
    batches = {f"dev{d}": [rng.randint(1, max(1, max_rows // 3)) for _ in range(rng.randint(2, 3))] for d in range(3)}
    meta, layout = write_scan(rng, path, comp, page_points, types, batches, key_enc)
    meta["_layout"] = layout
    return meta


SPRINTZ_FIXTURE = "sprintz-extremes.tsfile"


def sprintz_fixture(out):
    """harness/tests/fixtures/tsfile/sprintz-extremes.tsfile (--sprintz-fixture,
    fixed seed): one table, SPRINTZ for INT32, INT64, FLOAT and DOUBLE, LZ4,
    pages of 100 points; device a without nulls, device b with some; spiked
    series with a pair whose first error is exactly -2^30 (-2^62) at the
    start of every fourth block. The JSON holds what the official reader
    returned (the C++ reader reads that error as +2^30: docs/reference/tsfile-encodings.md,
    "Java and C++ readers"), the oracle of tsfile_oracle.rs's committed
    fixtures on every target."""
    rng = random.Random(20261206)
    path = os.path.join(out, SPRINTZ_FIXTURE)
    if os.path.exists(path):
        os.remove(path)
    w = t.TsFileWriter(path)
    t.set_tsfile_config({"page_writer_max_point_num_": 100, "time_encoding_type_": ENC.TS_2DIFF,
                         "time_compress_type_": COMP.LZ4, "default_compression_type_": COMP.LZ4,
                         "int32_encoding_type_": ENC.SPRINTZ, "int64_encoding_type_": ENC.SPRINTZ,
                         "float_encoding_type_": ENC.SPRINTZ, "double_encoding_type_": ENC.SPRINTZ})
    types = [DT.INT32, DT.INT64, DT.FLOAT, DT.DOUBLE]
    fields = [(f"f{k}", dtype) for k, dtype in enumerate(types)]
    w.register_table(t.TableSchema("tb", [t.ColumnSchema("id", DT.STRING, t.ColumnCategory.TAG)]
                                   + [t.ColumnSchema(name, dtype, t.ColumnCategory.FIELD) for name, dtype in fields]))
    pairs = {DT.INT32: [(0, -(2**30)), (2**30, 0)], DT.INT64: [(0, -(2**62)), (2**62, 0)],
             DT.FLOAT: [tuple(from_f32_bits(b) for b in p) for p in F32_MIN_ERROR_PAIRS],
             DT.DOUBLE: [tuple(from_f64_bits(b) for b in p) for p in F64_MIN_ERROR_PAIRS]}
    meta = {"model": "table", "page_points": 100, "series": []}
    for tag, p_null in [("a", 0.0), ("b", 0.1)]:
        n = 450
        times = [1000 + 10 * i for i in range(n)]
        cols = {}
        for name, dtype in fields:
            v = spiked(rng, dtype, n)
            for b in range(0, n - 1, 36):
                v[b], v[b + 1] = rng.choice(pairs[dtype])
            cols[name] = [None if rng.random() < p_null else x for x in v]
        tab = t.Tablet(["id"] + [name for name, _ in fields], [DT.STRING] + types, n)
        tab.set_table_name("tb")
        write_rows(w, tab, meta, tag, fields, times, cols, lambda dtype: ENC.SPRINTZ, COMP.LZ4)
    w.close()
    written = {(s["device"], s["measurement"]): s["points"] for s in meta["series"]}
    read_back(path, meta)
    meta["library"] = library_version()
    changed = sum(a != b for s in meta["series"] for a, b in zip(written[(s["device"], s["measurement"])],
                                                                 s["official"]))
    with open(path + ".json", "w") as f:
        json.dump(meta, f)
    print(f"{path}: {os.path.getsize(path)} bytes; the official reader returned {changed} values other than "
          f"written", file=sys.stderr)


def check_scan(path, meta, layout, page_points, seen):
    """Hold a scan fixture's chunk headers to what was asked for (types,
    encodings, compression, a chunk group per batch) and count what the
    set must have in `seen`."""
    want = {(s["device"], s["measurement"]): (s["dtype"], s["encoding"], s["compression"]) for s in meta["series"]}
    groups = {}
    for g in chunk_layout(path):
        tag = g["device"][1]
        time_chunk = g["chunks"][0]
        if time_chunk["marker"] & 0xC0 != 0x80:
            raise RuntimeError(f"{path}: chunk group of {tag} does not start with a time chunk")
        groups.setdefault(tag, []).append(time_chunk["pages"])
        for c in g["chunks"]:
            if c["marker"] & 0x04:
                seen["one-page chunks"] += 1
            elif len(c["pages"]) >= 2:
                seen["chunks of several pages"] += 1
            if c["marker"] & 0xC0 == 0x80:
                if c["compression"] != meta["series"][0]["compression"]:
                    raise RuntimeError(f"{path}: time chunk of {tag} compressed with {c['compression']}")
                continue
            got = (c["dtype"], c["encoding"], c["compression"])
            if want.get((f"tb.{tag}", c["measurement"])) != got:
                raise RuntimeError(f"{path}: {tag}.{c['measurement']} written as {got}, asked for "
                                   f"{want.get((f'tb.{tag}', c['measurement']))}")
            seen["types"].add(DT(c["dtype"]).name)
            seen["compressions"].add(COMP(c["compression"]).name)
            if "empty" in c["pages"]:
                seen["all-null pages"] += c["pages"].count("empty")
    for tag, dev in layout["devices"].items():
        sizes = [hi - lo for lo, hi in dev["chunks"]]
        pages = groups.get(tag, [])
        if len(pages) != len(sizes):
            raise RuntimeError(f"{path}: {tag} has {len(pages)} chunk groups, {len(sizes)} batches written")
        for size, p in zip(sizes, pages):
            rows = size if p == [None] else sum(p)
            if rows != size or (p == [None]) != (size <= page_points):
                raise RuntimeError(f"{path}: {tag}: a chunk of pages {p} for a batch of {size} rows")
        if len(sizes) >= 2:
            seen["devices with several chunk groups"] += 1


def scan_fixtures(out):
    seen = {"types": set(), "compressions": set(), "one-page chunks": 0, "chunks of several pages": 0,
            "all-null pages": 0, "devices with several chunk groups": 0}
    total = 0
    for i, (comp, page_points, types, batches) in enumerate(SCAN_FIXTURES):
        path = os.path.join(out, f"scan-{comp.name.lower()}-{i}.tsfile")
        if os.path.exists(path):
            os.remove(path)
        meta, layout = write_scan(random.Random(SCAN_SEED * 1000 + i), path, comp, page_points, types, batches)
        meta["seed"] = SCAN_SEED
        meta["index"] = i
        meta["library"] = library_version()
        check_scan(path, meta, layout, page_points, seen)
        doc = write_queries(path, layout, page_points, SCAN_QUERIES, random.Random(SCAN_SEED * 1000 + 500 + i))
        read_back(path, meta)
        with open(path + ".json", "w") as f:
            json.dump(meta, f)
        sizes = [os.path.getsize(p) for p in (path, path + ".json", path + ".queries.json")]
        total += sum(sizes)
        rows = sum(len(r) for q in doc["queries"] for r in q["devices"].values())
        print(f"{os.path.basename(path)}: {sizes[0]} + {sizes[1]} + {sizes[2]} bytes, "
              f"{len(doc['queries'])} queries, {rows} rows returned", file=sys.stderr)
    print(f"scan fixtures: {total} bytes; {seen}", file=sys.stderr)
    missing = {dt.name for dt in SCAN_TYPES} - seen["types"]
    missing |= {"UNCOMPRESSED", "SNAPPY", "LZ4", "ZSTD", "GZIP"} - seen["compressions"]
    missing |= {k for k, v in seen.items() if v == 0}
    if missing:
        raise RuntimeError(f"the scan fixtures lack {sorted(missing)}")


# --- Every statistics layout (--statistics-fixtures) ---

STATS_BATCHES = [5, 25, 3, 12]


def write_stats_tree(path):
    """Tree model, pages of 10 points, a flush after each batch of
    STATS_BATCHES rows: series of several chunks (chunk statistics in the
    index) whose chunks have one page (no page statistics) or several;
    root.once is written in the second batch only (a series of one chunk
    of several pages, no chunk statistics), root.one in the first only
    (one chunk of one page); root.a.u has a value every other row."""
    w = t.TsFileWriter(path)
    t.set_tsfile_config({"page_writer_max_point_num_": 10, "time_encoding_type_": ENC.TS_2DIFF,
                         "time_compress_type_": COMP.UNCOMPRESSED})
    schema = {"root.a": [("s", DT.INT64, ENC.PLAIN, COMP.UNCOMPRESSED), ("u", DT.DOUBLE, ENC.GORILLA, COMP.SNAPPY)],
              "root.b": [("s", DT.TEXT, ENC.PLAIN, COMP.LZ4)],
              "root.once": [("v", DT.INT32, ENC.RLE, COMP.ZSTD)],
              "root.one": [("v", DT.FLOAT, ENC.PLAIN, COMP.GZIP)]}
    for device, cols in schema.items():
        for name, dtype, enc, comp in cols:
            w.register_timeseries(device, t.TimeseriesSchema(name, dtype, enc, comp))
    points = {(d, c[0]): [] for d, cols in schema.items() for c in cols}
    value = {DT.INT64: lambda k: k * 3 - 40, DT.DOUBLE: lambda k: k * 0.5 - 3, DT.TEXT: lambda k: f"x{k}",
             DT.INT32: lambda k: k * k - 100, DT.FLOAT: lambda k: k / 4}
    k = 0
    for b, size in enumerate(STATS_BATCHES):
        for _ in range(size):
            time = 1000 + 7 * k
            for device, cols in schema.items():
                if (device == "root.once" and b != 1) or (device == "root.one" and b != 0):
                    continue
                fields = []
                for name, dtype, _, _ in cols:
                    if name == "u" and k % 2:
                        continue
                    fields.append(t.Field(name, value[dtype](k), dtype))
                    points[(device, name)].append([time, to_json(dtype, value[dtype](k))])
                w.write_row_record(t.RowRecord(device, time, fields))
            k += 1
        w.flush()
    w.close()
    meta = {"model": "tree", "page_points": 10, "series": []}
    for device, cols in schema.items():
        for name, dtype, enc, comp in cols:
            meta["series"].append({"device": device, "measurement": name, "dtype": int(dtype), "encoding": int(enc),
                                   "compression": int(comp), "points": points[(device, name)]})
    return meta


def java_flags(src, dst):
    """`src` with the index's type byte of every table series flagged as
    Java's writer flags it (0x80 on a time column, 0x40 on a value column,
    beside the several-chunks bit), found where the official reader says
    each series' metadata starts. The official reader reads it as `src`."""
    with open(src, "rb") as f:
        b = bytearray(f.read())
    r = t.TsFileReader(src)
    times = set()
    for group in r.get_timeseries_metadata().values():
        for ts in group.timeseries:
            b[ts.value_metadata_offset] |= 0x40
            times.add(ts.time_metadata_offset)
    r.close()
    for at in times:
        b[at] |= 0x80
    with open(dst, "wb") as f:
        f.write(b)


def statistics_fixtures(out):
    """stats-tree.tsfile (write_stats_tree) and stats-table.tsfile: a table
    written in batches with a flush after each (write_scan, fixed seed):
    devices of several chunk groups and of one, chunks of one page and of
    several, all-null pages in both, and a column null in a whole batch.
    stats-table-java-flags.tsfile: stats-table.tsfile with the index's
    flags as Java writes them (java_flags). All with the official reader's
    values and series statistics."""
    global OFFICIAL_STATISTICS
    OFFICIAL_STATISTICS = True
    tree = os.path.join(out, "stats-tree.tsfile")
    table = os.path.join(out, "stats-table.tsfile")
    for path in (tree, table, os.path.join(out, "stats-table-java-flags.tsfile")):
        if os.path.exists(path):
            os.remove(path)
    metas = {tree: write_stats_tree(tree)}
    meta, _ = write_scan(random.Random(SCAN_SEED), table, COMP.SNAPPY, 10,
                         [DT.INT64, DT.FLOAT, DT.STRING, DT.BOOLEAN],
                         {"d0": STATS_BATCHES, "d1": [25], "d2": [4], "d3": [10, 30, 1]},
                         key_enc={"int64": ENC.TS_2DIFF, "float": ENC.GORILLA, "string": ENC.PLAIN,
                                  "boolean": ENC.PLAIN})
    metas[table] = meta
    java = os.path.join(out, "stats-table-java-flags.tsfile")
    java_flags(table, java)
    metas[java] = json.loads(json.dumps(meta))
    for path, meta in metas.items():
        meta["library"] = library_version()
        read_back(path, meta)
        with open(path + ".json", "w") as f:
            json.dump(meta, f)
        print_layout(path)


# --- Page headers whose uncompressed size lies (--size-lies) ---

SIZE_LIE_COMPRESSIONS = [COMP.SNAPPY, COMP.GZIP, COMP.LZO, COMP.LZ4, COMP.ZSTD, COMP.LZMA2]


def size_lie_file(path, comp):
    """One tree-model series (INT64 PLAIN: runs of one value, so every
    codec compresses it well), 250 rows in pages of 100: the first page's
    header says 825 bytes, a two-byte varint."""
    w = t.TsFileWriter(path)
    t.set_tsfile_config({"page_writer_max_point_num_": 100, "time_encoding_type_": ENC.TS_2DIFF,
                         "time_compress_type_": comp, "default_compression_type_": comp})
    w.register_timeseries("root.d", t.TimeseriesSchema("s", DT.INT64, ENC.PLAIN, comp))
    for i in range(250):
        w.write_row_record(t.RowRecord("root.d", i, [t.Field("s", 7 if i % 50 else i, DT.INT64)]))
    w.close()


def first_page_size(b):
    """(offset, end) of the first chunk's first page's uncompressed-size varint."""
    i = 7
    if b[i] != 0x00:
        raise ValueError("no chunk group first")
    n, i = _uvarint(b, i + 1)
    for _ in range(n):
        _, i = _var_string(b, i)
    i += 1  # chunk marker
    _, i = _var_string(b, i)
    _, i = _uvarint(b, i)
    i += 3  # type, compression, encoding
    _, end = _uvarint(b, i)
    return i, end


def varint_of_width(v, width):
    """`v` as a varint of exactly `width` bytes (padded with continuation
    bytes, as a reader of varints takes them), or None if it needs more."""
    out = []
    for k in range(width):
        x, v = v & 0x7F, v >> 7
        out.append(x | (0x80 if k + 1 < width else 0))
    return bytes(out) if v == 0 else None


def official_verdict(path):
    """What the official reader makes of a file: every point of root.d.s,
    or its error. Run in a child process: a reader that crashes on a bad
    page takes only the child with it."""
    import subprocess
    code = ("import sys, json, tsfile as t\n"
            "try:\n"
            "    r = t.TsFileReader(sys.argv[1])\n"
            "    rs = r.query_timeseries('root.d', ['s'], -2**63, 2**63 - 1)\n"
            "    n = 0\n"
            "    while rs.next():\n"
            "        rs.get_value_by_name('s'); n += 1\n"
            "    rs.close(); r.close()\n"
            "    print(json.dumps({'official': 'accepted', 'rows': n}))\n"
            "except Exception as e:\n"
            "    print(json.dumps({'official': 'refused', 'message': str(e)}))\n")
    r = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return {"official": "refused", "message": f"reader process exit {r.returncode}"}
    return json.loads(r.stdout.strip().splitlines()[-1])


def size_lies(out):
    """For each compression, a file whose first page the official reader
    reads, and what it makes of that file with the page's uncompressed
    size replaced by lies of the same varint width (one short, one over,
    zero, double, the smallest and largest the width holds):
    `size-lies.json` beside the files. The files are the official
    writer's, so they regenerate byte for byte."""
    report = {"library": library_version(), "files": []}
    scratch = os.path.join(out, "patched.tmp")
    for comp in SIZE_LIE_COMPRESSIONS:
        name = f"size-lies-{comp.name.lower()}.tsfile"
        path = os.path.join(out, name)
        if os.path.exists(path):
            os.remove(path)
        size_lie_file(path, comp)
        with open(path, "rb") as f:
            b = f.read()
        at, end = first_page_size(b)
        true_size, _ = _uvarint(b, at)
        width = end - at
        entry = {"file": name, "compression": comp.name, "size_at": at, "size_width": width,
                 "true_size": true_size, "sizes": []}
        for size in [true_size, true_size - 1, true_size + 1, 0, 2 * true_size, 1 << (7 * (width - 1)),
                     (1 << (7 * width)) - 1]:
            encoded = varint_of_width(size, width)
            patched = b[:at] + encoded + b[end:]
            with open(scratch, "wb") as f:
                f.write(patched)
            entry["sizes"].append({"size": size, **official_verdict(scratch)})
        os.remove(scratch)
        if entry["sizes"][0]["official"] != "accepted":
            raise SystemExit(f"{name}: the official reader refuses the file as written")
        report["files"].append(entry)
    with open(os.path.join(out, "size-lies.json"), "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="directory to write into (required but for --inspect)")
    ap.add_argument("--seed", type=int, default=random.SystemRandom().randrange(2**32))
    ap.add_argument("--files", type=int, default=8)
    ap.add_argument("--max-rows", type=int, default=1500)
    ap.add_argument("--all", action="store_true",
                    help="every encoding and compression the writer accepts, not only those the kernels cover")
    ap.add_argument("--read-back", action="store_true",
                    help="also record what the official reader returns for every series (`official`)")
    ap.add_argument("--page-points", type=int, help="points per page (default: random)")
    ap.add_argument("--large", type=int, metavar="N",
                    help="also write large.tsfile: N rows in one page (above 2^20 reaches past the old caps)")
    ap.add_argument("--huge", type=int, metavar="N",
                    help="write only huge.tsfile: N rows in one page through Arrow (its JSON: the formula)")
    ap.add_argument("--matrix", action="store_true",
                    help="one tree-model file per compression, each with every type x encoding the writer "
                         "accepts, and table-model files that together hold every type x encoding and compression")
    ap.add_argument("--queries", type=int, default=0, metavar="N",
                    help="also run N filtered queries on every table-model file (<file>.queries.json)")
    ap.add_argument("--scan-fixtures", action="store_true",
                    help="write the committed scan fixtures (scan-*.tsfile, fixed seed) and nothing else")
    ap.add_argument("--sprintz-fixture", action="store_true",
                    help=f"write the committed {SPRINTZ_FIXTURE} (fixed seed) and nothing else")
    ap.add_argument("--official-statistics", action="store_true",
                    help="with --read-back, also record the series statistics the official reader reads "
                         "(`official_statistics`)")
    ap.add_argument("--statistics-fixtures", action="store_true",
                    help="write the committed statistics fixtures (stats-*.tsfile) and nothing else")
    ap.add_argument("--size-lies", action="store_true",
                    help="write the committed size-lies fixtures (size-lies-*.tsfile, size-lies.json) and nothing else")
    ap.add_argument("--inspect", nargs="+", metavar="FILE",
                    help="print the chunk groups, chunks and pages of FILEs and exit")
    args = ap.parse_args()
    if args.inspect:
        for path in args.inspect:
            print_layout(path)
        return
    if not args.out:
        ap.error("the following arguments are required: --out")
    if args.scan_fixtures:
        os.makedirs(args.out, exist_ok=True)
        scan_fixtures(args.out)
        return
    if args.statistics_fixtures:
        os.makedirs(args.out, exist_ok=True)
        statistics_fixtures(args.out)
        return
    if args.size_lies:
        os.makedirs(args.out, exist_ok=True)
        size_lies(args.out)
        return
    if args.sprintz_fixture:
        os.makedirs(args.out, exist_ok=True)
        sprintz_fixture(args.out)
        return
    if args.huge:
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, "huge.tsfile")
        if os.path.exists(path):
            os.remove(path)
        meta = write_huge(path, args.huge)
        with open(path + ".json", "w") as f:
            json.dump(meta, f)
        return
    global ENCODINGS, COMPRESSIONS, PAGE_POINTS, TAG_FILTERS, OFFICIAL_STATISTICS
    OFFICIAL_STATISTICS = args.official_statistics
    SHAPES.extend(["spiked", "spiked"])
    TAG_FILTERS = True
    if args.all:
        ENCODINGS, COMPRESSIONS = ALL_ENCODINGS, ALL_COMPRESSIONS
    if args.page_points:
        PAGE_POINTS = [args.page_points]
    os.makedirs(args.out, exist_ok=True)
    # --matrix: the tree-model files (one per compression, every pair), then
    # the table-model ones (one per encoding index, compressions in turn).
    table_matrix = max(len(e) for e in ALL_ENCODINGS.values())
    files = len(ALL_COMPRESSIONS) + table_matrix if args.matrix else args.files
    print(f"tsfile generator: seed {args.seed}, {files} files into {args.out}", file=sys.stderr)
    for i in range(files):
        rng = random.Random(args.seed * 1000 + i)
        if args.matrix and i >= len(ALL_COMPRESSIONS):
            j = i - len(ALL_COMPRESSIONS)
            comp = ALL_COMPRESSIONS[j % len(ALL_COMPRESSIONS)]
            name = f"matrix-table-{j}-{comp.name.lower()}"
        elif args.matrix:
            name = f"matrix-{ALL_COMPRESSIONS[i].name.lower()}"
        else:
            name = f"gen-{args.seed}-{i:03d}"
        path = os.path.join(args.out, name + ".tsfile")
        for stale in (path, path + ".queries.json"):
            if os.path.exists(stale):
                os.remove(stale)
        if args.matrix and i >= len(ALL_COMPRESSIONS):
            meta = write_matrix_table(rng, path, j, comp, args.max_rows)
        elif args.matrix:
            meta = write_matrix(rng, path, ALL_COMPRESSIONS[i], args.max_rows)
        else:
            meta = (write_tree if i % 2 == 0 else write_table)(rng, path, args.max_rows)
        layout = meta.pop("_layout", None)
        if args.queries and layout is not None:
            write_queries(path, layout, meta["page_points"], args.queries, random.Random(f"queries-{args.seed}-{i}"))
        meta["seed"] = args.seed
        meta["index"] = i
        meta["library"] = getattr(t, "__version__", "2.5")
        if args.read_back:
            read_back(path, meta)
        with open(path + ".json", "w") as f:
            json.dump(meta, f)
    if args.large:
        path = os.path.join(args.out, f"large-{args.seed}.tsfile")
        if os.path.exists(path):
            os.remove(path)
        meta = write_large(random.Random(args.seed), path, args.large)
        meta["seed"] = args.seed
        with open(path + ".json", "w") as f:
            json.dump(meta, f)


if __name__ == "__main__":
    main()
