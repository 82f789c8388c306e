#!/usr/bin/env python3
"""Self-test of the c-ts2diff subject against an oracle, outside crossdec.

Every file of a corpus (raw mode: one canonical TsInput per file) is sent
through the subject in one pipelined stream (a writer thread sends all the
requests while the main thread reads the responses, as crossdec does, so a
subject that forgets to flush deadlocks here too), and through an oracle
that speaks the same protocol and answers with the reference's outcome.
Every response must be byte-for-byte the oracle's. Exits 1 on any
mismatch, 2 on a protocol failure.

    selftest.py [--subject subjects/c-ts2diff/run] [--oracle CMD]
                [--corpus DIR | --crossdec crossdec --cases 50 --seed 1]
                [--mutations 10]

The default oracle is oracle/ (crossdec-reference's `tsfile::ts2diff`
behind the protocol, built here with cargo in seconds). `--mutations N`
adds N variants of every corpus input aimed at the decoder's checks. The
authoritative comparison is crossdec's own: `crossdec run --family
tsfile-ts2diff --subject c-ts2diff=subjects/c-ts2diff/run`.
"""

import argparse
import os
import random
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


EDGE_I32 = [0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 128, 65535, 65536, 65537, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]


def mutate(data, rng):
    """A variation of one canonical input, aimed at the decoder's checks:
    header fields of a block set to edge values, bytes flipped, the page cut
    or grown, the type and max_values changed."""
    header, page = bytearray(data[:11]), bytearray(data[11:])
    for _ in range(rng.randint(1, 3)):
        choice = rng.randrange(7)
        if choice == 0 and page:
            page[rng.randrange(len(page))] ^= 1 << rng.randrange(8)
        elif choice == 1:
            page = page[: rng.randint(0, len(page))]
        elif choice == 2:
            page += bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
        elif choice == 3:
            header[1] = rng.choice([1, 2, 8, 9])
        elif choice == 4:
            cap = rng.choice([0, 1, 2, 3, 128, 129, 130, 1 << 20, (1 << 20) + 1, 0xFFFFFFFF, rng.randrange(1 << 12)])
            header[7:11] = struct.pack("<I", cap)
        elif choice == 5 and len(page) >= 8:
            # writeIndex or bitWidth of the first block, or a word anywhere.
            at = rng.choice([0, 4, rng.randrange(len(page) - 3)])
            page[at : at + 4] = struct.pack(">I", rng.choice(EDGE_I32))
        elif choice == 6:
            header[2:7] = bytes([rng.randrange(2)]) + struct.pack("<I", rng.randrange(1 << 32))
    return bytes(header + page)


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
    parser.add_argument("--oracle", help="a protocol process answering with the reference's outcome (default: build oracle/)")
    parser.add_argument("--corpus", help="a raw corpus directory (default: generate one)")
    parser.add_argument("--crossdec", default="crossdec", help="the crossdec binary that generates the corpus")
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mutations", type=int, default=0, help="mutated variants per corpus input")
    args = parser.parse_args()
    if args.oracle is None:
        target = os.path.join(ROOT, "target", "subjects", "c-ts2diff", "oracle")
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "--manifest-path", os.path.join(HERE, "oracle", "Cargo.toml"),
             "--target-dir", target],
            check=True)
        args.oracle = os.path.join(target, "release", "c-ts2diff-oracle")

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

    rng = random.Random(args.seed)
    corpus_inputs = [data for data in inputs if len(data) >= 11]
    for i in range(args.mutations * len(corpus_inputs)):
        names.append(f"<mutation {i}>")
        inputs.append(mutate(rng.choice(corpus_inputs), rng))

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
        if response[0] == 1:
            key = "rejected " + FAULTS.get(response[1], "?")
        else:
            key = {0: "decoded", 2: "unsupported"}.get(response[0], f"status {response[0]}")
        kinds[key] = kinds.get(key, 0) + 1
    print(f"{len(inputs)} inputs, {failures} mismatches; reference outcomes: "
          + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"subject: {len(inputs) / seconds:.0f} responses/s ({seconds:.3f} s, pipelined)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
