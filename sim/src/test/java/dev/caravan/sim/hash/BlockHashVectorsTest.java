package dev.caravan.sim.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The simulator's hashes against vectors Python derived from vLLM's and SGLang's algorithms with Python's own pickle,
 * hashlib, cbor2 and xxhash ({@code sim/src/test/python/derive_hash_vectors.py} wrote
 * {@code vectors/block-hashes.json}; no Caravan code was involved).
 */
class BlockHashVectorsTest {

    private static final HexFormat HEX = HexFormat.of();

    static Stream<JsonNode> cases() throws IOException {
        try (InputStream in = BlockHashVectorsTest.class.getResourceAsStream("/vectors/block-hashes.json")) {
            JsonNode root = new ObjectMapper().readTree(in);
            List<JsonNode> out = new ArrayList<>();
            root.path("cases").forEach(out::add);
            return out.stream();
        }
    }

    private static int[] tokens(JsonNode c) {
        int[] t = new int[c.path("tokens").size()];
        for (int i = 0; i < t.length; i++) {
            t[i] = c.path("tokens").get(i).asInt();
        }
        return t;
    }

    private static String describe(JsonNode c) {
        return c.path("engine").asText() + "/" + c.path("algo").asText() + " seed=" + c.path("seed").asText(null)
                + " prompt=" + c.path("prompt").asText() + " salt=" + c.path("cache_salt").asText(null)
                + " block=" + c.path("block_size").asInt();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void digestsAndEventIdsMatchTheEnginesAlgorithm(JsonNode c) {
        int[] tokens = tokens(c);
        BlockHashChain chain;
        String salt = c.path("cache_salt").isNull() ? null : c.path("cache_salt").asText(null);
        if (c.path("engine").asText().equals("vllm")) {
            HashAlgo algo = HashAlgo.parse(c.path("algo").asText());
            byte[] root = HEX.parseHex(c.path("root").asText());
            if (!c.path("seed").isNull()) {
                assertThat(HEX.formatHex(VllmBlockHasher.root(algo, c.path("seed").asText(), null)))
                        .as("NONE_HASH of %s", describe(c)).isEqualTo(c.path("root").asText());
            }
            Object first = new Object[] {root, Arrays.copyOf(tokens, c.path("block_size").asInt()),
                    salt == null ? null : new Object[] {salt}};
            assertThat(HEX.formatHex(algo.serialize(first))).as("serialised first block of %s", describe(c))
                    .isEqualTo(c.path("first_block_serialized").asText());
            chain = new VllmBlockHasher(algo, c.path("block_size").asInt(), root);
        } else {
            chain = new SglangPageHasher(c.path("block_size").asInt());
        }
        byte[][] digests = chain.digests(tokens, salt);
        List<String> hex = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (byte[] d : digests) {
            hex.add(HEX.formatHex(d));
            long id = chain.external(d);
            ids.add(c.path("engine").asText().equals("vllm") ? Long.toUnsignedString(id) : Long.toString(id));
        }
        List<String> expectedHex = new ArrayList<>();
        c.path("digests").forEach(d -> expectedHex.add(d.asText()));
        List<String> expectedIds = new ArrayList<>();
        c.path("external").forEach(d -> expectedIds.add(d.asText()));
        assertThat(hex).as("digests of %s", describe(c)).isEqualTo(expectedHex);
        assertThat(ids).as("event ids of %s", describe(c)).isEqualTo(expectedIds);
    }

    @Test
    void anUnseededRootIsRandomPerEngineProcess() {
        byte[] a = VllmBlockHasher.root(HashAlgo.SHA256, null, new SplittableRandom(1));
        byte[] b = VllmBlockHasher.root(HashAlgo.SHA256, null, new SplittableRandom(2));
        assertThat(a).hasSize(32).isNotEqualTo(b);
        int[] tokens = new int[16];
        assertThat(new VllmBlockHasher(HashAlgo.SHA256, 16, a).digests(tokens, null)[0])
                .isNotEqualTo(new VllmBlockHasher(HashAlgo.SHA256, 16, b).digests(tokens, null)[0]);
    }

    @Test
    void parsesVllmsFlagValuesAndRejectsOthers() {
        assertThat(Arrays.stream(HashAlgo.values()).map(HashAlgo::wireName))
                .containsExactly("sha256", "sha256_cbor", "xxhash", "xxhash_cbor");
        assertThat(HashAlgo.parse(" SHA256_CBOR ")).isEqualTo(HashAlgo.SHA256_CBOR);
        assertThatThrownBy(() -> HashAlgo.parse("md5")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hash-algo must be sha256, sha256_cbor, xxhash or xxhash_cbor, was 'md5'");
    }
}
