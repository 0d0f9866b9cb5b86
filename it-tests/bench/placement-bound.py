#!/usr/bin/env python3
"""Best prefix hit any placement can reach on the hot-tenant workload, when every engine evicts by LRU.

Model (docs/design/placement-bound.md): Che's approximation of an LRU cache under independent requests. Engine e holds
C blocks and receives the hot tenant's requests at rate h_e and k_e cold tenants at rate lam each; every prompt is P
blocks, every request leaves U blocks of its own. A cold tenant's prompt on e survives a time T_e (the engine's
characteristic time) with 128 k_e (1 - exp(-lam T_e)) + U r_e T_e (+ P for the hot prompt) = C, r_e = h_e + k_e lam,
and is a hit with probability 1 - exp(-lam T_e). The hot tenant always hits (it returns within microseconds of its own
requests). Searched: every split of the 8 engines into two classes, any hot share per class, any cold tenants per class,
with every engine's request rate at most `share` x the mean.

Usage: it-tests/bench/placement-bound.py [share]      (default 1.15; the bench's b2b hot:0.4 parameters)
"""
import math
import sys

ENGINES, C, P, U = 8, 216_256 // 16, 2048 // 16, 3     # b2b: 8 engines of 216,256 tokens, 2,048-token prompts
TENANTS, HOT = 1000, 0.4
LAM = 1.0                                               # one cold tenant's rate: the unit
TOTAL = (TENANTS - 1) * LAM / (1 - HOT)
HOT_RATE = HOT * TOTAL


def survival(k, rate, hot_prompt):
    """lam * T for an engine with k cold tenants and the given request rate (bisection on the fill equation)."""
    def excess(x):
        return P * k * (1 - math.exp(-x)) + U * rate * x / LAM + (P if hot_prompt else 0) - C
    lo, hi = 0.0, 500.0
    if excess(hi) < 0:
        return hi
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if excess(mid) > 0 else (mid, hi)
    return lo


def fleet_hit(classes):
    """classes: (engines, hot rate per engine, cold tenants per engine); prompt hit of the whole fleet."""
    cold = sum(n * k * (1 - math.exp(-survival(k, h + k * LAM, h > 0))) for n, h, k in classes) / (TENANTS - 1)
    return HOT + (1 - HOT) * cold


def best(share):
    cap = share * TOTAL / ENGINES
    top = (fleet_hit([(ENGINES, HOT_RATE / ENGINES, (TENANTS - 1) / ENGINES)]), "even spread")
    for a in range(1, ENGINES):
        b = ENGINES - a
        for pct in range(101):
            ha, hb = HOT_RATE * pct / 100 / a, HOT_RATE * (100 - pct) / 100 / b
            for step in range(0, 1001):
                ka = step * 0.5
                kb = (TENANTS - 1 - ka * a) / b
                if kb < 0 or ha + ka * LAM > cap or hb + kb * LAM > cap:
                    continue
                hit = fleet_hit([(a, ha, ka), (b, hb, kb)])
                if hit > top[0]:
                    top = (hit, f"{a} engines with {pct} % of the hot tenant and {ka:.1f} cold tenants each, "
                                f"{b} with the rest and {kb:.1f} each")
    return top


if __name__ == "__main__":
    share = float(sys.argv[1]) if len(sys.argv) > 1 else 1.15
    even = fleet_hit([(ENGINES, HOT_RATE / ENGINES, (TENANTS - 1) / ENGINES)])
    hit, how = best(share)
    print(f"even spread: {even:.4f}")
    print(f"best placement at share <= {share}: {hit:.4f} ({how})")
