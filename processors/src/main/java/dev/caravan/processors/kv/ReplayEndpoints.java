package dev.caravan.processors.kv;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * vLLM's per-DP-rank endpoint rule ({@code offset_endpoint_port}), applied to both the PUB and the replay endpoint:
 * rank 0 uses the endpoint as configured; rank r uses {@code tcp://host:port+r} or {@code inproc://name_dp<r>}.
 */
public final class ReplayEndpoints {

    private static final Pattern TCP = Pattern.compile("^(tcp://.*):(\\d+)$");

    private ReplayEndpoints() {
    }

    /** The endpoint DP rank {@code rank} serves, given rank 0's. Other transports are returned unchanged. */
    public static String forRank(String endpoint, int rank) {
        if (rank == 0) {
            return endpoint;
        }
        Matcher m = TCP.matcher(endpoint);
        if (m.matches()) {
            return m.group(1) + ":" + (Integer.parseInt(m.group(2)) + rank);
        }
        if (endpoint.startsWith("inproc://")) {
            return endpoint + "_dp" + rank;
        }
        return endpoint;
    }
}
