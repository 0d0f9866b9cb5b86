/**
 * The {@code zeromq:} Camel component on JeroMQ: SUB and DEALER consumers, a PUB producer. Split as Camel components
 * are: {@link dev.caravan.components.zeromq.ZeroMqComponent} (URI parsing), {@link dev.caravan.components.zeromq.ZeroMqEndpoint}
 * (factory), {@link dev.caravan.components.zeromq.ZeroMqConfiguration} (every option, documented once),
 * {@link dev.caravan.components.zeromq.ZeroMqConsumer}, {@link dev.caravan.components.zeromq.ZeroMqProducer} and
 * {@link dev.caravan.components.zeromq.ZeroMqConstants} (headers). See docs/kv-events.md.
 */
package dev.caravan.components.zeromq;
