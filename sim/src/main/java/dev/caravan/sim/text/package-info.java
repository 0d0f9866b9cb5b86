/**
 * How a simulated engine turns request text into token ids: its tokenizer ({@link dev.caravan.sim.text.EngineTokenizer}:
 * the fast {@link dev.caravan.sim.text.SyntheticTokenizer} by default, or a model's real {@code tokenizer.json} through
 * DJL) and, for chat requests, its chat template (the simulator's {@link dev.caravan.sim.text.DefaultChatTemplate}, or
 * the model's Jinja {@code chat_template} rendered as Hugging Face's {@code apply_chat_template} does). None of it is
 * shared with the gateway: where both must agree, they load the same model files.
 */
package dev.caravan.sim.text;
