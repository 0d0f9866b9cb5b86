package dev.caravan.sync;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.hazelcast.HazelcastConstants;

/**
 * Route step {@code reportTenantUsage} (sync-publish-tenant-usage): this replica's per-tenant running totals as the
 * body, keyed by its member id ({@code CamelHazelcastObjectId}), when they changed; otherwise the route stops.
 */
final class ReportTenantUsageProcessor implements Processor {

    private final SyncNode node;
    private final PeerTenantUsage usage;

    ReportTenantUsageProcessor(SyncNode node, PeerTenantUsage usage) {
        this.node = node;
        this.usage = usage;
    }

    @Override
    public void process(Exchange exchange) {
        byte[] report = usage.report();
        if (report == null) {
            exchange.setRouteStop(true);
            return;
        }
        exchange.getIn().setHeader(HazelcastConstants.OBJECT_ID, node.origin().toString());
        exchange.getIn().setBody(report);
    }
}
