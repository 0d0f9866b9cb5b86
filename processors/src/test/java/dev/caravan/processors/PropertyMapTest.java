package dev.caravan.processors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

class PropertyMapTest {

    private final PropertyMap map = new PropertyMap();

    @Test
    void aStepsPropertyAndAnyOtherNameAreKeptAndReadByNameAlike() {
        map.put("caravanModel", "m");
        map.put("myOwnProperty", 7);

        assertThat(map).containsOnly(Map.entry("caravanModel", "m"), Map.entry("myOwnProperty", 7));
        assertThat(map.get("caravanModel")).isEqualTo("m");
        assertThat(map.get("myOwnProperty")).isEqualTo(7);
        assertThat(map.containsKey("caravanModel")).isTrue();
        assertThat(map.containsKey("absent")).isFalse();
    }

    @Test
    void putAndRemoveAnswerThePreviousValueAsAnyMapDoes() {
        assertThat(map.put("caravanModel", "a")).isNull();
        assertThat(map.put("caravanModel", "b")).isEqualTo("a");
        assertThat(map.put("other", "x")).isNull();

        assertThat(map.remove("caravanModel")).isEqualTo("b");
        assertThat(map.remove("other")).isEqualTo("x");
        assertThat(map.remove("other")).isNull();
        assertThat(map).isEmpty();
    }

    @Test
    void nullKeysAndValuesAreRefusedAsByConcurrentHashMap() {
        assertThatThrownBy(() -> map.put("caravanModel", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> map.put(null, "x")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> map.get(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void removingThroughTheIteratorAndClearingEmptyTheMap() {
        map.put("caravanModel", "m");
        map.put("other", "x");
        for (Iterator<Map.Entry<String, Object>> it = map.entrySet().iterator(); it.hasNext(); ) {
            if (it.next().getKey().equals("other")) {
                it.remove();
            }
        }
        assertThat(map).containsOnlyKeys("caravanModel");

        map.clear();
        assertThat(map).isEmpty();
        assertThat(map.size()).isZero();
    }

    @Test
    void aMapCopiesIntoAndFromAConcurrentHashMapUnchanged() {
        Map<String, Object> source = new ConcurrentHashMap<>(Map.of("caravanModel", "m", "a", 1, "b", 2));

        map.putAll(source);

        assertThat(new ConcurrentHashMap<>(map)).isEqualTo(source);
        assertThat(map).isEqualTo(source).hasSize(3);
    }
}
