package dev.caravan.tokens;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * One model's tokenizer and chat templates, loaded once from its {@link ModelFiles}: the prompt token ids its engine
 * computes for a chat request ({@link #chat}: the chat template rendered over {@link ChatInputs}, encoded without
 * special tokens, as vLLM's and SGLang's chat endpoints do) or a completion prompt ({@link #completion}: encoded with
 * them, their completions default).
 *
 * <p>Named templates ({@code chat_template} as a list of {@code {name, template}}): transformers' choice, per request
 * — {@code tool_use} when the request has tools and the model has one, else {@code default}, else the only one. A
 * model without any chat template refuses chat requests as the engines do ({@link ChatTemplateException}).
 *
 * <p>Thread-safe (immutable; the tokenizer and the templates are). {@link #close} frees the native tokenizer.
 */
public final class LocalModel implements AutoCloseable {

    /** What vLLM answers a chat request for a model without a chat template. */
    public static final String NO_CHAT_TEMPLATE = "As of transformers v4.44, default chat template is no longer "
            + "allowed, so you must provide a chat template if the tokenizer does not define one.";
    private static final Logger LOG = LoggerFactory.getLogger(LocalModel.class);
    private static final List<String> SPECIAL_TOKENS = List.of("bos_token", "eos_token", "unk_token", "sep_token",
            "pad_token", "cls_token", "mask_token");

    private final String model;
    private final HfTokenizer tokenizer;
    private final Map<String, HfChatTemplate> templates;
    private final Map<String, ContentFormat> formats;
    private final EngineDialect dialect;
    private final String tokenizerSha256;
    private final ChunkedEncoder chunks;

    private LocalModel(String model, HfTokenizer tokenizer, Map<String, HfChatTemplate> templates,
                       Map<String, ContentFormat> formats, EngineDialect dialect, String tokenizerSha256,
                       ChunkedEncoder chunks) {
        this.model = model;
        this.tokenizer = tokenizer;
        this.chunks = chunks;
        this.templates = templates;
        this.formats = formats;
        this.dialect = dialect;
        this.tokenizerSha256 = tokenizerSha256;
    }

    /**
     * With a chunk cache of its own of {@link TokenChunkCache#DEFAULT_CAPACITY_BYTES}.
     *
     * @param format  the content format to give templates, or null to detect it per template (vLLM's {@code auto})
     * @throws IOException when a file is missing or unreadable, or {@code tokenizer.json} is not a tokenizer
     */
    public static LocalModel load(ModelFiles files, ContentFormat format, EngineDialect dialect, Clock clock)
            throws IOException {
        return load(files, format, dialect, clock, new TokenChunkCache(TokenChunkCache.DEFAULT_CAPACITY_BYTES));
    }

    /**
     * @param format  the content format to give templates, or null to detect it per template (vLLM's {@code auto})
     * @param cache   where chat renderings' chunks keep their ids ({@link ChunkedEncoder}), shared between models
     * @throws IOException when a file is missing or unreadable, or {@code tokenizer.json} is not a tokenizer
     */
    public static LocalModel load(ModelFiles files, ContentFormat format, EngineDialect dialect, Clock clock,
                                  TokenChunkCache cache) throws IOException {
        Path json = files.tokenizerJson();
        String sha = sha256(json);
        HfTokenizer tokenizer;
        try {
            tokenizer = new HfTokenizer(json, false);
        } catch (RuntimeException e) {
            throw new IOException(json + " is not a Hugging Face tokenizer.json: " + e.getMessage(), e);
        }
        try {
            Map<String, Object> special = new LinkedHashMap<>();
            Map<String, String> sources = new LinkedHashMap<>();
            Path config = files.tokenizerDir().resolve("tokenizer_config.json");
            if (Files.isRegularFile(config)) {
                JsonNode c = new ObjectMapper().readTree(config.toFile());
                readSpecialTokens(c, special);
                readTemplates(c.get("chat_template"), sources);
            }
            Path jinja = files.tokenizerDir().resolve("chat_template.jinja");
            if (Files.isRegularFile(jinja)) {
                sources.clear();
                sources.put("default", Files.readString(jinja));
            }
            if (files.chatTemplate() != null) {
                sources.clear();
                sources.put("default", Files.readString(files.chatTemplate()));
            }
            Map<String, HfChatTemplate> templates = new LinkedHashMap<>();
            Map<String, ContentFormat> formats = new LinkedHashMap<>();
            String origin = files.chatTemplate() != null ? files.chatTemplate().toString()
                    : Files.isRegularFile(jinja) ? jinja.toString() : config.toString();
            sources.forEach((name, text) -> {
                templates.put(name, new HfChatTemplate(text, special, origin + (sources.size() > 1 ? "#" + name : ""),
                        clock));
                formats.put(name, format != null ? format : ContentFormat.detect(text));
            });
            TokenChunker chunker = TokenChunker.of(new ObjectMapper().readTree(json.toFile()));
            LOG.info("Model {}: tokenizer {} (sha256 {}), chat templates {} from {}, content format {}, {} preprocessing,"
                    + " chat prompts encoded in chunks cut at {}", files.model(), json, sha.substring(0, 12),
                    templates.keySet(), origin, formats.values(), dialect.wireName(), chunker.describe());
            return new LocalModel(files.model(), tokenizer, Map.copyOf(templates), Map.copyOf(formats), dialect, sha,
                    new ChunkedEncoder(chunker, cache, text -> tokenizer.encode(text, false)));
        } catch (IOException | RuntimeException e) {
            tokenizer.close();
            throw e;
        }
    }

    /**
     * The engine's prompt token ids for a chat request body.
     *
     * @throws ChatTemplateException    when the model has no chat template, or the template refuses the conversation
     * @throws IllegalArgumentException when the messages are malformed
     */
    public int[] chat(Map<String, Object> body) {
        return encodeChat(render(body));
    }

    /**
     * A chat rendering's token ids (without special tokens), its chunks seen before taken from the cache: the same
     * ids as {@code encode(rendered, false)}.
     */
    public int[] encodeChat(String rendered) {
        return chunks.encode(rendered);
    }

    /** The rendered chat prompt (what {@link #chat} encodes). */
    public String render(Map<String, Object> body) {
        String name = templateName(body.get("tools") instanceof List<?> t && !t.isEmpty());
        HfChatTemplate template = templates.get(name);
        ChatInputs in = ChatInputs.of(body, formats.get(name), dialect);
        String rendered = template.render(in.messages(), in.tools(), in.addGenerationPrompt() && !in.continueFinal(),
                in.kwargs());
        if (in.continueFinal()) {
            String last = in.finalText();
            int at = rendered.lastIndexOf(last);
            if (at < 0) {
                throw new ChatTemplateException("continue_final_message: the final message is not in the rendering", true);
            }
            rendered = rendered.substring(0, at + last.length());
        }
        return rendered;
    }

    /** The engine's prompt token ids for a completion prompt (special tokens added, the completions default). */
    public int[] completion(String prompt) {
        return tokenizer.encode(prompt, true);
    }

    /** Encodes text with or without the tokenizer's special tokens. */
    public int[] encode(String text, boolean addSpecialTokens) {
        return tokenizer.encode(text, addSpecialTokens);
    }

    public String model() {
        return model;
    }

    /** SHA-256 of the {@code tokenizer.json} loaded, hex: the tokenizer's revision in logs and metrics. */
    public String tokenizerSha256() {
        return tokenizerSha256;
    }

    /** True when the model has a chat template. */
    public boolean hasChatTemplate() {
        return !templates.isEmpty();
    }

    private String templateName(boolean hasTools) {
        if (templates.isEmpty()) {
            throw new ChatTemplateException(NO_CHAT_TEMPLATE, true);
        }
        if (hasTools && templates.containsKey("tool_use")) {
            return "tool_use";
        }
        if (templates.containsKey("default")) {
            return "default";
        }
        if (templates.size() == 1) {
            return templates.keySet().iterator().next();
        }
        throw new ChatTemplateException("model " + model + " has several chat templates " + templates.keySet()
                + " and none is named 'default'", true);
    }

    private static void readSpecialTokens(JsonNode config, Map<String, Object> out) {
        for (String name : SPECIAL_TOKENS) {
            String v = tokenText(config.get(name));
            if (v != null) {
                out.put(name, v);
            }
        }
        JsonNode extra = config.get("additional_special_tokens");
        if (extra != null && extra.isArray() && !extra.isEmpty()) {
            List<String> tokens = new java.util.ArrayList<>();
            extra.forEach(t -> tokens.add(tokenText(t)));
            out.put("additional_special_tokens", tokens);
        }
    }

    private static String tokenText(JsonNode v) {
        if (v == null || v.isNull()) {
            return null;
        }
        return v.isTextual() ? v.asText() : v.path("content").asText(null);
    }

    private static void readTemplates(JsonNode v, Map<String, String> out) {
        if (v == null || v.isNull()) {
            return;
        }
        if (v.isTextual()) {
            out.put("default", v.asText());
        } else if (v.isArray()) {
            for (JsonNode t : v) {
                out.put(t.path("name").asText("default"), t.path("template").asText());
            }
        }
    }

    private static String sha256(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("tokenizer file not found: " + file);
        }
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}
