#!/usr/bin/env python3
"""How much could cache-pollution-aware placement gain on a Mooncake trace, and can reuse be predicted?

A coarse model for docs/design/pollution.md, not the bench: caches count whole 512-token hash ids (not the engines'
16-token blocks), per-engine LRU of 428,569 tokens (837 ids) each, a request is served its leading cached ids (at most
input_length - 1 tokens), the first fifth is warm-up, and "load" is the number of requests an engine got in the last
8 s of trace time. Placement rules, all with cache_aware's hit test (matched ids / ids > 0.3 -> the engine holding the
longest match):

- cache_aware: a miss goes to the least-loaded engine.
- oracle sink J: a miss whose ids beyond id 0 are never referenced again (clairvoyant) goes to the least-loaded of J
  sink engines, any other miss to the least loaded of the other 8 - J: the most the one-off sink could gain with a
  perfect predictor.
- feature sink J: the same with a predictor the router could have (prompt shorter than T ids).

No load bound applies to the sink here (the share column shows what that costs); the gateway's option has one.

It also prints how well features the router sees at a miss separate reused from one-off first turns (ROC AUC).

With --label-one-off OUT it instead writes the window as a new trace in which every conversation seen only once in
the window (its hash id 1 occurs in one request) starts with hash id 10,000,000 instead of the shared id 0: one-off
prompts then have a preamble of their own, the signal a tenant or an application would give a router. --flip P
relabels each conversation the wrong way with probability P (random.Random(7)), a predictor that is right 1 - P of the
time.

Usage: pollution_oracle.py TRACE [--offset N] [--limit N] [--label-one-off OUT [--flip P]]
"""
import argparse
import bisect
import json
import random
from collections import OrderedDict, defaultdict

ENGINES = 8
CAP = 428569 // 512
LOAD_WINDOW_S = 8


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--limit", type=int, default=2000)
    ap.add_argument("--label-one-off")
    ap.add_argument("--flip", type=float, default=0.0)
    a = ap.parse_args()
    with open(a.trace) as f:
        lines = f.readlines()[a.offset:a.offset + a.limit]
    reqs = [json.loads(line) for line in lines]
    if a.label_one_off:
        label_one_off(reqs, a.label_one_off, a.flip)
        return
    warm = len(reqs) // 5
    refs = defaultdict(list)
    for i, r in enumerate(reqs):
        for h in r["hash_ids"]:
            refs[h].append(i)

    def one_off(i):
        return not any(refs[h][-1] > i for h in reqs[i]["hash_ids"][1:])

    def served(cache, r):
        k = 0
        for h in r["hash_ids"]:
            if h not in cache:
                break
            k += 1
        return min(k * 512, (r["input_length"] - 1) // 16 * 16), k

    def touch(cache, r, cap):
        for h in reversed(r["hash_ids"]):  # tail first, head last: the head is the most recently used
            cache[h] = True
            cache.move_to_end(h)
        while len(cache) > cap:
            cache.popitem(last=False)

    def run(sink_of):
        caches = [OrderedDict() for _ in range(ENGINES)]
        recent = [[] for _ in range(ENGINES)]
        counts = [0] * ENGINES
        hit = total = 0
        for i, r in enumerate(reqs):
            t = r["timestamp"] / 1000
            loads = []
            for e in range(ENGINES):
                recent[e] = [x for x in recent[e] if x > t - LOAD_WINDOW_S]
                loads.append(len(recent[e]))
            matches = [served(c, r)[1] for c in caches]
            best = max(range(ENGINES), key=lambda e: (matches[e], -loads[e]))
            if matches[best] / len(r["hash_ids"]) > 0.3:
                e = best
            else:
                side = sink_of(i)
                pool = range(ENGINES) if side is None else side
                e = min(pool, key=lambda x: (loads[x], x))
            s, _ = served(caches[e], r)
            if i >= warm:
                hit += s
                total += r["input_length"]
                counts[e] += 1
            touch(caches[e], r, CAP)
            recent[e].append(t)
        return hit / total, max(counts) / (sum(counts) / ENGINES)

    pooled = OrderedDict()
    hit = total = 0
    for i, r in enumerate(reqs):
        s, _ = served(pooled, r)
        if i >= warm:
            hit += s
            total += r["input_length"]
        touch(pooled, r, CAP * ENGINES)
    print(f"requests {a.offset}..{a.offset + len(reqs)}, warm-up {warm}")
    print(f"pooled LRU          hit {hit / total:.3f}")
    print("cache_aware         hit {:.3f} share {:.2f}".format(*run(lambda i: None)))
    for j in (1, 2, 3, 4):
        sink, rest = list(range(ENGINES - j, ENGINES)), list(range(ENGINES - j))
        print(f"oracle sink J={j}    hit {{:.3f}} share {{:.2f}}".format(*run(lambda i: sink if one_off(i) else rest)))
        for t in (14, 20, 30):
            print(f"  ids < {t} sink J={j} hit {{:.3f}} share {{:.2f}}".format(
                *run(lambda i, t=t: sink if len(reqs[i]["hash_ids"]) < t else rest)))

    seen, rows = set(), []
    for i, r in enumerate(reqs):
        h = r["hash_ids"]
        k = 0
        while k < len(h) and h[k] in seen:
            k += 1
        if k <= 1:  # a first turn: nothing beyond the shared id 0 was seen before
            rows.append((r["input_length"], r["output_length"], not one_off(i)))
        seen.update(h)

    def auc(pairs):
        pos = [x for x, y in pairs if y]
        neg = sorted(x for x, y in pairs if not y)
        s = sum(bisect.bisect_left(neg, p) + 0.5 * (bisect.bisect_right(neg, p) - bisect.bisect_left(neg, p))
                for p in pos)
        return s / len(pos) / len(neg)

    reused = sum(1 for *_, y in rows if y)
    print(f"first turns {len(rows)}, later continued {reused / len(rows):.3f}; ROC AUC of input length "
          f"{auc([(x, y) for x, _, y in rows]):.3f}, of max_tokens {auc([(o, y) for _, o, y in rows]):.3f}")


def label_one_off(reqs, out, flip):
    roots = defaultdict(int)
    for r in reqs:
        if len(r["hash_ids"]) > 1:
            roots[r["hash_ids"][1]] += 1
    rnd = random.Random(7)
    label = {}
    with open(out, "w") as f:
        for r in reqs:
            h = list(r["hash_ids"])
            if len(h) > 1:
                if h[1] not in label:
                    one_off = roots[h[1]] == 1
                    label[h[1]] = (not one_off) if rnd.random() < flip else one_off
                if label[h[1]]:
                    h[0] = 10_000_000
            f.write(json.dumps(dict(r, hash_ids=h)) + "\n")


if __name__ == "__main__":
    main()
