#!/usr/bin/env python3
"""Self-test of the c-ts2diff subject against an oracle, outside crossdec.

Every file of a corpus (raw mode: one canonical TsInput per file) is sent
through the subject in one pipelined stream (a writer thread sends all the
requests while the main thread reads the responses, as crossdec does, so a
subject that forgets to flush deadlocks here too), and through an oracle
that speaks the same protocol and answers with the reference's outcome.
Every response must be byte-for-byte the oracle's. Exits 1 on any
mismatch, 2 on a protocol failure.

    selftest.py --oracle 'path/to/oracle' [--subject subjects/c-ts2diff/run]
                [--corpus DIR | --crossdec crossdec-main --cases 50]

The oracle used while writing the subject was a 100-line Rust program over
crossdec-reference's `tsfile::ts2diff` (see the README); with a crossdec
that has `run --subject`, `crossdec run --family tsfile-ts2diff --subject
c-ts2diff=subjects/c-ts2diff/run` is the real check.
"""

import argparse
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

FAULTS = {0: "Truncated", 1: "BadBitWidth", 2: "BadCount", 7: "TooManyValues"}


def read_exact(stream, n):
    data = b""
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def run_stream(command, inputs, env_extra=None):
    """Send every input through `command`; return (responses, seconds)."""
    env = dict(os.environ, CROSSDEC_PROTOCOL="1", CROSSDEC_FAMILY="tsfile-ts2diff", CROSSDEC_SUBJECT="selftest")
    env.update(env_extra or {})
    proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=ROOT)

    def writer():
        try:
            for data in inputs:
                proc.stdin.write(struct.pack("<I", len(data)) + data)
            proc.stdin.close()
        except BrokenPipeError:
            pass

    start = time.perf_counter()
    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    responses = []
    for index in range(len(inputs)):
        header = read_exact(proc.stdout, 4)
        if header is None:
            proc.wait()
            sys.exit(f"{command}: exited (status {proc.returncode}) before answering input {index}")
        (length,) = struct.unpack("<I", header)
        body = read_exact(proc.stdout, length)
        if body is None or length < 1:
            sys.exit(f"{command}: bad response frame for input {index}")
        responses.append(body)
    seconds = time.perf_counter() - start
    thread.join()
    if proc.stdout.read(1):
        sys.exit(f"{command}: wrote more than one response per request")
    if proc.wait() != 0:
        sys.exit(f"{command}: exit status {proc.returncode} after its last response")
    return responses, seconds


def describe(response):
    status, body = response[0], response[1:]
    if status == 0:
        tag, count = body[0], struct.unpack_from("<Q", body, 1)[0]
        consumed = struct.unpack_from("<Q", body, len(body) - 8)[0]
        return f"decoded type {tag}, {count} values, consumed {consumed}"
    if status == 1:
        return f"rejected {FAULTS.get(body[0], body[0])} {body[1:].hex()}"
    return f"status {status} {body!r}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subject", default=os.path.join(HERE, "run"))
    parser.add_argument("--oracle", required=True, help="a protocol process answering with the reference's outcome")
    parser.add_argument("--corpus", help="a raw corpus directory (default: generate one)")
    parser.add_argument("--crossdec", default="crossdec-main", help="the crossdec binary that generates the corpus")
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        corpus = args.corpus
        if corpus is None:
            corpus = os.path.join(scratch, "corpus")
            subprocess.run(
                [args.crossdec, "corpus", "--family", "tsfile-ts2diff", "--out", corpus,
                 "--cases", str(args.cases), "--seed", str(args.seed)],
                check=True, stdout=subprocess.DEVNULL)
        names = sorted(os.listdir(corpus))
        inputs = []
        for name in names:
            with open(os.path.join(corpus, name), "rb") as f:
                inputs.append(f.read())

    # Inputs the harness would not parse (its own Parse) are answered
    # "unsupported" by both; a few hand-made ones check that path too.
    extra = [b"", b"\x04\x01", b"\x00\x01" + bytes(9), b"\x04\x03" + bytes(9), b"\x04\x09" + bytes(9) + b"\x00"]
    names += [f"<extra {i}>" for i in range(len(extra))]
    inputs += extra

    subject, seconds = run_stream(args.subject, inputs)
    oracle, _ = run_stream(args.oracle, inputs)

    failures = 0
    for name, data, got, want in zip(names, inputs, subject, oracle):
        # An "unsupported" reason is free text: only the status counts.
        same = got == want or (got[:1] == want[:1] == b"\x02")
        if not same:
            failures += 1
            if failures <= 20:
                print(f"MISMATCH {name}\n  input   {data.hex()}\n  subject {describe(got)}\n  oracle  {describe(want)}")
    kinds = {}
    for response in oracle:
        key = describe(response).split(" ")[0] if response[0] != 1 else "rejected " + FAULTS.get(response[1], "?")
        kinds[key] = kinds.get(key, 0) + 1
    print(f"{len(inputs)} inputs, {failures} mismatches; reference outcomes: "
          + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"subject: {len(inputs) / seconds:.0f} responses/s ({seconds:.3f} s, pipelined)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
