/**
 * Prompt text shared, byte for byte, by the gateway and the engine simulator: the chat template that turns a
 * conversation into one prompt string, and the deterministic pseudo-tokenizer. Because both sides use these exact
 * classes, the gateway's routing text and block hashes agree with what a simulated engine caches.
 */
package dev.caravan.policies.text;
