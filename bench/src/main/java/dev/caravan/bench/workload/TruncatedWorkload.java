package dev.caravan.bench.workload;

import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The beginning of another workload: its open-loop arrivals up to a simulated time, without follow-ups. The benchmark
 * sends it once before the first policy, unmeasured, so that JIT compilation and class loading happen on a throwaway
 * fleet instead of inside the first policy's figures.
 */
public final class TruncatedWorkload implements Workload {

    private final Workload inner;
    private final long untilNanos;

    public TruncatedWorkload(Workload inner, long untilNanos) {
        this.inner = inner;
        this.untilNanos = untilNanos;
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public String description() {
        return "first " + untilNanos / 1_000_000_000L + " simulated s of " + inner.description();
    }

    @Override
    public Map<String, Object> parameters() {
        return inner.parameters();
    }

    @Override
    public Iterator<BenchRequest> arrivals() {
        Iterator<BenchRequest> it = inner.arrivals();
        return new Iterator<>() {
            private BenchRequest next = advance();

            private BenchRequest advance() {
                if (!it.hasNext()) {
                    return null;
                }
                BenchRequest r = it.next();
                return r.atNanos() <= untilNanos ? r : null;
            }

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public BenchRequest next() {
                if (next == null) {
                    throw new NoSuchElementException();
                }
                BenchRequest r = next;
                next = advance();
                return r;
            }
        };
    }

    @Override
    public boolean needsOutputText() {
        return inner.needsOutputText();
    }

    @Override
    public long expectedRequests() {
        return inner.expectedRequests();
    }

    @Override
    public int defaultWarmup() {
        return 0;
    }
}
