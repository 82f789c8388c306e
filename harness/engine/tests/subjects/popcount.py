#!/usr/bin/env python3
"""A test subject for the `popcounts` spec of tests/subjects.rs: the popcount
of each input byte, with one misbehaviour chosen by argv[1] (triggered by
a marker byte in the input) so the tests see each failure kind."""
import os
import select
import struct
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "good"
after_ee = False
stdout = sys.stdout.buffer
log = sys.argv[2] if len(sys.argv) > 2 else None
if log:
    # A log of starts and clean ends, one line each.
    with open(log, "a") as f:
        f.write(f"started {os.getpid()}\n")


def read(n):
    """n bytes of input (fewer at its end), read unbuffered so that `select`
    tells whether crossdec has sent more."""
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            break
        data += chunk
    return data


# Requests that were already waiting when the previous answer went out:
# crossdec sends a batch of generator calls' inputs at once.
waiting = 0
answered = False


def reply(status, body=b""):
    stdout.write(struct.pack("<I", 1 + len(body)) + bytes([status]) + body)
    stdout.flush()


while True:
    if answered and select.select([0], [], [], 0)[0]:
        waiting += 1
    answered = True
    head = read(4)
    if not head:
        if mode == "linger":
            time.sleep(60)
        if log:
            # A moment's work before a clean exit: crossdec must wait for it.
            time.sleep(0.3)
            with open(log, "a") as f:
                f.write(f"waiting {waiting}\nexited\n")
        break
    (n,) = struct.unpack("<I", head)
    data = read(n)
    counts = bytes(bin(b).count("1") for b in data)
    if mode == "wrong" and 0xFF in data:
        counts = bytes(7 if b == 0xFF else c for b, c in zip(data, counts))
    elif mode == "crash" and 0xEE in data:
        sys.stderr.write("popcount.py: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    elif mode == "crash-long" and len(data) > 3:
        os._exit(4)
    elif mode == "crash-slowly" and 0xEE in data:
        # Output closed first, the exit a moment later: the exit status is
        # still the one reported.
        stdout.flush()
        os.close(1)
        time.sleep(0.1)
        os._exit(3)
    elif mode == "hang" and 0xDD in data:
        time.sleep(60)
    elif mode == "garbage" and 0xCC in data:
        reply(9)
        continue
    elif mode == "empty-frame" and 0xCC in data:
        stdout.write(struct.pack("<I", 0))
        stdout.flush()
        continue
    elif mode == "huge-frame" and 0xCC in data:
        stdout.write(struct.pack("<I", 0xFFFFFFFF) + b"\x00")
        stdout.flush()
        continue
    elif mode == "short-frame" and 0xCC in data:
        stdout.write(struct.pack("<I", 100) + b"\x00" * 5)
        stdout.flush()
        os._exit(0)
    elif mode == "cut-length" and 0xCC in data:
        stdout.write(b"\x05\x00")
        stdout.flush()
        os._exit(0)
    elif mode == "short-body" and 0xCC in data:
        reply(0, struct.pack("<Q", len(data) + 1) + counts)
        continue
    elif mode == "unsupported-all":
        reply(2, b"nothing is supported")
        continue
    elif mode == "unsupported" and len(data) > 10:
        reply(2, b"longer than 10 bytes")
        continue
    elif mode == "own-words" and 0xBB in data:
        reply(3, b"ValueError: 0xbb")
        continue
    elif mode == "broken":
        sys.exit(1)
    elif mode == "after-ee":
        # Wrong on the input after one holding 0xEE: a failure an earlier
        # input (of another case) caused.
        wrong_now, after_ee = after_ee, 0xEE in data
        if wrong_now:
            counts = counts + b"\x07"
    if mode == "env":
        want = ("1", "popcounts", "pc")
        got = (os.environ.get("CROSSDEC_PROTOCOL"), os.environ.get("CROSSDEC_FAMILY"), os.environ.get("CROSSDEC_SUBJECT"))
        if got != want:
            reply(3, repr(got).encode())
            continue
    reply(0, struct.pack("<Q", len(counts)) + counts)
