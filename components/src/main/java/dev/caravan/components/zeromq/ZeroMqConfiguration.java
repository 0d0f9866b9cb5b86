package dev.caravan.components.zeromq;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.camel.RuntimeCamelException;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriParams;
import org.apache.camel.spi.UriPath;

/**
 * Every option of a {@code zeromq:} endpoint, declared once. The javadoc on each setter is the user-facing description
 * (camel-component-maven-plugin copies it into the catalog JSON, from which the option table of
 * {@code components/src/main/docs/zeromq-component.adoc} is generated), and each default is a {@code DEFAULT_*} constant
 * used by both the annotation and the field initializer, so the two cannot drift ({@code ZeroMqCatalogTest} checks the
 * catalog against a fresh instance).
 *
 * <p>Setter javadoc is written in plain words: Camel's description sanitizer keeps letters, digits, whitespace and
 * {@code .,-='/\!&%():;#$} only, so {@code *}, {@code @}, {@code <>} and {@code []} would silently vanish from the
 * catalog. An inline code tag around a plain identifier is unwrapped; around a URL or anything with a colon it is left
 * as mangled text, so write such values bare.
 *
 * <p>Instances are mutable while an endpoint is being configured and must not be changed afterwards; the component hands
 * every endpoint its own {@link #copy()}.
 */
@UriParams
public class ZeroMqConfiguration implements Cloneable {

    /** Default {@link #setTopics topics}: the empty prefix, i.e. every message (vLLM's default topic is empty). */
    public static final String DEFAULT_TOPICS = "";
    /** Default {@link #setMode mode}. */
    public static final String DEFAULT_MODE = "AUTO";
    /** Default {@link #setHighWaterMark high-water mark}: vLLM's PUB uses 100,000 messages, so the SUB matches it. */
    public static final int DEFAULT_HIGH_WATER_MARK = 100_000;
    /** Default {@link #setReconnectInterval reconnect interval}, ms (ZeroMQ's own default). */
    public static final long DEFAULT_RECONNECT_INTERVAL_MS = 100;
    /** Default {@link #setReconnectIntervalMax reconnect back-off cap}, ms. */
    public static final long DEFAULT_RECONNECT_INTERVAL_MAX_MS = 5_000;
    /**
     * Default {@link #setHandshakeInterval handshake interval}, ms. ZeroMQ's own default is 30 s; a short one bounds
     * JeroMQ 0.6.0's intermittent handshake stall (see the setter).
     */
    public static final long DEFAULT_HANDSHAKE_INTERVAL_MS = 2_000;
    /** Default {@link #setLinger linger}, ms: closing never waits for unsent messages. */
    public static final long DEFAULT_LINGER_MS = 0;
    /** Default {@link #setReceiveTimeout receive timeout}, ms. */
    public static final long DEFAULT_RECEIVE_TIMEOUT_MS = 250;
    /** Default {@link #setLastFrameOnly body shape}: the whole list of frames. */
    public static final boolean DEFAULT_LAST_FRAME_ONLY = false;
    /** Default {@link #setProducerQueueSize producer queue size}, messages. */
    public static final int DEFAULT_PRODUCER_QUEUE_SIZE = 10_000;

    // A String, not a ZeroMqSocketType: the plugin would list an enum type's constants in the catalog, and Camel's
    // catalog splits a URI path at its first "://", so for zeromq:sub:tcp://host:5557 tooling sees socketType "sub:tcp"
    // and would reject every valid URI against that enum (ZeroMqCatalogTest pins this). The runtime splits at the first
    // colon, and socketKind() / ZeroMqSocketType#parse name the accepted kinds when one is wrong.
    @UriPath
    @Metadata(required = true)
    private String socketType;
    /** {@link #socketType} parsed once by the setter (the consumer asks for it per message). */
    private ZeroMqSocketType socketKind;
    @UriPath
    @Metadata(required = true)
    private String address;

    @UriParam(label = "consumer", defaultValue = DEFAULT_TOPICS)
    private String topics = DEFAULT_TOPICS;
    @UriParam(label = "common", enums = "AUTO,BIND,CONNECT", defaultValue = DEFAULT_MODE)
    private ZeroMqMode mode = ZeroMqMode.valueOf(DEFAULT_MODE);
    @UriParam(label = "common", defaultValue = "" + DEFAULT_HIGH_WATER_MARK)
    private int highWaterMark = DEFAULT_HIGH_WATER_MARK;
    @UriParam(label = "advanced", javaType = "java.time.Duration", defaultValue = "" + DEFAULT_RECONNECT_INTERVAL_MS)
    private Duration reconnectInterval = Duration.ofMillis(DEFAULT_RECONNECT_INTERVAL_MS);
    @UriParam(label = "advanced", javaType = "java.time.Duration", defaultValue = "" + DEFAULT_RECONNECT_INTERVAL_MAX_MS)
    private Duration reconnectIntervalMax = Duration.ofMillis(DEFAULT_RECONNECT_INTERVAL_MAX_MS);
    @UriParam(label = "advanced", javaType = "java.time.Duration", defaultValue = "" + DEFAULT_HANDSHAKE_INTERVAL_MS)
    private Duration handshakeInterval = Duration.ofMillis(DEFAULT_HANDSHAKE_INTERVAL_MS);
    @UriParam(label = "advanced", javaType = "java.time.Duration", defaultValue = "" + DEFAULT_LINGER_MS)
    private Duration linger = Duration.ofMillis(DEFAULT_LINGER_MS);
    @UriParam(label = "consumer", javaType = "java.time.Duration", defaultValue = "" + DEFAULT_RECEIVE_TIMEOUT_MS)
    private Duration receiveTimeout = Duration.ofMillis(DEFAULT_RECEIVE_TIMEOUT_MS);
    @UriParam(label = "consumer", defaultValue = "" + DEFAULT_LAST_FRAME_ONLY)
    private boolean lastFrameOnly = DEFAULT_LAST_FRAME_ONLY;
    @UriParam(label = "consumer")
    private String identity;
    @UriParam(label = "producer", defaultValue = "" + DEFAULT_PRODUCER_QUEUE_SIZE)
    private int producerQueueSize = DEFAULT_PRODUCER_QUEUE_SIZE;

    public String getSocketType() {
        return socketType;
    }

    /**
     * The socket kind: sub or dealer (consumers), pub (producer).
     *
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public void setSocketType(String socketType) {
        this.socketKind = socketType == null ? null : ZeroMqSocketType.parse(socketType);
        this.socketType = socketKind == null ? null : socketKind.uriName();
    }

    /** The {@link #getSocketType() socket type} as the enum the sockets are built from; null until set. */
    public ZeroMqSocketType socketKind() {
        return socketKind;
    }

    public String getAddress() {
        return address;
    }

    /**
     * The ZeroMQ address: tcp://host:port, ipc://path or inproc://name, e.g. tcp://engine-a:5557. A wildcard (an
     * asterisk) as the host binds every interface; as the port, it binds a free port, which
     * ZeroMqConsumer#boundAddress() then reports.
     */
    public void setAddress(String address) {
        this.address = address;
    }

    public String getTopics() {
        return topics;
    }

    /**
     * Comma-separated topic prefixes a SUB socket subscribes to. ZeroMQ matches them as byte prefixes of frame 0; the
     * empty string (default) receives everything. Example: kv followed by the at sign, for llm-d style topics (kv, pod
     * and model joined by at signs).
     */
    public void setTopics(String topics) {
        this.topics = topics == null ? "" : topics;
    }

    /** The topics as a list; a blank {@link #getTopics()} gives one empty prefix (subscribe to everything). */
    public List<String> topicList() {
        List<String> out = new ArrayList<>();
        for (String t : topics.split(",")) {
            if (!t.isBlank()) {
                out.add(t.trim());
            }
        }
        return out.isEmpty() ? List.of("") : out;
    }

    public ZeroMqMode getMode() {
        return mode;
    }

    /**
     * Whether the socket binds or connects: AUTO (vLLM's rule: bind when the address has a wildcard asterisk or an IPv6
     * double colon, or uses ipc:// or inproc://; connect otherwise), BIND or CONNECT.
     */
    public void setMode(ZeroMqMode mode) {
        this.mode = mode;
    }

    public int getHighWaterMark() {
        return highWaterMark;
    }

    /**
     * Messages queued per peer before ZeroMQ drops (PUB, SUB) or blocks (DEALER): the receive HWM of consumers and the
     * send HWM of producers. A PUB silently drops beyond it; the KV-event pipeline detects that as a sequence gap.
     */
    public void setHighWaterMark(int highWaterMark) {
        this.highWaterMark = highWaterMark;
    }

    public Duration getReconnectInterval() {
        return reconnectInterval;
    }

    /**
     * Delay before ZeroMQ re-dials a lost or refused connection (milliseconds or a duration such as {@code 1s}).
     * Reconnection is ZeroMQ's job: a connecting socket keeps retrying forever and resumes transparently once the peer
     * is back, so a consumer can start before its engine does.
     */
    public void setReconnectInterval(Duration reconnectInterval) {
        this.reconnectInterval = reconnectInterval;
    }

    public Duration getReconnectIntervalMax() {
        return reconnectIntervalMax;
    }

    /**
     * Upper bound of the exponential reconnect back-off (milliseconds or a duration); each failed attempt doubles the
     * delay from reconnectInterval up to this cap. 0 disables the back-off (retry every reconnectInterval).
     */
    public void setReconnectIntervalMax(Duration reconnectIntervalMax) {
        this.reconnectIntervalMax = reconnectIntervalMax;
    }

    public Duration getHandshakeInterval() {
        return handshakeInterval;
    }

    /**
     * Longest time a new connection may spend in the ZMTP handshake before ZeroMQ drops it and re-dials (milliseconds
     * or a duration; 0 = no limit). With JeroMQ 0.6.0 a few percent of loopback connections were measured to stall in
     * the handshake (the peer's monitor shows ACCEPTED but never HANDSHAKE_PROTOCOL); this bound turns such a stall into
     * one quick redial.
     */
    public void setHandshakeInterval(Duration handshakeInterval) {
        this.handshakeInterval = handshakeInterval;
    }

    public Duration getLinger() {
        return linger;
    }

    /**
     * How long closing a socket may wait to flush unsent messages (milliseconds or a duration). The default 0 drops
     * them, so a route stops promptly even when the peer is gone.
     */
    public void setLinger(Duration linger) {
        this.linger = linger;
    }

    public Duration getReceiveTimeout() {
        return receiveTimeout;
    }

    /**
     * How long the consumer thread waits for a message before re-checking whether it must stop (milliseconds or a
     * duration). Bounds the time a route stop waits for the thread; it does not delay messages.
     */
    public void setReceiveTimeout(Duration receiveTimeout) {
        this.receiveTimeout = receiveTimeout;
    }

    public boolean isLastFrameOnly() {
        return lastFrameOnly;
    }

    /**
     * When true the exchange body is only the last frame (a byte array) instead of the list of all frames; handy when
     * frame 0 is just a topic and the rest is one payload.
     */
    public void setLastFrameOnly(boolean lastFrameOnly) {
        this.lastFrameOnly = lastFrameOnly;
    }

    public String getIdentity() {
        return identity;
    }

    /**
     * Routing identity of a DEALER socket, so a ROUTER peer can address it by name before it sends anything. Unset:
     * ZeroMQ generates one.
     */
    public void setIdentity(String identity) {
        this.identity = identity;
    }

    public int getProducerQueueSize() {
        return producerQueueSize;
    }

    /**
     * Exchanges a PUB producer accepts before its socket thread has sent them; beyond this the exchange fails
     * immediately with a ZeroMqException instead of blocking the route.
     */
    public void setProducerQueueSize(int producerQueueSize) {
        this.producerQueueSize = producerQueueSize;
    }

    /**
     * Checks values that ZeroMQ would otherwise reject obscurely at start.
     *
     * @throws IllegalArgumentException naming the option and the bad value
     */
    public void validate() {
        if (socketKind == null) {
            throw new IllegalArgumentException("socketType must be set: sub, dealer or pub");
        }
        if (address == null || address.isBlank()) {
            throw new IllegalArgumentException("address must be set, e.g. zeromq:sub:tcp://engine-a:5557");
        }
        if (!address.matches("^(tcp|ipc|inproc)://.+")) {
            throw new IllegalArgumentException("address must start with tcp://, ipc:// or inproc://, was '" + address + "'");
        }
        positive("highWaterMark", highWaterMark, 0);
        positive("reconnectInterval", millis(reconnectInterval), 1);
        positive("reconnectIntervalMax", millis(reconnectIntervalMax), 0);
        positive("handshakeInterval", millis(handshakeInterval), 0);
        positive("linger", millis(linger), 0);
        positive("receiveTimeout", millis(receiveTimeout), 1);
        positive("producerQueueSize", producerQueueSize, 1);
    }

    /** A duration in whole milliseconds, capped to what ZeroMQ's int options hold; -1 for null (rejected). */
    static int millis(Duration d) {
        return d == null ? -1 : (int) Math.min(Integer.MAX_VALUE, d.toMillis());
    }

    private static void positive(String name, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
        }
    }

    /** An independent copy, so endpoints never share mutable configuration. */
    public ZeroMqConfiguration copy() {
        try {
            return (ZeroMqConfiguration) clone();
        } catch (CloneNotSupportedException e) {
            throw new RuntimeCamelException(e);
        }
    }
}
