package dev.caravan.components.http;

import org.apache.camel.Processor;
import org.apache.camel.component.platform.http.PlatformHttpComponent;
import org.apache.camel.component.platform.http.PlatformHttpEndpoint;
import org.apache.camel.component.platform.http.spi.PlatformHttpConsumer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpEngine;

/**
 * The platform-http engine of the gateway's own component, {@code caravan-http:} ({@link #newComponent()}): Camel's
 * Vert.x engine with {@link CaravanPlatformHttpConsumer}, which runs routes through the asynchronous routing engine so a
 * streaming request holds no thread while it waits on the upstream, and adds them to the router of the gateway's own
 * {@link GatewayHttpServer} — never to a platform-http server of the host application.
 *
 * <p>The gateway's routes use {@code caravan-http:/path} instead of {@code platform-http:/path} because one Camel
 * platform-http component serves one engine and one server: a second component instance under its own name is how
 * Camel 4.18 keeps two servers apart. The host's {@code platform-http:} routes keep Camel's own engine, their own
 * server, worker-thread dispatch and error pages, and are not counted in the gateway's metrics.
 */
public class CaravanPlatformHttpEngine extends VertxPlatformHttpEngine {

    /** The scheme of the gateway's routes. */
    public static final String COMPONENT_NAME = "caravan-http";

    private final GatewayHttpServer server;
    private final RequestObserver observer;
    private final boolean dispatchOnEventLoop;
    private final RequestMessageFactory messages;

    /**
     * @param server              the gateway's server, whose router the consumers add their routes to
     * @param observer            told about every answered request (metrics)
     * @param dispatchOnEventLoop run routes directly on the connection's event loop instead of starting them on a
     *                            Vert.x worker thread (see {@link CaravanPlatformHttpConsumer})
     */
    public CaravanPlatformHttpEngine(GatewayHttpServer server, RequestObserver observer, boolean dispatchOnEventLoop) {
        this(server, observer, dispatchOnEventLoop, RequestMessageFactory.CAMEL);
    }

    /**
     * @param messages makes each request's Camel message ({@link RequestMessageFactory#CAMEL}: platform-http's own)
     */
    public CaravanPlatformHttpEngine(GatewayHttpServer server, RequestObserver observer, boolean dispatchOnEventLoop,
                                     RequestMessageFactory messages) {
        this.server = server;
        this.observer = observer;
        this.dispatchOnEventLoop = dispatchOnEventLoop;
        this.messages = messages;
    }

    /**
     * A platform-http component on this engine, to bind as {@link #COMPONENT_NAME} (or, in an application that has no
     * platform-http routes of its own, also as {@code platform-http}).
     */
    public PlatformHttpComponent newComponent() {
        PlatformHttpComponent component = new PlatformHttpComponent();
        component.setEngine(this);
        return component;
    }

    /**
     * Deliberately not Camel's: its {@code doInit} binds the engine as the registry's {@code platform-http-engine}, the
     * name the host's own platform-http component looks up first — which would move the host's routes onto the gateway.
     */
    @Override
    protected void doInit() {
        // nothing to register
    }

    @Override
    public PlatformHttpConsumer createConsumer(PlatformHttpEndpoint endpoint, Processor processor) {
        return new CaravanPlatformHttpConsumer(endpoint, processor, getHandlers(), GatewayHttpServer.ROUTER_NAME,
                observer, dispatchOnEventLoop, messages);
    }

    @Override
    public int getServerPort() {
        return server.port();
    }
}
