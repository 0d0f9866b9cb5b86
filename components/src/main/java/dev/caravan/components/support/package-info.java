/**
 * Helpers shared by Caravan's Camel components; no component logic lives here.
 */
package dev.caravan.components.support;
