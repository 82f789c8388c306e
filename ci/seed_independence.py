#!/usr/bin/env python3
"""Seed independence of the bug zoo (see ci/seed-independence for usage).

For each zoo bug a native run can see, apply it to the scratch copy, build
crossdec once and run the bug's family at default counts with each of N
seeds. A bug the native run catches with some seeds and not others depends
on the day's seed: its categories must be strengthened until every seed
catches it. Bugs no seed catches are left to the other tiers (ci/bug-zoo
says which). A 32-bit-only bug runs on i686 (the tier that must catch it,
on the CPU where the kernel runs 32-bit programs); big-endian- and
powerpc64-only bugs are left to their QEMU tiers (twenty seeds there take
too long).
"""
import argparse
import json
import os
import shlex
import shutil
import sys
import time

import bug_zoo as zoo


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", type=int, default=20, help="how many seeds (1..N), default 20")
    p.add_argument("--bug", action="append", default=[])
    args = p.parse_args()
    seeds = [str(s) for s in range(1, args.seeds + 1)]

    bugs = [zoo.parse_bug(f) for f in sorted(zoo.ZOO.glob("*.patch"))]
    if args.bug:
        unknown = set(args.bug) - {b["name"] for b in bugs}
        if unknown:
            sys.exit(f"no such bug: {', '.join(sorted(unknown))}")
        bugs = [b for b in bugs if b["name"] in args.bug]
    bugs = [b for b in bugs if b["seen-on"] in ("any", "32-bit")]

    zoo.WORK.mkdir(parents=True, exist_ok=True)
    logs = zoo.WORK / "logs-seeds"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir()
    zoo.fresh_scratch()
    print(f"seed independence: {len(bugs)} bugs x {len(seeds)} seeds, {zoo.CASES} calls per category; logs in {logs}")

    def runner(target):
        if not target:
            return None
        return shlex.split(os.environ.get("CARGO_TARGET_" + target.upper().replace("-", "_") + "_RUNNER", ""))

    def caught_by(family, name, log, target=None):
        impls = zoo.kernels(family, runner(target), target)
        caught = []
        for seed in seeds:
            zoo.SEED = seed
            out = zoo.WORK / "out-seeds" / name / seed
            shutil.rmtree(out, ignore_errors=True)
            if zoo.run_family(family, out, log, impls, target, runner(target)) != 0:
                caught.append(seed)
        return caught

    def target_of(bug):
        return zoo.CROSS_TIERS[zoo.SEEN_ON[bug["seen-on"]][0]] if bug["seen-on"] in zoo.SEEN_ON else None

    base_log = logs / "baseline.log"
    if not zoo.build(base_log):
        sys.exit(f"baseline build failed; see {base_log}")
    for family, target in sorted({(b["family"], target_of(b) or "") for b in bugs}):
        if target and not zoo.build(base_log, target):
            sys.exit(f"baseline build for {target} failed; see {base_log}")
        if caught_by(family, "baseline", base_log, target or None):
            sys.exit(f"baseline: crossdec run --family {family} {target} fails on the unpatched tree; see {base_log}")

    rows, problems = [], []
    for bug in bugs:
        log = logs / f"{bug['name']}.log"
        if not zoo.apply(bug["patch"], log=log):
            problems.append(f"{bug['name']}: patch does not apply")
            continue
        start = time.time()
        try:
            target = target_of(bug)
            if not zoo.build(log, target):
                problems.append(f"{bug['name']}: patched tree does not build; see {log}")
                continue
            caught = caught_by(bug["family"], bug["name"], log, target)
        finally:
            zoo.apply(bug["patch"], reverse=True, log=log)
        missed = [s for s in seeds if s not in caught]
        if caught and missed:
            verdict = "SEED-DEPENDENT"
            problems.append(f"{bug['name']}: caught by {len(caught)} of {len(seeds)} seeds (missed: {' '.join(missed)})")
        elif caught:
            verdict = "every seed"
        else:
            verdict = "no seed (other tiers)"
        rows.append({"bug": bug["name"], "family": bug["family"], "where": target or "native",
                     "caught": len(caught), "seeds": len(seeds),
                     "missed_seeds": missed, "verdict": verdict})
        print(f"{bug['name']:<40} {bug['family']:<16} {target or 'native':<22} {len(caught):>2}/{len(seeds)}  {verdict}  ({time.time() - start:.0f} s)",
              flush=True)
        (zoo.WORK / "seeds.json").write_text(json.dumps({"cases": zoo.CASES, "seeds": seeds, "bugs": rows,
                                                         "problems": problems}, indent=2) + "\n")
    for problem in problems:
        print(f"PROBLEM: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
