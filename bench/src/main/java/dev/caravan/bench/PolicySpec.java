package dev.caravan.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import dev.caravan.policies.PolicyConfig;
import dev.caravan.processors.config.CaravanFlags;

/**
 * One entry of {@code --policies}: {@code NAME[:KEY=VALUE]...[@LABEL]}.
 *
 * <ul>
 *   <li>a Caravan policy ({@code round_robin}, {@code cache_aware}, ...) with gateway options, e.g.
 *       {@code cache_aware:min-prefix-match-chars=4096:balance-abs-threshold=8@caravan_best};</li>
 *   <li>{@code nginx}, {@code nginx:least_conn} or {@code nginx:hash}: nginx in front of the same simulated engines
 *       (round robin, {@code least_conn}, {@code hash $http_x_smg_routing_key consistent});</li>
 *   <li>{@code external}: the load balancer given with {@code --gateway} (its configuration is not ours to set).</li>
 * </ul>
 * Options are validated here (unknown flag, bad policy value) so a typo fails before any engine starts.
 *
 * @param label   the row name in tables and plots
 * @param kind    who balances
 * @param policy  Caravan policy name, or the nginx mode ({@code round_robin}, {@code least_conn}, {@code hash})
 * @param options gateway options (Caravan only)
 */
public record PolicySpec(String label, Kind kind, String policy, Map<String, String> options) {

    /** Which load balancer serves the entry. */
    public enum Kind { CARAVAN, NGINX, EXTERNAL }

    /** nginx upstream modes. */
    public static final List<String> NGINX_MODES = List.of("round_robin", "least_conn", "hash");

    public PolicySpec {
        options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
    }

    /** Parses a comma-separated list of entries. */
    public static List<PolicySpec> parseList(String csv) {
        List<PolicySpec> out = new ArrayList<>();
        for (String e : csv.split(",")) {
            if (!e.isBlank()) {
                out.add(parse(e.trim()));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("--policies is empty");
        }
        long distinct = out.stream().map(PolicySpec::label).distinct().count();
        if (distinct != out.size()) {
            throw new IllegalArgumentException("--policies has duplicate labels: " + out.stream()
                    .map(PolicySpec::label).collect(Collectors.joining(", ")) + " (add @LABEL to tell them apart)");
        }
        return out;
    }

    /** Parses one entry. */
    public static PolicySpec parse(String entry) {
        String body = entry;
        String label = null;
        int at = entry.lastIndexOf('@');
        if (at >= 0) {
            label = entry.substring(at + 1).trim();
            body = entry.substring(0, at);
            if (label.isEmpty()) {
                throw new IllegalArgumentException("empty label in policy entry '" + entry + "'");
            }
        }
        String[] parts = body.split(":");
        String name = parts[0].trim().toLowerCase(Locale.ROOT);
        if (name.equals("nginx")) {
            String mode = parts.length > 1 ? parts[1].trim().toLowerCase(Locale.ROOT) : "round_robin";
            if (parts.length > 2 || !NGINX_MODES.contains(mode)) {
                throw new IllegalArgumentException("nginx entry must be nginx, nginx:least_conn or nginx:hash, was '"
                        + entry + "'");
            }
            return new PolicySpec(label != null ? label : mode.equals("round_robin") ? "nginx_rr" : "nginx_" + mode,
                    Kind.NGINX, mode, Map.of());
        }
        if (name.equals("external")) {
            return new PolicySpec(label != null ? label : "external", Kind.EXTERNAL, "external", Map.of());
        }
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            String kv = parts[i];
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("policy option must be KEY=VALUE, was '" + kv + "' in '" + entry
                        + "'");
            }
            String key = kv.substring(0, eq).trim().replaceFirst("^--", "");
            if (CaravanFlags.byFlag("--" + key).isEmpty()) {
                throw new IllegalArgumentException("unknown gateway option '" + key + "' in '" + entry
                        + "' (use a ./caravan run flag name without dashes)");
            }
            options.put(key, kv.substring(eq + 1).trim());
        }
        PolicyConfig.fromOptions(name, options);
        String defaultLabel = options.isEmpty() ? name : name + "{" + options.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(",")) + "}";
        return new PolicySpec(label != null ? label : defaultLabel, Kind.CARAVAN, name, options);
    }
}
