/**
 * The {@code forwardStream} step: a non-blocking Vert.x HTTP client on the ingress server's Vert.x instance pipes each
 * upstream response to the client as it arrives (with back-pressure), propagates client disconnects upstream, and reads
 * the engines' token counts on the way past.
 */
package dev.caravan.processors.forward;
