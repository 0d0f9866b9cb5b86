package dev.caravan.policies;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A nanosecond time source that moves only when told to, for tests (idle TTLs, sliding windows) and for replaying a
 * recorded trace at its own timestamps. Thread-safe.
 *
 * <pre>{@code
 * ManualTicker ticker = new ManualTicker();
 * PolicyEnvironment env = PolicyEnvironment.of(ticker, 42);
 * ticker.advance(Duration.ofSeconds(4));
 * }</pre>
 */
public final class ManualTicker implements LongSupplier {

    private final AtomicLong nanos;

    public ManualTicker() {
        this(0L);
    }

    public ManualTicker(long startNanos) {
        this.nanos = new AtomicLong(startNanos);
    }

    @Override
    public long getAsLong() {
        return nanos.get();
    }

    public void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    public void set(long value) {
        nanos.set(value);
    }
}
