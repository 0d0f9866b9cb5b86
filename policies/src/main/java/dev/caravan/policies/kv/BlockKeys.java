package dev.caravan.policies.kv;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import net.openhft.hashing.LongHashFunction;

/**
 * Caravan's own name for a KV-cache block: a 64-bit chained hash of token ids, computed the same way from a request's
 * tokens and from the {@code token_ids} an engine's {@code BlockStored} carries. Engines' own hashes (vLLM's
 * {@code sha256}/{@code sha256_cbor}/{@code xxhash} with a random root, SGLang's page chain, ints or bytes) are never
 * reproduced: {@link KvBlockIndex} keeps them only to resolve {@code BlockRemoved}. Dynamo and llm-d do the same
 * (docs/design/kv-index.md).
 *
 * <ul>
 *   <li>Root: {@code xxh3_64("caravan-kv/1" 0x00 [0x01 lora-utf8] 0x00 [0x01 salt-utf8])} — the extra keys that change
 *       what every block of a sequence holds (the LoRA adapter, {@code cache_salt}) are folded in once, at the root,
 *       so they change every key of the chain. vLLM puts the salt into block 0's extra keys and the adapter into every
 *       block's; chained, both make the same distinction.</li>
 *   <li>Block: {@code xxh3_64(parent (8 bytes LE) || token ids (4 bytes LE each) [|| 0xFF || extra bytes])}, parent
 *       being the previous block's key or the root. Extra bytes (multimodal or prompt-embedding keys an engine
 *       reports) make a block no request-side chain produces, which is right: the router does not see images.</li>
 *   <li>Only full blocks have keys; the caller says how many tokens a block holds (the engine's block or page size).</li>
 * </ul>
 * Stateless and thread-safe; {@link #keys} allocates its result and one scratch array. {@link BlockKeyCache} reuses
 * the keys of token chunks it has seen.
 */
public final class BlockKeys {

    private static final LongHashFunction XXH3 = LongHashFunction.xx3();
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final byte[] ROOT_TAG = "caravan-kv/1".getBytes(StandardCharsets.US_ASCII);
    /** The root of sequences with neither LoRA adapter nor salt. */
    public static final long PLAIN_ROOT = root(null, null);

    private BlockKeys() {
    }

    /** The root key of sequences with this LoRA adapter and {@code cache_salt} (either may be null). */
    public static long root(String loraName, String cacheSalt) {
        byte[] lora = loraName == null ? new byte[0] : loraName.getBytes(StandardCharsets.UTF_8);
        byte[] salt = cacheSalt == null ? new byte[0] : cacheSalt.getBytes(StandardCharsets.UTF_8);
        byte[] buf = new byte[ROOT_TAG.length + 4 + lora.length + salt.length];
        int p = 0;
        System.arraycopy(ROOT_TAG, 0, buf, p, ROOT_TAG.length);
        p += ROOT_TAG.length;
        buf[p++] = 0;
        if (loraName != null) {
            buf[p++] = 1;
            System.arraycopy(lora, 0, buf, p, lora.length);
            p += lora.length;
        }
        buf[p++] = 0;
        if (cacheSalt != null) {
            buf[p++] = 1;
            System.arraycopy(salt, 0, buf, p, salt.length);
            p += salt.length;
        }
        return XXH3.hashBytes(buf, 0, p);
    }

    /**
     * Keys of every full block of {@code tokens}, chained from {@code root}.
     *
     * @param blockSize tokens per block, &gt;= 1
     */
    public static long[] keys(int[] tokens, int blockSize, long root) {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        }
        int n = tokens.length / blockSize;
        long[] out = new long[n];
        chain(tokens, 0, n, blockSize, root, out, 0, new int[2 + blockSize]);
        return out;
    }

    /**
     * Writes the keys of {@code count} blocks starting at block {@code firstBlock} of {@code tokens}, chained from
     * {@code parent}, into {@code out} from {@code at}; returns the last key written ({@code parent} when none).
     *
     * @param scratch a buffer of at least {@code 2 + blockSize} ints
     */
    static long chain(int[] tokens, int firstBlock, int count, int blockSize, long parent, long[] out, int at,
                      int[] scratch) {
        for (int b = 0; b < count; b++) {
            parent = next(parent, tokens, (firstBlock + b) * blockSize, blockSize, scratch);
            out[at + b] = parent;
        }
        return parent;
    }

    /**
     * The key of one block without extra bytes: blocks of up to {@value BlockHash#MAX_TOKENS} tokens through
     * {@link BlockHash} (reading the tokens where they lie), larger ones hashing the parent and the token ids as an int
     * buffer (on a little-endian machine an int array's memory is the block's byte layout).
     */
    private static long next(long parent, int[] tokens, int from, int count, int[] scratch) {
        if (count <= BlockHash.MAX_TOKENS) {
            return BlockHash.hash(parent, tokens, from, count);
        }
        if (!LITTLE_ENDIAN) {
            return next(parent, tokens, from, count, null, null);
        }
        scratch[0] = (int) parent;
        scratch[1] = (int) (parent >>> 32);
        System.arraycopy(tokens, from, scratch, 2, count);
        return XXH3.hashInts(scratch, 0, 2 + count);
    }

    /**
     * The key of one block: {@code tokens[from, from + count)} after {@code parent}.
     *
     * @param extra   extra bytes the engine folded into this block's identity (multimodal, prompt embeddings), or null
     * @param scratch a buffer of at least {@code 8 + 4 × count} bytes, or null to allocate one
     */
    public static long next(long parent, int[] tokens, int from, int count, byte[] extra, byte[] scratch) {
        if (extra == null && count >= 1 && count <= BlockHash.MAX_TOKENS) {
            return BlockHash.hash(parent, tokens, from, count);
        }
        int need = 8 + 4 * count + (extra == null ? 0 : 1 + extra.length);
        byte[] buf = scratch != null && scratch.length >= need ? scratch : new byte[need];
        putLong(buf, 0, parent);
        int p = 8;
        for (int i = from; i < from + count; i++) {
            int t = tokens[i];
            buf[p] = (byte) t;
            buf[p + 1] = (byte) (t >>> 8);
            buf[p + 2] = (byte) (t >>> 16);
            buf[p + 3] = (byte) (t >>> 24);
            p += 4;
        }
        if (extra != null) {
            buf[p++] = (byte) 0xFF;
            System.arraycopy(extra, 0, buf, p, extra.length);
            p += extra.length;
        }
        return XXH3.hashBytes(buf, 0, p);
    }

    private static void putLong(byte[] buf, int at, long v) {
        for (int i = 0; i < 8; i++) {
            buf[at + i] = (byte) (v >>> (8 * i));
        }
    }
}
