package dev.caravan.processors.config;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the defaults that prose quotes and compares each with the value the code has: a flag's default quoted in
 * Markdown against its {@link CaravanFlag} row, a record component's default quoted in its {@code @param} javadoc
 * against the {@code DEFAULT_*} constant of the same name. {@link DocumentedDefaultsTest} runs it over the docs and the
 * sources; each disagreement is one {@link Drift}.
 *
 * <p>What counts as a quote, in Markdown: a table whose header has a {@code flag} and a {@code default} column (the
 * leading value of the default cell, one per flag when the cell lists several); in prose, after a flag in backticks and
 * within its sentence, {@code (default N)}, {@code (default: N)}, {@code , default N}, {@code defaults to N},
 * {@code N by default}, {@code N (default)}, or {@code `--flag N` (the default)}. In javadoc, in a
 * {@code @param name} block: {@code default N} or {@code N (default} / {@code N = off (default}. A default that
 * belongs to another system ({@code SGLang's default}, {@code vLLM's default}, {@code its default}) is not Caravan's
 * and is skipped, as is anything that is not a literal ({@code default {@value #X}}, {@code (default: the JVM's)}).
 */
final class DocumentedDefaults {

    /** One quoted default that disagrees with the code. */
    record Drift(String file, int line, String subject, String quoted, String actual) {
        @Override
        public String toString() {
            return file + ":" + line + ": " + subject + " quoted default '" + quoted + "', actual default '" + actual
                    + "'";
        }
    }

    /** A literal value: a code span, a quoted string, a number (4,096, 2^26, 0.5) or a word such as on or unset. */
    private static final String VALUE = "(?:`[^`\\n]*`|\\{@code [^}]*}|\"[^\"\\n]*\""
            + "|[-+]?\\d[\\d,]*(?:\\.\\d+)?(?:\\^\\d+)?|\\b(?:true|false|on|off|unset|none|empty)\\b)";
    private static final String UNIT = "(?:\\s*(?<unit>ms|s|min)\\b)?";
    /** A default someone else has: the words before "default" name another system. */
    private static final Pattern FOREIGN = Pattern.compile(
            "(?i)(?:sglang's|vllm's|dynamo's|llm-d's|openai's|launcher's|python|its|their|engine's|own)"
                    + "(?:\\s+[\\w-]+)?\\s*$");
    /** A placeholder after a flag, not a value: {@code `--policy NAME`}, {@code `--model-path [MODEL=]DIR`}. */
    private static final Pattern METAVAR = Pattern.compile("[A-Z\\[\\]=_|.\\\\ -]+");
    /** A flag named as another system's: {@code SGLang's `--max-tree-size`}. */
    private static final Pattern FOREIGN_FLAG = Pattern.compile("(?i)(?:sglang|vllm|dynamo|llm-d)'s\\s*$");
    private static final Pattern FLAG = Pattern.compile("`(--[a-z0-9][a-z0-9-]*)(?: ([^`]*))?`");
    private static final List<Pattern> PROSE = List.of(
            Pattern.compile("\\(default:?\\s+(?<v>" + VALUE + ")" + UNIT),
            Pattern.compile(",\\s+default\\s+(?<v>" + VALUE + ")" + UNIT),
            Pattern.compile("\\bdefaults to\\s+(?:\\S+'s\\s+)?(?<v>" + VALUE + ")" + UNIT),
            Pattern.compile("(?<v>" + VALUE + ")" + UNIT + "\\s+by default\\b"),
            Pattern.compile("(?<=`)\\s+(?<v>" + VALUE + ")" + UNIT + "\\s+\\((?:the\\s+)?default\\)"));
    /** {@code `--decision-headers`, the default}: a switch named as the default is on. */
    private static final Pattern SWITCH_ON = Pattern.compile("`(--[a-z0-9][a-z0-9-]*)`,\\s+the\\s+default\\b");
    /** {@code `--flag VALUE` (the default)}, {@code `--flag VALUE` (SGLang's rule, default)}, {@code , the default}. */
    private static final Pattern INLINE = Pattern.compile("`(--[a-z0-9][a-z0-9-]*) (?<v>[^`]+)`"
            + "\\s*(?:\\((?:[^()]*,\\s*)?(?:the\\s+)?default\\)|,\\s+the\\s+default\\b)");
    /** {@code the default `--dispatch event-loop`}. */
    private static final Pattern DEFAULT_INLINE =
            Pattern.compile("\\bdefault,?\\s+`(--[a-z0-9][a-z0-9-]*) (?<v>[^`]+)`");
    private static final List<Pattern> JAVADOC = List.of(
            Pattern.compile("\\bdefault:?\\s+(?<v>" + VALUE + ")" + UNIT),
            Pattern.compile("(?<v>" + VALUE + ")" + UNIT + "(?:\\s*=\\s*\\w+)?\\s*\\((?:the\\s+)?default\\b"));
    private static final Pattern SENTENCE_END = Pattern.compile("[.;:!?](?:\\s|$)|\\n\\s*\\n");

    private final Map<String, CaravanFlag> flags;
    private int quotes;

    DocumentedDefaults(Map<String, CaravanFlag> flagsByName) {
        this.flags = flagsByName;
    }

    /** How many quotes the scans so far compared, agreeing or not. */
    int quotes() {
        return quotes;
    }

    /** The drifts in one Markdown file. */
    List<Drift> scanMarkdown(String file, String text) {
        List<Drift> drifts = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        int flagCol = -1;
        int defaultCol = -1;
        boolean inCode = false;
        boolean previousTable = false;
        StringBuilder prose = new StringBuilder();
        int proseStart = 0;
        for (int i = 0; i <= lines.length; i++) {
            String line = i < lines.length ? lines[i] : "";
            boolean fence = line.startsWith("```");
            if (fence) {
                inCode = !inCode;
            }
            boolean table = !inCode && line.startsWith("|");
            if (inCode || fence || table || line.isBlank() || line.startsWith("#")) {
                scanProse(file, prose.toString(), proseStart, drifts);
                prose.setLength(0);
            } else {
                if (prose.length() == 0) {
                    proseStart = i;
                }
                prose.append(line).append('\n');
            }
            if (table && !previousTable) {
                List<String> header = cells(line);
                flagCol = indexOf(header, "flag");
                defaultCol = indexOf(header, "default");
            } else if (table && flagCol >= 0 && !line.matches("^\\|[-| :]+\\|\\s*$")) {
                List<String> cells = cells(line);
                if (defaultCol >= 0 && cells.size() > Math.max(flagCol, defaultCol)) {
                    scanTableRow(file, i + 1, cells.get(flagCol), cells.get(defaultCol), drifts);
                } else if (defaultCol < 0 && cells.size() > flagCol) {
                    scanTableProse(file, i + 1, cells, flagCol, drifts);
                }
            }
            previousTable = table;
        }
        return drifts;
    }

    private void scanTableRow(String file, int line, String flagCell, String defaultCell, List<Drift> drifts) {
        List<CaravanFlag> named = new ArrayList<>();
        Matcher m = FLAG.matcher(flagCell);
        while (m.find()) {
            CaravanFlag row = flags.get(m.group(1));
            if (row != null) {
                named.add(row);
            }
        }
        if (named.isEmpty()) {
            return;
        }
        List<String> values = named.size() == 1 ? List.of(defaultCell) : splitTopLevel(defaultCell);
        if (values.size() != named.size()) {
            return; // the cell does not give one default per flag
        }
        for (int k = 0; k < named.size(); k++) {
            Matcher v = Pattern.compile("^\\(?(?<v>" + VALUE + ")" + UNIT).matcher(values.get(k).trim());
            if (v.find()) {
                compareWithRow(file, line, named.get(k), v.group("v"), v.group("unit"), drifts);
            }
        }
    }

    /** A row of a table with a flag column but no default column: quotes in its other cells belong to its flag. */
    private void scanTableProse(String file, int line, List<String> cells, int flagCol, List<Drift> drifts) {
        List<CaravanFlag> named = new ArrayList<>();
        Matcher m = FLAG.matcher(cells.get(flagCol));
        while (m.find()) {
            if (flags.containsKey(m.group(1))) {
                named.add(flags.get(m.group(1)));
            }
        }
        if (named.size() != 1) {
            return;
        }
        String rest = String.join(" | ", cells.subList(flagCol + 1, cells.size()));
        for (Pattern p : PROSE) {
            Matcher q = p.matcher(rest);
            while (q.find()) {
                int defaultAt = rest.indexOf("default", q.start());
                if (!q.group("v").startsWith("`--") && !FOREIGN.matcher(rest.substring(0, defaultAt)).find()
                        && !FOREIGN.matcher(rest.substring(0, q.start())).find()) {
                    compareWithRow(file, line, named.get(0), q.group("v"), q.group("unit"), drifts);
                }
            }
        }
    }

    private void scanProse(String file, String text, int firstLine, List<Drift> drifts) {
        if (text.isEmpty()) {
            return;
        }
        Matcher inline = INLINE.matcher(text);
        while (inline.find()) {
            CaravanFlag row = flags.get(inline.group(1));
            if (row != null) {
                compareWithRow(file, lineOf(text, inline.start(), firstLine), row, inline.group("v"), null, drifts);
            }
        }
        Matcher on = SWITCH_ON.matcher(text);
        while (on.find()) {
            CaravanFlag row = flags.get(on.group(1));
            if (row != null && (row.type() == FlagType.SWITCH || row.type() == FlagType.BOOLEAN)) {
                compareWithRow(file, lineOf(text, on.start(), firstLine), row, "true", null, drifts);
            }
        }
        Matcher defaultInline = DEFAULT_INLINE.matcher(text);
        while (defaultInline.find()) {
            CaravanFlag row = flags.get(defaultInline.group(1));
            if (row != null && !FOREIGN.matcher(text.substring(0, defaultInline.start())).find()) {
                compareWithRow(file, lineOf(text, defaultInline.start(), firstLine), row, defaultInline.group("v"),
                        null, drifts);
            }
        }
        for (Pattern p : PROSE) {
            Matcher m = p.matcher(text);
            while (m.find()) {
                String before = text.substring(0, m.start());
                int defaultAt = text.indexOf("default", m.start());
                if (FOREIGN.matcher(text.substring(0, defaultAt)).find()
                        || FOREIGN.matcher(before).find()) {
                    continue;
                }
                for (CaravanFlag row : flagsOfClause(before, text.substring(m.start(), m.end()))) {
                    compareWithRow(file, lineOf(text, m.start(), firstLine), row, m.group("v"), m.group("unit"),
                            drifts);
                }
            }
        }
    }

    /**
     * The flags a quote belongs to: the last flag of its sentence before it, not followed by another value in
     * backticks of its own; every flag of the sentence when the quote says "both" or "all".
     */
    private List<CaravanFlag> flagsOfClause(String before, String quote) {
        int start = 0;
        Matcher end = SENTENCE_END.matcher(before);
        while (end.find()) {
            start = end.end();
        }
        String clause = before.substring(start);
        List<CaravanFlag> found = new ArrayList<>();
        Matcher m = FLAG.matcher(clause);
        while (m.find()) {
            CaravanFlag row = flags.get(m.group(1));
            // a flag with a value of its own, or another system's flag: the quote that follows is not about the row
            boolean foreign = FOREIGN_FLAG.matcher(clause.substring(0, m.start())).find();
            found.add(row != null && (m.group(2) == null || METAVAR.matcher(m.group(2)).matches()) && !foreign
                    ? row : null);
        }
        if (found.isEmpty()) {
            return List.of();
        }
        boolean all = clause.matches("(?s).*\\b(?:both|all)\\s*$") || quote.matches("(?s)^(?:both|all)\\b.*");
        if (all) {
            return found.stream().filter(f -> f != null).toList();
        }
        CaravanFlag last = found.get(found.size() - 1);
        return last == null ? List.of() : List.of(last);
    }

    private void compareWithRow(String file, int line, CaravanFlag row, String quoted, String unit,
                                List<Drift> drifts) {
        quotes++;
        String actual = row.defaultValue();
        boolean ok;
        if (row.type().numeric()) {
            BigDecimal q = QuotedValues.number(quoted);
            BigDecimal a = actual.isEmpty() ? null : QuotedValues.number(actual);
            if (q == null || a == null) {
                ok = QuotedValues.equalText(quoted, actual, row.type());
            } else {
                if (unit != null) {
                    q = q.multiply(QuotedValues.seconds(unit));
                    a = a.multiply(row.flag().endsWith("-ms") ? new BigDecimal("0.001") : BigDecimal.ONE);
                }
                ok = q.compareTo(a) == 0;
            }
        } else {
            ok = QuotedValues.equalText(quoted, actual, row.type());
        }
        if (!ok) {
            drifts.add(new Drift(file, line, row.flag(), QuotedValues.strip(quoted), actual));
        }
    }

    /**
     * The drifts in one Java source file: flag defaults its javadoc quotes, and {@code @param} blocks quoting the
     * default of the {@code DEFAULT_*} constant of their name in {@code type} (null: no such constants).
     */
    List<Drift> scanJavadoc(String file, String source, Class<?> type) {
        List<Drift> drifts = new ArrayList<>();
        Matcher doc = Pattern.compile("/\\*\\*(.*?)\\*/", Pattern.DOTALL).matcher(source);
        while (doc.find()) {
            int firstLine = lineOf(source, doc.start(1), 0) - 1;
            String text = doc.group(1).replaceAll("(?m)^[ \\t]*\\* ?", "").replaceAll("\\{@code (--[^}]*)}", "`$1`");
            scanProse(file, text, firstLine, drifts);
            if (type == null) {
                continue;
            }
            Matcher param = Pattern.compile("@param\\s+(\\w+)(.*?)(?=@param|@return|@throws|$)", Pattern.DOTALL)
                    .matcher(text);
            while (param.find()) {
                String constant = "DEFAULT_" + param.group(1).replaceAll("([a-z0-9])([A-Z])", "$1_$2")
                        .toUpperCase(Locale.ROOT);
                Optional<Object> value = constant(type, constant);
                if (value.isEmpty()) {
                    continue;
                }
                String block = param.group(2);
                for (Pattern p : JAVADOC) {
                    Matcher m = p.matcher(block);
                    while (m.find()) {
                        int defaultAt = block.indexOf("default", m.start());
                        if (FOREIGN.matcher(block.substring(0, Math.max(defaultAt, 0))).find()) {
                            continue;
                        }
                        quotes++;
                        String quoted = QuotedValues.strip(m.group("v")) + (m.group("unit") == null ? "" : " " + m.group("unit"));
                        if (!QuotedValues.equalValue(m.group("v"), m.group("unit"), value.get())) {
                            drifts.add(new Drift(file, lineOf(text, param.start(2) + m.start(), firstLine),
                                    "@param " + param.group(1) + " (" + constant + ")", quoted,
                                    String.valueOf(value.get())));
                        }
                    }
                }
            }
        }
        return drifts;
    }

    /** The value of constant {@code name} declared by {@code type} or one of its nested types, if any. */
    private static Optional<Object> constant(Class<?> type, String name) {
        try {
            var field = type.getDeclaredField(name);
            field.setAccessible(true);
            return Optional.ofNullable(field.get(null));
        } catch (NoSuchFieldException e) {
            for (Class<?> nested : type.getDeclaredClasses()) {
                Optional<Object> v = constant(nested, name);
                if (v.isPresent()) {
                    return v;
                }
            }
            return Optional.empty();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static List<String> cells(String row) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean code = false;
        for (int i = 1; i < row.length(); i++) {
            char c = row.charAt(i);
            if (c == '`') {
                code = !code;
            }
            if (c == '\\' && i + 1 < row.length() && row.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (c == '|' && !code) {
                cells.add(cell.toString().trim());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        return cells;
    }

    /** Splits a cell at ", " outside code spans and parentheses: {@code `pseudo`, 4, 16}. */
    private static List<String> splitTopLevel(String cell) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        boolean code = false;
        int from = 0;
        for (int i = 0; i < cell.length(); i++) {
            char c = cell.charAt(i);
            if (c == '`') {
                code = !code;
            } else if (!code && c == '(') {
                depth++;
            } else if (!code && c == ')') {
                depth--;
            } else if (!code && depth == 0 && c == ',' && i + 1 < cell.length() && cell.charAt(i + 1) == ' ') {
                parts.add(cell.substring(from, i));
                from = i + 2;
            }
        }
        parts.add(cell.substring(from));
        return parts;
    }

    private static int indexOf(List<String> cells, String name) {
        for (int i = 0; i < cells.size(); i++) {
            if (cells.get(i).equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    private static int lineOf(String text, int offset, int firstLine) {
        int line = firstLine + 1;
        for (int i = 0; i < offset && i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
