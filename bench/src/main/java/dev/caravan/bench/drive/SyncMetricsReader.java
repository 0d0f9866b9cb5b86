package dev.caravan.bench.drive;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the replica-sync samples ({@code caravan_sync_*}: lag, messages, drops, members) from each gateway replica's
 * Prometheus {@code /metrics} at the end of a run, so the report can set the sync lag against the workload's
 * inter-arrival time. Histogram buckets are left out (their quantiles and counts stay); a replica that does not answer
 * gives an empty map and a warning, never a failed run.
 */
public final class SyncMetricsReader {

    /** The metric name prefix the gateway's sync publishes under. */
    public static final String PREFIX = "caravan_sync_";

    private static final Logger LOG = LoggerFactory.getLogger(SyncMetricsReader.class);
    private static final int TIMEOUT_MS = 10_000;

    private SyncMetricsReader() {
    }

    /** One map per URL, in order: sample (name with labels, as exposed) → value. */
    public static List<Map<String, Double>> read(List<URI> gateways) {
        return read(gateways, List.of(PREFIX));
    }

    /** As {@link #read(List)}, for the samples whose names start with one of {@code prefixes}. */
    public static List<Map<String, Double>> read(List<URI> gateways, List<String> prefixes) {
        List<Map<String, Double>> out = new ArrayList<>();
        for (URI g : gateways) {
            try {
                out.add(parse(get(g.resolve("/metrics")), prefixes));
            } catch (IOException e) {
                LOG.warn("could not read {}/metrics: {}", g, e.toString());
                out.add(Map.of());
            }
        }
        return out;
    }

    /**
     * A plain blocking GET with connect and read timeouts. (A throwaway java.net.http client hung here past its own
     * request timeout, its selector thread gone: JDK 17 stops it once the client object is unreachable.) Empty body
     * unless the status is 200.
     */
    private static String get(URI uri) throws IOException {
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
        c.setConnectTimeout(TIMEOUT_MS);
        c.setReadTimeout(TIMEOUT_MS);
        try {
            if (c.getResponseCode() != 200) {
                return "";
            }
            try (InputStream in = c.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } finally {
            c.disconnect();
        }
    }

    /** The {@code caravan_sync_*} samples of a Prometheus text exposition, buckets excluded. */
    static Map<String, Double> parse(String exposition) {
        return parse(exposition, List.of(PREFIX));
    }

    /** The samples whose names start with one of {@code prefixes}, buckets excluded. */
    static Map<String, Double> parse(String exposition, List<String> prefixes) {
        Map<String, Double> samples = new LinkedHashMap<>();
        for (String line : exposition.split("\n")) {
            if (prefixes.stream().noneMatch(line::startsWith)) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String name = line.substring(0, space).trim();
            int brace = name.indexOf('{');
            if ((brace < 0 ? name : name.substring(0, brace)).endsWith("_bucket")) {
                continue;
            }
            try {
                samples.put(name, Double.parseDouble(line.substring(space + 1).trim()));
            } catch (NumberFormatException e) {
                LOG.debug("not a sample: {}", line);
            }
        }
        return samples;
    }
}
