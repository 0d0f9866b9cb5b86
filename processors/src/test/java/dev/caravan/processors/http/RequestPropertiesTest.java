package dev.caravan.processors.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

class RequestPropertiesTest {

    private final CamelContext context = new DefaultCamelContext();

    @Test
    void aNewExchangeTakesTheGivenMapAsItsPropertyMap() {
        Exchange exchange = new DefaultExchange(context);
        Map<String, Object> map = new ConcurrentHashMap<>(RequestProperties.EXPECTED);

        assertThat(RequestProperties.available()).isTrue();
        assertThat(RequestProperties.install(exchange, map)).isTrue();
        exchange.setProperty("caravanModel", "m");

        assertThat(exchange.getProperties()).isSameAs(map).containsExactly(Map.entry("caravanModel", "m"));
        assertThat(exchange.getProperty("caravanModel")).isEqualTo("m");
    }

    @Test
    void anExchangeThatAlreadyHasPropertiesKeepsItsMap() {
        Exchange exchange = new DefaultExchange(context);
        exchange.setProperty("caravanModel", "m");
        Map<String, Object> before = exchange.getProperties();

        RequestProperties.presize(exchange);

        assertThat(RequestProperties.install(exchange, new ConcurrentHashMap<>())).isFalse();
        assertThat(exchange.getProperties()).isSameAs(before).containsExactly(Map.entry("caravanModel", "m"));
    }

    @Test
    void aPresizedExchangeCopiesWithItsProperties() {
        Exchange exchange = new DefaultExchange(context);
        RequestProperties.presize(exchange);
        for (int i = 0; i < 40; i++) {
            exchange.setProperty("p" + i, i);
        }

        Exchange copy = exchange.copy();

        assertThat(copy.getProperties()).hasSize(40).containsEntry("p39", 39).isNotSameAs(exchange.getProperties());
    }
}
