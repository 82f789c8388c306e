#!/usr/bin/env python3
"""Bug zoo runner (see ci/bug-zoo for usage).

Each bug is a patch in ci/bug-zoo.d/ whose leading comment lines carry its
metadata:

    # family: qwp-ts            the crossdec family it lives in
    # seen-on: big-endian        optional: only a big-endian host can see it
                                 (or 32-bit: only a 32-bit usize; powerpc64:
                                 only powerpc64, not s390x)
    # needs-cpu: avx512_vbmi2   optional: the bug lives in a kernel that runs
                                 only on a CPU with these /proc/cpuinfo
                                 flags (space-separated); elsewhere the bug
                                 is reported exempt, not run
    # what: one line saying what the bug is and where such bugs come from

The patch is applied to a scratch copy of the tree; the tiers below run in
order, cheapest first. By default the first tier that catches the bug ends
its run; a bug marked seen-on runs every native tier (all must miss) and
every cross tier, and the cross tier of its kind must catch it (s390x for
big-endian; i686 for 32-bit; powerpc64 for powerpc64, which s390x must
miss). --all-tiers runs everything.

The tiers are the checks CI and certification run:
  native-run     `crossdec run` of the family natively (ci/test)
  cert-digest    `crossdec golden`: this build's digests against the
                 committed harness/tests/golden.json (cargo test and
                 `crossdec certify` on every target)
  fuzz-replay    the committed fuzz corpora replayed (cargo test)
  native-tests   the kernels', references', TsFile reader's, engine's and
                 harness's test suites
  peer-oracle    the real peers: questdb-rs and pgjdbc against the
                 reference, the PostgreSQL server, the official TsFile
                 library's files. Peers are compared with the reference, so
                 for a family with no file or server oracle (qwp-ts) this
                 tier cannot see a kernel-only bug: it reports n/a there.
  s390x-run, i686-run, powerpc64-run
                 the campaign under the target's runner (ci/cross-env),
                 judged as the gate judges it: any
                 failure, or a digest that differs from the native run's
                 (ci/test runs s390x and i686; ci/certify every target)
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ZOO = ROOT / "ci" / "bug-zoo.d"
WORK = ROOT / "target" / "bug-zoo"
SCRATCH = WORK / "src"
TARGET_DIR = WORK / "target"
S390X = "s390x-unknown-linux-gnu"
CROSS_TIERS = {"s390x-run": S390X, "i686-run": "i686-unknown-linux-gnu",
               "powerpc64-run": "powerpc64-unknown-linux-gnu"}
# seen-on: the cross tier that must catch such a bug, and the tiers that must miss it.
SEEN_ON = {
    "big-endian": ("s390x-run", []),
    "32-bit": ("i686-run", ["s390x-run"]),
    "powerpc64": ("powerpc64-run", ["s390x-run", "i686-run"]),
}
SEED = os.environ.get("CROSSDEC_ZOO_SEED", "20261129")
CASES = os.environ.get("CROSSDEC_ZOO_CASES", "200")

# Every bug rebuilds the kernels and everything above them: incremental
# release builds without debug info make that a fraction of a cold build (the
# zoo has its own target directory, so no other build sees these settings).
BUILD_ENV = {"CARGO_PROFILE_RELEASE_INCREMENTAL": "true", "CARGO_PROFILE_RELEASE_DEBUG": "0"}

TIERS = ["native-run", "cert-digest", "fuzz-replay", "native-tests", "peer-oracle", *CROSS_TIERS]
NATIVE_TIERS = ["native-run", "cert-digest", "fuzz-replay", "native-tests", "peer-oracle"]

# Harness test files that are not plain native tests: they belong to the
# fuzz-replay and peer-oracle tiers.
FUZZ_TESTS = {"fuzz_regressions"}
PEER_TESTS = {"bytea_server", "tsfile_oracle"}
PEER_TESTS_BY_GROUP = {"pg": ["bytea_server"], "tsfile": ["tsfile_oracle"]}


def parse_bug(path):
    meta = {"name": path.stem, "patch": path, "seen-on": "any"}
    for line in path.read_text().splitlines():
        if not line.startswith("# "):
            break
        key, _, value = line[2:].partition(":")
        meta[key.strip()] = value.strip()
    for key in ("family", "what"):
        if key not in meta:
            sys.exit(f"{path}: missing '# {key}:' header")
    return meta


def missing_cpu_flags(bug):
    """The flags of the bug's `needs-cpu` that this CPU lacks."""
    needed = bug.get("needs-cpu", "").split()
    if not needed:
        return []
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return needed
    have = set()
    for line in text.splitlines():
        if line.startswith("flags"):
            have.update(line.partition(":")[2].split())
    return [flag for flag in needed if flag not in have]


def sh(cmd, cwd=SCRATCH, log=None, env=None):
    """Run a command; return (exit code, seconds). Output goes to `log`."""
    full_env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET_DIR), **BUILD_ENV, **(env or {}))
    start = time.time()
    with open(log or os.devnull, "ab") as out:
        out.write(f"\n$ {' '.join(map(str, cmd))}\n".encode())
        out.flush()
        rc = subprocess.call(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=full_env)
    return rc, time.time() - start


def fresh_scratch():
    """Make SCRATCH hold exactly the tracked and untracked-but-not-ignored
    files of this tree, so the zoo tests the tree as it is (including
    patches not yet committed). A file is written only when its content
    differs, and then gets a new modification time: cargo judges freshness
    by mtime, so a copy that kept the source's older mtime over a file a
    patch had changed would leave the patched build looking up to date."""
    files = subprocess.check_output(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT
    ).split(b"\0")
    wanted = set()
    for f in filter(None, files):
        src = ROOT / f.decode()
        if not src.is_file():
            continue
        wanted.add(f.decode())
        dst = SCRATCH / f.decode()
        data = src.read_bytes()
        if dst.is_file() and dst.read_bytes() == data:
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(data)
        shutil.copymode(src, dst)
    if SCRATCH.exists():
        for path in sorted(SCRATCH.rglob("*"), reverse=True):
            rel = path.relative_to(SCRATCH).as_posix()
            if path.is_file() and rel not in wanted:
                path.unlink()


def crossdec(target=None):
    sub = f"{target}/release" if target else "release"
    return str(TARGET_DIR / sub / "crossdec")


def build(log, target=None):
    cmd = ["cargo", "build", "--release", "-q", "-p", "crossdec-harness", "--bin", "crossdec"]
    if target:
        cmd += ["--target", target]
    rc, _ = sh(cmd, log=log)
    return rc == 0


def kernels(family, runner=None, target=None, role="kernel"):
    """The implementations of `family` in `role` (kernel or peer) available
    where crossdec runs, from `crossdec list` (the family registry)."""
    cmd = (runner or []) + [crossdec(target), "list"]
    out = subprocess.check_output(cmd, cwd=SCRATCH, env=dict(os.environ, CARGO_TARGET_DIR=str(TARGET_DIR)))
    names, current = [], None
    for line in out.decode().splitlines():
        if not line.startswith(" "):
            current = line.strip()
        elif current == family and not line.strip().startswith("categories:"):
            name, _, avail = line.split()[:3]
            if line.split()[1] == role and avail == "available":
                names.append(name)
    return names


def run_family(family, out, log, impls, target=None, runner=None):
    cmd = (runner or []) + [crossdec(target), "run", "--family", family, "--seed", SEED, "--cases", CASES,
                                          "--no-progress", "--out", str(out)]
    for k in impls:
        cmd += ["--impl", k]
    rc, _ = sh(cmd, log=log)
    return rc


def digest(out):
    manifest = json.loads((Path(out) / "manifest.json").read_text())
    return {f["family"]: f["digest"] for f in manifest["families"]}


def harness_tests():
    tests_dir = SCRATCH / "harness" / "tests"
    # One binary per file, and one per directory holding a main.rs.
    tests = sorted([p.stem for p in tests_dir.glob("*.rs")] + [p.parent.name for p in tests_dir.glob("*/main.rs")])
    return [t for t in tests if t not in FUZZ_TESTS | PEER_TESTS]


def fuzz_targets(family):
    out = subprocess.check_output([crossdec(), "fuzz-targets"], cwd=SCRATCH).decode()
    return [l.split()[0] for l in out.splitlines() if l.split()[1] == family]


class Tiers:
    def __init__(self, baseline_digests):
        self.baseline = baseline_digests
        self.last_out = None
        # Baseline only: family-independent commands run once.
        self.memo = None

    def sh(self, cmd, log):
        if self.memo is None:
            return sh(cmd, log=log)
        key = tuple(cmd)
        if key not in self.memo:
            self.memo[key] = sh(cmd, log=log)
        return self.memo[key]

    def run(self, tier, bug, log):
        """True = caught, False = missed, None = not applicable here."""
        fam = bug["family"]
        group = fam.split("-")[0]
        if tier == "native-run":
            out = WORK / "out" / bug["name"]
            shutil.rmtree(out, ignore_errors=True)
            rc = run_family(fam, out, log, kernels(fam))
            self.last_out = out if (out / "manifest.json").exists() else None
            return rc != 0
        if tier == "cert-digest":
            rc, _ = sh([crossdec(), "golden"], log=log)
            return rc != 0
        if tier == "fuzz-replay":
            caught = False
            for t in fuzz_targets(fam):
                paths = [str(SCRATCH / "fuzz" / d / t) for d in ("corpus", "regressions")
                         if (SCRATCH / "fuzz" / d / t).is_dir() and any((SCRATCH / "fuzz" / d / t).iterdir())]
                if paths:
                    rc, _ = sh([crossdec(), "replay", "--target", t, *paths], log=log)
                    caught |= rc != 0
            return caught
        if tier == "native-tests":
            rc1, _ = self.sh(["cargo", "test", "--release", "-p", "crossdec-kernels", "-p", "crossdec-reference",
                              "-p", "crossdec-tsfile", "-p", "crossdec-engine"], log=log)
            args = ["cargo", "test", "--release", "-p", "crossdec-harness", "--lib"]
            for t in harness_tests():
                args += ["--test", t]
            rc2, _ = self.sh(args, log=log)
            return rc1 != 0 or rc2 != 0
        if tier == "peer-oracle":
            if not PEER_TESTS_BY_GROUP.get(group) and touches_only(bug, "kernels/"):
                return None  # peers meet only the reference: a kernel bug is invisible here
            ran, caught = False, False
            for t in PEER_TESTS_BY_GROUP.get(group, []):
                rc, _ = self.sh(["cargo", "test", "--release", "-p", "crossdec-harness", "--test", t], log=log)
                ran, caught = True, caught or rc != 0
            for peer in kernels(fam, role="peer"):
                rc = run_family(fam, WORK / "out" / (bug["name"] + "-" + peer), log, [peer])
                ran, caught = True, caught or rc != 0
            return caught if ran else None
        if tier in CROSS_TIERS:
            triple = CROSS_TIERS[tier]
            if not build(log, triple):
                return True  # the bug does not even compile there: caught
            # The runner is a command line ("qemu-s390x -L /usr/s390x-linux-gnu").
            var = "CARGO_TARGET_" + triple.upper().replace("-", "_") + "_RUNNER"
            runner = shlex.split(os.environ.get(var, ""))
            impls = kernels(fam, runner, triple)
            out = WORK / "out" / (bug["name"] + "-" + tier)
            shutil.rmtree(out, ignore_errors=True)
            rc = run_family(fam, out, log, impls, triple, runner)
            # As the gate: a failure there, or outcomes other than native's.
            return rc != 0 or not (out / "manifest.json").exists() or digest(out).get(fam) != self.baseline.get(fam)
        raise ValueError(tier)


def touches_only(bug, prefix):
    """Whether every file the bug's patch changes is under `prefix`."""
    if "patch" not in bug:
        return False
    files = [l[len("+++ b/"):] for l in Path(bug["patch"]).read_text().splitlines() if l.startswith("+++ b/")]
    return bool(files) and all(f.startswith(prefix) for f in files)


def apply(patch, reverse=False, log=None):
    # The scratch copy sits inside this repository's target/: stop git from
    # discovering the outer repository, which would make it skip the paths.
    cmd = ["git", "apply"] + (["-R"] if reverse else []) + [str(patch)]
    rc, _ = sh(cmd, log=log, env={"GIT_CEILING_DIRECTORIES": str(WORK)})
    return rc == 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bug", action="append", default=[])
    p.add_argument("--all-tiers", action="store_true")
    p.add_argument("--list", action="store_true")
    p.add_argument("--tiers", help="comma-separated: run only these tiers (default: all, in order)")
    p.add_argument("--merge", action="store_true",
                   help="update the rows of these bugs in the existing report instead of starting a new one")
    args = p.parse_args()
    run_tiers = TIERS
    if args.tiers:
        run_tiers = [t for t in TIERS if t in args.tiers.split(",")]
        unknown = set(args.tiers.split(",")) - set(TIERS)
        if unknown:
            sys.exit(f"no such tier: {', '.join(sorted(unknown))} (tiers: {', '.join(TIERS)})")

    bugs = [parse_bug(f) for f in sorted(ZOO.glob("*.patch"))]
    if args.bug:
        unknown = set(args.bug) - {b["name"] for b in bugs}
        if unknown:
            sys.exit(f"no such bug: {', '.join(sorted(unknown))}")
        bugs = [b for b in bugs if b["name"] in args.bug]
    if args.list:
        for b in bugs:
            print(f"{b['name']:<40} {b['family']:<16} {b['what']}")
        return 0

    WORK.mkdir(parents=True, exist_ok=True)
    logs = WORK / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir()
    fresh_scratch()

    # Baseline: the unpatched tree must pass every tier a bug could be
    # charged to, or a "catch" would mean nothing.
    print(f"bug zoo: {len(bugs)} bugs, seed {SEED}, {CASES} calls per category; logs in {logs}")
    base_log = logs / "baseline.log"
    if not build(base_log):
        sys.exit(f"baseline build failed; see {base_log}")
    families = sorted({b["family"] for b in bugs})
    out = WORK / "out" / "baseline"
    shutil.rmtree(out, ignore_errors=True)
    baseline = {}
    for fam in families:
        if run_family(fam, out / fam, base_log, kernels(fam)) != 0:
            sys.exit(f"baseline: crossdec run --family {fam} fails on the unpatched tree; see {base_log}")
        baseline.update(digest(out / fam))
    tiers = Tiers(baseline)
    tiers.memo = {}
    base_bug = {"name": "baseline", "family": None}
    needed = set(NATIVE_TIERS)
    for b in bugs:
        if b["seen-on"] in SEEN_ON:
            catcher, missers = SEEN_ON[b["seen-on"]]
            needed |= {catcher, *missers}
    if args.all_tiers:
        needed = set(TIERS)
    needed &= set(run_tiers)
    for tier in [t for t in TIERS if t in needed and t != "native-run"]:
        for fam in families:
            verdict = tiers.run(tier, dict(base_bug, family=fam), base_log)
            if verdict:
                sys.exit(f"baseline: tier {tier} fails for {fam} on the unpatched tree; see {base_log}")
    tiers.memo = None
    print("baseline: unpatched tree passes every tier")

    previous = {}
    if args.merge and (WORK / "report.json").exists():
        previous = {r["bug"]: r for r in json.loads((WORK / "report.json").read_text())["bugs"]}

    def judge_and_write(results, problems):
        """Merge with the previous report (--merge), judge every row, write
        report.json (after every bug, so an interrupted run keeps its rows)."""
        rows = {}
        for name, r in previous.items():
            rows[name] = json.loads(json.dumps(r))
        for r in results:
            r = json.loads(json.dumps(r))
            if r["bug"] in rows and "error" not in r:
                merged = dict(rows[r["bug"]].get("tiers", {}))
                merged.update(r["tiers"])
                r["tiers"] = merged
            rows[r["bug"]] = r
        order = [b["name"] for b in (parse_bug(f) for f in sorted(ZOO.glob("*.patch")))]
        final = [rows[n] for n in order if n in rows]
        problems = list(problems)
        for r in final:
            if "error" in r or "exempt" in r:
                continue
            r["caught_by"] = next((t for t in TIERS if r["tiers"].get(t) == "caught"), None)
            if not r["caught_by"]:
                problems.append(f"{r['bug']}: SURVIVED every tier run")
            if r["seen_on"] in SEEN_ON:
                catcher, missers = SEEN_ON[r["seen_on"]]
                seen_elsewhere = [t for t in NATIVE_TIERS + missers if r["tiers"].get(t) == "caught"]
                if seen_elsewhere:
                    problems.append(f"{r['bug']}: marked {r['seen_on']}-only but caught by {seen_elsewhere}")
                if r["tiers"].get(catcher) != "caught":
                    problems.append(f"{r['bug']}: {r['seen_on']}-only bug not caught by {catcher}")
        report = {"seed": SEED, "cases": CASES, "all_tiers": args.all_tiers, "tiers": TIERS, "bugs": final,
                  "caught": sum(1 for r in final if r.get("caught_by")), "total": len(final), "problems": problems}
        (WORK / "report.json").write_text(json.dumps(report, indent=2) + "\n")
        return report

    results = []
    problems = []
    for bug in bugs:
        log = logs / f"{bug['name']}.log"
        platform_only = bug["seen-on"] in SEEN_ON
        row = {"bug": bug["name"], "family": bug["family"], "what": bug["what"], "seen_on": bug["seen-on"],
               "tiers": {}, "caught_by": None}
        missing = missing_cpu_flags(bug)
        if missing:
            row["exempt"] = f"this CPU lacks {' '.join(missing)}"
            results.append(row)
            judge_and_write(results, problems)
            print(f"{bug['name']:<40} exempt: {row['exempt']}", flush=True)
            continue
        if not apply(bug["patch"], log=log):
            problems.append(f"{bug['name']}: patch does not apply; see {log}")
            row["error"] = "patch does not apply"
            results.append(row)
            print(f"{bug['name']:<40} PATCH DOES NOT APPLY")
            continue
        start = time.time()
        try:
            if not build(log):
                # A bug the compiler rejects is not a realistic zoo entry.
                problems.append(f"{bug['name']}: patched tree does not build; see {log}")
                row["error"] = "does not build"
            else:
                tiers.last_out = None
                bug_tiers = run_tiers
                if platform_only and not args.all_tiers:
                    catcher, missers = SEEN_ON[bug["seen-on"]]
                    bug_tiers = [t for t in run_tiers if t in NATIVE_TIERS or t == catcher or t in missers]
                for tier in bug_tiers:
                    if row["caught_by"] and not (args.all_tiers or platform_only):
                        break
                    verdict = tiers.run(tier, bug, log)
                    row["tiers"][tier] = {True: "caught", False: "missed", None: "n/a"}[verdict]
                    if verdict and not row["caught_by"]:
                        row["caught_by"] = tier
        finally:
            if not apply(bug["patch"], reverse=True, log=log):
                sys.exit(f"{bug['name']}: could not revert the patch; scratch copy is dirty")
        row["seconds"] = round(time.time() - start, 1)
        results.append(row)
        judge_and_write(results, problems)
        cells = " ".join(f"{t}={row['tiers'].get(t, '-')}" for t in TIERS)
        print(f"{bug['name']:<40} caught by {row['caught_by'] or 'NOTHING':<13} {cells} ({row['seconds']} s)", flush=True)

    report = judge_and_write(results, problems)
    results, problems = report["bugs"], report["problems"]
    print()
    print(f"| bug | family | caught by | {' | '.join(TIERS)} |")
    print(f"|---|---|---|{'---|' * len(TIERS)}")
    for r in results:
        cells = " | ".join(r["tiers"].get(t, "-") for t in TIERS)
        verdict = r["caught_by"] or r.get("error") or (r.get("exempt") and "exempt") or "**survived**"
        print(f"| {r['bug']} | {r['family']} | {verdict} | {cells} |")
    print(f"\n{report['caught']}/{report['total']} bugs caught; report: {WORK / 'report.json'}")
    for problem in problems:
        print(f"PROBLEM: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
