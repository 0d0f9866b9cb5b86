package dev.caravan.components.zeromq;

/**
 * Whether a socket binds its address or connects to it. ZeroMQ lets either side of any socket pair bind; the usual
 * rule is "bind the stable end, connect the volatile ones".
 */
public enum ZeroMqMode {
    /**
     * vLLM's heuristic: bind when the address contains a wildcard ({@code *}) or {@code ::}, or uses the {@code ipc://}
     * or {@code inproc://} transport; connect otherwise. So {@code tcp://*:5557} binds and {@code tcp://engine:5557}
     * connects.
     */
    AUTO,
    /** Always bind (e.g. a gateway SUB that many engine PUBs connect to: llm-d's "centralized" mode). */
    BIND,
    /** Always connect. */
    CONNECT;

    /** Resolves {@link #AUTO} for an address; returns true when the socket should bind. */
    public boolean binds(String address) {
        return switch (this) {
            case BIND -> true;
            case CONNECT -> false;
            case AUTO -> address.contains("*") || address.contains("::")
                    || address.startsWith("ipc://") || address.startsWith("inproc://");
        };
    }
}
