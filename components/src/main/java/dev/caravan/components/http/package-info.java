/**
 * The {@code caravan-http:} component, the gateway's ingress HTTP layer on camel-platform-http-vertx: the gateway's
 * own server ({@code GatewayHttpServer}, which fails fast when it cannot bind) and the component's engine, whose
 * consumer runs routes through Camel's asynchronous routing engine (so a streaming request holds no thread); the
 * response writer; the request's one on-completion hook ({@code RequestCompletion}); and JSON bodies for the errors the
 * HTTP layer answers itself ({@code HttpError}: 404, 405, 413, and 431/414/400 from the HTTP decoder).
 *
 * <p>It knows nothing of the gateway's features: what the gateway adds comes in through hooks — the listener's options
 * (TLS), the {@code RequestObserver} (metrics), the {@code RequestMessageFactory} (the request message, which the
 * Camel tuning replaces) — and the exchange properties it shares with the steps are names
 * ({@code HttpExchangeProperties}).
 */
package dev.caravan.components.http;
