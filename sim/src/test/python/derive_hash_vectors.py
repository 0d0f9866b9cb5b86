#!/usr/bin/python3
"""Derives block-hash test vectors for the engine simulator, independently of any Caravan code.

Reproduces, from the engines' published algorithms (read in vLLM's vllm/v1/core/kv_cache_utils.py and
vllm/utils/hashing.py, and SGLang's python/sglang/srt/mem_cache/utils.py), the chained block hashes a stock engine
computes, using Python's own pickle, hashlib, cbor2 and xxhash:

vLLM, --prefix-caching-hash-algo:
  sha256       sha256(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))       (vLLM's default)
  sha256_cbor  sha256(cbor2.dumps(obj, canonical=True))
  xxhash       xxhash.xxh3_128_digest(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))
  xxhash_cbor  xxhash.xxh3_128_digest(cbor2.dumps(obj, canonical=True))
  obj = (parent_digest or NONE_HASH, tuple(block_token_ids), extra_keys)
  NONE_HASH = hash_fn(PYTHONHASHSEED) when the variable is set, else os.urandom(32) (here: a fixed "random" root).
  extra_keys = None, or a tuple: LoRA name, multimodal (id, offset), cache_salt (first block only), embeds hash.
  The id published in KV events (VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=1, the default) is
  int.from_bytes(digest, "big") & (2**64 - 1): the low 64 bits.

SGLang (radix cache page hashes, KV events):
  page digest = sha256(prior_digest (32 raw bytes, absent for the first page) + each token id as 4-byte
  little-endian unsigned); the event id is the first 16 hex characters as a signed int64.

Run with Debian's python3 (apt-get install python3-cbor2 python3-xxhash): it rewrites
../resources/vectors/block-hashes.json. The build does not run it; the Java tests read the JSON it wrote.
"""
import hashlib
import json
import os
import pickle
import sys

import cbor2
import xxhash

BLOCK = 16
MASK64 = (1 << 64) - 1


def pickle_bytes(obj):
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def cbor_bytes(obj):
    return cbor2.dumps(obj, canonical=True)


ALGOS = {
    "sha256": lambda o: hashlib.sha256(pickle_bytes(o)).digest(),
    "sha256_cbor": lambda o: hashlib.sha256(cbor_bytes(o)).digest(),
    "xxhash": lambda o: xxhash.xxh3_128_digest(pickle_bytes(o)),
    "xxhash_cbor": lambda o: xxhash.xxh3_128_digest(cbor_bytes(o)),
}
SERIALIZERS = {"sha256": pickle_bytes, "sha256_cbor": cbor_bytes, "xxhash": pickle_bytes, "xxhash_cbor": cbor_bytes}


def vllm_chain(algo, root, tokens, cache_salt=None):
    fn = ALGOS[algo]
    parent = root
    digests = []
    for b in range(len(tokens) // BLOCK):
        block = tuple(tokens[b * BLOCK:(b + 1) * BLOCK])
        extra = (cache_salt,) if (b == 0 and cache_salt) else None
        parent = fn((parent, block, extra))
        digests.append(parent)
    return digests


def sglang_chain(tokens, page):
    prior = None
    out = []
    for start in range(0, len(tokens) - len(tokens) % page, page):
        h = hashlib.sha256()
        if prior is not None:
            h.update(prior)
        for t in tokens[start:start + page]:
            h.update(t.to_bytes(4, byteorder="little", signed=False))
        prior = h.digest()
        out.append(prior)
    return out


def external_vllm(d):
    return int.from_bytes(d, "big") & MASK64


def external_sglang(d):
    v = int(d.hex()[:16], 16)
    return v - (1 << 64) if v >= (1 << 63) else v


PROMPTS = {
    # small ids: BININT1 in pickle, inline/1-byte heads in CBOR
    "count16x2": list(range(1, 33)),
    # ids across every integer width pickle and CBOR distinguish (<=0xff, <=0xffff, <2**31), Llama-3 vocab range
    "widths": [0, 23, 24, 255, 256, 65535, 65536, 70000, 128000, 128255, 1, 2, 3, 4, 5, 6,
               100000, 99, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 2147483647,
               42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 5],
}
ROOT_RANDOM = bytes(range(0x80, 0xa0))  # stands in for os.urandom(32)


def main():
    cases = []
    for algo in ALGOS:
        fn = ALGOS[algo]
        for seed in ("0", "42", None):
            root = fn(seed) if seed is not None else ROOT_RANDOM
            for name, tokens in PROMPTS.items():
                for salt in (None, "tenant-a"):
                    digests = vllm_chain(algo, root, tokens, salt)
                    first_obj = (root, tuple(tokens[:BLOCK]), (salt,) if salt else None)
                    cases.append({
                        "engine": "vllm", "algo": algo, "seed": seed, "root": root.hex(), "prompt": name,
                        "tokens": tokens, "block_size": BLOCK, "cache_salt": salt,
                        "first_block_serialized": SERIALIZERS[algo](first_obj).hex(),
                        "digests": [d.hex() for d in digests],
                        "external": [str(external_vllm(d)) for d in digests],
                    })
    for page in (1, 16):
        for name, tokens in PROMPTS.items():
            digests = sglang_chain(tokens, page)
            cases.append({
                "engine": "sglang", "algo": "sglang_page_sha256", "prompt": name, "tokens": tokens,
                "block_size": page, "digests": [d.hex() for d in digests],
                "external": [str(external_sglang(d)) for d in digests],
            })
    out = {
        "generator": "sim/src/test/python/derive_hash_vectors.py",
        "python": sys.version.split()[0], "pickle_protocol": pickle.HIGHEST_PROTOCOL,
        "cbor2": getattr(cbor2, "__version__", "debian python3-cbor2"), "xxhash": xxhash.VERSION,
        "cases": cases,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "resources", "vectors", "block-hashes.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote %d cases to %s" % (len(cases), os.path.normpath(path)))


if __name__ == "__main__":
    main()
