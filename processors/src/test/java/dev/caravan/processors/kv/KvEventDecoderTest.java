package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigInteger;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

import dev.caravan.policies.kv.KvEvent.AllBlocksCleared;
import dev.caravan.policies.kv.KvEvent.BlockRemoved;
import dev.caravan.policies.kv.KvEvent.BlockStored;
import dev.caravan.policies.kv.KvTier;
import dev.caravan.processors.kv.KvDecodeException.Reason;

class KvEventDecoderTest {

    /** The legacy (array) batch of docs/design/upstream.md, "vLLM: KV events on the wire", 62 bytes. */
    static final String LEGACY_STORED_BATCH = "93" + "cb41d954fc40200000" + "91" + "98"
            + "ab426c6f636b53746f726564" + "91cf8a3f2c1d5e6b7a90" + "c0" + "dc0010" + "0102030405060708090a0b0c0d0e0f10"
            + "10" + "c0" + "a3475055" + "c0" + "00";
    /** The same event in the map layout, 144 bytes. */
    static final String MAP_STORED_BATCH = "93" + "cb41d954fc40200000" + "91" + "88"
            + "a474797065" + "ab426c6f636b53746f726564"
            + "ac626c6f636b5f686173686573" + "91cf8a3f2c1d5e6b7a90"
            + "b1706172656e745f626c6f636b5f68617368" + "c0"
            + "a9746f6b656e5f696473" + "dc0010" + "0102030405060708090a0b0c0d0e0f10"
            + "aa626c6f636b5f73697a65" + "10"
            + "a76c6f72615f6964" + "c0"
            + "a66d656469756d" + "a3475055"
            + "a96c6f72615f6e616d65" + "c0" + "00";
    static final String LEGACY_REMOVED = "93ac426c6f636b52656d6f76656491cf8a3f2c1d5e6b7a90a3475055";
    static final String MAP_REMOVED = "83a474797065ac426c6f636b52656d6f766564ac626c6f636b5f68617368657391cf8a3f2c1d5e6b7a90"
            + "a66d656469756da3475055";
    static final String LEGACY_CLEARED = "91b0416c6c426c6f636b73436c6561726564";
    static final String MAP_CLEARED = "81a474797065b0416c6c426c6f636b73436c6561726564";
    static final long HASH = 0x8a3f2c1d5e6b7a90L;

    static byte[] hex(String s) {
        return HexFormat.of().parseHex(s);
    }

    /** A legacy outer batch [ts=1700000000.5, [events...], dp_rank 0] around hex-encoded events. */
    static byte[] batchOf(String... events) {
        return hex("93cb41d954fc40200000" + Integer.toHexString(0x90 | events.length) + String.join("", events) + "00");
    }

    private static void assertTheExampleEvent(KvEventBatch batch) {
        assertThat(batch.timestamp()).isEqualTo(1700000000.5);
        assertThat(batch.dataParallelRank()).isZero();
        assertThat(batch.skippedEvents()).isZero();
        assertThat(batch.events()).hasSize(1);
        BlockStored e = (BlockStored) batch.events().get(0);
        assertThat(e.blockHashes()).containsExactly(HASH);
        assertThat(Long.toUnsignedString(e.blockHashes()[0])).isEqualTo(new BigInteger("8a3f2c1d5e6b7a90", 16).toString());
        assertThat(e.parentBlockHash()).isNull();
        assertThat(e.tokenIds()).containsExactly(IntStream.rangeClosed(1, 16).toArray());
        assertThat(e.blockSize()).isEqualTo(16);
        assertThat(e.medium()).isEqualTo("GPU");
        assertThat(e.loraName()).isNull();
        assertThat(KvTier.of(e.medium())).isEqualTo(KvTier.GPU);
    }

    @Test
    void decodesTheLegacyArrayExampleByteForByte() throws Exception {
        byte[] payload = hex(LEGACY_STORED_BATCH);
        assertThat(payload).hasSize(62);

        assertTheExampleEvent(KvEventDecoder.decodeBatch(payload));
    }

    @Test
    void decodesTheMapLayoutExampleByteForByte() throws Exception {
        byte[] payload = hex(MAP_STORED_BATCH);
        assertThat(payload).hasSize(144);

        assertTheExampleEvent(KvEventDecoder.decodeBatch(payload));
    }

    @Test
    void decodesBlockRemovedAndAllBlocksClearedInBothLayouts() throws Exception {
        KvEventBatch batch = KvEventDecoder.decodeBatch(batchOf(LEGACY_REMOVED, MAP_REMOVED, LEGACY_CLEARED, MAP_CLEARED));

        assertThat(batch.events()).hasSize(4);
        assertThat(((BlockRemoved) batch.events().get(0)).blockHashes()).containsExactly(HASH);
        assertThat(((BlockRemoved) batch.events().get(0)).medium()).isEqualTo("GPU");
        assertThat(((BlockRemoved) batch.events().get(1)).blockHashes()).containsExactly(HASH);
        assertThat(batch.events().get(2)).isInstanceOf(AllBlocksCleared.class);
        assertThat(batch.events().get(3)).isInstanceOf(AllBlocksCleared.class);
    }

    @Test
    void decodesAMapEncodedOuterBatch() throws Exception {
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packMapHeader(4);
        p.packString("events").packArrayHeader(1).packArrayHeader(1).packString("AllBlocksCleared");
        p.packString("future_field").packString("ignored");
        p.packString("data_parallel_rank").packInt(3);
        p.packString("ts").packDouble(12.25);

        KvEventBatch batch = KvEventDecoder.decodeBatch(p.toByteArray());

        assertThat(batch.timestamp()).isEqualTo(12.25);
        assertThat(batch.dataParallelRank()).isEqualTo(3);
        assertThat(batch.events()).hasOnlyElementsOfType(AllBlocksCleared.class);
    }

    @Test
    void readsHashesAsSmallIntsUint64NegativeInt64AndBytes() throws Exception {
        byte[] digest = hex("202da172" + "00".repeat(20) + "2ceabcfae6d332ea");
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packArrayHeader(2).packDouble(0).packArrayHeader(1);
        p.packArrayHeader(2).packString("BlockRemoved").packArrayHeader(6);
        p.packInt(5);
        p.packLong(4_000_000_000L);
        p.packBigInteger(new BigInteger("18446744073709551615"));
        p.packLong(-2);
        p.packBinaryHeader(digest.length).writePayload(digest);
        p.packBinaryHeader(2).writePayload(new byte[] {0x01, 0x02});

        BlockRemoved e = (BlockRemoved) KvEventDecoder.decodeBatch(p.toByteArray()).events().get(0);

        assertThat(e.blockHashes()).containsExactly(5L, 4_000_000_000L, -1L, -2L, 3236607068019569386L, 0x0102L);
        assertThat(e.medium()).isNull();
    }

    @Test
    void ignoresUnknownMapKeysAndExtraTrailingArrayElements() throws Exception {
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packArrayHeader(4).packDouble(1.0).packArrayHeader(2);
        // vLLM 0.26 map event: extra_keys, group_idx, kv_cache_spec_kind after the classic fields, type not first.
        p.packMapHeader(8);
        p.packString("block_hashes").packArrayHeader(1).packLong(7);
        p.packString("extra_keys").packArrayHeader(1).packNil();
        p.packString("type").packString("BlockStored");
        p.packString("token_ids").packArrayHeader(2).packInt(11).packInt(12);
        p.packString("group_idx").packInt(0);
        p.packString("kv_cache_spec_kind").packString("full_attention");
        p.packString("parent_block_hash").packLong(6);
        p.packString("block_size").packInt(2);
        // Legacy event from a newer engine: extra_keys and group_idx after lora_name, then fields of the future.
        p.packArrayHeader(13).packString("BlockStored").packArrayHeader(1).packLong(8).packLong(7)
                .packArrayHeader(2).packInt(13).packInt(14).packInt(2).packNil().packString("CPU").packNil()
                .packArrayHeader(0).packInt(1).packString("sliding_window").packInt(128).packNil();
        p.packInt(0).packString("a future outer field");

        KvEventBatch batch = KvEventDecoder.decodeBatch(p.toByteArray());

        assertThat(batch.skippedEvents()).isZero();
        BlockStored first = (BlockStored) batch.events().get(0);
        assertThat(first.blockHashes()).containsExactly(7L);
        assertThat(first.parentBlockHash()).isEqualTo(6L);
        assertThat(first.tokenIds()).containsExactly(11, 12);
        assertThat(first.blockSize()).isEqualTo(2);
        assertThat(first.medium()).isNull();
        assertThat(first.groupIdx()).isZero();
        assertThat(first.kvCacheSpecKind()).isEqualTo("full_attention");
        assertThat(first.slidingWindow()).isNull();
        assertThat(first.blockExtras()).isNull();
        BlockStored second = (BlockStored) batch.events().get(1);
        assertThat(second.blockHashes()).containsExactly(8L);
        assertThat(second.parentBlockHash()).isEqualTo(7L);
        assertThat(second.medium()).isEqualTo("CPU");
        assertThat(second.groupIdx()).isEqualTo(1);
        assertThat(second.kvCacheSpecKind()).isEqualTo("sliding_window");
        assertThat(second.slidingWindow()).isEqualTo(128);
    }

    @Test
    void liftsTheLoraNameAndCacheSaltOutOfVllmsExtraKeys() throws Exception {
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packArrayHeader(3).packDouble(1.0).packArrayHeader(2);
        // block 0 of a salted LoRA sequence, then a multimodal block: ("lora", (mm_id, offset), "salt") per vLLM
        p.packMapHeader(7).packString("type").packString("BlockStored");
        p.packString("block_hashes").packArrayHeader(2).packLong(1).packLong(2);
        p.packString("parent_block_hash").packNil();
        p.packString("token_ids").packArrayHeader(2).packInt(5).packInt(6);
        p.packString("block_size").packInt(1);
        p.packString("extra_keys").packArrayHeader(2)
                .packArrayHeader(2).packString("sql-lora").packString("salt-1")
                .packArrayHeader(2).packString("sql-lora").packArrayHeader(2).packString("img-9").packInt(0);
        p.packString("lora_name").packString("sql-lora");
        // a continuation: its parent is known, so a string extra key there is not a salt
        p.packArrayHeader(9).packString("BlockStored").packArrayHeader(1).packLong(3).packLong(2)
                .packArrayHeader(1).packInt(7).packInt(1).packNil().packString("GPU").packNil()
                .packArrayHeader(1).packArrayHeader(1).packString("x");
        p.packInt(0);

        KvEventBatch batch = KvEventDecoder.decodeBatch(p.toByteArray());

        BlockStored first = (BlockStored) batch.events().get(0);
        assertThat(first.loraName()).isEqualTo("sql-lora");
        assertThat(first.cacheSalt()).isEqualTo("salt-1");
        assertThat(first.extra(0)).isNull();
        assertThat(new String(first.extra(1), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("[\"img-9\",0]\u0000");
        BlockStored second = (BlockStored) batch.events().get(1);
        assertThat(second.cacheSalt()).isNull();
        assertThat(second.extra(0)).isNotNull();
    }

    @Test
    void readsSglangsCacheSaltAndHostTierAndSkipsRemoteBlocksAndBigramPages() throws Exception {
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packArrayHeader(3).packDouble(1.0).packArrayHeader(4);
        p.packMapHeader(6).packString("type").packString("BlockStored")
                .packString("block_hashes").packArrayHeader(1).packLong(-5)
                .packString("parent_block_hash").packNil()
                .packString("token_ids").packArrayHeader(1).packInt(9)
                .packString("block_size").packInt(1)
                .packString("cache_salt").packString("s");
        p.packArrayHeader(7).packString("BlockStored").packArrayHeader(1).packLong(-6).packLong(-5)
                .packArrayHeader(1).packInt(10).packInt(1).packNil().packString("CPU_PINNED");
        p.packMapHeader(3).packString("type").packString("BlockRemoved")
                .packString("block_hashes").packArrayHeader(1).packLong(4).packString("locality").packString("REMOTE");
        // SGLang's EAGLE bigram keys publish token pairs: not token ids, so the event is skipped
        p.packArrayHeader(5).packString("BlockStored").packArrayHeader(1).packLong(-7).packNil()
                .packArrayHeader(1).packArrayHeader(2).packInt(1).packInt(2).packInt(1);
        p.packInt(1);

        KvEventBatch batch = KvEventDecoder.decodeBatch(p.toByteArray());

        assertThat(batch.skippedEvents()).isEqualTo(2);
        assertThat(((BlockStored) batch.events().get(0)).cacheSalt()).isEqualTo("s");
        assertThat(KvTier.of(((BlockStored) batch.events().get(1)).medium())).isEqualTo(KvTier.CPU);
    }

    @Test
    void toleratesMissingTrailingFieldsOfOldEngines() throws Exception {
        // The original PR #16750 layout: hashes, parent, tokens, block_size, lora_id (no medium, no lora_name).
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packArrayHeader(2).packDouble(1.0).packArrayHeader(1);
        p.packArrayHeader(6).packString("BlockStored").packArrayHeader(1).packLong(9).packNil()
                .packArrayHeader(1).packInt(1).packInt(1).packNil();

        KvEventBatch batch = KvEventDecoder.decodeBatch(p.toByteArray());

        assertThat(batch.dataParallelRank()).isNull();
        assertThat(batch.rank()).isZero();
        BlockStored e = (BlockStored) batch.events().get(0);
        assertThat(e.blockHashes()).containsExactly(9L);
        assertThat(e.medium()).isNull();
        assertThat(KvTier.of(e.medium())).isEqualTo(KvTier.GPU);
    }

    @Test
    void skipsUnknownTagsAndMalformedEventsButKeepsTheRestOfTheBatch() throws Exception {
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packArrayHeader(3).packDouble(1.0).packArrayHeader(5);
        p.packArrayHeader(2).packString("BlockMoved").packArrayHeader(1).packLong(1);
        p.packMapHeader(2).packString("type").packString("BlockRemoved").packString("block_hashes").packString("oops");
        p.packArrayHeader(2).packString("BlockStored").packArrayHeader(2).packLong(1).packString("not-a-hash");
        p.packString("not an event");
        p.packArrayHeader(2).packString("BlockRemoved").packArrayHeader(1).packLong(42);
        p.packInt(1);

        KvEventBatch batch = KvEventDecoder.decodeBatch(p.toByteArray());

        assertThat(batch.skippedEvents()).isEqualTo(4);
        assertThat(batch.events()).hasSize(1);
        assertThat(((BlockRemoved) batch.events().get(0)).blockHashes()).containsExactly(42L);
        assertThat(batch.dataParallelRank()).isEqualTo(1);
    }

    @Test
    void decodesALiveThreeFrameMessage() throws Exception {
        KvEventMessage msg = KvEventDecoder.decode(List.of("kv@pod@m".getBytes(), hex("8000000000000001"),
                hex(LEGACY_STORED_BATCH)));

        assertThat(msg.topic()).isEqualTo("kv@pod@m");
        assertThat(Long.toUnsignedString(msg.sequence())).isEqualTo("9223372036854775809");
        assertThat(msg.batch().events()).hasSize(1);
    }

    @Test
    void sequenceFramesRoundTripIncludingTheEndMarker() throws Exception {
        assertThat(KvEventDecoder.sequence(hex("ffffffffffffffff"))).isEqualTo(KvEventDecoder.END_SEQUENCE);
        assertThat(KvEventDecoder.sequenceFrame(0)).containsExactly(0, 0, 0, 0, 0, 0, 0, 0);
        assertThat(KvEventDecoder.sequenceFrame(258)).containsExactly(0, 0, 0, 0, 0, 0, 1, 2);
        assertThat(KvEventDecoder.sequence(KvEventDecoder.sequenceFrame(Long.MIN_VALUE + 5))).isEqualTo(Long.MIN_VALUE + 5);
    }

    @Test
    void rejectsWrongFrameCounts() {
        assertThatThrownBy(() -> KvEventDecoder.decode(List.of(new byte[0], new byte[8])))
                .isInstanceOf(KvDecodeException.class).hasMessage("expected 3 frames (topic, sequence, payload), got 2")
                .extracting(e -> ((KvDecodeException) e).reason()).isEqualTo(Reason.FRAME_COUNT);
    }

    @Test
    void rejectsASequenceFrameThatIsNotEightBytes() {
        assertThatThrownBy(() -> KvEventDecoder.decode(List.of(new byte[0], new byte[7], hex(LEGACY_STORED_BATCH))))
                .isInstanceOf(KvDecodeException.class).hasMessage("sequence frame must be 8 bytes, was 7")
                .extracting(e -> ((KvDecodeException) e).reason()).isEqualTo(Reason.SEQUENCE);
    }

    @Test
    void rejectsTruncatedPayloads() {
        byte[] full = hex(LEGACY_STORED_BATCH);
        byte[] truncated = java.util.Arrays.copyOf(full, 40);

        assertThatThrownBy(() -> KvEventDecoder.decodeBatch(truncated))
                .isInstanceOf(KvDecodeException.class).hasMessageStartingWith("malformed msgpack batch")
                .extracting(e -> ((KvDecodeException) e).reason()).isEqualTo(Reason.PAYLOAD);
    }

    @Test
    void rejectsTrailingBytesAndWrongOuterTypes() throws IOException {
        assertThatThrownBy(() -> KvEventDecoder.decodeBatch(hex(LEGACY_STORED_BATCH + "c0")))
                .isInstanceOf(KvDecodeException.class).hasMessage("trailing bytes after the batch (1)");
        assertThatThrownBy(() -> KvEventDecoder.decodeBatch(hex("a3475055")))
                .isInstanceOf(KvDecodeException.class).hasMessageStartingWith("batch must be an array or a map");
        assertThatThrownBy(() -> KvEventDecoder.decodeBatch(hex("92cb41d954fc40200000a3475055")))
                .isInstanceOf(KvDecodeException.class).hasMessageStartingWith("events must be an array");
        assertThatThrownBy(() -> KvEventDecoder.decodeBatch(new byte[0]))
                .isInstanceOf(KvDecodeException.class).hasMessage("empty payload");
    }

    @Test
    void aLengthThePayloadCannotHoldIsMalformedBeforeAnythingIsSizedByIt() {
        String stored = "ab426c6f636b53746f726564";
        // block_hashes claiming 2^31 - 1 elements; a block hash as bin32 of 2^31 - 1 bytes; the same array in extra_keys
        byte[] hashes = batchOf("92" + stored + "dd7fffffff");
        byte[] binaryHash = batchOf("92" + stored + "91c67fffffff");
        byte[] extraKeys = batchOf("99" + stored + "91cf8a3f2c1d5e6b7a90" + "c0" + "90" + "10" + "c0" + "a3475055" + "c0"
                + "91dd7fffffff");

        for (byte[] payload : List.of(hashes, binaryHash, extraKeys)) {
            assertThatThrownBy(() -> KvEventDecoder.decodeBatch(payload)).isInstanceOf(KvDecodeException.class)
                    .hasMessageStartingWith("malformed msgpack batch: a length of 2147483647 where ")
                    .extracting(e -> ((KvDecodeException) e).reason()).isEqualTo(Reason.PAYLOAD);
        }
    }

    @Test
    void extraKeysNestedDeeperThanTheBoundMarkTheEventBad() throws Exception {
        String stored = "99ab426c6f636b53746f726564" + "91cf8a3f2c1d5e6b7a90" + "c0" + "90" + "10" + "c0" + "a3475055"
                + "c0";
        KvEventBatch deep = KvEventDecoder.decodeBatch(batchOf(stored + "91" + "91".repeat(KvEventFields.MAX_DEPTH)
                + "90"));
        KvEventBatch bound = KvEventDecoder.decodeBatch(batchOf(stored + "91" + "91".repeat(KvEventFields.MAX_DEPTH - 1)
                + "90"));

        assertThat(deep.events()).isEmpty();
        assertThat(deep.skippedEvents()).isEqualTo(1);
        assertThat(bound.events()).hasSize(1);
        assertThat(bound.skippedEvents()).isZero();
    }
}
