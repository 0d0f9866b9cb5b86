package dev.caravan.processors.health;

import dev.caravan.policies.Worker;

/** Told about every probe result and every health flip (metrics, tests). Must be quick and must not throw. */
public interface HealthObserver {

    default void onProbe(Worker worker, boolean ok) {
    }

    default void onTransition(Worker worker, boolean healthy) {
    }
}
