/**
 * Route steps that turn an HTTP request into what the routing core needs: {@code parseRequest} (content type, JSON,
 * field types, request id) and {@code extractRoutingText} (the text a prefix-aware policy routes by, per API kind).
 */
package dev.caravan.processors.request;
