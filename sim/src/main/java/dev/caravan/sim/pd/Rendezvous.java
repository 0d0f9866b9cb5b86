package dev.caravan.sim.pd;

/**
 * Where a decode request picks up its prompt's KV: the prefill engine's bootstrap endpoint and the room (SGLang's
 * {@code bootstrap_room}, or vLLM's {@code remote_request_id}).
 */
public record Rendezvous(String host, int port, String room) {

    public Rendezvous {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("bootstrap host must be set, was '" + host + "'");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("bootstrap port must be in [1,65535], was " + port);
        }
        if (room == null || room.isEmpty()) {
            throw new IllegalArgumentException("bootstrap room must be set");
        }
    }

    /** Path of the room on the bootstrap endpoint. */
    public String path(long waitMs) {
        return BootstrapEndpoint.ROOMS_PATH + room + "?wait_ms=" + waitMs;
    }
}
