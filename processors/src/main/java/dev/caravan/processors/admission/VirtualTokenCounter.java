package dev.caravan.processors.admission;

import java.util.HashMap;
import java.util.Map;

/**
 * Virtual token counters (VTC, Sheng et al., "Fairness in Serving Large Language Models", OSDI 2024): one counter per
 * tenant of the tokens it has been served — prompt tokens when a request is admitted, output tokens (and the prompt's
 * correction) when it ends. Among the tenants waiting in one class, the one with the lowest counter goes next, so over
 * time each backlogged tenant is served the same number of tokens, whatever the size or rate of its requests.
 *
 * <p>A tenant that was idle must not bank credit: when it starts waiting again its counter is lifted to a floor (the
 * lowest counter of the tenants already waiting, else the counter of the last tenant served). Counters only grow; they
 * are keyed by tenant name, and the tenants are those of the tenants file plus {@code other}, so the map stays small.
 *
 * <p>Each counter is a mutable cell, so charging a request (twice per request: at admission and when it completes) is
 * one look-up and no boxed {@code Long} (design/request-path.md, "Per-request cost").
 *
 * <p>Not thread-safe: guarded by the {@link AdmissionController}'s lock.
 */
final class VirtualTokenCounter {

    private static final class Cell {
        long tokens;
    }

    private final Map<String, Cell> counters = new HashMap<>();

    long value(String tenant) {
        Cell cell = counters.get(tenant);
        return cell == null ? 0 : cell.tokens;
    }

    /** Adds tokens served (a negative correction never takes a counter below zero). */
    void charge(String tenant, long tokens) {
        Cell cell = cell(tenant);
        cell.tokens = Math.max(0, cell.tokens + tokens);
    }

    /** Raises the tenant's counter to {@code floor} when it is lower. */
    void lift(String tenant, long floor) {
        Cell cell = cell(tenant);
        if (cell.tokens < floor) {
            cell.tokens = floor;
        }
    }

    private Cell cell(String tenant) {
        Cell cell = counters.get(tenant);
        if (cell == null) {
            cell = new Cell();
            counters.put(tenant, cell);
        }
        return cell;
    }
}
