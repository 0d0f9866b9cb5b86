package dev.caravan.processors;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;

import dev.caravan.processors.error.GatewayException;

/**
 * The checks every fuzz target ({@code *FuzzTest}, Jazzer's {@code @FuzzTest}) makes of one input, beside its own
 * "still serving" check:
 * <ul>
 *   <li>{@link #clientError}: an exception that escapes a request-path step is the gateway's own 4xx
 *       ({@link GatewayException}), never a 500 or an {@link Error};</li>
 *   <li>{@link #allocationOf}: the bytes the calling thread allocates for one input stay under
 *       {@link #BASE_BYTES} plus {@link #BYTES_PER_INPUT_BYTE} per input byte, so a length field cannot make a parser
 *       allocate what the message does not hold. Measured with HotSpot's per-thread allocation counter, which counts
 *       every allocation of the thread (garbage included), so the bound is loose on purpose: it catches a
 *       gigabyte array, not a copy too many.</li>
 * </ul>
 */
public final class FuzzOracle {

    /**
     * Allowance for what an input's first use of a code path costs: loading classes (and, in fuzzing mode, Jazzer
     * instrumenting them on the same thread) and filling first-use caches. Targets warm up on a valid input first.
     */
    public static final long BASE_BYTES = 128L << 20;
    /** Parsing JSON into maps and lists costs tens of bytes per input byte; an array sized by a header costs more. */
    public static final long BYTES_PER_INPUT_BYTE = 256;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private FuzzOracle() {
    }

    /** What one step of a target does with an input; may throw. */
    @FunctionalInterface
    public interface Step {
        void run() throws Exception;
    }

    /**
     * Runs {@code step}; an exception other than a 4xx {@link GatewayException} fails the target (rethrown as an
     * {@link AssertionError} carrying it).
     *
     * @return the client error it raised, or null when it passed
     */
    public static GatewayException clientError(Step step) {
        try {
            step.run();
            return null;
        } catch (GatewayException e) {
            assertThat(e.error().status()).as("status of %s", e).isBetween(400, 499);
            return e;
        } catch (Exception | StackOverflowError | OutOfMemoryError e) {
            throw new AssertionError("not a client error: " + e, e);
        }
    }

    /** Runs {@code step} and fails when the thread allocated more than the bound for {@code inputLength} bytes. */
    public static void allocationOf(long inputLength, Step step) throws Exception {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        step.run();
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("bytes allocated for an input of %d bytes", inputLength)
                .isLessThanOrEqualTo(BASE_BYTES + BYTES_PER_INPUT_BYTE * inputLength);
    }
}
