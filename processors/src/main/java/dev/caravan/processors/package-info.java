/**
 * Caravan's Camel processors: small route steps, one verb each, that translate between the exchange and the routing
 * core. Steps communicate only through the exchange properties named in
 * {@link dev.caravan.processors.CaravanExchangeProperties}; their order lives in the YAML routes of the {@code routes}
 * module. Sub-packages: {@code http} (the async platform-http consumer), {@code request}, {@code routing},
 * {@code forward} (true streaming), {@code admin}, {@code control}, {@code metrics}, {@code error}, {@code config}.
 */
package dev.caravan.processors;
