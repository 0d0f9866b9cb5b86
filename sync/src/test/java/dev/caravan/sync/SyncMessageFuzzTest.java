package dev.caravan.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.code_intelligence.jazzer.junit.FuzzTest;

import dev.caravan.policies.fleet.PrefixDecision;
import dev.caravan.processors.FuzzOracle;

/**
 * Fuzz target: a message from a peer replica, as every sync route and the snapshot pull decode it
 * ({@link SyncCodec#read}, our own binary format).
 *
 * <p>Input: the message's bytes. Oracle: reading answers a message or throws one of the two documented exceptions —
 * {@link SyncCodec.SchemaMismatch} (another schema) or {@link IllegalArgumentException} (not a sync message, cut
 * short, a count or index the message cannot hold) — which the routes count and skip; never another exception or an
 * {@link Error}; the thread allocates within the {@link FuzzOracle} bound (a count field cannot size an array the
 * message does not fill); and afterwards a known message still decodes exactly. Regression inputs:
 * {@code SyncMessageFuzzTestInputs/peerMessage/}.
 */
class SyncMessageFuzzTest {

    static final SyncCodec CODEC = new SyncCodec();
    static final UUID ORIGIN = new UUID(7, 9);
    static final List<PrefixDecision> KNOWN = List.of(new PrefixDecision("http://10.0.0.17:8000", 42,
            new long[] {1, -2, Long.MAX_VALUE}));

    @FuzzTest(maxDuration = "60s")
    void peerMessage(byte[] input) throws Exception {
        FuzzOracle.allocationOf(input.length, () -> {
            try {
                SyncCodec.Message m = CODEC.read(input);
                assertThat(m.header().kind()).isNotNull();
            } catch (SyncCodec.SchemaMismatch | IllegalArgumentException expected) {
                // counted and skipped by the routes
            } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
                throw new AssertionError("not a documented decode failure: " + e, e);
            }
        });
        SyncCodec.Message known = CODEC.read(CODEC.decisions(ORIGIN, 1234, KNOWN));
        assertThat(known.header()).isEqualTo(new SyncCodec.Header(SyncCodec.VERSION, SyncCodec.MIN_READER,
                SyncCodec.Kind.DECISIONS, ORIGIN, 1234));
        assertThat(known.decisions()).hasSize(1);
        assertThat(known.decisions().get(0).workerUrl()).isEqualTo("http://10.0.0.17:8000");
        assertThat(known.decisions().get(0).hashes()).containsExactly(1, -2, Long.MAX_VALUE);
        assertThat(CODEC.read(CODEC.loads(ORIGIN, 5, Map.of("regular http://w1", 3))).loads().counts())
                .isEqualTo(Map.of("regular http://w1", 3));
    }
}
