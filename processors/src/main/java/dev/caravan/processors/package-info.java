/**
 * Caravan's Camel processors: small route steps, one verb each, that translate between the exchange and the routing
 * core. Steps communicate only through typed exchange properties ({@link dev.caravan.processors.ExchangeProperty},
 * listed in {@link dev.caravan.processors.CaravanExchangeProperties}); their order lives in the YAML routes of the
 * {@code gateway} module. Sub-packages: {@code http} (the async platform-http consumer), {@code request}, {@code routing},
 * {@code forward} (true streaming), {@code admin}, {@code control}, {@code metrics}, {@code error}, {@code config}.
 */
package dev.caravan.processors;
