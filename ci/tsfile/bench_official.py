#!/usr/bin/env python3
"""The seed's aligned scan on a file the official library wrote, read by the
official reader (PyPI `tsfile`, the C++ library through Python) and by
crossdec's scanners through `crossdec tsfile --filter`.

    bench_official.py --crossdec target/release/crossdec [--out DIR]
                      [--rows 200000] [--columns 8] [--rounds 9] [--table PAGE]

For each page size (512 and 8,192 points) it writes one table-model file:
one device, `--columns` INT64 columns TS_2DIFF, UNCOMPRESSED, `--rows` rows
of random-walk values at times 0, 1, 2, ... (the seed benchmark's data,
`harness/bench/benches/tsfile_aligned.rs`). The query is the seed's window,
the middle half of the times, every column. Then, in rounds that alternate
the two readers:

- official, per scan: in one process, `query_table` of the window with
  Arrow batches of 65,536 rows, every batch read (the reader opened once);
- official, whole process: a fresh Python that imports the library, opens
  the file, runs the query and reads every batch (interpreter start
  included);
- crossdec, per scan: `crossdec tsfile FILE --filter ... --repeat 20`, the
  median of 20 scans in one process for the reference scanner and each
  kernel variant (each scan reads the device's chunks from the file again).

Prints a table of medians over the rounds, with values/s (retained rows x
columns / time), and writes it to DIR/bench-official.json; with --table
PAGE, also into PAGE between `<!-- official-aligned:begin -->` and
`<!-- official-aligned:end -->`.
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
import subprocess
import sys
import time

import tsfile as t

DT = t.TSDataType
BEGIN, END = "<!-- official-aligned:begin -->", "<!-- official-aligned:end -->"


def write(path, rows, columns, page_points):
    if os.path.exists(path):
        os.remove(path)
    w = t.TsFileWriter(path)
    # Set after the writer exists: creating one resets the global config.
    t.set_tsfile_config({
        "page_writer_max_point_num_": page_points,
        "time_encoding_type_": t.TSEncoding.TS_2DIFF,
        "int64_encoding_type_": t.TSEncoding.TS_2DIFF,
        "time_compress_type_": t.Compressor.UNCOMPRESSED,
        "default_compression_type_": t.Compressor.UNCOMPRESSED,
    })
    names = [f"c{k}" for k in range(columns)]
    schema = t.TableSchema("tb", [t.ColumnSchema("id", DT.STRING, t.ColumnCategory.TAG)]
                           + [t.ColumnSchema(n, DT.INT64, t.ColumnCategory.FIELD) for n in names])
    w.register_table(schema)
    rng = random.Random(1)
    batch = 50_000
    walks = [0] * columns
    for lo in range(0, rows, batch):
        n = min(batch, rows - lo)
        tab = t.Tablet(["id"] + names, [DT.STRING] + [DT.INT64] * columns, n)
        tab.set_table_name("tb")
        for i in range(n):
            tab.add_timestamp(i, lo + i)
            tab.add_value_by_name("id", i, "dev0")
            for k, name in enumerate(names):
                walks[k] += rng.randint(-1000, 1000)
                tab.add_value_by_name(name, i, walks[k])
        w.write_table(tab)
    w.close()
    return names


QUERY = """
import sys, tsfile as t
r = t.TsFileReader(sys.argv[1])
rs = r.query_table("tb", sys.argv[2].split(","), int(sys.argv[3]), int(sys.argv[4]), batch_size=65536)
n = 0
while True:
    b = rs.read_arrow_batch()
    if b is None or len(b) == 0:
        break
    n += len(b)
rs.close()
r.close()
print(n)
"""


def official_per_scan(reader, names, lo, hi):
    start = time.perf_counter()
    rs = reader.query_table("tb", names, lo, hi, batch_size=65536)
    n = 0
    while True:
        b = rs.read_arrow_batch()
        if b is None or len(b) == 0:
            break
        n += len(b)
    rs.close()
    return time.perf_counter() - start, n


def official_whole_process(path, names, lo, hi):
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", QUERY, path, ",".join(names), str(lo), str(hi)],
                         check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - start, int(out)


def crossdec_scan(binary, path, lo, hi, repeat):
    out = subprocess.run([binary, "tsfile", path, "--filter", f"time between {lo} and {hi}",
                          "--print-rows", "0", "--block-rows", "65536", "--repeat", str(repeat)],
                         check=True, capture_output=True, text=True).stdout
    rows = int(re.search(r"rows: (\d+)", out).group(1))
    timings = dict((name, float(ms) / 1e3) for name, ms in re.findall(r"([\w/]+) ([\d.]+) ms", out))
    if "every implementation agreed" not in out:
        sys.exit(f"crossdec disagreed:\n{out}")
    return timings, rows


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def write_between(page, begin, end, text):
    """Replace what `page` holds between its `begin` and `end` markers."""
    with open(page) as f:
        old = f.read()
    a, b = old.index(begin) + len(begin), old.index(end)
    with open(page, "w") as f:
        f.write(old[:a] + "\n" + text + "\n" + old[b:])


def table(results, command, rows, columns):
    """The markdown table of `results`: one line per page size."""
    lines = [
        f"Measured {datetime.date.today().isoformat()} on {platform.machine()} ({cpu_name()}, "
        f"{os.cpu_count()} logical cores), `tsfile` {importlib.metadata.version('tsfile')}, {rows:,} rows x "
        f"{columns} INT64 TS_2DIFF columns, UNCOMPRESSED, the middle half, medians of the rounds: `{command}`",
        "",
        "| pages | official, per scan | official, whole process | crossdec reference | crossdec kernel "
        "| crossdec kernel, baseline | kernel / official (per scan) |",
        "|---|---|---|---|---|---|---|",
    ]
    for pages in sorted({r["page_points"] for r in results}, reverse=True):
        by = {r["reader"]: r for r in results if r["page_points"] == pages}
        official, kernel = by["official, per scan"], by["crossdec aligned/planned, per scan"]
        cell = lambda r: f"{r['median_ms']:.2f} ms ({r['values_per_s'] / 1e6:,.0f} M values/s)"
        lines.append(f"| {pages:,} | {cell(official)} | {by['official, whole process']['median_ms']:.0f} ms "
                     f"| {by['crossdec reference, per scan']['median_ms']:.2f} ms | {cell(kernel)} "
                     f"| {by['crossdec aligned/baseline, per scan']['median_ms']:.2f} ms "
                     f"| **{official['median_ms'] / kernel['median_ms']:.1f}x** |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--crossdec", required=True, help="the crossdec binary (a release build)")
    ap.add_argument("--out", default="target/crossdec/bench-official")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--columns", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--table", help="a markdown page to write the table into, between its markers")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    lo, hi = args.rows // 4, 3 * args.rows // 4 - 1
    results = []
    for page_points in (8192, 512):
        path = os.path.join(args.out, f"seed-{page_points}.tsfile")
        names = write(path, args.rows, args.columns, page_points)
        reader = t.TsFileReader(path)
        samples = {}
        rows = None
        for _ in range(args.rounds):
            s, n = official_per_scan(reader, names, lo, hi)
            samples.setdefault("official, per scan", []).append(s)
            rows = rows or n
            assert n == rows, (n, rows)
            s, n = official_whole_process(path, names, lo, hi)
            samples.setdefault("official, whole process", []).append(s)
            assert n == rows, (n, rows)
            timings, n = crossdec_scan(args.crossdec, path, lo, hi, 20)
            assert n == rows, (n, rows)
            for name, s in timings.items():
                samples.setdefault(f"crossdec {name}, per scan", []).append(s)
        reader.close()
        values = rows * args.columns
        for name, xs in samples.items():
            m = statistics.median(xs)
            results.append({"page_points": page_points, "reader": name, "median_ms": m * 1e3,
                            "values_per_s": values / m, "rows": rows})
    print(f"{'pages':>6}  {'reader':<34} {'median':>10} {'values/s':>10}")
    for r in results:
        print(f"{r['page_points']:>6}  {r['reader']:<34} {r['median_ms']:>8.2f} ms {r['values_per_s'] / 1e6:>8.1f} M")
    with open(os.path.join(args.out, "bench-official.json"), "w") as f:
        json.dump({"rows": args.rows, "columns": args.columns, "window": [lo, hi], "results": results}, f, indent=1)
    if args.table:
        command = f"ci/tsfile/bench_official.py --crossdec {args.crossdec}" + \
            (f" --rounds {args.rounds}" if args.rounds != 9 else "") + \
            (f" --rows {args.rows}" if args.rows != 200_000 else "") + \
            (f" --columns {args.columns}" if args.columns != 8 else "")
        write_between(args.table, BEGIN, END, table(results, command, args.rows, args.columns))


if __name__ == "__main__":
    main()
