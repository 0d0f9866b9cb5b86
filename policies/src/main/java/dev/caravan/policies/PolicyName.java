package dev.caravan.policies;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The policy names SGLang's gateway registers (its eight classic ones, then the latest {@code bounded_consistent_hashing}),
 * with their aliases, and Caravan's {@code kv_aware}. This enum is the one place a policy key is
 * spelled; {@link PolicyConfig#fromOptions} and {@link PolicyFactory#names()} read it.
 *
 * <p>Resolution is case-insensitive, as SGLang's {@code create_by_name} is: {@code Round_Robin} and {@code roundrobin}
 * both name {@link #ROUND_ROBIN}.
 */
public enum PolicyName {
    RANDOM("random"),
    ROUND_ROBIN("round_robin", "roundrobin"),
    POWER_OF_TWO("power_of_two", "poweroftwo"),
    CACHE_AWARE("cache_aware", "cacheaware"),
    BUCKET("bucket"),
    MANUAL("manual"),
    CONSISTENT_HASHING("consistent_hashing", "consistenthashing"),
    PREFIX_HASH("prefix_hash", "prefixhash"),
    /** Latest SGLang's consistent hashing with load-bounded spill-over of explicit routing keys. */
    BOUNDED_CONSISTENT_HASHING("bounded_consistent_hashing", "boundedconsistenthashing"),
    /** Caravan's precise KV-event policy (not in SGLang); listed after SGLang's. */
    KV_AWARE("kv_aware", "kvaware");

    private final String wireName;
    private final List<String> aliases;

    PolicyName(String wireName, String... aliases) {
        this.wireName = wireName;
        this.aliases = List.of(aliases);
    }

    /** The canonical SGLang spelling, e.g. {@code cache_aware}; what {@link LoadBalancingPolicy#name()} returns. */
    public String wireName() {
        return wireName;
    }

    /** Other accepted spellings (without underscores). */
    public List<String> aliases() {
        return aliases;
    }

    /**
     * Resolves a configured name.
     *
     * @throws IllegalArgumentException for an unknown or empty name; the message lists every valid name
     */
    public static PolicyName resolve(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (PolicyName p : values()) {
            if (p.wireName.equals(n) || p.aliases.contains(n)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown policy '" + name + "'; valid policies are " + String.join(", ",
                validSpellings()));
    }

    /** Canonical names: SGLang's in its registration order, then Caravan's. */
    public static List<String> canonicalNames() {
        return Arrays.stream(values()).map(PolicyName::wireName).toList();
    }

    private static List<String> validSpellings() {
        List<String> out = new ArrayList<>();
        for (PolicyName p : values()) {
            out.add(p.aliases.isEmpty() ? p.wireName : p.wireName + "|" + String.join("|", p.aliases));
        }
        return Collections.unmodifiableList(out);
    }
}
