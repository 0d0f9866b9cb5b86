package dev.caravan.sim.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;

/**
 * The byte vectors of docs/design/upstream.md, "vLLM: KV events on the wire" (packed with python3-msgpack), and the
 * payloads {@code sim/src/test/python/derive_event_vectors.py} packed with python3-msgpack from the engines' struct
 * layouts ({@code vectors/kv-events.json}).
 */
class KvEventEncoderTest {

    private static final double TS = 1700000000.5;
    private static final long HASH = 0x8a3f2c1d5e6b7a90L;
    private static final int[] TOKENS = IntStream.rangeClosed(1, 16).toArray();
    private static final String LEGACY_62 = "93cb41d954fc402000009198ab426c6f636b53746f72656491cf8a3f2c1d5e6b7a90c0"
            + "dc00100102030405060708090a0b0c0d0e0f1010c0a3475055c000";
    private static final String MAP_144 = "93cb41d954fc402000009188a474797065ab426c6f636b53746f726564ac626c6f636b5f"
            + "68617368657391cf8a3f2c1d5e6b7a90b1706172656e745f626c6f636b5f68617368c0a9746f6b656e5f696473dc0010010203"
            + "0405060708090a0b0c0d0e0f10aa626c6f636b5f73697a6510a76c6f72615f6964c0a66d656469756da3475055a96c6f7261"
            + "5f6e616d65c000";

    private static final long HASH2 = 0x0123456789abcdefL;
    private static final int[] TOKENS2 = IntStream.rangeClosed(17, 32).toArray();

    private static String vector(String name) throws IOException {
        try (InputStream in = KvEventEncoderTest.class.getResourceAsStream("/vectors/kv-events.json")) {
            JsonNode root = new ObjectMapper().readTree(in);
            assertThat(root.path("h1").asText()).isEqualTo(Long.toUnsignedString(HASH));
            assertThat(root.path("h2").asText()).isEqualTo(Long.toUnsignedString(HASH2));
            return root.path("payloads").path(name).asText();
        }
    }

    private static int[] concat(int[] a, int[] b) {
        return IntStream.concat(IntStream.of(a), IntStream.of(b)).toArray();
    }

    @Test
    void vllmReportsTheCacheSaltOfBlockZeroInExtraKeys() throws IOException {
        byte[] out = new KvEventEncoder(KvPublisherKind.VLLM, KvEventLayout.ARRAY).encode(TS, List.of(
                new KvEvent.BlockStored(new long[] {HASH, HASH2}, null, concat(TOKENS, TOKENS2), 16,
                        KvEvent.Medium.GPU, "tenant-a")), 0);
        assertThat(HexFormat.of().formatHex(out)).isEqualTo(vector("vllm_array_salted_store"));
    }

    @Test
    void vllmCpuTierEventsCarryNoTokensAsTheOffloadingConnectorSendsThem() throws IOException {
        byte[] out = new KvEventEncoder(KvPublisherKind.VLLM, KvEventLayout.MAP).encode(TS, List.of(
                new KvEvent.BlockStored(new long[] {HASH}, 42L, TOKENS, 16, KvEvent.Medium.CPU, null),
                new KvEvent.BlockRemoved(new long[] {HASH2}, KvEvent.Medium.CPU)), 3);
        assertThat(HexFormat.of().formatHex(out)).isEqualTo(vector("vllm_map_cpu_tier"));
    }

    @Test
    void vllmWithoutIntHashesPublishesTheFullDigestsAsBytes() throws IOException {
        byte[] d0 = IntStream.range(0, 32).collect(() -> new byte[32], (b, i) -> b[i] = (byte) i, (a, b) -> { });
        byte[] d1 = IntStream.range(0, 32).collect(() -> new byte[32], (b, i) -> b[i] = (byte) (32 + i), (a, b) -> { });
        byte[] out = new KvEventEncoder(KvPublisherKind.VLLM, KvEventLayout.MAP, false).encode(TS, List.of(
                new KvEvent.BlockStored(new long[] {HASH}, HASH2, TOKENS2, 16, KvEvent.Medium.GPU, null,
                        new byte[][] {d1}, d0),
                new KvEvent.BlockRemoved(new long[] {HASH}, KvEvent.Medium.GPU, new byte[][] {d1})), 0);
        assertThat(HexFormat.of().formatHex(out)).isEqualTo(vector("vllm_map_bytes_hashes"));
    }

    @Test
    void hybridMapEventsNameTheirGroupAndItsKindAndWindow() throws IOException {
        KvGroup swa = new KvGroup(1, "sliding_window", 128);
        KvGroup mamba = new KvGroup(2, "mamba", null);
        byte[] out = new KvEventEncoder(KvPublisherKind.VLLM, KvEventLayout.MAP).encode(TS, List.of(
                new KvEvent.BlockStored(new long[] {HASH2}, HASH, TOKENS2, 16, KvEvent.Medium.GPU, null, null, null,
                        swa),
                new KvEvent.BlockStored(new long[] {HASH2}, null, concat(TOKENS, TOKENS2), 16, KvEvent.Medium.GPU,
                        null, null, null, mamba),
                new KvEvent.BlockStored(new long[0], HASH, TOKENS2, 16, KvEvent.Medium.GPU, null, null, null, mamba),
                new KvEvent.BlockRemoved(new long[] {HASH}, KvEvent.Medium.GPU, null, swa)), 0);
        assertThat(HexFormat.of().formatHex(out)).isEqualTo(vector("vllm_map_hybrid_groups"));
    }

    @Test
    void hybridArrayEventsSendAnUnsetExtraKeysAsNilBeforeTheGroup() throws IOException {
        KvGroup full = new KvGroup(0, "full_attention", null);
        KvGroup swa = new KvGroup(1, "sliding_window", 128);
        byte[] out = new KvEventEncoder(KvPublisherKind.VLLM, KvEventLayout.ARRAY).encode(TS, List.of(
                new KvEvent.BlockStored(new long[] {HASH}, null, TOKENS, 16, KvEvent.Medium.GPU, "tenant-a", null,
                        null, full),
                new KvEvent.BlockStored(new long[] {HASH2}, HASH, TOKENS2, 16, KvEvent.Medium.GPU, null, null, null,
                        swa),
                new KvEvent.BlockRemoved(new long[] {HASH}, KvEvent.Medium.GPU, null, swa)), 0);
        assertThat(HexFormat.of().formatHex(out)).isEqualTo(vector("vllm_array_hybrid_groups"));
    }

    @Test
    void sglangSendsOneStoredEventPerPageWithSignedIdsAndEveryField() throws IOException {
        byte[] out = new KvEventEncoder(KvPublisherKind.SGLANG, KvEventLayout.MAP).encode(TS, List.of(
                new KvEvent.BlockStored(new long[] {HASH, HASH2}, null, concat(TOKENS, TOKENS2), 16),
                new KvEvent.BlockRemoved(new long[] {HASH2}),
                new KvEvent.BlockStored(new long[] {HASH2}, HASH, TOKENS2, 16, KvEvent.Medium.CPU, "ignored"),
                new KvEvent.AllBlocksCleared()), 1);
        assertThat(HexFormat.of().formatHex(out)).isEqualTo(vector("sglang_pages"));
    }

    private static KvEvent stored() {
        return new KvEvent.BlockStored(new long[] {HASH}, null, TOKENS, 16);
    }

    @Test
    void legacyArrayBatchMatchesTheReference62Bytes() {
        byte[] out = new KvEventEncoder(KvEventLayout.ARRAY).encode(TS, List.of(stored()), 0);
        assertThat(out).hasSize(62);
        assertThat(HexFormat.of().formatHex(out)).isEqualTo(LEGACY_62);
    }

    @Test
    void mapBatchMatchesTheReference144Bytes() {
        byte[] out = new KvEventEncoder(KvEventLayout.MAP).encode(TS, List.of(stored()), 0);
        assertThat(out).hasSize(144);
        assertThat(HexFormat.of().formatHex(out)).isEqualTo(MAP_144);
    }

    @Test
    void removedAndClearedEventsMatchTheReferenceEncodings() {
        byte[] legacy = new KvEventEncoder(KvEventLayout.ARRAY).encode(TS,
                List.of(new KvEvent.BlockRemoved(new long[] {HASH}), new KvEvent.AllBlocksCleared()), 0);
        assertThat(HexFormat.of().formatHex(legacy)).isEqualTo("93cb41d954fc4020000092"
                + "93ac426c6f636b52656d6f76656491cf8a3f2c1d5e6b7a90a3475055" + "91b0416c6c426c6f636b73436c6561726564" + "00");
        byte[] map = new KvEventEncoder(KvEventLayout.MAP).encode(TS,
                List.of(new KvEvent.BlockRemoved(new long[] {HASH}), new KvEvent.AllBlocksCleared()), 0);
        assertThat(HexFormat.of().formatHex(map)).isEqualTo("93cb41d954fc4020000092"
                + "83a474797065ac426c6f636b52656d6f766564ac626c6f636b5f68617368657391cf8a3f2c1d5e6b7a90a66d656469756d"
                + "a3475055" + "81a474797065b0416c6c426c6f636b73436c6561726564" + "00");
    }

    @Test
    void independentReaderSeesUnsigned64BitHashesAndTheParentChain() throws IOException {
        long small = 3236607068019569386L;
        byte[] out = new KvEventEncoder(KvEventLayout.MAP).encode(TS, List.of(new KvEvent.BlockStored(
                new long[] {small, HASH}, 42L, IntStream.range(0, 32).toArray(), 16)), 3);
        try (MessageUnpacker u = MessagePack.newDefaultUnpacker(out)) {
            assertThat(u.unpackArrayHeader()).isEqualTo(3);
            assertThat(u.unpackDouble()).isEqualTo(TS);
            assertThat(u.unpackArrayHeader()).isEqualTo(1);
            assertThat(u.unpackMapHeader()).isEqualTo(8);
            assertThat(u.unpackString()).isEqualTo("type");
            assertThat(u.unpackString()).isEqualTo("BlockStored");
            assertThat(u.unpackString()).isEqualTo("block_hashes");
            assertThat(u.unpackArrayHeader()).isEqualTo(2);
            assertThat(u.unpackLong()).isEqualTo(small);
            assertThat(u.getNextFormat()).isEqualTo(MessageFormat.UINT64);
            assertThat(u.unpackBigInteger()).isEqualTo(new BigInteger("8a3f2c1d5e6b7a90", 16));
            assertThat(u.unpackString()).isEqualTo("parent_block_hash");
            assertThat(u.getNextFormat()).isEqualTo(MessageFormat.POSFIXINT);
            assertThat(u.unpackLong()).isEqualTo(42);
            assertThat(u.unpackString()).isEqualTo("token_ids");
            assertThat(u.unpackArrayHeader()).isEqualTo(32);
            for (int i = 0; i < 32; i++) {
                assertThat(u.unpackInt()).isEqualTo(i);
            }
            u.skipValue(8);
            assertThat(u.unpackInt()).isEqualTo(3);
            assertThat(u.hasNext()).isFalse();
        }
    }
}
