package dev.caravan.sync;

import java.util.Map;
import java.util.function.Supplier;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import com.hazelcast.map.IMap;

/**
 * Route step {@code publishSyncResponses} (sync-publish-responses): the drained batch of response ids into
 * {@code IMap caravan.responses} in one {@code putAll} (camel-hazelcast's map producer has no batch operation). On the
 * route's timer thread, never a request's; a failure reaches the route's {@code doCatch}.
 */
final class PublishSyncResponsesProcessor implements Processor {

    private final Supplier<IMap<String, String>> map;

    PublishSyncResponsesProcessor(Supplier<IMap<String, String>> map) {
        this.map = map;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void process(Exchange exchange) throws Exception {
        map.get().putAll(exchange.getIn().getMandatoryBody(Map.class));
    }
}
