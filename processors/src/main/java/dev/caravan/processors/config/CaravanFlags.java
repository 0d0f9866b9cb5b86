package dev.caravan.processors.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The configuration table: every command-line flag of {@code ./caravan run}, the {@code caravan.*} property it sets,
 * and all there is to know about its value. Flags are SGLang's {@code sglang_router.launch_router} names where SGLang
 * has one, so an SGLang command line works verbatim; Caravan-only settings follow the same style.
 *
 * <p><b>The table is assembled, not written here.</b> Each row is declared by the feature that reads it, next to its
 * code ({@code FlowFeature.TENANTS_FILE}, {@code ReliabilityFeature.QUEUE_SIZE}); the table joins, in this order, the
 * core's rows ({@link CoreFlags}), the rows of every feature in the order of the gateway's list of features and then
 * those of the optional modules on the class path (both through {@link FlagSource}), and the SGLang flags Caravan accepts without implementing
 * ({@link SglangOnlyFlags}). A row declares the flag, the key, the type, the section, the default (a named constant of
 * the code that uses it), the rule ({@code range}, {@code min}, {@code oneOf}, {@code special}, {@code pattern}) and
 * one sentence of meaning ({@link FlagRows}); the feature reads it where it wires its beans:
 * <pre>{@code
 * new AdmissionConfig(..., config.getInt(FlowFeature.QUEUE_SIZE), ...)
 * }</pre>
 * Parsing ({@link ArgsParser}), environment variables, validation (one pass over the rows in {@link GatewayConfig},
 * with messages naming the flag, the rule and the value), {@code --help}, {@code docs/configuration.md} and
 * {@code config/application.properties} follow from the table; {@code ConfigurationDocTest} fails until the generated
 * files are regenerated ({@code mvn -pl app -am test -Dtest=ConfigurationDocTest -Dcaravan.docs.write=true
 * -Dsurefire.failIfNoSpecifiedTests=false}: the test runs in {@code app}, whose class path also holds the optional
 * modules and so their rows). The docs group rows by section, sections in the order of {@link Sections}, rows in table order within each. Nothing else
 * validates or re-maps a setting; a feature config record may still check its own invariants (and cross-setting rules
 * such as "max backoff >= initial backoff").
 *
 * <p>Policy options ({@code caravan.policy.*}) are handed to {@code PolicyConfig.fromOptions}: the policy library's
 * records check their ranges, and their rows say so ({@link FlagRows#BY_POLICY}) rather than state a second rule.
 */
public final class CaravanFlags {

    private static final List<CaravanFlag> ROWS = assemble();

    private CaravanFlags() {
    }

    private static List<CaravanFlag> assemble() {
        List<CaravanFlag> rows = new ArrayList<>();
        List<List<CaravanFlag>> parts = new ArrayList<>(List.of(CoreFlags.all()));
        ServiceLoader.load(FlagSource.class, CaravanFlags.class.getClassLoader()).forEach(s -> parts.add(s.flags()));
        parts.add(SglangOnlyFlags.all());
        for (List<CaravanFlag> part : parts) {
            for (CaravanFlag f : part) {
                add(rows, f);
            }
        }
        return Collections.unmodifiableList(rows);
    }

    private static void add(List<CaravanFlag> rows, CaravanFlag f) {
        for (CaravanFlag existing : rows) {
            boolean sameName = f.names().stream().anyMatch(existing::answersTo)
                    || existing.names().stream().anyMatch(f::answersTo);
            if (sameName || existing.key().equals(f.key())) {
                throw new IllegalStateException("duplicate configuration row " + f.flag() + " / " + f.key());
            }
        }
        rows.add(f);
    }

    /** Every row, in table order. */
    public static List<CaravanFlag> all() {
        return ROWS;
    }

    public static Optional<CaravanFlag> byFlag(String flag) {
        return ROWS.stream().filter(f -> f.answersTo(flag)).findFirst();
    }

    public static Optional<CaravanFlag> byKey(String key) {
        return ROWS.stream().filter(f -> f.key().equals(key)).findFirst();
    }

    /** Rows grouped by section: sections in the order of {@link Sections} (others after, as first met), rows in table order. */
    public static Map<String, List<CaravanFlag>> bySection() {
        Map<String, List<CaravanFlag>> grouped = new LinkedHashMap<>();
        for (CaravanFlag f : ROWS) {
            grouped.computeIfAbsent(f.section(), s -> new ArrayList<>()).add(f);
        }
        List<String> order = new ArrayList<>(grouped.keySet());
        order.sort(Comparator.comparingInt(s -> Sections.ORDER.contains(s) ? Sections.ORDER.indexOf(s)
                : Sections.ORDER.size()));
        Map<String, List<CaravanFlag>> out = new LinkedHashMap<>();
        order.forEach(s -> out.put(s, grouped.get(s)));
        return out;
    }
}
