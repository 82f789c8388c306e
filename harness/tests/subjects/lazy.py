#!/usr/bin/env python3
"""A subject that answers "unsupported" to every input: it compares nothing."""
import struct
import sys

stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
while True:
    head = stdin.read(4)
    if len(head) < 4:
        break
    (length,) = struct.unpack("<I", head)
    stdin.read(length)
    reason = b"unsupported by design"
    stdout.write(struct.pack("<I", 1 + len(reason)) + b"\x02" + reason)
    stdout.flush()
