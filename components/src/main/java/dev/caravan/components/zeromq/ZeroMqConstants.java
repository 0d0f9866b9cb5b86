package dev.caravan.components.zeromq;

import org.apache.camel.spi.Metadata;

/** Header names the {@code zeromq:} component sets on consumed exchanges and reads on produced ones. */
public final class ZeroMqConstants {

    @Metadata(label = "consumer,producer", description = "The topic: frame 0 of a message received on a SUB socket, "
            + "decoded as UTF-8. On a PUB producer whose body is a single payload (not a list of frames), this header, "
            + "when present, is sent as frame 0 before the payload.", javaType = "String")
    public static final String TOPIC = "CaravanZeroMqTopic";

    @Metadata(label = "consumer", description = "Number of frames in the received message.", javaType = "int")
    public static final String FRAME_COUNT = "CaravanZeroMqFrameCount";

    @Metadata(label = "consumer", description = "The address of the endpoint that received the message, as written in "
            + "the endpoint URI (e.g. tcp://engine-a:5557).", javaType = "String")
    public static final String ADDRESS = "CaravanZeroMqAddress";

    private ZeroMqConstants() {
    }
}
