#!/usr/bin/env python3
"""Derives test vectors for Caravan's block keys (policies/kv/BlockKeys) with Python's xxhash, independently of the
Java code. Run with Debian's python3 and python3-xxhash:

    /usr/bin/python3 policies/src/test/python/derive_block_key_vectors.py > policies/src/test/resources/vectors/block-keys.txt

The scheme (docs/design/kv-index.md):
  root  = xxh3_64(b"caravan-kv/1" 0x00 [0x01 lora-utf8] 0x00 [0x01 salt-utf8])
  key_i = xxh3_64(parent (8 bytes little-endian) || token ids (4 bytes little-endian each) [|| 0xFF || extra])
Output: one case per line, fields separated by '|': name, lora ('-' = none), salt ('-' = none), block size,
token ids (comma-separated), the root and the keys as unsigned decimals (comma-separated).
"""
import struct
import xxhash


def root(lora, salt):
    buf = b"caravan-kv/1" + b"\x00"
    if lora is not None:
        buf += b"\x01" + lora.encode("utf-8")
    buf += b"\x00"
    if salt is not None:
        buf += b"\x01" + salt.encode("utf-8")
    return xxhash.xxh3_64_intdigest(buf)


def keys(tokens, block_size, parent):
    out = []
    for b in range(len(tokens) // block_size):
        chunk = tokens[b * block_size:(b + 1) * block_size]
        buf = struct.pack("<Q", parent) + b"".join(struct.pack("<I", t) for t in chunk)
        parent = xxhash.xxh3_64_intdigest(buf)
        out.append(parent)
    return out


CASES = [
    ("plain-16", None, None, 16, list(range(1, 49))),
    ("partial-tail-dropped", None, None, 16, list(range(1, 41))),
    ("lora", "sql-lora", None, 16, list(range(1, 33))),
    ("salt", None, "tenant-a", 16, list(range(1, 33))),
    ("lora-and-salt", "sql-lora", "tenant-a", 16, list(range(1, 33))),
    ("page-1", None, None, 1, [7, 128255, 0, 2**31 - 1]),
    ("wide-ids", None, None, 4, [0, 255, 256, 65535, 65536, 16777215, 16777216, 2**31 - 1]),
    ("unicode-salt", None, "sel-ü-日本", 2, [5, 6, 7, 8]),
]

for name, lora, salt, bs, toks in CASES:
    r = root(lora, salt)
    ks = keys(toks, bs, r)
    print("|".join([name, lora or "-", salt or "-", str(bs), ",".join(map(str, toks)), str(r),
                    ",".join(map(str, ks))]))
