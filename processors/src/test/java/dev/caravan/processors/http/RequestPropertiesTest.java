package dev.caravan.processors.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.CaravanExchangeProperties;
import dev.caravan.processors.ExchangeProperty;
import dev.caravan.processors.PropertyMap;

class RequestPropertiesTest {

    private static final ExchangeProperty<String> MODEL = CaravanExchangeProperties.MODEL;

    private final CamelContext context = new DefaultCamelContext();

    @Test
    void aNewExchangeTakesTheGivenMapAsItsPropertyMap() {
        Exchange exchange = new DefaultExchange(context);
        Map<String, Object> map = new PropertyMap();

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

        RequestProperties.installPropertyMap(exchange);

        assertThat(RequestProperties.install(exchange, new ConcurrentHashMap<>())).isFalse();
        assertThat(exchange.getProperties()).isSameAs(before).containsExactly(Map.entry("caravanModel", "m"));
    }

    @Test
    void aRequestExchangeGetsASlotMap() {
        Exchange exchange = new DefaultExchange(context);

        RequestProperties.installPropertyMap(exchange);

        assertThat(exchange.getProperties()).isInstanceOf(PropertyMap.class).isEmpty();
    }

    @Test
    void aRequestExchangeCopiesWithItsProperties() {
        Exchange exchange = new DefaultExchange(context);
        RequestProperties.installPropertyMap(exchange);
        for (int i = 0; i < 40; i++) {
            exchange.setProperty("p" + i, i);
        }

        Exchange copy = exchange.copy();

        assertThat(copy.getProperties()).hasSize(40).containsEntry("p39", 39).isNotSameAs(exchange.getProperties());
    }

    @Test
    void aTypedPropertyAndCamelsByNameAccessSeeTheSameValue() {
        Exchange exchange = exchangeWithSlots();

        MODEL.set(exchange, "typed");
        assertThat(exchange.getProperty("caravanModel")).isEqualTo("typed");

        exchange.setProperty("caravanModel", "by name");
        assertThat(MODEL.get(exchange)).isEqualTo("by name");

        MODEL.remove(exchange);
        assertThat(exchange.getProperties()).doesNotContainKey("caravanModel");
    }

    @Test
    void aCopyOfTheExchangeHasEveryPropertyInAMapOfItsOwn() {
        Exchange exchange = exchangeWithSlots();
        MODEL.set(exchange, "m");
        exchange.setProperty("myOwnProperty", 1);

        Exchange copy = exchange.copy();
        MODEL.set(copy, "changed in the copy");

        assertThat(copy.getProperties()).containsEntry("myOwnProperty", 1).isNotSameAs(exchange.getProperties());
        assertThat(MODEL.get(exchange)).isEqualTo("m");
        assertThat(MODEL.get(copy)).isEqualTo("changed in the copy");
    }

    private Exchange exchangeWithSlots() {
        Exchange exchange = new DefaultExchange(context);
        RequestProperties.installPropertyMap(exchange);
        return exchange;
    }
}
