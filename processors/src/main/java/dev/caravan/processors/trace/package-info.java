/**
 * OpenTelemetry tracing of inference requests ({@code --enable-trace}): the request span ({@code traceRequest}), the
 * child spans of wrapped steps ({@code TracedProcessor}), W3C {@code traceparent} sent to the engines.
 */
package dev.caravan.processors.trace;
