package dev.caravan.processors.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.caravan.policies.PolicyName;

/**
 * The rows one feature declares, in declaration order, and the rules rows share. A feature keeps one as a private
 * constant declared before its rows and returns {@link #all()} as its flags:
 * <pre>{@code
 * private static final FlagRows ROWS = new FlagRows();
 *
 * public static final CaravanFlag QUEUE_SIZE = ROWS.row("--queue-size", "caravan.admission.queue-size", INT,
 *         Sections.ADMISSION)
 *         .defaultValue(AdmissionConfig.DEFAULT_QUEUE_SIZE).min(0)
 *         .describe("Requests that may wait (FIFO) for a slot; beyond it 429. 0 = no queue.");
 * }</pre>
 * {@link CaravanFlags} joins every feature's rows into the one table and rejects two rows with the same name or key.
 */
public final class FlagRows {

    /**
     * Upper bound of every duration in seconds: ten years. Anything longer is a typo, and {@code Long.MAX_VALUE}
     * seconds would overflow the millisecond and nanosecond arithmetic of the timers that use them.
     */
    public static final long MAX_SECONDS = 10L * 365 * 24 * 3600;
    /** Upper bound of every duration in milliseconds: {@link #MAX_SECONDS}. */
    public static final long MAX_MILLIS = MAX_SECONDS * 1000;
    /** Who checks a policy option's range: the policy library's config records ({@code PolicyConfig.fromOptions}). */
    public static final String BY_POLICY = "the policy that uses it";
    /** Every policy name the library resolves, with its aliases ({@code roundrobin} for {@code round_robin}). */
    public static final Choices POLICY_NAMES = policyNames();

    private final List<CaravanFlag> rows = new ArrayList<>();

    /** Starts a row; its {@code describe(...)} adds it here. */
    public CaravanFlag.Builder row(String flag, String key, FlagType type, String section) {
        return new CaravanFlag.Builder(flag, key, type, section, rows::add);
    }

    /** Starts a policy option row: flag {@code --<option>}, key {@code caravan.policy.<option>}. */
    public CaravanFlag.Builder option(String option, FlagType type, String section) {
        return row("--" + option, GatewayConfig.POLICY_PREFIX + option, type, section);
    }

    /** The rows declared so far, in declaration order. */
    public List<CaravanFlag> all() {
        return Collections.unmodifiableList(rows);
    }

    private static Choices policyNames() {
        Choices names = Choices.of(PolicyName.canonicalNames());
        for (PolicyName p : PolicyName.values()) {
            for (String alias : p.aliases()) {
                names = names.withAlias(alias, p.wireName());
            }
        }
        return names;
    }

    /** Any policy name or alias, for list flags (a list's elements are checked one by one against a pattern). */
    public static String policyNamePattern() {
        List<String> names = new ArrayList<>(PolicyName.canonicalNames());
        for (PolicyName p : PolicyName.values()) {
            names.addAll(p.aliases());
        }
        return "(?i)(?:" + String.join("|", names) + ")";
    }
}
