package dev.caravan.tokens;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Cuts a rendered prompt where encoding the pieces one by one gives exactly the token ids of encoding it whole, so the
 * pieces seen before (a tenant's system prompt, a conversation's earlier turns) need not be encoded again
 * ({@link ChunkedEncoder}). Which cuts are safe depends on the {@code tokenizer.json}; the proofs are in
 * docs/design/tokens.md ("Encoding in chunks"), the identity tests in {@code ChunkedEncoderTest}.
 *
 * <ul>
 *   <li><b>Added tokens</b> ({@code <|im_start|>}, {@code [INST]}, {@code <s>}...): Hugging Face's tokenizer finds
 *       them first (leftmost-longest over the raw text, for tokens with {@code normalized}, {@code lstrip},
 *       {@code rstrip}, {@code single_word} all false) and normalizes, pre-tokenizes and encodes each stretch of text
 *       between them on its own; an added token's id is its own. Cut around every one, when every added token is of
 *       that kind, the normalizer is none or NFC, the model is BPE and the pre-tokenizer is byte-level without a
 *       prefix space (optionally after a regex {@code Split}).</li>
 *   <li><b>Line starts</b>: within a stretch, before a printable ASCII character other than {@code /} that follows
 *       a {@code \n}, for the pre-tokenizer regexes of {@link #LINE_SAFE_PATTERNS} only: no piece of theirs holds a
 *       newline followed by such a character, and the pieces before the cut are the same whether the text goes on or
 *       stops there.</li>
 * </ul>
 * Any other tokenizer gets no cut: the whole rendering is one chunk (still exact; only a repeat of the whole prompt
 * hits). Thread-safe (immutable).
 */
public final class TokenChunker {

    /** Pre-tokenizer regexes for which cutting at line starts is proven safe (design/tokens.md). */
    public static final Set<String> LINE_SAFE_PATTERNS = Set.of(
            // Mistral NeMo / Tekken
            "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+|[^\\r\\n\\p{L}"
                    + "\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*|\\p{N}| ?[^\\s\\p{L}"
                    + "\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
            // Qwen2, Qwen2.5, Qwen3
            "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
                    + "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
            // Llama 3, 3.1, 3.2, 3.3
            "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
                    + "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");

    /** A piece of a rendering: an added token (its id) or a stretch of text to encode. */
    public record Piece(String text, int addedId) {
        static final int TEXT = -1;

        public boolean isAdded() {
            return addedId != TEXT;
        }
    }

    private final Node added;
    private final boolean lineCuts;
    private final String why;

    private TokenChunker(Node added, boolean lineCuts, String why) {
        this.added = added;
        this.lineCuts = lineCuts;
        this.why = why;
    }

    /** No cut at all: the whole text is one chunk. */
    public static TokenChunker whole(String why) {
        return new TokenChunker(null, false, why);
    }

    /** The cuts that are safe for this {@code tokenizer.json} (its parsed tree). */
    public static TokenChunker of(JsonNode tokenizer) {
        JsonNode normalizer = tokenizer.path("normalizer");
        if (!normalizer.isMissingNode() && !normalizer.isNull() && !"NFC".equals(normalizer.path("type").asText())) {
            return whole("normalizer " + normalizer.path("type").asText());
        }
        if (!"BPE".equals(tokenizer.path("model").path("type").asText())) {
            return whole("model " + tokenizer.path("model").path("type").asText());
        }
        String regex = byteLevelSplit(tokenizer.path("pre_tokenizer"));
        if (regex == null) {
            return whole("pre-tokenizer " + tokenizer.path("pre_tokenizer").path("type").asText());
        }
        Node root = new Node();
        for (JsonNode t : tokenizer.path("added_tokens")) {
            if (t.path("normalized").asBoolean(true) || t.path("lstrip").asBoolean(false)
                    || t.path("rstrip").asBoolean(false) || t.path("single_word").asBoolean(false)) {
                return whole("added token " + t.path("content").asText() + " is normalized or strips");
            }
            String content = t.path("content").asText();
            if (!content.isEmpty()) {
                root.put(content, t.path("id").asInt());
            }
        }
        boolean lines = LINE_SAFE_PATTERNS.contains(regex);
        return new TokenChunker(root, lines, lines ? "added tokens and line starts" : "added tokens only");
    }

    /**
     * The regex of a byte-level pre-tokenizer without prefix space ("" for ByteLevel alone), or null for any other.
     */
    private static String byteLevelSplit(JsonNode pre) {
        if ("ByteLevel".equals(pre.path("type").asText())) {
            return pre.path("add_prefix_space").asBoolean(true) ? null : "";
        }
        if (!"Sequence".equals(pre.path("type").asText()) || pre.path("pretokenizers").size() != 2) {
            return null;
        }
        JsonNode split = pre.path("pretokenizers").get(0);
        JsonNode bytes = pre.path("pretokenizers").get(1);
        boolean ok = "Split".equals(split.path("type").asText()) && split.path("pattern").has("Regex")
                && "Isolated".equals(split.path("behavior").asText()) && !split.path("invert").asBoolean(false)
                && "ByteLevel".equals(bytes.path("type").asText())
                && !bytes.path("add_prefix_space").asBoolean(true) && !bytes.path("use_regex").asBoolean(true);
        return ok ? split.path("pattern").path("Regex").asText() : null;
    }

    /** The pieces of {@code text}, in order; their concatenation is {@code text}. */
    public List<Piece> split(String text) {
        List<Piece> out = new ArrayList<>();
        if (added == null) {
            if (!text.isEmpty()) {
                out.add(new Piece(text, Piece.TEXT));
            }
            return out;
        }
        int start = 0;
        int i = 0;
        while (i < text.length()) {
            long match = added.longest(text, i);
            if (match < 0) {
                i++;
                continue;
            }
            int length = (int) (match >>> 32);
            addText(text, start, i, out);
            out.add(new Piece(text.substring(i, i + length), (int) match));
            i += length;
            start = i;
        }
        addText(text, start, text.length(), out);
        return out;
    }

    private void addText(String text, int from, int to, List<Piece> out) {
        int start = from;
        if (lineCuts) {
            for (int i = from + 1; i < to; i++) {
                char c = text.charAt(i);
                if (text.charAt(i - 1) == '\n' && c > ' ' && c < 0x7F && c != '/') {
                    out.add(new Piece(text.substring(start, i), Piece.TEXT));
                    start = i;
                }
            }
        }
        if (to > start) {
            out.add(new Piece(text.substring(start, to), Piece.TEXT));
        }
    }

    /** Which cuts this tokenizer allows, for the start-up log. */
    public String describe() {
        return why;
    }

    /** A trie of the added tokens' contents. */
    private static final class Node {
        private final Map<Character, Node> next = new HashMap<>();
        private int id = -1;

        void put(String content, int tokenId) {
            Node n = this;
            for (int i = 0; i < content.length(); i++) {
                n = n.next.computeIfAbsent(content.charAt(i), c -> new Node());
            }
            n.id = tokenId;
        }

        /** The longest added token at {@code from}: length << 32 | id, or -1. */
        long longest(String text, int from) {
            Node n = this;
            long best = -1;
            for (int i = from; i < text.length(); i++) {
                n = n.next.get(text.charAt(i));
                if (n == null) {
                    break;
                }
                if (n.id >= 0) {
                    best = ((long) (i + 1 - from) << 32) | n.id;
                }
            }
            return best;
        }
    }
}
