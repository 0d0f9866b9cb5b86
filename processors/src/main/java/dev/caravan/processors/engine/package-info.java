/**
 * Each engine's own API: the {@link dev.caravan.processors.engine.EngineApiFeature} that wires the engine probes, the
 * engine paths, the rank pin, the cache flush, server and model info (steps of the control and routing packages) and
 * the Responses API's return to the engine that stored a response (steps of the responses package). A package of its
 * own because the responses steps build on the control package's calls.
 */
package dev.caravan.processors.engine;
