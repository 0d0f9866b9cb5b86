package dev.caravan.components.zeromq;

import org.apache.camel.CamelException;

/** A ZeroMQ endpoint could not do what an exchange asked (producer queue full, producer stopped, bad body). */
public class ZeroMqException extends CamelException {

    private static final long serialVersionUID = 1L;

    public ZeroMqException(String message) {
        super(message);
    }
}
