package dev.caravan.tokens;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import dev.caravan.policies.text.Tokenizer;

/**
 * A HuggingFace {@code tokenizer.json} (the file vLLM's engine loads for the model) as a Caravan {@link Tokenizer},
 * through DJL's bindings to the Rust {@code tokenizers} library. With the same tokenizer, chat template, block size and
 * hash seed as the engines, {@code BlockHasher.hashes(encode(prompt))} equals the hashes engines publish, which is what
 * the precise {@code kv_aware} policy needs.
 *
 * <p>Offline by construction: the tokenizer is read from a local path (never a hub name), and the native library
 * ships inside the DJL jar for linux-x86_64/aarch64 and osx-aarch64; DJL extracts it to its cache directory
 * ({@code DJL_CACHE_DIR}/{@code ENGINE_CACHE_DIR}, default {@code ~/.djl.ai}) on first use. The first construction sets
 * the system property {@code ai.djl.offline=true} unless it is already set, so DJL never tries to download a native
 * library (for example a CUDA flavour) at runtime.
 *
 * <p>Encoding: no truncation, no padding; special tokens (the post-processor's BOS...) are added only when
 * {@code addSpecialTokens} is true. The default is true because vLLM's {@code /v1/completions} (and its
 * {@code LLM.generate}) tokenizes prompts with {@code add_special_tokens=True}: with a tokenizer whose post-processor
 * prepends a BOS token, hashing without it would shift every block and match nothing. vLLM's chat path renders the chat
 * template (which already holds the BOS) and encodes it with {@code add_special_tokens=False}: the gateway does the
 * same when it knows the model's chat template ({@code --model-path}, {@code dev.caravan.processors.tokens}); the
 * routing text is not that rendering, so without it chat prompts do not hash exactly under either setting
 * (docs/tokens.md). Thread-safe: the native tokenizer is immutable and DJL's encode may be called
 * concurrently. Close it to free the native memory.
 */
public final class HfTokenizer implements Tokenizer, AutoCloseable {

    /** Default for {@code addSpecialTokens}: on, as vLLM's completions path. */
    public static final boolean DEFAULT_ADD_SPECIAL_TOKENS = true;

    private static final Logger LOG = LoggerFactory.getLogger(HfTokenizer.class);
    private static final String OFFLINE_PROPERTY = "ai.djl.offline";

    private final HuggingFaceTokenizer tokenizer;
    private final boolean addSpecialTokens;
    private final String name;

    public HfTokenizer(Path tokenizerJson) throws IOException {
        this(tokenizerJson, DEFAULT_ADD_SPECIAL_TOKENS);
    }

    /**
     * @param tokenizerJson    path of a {@code tokenizer.json} file
     * @param addSpecialTokens whether encode adds the model's special tokens (post-processor template)
     * @throws IOException when the file is missing or not a tokenizer
     */
    public HfTokenizer(Path tokenizerJson, boolean addSpecialTokens) throws IOException {
        if (!Files.isRegularFile(tokenizerJson)) {
            throw new IOException("tokenizer file not found: " + tokenizerJson);
        }
        if (System.getProperty(OFFLINE_PROPERTY) == null) {
            System.setProperty(OFFLINE_PROPERTY, "true");
        }
        this.tokenizer = HuggingFaceTokenizer.builder()
                .optTokenizerPath(tokenizerJson)
                .optAddSpecialTokens(addSpecialTokens)
                .optTruncation(false)
                .optPadding(false)
                .build();
        this.addSpecialTokens = addSpecialTokens;
        this.name = "hf:" + tokenizerJson.getFileName();
        LOG.info("Loaded tokenizer {} (special tokens {})", tokenizerJson, addSpecialTokens ? "added" : "not added");
    }

    @Override
    public int[] encode(String text) {
        return encode(text, addSpecialTokens);
    }

    /**
     * Encodes with or without the tokenizer's special tokens regardless of this instance's default: the engine's chat
     * path encodes the rendered template without them, its completions path with them (docs/tokens.md).
     */
    public int[] encode(String text, boolean withSpecialTokens) {
        // the ids only: DJL's Encoding would also fetch the token strings, offsets and masks through JNI (a quarter of
        // the time of a long prompt, docs/benchmarks.md, "Decision and index cost")
        long encoding = TokenizersLibrary.LIB.encode(tokenizer.getHandle(), text == null ? "" : text,
                withSpecialTokens);
        long[] ids;
        try {
            ids = TokenizersLibrary.LIB.getTokenIds(encoding);
        } finally {
            TokenizersLibrary.LIB.deleteEncoding(encoding);
        }
        int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = Math.toIntExact(ids[i]);
        }
        return out;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}
