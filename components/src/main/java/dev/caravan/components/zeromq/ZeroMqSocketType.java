package dev.caravan.components.zeromq;

import java.util.Locale;

import org.zeromq.SocketType;

/**
 * The socket kinds the component supports, named in the URI path ({@code zeromq:sub:...}). Each kind fixes the
 * direction: SUB and DEALER are consumers, PUB is a producer.
 */
public enum ZeroMqSocketType {
    /** Subscriber: receives published multipart messages whose frame 0 starts with one of the {@code topics}. */
    SUB(SocketType.SUB, true),
    /** Dealer: receives the messages a ROUTER (or DEALER) peer sends to this socket's {@code identity}. */
    DEALER(SocketType.DEALER, true),
    /** Publisher: sends each exchange as one multipart message to every connected subscriber. */
    PUB(SocketType.PUB, false);

    private final SocketType zmqType;
    private final boolean consumer;

    ZeroMqSocketType(SocketType zmqType, boolean consumer) {
        this.zmqType = zmqType;
        this.consumer = consumer;
    }

    public SocketType zmqType() {
        return zmqType;
    }

    /** True for kinds that back a consumer, false for those that back a producer. */
    public boolean isConsumer() {
        return consumer;
    }

    /**
     * Parses the URI's socket kind case-insensitively.
     *
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public static ZeroMqSocketType parse(String value) {
        for (ZeroMqSocketType t : values()) {
            if (t.name().equalsIgnoreCase(value)) {
                return t;
            }
        }
        throw new IllegalArgumentException("ZeroMQ socket type must be one of sub, dealer, pub, was '" + value + "'");
    }

    /** Lower-case name as written in URIs. */
    public String uriName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
