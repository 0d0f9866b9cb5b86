package dev.caravan.processors.pd;

import static dev.caravan.processors.CaravanExchangeProperties.PD_DECODE_BODY;
import static dev.caravan.processors.CaravanExchangeProperties.PD_LOGPROBS;
import static dev.caravan.processors.CaravanExchangeProperties.PD_PREFILL_BODY;
import static dev.caravan.processors.CaravanExchangeProperties.PD_ROOMS;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;

import java.util.Map;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.buffer.Buffer;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.request.RequestKind;

/**
 * P/D route step {@code injectBootstrap} (SGLang mode): builds the one body both legs receive — the client's JSON plus
 * the rendezvous fields of {@link BootstrapInjector} for the selected prefill worker, with a fresh room per sequence on
 * every attempt (a retry never reuses a room).
 *
 * <p>Reads {@code REQUEST_KIND}, {@code REQUEST_JSON}, {@code PdPair.PROPERTY}. Writes {@code PD_PREFILL_BODY} and
 * {@code PD_DECODE_BODY} (the same bytes), {@code PD_ROOMS}, {@code PD_LOGPROBS}.
 */
public final class InjectBootstrapProcessor implements Processor {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Supplier<RandomGenerator> random;

    /** @param random source of rooms, per call ({@code ThreadLocalRandom::current}; a seeded one in tests) */
    public InjectBootstrapProcessor(Supplier<RandomGenerator> random) {
        this.random = random;
    }

    @Override
    public void process(Exchange exchange) throws JsonProcessingException {
        RequestKind kind = RequestKind.parse(REQUEST_KIND.get(exchange));
        Map<String, Object> json = REQUEST_JSON.get(exchange);
        PdPair pair = PdPair.PROPERTY.get(exchange);
        if (json == null || pair == null) {
            throw new IllegalStateException("injectBootstrap needs parseRequest and selectPdPair before it");
        }
        BootstrapInjector.Injected injected = BootstrapInjector.inject(kind, json, pair.prefill().worker(),
                random.get());
        byte[] body = MAPPER.writeValueAsBytes(injected.body());
        // one Buffer per leg: each is written to its own connection
        PD_PREFILL_BODY.set(exchange, Buffer.buffer(body));
        PD_DECODE_BODY.set(exchange, Buffer.buffer(body));
        PD_ROOMS.set(exchange, injected.rooms());
        PD_LOGPROBS.set(exchange, BootstrapInjector.logprobsRequested(kind, json));
    }
}
