/**
 * The ingress HTTP layer on camel-platform-http-vertx: the gateway's own server ({@code GatewayHttpServer}, which fails
 * fast when it cannot bind) and the {@code caravan-http:} component's engine, whose consumer runs routes through Camel's
 * asynchronous routing engine (so a streaming request holds no thread); the response writer; and JSON bodies for the
 * errors Vert.x answers itself (404, 405, 413, and 431/414/400 from the HTTP decoder).
 */
package dev.caravan.processors.http;
