package dev.caravan.sim.kv;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** ZeroMQ endpoint rules shared with vLLM's publisher. */
public final class ZmqEndpoints {

    private static final Pattern TCP_PORT = Pattern.compile("^(tcp://.*:)(\\d+)$");

    private ZmqEndpoints() {
    }

    /**
     * vLLM's "bind stable, connect volatile" rule: a PUB endpoint is bound when it contains {@code *} or {@code ::}
     * or is {@code ipc://} / {@code inproc://}; otherwise the PUB socket connects (to a subscriber that binds).
     */
    public static boolean shouldBind(String endpoint) {
        return endpoint.contains("*") || endpoint.contains("::") || endpoint.startsWith("ipc://")
                || endpoint.startsWith("inproc://");
    }

    /**
     * The endpoint of engine {@code index} of a fleet: a TCP port is offset by the index ({@code tcp://*:5557} →
     * {@code tcp://*:5559} for index 2, as vLLM offsets per data-parallel rank); an ephemeral {@code *} port stays
     * ephemeral; {@code ipc://}/{@code inproc://} names get a {@code _<index>} suffix.
     */
    public static String offset(String endpoint, int index) {
        if (index == 0 || endpoint == null) {
            return endpoint;
        }
        Matcher m = TCP_PORT.matcher(endpoint);
        if (m.matches()) {
            int port = Integer.parseInt(m.group(2)) + index;
            if (port > 65535) {
                throw new IllegalArgumentException("endpoint " + endpoint + " offset by " + index + " exceeds port 65535");
            }
            return m.group(1) + port;
        }
        if (endpoint.startsWith("tcp://")) {
            return endpoint;
        }
        return endpoint + "_" + index;
    }

    /**
     * vLLM's and SGLang's {@code offset_endpoint_port(endpoint, data_parallel_rank)}: rank 0 unchanged; a TCP port
     * plus the rank ({@code tcp://*:5557} → {@code tcp://*:5558} for rank 1, applied to the PUB and the replay
     * endpoint alike, so with the defaults a replay port can collide with a rank's PUB port); an ephemeral {@code *}
     * port stays ephemeral; other transports get {@code _dp<rank>}.
     */
    public static String offsetForRank(String endpoint, int rank) {
        if (rank == 0 || endpoint == null) {
            return endpoint;
        }
        Matcher m = TCP_PORT.matcher(endpoint);
        if (m.matches()) {
            int port = Integer.parseInt(m.group(2)) + rank;
            if (port > 65535) {
                throw new IllegalArgumentException("endpoint " + endpoint + " offset by rank " + rank
                        + " exceeds port 65535");
            }
            return m.group(1) + port;
        }
        if (endpoint.startsWith("tcp://")) {
            return endpoint;
        }
        return endpoint + "_dp" + rank;
    }
}
