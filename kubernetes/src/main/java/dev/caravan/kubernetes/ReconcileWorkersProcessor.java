package dev.caravan.kubernetes;

import java.util.List;

import io.fabric8.kubernetes.api.model.Pod;
import org.apache.camel.Exchange;
import org.apache.camel.InvalidPayloadException;
import org.apache.camel.Processor;

import dev.caravan.components.podwatch.PodEventType;
import dev.caravan.components.podwatch.PodWatchConstants;

/**
 * Discovery step {@code reconcileWorkers}: applies one {@code pod-watch:} exchange to the worker registry through the
 * {@link WorkerReconciler} — a watch event (body {@code Pod}) or a complete list (body {@code List<Pod>},
 * {@link PodEventType#SNAPSHOT}). Leaves the exchange unchanged.
 *
 * @throws IllegalArgumentException when the exchange carries no {@link PodWatchConstants#EVENT_TYPE} header
 */
public final class ReconcileWorkersProcessor implements Processor {

    private final WorkerReconciler reconciler;

    public ReconcileWorkersProcessor(WorkerReconciler reconciler) {
        this.reconciler = reconciler;
    }

    @Override
    public void process(Exchange exchange) throws InvalidPayloadException {
        PodEventType type = exchange.getIn().getHeader(PodWatchConstants.EVENT_TYPE, PodEventType.class);
        if (type == null) {
            throw new IllegalArgumentException("reconcileWorkers needs header " + PodWatchConstants.EVENT_TYPE
                    + " (ADDED, MODIFIED, DELETED or SNAPSHOT); route it from a pod-watch: endpoint");
        }
        if (type == PodEventType.SNAPSHOT) {
            @SuppressWarnings("unchecked")
            List<Pod> pods = exchange.getIn().getMandatoryBody(List.class);
            reconciler.resync(pods);
        } else {
            reconciler.apply(type, exchange.getIn().getMandatoryBody(Pod.class));
        }
    }
}
