package dev.caravan.components.zeromq;

import java.nio.charset.StandardCharsets;

import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Opens a socket exactly as a {@link ZeroMqConfiguration} describes. Called only on the thread that will use the socket:
 * ZeroMQ sockets are not thread-safe and must live and die on one thread.
 */
final class ZeroMqSockets {

    private ZeroMqSockets() {
    }

    /**
     * Creates, configures and binds-or-connects a socket in {@code context}.
     *
     * @return the open socket; its {@link ZMQ.Socket#getLastEndpoint()} is the address actually bound (with the real
     *         port when the configuration asked for {@code *})
     */
    static ZMQ.Socket open(ZContext context, ZeroMqConfiguration config) {
        ZeroMqSocketType type = config.socketKind();
        ZMQ.Socket socket = context.createSocket(type.zmqType());
        socket.setLinger(ZeroMqConfiguration.millis(config.getLinger()));
        socket.setReconnectIVL(ZeroMqConfiguration.millis(config.getReconnectInterval()));
        socket.setReconnectIVLMax(ZeroMqConfiguration.millis(config.getReconnectIntervalMax()));
        socket.setHandshakeIvl(ZeroMqConfiguration.millis(config.getHandshakeInterval()));
        if (type.isConsumer()) {
            socket.setRcvHWM(config.getHighWaterMark());
            socket.setReceiveTimeOut(ZeroMqConfiguration.millis(config.getReceiveTimeout()));
        } else {
            socket.setSndHWM(config.getHighWaterMark());
        }
        if (type == ZeroMqSocketType.DEALER && config.getIdentity() != null && !config.getIdentity().isEmpty()) {
            socket.setIdentity(config.getIdentity().getBytes(StandardCharsets.UTF_8));
        }
        String address = config.getAddress();
        if (config.getMode().binds(address)) {
            socket.bind(address);
        } else {
            socket.connect(address);
        }
        // Subscribing after bind/connect is fine: ZeroMQ forwards subscriptions whenever a peer (re)connects.
        if (type == ZeroMqSocketType.SUB) {
            for (String topic : config.topicList()) {
                socket.subscribe(topic.getBytes(StandardCharsets.UTF_8));
            }
        }
        return socket;
    }
}
