/**
 * The {@code zeromq:} Camel component on JeroMQ: SUB and DEALER consumers, a PUB producer. Split as Camel components
 * are: {@link dev.caravan.processors.zeromq.ZeroMqComponent} (URI parsing), {@link dev.caravan.processors.zeromq.ZeroMqEndpoint}
 * (factory), {@link dev.caravan.processors.zeromq.ZeroMqConfiguration} (every option, documented once),
 * {@link dev.caravan.processors.zeromq.ZeroMqConsumer}, {@link dev.caravan.processors.zeromq.ZeroMqProducer} and
 * {@link dev.caravan.processors.zeromq.ZeroMqConstants} (headers). See docs/kv-events.md.
 */
package dev.caravan.processors.zeromq;
