package dev.caravan.processors.quality;

import java.util.function.LongSupplier;

/**
 * One policy's recent captured ÷ reachable ratio: the last {@code size} engine-reported requests' captured tokens
 * ({@code cached_tokens}) and reachable tokens (the most any healthy engine held), summed. It says when to warn: the
 * window is full, something was reachable, the ratio is below {@code warnBelow}, and the last warning is at least
 * {@code interval} old. Thread-safe (one lock; a few additions per request).
 */
final class CaptureWindow {

    private final long[] captured;
    private final long[] reachable;
    private final double warnBelow;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private int next;
    private int size;
    private long capturedSum;
    private long reachableSum;
    private long lastWarning;
    private boolean warned;

    CaptureWindow(int size, double warnBelow, long intervalNanos, LongSupplier nanoClock) {
        this.captured = new long[size];
        this.reachable = new long[size];
        this.warnBelow = warnBelow;
        this.intervalNanos = intervalNanos;
        this.nanoClock = nanoClock;
    }

    /**
     * Adds one request; returns the window's ratio when a warning is due now (and counts it as given), else NaN.
     */
    synchronized double add(long capturedTokens, long reachableTokens) {
        if (size == captured.length) {
            capturedSum -= captured[next];
            reachableSum -= reachable[next];
        } else {
            size++;
        }
        captured[next] = capturedTokens;
        reachable[next] = reachableTokens;
        capturedSum += capturedTokens;
        reachableSum += reachableTokens;
        next = (next + 1) % captured.length;
        double r = ratio();
        if (size < captured.length || Double.isNaN(r) || r >= warnBelow) {
            return Double.NaN;
        }
        long now = nanoClock.getAsLong();
        if (warned && now - lastWarning < intervalNanos) {
            return Double.NaN;
        }
        warned = true;
        lastWarning = now;
        return r;
    }

    /** Captured ÷ reachable over the window; NaN while nothing in it was reachable. */
    synchronized double ratio() {
        return reachableSum == 0 ? Double.NaN : (double) capturedSum / reachableSum;
    }
}
