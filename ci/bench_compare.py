#!/usr/bin/env python3
"""Performance-regression check: BASE's and HEAD's targets benchmark in turns.

See ci/bench-compare for usage. How it works, and why:

Builds. BASE and HEAD may have different kernel APIs, so each build runs its
own targets benchmark (harness/bench/benches/targets.rs). BASE is checked out in a git worktree at
target/bench-compare/base-src and built with its own CARGO_TARGET_DIR
(target/bench-compare/base-target): cargo names a workspace crate's
artifacts by its path relative to the workspace root, so two checkouts
sharing one target dir would overwrite each other's crates and rebuild them
on every run. HEAD is this working tree, built in its usual target dir,
uncommitted changes included (the check is meant to run before committing).

Rounds. The two benchmark binaries run as alternating processes, in the order
base, head, head, base, base, head, ...: round i is one process of each, and
its ratio is head / base of every target's figure. Load on a shared machine
drifts over minutes, and a process's memory layout (4 KiB aliasing between
buffers, ASLR) moves a kernel by up to 20% from one process to the next;
pairing neighbouring processes cancels the drift, alternating which one runs
first cancels any first-or-second bias, and repeating rounds measures the
per-process noise instead of assuming it. Inside a process the benchmark
itself interleaves every contender (kernel, reference, peers) for
--inner-rounds rounds and reports medians, each batch charged its thread's
CPU time (a batch preempted by another process is not charged for the
wait). The defaults (20 rounds of 11 inner rounds) spend the time on
processes rather than inner rounds, because the process-to-process noise
is the larger one, and 20 rounds give the median a 95.9% interval between
the 6th and the 15th ratio, robust to a few rounds hit by a load spike.

Layout. A decoder's speed depends on where its buffers lie relative to each
other (4 KiB aliasing of loads and stores), and the heap offsets follow from
every earlier allocation, among them the copy of argv: two builds run from
paths of different lengths get different offsets in every process, a bias
no number of rounds averages out. So both binaries run from copies at target/bench-compare/bin/
{base,head}, and each process gets one more argument, "--layout-pad=" and
0..4095 random bytes (the benchmark ignores arguments starting with "-"):
the heap offsets then change from process to process, which turns that luck
into per-process noise the rounds measure like any other.

Every figure of the targets benchmark is "higher is better" (a speedup over a
reference or peer, or a rate), so a ratio below 1 is a slowdown.

Verdict. Per target: the median of the per-round ratios, their spread (the
median absolute deviation of the ratios, scaled by 1.4826 to estimate a
standard deviation under normal noise) and a distribution-free confidence
interval for the median (order statistics of the ratios: the interval
[r_(k), r_(n+1-k)] with the largest k such that a Binomial(n, 1/2) falls
below k with probability at most (1 - confidence) / 2; no assumption on the
shape of the noise, no random resampling, so the same figures always give
the same verdict). The threshold is 1 - floor (default floor 5%). A target
fails when the whole interval lies below the threshold: the slowdown is
larger than the floor, and larger than the measured noise allows. Noisy
targets get wide intervals and need a larger slowdown to fail. The floor is
for what the rounds cannot measure: a difference fixed per build (code and
constant alignment, which the padding does not move). 5% lets a 15%
slowdown fail wherever the noise is a few percent (--selftest 0.15 shows
whether it is on a given machine) and keeps such fixed differences of a
few percent from failing the check.
An interval wholly below 1.0 but not below the threshold says "slower?"
without failing: worth a look (a rerun with more --rounds, on a quieter
machine), not proof. An interval wholly above 1 + floor says "faster".
"""
import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "target" / "bench-compare"
BASE_SRC = WORK / "base-src"
BASE_TARGET = WORK / "base-target"
RUNS = WORK / "runs"
BIN = WORK / "bin"
def bench_command(tree):
    """The targets benchmark of a source tree: in its own crate
    (harness/bench) since the benchmarks left the harness crate, which held
    it before."""
    package = "crossdec-bench" if (Path(tree) / "harness" / "bench" / "Cargo.toml").exists() else "crossdec-harness"
    return ["bench", "-p", package, "--bench", "targets"]


def die(msg, code=2):
    print(f"ci/bench-compare: {msg}", file=sys.stderr)
    sys.exit(code)


def git(*args, cwd=ROOT, check=True):
    r = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and r.returncode != 0:
        die(f"git {' '.join(args)} failed:\n{r.stderr.strip()}")
    return r.stdout.strip()


def checkout_base(sha):
    """BASE in a detached worktree under target/, reused between runs (only
    changed files are rewritten, so cargo rebuilds only what changed)."""
    git("worktree", "prune")
    if BASE_SRC.exists():
        r = subprocess.run(
            ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
            cwd=BASE_SRC,
            capture_output=True,
            text=True,
        )
        ours = git("rev-parse", "--path-format=absolute", "--git-common-dir")
        if r.returncode != 0 or r.stdout.strip() != ours or not (BASE_SRC / ".git").is_file():
            shutil.rmtree(BASE_SRC)
            git("worktree", "prune")
    if BASE_SRC.exists():
        git("checkout", "--quiet", "--force", "--detach", sha, cwd=BASE_SRC)
        git("clean", "--quiet", "-fdx", "-e", "target", cwd=BASE_SRC)
    else:
        BASE_SRC.parent.mkdir(parents=True, exist_ok=True)
        git("worktree", "add", "--quiet", "--detach", str(BASE_SRC), sha)


def build(label, cwd, target_dir):
    """Builds the targets bench; returns the executable's path."""
    env = dict(os.environ)
    if target_dir is not None:
        env["CARGO_TARGET_DIR"] = str(target_dir)
    print(f"== building {label}'s targets benchmark ({cwd})", flush=True)
    bench = bench_command(cwd)
    r = subprocess.run(
        ["cargo", *bench, "--no-run", "--message-format=json-render-diagnostics"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    exe = None
    for line in r.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("target", {}).get("name") == "targets":
            exe = msg.get("executable") or exe
    if r.returncode != 0 or exe is None:
        die(
            f"{label} does not build the targets benchmark (`cargo {' '.join(bench)} --no-run` in {cwd}); "
            "it exists since commit 612fe3e, an older BASE cannot be compared",
        )
    return exe


def run_once(side, exe, default_json, index, args, pad, slowdown=0.0):
    """One process of one build; returns {target: figure}. `slowdown`: the
    fraction the benchmark plants in the code under test (--selftest)."""
    out = RUNS / f"{index:03d}-{side}.json"
    log = RUNS / f"{index:03d}-{side}.log"
    out.unlink(missing_ok=True)
    start = time.time()
    env = dict(os.environ)
    env["CROSSDEC_TARGET_ROUNDS"] = str(args.inner_rounds)
    env["CROSSDEC_TARGETS_SLOWDOWN"] = str(slowdown)
    # A build whose benchmark predates CROSSDEC_TARGETS_JSON writes to its own
    # tree's target/perf-targets.json (a compile-time path); read it there.
    env["CROSSDEC_TARGETS_JSON"] = str(out)
    # ... which must exist: BASE's target dir is elsewhere.
    default_json.parent.mkdir(parents=True, exist_ok=True)
    # The benchmark ignores arguments starting with "-" (cargo passes --bench).
    argv = [exe, "--layout-pad=" + "x" * pad] + ([args.filter] if args.filter else [])
    with open(log, "w") as f:
        r = subprocess.run(argv, env=env, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT)
    if r.returncode != 0:
        die(f"{side}'s benchmark failed (exit code {r.returncode}); its output: {log}")
    if not out.exists():
        if not default_json.exists() or default_json.stat().st_mtime < start - 1:
            die(f"{side}'s benchmark wrote neither {out} nor {default_json}; its output: {log}")
        shutil.copyfile(default_json, out)
    report = json.loads(out.read_text())
    return {row["target"]: (row["measured"], row.get("unit", "")) for row in report["targets"]}


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def median_interval(xs, confidence):
    """Distribution-free interval for the median: order statistics k and
    n+1-k (1-based), k the largest with P(Binomial(n, 1/2) < k) <= alpha/2.
    Returns (lo, hi, achieved coverage); with too few rounds for the asked
    confidence, the full range and its (lower) coverage."""
    s = sorted(xs)
    n = len(s)
    below = lambda k: sum(math.comb(n, j) for j in range(k)) / 2**n  # noqa: E731  P(B < k)
    k = 1
    for cand in range(2, (n + 1) // 2 + 1):
        if below(cand) > (1 - confidence) / 2:
            break
        k = cand
    lower_tail = below(k)
    return s[k - 1], s[n - k], 1 - 2 * lower_tail


def mad(xs):
    m = median(xs)
    return 1.4826 * median([abs(x - m) for x in xs])


def analyse(base_runs, head_runs, args):
    names = [t for t in base_runs[0] if all(t in r for r in base_runs + head_runs)]
    only = sorted(
        {t for r in base_runs + head_runs for t in r} - set(names),
    )
    threshold = 1 - args.floor
    rows = []
    for name in names:
        b = [r[name][0] for r in base_runs]
        h = [r[name][0] for r in head_runs]
        ratios = [hv / bv if bv > 0 else float("nan") for hv, bv in zip(h, b)]
        ratios = [x for x in ratios if math.isfinite(x)]
        if not ratios:
            continue
        lo, hi, coverage = median_interval(ratios, args.confidence)
        if hi < threshold:
            verdict = "SLOWER"
        elif hi < 1:
            # Measurably slower, but not beyond the floor: said, not failed.
            verdict = "slower?"
        elif lo > 1 + args.floor:
            verdict = "faster"
        else:
            verdict = "ok"
        rows.append(
            {
                "target": name,
                "unit": base_runs[0][name][1],
                "base": median(b),
                "head": median(h),
                "base_rounds": b,
                "head_rounds": h,
                "ratios": ratios,
                "ratio_median": median(ratios),
                "ratio_mad": mad(ratios),
                "interval": [lo, hi],
                "interval_coverage": coverage,
                "threshold": threshold,
                "verdict": verdict,
            }
        )
    return rows, only


def table(rows):
    print()
    head = f"{'target':<52} {'base':>9} {'head':>9} {'unit':<4} {'ratio':>6} {'spread':>7} {'interval':>13}  verdict"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['target']:<52} {r['base']:>9.3f} {r['head']:>9.3f} {r['unit']:<4} "
            f"{r['ratio_median']:>6.3f} {r['ratio_mad']:>7.3f} "
            f"{r['interval'][0]:>6.3f}-{r['interval'][1]:<6.3f}  {r['verdict']}"
        )


def svg_plot(rows, meta, path):
    """One strip per target: the per-round ratios (dots), the median (bar)
    and its interval (line), on a log axis; dashed lines at 1.0 and at the
    threshold."""
    width, left, right, top, row_h = 1000, 400, 30, 70, 26
    height = top + row_h * len(rows) + 80
    values = [x for r in rows for x in r["ratios"]] + [1.0, meta["threshold"], 1 + meta["floor"]]
    lo = min(values) / 1.05
    hi = max(values) * 1.05
    lo, hi = min(lo, 0.8), max(hi, 1.2)
    ticks = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.25, 1.5, 2, 4, 8, 16, 32]
    # The axis ends on ticks, so both ends are labelled.
    lo = max([t for t in ticks if t <= lo], default=lo)
    hi = min([t for t in ticks if t >= hi], default=hi)
    lx, hx = math.log(lo), math.log(hi)

    def x(v):
        return left + (math.log(v) - lx) / (hx - lx) * (width - left - right)

    esc = lambda s: s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")  # noqa: E731
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="10" y="20" font-size="14" font-weight="bold">'
        f"{esc('targets benchmark: head / base per round (higher is faster)')}</text>",
        f'<text x="10" y="38" fill="#444">{esc(meta["subtitle"])}</text>',
    ]
    bottom = top + row_h * len(rows)
    # 1.0 first, then every tick far enough from those kept for its label.
    kept = [1.0]
    for t in ticks:
        if lo <= t <= hi and all(abs(x(t) - x(k)) >= 38 for k in kept):
            kept.append(t)
    for t in kept:
        out.append(f'<line x1="{x(t):.1f}" y1="{top - 8}" x2="{x(t):.1f}" y2="{bottom}" stroke="#eee"/>')
        out.append(f'<text x="{x(t):.1f}" y="{bottom + 16}" text-anchor="middle" fill="#444">{t:g}</text>')
    out.append(
        f'<text x="{(left + width - right) / 2}" y="{bottom + 36}" text-anchor="middle" fill="#444">'
        "ratio head / base of the target's figure (log scale)</text>"
    )
    for i, r in enumerate(rows):
        y = top + row_h * i + row_h / 2
        color = {"SLOWER": "#c62828", "slower?": "#e65100", "faster": "#2e7d32"}.get(r["verdict"], "#1f4e9c")
        if i % 2:
            out.append(f'<rect x="0" y="{y - row_h / 2}" width="{width}" height="{row_h}" fill="#f7f7f7"/>')
        out.append(
            f'<text x="{left - 8}" y="{y + 4}" text-anchor="end" fill="{color}">'
            f"{esc(r['target'])} ({r['verdict']})</text>"
        )
        ilo, ihi = r["interval"]
        out.append(
            f'<line x1="{x(ilo):.1f}" y1="{y}" x2="{x(ihi):.1f}" y2="{y}" stroke="{color}" stroke-width="3" '
            'stroke-opacity="0.45"/>'
        )
        for j, v in enumerate(r["ratios"]):
            jitter = ((j * 7) % 5 - 2) * 1.6
            out.append(
                f'<circle cx="{x(v):.1f}" cy="{y + jitter:.1f}" r="2.6" fill="{color}" fill-opacity="0.55"/>'
            )
        m = r["ratio_median"]
        out.append(
            f'<line x1="{x(m):.1f}" y1="{y - 9}" x2="{x(m):.1f}" y2="{y + 9}" stroke="{color}" stroke-width="3"/>'
        )
    for v, label, dash, col in [
        (1.0, "1.0", "", "#000"),
        (meta["threshold"], f"threshold {meta['threshold']:g}", "6,4", "#c62828"),
    ]:
        out.append(
            f'<line x1="{x(v):.1f}" y1="{top - 8}" x2="{x(v):.1f}" y2="{bottom}" stroke="{col}" '
            f'stroke-width="1.2" stroke-dasharray="{dash}"/>'
        )
        anchor = "end" if v < 1 else "start"
        dx = -4 if v < 1 else 4
        out.append(f'<text x="{x(v) + dx:.1f}" y="{top - 12}" text-anchor="{anchor}" fill="{col}">{label}</text>')
    for n, line in enumerate(
        [
            "dots: one round each (a base and a head process); tall bar: their median; thick line: its",
            "confidence interval; a target fails when the whole interval lies left of the threshold",
        ]
    ):
        out.append(f'<text x="10" y="{height - 22 + 14 * n}" fill="#666">{line}</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def selftest_verdict(rows, slowdown, floor):
    """--selftest: with a planted slowdown every target must be SLOWER; with
    none, no target may be."""
    if slowdown > 0:
        missed = [r["target"] for r in rows if r["verdict"] != "SLOWER"]
        if missed:
            print(
                f"ci/bench-compare: self-test FAILED: a {slowdown:.0%} slowdown (floor {floor:.0%}) "
                f"not caught on {len(missed)} of {len(rows)} targets: {', '.join(missed)}",
                file=sys.stderr,
            )
            return 1
        print(f"ci/bench-compare: self-test passed: a {slowdown:.0%} slowdown caught on all {len(rows)} targets")
        return 0
    false = [r["target"] for r in rows if r["verdict"] == "SLOWER"]
    if false:
        print(f"ci/bench-compare: self-test FAILED: SLOWER without a slowdown: {', '.join(false)}", file=sys.stderr)
        return 1
    print(f"ci/bench-compare: self-test passed: no target SLOWER without a slowdown ({len(rows)} targets)")
    return 0


def main():
    p = argparse.ArgumentParser(prog="ci/bench-compare", description="see ci/bench-compare")
    p.add_argument("base", nargs="?", default=None, help="base revision")
    p.add_argument("--rounds", type=int, default=20, help="rounds: one base and one head process each")
    p.add_argument("--inner-rounds", type=int, default=11, help="CROSSDEC_TARGET_ROUNDS of each process")
    p.add_argument("--filter", default=None, help="substring filter passed to both benchmarks")
    p.add_argument("--floor", type=float, default=0.05, help="smallest slowdown that can fail (fraction)")
    p.add_argument("--confidence", type=float, default=0.95, help="coverage of the median's interval")
    p.add_argument("--seed", type=int, default=None, help="seed of the layout padding (default: random)")
    p.add_argument("--build-only", action="store_true", help="build both benchmarks and stop")
    p.add_argument(
        "--selftest",
        type=float,
        default=None,
        metavar="F",
        help="no base: this tree's benchmark against itself, the head side slowed by the fraction F "
        "(CROSSDEC_TARGETS_SLOWDOWN); passes when every target is SLOWER (F > 0) or none is (F = 0)",
    )
    args = p.parse_args()
    if args.rounds < 1 or args.inner_rounds < 1:
        die("--rounds and --inner-rounds must be at least 1")
    if not 0 <= args.floor < 1 or not 0 < args.confidence < 1:
        die("--floor must be in [0, 1) and --confidence in (0, 1)")
    started = time.time()

    head_sha = git("rev-parse", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    head_label = f"{head_sha[:10]}{' + uncommitted changes' if dirty else ''}"
    slowdown = 0.0
    if args.selftest is not None:
        if not 0 <= args.selftest < 1:
            die("--selftest takes a fraction in [0, 1)")
        slowdown = args.selftest
        args.base, base_sha = "the working tree", head_sha
        print(
            f"ci/bench-compare: self-test: the working tree against itself, head slowed by {slowdown:.0%} "
            f"(HEAD {head_label})"
        )
        head_exe = build("head", ROOT, None)
        base_exe = head_exe
    else:
        if args.base is None:
            die("a base revision is needed (or --selftest F)")
        base_sha = git("rev-parse", "--verify", "--quiet", f"{args.base}^{{commit}}", check=False)
        if not base_sha:
            die(f"{args.base!r} is not a revision of this repository")
        print(f"ci/bench-compare: base {args.base} ({base_sha[:10]}) against the working tree, HEAD {head_label}")
        checkout_base(base_sha)
        base_exe = build("base", BASE_SRC, BASE_TARGET)
        head_exe = build("head", ROOT, None)
    if args.build_only:
        print(f"built: base {base_exe}\n       head {head_exe}")
        return 0

    if RUNS.exists():
        shutil.rmtree(RUNS)
    RUNS.mkdir(parents=True)
    # Both binaries run from paths of one length (see "Layout" above).
    BIN.mkdir(parents=True, exist_ok=True)
    for side, exe in [("base", base_exe), ("head", head_exe)]:
        shutil.copy2(exe, BIN / side)
    sides = {
        "base": (str(BIN / "base"), BASE_SRC / "target" / "perf-targets.json"),
        "head": (str(BIN / "head"), ROOT / "target" / "perf-targets.json"),
    }
    if args.seed is None:
        args.seed = random.randrange(2**32)
    rng = random.Random(args.seed)
    base_runs, head_runs = [], []
    print(
        f"== {args.rounds} rounds, base and head alternating (base head, head base, ...), "
        f"{args.inner_rounds} inner rounds per process, layout seed {args.seed}"
        f"{', filter ' + args.filter if args.filter else ''}",
        flush=True,
    )
    bench_start = time.time()
    for i in range(args.rounds):
        order = ["base", "head"] if i % 2 == 0 else ["head", "base"]
        got = {}
        for side in order:
            exe, default_json = sides[side]
            planted = slowdown if side == "head" else 0.0
            got[side] = run_once(side, exe, default_json, i, args, rng.randrange(4096), planted)
        base_runs.append(got["base"])
        head_runs.append(got["head"])
        print(f"   round {i + 1}/{args.rounds} done ({time.time() - bench_start:.0f} s)", flush=True)

    rows, only = analyse(base_runs, head_runs, args)
    if not rows:
        die("no target is measured by both builds (check --filter)")
    table(rows)
    if only:
        print(f"\nnot compared (measured by one build only): {', '.join(only)}")
    threshold = 1 - args.floor
    coverage = min(r["interval_coverage"] for r in rows)
    print(
        f"\nratio = head / base of the target's figure (higher is faster); spread = scaled MAD of the "
        f"per-round ratios; interval: {coverage:.1%} for the median; fail when it lies wholly below {threshold:g}"
    )
    if coverage < args.confidence:
        print(f"note: {args.rounds} rounds cannot give {args.confidence:.0%} intervals; the range of the rounds is used")

    slower = [r["target"] for r in rows if r["verdict"] == "SLOWER"]
    meta = {
        "base": args.base,
        "base_commit": base_sha,
        "head_commit": head_sha,
        "head_uncommitted_changes": dirty,
        "rounds": args.rounds,
        "inner_rounds": args.inner_rounds,
        "filter": args.filter,
        "seed": args.seed,
        "floor": args.floor,
        "confidence": args.confidence,
        "threshold": threshold,
        "seconds": round(time.time() - started, 1),
        "machine": os.uname().machine,
        "subtitle": f"base {args.base} ({base_sha[:10]}), head {head_label}; {args.rounds} rounds x "
        f"{args.inner_rounds} inner; floor {args.floor:.0%}, {coverage:.1%} intervals",
    }
    maybe = [r["target"] for r in rows if r["verdict"] == "slower?"]
    report = {**meta, "passed": not slower, "slower": slower, "maybe_slower": maybe, "not_compared": only, "targets": rows}
    (WORK / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    svg_plot(rows, meta, WORK / "ratios.svg")
    print(f"wrote {WORK / 'report.json'} and {WORK / 'ratios.svg'} ({meta['seconds']:.0f} s in all)")
    if args.selftest is not None:
        return selftest_verdict(rows, slowdown, args.floor)
    if slower:
        print(f"ci/bench-compare: FAILED: slower than base beyond the noise: {', '.join(slower)}", file=sys.stderr)
        return 1
    if maybe:
        print(f"ci/bench-compare: slower? (interval below 1.0, not below {threshold:g}; not a failure): {', '.join(maybe)}")
    print("ci/bench-compare: no target slower than base beyond the noise")
    return 0


if __name__ == "__main__":
    sys.exit(main())
