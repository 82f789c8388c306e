"""A pg-bytea subject: PostgreSQL's bytea input function, hex and escape formats.

Run it: crossdec run --family pg-bytea --subject py='python3 subjects/python-bytea/bytea.py'
Protocol and canonical forms: docs/reference/subjects.md.
"""
import struct
import sys

HEX = {c: int(chr(c), 16) for c in b"0123456789abcdefABCDEF"}


def decode(t):
    """(bytes, None) or (None, canonical ByteaFault)."""
    out = bytearray()
    if t[:2] == b"\\x":
        i = 2
        while i < len(t):
            if t[i] in b" \n\t\r":
                i += 1
                continue
            if t[i] not in HEX:
                return None, struct.pack("<BQB", 1, i, t[i])  # InvalidHexDigit
            if i + 1 >= len(t):
                return None, struct.pack("<BQ", 2, len(t))  # OddNumberOfDigits
            if t[i + 1] not in HEX:
                return None, struct.pack("<BQB", 1, i + 1, t[i + 1])
            out.append(HEX[t[i]] * 16 + HEX[t[i + 1]])
            i += 2
        return bytes(out), None
    i = 0
    while i < len(t):
        if t[i] != ord("\\"):
            out.append(t[i])
            i += 1
        elif t[i + 1 : i + 2] in (b"0", b"1", b"2", b"3") and all(
            t[j : j + 1] and t[j] in b"01234567" for j in (i + 2, i + 3)
        ):
            out.append(int(t[i + 1 : i + 4], 8))
            i += 4
        elif t[i + 1 : i + 2] == b"\\":
            out.append(ord("\\"))
            i += 2
        else:
            return None, struct.pack("<BQ", 3, i)  # InvalidEscape
    return bytes(out), None


inp, out = sys.stdin.buffer, sys.stdout.buffer
while head := inp.read(4):
    text = inp.read(struct.unpack("<I", head)[0])
    value, fault = decode(text)
    if fault is None:  # status 0: ByteaValue { bytes, consumed }
        body = b"\x00" + struct.pack("<Q", len(value)) + value + struct.pack("<Q", len(text))
    else:  # status 1: the canonical error
        body = b"\x01" + fault
    out.write(struct.pack("<I", len(body)) + body)
    out.flush()
