#!/usr/bin/env python3
"""Each TsFile encoding read by the official reader and by crossdec-tsfile,
side by side, from one file per encoding that the official library wrote.

    bench_encodings.py --crossdec target/release/crossdec [--out DIR]
                       [--rows 200000] [--page-points 8192] [--rounds 5]
                       [--only ENCODING[,ENCODING...]] [--table PAGE]

For every type x encoding the official C++ writer (PyPI `tsfile`) writes in
the table model, it writes one file: one device, one FIELD column of that
type and encoding, `--rows` rows at times 0, 1, 2, ..., UNCOMPRESSED (so the
figures are the decoders', not a codec's), pages of `--page-points` points.
Values are what the encoding is for: a random walk for integers, a walk
of two-decimal readings for floats, words from a vocabulary of 100 for
TEXT, random booleans.

Then, in rounds that alternate the two readers:

- official, per scan: in one process, `query_table` of every row with
  Arrow batches of 65,536 rows, every batch read (the reader opened once);
- crossdec, per scan: `crossdec tsfile FILE --filter "time between 0 and
  ROWS-1" --repeat 20`, the
  median of 20 scans in one process for the reference scanner and each
  aligned-scanner kernel (each scan reads the chunks from the file again).

Before the rounds, every row crossdec prints (`--print-rows`) is checked
against the official reader's answer: the same times and the same values
(integers and booleans exactly, floats by their bits through the shortest
round-trip text both sides print, TEXT as the string). In the rounds each
reader must return every row.

Prints, per file, the medians over the rounds and crossdec's planned
scanner against the official reader; writes DIR/bench-encodings.json and,
with --table PAGE, the table between PAGE's
`<!-- official-encodings:begin -->` and `<!-- official-encodings:end -->`.
"""

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import random
import re
import statistics
import struct
import subprocess
import sys

import tsfile as t

from bench_official import cpu_name, crossdec_scan, official_per_scan, write_between

DT = t.TSDataType
ENC = t.TSEncoding

# What the official C++ writer writes in the table model, per type
# (REGULAR only the Java writer writes; BOOLEAN RLE and TEXT's other
# encodings it refuses).
WRITTEN = [
    (DT.INT32, "int32", ["PLAIN", "RLE", "TS_2DIFF", "GORILLA", "ZIGZAG", "CHIMP", "SPRINTZ", "RLBE"]),
    (DT.INT64, "int64", ["PLAIN", "RLE", "TS_2DIFF", "GORILLA", "ZIGZAG", "CHIMP", "SPRINTZ", "RLBE"]),
    (DT.FLOAT, "float", ["PLAIN", "GORILLA", "TS_2DIFF", "CHIMP", "SPRINTZ", "RLBE"]),
    (DT.DOUBLE, "double", ["PLAIN", "GORILLA", "TS_2DIFF", "CHIMP", "SPRINTZ", "RLBE", "CAMEL"]),
    (DT.TEXT, "string", ["PLAIN", "DICTIONARY"]),
    (DT.BOOLEAN, "boolean", ["PLAIN"]),
]
BEGIN, END = "<!-- official-encodings:begin -->", "<!-- official-encodings:end -->"


def values(dtype, rows, rng):
    if dtype in (DT.INT32, DT.INT64):
        walk, out = 0, []
        for _ in range(rows):
            walk += rng.randint(-1000, 1000)
            out.append(walk)
        return out
    if dtype in (DT.FLOAT, DT.DOUBLE):
        walk, out = 2000, []
        for _ in range(rows):
            walk += rng.randint(-50, 50)
            out.append(walk / 100)
        return out
    if dtype == DT.TEXT:
        words = [f"state-{k}" for k in range(100)]
        return [rng.choice(words) for _ in range(rows)]
    return [rng.random() < 0.5 for _ in range(rows)]


def write(path, dtype, key, encoding, rows, page_points):
    if os.path.exists(path):
        os.remove(path)
    w = t.TsFileWriter(path)
    # Set after the writer exists: creating one resets the global config.
    t.set_tsfile_config({
        "page_writer_max_point_num_": page_points,
        "time_encoding_type_": ENC.TS_2DIFF,
        f"{key}_encoding_type_": getattr(ENC, encoding),
        "time_compress_type_": t.Compressor.UNCOMPRESSED,
        "default_compression_type_": t.Compressor.UNCOMPRESSED,
    })
    w.register_table(t.TableSchema("tb", [t.ColumnSchema("id", DT.STRING, t.ColumnCategory.TAG),
                                          t.ColumnSchema("v", dtype, t.ColumnCategory.FIELD)]))
    column = values(dtype, rows, random.Random(1))
    batch = 50_000
    for lo in range(0, rows, batch):
        n = min(batch, rows - lo)
        tab = t.Tablet(["id", "v"], [DT.STRING, dtype], n)
        tab.set_table_name("tb")
        for i in range(n):
            tab.add_timestamp(i, lo + i)
            tab.add_value_by_name("id", i, "dev0")
            tab.add_value_by_name("v", i, column[lo + i])
        w.write_table(tab)
    w.close()


def official_rows(reader, rows):
    rs = reader.query_table("tb", ["v"], 0, rows, batch_size=65536)
    out = []
    while True:
        b = rs.read_arrow_batch()
        if b is None or len(b) == 0:
            break
        out += zip(b.column("time").to_pylist(), b.column("v").to_pylist())
    rs.close()
    return out


def same_rows(binary, path, dtype, official):
    """crossdec's printed rows against the official reader's (time, value)s."""
    out = subprocess.run([binary, "tsfile", path, "--filter", "", "--print-rows", str(len(official))],
                         check=True, capture_output=True, text=True).stdout
    printed = re.findall(r"^    (-?\d+)  (.*)$", out, re.M)
    if len(printed) != len(official):
        sys.exit(f"{path}: crossdec printed {len(printed)} rows, the official reader returned {len(official)}")
    for (time_text, value_text), (t_official, v_official) in zip(printed, official):
        if dtype in (DT.FLOAT, DT.DOUBLE):
            width = "f" if dtype == DT.FLOAT else "d"
            same = struct.pack(f"<{width}", float(value_text)) == struct.pack(f"<{width}", v_official)
        elif dtype == DT.TEXT:
            same = json.loads(value_text) == v_official
        elif dtype == DT.BOOLEAN:
            same = value_text == ("true" if v_official else "false")
        else:
            same = int(value_text) == v_official
        if int(time_text) != t_official or not same:
            sys.exit(f"{path}: at time {time_text} crossdec printed {value_text}, "
                     f"the official reader returned ({t_official}, {v_official!r})")


def table(results, command, rows, page_points):
    lines = [
        f"Measured {datetime.date.today().isoformat()} on {platform.machine()} ({cpu_name()}, "
        f"{os.cpu_count()} logical cores), `tsfile` {importlib.metadata.version('tsfile')}, {rows:,} rows, "
        f"{page_points:,}-point pages, UNCOMPRESSED, medians of the rounds: `{command}`",
        "",
        "| type | encoding | official, per scan | crossdec planned | reference | official / crossdec |",
        "| --- | --- | --: | --: | --: | --: |",
    ]
    for r in results:
        lines.append(f"| {r['type']} | {r['encoding']} | {r['official_ms']:.2f} ms | {r['planned_ms']:.2f} ms "
                     f"| {r['reference_ms']:.2f} ms | **{r['ratio']:.1f}x** |")
    behind = [r for r in results if r["ratio"] <= 1.0]
    lines += ["", "crossdec is ahead on every encoding." if not behind else
              "Behind the official reader: " + ", ".join(f"{r['type']} {r['encoding']}" for r in behind) + "."]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--crossdec", required=True, help="the crossdec binary (a release build)")
    ap.add_argument("--out", default="target/crossdec/bench-encodings")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--page-points", type=int, default=8192)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", help="encodings to run, comma-separated")
    ap.add_argument("--table", help="a markdown page to write the table into, between its markers")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    results = []
    for dtype, key, encodings in WRITTEN:
        for encoding in encodings:
            if only and encoding not in only:
                continue
            path = os.path.join(args.out, f"{key}-{encoding.lower()}.tsfile")
            write(path, dtype, key, encoding, args.rows, args.page_points)
            reader = t.TsFileReader(path)
            same_rows(args.crossdec, path, dtype, official_rows(reader, args.rows))
            samples = {}
            for _ in range(args.rounds):
                s, n = official_per_scan(reader, ["v"], 0, args.rows - 1)
                assert n == args.rows, (path, n)
                samples.setdefault("official", []).append(s)
                timings, n = crossdec_scan(args.crossdec, path, 0, args.rows - 1, 20)
                assert n == args.rows, (path, n)
                for name, s in timings.items():
                    samples.setdefault(name, []).append(s)
            reader.close()
            m = {name: statistics.median(xs) * 1e3 for name, xs in samples.items()}
            r = {"type": key.upper() if key != "string" else "TEXT", "encoding": encoding,
                 "official_ms": m["official"], "planned_ms": m["aligned/planned"],
                 "reference_ms": m["reference"], "ratio": m["official"] / m["aligned/planned"],
                 "all_ms": m}
            results.append(r)
            print(f"{r['type']:>7} {encoding:<10} official {r['official_ms']:8.2f} ms  "
                  f"crossdec {r['planned_ms']:7.2f} ms  reference {r['reference_ms']:7.2f} ms  "
                  f"{r['ratio']:6.1f}x", flush=True)
    with open(os.path.join(args.out, "bench-encodings.json"), "w") as f:
        json.dump({"rows": args.rows, "page_points": args.page_points, "results": results}, f, indent=1)
    if args.table:
        command = f"ci/tsfile/bench_encodings.py --crossdec {args.crossdec}" + \
            (f" --rounds {args.rounds}" if args.rounds != 5 else "") + \
            (f" --rows {args.rows}" if args.rows != 200_000 else "")
        write_between(args.table, BEGIN, END, table(results, command, args.rows, args.page_points))
    if any(r["ratio"] <= 1.0 for r in results):
        sys.exit("crossdec is not ahead of the official reader on every encoding")


if __name__ == "__main__":
    main()
