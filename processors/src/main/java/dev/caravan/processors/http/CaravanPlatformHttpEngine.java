package dev.caravan.processors.http;

import org.apache.camel.Processor;
import org.apache.camel.component.platform.http.PlatformHttpEndpoint;
import org.apache.camel.component.platform.http.spi.PlatformHttpConsumer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpEngine;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;

/**
 * The platform-http engine of the gateway: Camel's Vert.x engine with {@link CaravanPlatformHttpConsumer}, which runs
 * routes through the asynchronous routing engine so a streaming request holds no thread while it waits on the upstream.
 *
 * <p>Bound in the registry as {@code platform-http-engine} before the platform-http component starts (the component
 * looks that name up first), so plain {@code platform-http:/path} URIs in the YAML routes use it.
 */
public class CaravanPlatformHttpEngine extends VertxPlatformHttpEngine {

    /** The registry name the platform-http component looks the engine up by. */
    public static final String BEAN_NAME = "platform-http-engine";

    private final RequestObserver observer;
    private final boolean dispatchOnEventLoop;

    /**
     * @param observer            told about every answered request (metrics)
     * @param dispatchOnEventLoop run routes directly on the connection's event loop instead of starting them on a
     *                            Vert.x worker thread (see {@link CaravanPlatformHttpConsumer})
     */
    public CaravanPlatformHttpEngine(RequestObserver observer, boolean dispatchOnEventLoop) {
        this.observer = observer;
        this.dispatchOnEventLoop = dispatchOnEventLoop;
    }

    @Override
    public PlatformHttpConsumer createConsumer(PlatformHttpEndpoint endpoint, Processor processor) {
        return new CaravanPlatformHttpConsumer(endpoint, processor, getHandlers(),
                VertxPlatformHttpRouter.getRouterNameFromPort(getServerPort()), observer, dispatchOnEventLoop);
    }
}
