package dev.caravan.sync;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.hazelcast.HazelcastConstants;

/**
 * Route step {@code reportSyncLoads} (sync-publish-loads): this replica's in-flight counts per worker as the body, keyed
 * by its member id ({@code CamelHazelcastObjectId}), when they changed or a second passed; otherwise the route stops.
 */
final class ReportSyncLoadsProcessor implements Processor {

    private final SyncNode node;

    ReportSyncLoadsProcessor(SyncNode node) {
        this.node = node;
    }

    @Override
    public void process(Exchange exchange) {
        byte[] report = node.loadReport();
        if (report == null) {
            exchange.setRouteStop(true);
            return;
        }
        exchange.getIn().setHeader(HazelcastConstants.OBJECT_ID, node.origin().toString());
        exchange.getIn().setBody(report);
    }
}
