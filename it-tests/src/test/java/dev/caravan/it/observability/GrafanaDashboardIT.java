package dev.caravan.it.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.health.HealthFeature;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.sim.Faults;
import dev.caravan.sim.SimEngine;

/**
 * {@code config/grafana/caravan-dashboard.json}: every panel's every query names metrics, and every metric it names is
 * one a running gateway exports — scraped from its metrics listener, as Prometheus does, after traffic that exercises what the panels show
 * (engine cache hits, a failing worker that is retried and tripped, KV-event subscriptions, health probes).
 */
class GrafanaDashboardIT {

    static final Path DASHBOARD = Path.of("..", "config", "grafana", "caravan-dashboard.json");

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(2, KvFixtures::publishing);

    private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right",
            "bool", "and", "or", "unless", "offset", "inf", "nan");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    /** The metric names a PromQL expression reads: identifiers that are not functions, keywords or labels. */
    static Set<String> metricNames(String expr) {
        String e = expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
                .replaceAll("\\{[^}]*}", " ")
                .replaceAll("\\[[^]]*]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
        Set<String> names = new LinkedHashSet<>();
        Matcher m = IDENTIFIER.matcher(e);
        while (m.find()) {
            String id = m.group();
            int next = m.end();
            while (next < e.length() && Character.isWhitespace(e.charAt(next))) {
                next++;
            }
            boolean function = next < e.length() && e.charAt(next) == '(';
            boolean number = m.start() > 0 && Character.isDigit(e.charAt(m.start() - 1));
            if (!function && !number && !KEYWORDS.contains(id.toLowerCase())) {
                names.add(id);
            }
        }
        return names;
    }

    private static final Pattern BY = Pattern.compile("\\bby\\s*\\(([^)]*)\\)\\s*\\(");

    /**
     * The labels a PromQL expression groups each metric by ({@code sum by (worker) (rate(m[1m]))}: m needs
     * {@code worker}); a metric exported without them gives one unlabelled series where the panel wants one per value.
     */
    static Map<String, Set<String>> groupingLabels(String expr) {
        String e = expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"");
        Map<String, Set<String>> out = new TreeMap<>();
        Matcher m = BY.matcher(e);
        while (m.find()) {
            int depth = 1;
            int end = m.end();
            while (end < e.length() && depth > 0) {
                char c = e.charAt(end++);
                depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            }
            Set<String> labels = new TreeSet<>();
            for (String label : m.group(1).split(",")) {
                labels.add(label.strip());
            }
            for (String name : metricNames(e.substring(m.end(), end - 1))) {
                out.computeIfAbsent(name, k -> new TreeSet<>()).addAll(labels);
            }
        }
        return out;
    }

    static List<String> queries() throws IOException {
        JsonNode dashboard = GatewayClient.parse(Files.readString(DASHBOARD));
        List<String> out = new ArrayList<>();
        collect(dashboard.path("panels"), out);
        return out;
    }

    private static void collect(JsonNode panels, List<String> out) {
        for (JsonNode panel : panels) {
            for (JsonNode target : panel.path("targets")) {
                out.add(target.path("expr").asText());
            }
            collect(panel.path("panels"), out);
        }
    }

    @Test
    void readsMetricNamesOutOfPromQl() {
        assertThat(metricNames("histogram_quantile(0.95, sum by (le, endpoint) "
                + "(rate(caravan_request_duration_seconds_bucket{job=~\"$job\",x=\"a{b}\"}[$__rate_interval])))"))
                .containsExactly("caravan_request_duration_seconds_bucket");
        assertThat(metricNames("sum(rate(a_total[5m])) / sum(rate(b_total[5m])) > 0.5 or vector(0)"))
                .containsExactly("a_total", "b_total");
    }

    @Test
    void readsGroupingLabelsPerMetric() {
        assertThat(groupingLabels("sum by (worker) (rate(a_total{p=~\"(x|y)\"}[5m])) / sum by (worker, to) "
                + "(rate(b_total[5m])) + sum(c_total)"))
                .isEqualTo(Map.of("a_total", Set.of("worker"), "b_total", Set.of("to", "worker")));
    }

    @Test
    void everyPanelQueryNamesMetricsTheGatewayExports() throws Exception {
        List<String> queries = queries();
        assertThat(queries).hasSizeGreaterThan(20);
        Set<String> wanted = new TreeSet<>();
        Map<String, Set<String>> wantedLabels = new TreeMap<>();
        for (String q : queries) {
            Set<String> names = metricNames(q);
            assertThat(names).as("query names no metric: " + q).isNotEmpty();
            wanted.addAll(names);
            groupingLabels(q).forEach((name, labels) -> wantedLabels.computeIfAbsent(name, k -> new TreeSet<>())
                    .addAll(labels));
        }
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of())
                .with(ReliabilityFeature.CB_FAILURE_THRESHOLD, "1").with(ReliabilityFeature.RETRY_INITIAL_BACKOFF_MS, "1")
                .with(HealthFeature.HEALTH_CHECK_INTERVAL_SECS, "1"))) {
            for (SimEngine e : SIMS.fleet().engines()) {
                KvFixtures.register(gw.client(), e, SIMS.model());
            }
            SIMS.engine(0).setFaults(new Faults(1.0, 500, false, false, 0, -1, false, false));
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
                    KvFixtures.complete(gw.url(), SIMS.model(), KvFixtures.prompt("dash", 2));
                    gw.client().get("/no/such/path");
                    // what Prometheus scrapes: the metrics listener
                    Map<String, Set<String>> exported = exported(new GatewayClient("http://127.0.0.1:"
                            + gw.gateway().metricsPort()).get("/metrics").body());
                    Set<String> missing = new TreeSet<>(wanted);
                    missing.removeAll(exported.keySet());
                    assertThat(missing).as("dashboard metrics the gateway does not export").isEmpty();
                    Set<String> unlabelled = new TreeSet<>();
                    wantedLabels.forEach((name, labels) -> labels.stream()
                            .filter(l -> !exported.get(name).contains(l)).forEach(l -> unlabelled.add(name + "." + l)));
                    assertThat(unlabelled).as("labels the dashboard groups by that the metric lacks").isEmpty();
                });
            } finally {
                SIMS.resetFaults();
            }
        }
    }

    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");

    /** The sample names of a Prometheus text exposition, each with the label names its samples carry. */
    private static Map<String, Set<String>> exported(String text) {
        Map<String, Set<String>> names = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                Matcher m = IDENTIFIER.matcher(line);
                if (m.lookingAt()) {
                    Set<String> labels = names.computeIfAbsent(m.group(), k -> new TreeSet<>());
                    int brace = line.indexOf('{');
                    if (brace == m.end()) {
                        Matcher l = LABEL.matcher(line.substring(brace, line.lastIndexOf('}')));
                        while (l.find()) {
                            labels.add(l.group(1));
                        }
                    }
                }
            }
        }
        return names;
    }

}
