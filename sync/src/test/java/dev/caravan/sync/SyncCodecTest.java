package dev.caravan.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.fleet.BucketRanges;
import dev.caravan.policies.fleet.FleetPrefixIndex;
import dev.caravan.policies.fleet.PrefixDecision;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.processors.kv.KvEventIngestor;
import dev.caravan.processors.kv.SequenceTracker;

class SyncCodecTest {

    private static final UUID ORIGIN = new UUID(7, 9);
    private final SyncCodec codec = new SyncCodec();

    @Test
    void decisionsRoundTripWithTheirHeader() throws Exception {
        List<PrefixDecision> sent = List.of(new PrefixDecision("http://w1:8000", 42, new long[] {1, -2, 3}),
                new PrefixDecision("http://w2:8000", 43, new long[] {4}),
                new PrefixDecision("http://w1:8000", 44, new long[] {5}));
        SyncCodec.Message m = codec.read(codec.decisions(ORIGIN, 1234, sent));
        assertThat(m.header()).isEqualTo(new SyncCodec.Header(2, 1, SyncCodec.Kind.DECISIONS, ORIGIN, 1234));
        assertThat(m.decisions()).hasSize(3);
        assertThat(m.decisions().get(0).workerUrl()).isEqualTo("http://w1:8000");
        assertThat(m.decisions().get(0).hashes()).containsExactly(1, -2, 3);
        assertThat(m.decisions().get(2).stamp()).isEqualTo(44);
    }

    @Test
    void aDecisionOfThirtySevenBoundariesFitsInAKibibyte() {
        byte[] one = codec.decisions(ORIGIN, 1, List.of(new PrefixDecision("http://10.0.0.17:8000", 1, new long[37])));
        assertThat(one.length).isLessThanOrEqualTo(1024).isEqualTo(2 + 3 + 16 + 8 + 1 + 22 + 1 + 1 + 8 + 1 + 37 * 8);
    }

    @Test
    void loadsSnapshotsAndSessionsRoundTrip() throws Exception {
        assertThat(codec.read(codec.loads(ORIGIN, 5, Map.of("regular http://w1", 3))).loads().counts())
                .isEqualTo(Map.of("regular http://w1", 3));
        List<FleetPrefixIndex.Entry> entries = List.of(new FleetPrefixIndex.Entry(11, "http://w1", 100),
                new FleetPrefixIndex.Entry(12, "http://w2", 101));
        assertThat(codec.read(codec.snapshot(ORIGIN, 5, entries)).snapshot()).isEqualTo(entries);
        SyncCodec.Session s = new SyncCodec.Session("llama", List.of("http://w1", "http://w2"), 3);
        assertThat(codec.read(codec.session(s)).session()).isEqualTo(s);
    }

    @Test
    void aKvIndexSnapshotRoundTripsWithPositionsRanksAndAdapterNames() throws Exception {
        KvBlockIndex.RankState rank = new KvBlockIndex.RankState(1, 16, 4L, new long[] {-5, 6}, new long[] {7, -8},
                new long[] {1, 1L << 16});
        KvEventIngestor.WorkerSnapshot worker = new KvEventIngestor.WorkerSnapshot("regular http://w1:8000",
                List.of(new SequenceTracker.Position("kv@w1", 1, -2L)), List.of(rank));
        SyncCodec.Message m = codec.read(codec.kvSnapshot(ORIGIN, 5,
                new SyncCodec.KvSnapshot(List.of("sql-adapter"), List.of(worker))));

        assertThat(m.header().kind()).isEqualTo(SyncCodec.Kind.KV_SNAPSHOT);
        SyncCodec.KvSnapshot back = m.kvSnapshot();
        assertThat(back.loraNames()).containsExactly("sql-adapter");
        KvEventIngestor.WorkerSnapshot w = back.workers().get(0);
        assertThat(w.key()).isEqualTo("regular http://w1:8000");
        assertThat(w.positions()).containsExactly(new SequenceTracker.Position("kv@w1", 1, -2L));
        KvBlockIndex.RankState r = w.ranks().get(0);
        assertThat(List.of(r.rank(), r.blockSize(), r.nonRoutingGroups())).isEqualTo(List.of(1, 16, 4L));
        assertThat(r.engineIds()).containsExactly(-5, 6);
        assertThat(r.keys()).containsExactly(7, -8);
        assertThat(r.masks()).containsExactly(1, 1L << 16);
    }

    @Test
    void bucketRangesRoundTrip() throws Exception {
        List<BucketRanges.Range> ranges = List.of(new BucketRanges.Range("http://w1:8000", 0, 20),
                new BucketRanges.Range("http://w2:8000", 21, Long.MAX_VALUE));
        SyncCodec.Message m = codec.read(codec.bucketRanges(ORIGIN, 5, ranges));
        assertThat(m.header().kind()).isEqualTo(SyncCodec.Kind.BUCKET_RANGES);
        assertThat(m.bucketRanges()).isEqualTo(ranges);
    }

    @Test
    void loadReportsCarryKvAwaresActiveBlocksAndASchemaOneReportReadsWithoutThem() throws Exception {
        SyncCodec.LoadReport report = new SyncCodec.LoadReport(Map.of("regular http://w1", 3),
                Map.of("regular http://w1", 400));
        assertThat(codec.read(codec.loads(ORIGIN, 5, report)).loads()).isEqualTo(report);

        byte[] withEmptyBlocks = codec.loads(ORIGIN, 5, Map.of("regular http://w1", 3));
        byte[] schemaOne = Arrays.copyOf(withEmptyBlocks, withEmptyBlocks.length - 1); // no appended section
        assertThat(codec.read(schemaOne).loads())
                .isEqualTo(new SyncCodec.LoadReport(Map.of("regular http://w1", 3), Map.of()));
    }

    @Test
    void aNewerSchemaThatOldReadersMayReadIsReadAndItsExtraFieldsIgnored() throws Exception {
        byte[] newer = new SyncCodec(3, 1).loads(ORIGIN, 5, Map.of("regular http://w1", 3));
        byte[] withExtra = Arrays.copyOf(newer, newer.length + 9); // a field version 3 appended
        SyncCodec.Message m = codec.read(withExtra);
        assertThat(m.header().version()).isEqualTo(3);
        assertThat(m.loads().counts()).isEqualTo(Map.of("regular http://w1", 3));
    }

    @Test
    void aSchemaThisReplicaCannotReadIsRefusedWithItsVersions() {
        byte[] incompatible = new SyncCodec(3, 3).loads(ORIGIN, 5, Map.of());
        assertThatThrownBy(() -> codec.read(incompatible)).isInstanceOf(SyncCodec.SchemaMismatch.class)
                .hasMessage("schema 3 needs a reader of at least 3; this replica reads 2");
    }

    @Test
    void garbageAndTruncatedMessagesAreRejected() {
        assertThatThrownBy(() -> codec.read(new byte[] {1, 2, 3})).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a Caravan sync message");
        byte[] full = codec.loads(ORIGIN, 5, Map.of("regular http://w1", 3));
        assertThatThrownBy(() -> codec.read(Arrays.copyOf(full, full.length - 2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("truncated sync message");
    }

    @Test
    void aCountTheMessageCannotHoldIsRejectedBeforeAnythingIsSizedByIt() {
        byte[] header = Arrays.copyOf(codec.decisions(ORIGIN, 5, List.of()), 29);
        // DECISIONS with a string table of 2^31 - 1 entries, in a 34-byte message
        byte[] huge = Arrays.copyOf(header, 34);
        huge[29] = (byte) 0xff;
        huge[30] = (byte) 0xff;
        huge[31] = (byte) 0xff;
        huge[32] = (byte) 0xff;
        huge[33] = 0x07;
        assertThatThrownBy(() -> codec.read(huge)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("malformed sync message: a count of 2147483647 items of at least 1 bytes, 0 bytes left");
    }

    @Test
    void aStringIndexBeyondTheTableIsRejected() {
        byte[] one = codec.decisions(ORIGIN, 5, List.of(new PrefixDecision("http://w1:8000", 1, new long[] {7})));
        byte[] bad = one.clone();
        int index = 29 + 1 + 1 + "http://w1:8000".length() + 1; // table count, length, string, decision count
        bad[index] = 3;
        assertThatThrownBy(() -> codec.read(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("malformed sync message: string 3 of a table of 1");
    }
}
