#!/usr/bin/python3
"""Derives KV-event payload vectors for the engine simulator with Python's msgpack, independently of Caravan's code.

The payloads follow the engines' msgspec structs (array_like: positional arrays with the tag first):
  vLLM   vllm/distributed/kv_events.py: EventBatch [ts, events, data_parallel_rank]; BlockStored fields
         block_hashes, parent_block_hash, token_ids, block_size, lora_id, medium, lora_name, extra_keys (trailing,
         omitted while None); BlockRemoved block_hashes, medium. Map layout (PR #42892): the same fields by name with
         "type" first. CPU-tier stores from the offloading connector: parent None, token_ids [], block_size 0,
         medium "CPU". Hybrid models (several KV-cache groups): BlockStored adds group_idx, kv_cache_spec_kind and,
         for sliding-window groups, kv_cache_spec_sliding_window; BlockRemoved adds group_idx. Positional events keep
         an unsent extra_keys as nil before them. A Mamba group's store names only its state block while token_ids
         span every block computed since the hit, possibly naming no block at all.
  SGLang python/sglang/srt/disaggregation/kv_events.py (no omit_defaults: every field is sent): EventBatch
         [ts, events, attn_dp_rank]; BlockStored block_hashes, parent_block_hash, token_ids, block_size, lora_id,
         medium; one event per page; ids are signed int64; host-tier medium "CPU_PINNED".
msgspec and msgpack-python both emit the smallest integer forms and float64 for floats.

Run with Debian's python3 (apt-get install python3-msgpack): it rewrites ../resources/vectors/kv-events.json.
"""
import json
import os

import msgpack

TS = 1700000000.5
H1 = 0x8a3f2c1d5e6b7a90
H2 = 0x0123456789abcdef
TOK = list(range(1, 17))
# VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=0: ids are the full digests (msgpack bin)
D0 = bytes(range(0, 32))
D1 = bytes(range(32, 64))
TOK2 = list(range(17, 33))


def signed(u):
    return u - (1 << 64) if u >= (1 << 63) else u


def packb(obj):
    return msgpack.packb(obj, use_bin_type=True, use_single_float=False)


CASES = {
    # vLLM, array layout: a salted run of two blocks starting at block 0 carries extra_keys
    "vllm_array_salted_store": [TS, [["BlockStored", [H1, H2], None, TOK + TOK2, 16, None, "GPU", None,
                                      [["tenant-a"], None]]], 0],
    # vLLM, map layout: a CPU-tier store and removal as the offloading connector publishes them, rank 3
    "vllm_map_cpu_tier": [TS, [
        {"type": "BlockStored", "block_hashes": [H1], "parent_block_hash": None, "token_ids": [], "block_size": 0,
         "lora_id": None, "medium": "CPU", "lora_name": None},
        {"type": "BlockRemoved", "block_hashes": [H2], "medium": "CPU"}], 3],
    # vLLM, map layout, digests instead of ints: a store (parent given) and a removal
    "vllm_map_bytes_hashes": [TS, [
        {"type": "BlockStored", "block_hashes": [D1], "parent_block_hash": D0, "token_ids": TOK2, "block_size": 16,
         "lora_id": None, "medium": "GPU", "lora_name": None},
        {"type": "BlockRemoved", "block_hashes": [D1], "medium": "GPU"}], 0],
    # vLLM, map layout, a hybrid model: a sliding-window store, a Mamba store spanning two blocks that names one
    # state, a Mamba store naming none (retention), a sliding-window removal
    "vllm_map_hybrid_groups": [TS, [
        {"type": "BlockStored", "block_hashes": [H2], "parent_block_hash": H1, "token_ids": TOK2, "block_size": 16,
         "lora_id": None, "medium": "GPU", "lora_name": None, "group_idx": 1, "kv_cache_spec_kind": "sliding_window",
         "kv_cache_spec_sliding_window": 128},
        {"type": "BlockStored", "block_hashes": [H2], "parent_block_hash": None, "token_ids": TOK + TOK2,
         "block_size": 16, "lora_id": None, "medium": "GPU", "lora_name": None, "group_idx": 2,
         "kv_cache_spec_kind": "mamba"},
        {"type": "BlockStored", "block_hashes": [], "parent_block_hash": H1, "token_ids": TOK2, "block_size": 16,
         "lora_id": None, "medium": "GPU", "lora_name": None, "group_idx": 2, "kv_cache_spec_kind": "mamba"},
        {"type": "BlockRemoved", "block_hashes": [H1], "medium": "GPU", "group_idx": 1}], 0],
    # vLLM, array layout, a hybrid model: a salted full-attention store of block 0 (group 0 is sent), an unsalted
    # sliding-window store (extra_keys nil), a removal
    "vllm_array_hybrid_groups": [TS, [
        ["BlockStored", [H1], None, TOK, 16, None, "GPU", None, [["tenant-a"]], 0, "full_attention"],
        ["BlockStored", [H2], H1, TOK2, 16, None, "GPU", None, None, 1, "sliding_window", 128],
        ["BlockRemoved", [H1], "GPU", 1]], 0],
    # SGLang: a two-page run becomes one event per page, parents chained, signed ids; then a removal, a host-tier
    # store and a clear; attn_dp_rank 1
    "sglang_pages": [TS, [
        ["BlockStored", [signed(H1)], None, TOK, 16, None, "GPU"],
        ["BlockStored", [signed(H2)], signed(H1), TOK2, 16, None, "GPU"],
        ["BlockRemoved", [signed(H2)], "GPU"],
        ["BlockStored", [signed(H2)], signed(H1), TOK2, 16, None, "CPU_PINNED"],
        ["AllBlocksCleared"]], 1],
}


def main():
    out = {"generator": "sim/src/test/python/derive_event_vectors.py", "msgpack": msgpack.version,
           "ts": TS, "h1": str(H1), "h2": str(H2),
           "payloads": {name: packb(obj).hex() for name, obj in CASES.items()}}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "resources", "vectors", "kv-events.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote %d payloads to %s" % (len(CASES), os.path.normpath(path)))


if __name__ == "__main__":
    main()
