/**
 * Limits an operator puts on what a request may ask of the engines: {@code --max-output-tokens}, checked by the
 * {@code checkOutputTokens} step of the inference route.
 */
package dev.caravan.processors.limits;
