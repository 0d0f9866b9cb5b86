/**
 * The Responses API's affinity: a response lives in the memory of the engine that produced it, so a request continuing
 * it ({@code previous_response_id}) goes back to that engine ({@code ResponseAffinity},
 * {@code recallPreviousResponse}).
 */
package dev.caravan.processors.responses;
