package dev.caravan.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.camel.AggregationStrategy;
import org.apache.camel.Processor;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The bean references of YAML DSL route files, read as plain YAML (no Camel context, no route model): every
 * {@code ref:} ({@code process}, {@code bean}, ...), every {@code "#name"} / {@code "#bean:name"} value (an
 * {@code aggregationStrategy}, a component option such as {@code watchListener}), every plain
 * {@code aggregationStrategy} name and every {@code ${bean:name...}} in an expression. {@link #unresolved} checks them
 * against the beans a {@code *Beans} class binds, including the type a step needs (a {@code process} ref must be a
 * {@link Processor}, an aggregation strategy an {@link AggregationStrategy}). Shared with the Kubernetes module's test
 * through this module's test jar.
 */
public final class RouteReferences {

    /** What a referencing position needs the bean to be. */
    public enum Need {
        PROCESSOR(Processor.class), AGGREGATION_STRATEGY(AggregationStrategy.class), ANY(Object.class);

        private final Class<?> type;

        Need(Class<?> type) {
            this.type = type;
        }
    }

    /**
     * @param file  the route file's name
     * @param where the YAML path to the reference, e.g. {@code route(inference)/steps/process/ref}
     */
    public record Reference(String file, String where, String bean, Need need) {
        @Override
        public String toString() {
            return file + ": " + where + " -> " + bean;
        }
    }

    private static final Pattern HASH_REF = Pattern.compile("#(?:bean:)?([A-Za-z_][\\w.-]*)");
    private static final Pattern SIMPLE_BEAN = Pattern.compile("\\$\\{bean:([A-Za-z_][\\w.-]*?)(?:[?.}]|$)");

    private RouteReferences() {
    }

    /** The {@code *.camel.yaml} files of a directory, sorted; fails when there are none (a wrong path would pass). */
    public static List<Path> routeFiles(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> found = files.filter(f -> f.getFileName().toString().endsWith(".camel.yaml")).sorted().toList();
            if (found.isEmpty()) {
                throw new IllegalStateException("no *.camel.yaml in " + dir.toAbsolutePath());
            }
            return found;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every bean reference in one route file. */
    public static List<Reference> in(Path file) {
        try {
            return in(file.getFileName().toString(), Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every bean reference in YAML route text. */
    public static List<Reference> in(String file, String yaml) {
        List<Reference> found = new ArrayList<>();
        for (Object document : new Load(LoadSettings.builder().build()).loadAllFromString(yaml)) {
            walk(file, "", null, document, found);
        }
        return found;
    }

    /**
     * The references {@code beans} cannot satisfy, as readable lines (empty when all resolve): a missing bean, or one
     * of the wrong type for its position.
     */
    public static List<String> unresolved(List<Reference> references, Map<String, Object> beans) {
        List<String> problems = new ArrayList<>();
        for (Reference r : references) {
            Object bean = beans.get(r.bean());
            if (bean == null) {
                problems.add(r + ": no such bean");
            } else if (!r.need().type.isInstance(bean)) {
                problems.add(r + ": a " + bean.getClass().getSimpleName() + ", not a " + r.need().type.getSimpleName());
            }
        }
        return problems;
    }

    private static void walk(String file, String where, String key, Object node, List<Reference> found) {
        if (node instanceof Map<?, ?> map) {
            String label = where;
            if (map.get("id") instanceof String id) {
                label = where + "(" + id + ")";
            }
            for (Map.Entry<?, ?> e : map.entrySet()) {
                String k = String.valueOf(e.getKey());
                if ("ref".equals(k) && e.getValue() instanceof String bean) {
                    found.add(new Reference(file, label + "/ref", bean, "process".equals(key) ? Need.PROCESSOR
                            : Need.ANY));
                } else {
                    walk(file, label + "/" + k, k, e.getValue(), found);
                }
            }
        } else if (node instanceof List<?> list) {
            for (Object item : list) {
                walk(file, where, key, item, found);
            }
        } else if (node instanceof String text) {
            strings(file, where, key, text, found);
        }
    }

    private static void strings(String file, String where, String key, String text, List<Reference> found) {
        Need need = "aggregationStrategy".equals(key) ? Need.AGGREGATION_STRATEGY : Need.ANY;
        Matcher hash = HASH_REF.matcher(text);
        if (text.startsWith("#") && !text.startsWith("#class:") && !text.startsWith("#type:") && hash.matches()) {
            found.add(new Reference(file, where, hash.group(1), need));
        } else if (need == Need.AGGREGATION_STRATEGY && !text.contains("{{")) {
            found.add(new Reference(file, where, text, need)); // Camel also reads a plain name as a bean reference
        }
        Matcher simple = SIMPLE_BEAN.matcher(text);
        while (simple.find()) {
            found.add(new Reference(file, where, simple.group(1), Need.ANY));
        }
    }
}
