#!/usr/bin/env python3
"""A subject that crashes on any input holding the byte 0xff and otherwise
answers what `crossdec serve-reference` answers (argv: the crossdec binary
and the family)."""
import struct
import subprocess
import sys

binary, family = sys.argv[1], sys.argv[2]
reference = subprocess.Popen(
    [binary, "serve-reference", "--family", family], stdin=subprocess.PIPE, stdout=subprocess.PIPE
)
stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
while True:
    head = stdin.read(4)
    if len(head) < 4:
        break
    (length,) = struct.unpack("<I", head)
    body = stdin.read(length)
    if b"\xff" in body:
        sys.stderr.write("crash_on_ff: 0xff in the input\n")
        sys.exit(7)
    reference.stdin.write(head + body)
    reference.stdin.flush()
    answer_head = reference.stdout.read(4)
    (answer_length,) = struct.unpack("<I", answer_head)
    stdout.write(answer_head + reference.stdout.read(answer_length))
    stdout.flush()
