package dev.caravan.components.podwatch;

import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Processor;
import org.apache.camel.support.CamelContextHelper;
import org.apache.camel.support.DefaultConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link PodListWatch} while the route runs and turns what it delivers into exchanges: one per watch event (body:
 * the {@code Pod}) and one per complete list (body: {@code List<Pod>}), with {@link PodWatchConstants#EVENT_TYPE}.
 *
 * <p>Threading: one Camel-managed scheduled thread per consumer does the listing, the watch set-up and runs the route
 * synchronously, so the route sees lists and events strictly in order and never two at once. Processing failures go to
 * the consumer's exception handler and never stop the loop. {@link #doStart} returns at once (an unreachable API server
 * does not fail the route start; the loop keeps retrying with back-off); {@link #doStop} closes the watch, stops the
 * thread and closes the client if the consumer built it.
 *
 * <p>The client is the {@code kubernetesClient} option, else the only {@code KubernetesClient} in the Camel registry,
 * else one built from the environment (in-cluster service account, else kubeconfig) that the consumer closes on stop.
 */
public class PodWatchConsumer extends DefaultConsumer implements PodListWatch.Sink {

    private static final Logger LOG = LoggerFactory.getLogger(PodWatchConsumer.class);

    private final PodWatchConfiguration config;
    private ScheduledExecutorService executor;
    private KubernetesClient ownClient;
    private volatile PodListWatch loop;

    public PodWatchConsumer(PodWatchEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
        this.config = endpoint.getConfiguration();
    }

    @Override
    public PodWatchEndpoint getEndpoint() {
        return (PodWatchEndpoint) super.getEndpoint();
    }

    /** True while the pod watch is open. */
    public boolean isWatching() {
        PodListWatch l = loop;
        return l != null && l.isWatching();
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        KubernetesClient client = config.getKubernetesClient();
        if (client == null) {
            client = CamelContextHelper.findSingleByType(getEndpoint().getCamelContext(), KubernetesClient.class);
        }
        if (client == null) {
            ownClient = new KubernetesClientBuilder().build();
            client = ownClient;
        }
        executor = getEndpoint().getCamelContext().getExecutorServiceManager()
                .newSingleThreadScheduledExecutor(this, "pod-watch-" + config.getName());
        loop = new PodListWatch(client, config.getNamespace(), config.getResyncInterval(), config.getBackoffInitial(),
                config.getBackoffMax(), executor, this, config.getWatchListener());
        loop.start();
        LOG.info("Pod watch '{}' started on {} (API server {}, resync every {})", config.getName(), loop.scope(),
                client.getMasterUrl(), config.getResyncInterval());
    }

    @Override
    protected void doStop() throws Exception {
        PodListWatch l = loop;
        loop = null;
        if (l != null) {
            l.stop();
        }
        if (executor != null) {
            getEndpoint().getCamelContext().getExecutorServiceManager().shutdownGraceful(executor);
            executor = null;
        }
        if (ownClient != null) {
            ownClient.close();
            ownClient = null;
        }
        LOG.info("Pod watch '{}' stopped", config.getName());
        super.doStop();
    }

    @Override
    public void snapshot(List<Pod> pods) {
        dispatch(PodEventType.SNAPSHOT, List.copyOf(pods), null);
    }

    @Override
    public void event(PodEventType type, Pod pod) {
        String name = pod.getMetadata() == null ? null
                : pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
        dispatch(type, pod, name);
    }

    private void dispatch(PodEventType type, Object body, String pod) {
        Exchange exchange = createExchange(false);
        try {
            Message in = exchange.getIn();
            in.setBody(body);
            in.setHeader(PodWatchConstants.EVENT_TYPE, type);
            in.setHeader(PodWatchConstants.NAMESPACE, config.getNamespace());
            if (pod != null) {
                in.setHeader(PodWatchConstants.POD, pod);
            }
            getProcessor().process(exchange);
        } catch (Exception e) {
            exchange.setException(e);
        } finally {
            if (exchange.getException() != null) {
                getExceptionHandler().handleException("Error processing pod " + type + (pod == null ? "" : " " + pod),
                        exchange, exchange.getException());
            }
            releaseExchange(exchange, false);
        }
    }
}
