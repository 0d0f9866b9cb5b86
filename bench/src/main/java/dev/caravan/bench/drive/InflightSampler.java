package dev.caravan.bench.drive;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;

/**
 * Samples every engine's own count of requests in it (running + waiting, as the engine reports it, not the router's
 * guess) at a fixed wall-clock period on a daemon thread, so the report can give time-averaged and peak in-flight load
 * per engine over the measured window.
 */
public final class InflightSampler implements AutoCloseable {

    private final IntSupplier[] probes;
    private final long periodNanos;
    private final List<long[]> samples = new ArrayList<>();
    private volatile boolean running;
    private Thread thread;

    /** @param probes one per engine, in engine order (may be empty: nothing is sampled) */
    public InflightSampler(IntSupplier[] probes, long periodNanos) {
        this.probes = probes.clone();
        this.periodNanos = periodNanos;
    }

    public void start() {
        if (probes.length == 0) {
            return;
        }
        running = true;
        thread = new Thread(() -> {
            while (running) {
                long[] s = new long[probes.length + 1];
                s[0] = System.nanoTime();
                for (int i = 0; i < probes.length; i++) {
                    s[i + 1] = probes[i].getAsInt();
                }
                synchronized (samples) {
                    samples.add(s);
                }
                LockSupport.parkNanos(periodNanos);
            }
        }, "bench-inflight-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() {
        running = false;
        if (thread != null) {
            LockSupport.unpark(thread);
            try {
                thread.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Engines sampled (0 when there were no probes). */
    public int engines() {
        return probes.length;
    }

    /**
     * Per engine: the mean of the samples taken in {@code [from, to]} (wall nanos), and at index {@code engines()} the
     * largest single sample of any engine. Null when no sample fell in the window.
     */
    public double[] window(long from, long to) {
        double[] sum = new double[probes.length + 1];
        int n = 0;
        synchronized (samples) {
            for (long[] s : samples) {
                if (s[0] < from || s[0] > to) {
                    continue;
                }
                n++;
                for (int i = 0; i < probes.length; i++) {
                    sum[i] += s[i + 1];
                    sum[probes.length] = Math.max(sum[probes.length], s[i + 1]);
                }
            }
        }
        if (n == 0) {
            return null;
        }
        for (int i = 0; i < probes.length; i++) {
            sum[i] /= n;
        }
        return sum;
    }
}
