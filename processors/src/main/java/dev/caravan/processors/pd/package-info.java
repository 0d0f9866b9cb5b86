/**
 * Prefill/decode disaggregation: the steps of the P/D routes ({@code routes/pd.camel.yaml}, docs/pd.md). A request
 * takes a prefill and a decode worker ({@link dev.caravan.processors.pd.SelectPairProcessor}), both get the same body
 * with a bootstrap rendezvous ({@link dev.caravan.processors.pd.BootstrapInjector}), a Camel multicast sends both legs
 * at once, {@link dev.caravan.processors.pd.PdAggregationStrategy} decides which answer the client gets and cancels the
 * other leg when one fails, and {@link dev.caravan.processors.pd.RelayDecodeProcessor} streams the decode response to
 * the client, splicing prefill's prompt logprobs in when asked.
 */
package dev.caravan.processors.pd;
