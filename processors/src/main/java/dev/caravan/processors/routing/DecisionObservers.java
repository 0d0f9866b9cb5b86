package dev.caravan.processors.routing;

import java.util.function.Consumer;

import dev.caravan.policies.Decision;

/**
 * Everything told about each selection decision, declined ones included (the request meters, the KV publishers'
 * silence check): the gateway's assembler shares one before any feature wires, features add their observers while
 * they wire, and {@code selectWorker} tells it every decision.
 *
 * <p>Adding composes the observers into one chain ({@link Consumer#andThen}), so telling them costs no allocation per
 * request. Observers are added on the wiring thread before the routes start; the chain is volatile so a request thread
 * sees the last one.
 */
public final class DecisionObservers implements Consumer<Decision> {

    private volatile Consumer<Decision> chain = d -> { };

    /** Adds an observer, told after the ones added before it. */
    public void add(Consumer<Decision> observer) {
        chain = chain.andThen(observer);
    }

    @Override
    public void accept(Decision decision) {
        chain.accept(decision);
    }
}
