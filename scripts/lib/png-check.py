"""Checks that a PNG exists, decodes, and is not blank: prints WIDTHxHEIGHT and the number of distinct colours.
Usage: png-check.py FILE MIN_COLOURS. Exit 1 with a message otherwise. Standard library only."""
import struct, sys, zlib

path, minimum = sys.argv[1], int(sys.argv[2])
data = open(path, "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit(f"{path}: not a PNG")
pos, chunks = 8, {}
idat = b""
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
if depth != 8 or ctype not in (2, 6):
    sys.exit(f"{path}: unexpected PNG format (depth {depth}, colour type {ctype})")
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = width * bpp
rows, prev, i = [], bytearray(stride), 0
for _ in range(height):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
colours = {row[x:x + 3] for row in rows for x in range(0, stride, bpp)}
print(f"{width}x{height}, {len(colours)} colours")
if len(colours) < minimum:
    sys.exit(f"{path}: looks blank ({len(colours)} distinct colours, expected at least {minimum})")
