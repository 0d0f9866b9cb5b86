/**
 * Control-plane steps. Fan-outs follow one pattern in the YAML routes: a {@code plan*} step puts a list of
 * {@link dev.caravan.processors.control.ControlCall}s in the body, the {@code call-workers} route splits it over
 * {@code callWorker} (a Vert.x client; buffered responses are fine here) collecting
 * {@link dev.caravan.processors.control.ControlResult}s,
 * and a {@code summarize*}/{@code merge*}/{@code apply*} step turns them into the answer or into worker state. Timer
 * routes drive the load monitor and policy maintenance.
 */
package dev.caravan.processors.control;
