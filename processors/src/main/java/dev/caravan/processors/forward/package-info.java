/**
 * The {@code forwardStream} step: a non-blocking Vert.x HTTP client on the ingress server's Vert.x instance pipes each
 * upstream response to the client as it arrives (with back-pressure), propagates client disconnects upstream, and reads
 * the engines' token counts on the way past. {@link dev.caravan.processors.forward.RelayCore} is the relay state machine
 * (limits, client close, failures, finishing once) that this step's {@code StreamRelay} and the P/D decode relay share.
 */
package dev.caravan.processors.forward;
