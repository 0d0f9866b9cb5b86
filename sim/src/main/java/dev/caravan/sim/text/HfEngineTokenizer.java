package dev.caravan.sim.text;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A model's Hugging Face {@code tokenizer.json}, through DJL's bindings to the Rust {@code tokenizers} library that
 * vLLM's and SGLang's fast tokenizers also run. Offline: the file is local, and the native library ships inside the
 * DJL jar (the first use sets {@code ai.djl.offline=true} unless set, so DJL never downloads one). No truncation or
 * padding. Thread-safe; {@link #close} frees the native tokenizer.
 */
public final class HfEngineTokenizer implements EngineTokenizer {

    private static final Logger LOG = LoggerFactory.getLogger(HfEngineTokenizer.class);
    private static final String OFFLINE_PROPERTY = "ai.djl.offline";

    private final HuggingFaceTokenizer tokenizer;
    private final String name;

    /**
     * @throws IOException when the file is missing or not a tokenizer
     */
    public HfEngineTokenizer(Path tokenizerJson) throws IOException {
        if (!Files.isRegularFile(tokenizerJson)) {
            throw new IOException("tokenizer file not found: " + tokenizerJson);
        }
        if (System.getProperty(OFFLINE_PROPERTY) == null) {
            System.setProperty(OFFLINE_PROPERTY, "true");
        }
        try {
            this.tokenizer = HuggingFaceTokenizer.builder().optTokenizerPath(tokenizerJson).optTruncation(false)
                    .optPadding(false).build();
        } catch (RuntimeException e) {
            throw new IOException(tokenizerJson + " is not a Hugging Face tokenizer.json: " + e.getMessage(), e);
        }
        this.name = tokenizerJson.toString();
        LOG.info("engine tokenizer {}", tokenizerJson);
    }

    @Override
    public int[] encode(String text, boolean addSpecialTokens) {
        // the ids only: DJL's Encoding would also fetch token strings, offsets and masks through JNI (a quarter of a
        // long prompt's time), CPU the benchmarks' engines share with the gateway under test
        long encoding = TokenizersLibrary.LIB.encode(tokenizer.getHandle(), text == null ? "" : text,
                addSpecialTokens);
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
    public String decode(int tokenId) {
        return tokenizer.decode(new long[] {tokenId}, false);
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
