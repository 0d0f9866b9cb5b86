package dev.caravan.processors.forward;

import java.io.IOException;
import java.math.BigInteger;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;

/**
 * Reads an engine's token counts from one JSON value fed in pieces, as the pieces arrive: Jackson's non-blocking parser
 * turns each piece into tokens at once, and only the few values that matter are kept — no copy of the body, no tree.
 *
 * <p>What it reads, as a tree would: for an object, its {@code usage} object ({@code prompt_tokens},
 * {@code prompt_tokens_details.cached_tokens}, {@code completion_tokens}) or else its {@code meta_info} object
 * ({@code prompt_tokens}, {@code cached_tokens}, {@code completion_tokens}); for an array (batch {@code /generate}) the
 * sum over its elements. A count that is not a number reads as -1; a repeated key counts its last value. Nothing
 * ({@link Usage#NONE}) for malformed or incomplete JSON, and for a value in which no key (or string) is exactly
 * {@code prompt_tokens}. Whatever follows the first complete value is ignored.
 *
 * <p>Where a piece ends right after a comma or a colon (and white space) and the next begins with a closing brace or
 * bracket, Jackson's non-blocking parser (2.19) takes it as closing the container ({@code {"a":1,}} and
 * {@code {"a": }} cut after the separator), which the blocking parser, like any JSON parser, rejects. Outside a string
 * such a sequence is always malformed, and inside one the parser's next token is that string: so the reader rejects
 * the value when the first token after such a cut closes a container, and reads what {@link #read} reads wherever the
 * pieces are cut.
 *
 * <p>A value already whole in memory (a body that came in one piece, an SSE event's line) is read by {@link #read}
 * with Jackson's blocking parser instead, which tokenizes bytes it holds faster than the non-blocking one and gives the
 * same counts.
 *
 * <p>Not thread-safe: one instance per value.
 */
final class JsonUsageReader {

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final String USAGE = "usage";
    private static final String META = "meta_info";
    private static final String DETAILS = "prompt_tokens_details";
    private static final String PROMPT = "prompt_tokens";
    private static final String CACHED = "cached_tokens";
    private static final String COMPLETION = "completion_tokens";

    private enum Field { NONE, USAGE_PROMPT, USAGE_COMPLETION, USAGE_CACHED, META_PROMPT, META_CACHED, META_COMPLETION }

    private final JsonParser parser;
    private final ByteArrayFeeder feeder;
    /** The open containers: field name (or null in an array) per level, below the item level. */
    private String[] path = new String[8];
    private int depth;
    private boolean rootIsArray;
    private boolean done;
    private boolean failed;
    private boolean marker;
    /** Whether string values are read for the marker (the piecewise reader always; {@link #read} when it must). */
    private boolean strings = true;
    /** Whether the last byte fed that is not white space is a {@code ,} or a {@code :}. */
    private boolean separatorLast;
    /** Whether the next token must not close a container: a piece began with a bracket right after a separator. */
    private boolean closerAfterSeparator;
    private Usage total = Usage.NONE;
    // the item (the root object, or one element of a root array) being read
    private boolean usageObject;
    private boolean metaObject;
    private long usagePrompt = -1;
    private long usageCached = -1;
    private long usageCompletion = -1;
    private long metaPrompt = -1;
    private long metaCached = -1;
    private long metaCompletion = -1;

    JsonUsageReader() {
        try {
            parser = FACTORY.createNonBlockingByteArrayParser();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        feeder = (ByteArrayFeeder) parser.getNonBlockingInputFeeder();
    }

    private JsonUsageReader(JsonParser whole) {
        parser = whole;
        feeder = null;
    }

    /**
     * The counts of a value that is whole in {@code bytes}: what feeding it in one piece and finishing gives (the same
     * rules, malformed or incomplete JSON included), read with the blocking parser.
     */
    static Usage read(byte[] bytes, int offset, int length) {
        // Strings are first left undecoded (Jackson decodes one only when asked for its text): a string value can
        // only matter as the marker, and only when the counts were found without a prompt_tokens key, which is rare;
        // then the value is read again with its strings.
        Usage counts = read(bytes, offset, length, false);
        return counts != null ? counts : read(bytes, offset, length, true);
    }

    /** The counts; without {@code strings}, {@code null} when only a string value could still be the marker. */
    private static Usage read(byte[] bytes, int offset, int length, boolean strings) {
        JsonUsageReader reader;
        try {
            reader = new JsonUsageReader(FACTORY.createParser(bytes, offset, length));
        } catch (IOException e) {
            return Usage.NONE;
        }
        reader.strings = strings;
        try {
            reader.drain(); // the blocking parser ends with null at the end of the bytes, or fails if the value is cut
        } catch (IOException | RuntimeException e) {
            reader.failed = true;
        }
        reader.closeParser();
        if (!strings && reader.done && !reader.failed && !reader.marker && !Usage.NONE.equals(reader.total)) {
            return null;
        }
        return reader.result();
    }

    /** Feeds the next piece (read at once; the array may be reused afterwards). */
    void feed(byte[] bytes, int offset, int length) {
        if (done || failed || length == 0) {
            return;
        }
        try {
            notePieceBoundary(bytes, offset, length);
            feeder.feedInput(bytes, offset, offset + length);
            drain();
        } catch (IOException | RuntimeException e) {
            failed = true;
        }
    }

    /**
     * Arms the check of the next token when this piece's first byte that is not white space is a closing bracket and
     * the last such byte before it was a separator; notes whether this piece ends with a separator. A piece of white
     * space only changes neither.
     */
    private void notePieceBoundary(byte[] bytes, int offset, int length) {
        int end = offset + length;
        int first = offset;
        while (first < end && isWhiteSpace(bytes[first])) {
            first++;
        }
        if (first == end) {
            return;
        }
        closerAfterSeparator = separatorLast && (bytes[first] == '}' || bytes[first] == ']');
        int last = end - 1;
        while (isWhiteSpace(bytes[last])) {
            last--;
        }
        separatorLast = bytes[last] == ',' || bytes[last] == ':';
    }

    /** JSON's white space: what may stand between tokens. */
    private static boolean isWhiteSpace(byte b) {
        return b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }

    /** The counts, once the input has ended. */
    Usage finish() {
        if (!done && !failed) {
            feeder.endOfInput();
            try {
                drain();
            } catch (IOException | RuntimeException e) {
                failed = true;
            }
        }
        closeParser();
        return result();
    }

    private Usage result() {
        return done && !failed && marker ? total : Usage.NONE;
    }

    /**
     * Closing hands the field names this parser met back to the factory's shared symbol table: a parser never closed
     * keeps them in its own child table, so the next response's parser met them as new and interned every one again
     * (String.intern per field name per response; design/request-path.md, "Per-request cost").
     */
    private void closeParser() {
        try {
            parser.close();
        } catch (IOException e) {
            // nothing to release then; the counts read so far stand
        }
    }

    private void drain() throws IOException {
        JsonToken t;
        while (!done && (t = parser.nextToken()) != null && t != JsonToken.NOT_AVAILABLE) {
            onToken(t);
        }
    }

    private void onToken(JsonToken t) throws IOException {
        if (closerAfterSeparator) {
            closerAfterSeparator = false;
            if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                throw new JsonParseException(parser, "a closing bracket right after a separator");
            }
        }
        switch (t) {
            case START_OBJECT, START_ARRAY -> open(t);
            case END_OBJECT, END_ARRAY -> close();
            case FIELD_NAME -> {
                String name = parser.currentName();
                marker |= PROMPT.equals(name);
                if (depth > 0 && depth <= path.length) {
                    path[depth - 1] = name;
                }
            }
            default -> value(t);
        }
    }

    /** Levels: 0 = outside the root; with an object root, depth 1 is inside it (the item). */
    private void open(JsonToken t) {
        if (depth == 0) {
            rootIsArray = t == JsonToken.START_ARRAY;
        }
        Field f = depth == 0 ? Field.NONE : field();
        if (depth > 0 && at(USAGE)) {
            usageObject = t == JsonToken.START_OBJECT;
            usagePrompt = usageCached = usageCompletion = -1;
        } else if (depth > 0 && at(META)) {
            metaObject = t == JsonToken.START_OBJECT;
            metaPrompt = metaCached = metaCompletion = -1;
        } else if (depth > 0 && at(USAGE, DETAILS)) {
            usageCached = -1;
        } else if (f != Field.NONE) {
            set(f, -1); // a count that is an object or an array
        }
        if (rootIsArray ? depth == 1 : depth == 0) {
            startItem();
        }
        depth++;
        if (depth > path.length) {
            String[] grown = new String[path.length * 2];
            System.arraycopy(path, 0, grown, 0, path.length);
            path = grown;
        }
        path[depth - 1] = null;
    }

    private void close() {
        depth--;
        if ((rootIsArray && depth == 1) || (!rootIsArray && depth == 0)) {
            total = total.plus(itemUsage());
        }
        if (depth == 0) {
            done = true;
        }
    }

    private void value(JsonToken t) throws IOException {
        if (strings && t == JsonToken.VALUE_STRING && parser.getTextLength() == PROMPT.length()) {
            marker |= PROMPT.equals(parser.getText());
        }
        if (depth == 0) {
            done = true; // a scalar root: nothing to count
            return;
        }
        Field f = field();
        if (f == Field.NONE) {
            if (at(USAGE)) {
                usageObject = false;
            } else if (at(META)) {
                metaObject = false;
            } else if (at(USAGE, DETAILS)) {
                usageCached = -1;
            }
            return;
        }
        set(f, longOf(t));
    }

    private void startItem() {
        usageObject = metaObject = false;
        usagePrompt = usageCached = usageCompletion = metaPrompt = metaCached = metaCompletion = -1;
    }

    private Usage itemUsage() {
        if (usageObject) {
            return new Usage(usagePrompt, usageCached, usageCompletion);
        }
        if (metaObject) {
            return new Usage(metaPrompt, metaCached, metaCompletion);
        }
        return Usage.NONE;
    }

    /** Whether the value about to be read is the item's field {@code a}. */
    private boolean at(String a) {
        return level() == 1 && a.equals(path[depth - 1]);
    }

    /** ... its field {@code a}'s field {@code b}. */
    private boolean at(String a, String b) {
        return level() == 2 && a.equals(path[depth - 2]) && b.equals(path[depth - 1]);
    }

    private boolean at(String a, String b, String c) {
        return level() == 3 && a.equals(path[depth - 3]) && b.equals(path[depth - 2]) && c.equals(path[depth - 1]);
    }

    /** Levels of objects below the item the next value is at (its first field: 1). */
    private int level() {
        return depth - (rootIsArray ? 1 : 0);
    }

    private Field field() {
        if (usageObject && at(USAGE, PROMPT)) {
            return Field.USAGE_PROMPT;
        }
        if (usageObject && at(USAGE, COMPLETION)) {
            return Field.USAGE_COMPLETION;
        }
        if (usageObject && at(USAGE, DETAILS, CACHED)) {
            return Field.USAGE_CACHED;
        }
        if (metaObject && at(META, PROMPT)) {
            return Field.META_PROMPT;
        }
        if (metaObject && at(META, CACHED)) {
            return Field.META_CACHED;
        }
        if (metaObject && at(META, COMPLETION)) {
            return Field.META_COMPLETION;
        }
        return Field.NONE;
    }

    private void set(Field f, long v) {
        switch (f) {
            case USAGE_PROMPT -> usagePrompt = v;
            case USAGE_COMPLETION -> usageCompletion = v;
            case USAGE_CACHED -> usageCached = v;
            case META_PROMPT -> metaPrompt = v;
            case META_CACHED -> metaCached = v;
            case META_COMPLETION -> metaCompletion = v;
            default -> {
            }
        }
    }

    /** As Jackson's {@code JsonNode.canConvertToLong() ? asLong() : -1}. */
    private long longOf(JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_NUMBER_INT) {
            if (parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                BigInteger b = parser.getBigIntegerValue();
                return b.bitLength() < 64 ? b.longValue() : -1;
            }
            return parser.getLongValue();
        }
        if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            double d = parser.getDoubleValue();
            return d >= Long.MIN_VALUE && d <= Long.MAX_VALUE ? (long) d : -1;
        }
        return -1;
    }
}
