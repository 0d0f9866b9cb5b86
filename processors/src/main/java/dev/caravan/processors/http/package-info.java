/**
 * The ingress HTTP layer on camel-platform-http-vertx: an engine whose consumer runs routes through Camel's asynchronous
 * routing engine (so a streaming request holds no thread), the response writer, and JSON bodies for the errors Vert.x
 * Web answers itself (404, 405, 413).
 */
package dev.caravan.processors.http;
