/**
 * Multi-tenant flow control (docs/configuration.md, "Tenants and flow control"): who a request is for (the tenants
 * file, {@code --tenants-file}, reloaded while running), per-tenant rate limits on requests and tokens per minute, and
 * per-tenant meters. Priority and fair queuing live in the admission queue ({@code admission.FairQueue}), inside the
 * global limits.
 */
package dev.caravan.processors.flow;
