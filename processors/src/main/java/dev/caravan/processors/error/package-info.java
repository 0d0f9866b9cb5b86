/**
 * The gateway's error model: {@link dev.caravan.processors.error.GatewayError} (status + SGLang-style code),
 * {@link dev.caravan.processors.error.GatewayException} thrown by steps, the JSON body
 * ({@link dev.caravan.components.http.ErrorBody}) and the {@code mapError} step the routes' {@code onException} calls.
 */
package dev.caravan.processors.error;
