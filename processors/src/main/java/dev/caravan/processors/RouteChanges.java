package dev.caravan.processors;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.Callable;

import org.apache.camel.CamelContext;

/**
 * Serialises the route changes Caravan's per-worker route managers make at run time on one Camel context. Each manager
 * (control routes, KV-event routes) changes routes on its own thread, and Camel's model does not take two template
 * instantiations at once: adding a KV-event route while the control route of the same worker was being added failed
 * with a {@code ConcurrentModificationException}, and that worker's KV events were never consumed.
 */
public final class RouteChanges {

    private static final Map<CamelContext, Object> LOCKS = Collections.synchronizedMap(new WeakHashMap<>());

    private RouteChanges() {
    }

    /** Runs {@code change} (a route added from a template, a route removed) while no other such change runs. */
    public static <T> T run(CamelContext camel, Callable<T> change) throws Exception {
        Object lock = LOCKS.computeIfAbsent(camel, c -> new Object());
        synchronized (lock) {
            return change.call();
        }
    }
}
