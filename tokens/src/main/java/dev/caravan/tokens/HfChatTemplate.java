package dev.caravan.tokens;

import java.time.Clock;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.filter.Filter;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import com.hubspot.jinjava.tree.Node;

import jinjava.javax.el.CompositeELResolver;

/**
 * A model's Jinja chat template, rendered as Hugging Face transformers' {@code apply_chat_template} renders it (the
 * function vLLM's and SGLang's chat endpoints call), on Jinjava set up to behave like transformers' sandboxed Jinja2
 * environment where the two differ:
 * <ul>
 *   <li>{@code trim_blocks} (Jinjava's own) and {@code lstrip_blocks} and keyword arguments handled in the source
 *       ({@link JinjaSource});</li>
 *   <li>whitespace control ({@code {{-}}, {@code -%}}) parsed strictly and applied to expressions and comments;</li>
 *   <li>Python's {@code str} and {@code dict} methods ({@link PyMethods});</li>
 *   <li>{@code tojson} as transformers defines it: Python's {@code json.dumps} with {@code ensure_ascii=False} and the
 *       {@code indent}, {@code separators} and {@code sort_keys} arguments ({@link PyJson}), not Jinja2's HTML-safe
 *       one;</li>
 *   <li>the globals {@code raise_exception(message)} (fails the render: {@link ChatTemplateException}) and
 *       {@code strftime_now(format)} (the injected clock's local time); both are also defined variables, so
 *       {@code strftime_now is defined} holds as in Jinja2.</li>
 * </ul>
 * Variables: the tokenizer's special tokens ({@code bos_token}...), then the caller's keyword arguments
 * ({@code chat_template_kwargs}), then {@code messages}, {@code tools}, {@code documents} and
 * {@code add_generation_prompt}. Also as Jinja2: booleans print as {@code True}/{@code False} ({@link PyOutput}),
 * {@code is sequence} holds for strings ({@link PySequenceTest}), dict literals evaluate their keys, {@code for} over a
 * dict iterates its keys, loops keep null items. Known differences left: {@code None} prints as an empty string (as an
 * undefined variable does in both), and string repetition ({@code '-' * 3}) is not supported. The token-identity vectors
 * (docs/tokens.md) prove the rest on real templates.
 *
 * <p>The template is parsed once, at construction (a syntax error fails there, naming the source). Thread-safe: the
 * Jinjava instance and the parsed tree are shared, every render gets its own interpreter and context.
 */
public final class HfChatTemplate {

    /** Output cap: a render longer than this fails instead of filling memory. */
    static final long MAX_OUTPUT_CHARS = 32L * 1024 * 1024;
    private static final String CLOCK_VARIABLE = "__caravan_clock__";

    private final String source;
    private final String template;
    private final Map<String, Object> specialTokens;
    private final Clock clock;
    private final Jinjava jinjava;
    private final Node root;

    /**
     * @param template      the Jinja source
     * @param specialTokens {@code bos_token}, {@code eos_token}... (strings) and {@code additional_special_tokens} (a
     *                      list), as the tokenizer's special tokens map
     * @param source        where the template came from, for logs and errors
     * @param clock         the time {@code strftime_now} formats
     * @throws IllegalArgumentException when the template is empty
     */
    public HfChatTemplate(String template, Map<String, Object> specialTokens, String source, Clock clock) {
        if (template == null || template.isBlank()) {
            throw new IllegalArgumentException("chat template " + source + " is empty");
        }
        this.source = source;
        this.template = JinjaSource.normalize(template);
        this.specialTokens = Map.copyOf(specialTokens);
        this.clock = Objects.requireNonNull(clock, "clock");
        CompositeELResolver resolver = new CompositeELResolver();
        resolver.add(new PyMethods());
        resolver.add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_WRITE);
        JinjavaConfig config = JinjavaConfig.newBuilder()
                .withTrimBlocks(true)
                .withLstripBlocks(false)
                .withLegacyOverrides(LegacyOverrides.newBuilder()
                        .withUseTrimmingForNotesAndExpressions(true)
                        .withParseWhitespaceControlStrictly(true)
                        .withEvaluateMapKeys(true)
                        .withIterateOverMapKeys(true)
                        .withKeepNullableLoopValues(true)
                        .withUsePyishObjectMapper(true)
                        .build())
                .withElResolver(resolver)
                .withExecutionMode(PyOutput.MODE)
                .withMaxOutputSize(MAX_OUTPUT_CHARS)
                .build();
        this.jinjava = new Jinjava(config);
        jinjava.getGlobalContext().registerFilter(new ToJson());
        jinjava.getGlobalContext().registerFilter(new PySlice());
        jinjava.getGlobalContext().registerExpTest(new PySequenceTest());
        try {
            jinjava.getGlobalContext().registerFunction(new ELFunctionDefinition("", "raise_exception",
                    HfChatTemplate.class.getMethod("raiseException", Object.class)));
            jinjava.getGlobalContext().registerFunction(new ELFunctionDefinition("", "strftime_now",
                    HfChatTemplate.class.getMethod("strftimeNow", String.class)));
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
        // parsed once: every render walks the same immutable tree with an interpreter of its own
        JinjavaInterpreter parser = jinjava.newInterpreter();
        this.root = parser.parse(this.template);
        for (TemplateError e : parser.getErrors()) {
            if (e.getSeverity() == TemplateError.ErrorType.FATAL) {
                throw new IllegalArgumentException("chat template " + source + " does not parse: " + e.getMessage());
            }
        }
    }

    /**
     * Renders a conversation (already in the engine's shape, {@link ChatInputs}).
     *
     * @throws ChatTemplateException when the template raises or fails
     */
    public String render(List<?> messages, List<?> tools, boolean addGenerationPrompt, Map<String, ?> kwargs) {
        Map<String, Object> vars = new HashMap<>(specialTokens);
        vars.put("raise_exception", "<function raise_exception>");
        vars.put("strftime_now", "<function strftime_now>");
        if (kwargs != null) {
            vars.putAll(kwargs);
        }
        vars.put("messages", messages);
        vars.put("tools", tools);
        vars.put("documents", null);
        vars.put("add_generation_prompt", addGenerationPrompt);
        vars.put(CLOCK_VARIABLE, clock);
        JinjavaInterpreter interpreter = new JinjavaInterpreter(jinjava,
                new Context(jinjava.getGlobalContext(), vars, jinjava.getGlobalConfig().getDisabled()),
                jinjava.getGlobalConfig());
        String output;
        JinjavaInterpreter.pushCurrent(interpreter);
        try {
            output = interpreter.render(root);
        } catch (RuntimeException e) {
            throw new ChatTemplateException("chat template " + source + " failed: " + e, false);
        } finally {
            JinjavaInterpreter.popCurrent();
        }
        for (TemplateError e : interpreter.getErrors()) {
            if (e.getSeverity() == TemplateError.ErrorType.FATAL) {
                for (Throwable t = e.getException(); t != null; t = t.getCause()) {
                    if (t instanceof Raised raised) {
                        throw new ChatTemplateException(raised.getMessage(), true);
                    }
                }
                throw new ChatTemplateException("chat template " + source + " failed: " + e.getMessage(), false);
            }
        }
        return output;
    }

    /** Where the template came from. */
    public String source() {
        return source;
    }

    /** The template source as given (before the lstrip_blocks rewrite). */
    String text() {
        return template;
    }

    /** transformers' {@code raise_exception}: aborts the render with the template's message. */
    public static String raiseException(Object message) {
        throw new Raised(String.valueOf(message));
    }

    /** transformers' {@code strftime_now}: the clock's local time in a Python {@code strftime} format. */
    public static String strftimeNow(String format) {
        JinjavaInterpreter interpreter = JinjavaInterpreter.getCurrent();
        Object c = interpreter == null ? null : interpreter.getContext().get(CLOCK_VARIABLE);
        LocalDateTime now = LocalDateTime.now(c instanceof Clock clock ? clock : Clock.systemDefaultZone());
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < format.length(); i++) {
            char ch = format.charAt(i);
            if (ch != '%' || i + 1 == format.length()) {
                sb.append(ch);
                continue;
            }
            char d = format.charAt(++i);
            String pattern = switch (d) {
                case 'd' -> "dd";
                case 'm' -> "MM";
                case 'Y' -> "yyyy";
                case 'y' -> "yy";
                case 'b' -> "MMM";
                case 'B' -> "MMMM";
                case 'H' -> "HH";
                case 'I' -> "hh";
                case 'M' -> "mm";
                case 'S' -> "ss";
                case 'p' -> "a";
                case 'a' -> "EEE";
                case 'A' -> "EEEE";
                case 'j' -> "DDD";
                default -> null;
            };
            if (d == '-' && i + 1 < format.length()) { // glibc's %-d: no zero padding
                char e = format.charAt(++i);
                sb.append(switch (e) {
                    case 'd' -> Integer.toString(now.getDayOfMonth());
                    case 'm' -> Integer.toString(now.getMonthValue());
                    case 'H' -> Integer.toString(now.getHour());
                    default -> "%-" + e;
                });
                continue;
            }
            sb.append(pattern == null ? (d == '%' ? "%" : "%" + d)
                    : now.format(DateTimeFormatter.ofPattern(pattern, Locale.ENGLISH)));
        }
        return sb.toString();
    }

    /** What {@code raise_exception} throws through Jinjava. */
    private static final class Raised extends RuntimeException {
        Raised(String message) {
            super(message, null, false, false);
        }
    }

    /** transformers' {@code tojson}: {@code json.dumps(x, ensure_ascii=False, indent=, separators=, sort_keys=)}. */
    private static final class ToJson implements Filter {

        @Override
        public String getName() {
            return "tojson";
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
            return filter(var, interpreter, args, Map.of());
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            Object indent = kwargs.containsKey("indent") ? kwargs.get("indent") : args.length > 0 ? args[0] : null;
            String item = null;
            String key = null;
            if (kwargs.get("separators") instanceof List<?> seps && seps.size() == 2) {
                item = String.valueOf(seps.get(0));
                key = String.valueOf(seps.get(1));
            }
            boolean sort = Boolean.TRUE.equals(kwargs.get("sort_keys"));
            return PyJson.dumps(var, indent == null ? null : Integer.valueOf(((Number) indent).intValue()), item, key,
                    sort);
        }
    }
}
