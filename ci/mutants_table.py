#!/usr/bin/env python3
"""Render ci/mutants' outcomes as the per-file table of docs/how-to/mutation-testing.md.

    ci/mutants_table.py OUT PAGE REVISION COMMAND [PASS...]

Reads OUT/<pass>/mutants.out/outcomes.json (and, after the native pass's
quick judges, OUT/<pass>/mutants.out.old/outcomes.json: a mutant's outcome
is the last phase that judged it) and writes one row per mutated file
between PAGE's `<!-- mutants-table:begin -->` and `<!-- mutants-table:end -->`
markers. Rows of files this run did not mutate stay as they are, so shards
and single-file runs fill the table piece by piece; each row names the
revision, date and command that produced it. Missed mutants are listed under
the table with their place and replacement: a missed mutant fails ci/mutants,
so each one listed is work to do (a test that catches it, or an exclusion in
.cargo/mutants.toml with the reason it is equivalent).
"""
import datetime
import json
import os
import re
import sys
from pathlib import Path

BEGIN, END = "<!-- mutants-table:begin -->", "<!-- mutants-table:end -->"
HEADER = "| file | pass | mutants | caught | unviable | timeout | missed | revision | date | command |"
RULE = "| --- | --- | --: | --: | --: | --: | --: | --- | --- | --- |"


def key(mutant):
    span = mutant["span"]["start"]
    return (mutant["file"], span["line"], span["column"], mutant.get("genre"), mutant.get("replacement"))


def outcomes(out, passes):
    """{(pass, file): {mutant key: (summary, mutant)}}, the last phase winning."""
    files = {}
    for pass_dir in sorted(p for p in out.iterdir() if p.is_dir() and (not passes or p.name in passes)):
        for phase in ("mutants.out.old", "mutants.out"):
            f = pass_dir / phase / "outcomes.json"
            if not f.exists():
                continue
            for o in json.loads(f.read_text()).get("outcomes", []):
                scenario = o.get("scenario")
                if not isinstance(scenario, dict) or "Mutant" not in scenario:
                    continue
                m = scenario["Mutant"]
                files.setdefault((pass_dir.name, m["file"]), {})[key(m)] = (o.get("summary"), m)
    return files


def main():
    out, page, revision, command = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    passes = set(sys.argv[5:])
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    text = page.read_text()
    if BEGIN not in text or END not in text:
        sys.exit(f"{page}: no {BEGIN} ... {END} markers")
    head, rest = text.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    rows, missed = {}, {}
    for line in old.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 10:
            rows[(cells[0].strip("`"), cells[1])] = line
        m = re.match(r"^- `([^`]+)` \((\w+)\): ", line)
        if m:
            missed.setdefault((m.group(1).split(":")[0], m.group(2)), []).append(line)
    # --file narrows by mutant name, which cargo-mutants' "delete field"
    # mutants of other files still match: a row is written only for a file
    # the run was asked to mutate (CROSSDEC_MUTANTS_TABLE_FILES, the --file
    # patterns; every file when unset).
    patterns = os.environ.get("CROSSDEC_MUTANTS_TABLE_FILES", "").split()
    for (pass_name, file), judged in outcomes(out, passes).items():
        if patterns and not any(re.fullmatch(p, file) for p in patterns):
            continue
        counts = {"CaughtMutant": 0, "Unviable": 0, "Timeout": 0, "MissedMutant": 0}
        for summary, _ in judged.values():
            counts[summary] = counts.get(summary, 0) + 1
        rows[(file, pass_name)] = (
            f"| `{file}` | {pass_name} | {len(judged)} | {counts['CaughtMutant']} | {counts['Unviable']} | "
            f"{counts['Timeout']} | {counts['MissedMutant']} | `{revision}` | {today} | `{command}` |"
        )
        missed[(file, pass_name)] = [
            f"- `{m['file']}:{m['span']['start']['line']}` ({pass_name}): "
            f"{(m.get('function') or {}).get('function_name', '?')}: {m.get('genre')} -> `{m.get('replacement')}`"
            for summary, m in sorted(judged.values(), key=lambda sm: sm[1]["span"]["start"]["line"])
            if summary == "MissedMutant"
        ]
    body = [HEADER, RULE] + [rows[k] for k in sorted(rows)]
    missed_lines = [line for k in sorted(missed) for line in missed[k]]
    body += ["", "Missed mutants:", ""] + (missed_lines or ["none"])
    page.write_text(head + BEGIN + "\n" + "\n".join(body) + "\n" + END + tail)
    print(f"{page}: {len(rows)} row(s), {len(missed_lines)} missed mutant(s) listed")


if __name__ == "__main__":
    main()
