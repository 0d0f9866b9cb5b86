package dev.caravan.processors.admission;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.caravan.processors.ExchangeProperty;

/**
 * One admitted request: it counts as in flight (and, with a concurrency limit, holds a slot) until {@link #release()},
 * which the admission step arranges for when the exchange completes — stream end, error or client disconnect. Releasing
 * twice is a no-op.
 */
public final class AdmissionTicket {

    /** The request's ticket, released once when the exchange completes (written by {@code admitRequest}). */
    public static final ExchangeProperty<AdmissionTicket> PROPERTY =
            ExchangeProperty.of("caravanAdmissionTicket", AdmissionTicket.class);

    private final AdmissionController owner;
    private final AtomicBoolean released = new AtomicBoolean();

    AdmissionTicket(AdmissionController owner) {
        this.owner = owner;
    }

    /** Gives the slot back (to the next queued request, if any). True the first time only. */
    public boolean release() {
        if (released.compareAndSet(false, true)) {
            owner.release();
            return true;
        }
        return false;
    }

    public boolean isReleased() {
        return released.get();
    }
}
