package dev.caravan.sim.http;

import dev.caravan.sim.pd.Rendezvous;

/**
 * One sequence an HTTP request asks for (a batch request or {@code n > 1} has several).
 *
 * @param index       position in the response ({@code choices[].index}, batch order)
 * @param prompt      prompt token ids
 * @param maxTokens   tokens to generate
 * @param rendezvous  where to wait for the prompt's KV before decoding warm (decode side of P/D), or null
 * @param room        bootstrap room this sequence's prefill fills (prefill side of P/D), or null
 */
public record Job(int index, int[] prompt, int maxTokens, Rendezvous rendezvous, String room) {
}
