package dev.caravan.sim.text;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import java.util.regex.Pattern;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.filter.Filter;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;

import jinjava.javax.el.CompositeELResolver;

/**
 * A model's Jinja {@code chat_template} rendered the way Hugging Face's {@code apply_chat_template} renders it (the
 * function vLLM and SGLang call), with Jinja for Java (Jinjava) configured like transformers' sandboxed environment:
 * {@code trim_blocks} and {@code lstrip_blocks} (the latter applied to the source, as Jinja2 does it), whitespace
 * control on expressions, Python's {@code str} methods ({@link PyStringMethods}), slices with a step
 * ({@code messages[::-1]}, {@link SteppedSlices}), keyword arguments whose value is an expression
 * ({@link KeywordArguments}); the {@code tojson}
 * filter replaced by Python's {@code json.dumps(x, ensure_ascii=False, indent=, separators=, sort_keys=)}
 * ({@link PyJson}); the globals {@code raise_exception(message)} (fails the render: a 400) and
 * {@code strftime_now(format)}; the variables {@code messages}, {@code tools}, {@code add_generation_prompt}, the
 * tokenizer's special tokens ({@code bos_token}, {@code eos_token}...) and the request's {@code chat_template_kwargs}.
 * Jinjava is not Python's Jinja2: docs/simulator.md names what the vectors in {@code vectors/chat-templates.json}
 * (rendered by Python's jinja2) prove identical. Thread-safe: each render gets its own interpreter.
 */
public final class JinjaChatTemplate implements ChatRenderer {

    private static final long MAX_OUTPUT_CHARS = 16L * 1024 * 1024;
    /** Jinja2's lstrip_blocks: spaces and tabs between a line's start and a block or comment tag. */
    private static final Pattern LSTRIP_BLOCKS = Pattern.compile("(?m)^[ \\t]+(?=\\{[%#](?!\\+))");

    private final String template;
    private final Map<String, Object> specialTokens;
    private final String name;
    private final Jinjava jinjava;

    /**
     * @param template      the Jinja source
     * @param specialTokens {@code bos_token}, {@code eos_token}... as strings
     * @param name          where the template came from (server info)
     */
    public JinjaChatTemplate(String template, Map<String, String> specialTokens, String name) {
        if (template == null || template.isBlank()) {
            throw new IllegalArgumentException("chat template must not be empty");
        }
        // Jinjava's own lstripBlocks also strips spaces before a tag in mid-line, which Jinja2 keeps: applied here.
        String jinja2Rules = LSTRIP_BLOCKS.matcher(template).replaceAll("");
        this.template = KeywordArguments.rewrite(SteppedSlices.rewrite(jinja2Rules));
        this.specialTokens = Map.copyOf(specialTokens);
        this.name = name;
        CompositeELResolver resolver = new CompositeELResolver();
        resolver.add(new PyStringMethods());
        resolver.add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_WRITE);
        JinjavaConfig config = JinjavaConfig.newBuilder().withTrimBlocks(true).withLstripBlocks(false)
                .withLegacyOverrides(LegacyOverrides.newBuilder().withUseTrimmingForNotesAndExpressions(true)
                        .withParseWhitespaceControlStrictly(true).build()).withElResolver(resolver)
                .withMaxOutputSize(MAX_OUTPUT_CHARS).build();
        this.jinjava = new Jinjava(config);
        jinjava.getGlobalContext().registerFilter(new ToJson());
        jinjava.getGlobalContext().registerFilter(SteppedSlices.FILTER);
        try {
            jinjava.getGlobalContext().registerFunction(new ELFunctionDefinition("", "raise_exception",
                    JinjaChatTemplate.class.getMethod("raiseException", String.class)));
            jinjava.getGlobalContext().registerFunction(new ELFunctionDefinition("", "strftime_now",
                    JinjaChatTemplate.class.getMethod("strftimeNow", String.class)));
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String render(List<?> messages, List<?> tools, boolean addGenerationPrompt, Map<String, Object> kwargs) {
        Map<String, Object> vars = new HashMap<>(specialTokens);
        vars.putAll(kwargs);
        vars.put("messages", messages);
        vars.put("tools", tools);
        vars.put("documents", null);
        vars.put("add_generation_prompt", addGenerationPrompt);
        RenderResult result = jinjava.renderForResult(template, vars);
        for (TemplateError e : result.getErrors()) {
            if (e.getSeverity() == TemplateError.ErrorType.FATAL) {
                for (Throwable t = e.getException(); t != null; t = t.getCause()) {
                    if (t instanceof TemplateRaised raised) {
                        throw new IllegalArgumentException(raised.getMessage());
                    }
                }
                throw new IllegalArgumentException("chat template: " + e.getMessage());
            }
        }
        return result.getOutput();
    }

    @Override
    public String name() {
        return name;
    }

    /** transformers' {@code raise_exception}: aborts the render with the template's message. */
    public static String raiseException(String message) {
        throw new TemplateRaised(message);
    }

    /** transformers' {@code strftime_now}: the local time in a Python {@code strftime} format (common directives). */
    public static String strftimeNow(String format) {
        LocalDateTime now = LocalDateTime.now();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%' || i + 1 == format.length()) {
                sb.append(c);
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
                case 'M' -> "mm";
                case 'S' -> "ss";
                case 'a' -> "EEE";
                case 'A' -> "EEEE";
                default -> null;
            };
            sb.append(pattern == null ? (d == '%' ? "%" : "%" + d)
                    : now.format(DateTimeFormatter.ofPattern(pattern, Locale.ENGLISH)));
        }
        return sb.toString();
    }

    /** The failure {@code raise_exception} throws. */
    static final class TemplateRaised extends RuntimeException {
        TemplateRaised(String message) {
            super(message);
        }
    }

    /** Python's {@code json.dumps} as transformers' {@code tojson}: indent, separators and sort_keys arguments. */
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
            Object indent = kwargs.containsKey("indent") ? kwargs.get("indent") : args.length > 1 ? args[1] : null;
            Object separators = kwargs.get("separators");
            String item = null;
            String key = null;
            if (separators instanceof List<?> seps && seps.size() == 2) {
                item = String.valueOf(seps.get(0));
                key = String.valueOf(seps.get(1));
            }
            Object value = var;
            if (Boolean.TRUE.equals(kwargs.get("sort_keys")) && value instanceof Map<?, ?> m) {
                value = new java.util.TreeMap<>(m);
            }
            return PyJson.dumps(value, indent == null ? null : ((Number) indent).intValue(), item, key);
        }
    }
}
