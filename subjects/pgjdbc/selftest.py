#!/usr/bin/env python3
"""Self-test of the pgjdbc subject, without crossdec.

Speaks protocol version 1 to subjects/pgjdbc/run and checks:
  1. hand-written expectations for well-formed and malformed literals
     (the table in README.md);
  2. random literals against a Python model of PGbytea.toBytes (42.5.5),
     exceptions and messages included, over enough requests that C2
     compiles toBytes (messages must not change when it does);
  3. pipelining: all requests written (by a thread) before any response is
     read, responses in order; prints responses per second; and lock-step,
     one request at a time;
  4. the framing: clean EOF exits 0, EOF inside a frame and an oversized
     request exit non-zero with a message on stderr, and so does another
     family or protocol version in CROSSDEC_FAMILY / CROSSDEC_PROTOCOL.

Usage: subjects/pgjdbc/selftest.py [COMMAND]   (default: subjects/pgjdbc/run)
Exits non-zero on the first mismatch.
"""
import os
import random
import signal
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COMMAND = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "run")


# --- a model of org.postgresql.util.PGbytea.toBytes, pgjdbc 42.5.5 ---------

class JavaError(Exception):
    """A Java exception as the subject reports it: 'SimpleName: message'."""


def aioobe(index, length):
    return JavaError(f"ArrayIndexOutOfBoundsException: Index {index} out of bounds for length {length}")


def signed(b):
    return b - 256 if b > 127 else b


HEX_VALS = [0] * (ord("f") + 1 - ord("0"))  # 55 entries, 0 where not a digit
for _c in "0123456789abcdefABCDEF":
    HEX_VALS[ord(_c) - ord("0")] = int(_c, 16)


def load(s, i):
    if i >= len(s):
        raise aioobe(i, len(s))
    return s[i]


def get_hex(b):
    index = signed(b) - ord("0")
    if not 0 <= index < len(HEX_VALS):
        raise aioobe(index, len(HEX_VALS))
    return HEX_VALS[index]


def model(s):
    if len(s) < 2 or s[0] != 0x5C or s[1] != ord("x"):
        return octal_escaped(s)
    real = len(s) - 2
    out = bytearray()
    for i in range(0, real, 2):
        v = get_hex(s[2 + i]) << 4
        v |= get_hex(load(s, 3 + i))
        out.append(v & 0xFF)
    return bytes(out)


def octal_escaped(s):
    n = len(s)
    size = n
    if n > 2 * 1024 * 1024:  # pgjdbc pre-counts the output of large literals
        i = 0
        while i < n:
            if s[i] == 0x5C:
                i += 1
                size -= 1 if load(s, i) == 0x5C else 3
            i += 1
        if size < 0:
            raise JavaError(f"NegativeArraySizeException: {size}")
    out = bytearray()

    def put(v):
        if len(out) >= size:
            raise aioobe(len(out), size)
        out.append(v & 0xFF)

    i = 0
    while i < n:
        if s[i] == 0x5C:
            i += 1
            second = load(s, i)
            if second == 0x5C:
                put(0x5C)
            else:
                v = (signed(second) - 48) * 64
                i += 1
                v += (signed(load(s, i)) - 48) * 8
                i += 1
                v += signed(load(s, i)) - 48
                put(v)
        else:
            put(s[i])
        i += 1
    return bytes(out)


# --- the protocol ------------------------------------------------------------

def frame(payload):
    return struct.pack("<I", len(payload)) + payload


def read_exact(f, n):
    data = f.read(n)
    if len(data) != n:
        raise AssertionError(f"subject closed stdout ({len(data)} of {n} bytes)")
    return data


def read_response(f):
    (n,) = struct.unpack("<I", read_exact(f, 4))
    assert n >= 1, "response length 0"
    body = read_exact(f, n)
    return body[0], body[1:]


def decode(status, body, request_len):
    """('ok', bytes) or ('err', text), checking the ByteaValue's shape."""
    if status == 0:
        (count,) = struct.unpack_from("<Q", body, 0)
        assert len(body) == 8 + count + 8, f"ByteaValue of {len(body)} bytes for count {count}"
        (consumed,) = struct.unpack_from("<Q", body, 8 + count)
        assert consumed == request_len, f"consumed {consumed}, request was {request_len}"
        return ("ok", body[8:8 + count])
    assert status == 3, f"unexpected status {status}"
    return ("err", body.decode("utf-8"))


def expected(literal):
    try:
        return ("ok", model(literal))
    except JavaError as e:
        return ("err", str(e))


CROSSDEC_ENV = {"CROSSDEC_PROTOCOL": "1", "CROSSDEC_FAMILY": "pg-bytea", "CROSSDEC_SUBJECT": "pgjdbc"}


def start(**env):
    """The subject as crossdec starts it: sh -c COMMAND, the CROSSDEC_* variables set."""
    return subprocess.Popen(COMMAND, shell=True, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, **CROSSDEC_ENV, **env})


def exchange(literals):
    """Pipelined: a thread writes every request while we read."""
    p = start()

    def writer():
        for lit in literals:
            p.stdin.write(frame(lit))
        p.stdin.close()

    t = threading.Thread(target=writer)
    t.start()
    answers = [decode(*read_response(p.stdout), len(lit)) for lit in literals]
    t.join()
    rest = p.stdout.read()
    assert rest == b"", f"{len(rest)} bytes after the last response"
    rc = p.wait()
    err = p.stderr.read().decode(errors="replace")
    assert rc == 0, f"exit {rc} after clean EOF; stderr: {err}"
    return answers


failures = 0


def check(literal, got, want, what):
    global failures
    if got != want:
        failures += 1
        print(f"MISMATCH ({what}) {literal[:60]!r}: got {got!r:.200}, want {want!r:.200}")


# --- 1. the README's table -------------------------------------------------

def ok(b):
    return ("ok", b)


def err(text):
    return ("err", text)


AIOOBE = "ArrayIndexOutOfBoundsException: "
TABLE = [
    (b"", ok(b"")),
    (b"\\x", ok(b"")),
    (b"\\x00ff", ok(b"\x00\xff")),
    (b"\\xDEADbeef", ok(b"\xde\xad\xbe\xef")),
    (b"abc", ok(b"abc")),
    (b"a\\\\b", ok(b"a\\b")),
    (b"\\001\\377", ok(b"\x01\xff")),
    (b"\\\\x41", ok(b"\\x41")),                  # escaped backslash then text
    (b"\\X41", ok(b"!")),                         # \X is not \x: octal path, (40*64+4*8+1)&255
    (b"x", ok(b"x")),
    # hex: odd number of digits reads one past the end
    (b"\\x0", err(AIOOBE + "Index 3 out of bounds for length 3")),
    (b"\\x123", err(AIOOBE + "Index 5 out of bounds for length 5")),
    # hex: a digit above 'f' or below '0' indexes past HEX_VALS
    (b"\\xzz", err(AIOOBE + "Index 74 out of bounds for length 55")),
    (b"\\xg0", err(AIOOBE + "Index 55 out of bounds for length 55")),
    (b"\\x0g", err(AIOOBE + "Index 55 out of bounds for length 55")),
    (b"\\x12z", err(AIOOBE + "Index 74 out of bounds for length 55")),  # the digit before the end
    (b"\\x 00", err(AIOOBE + "Index -16 out of bounds for length 55")),
    (b"\\x00 ", err(AIOOBE + "Index -16 out of bounds for length 55")),  # odd count, but the bad digit is seen first
    (b"\\x\n00", err(AIOOBE + "Index -38 out of bounds for length 55")),
    (b"\\x\xff0", err(AIOOBE + "Index -49 out of bounds for length 55")),
    (b"\\x\x800", err(AIOOBE + "Index -176 out of bounds for length 55")),
    # hex: a non-digit between '9' and 'f' in ASCII is silently 0
    (b"\\x:;", ok(b"\x00")),
    (b"\\xG1", ok(b"\x01")),
    (b"\\x_f", ok(b"\x0f")),
    (b"\\x@`", ok(b"\x00")),
    (b"\\xA:", ok(b"\xa0")),
    # escape: short or truncated escapes read one past the end
    (b"\\", err(AIOOBE + "Index 1 out of bounds for length 1")),
    (b"abc\\", err(AIOOBE + "Index 4 out of bounds for length 4")),
    (b"\\1", err(AIOOBE + "Index 2 out of bounds for length 2")),
    (b"\\12", err(AIOOBE + "Index 3 out of bounds for length 3")),
    (b"a\\x", err(AIOOBE + "Index 3 out of bounds for length 3")),
    (b"\\\\\\", err(AIOOBE + "Index 3 out of bounds for length 3")),
    # escape: three bytes after a backslash, any bytes, are d1*64+d2*8+d3 mod 256
    (b"\\400", ok(b"\x00")),
    (b"\\777", ok(b"\xff")),
    (b"\\401", ok(b"\x01")),
    (b"\\999", ok(b"\x91")),
    (b"\\378", ok(b"\x00")),
    (b"\\8\\9", ok(b"\x69")),
    (b"\\abc", ok(b"\x03")),
    (b"\\\\\\\\", ok(b"\\\\")),
    (b"\\1\\\\", ok(b"\xcc")),                    # 1, '\\', '\\' taken as digits
    (b"\\x", ok(b"")),
    (b"\\0\xff\xff", ok(b"\x47")),                # (0*64 + (-49)*8 + (-49)) & 255
]


def test_table():
    got = exchange([lit for lit, _ in TABLE])
    for (lit, want), g in zip(TABLE, got):
        check(lit, g, want, "table")
        check(lit, expected(lit), want, "model vs table")


# --- 2. random literals against the model ----------------------------------

def random_literal(rng):
    shape = rng.random()
    n = rng.randrange(0, 12)
    if shape < 0.35:
        alphabet = b"0123456789abcdefABCDEF" + bytes(rng.sample(range(256), 3))
        return b"\\x" + bytes(rng.choice(alphabet) for _ in range(n))
    if shape < 0.7:
        alphabet = b"\\01234567" + bytes(rng.sample(range(256), 3))
        return bytes(rng.choice(alphabet) for _ in range(n))
    return bytes(rng.randrange(256) for _ in range(n))


def big_literals():
    """Literals over 2 MiB, where pgjdbc pre-counts its output."""
    pad = b"a" * (2 * 1024 * 1024)
    return [
        pad + b"\\001\\\\",                           # well-formed
        b"\\a" * (1024 * 1024 + 8),                   # counted size negative
        pad + b"\\1\\\\",                             # counted 0 too many: buffer overrun
        pad + b"\\",                                  # trailing backslash, in the count
        pad + b"\\12",                                # truncated escape
        b"\\x" + b"0f" * (1024 * 1024 + 3),           # hex is not pre-counted
    ]


def test_random(count):
    rng = random.Random(1)
    literals = [random_literal(rng) for _ in range(count)] + big_literals()
    got = exchange(literals)
    for lit, g in zip(literals, got):
        check(lit, g, expected(lit), "model")
    errors = sum(1 for g in got if g[0] == "err")
    print(f"random: {len(literals)} literals, {errors} exceptions, model agrees" if not failures else "random: mismatches")


# --- 3. pipelining and throughput ----------------------------------------

def test_pipelining(count, what):
    literals = [b"\\x" + struct.pack(">I", i).hex().encode() for i in range(count)]
    start_time = time.monotonic()
    got = exchange(literals)
    elapsed = time.monotonic() - start_time
    for i, g in enumerate(got):
        if g != ("ok", struct.pack(">I", i)):
            check(literals[i], g, ("ok", struct.pack(">I", i)), what)
            break
    print(f"{what}: {count} responses in order, {elapsed:.2f} s with JVM start, {count / elapsed:,.0f}/s")


def test_throughput(count):
    """Steady state: time only the second half, after the JIT has warmed up."""
    literals = [b"\\x" + struct.pack(">I", i).hex().encode() for i in range(count)]
    p = start()
    t = threading.Thread(target=lambda: (p.stdin.write(b"".join(frame(l) for l in literals)), p.stdin.close()))
    t.start()
    marks = {}
    for i in range(count):
        if i == count // 2:
            marks["half"] = time.monotonic()
        read_response(p.stdout)
    marks["end"] = time.monotonic()
    t.join()
    assert p.wait() == 0
    rate = (count - count // 2) / (marks["end"] - marks["half"])
    print(f"throughput (small inputs, pipelined, warm): {rate:,.0f} responses/s")


def test_lockstep(count):
    """One request at a time, the next only after the answer: a subject
    that kept a response in its buffer would hang here (alarm after 20 s)."""
    p = start()
    signal.alarm(20)
    for i in range(count):
        lit = b"\\x" + struct.pack(">H", i).hex().encode()
        # The header and the body in two writes, to look like a slow writer.
        data = frame(lit)
        p.stdin.write(data[:3])
        p.stdin.flush()
        p.stdin.write(data[3:])
        p.stdin.flush()
        check(lit, decode(*read_response(p.stdout), len(lit)), ("ok", struct.pack(">H", i)), "lock-step")
    signal.alarm(0)
    p.stdin.close()
    assert p.wait() == 0
    print(f"lock-step: {count} requests answered one at a time")


# --- 4. framing ---------------------------------------------------------------

def run_raw(data, **env):
    p = start(**env)
    out, err = p.communicate(data, timeout=60)
    return p.returncode, out, err.decode(errors="replace")


def test_framing():
    global failures
    cases = [
        ("clean EOF, no request", b"", True),
        ("clean EOF after a request", frame(b"\\x00"), True),
        ("EOF inside a header", frame(b"\\x00") + b"\x05\x00", False),
        ("EOF inside a body", frame(b"\\x00") + struct.pack("<I", 10) + b"abc", False),
        ("request over 1 GiB", frame(b"\\x00") + struct.pack("<I", (1 << 30) + 1), False),
    ]
    for what, data, clean in cases:
        rc, out, err = run_raw(data)
        answered = frame(b"\x00" + struct.pack("<Q", 1) + b"\x00" + struct.pack("<Q", 4)) if data else b""
        good = (rc == 0) if clean else (rc != 0 and "pgjdbc subject:" in err)
        if not good or out != answered:
            failures += 1
            print(f"FRAMING MISMATCH ({what}): exit {rc}, stdout {out!r}, stderr {err.strip()!r}")
        else:
            print(f"framing: {what}: exit {rc}" + (f", stderr: {err.strip()}" if err.strip() else ""))
    for name, value in [("CROSSDEC_FAMILY", "tsfile-plain"), ("CROSSDEC_PROTOCOL", "2")]:
        rc, out, err = run_raw(frame(b"\\x00"), **{name: value})
        if rc == 0 or out != b"" or name not in err:
            failures += 1
            print(f"FRAMING MISMATCH ({name}={value} accepted): exit {rc}, stderr {err.strip()!r}")
        else:
            print(f"framing: {name}={value} refused: {err.strip()}")


def main():
    test_table()
    test_random(20000)
    test_pipelining(10000, "pipelining")
    test_lockstep(200)
    test_throughput(300000)
    test_framing()
    if failures:
        print(f"FAILED: {failures} mismatches")
        sys.exit(1)
    print("all good")


if __name__ == "__main__":
    main()
