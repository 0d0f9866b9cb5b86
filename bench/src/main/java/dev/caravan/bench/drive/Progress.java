package dev.caravan.bench.drive;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The progress bar on stderr: one line per policy run, redrawn every second on a terminal ({@code \r}), or printed
 * every 10 % when stderr is not a terminal (CI logs). Counters are updated by the driver from any thread.
 */
public final class Progress implements AutoCloseable {

    private static final int WIDTH = 24;

    final LongAdder sent = new LongAdder();
    final LongAdder done = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder cached = new LongAdder();
    final LongAdder prompt = new LongAdder();
    final AtomicLong maxLagNanos = new AtomicLong();

    private final String label;
    private final long expected;
    private final PrintStream out;
    private final boolean terminal;
    private final long startNanos = System.nanoTime();
    private volatile boolean running = true;
    private final Thread thread;
    private int lastTenth = -1;

    public Progress(String label, long expected, PrintStream out, boolean terminal) {
        this.label = label;
        this.expected = Math.max(1, expected);
        this.out = out;
        this.terminal = terminal;
        this.thread = new Thread(this::loop, "bench-progress");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        while (running) {
            LockSupport.parkNanos(1_000_000_000L);
            if (running) {
                draw(false);
            }
        }
    }

    private synchronized void draw(boolean last) {
        long d = done.sum();
        double frac = Math.min(1.0, d / (double) expected);
        int tenth = (int) (frac * 10);
        if (!terminal && !last && tenth == lastTenth) {
            return;
        }
        lastTenth = tenth;
        int filled = (int) Math.round(frac * WIDTH);
        long p = prompt.sum();
        String line = String.format(Locale.ROOT, "%-28s [%s%s] %3.0f%% %,d/%,d done, %,d in flight, %,d failed, "
                + "hit %.3f, late by ≤ %,d ms, %.0f s", abbreviate(label), "#".repeat(filled),
                ".".repeat(WIDTH - filled), frac * 100, d, expected, sent.sum() - d, failed.sum(),
                p == 0 ? 0.0 : cached.sum() / (double) p, maxLagNanos.get() / 1_000_000,
                (System.nanoTime() - startNanos) / 1e9);
        if (terminal) {
            out.print("\r" + line + (last ? "\n" : ""));
        } else {
            out.println(line);
        }
        out.flush();
    }

    private static String abbreviate(String s) {
        return s.length() <= 28 ? s : s.substring(0, 27) + "…";
    }

    /** A request left, {@code lagNanos} later than scheduled. */
    public void onSent(long lagNanos) {
        sent.increment();
        maxLagNanos.accumulateAndGet(lagNanos, Math::max);
    }

    /** A request ended. */
    public void onDone(boolean ok, int cachedTokens, int promptTokens) {
        done.increment();
        if (ok) {
            cached.add(cachedTokens);
            prompt.add(promptTokens);
        } else {
            failed.increment();
        }
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        draw(true);
    }
}
