#!/usr/bin/env python3
"""Write TsFiles with the official Apache TsFile library (the `tsfile` package
on PyPI, C++ with Python bindings) and, next to each, a JSON file with every
value it was given. crossdec's streaming reader (`tsfile/`, its tests and
the harness's `tsfile_oracle` / `tsfile_reader` tests)
decodes the files and must get the same values back.

    generate.py --out DIR [--seed N] [--files N] [--max-rows N]
                [--all] [--matrix] [--read-back] [--page-points N]

Each file is either non-aligned (tree model: per-series encoding and
compression) or aligned (table model: one encoding per data type and one
compression per file, nulls as bitmaps). Series shapes: constant, monotone,
random walk, full range and edge values (int MIN/MAX/0/+-1, NaN, +-inf, -0.0,
subnormals, the GORILLA terminators). Page sizes vary from a few points to
thousands, so pages hit block and run boundaries.

JSON values: integers for BOOLEAN (0/1), INT32, INT64; the IEEE bit pattern
as an unsigned integer for FLOAT and DOUBLE (so NaNs compare exactly); hex
for TEXT; null for a null cell.
"""

import argparse
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
# compression it offers (--all; docs/tsfile-encodings.md has the table).
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


def series(rng, dtype, n, tree=False):
    """n values of dtype (Python values as the writer takes them). The Python
    binding stores DOUBLE NaNs as the canonical NaN (payloads are not kept),
    and the tree model's row records refuse non-finite FLOAT values (`tree`),
    so the series keep to what the library can store."""
    shape = rng.choice(["constant", "monotone", "walk", "full", "edges"])
    if dtype in (DT.INT32, DT.INT64):
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
    # TEXT
    if shape == "constant":
        s = "".join(rng.choice("abcxyz") for _ in range(rng.randint(0, 10)))
        return [s] * n
    return ["".join(rng.choice("abcdefghij0123456789-_ ") for _ in range(rng.randint(0, 40))) for _ in range(n)]


def to_json(dtype, v):
    if v is None:
        return None
    if dtype == DT.BOOLEAN:
        return int(v)
    if dtype in (DT.INT32, DT.INT64):
        return v
    if dtype == DT.FLOAT:
        return f32_bits(v)
    if dtype == DT.DOUBLE:
        return f64_bits(v)
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
    for d in range(rng.randint(1, 3)):
        device = f"dev{d}"
        n = rng.randint(1, max_rows)
        times = timestamps(rng, n)
        tab = t.Tablet(["id"] + [name for name, _ in fields], [DT.STRING] + [dtype for _, dtype in fields], n)
        tab.set_table_name("tb")
        cols = {}
        for name, dtype in fields:
            p_null = rng.choice([0.0, 0.1, 0.5, 1.0 if rng.random() < 0.1 else 0.3])
            vals = series(rng, dtype, n)
            cols[name] = [None if rng.random() < p_null else v for v in vals]
        for i in range(n):
            tab.add_timestamp(i, times[i])
            tab.add_value_by_name("id", i, device)
            for name, _ in fields:
                if cols[name][i] is not None:
                    tab.add_value_by_name(name, i, cols[name][i])
        w.write_table(tab)
        for name, dtype in fields:
            meta["series"].append({"device": f"tb.{device}", "measurement": name, "dtype": int(dtype),
                                   "encoding": int(type_enc[dtype]), "compression": int(comp),
                                   "points": [[times[i], to_json(dtype, cols[name][i])] for i in range(n)]})
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


def write_large(rng, path, n):
    """One table, one device, `n` rows in one page (--large N): an INT64
    TS_2DIFF column, LZ4. Pages past 2^20 points are what the official
    library writes once its page size is raised. TS_2DIFF on INT64 keeps
    every value, so the values written are the oracle (reading a million
    rows back through the Python binding takes a minute)."""
    w = t.TsFileWriter(path)
    t.set_tsfile_config({
        "page_writer_max_point_num_": n,
        "page_writer_max_memory_bytes_": 2**31 - 1,
        "time_encoding_type_": ENC.TS_2DIFF,
        "time_compress_type_": COMP.LZ4,
        "default_compression_type_": COMP.LZ4,
        "int64_encoding_type_": ENC.TS_2DIFF,
        "double_encoding_type_": ENC.GORILLA,
    })
    schema = t.TableSchema("big", [t.ColumnSchema("id", DT.STRING, t.ColumnCategory.TAG),
                                   t.ColumnSchema("i", DT.INT64, t.ColumnCategory.FIELD)])
    w.register_table(schema)
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
                v = rs.get_value_by_name(s["measurement"])
                if isinstance(v, bytes):
                    v = v.decode()
            if v is None and meta["model"] == "tree":
                continue
            got.append([time, to_json(dtype, v)])
        rs.close()
        s["official"] = got
        # The oracle is what the official reader returns; what was written
        # only adds size.
        del s["points"]
    r.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
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
    ap.add_argument("--matrix", action="store_true",
                    help="one file per compression, each with every type x encoding the writer accepts")
    args = ap.parse_args()
    global ENCODINGS, COMPRESSIONS, PAGE_POINTS
    if args.all:
        ENCODINGS, COMPRESSIONS = ALL_ENCODINGS, ALL_COMPRESSIONS
    if args.page_points:
        PAGE_POINTS = [args.page_points]
    os.makedirs(args.out, exist_ok=True)
    files = len(ALL_COMPRESSIONS) if args.matrix else args.files
    print(f"tsfile generator: seed {args.seed}, {files} files into {args.out}", file=sys.stderr)
    for i in range(files):
        rng = random.Random(args.seed * 1000 + i)
        name = f"matrix-{ALL_COMPRESSIONS[i].name.lower()}" if args.matrix else f"gen-{args.seed}-{i:03d}"
        path = os.path.join(args.out, name + ".tsfile")
        if os.path.exists(path):
            os.remove(path)
        if args.matrix:
            meta = write_matrix(rng, path, ALL_COMPRESSIONS[i], args.max_rows)
        else:
            meta = (write_tree if i % 2 == 0 else write_table)(rng, path, args.max_rows)
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
