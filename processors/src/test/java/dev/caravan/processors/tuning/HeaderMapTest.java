package dev.caravan.processors.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

class HeaderMapTest {

    private final HeaderMap map = new HeaderMap();

    @Test
    void looksNamesUpIgnoringCaseAndKeepsTheFirstSpelling() {
        map.put("Content-Type", "application/json");
        assertThat(map.put("content-TYPE", "text/plain")).isEqualTo("application/json");

        assertThat(map).hasSize(1);
        assertThat(map.get("CONTENT-TYPE")).isEqualTo("text/plain");
        assertThat(map.containsKey("content-type")).isTrue();
        assertThat(map.keySet()).containsExactly("Content-Type");
    }

    @Test
    void iteratesInTheOrderNamesWereFirstPut() {
        map.put("X-B", 1);
        map.put("x-a", 2);
        map.put("CamelHttpPath", "/v1/completions");
        map.put("X-b", 3);

        assertThat(new ArrayList<>(map.keySet())).containsExactly("X-B", "x-a", "CamelHttpPath");
        assertThat(new ArrayList<>(map.values())).containsExactly(3, 2, "/v1/completions");
    }

    @Test
    void keepsNullValuesAndRefusesNullNames() {
        map.put("X-Empty", null);

        assertThat(map.containsKey("x-empty")).isTrue();
        assertThat(map.get("x-empty")).isNull();
        assertThatThrownBy(() -> map.put(null, "v")).isInstanceOf(NullPointerException.class);
        assertThat(map.get(null)).isNull();
        assertThat(map.get(42)).isNull();
    }

    @Test
    void removingANameKeepsTheOthersFoundAndInOrder() {
        for (int i = 0; i < 10; i++) {
            map.put("H" + i, i);
        }
        assertThat(map.remove("h3")).isEqualTo(3);
        assertThat(map.remove("h3")).isNull();

        assertThat(map).hasSize(9);
        for (int i = 0; i < 10; i++) {
            assertThat(map.get("h" + i)).isEqualTo(i == 3 ? null : i);
        }
        assertThat(map.keySet()).containsExactly("H0", "H1", "H2", "H4", "H5", "H6", "H7", "H8", "H9");
    }

    @Test
    void holdsMoreHeadersThanItsFirstTableAndClearsToEmpty() {
        for (int i = 0; i < 200; i++) {
            map.put("Header-" + i, i);
        }
        assertThat(map).hasSize(200);
        assertThat(map.get("HEADER-199")).isEqualTo(199);
        assertThat(map.get("header-0")).isEqualTo(0);

        map.clear();
        assertThat(map).isEmpty();
        assertThat(map.get("header-0")).isNull();
        map.put("After", "clear");
        assertThat(map).containsExactly(Map.entry("After", "clear"));
    }

    @Test
    void anIteratorRemovesAndAnEntrySetsThroughToTheMap() {
        map.put("A", 1);
        map.put("B", 2);
        map.put("C", 3);
        Iterator<Map.Entry<String, Object>> it = map.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Object> e = it.next();
            if (e.getKey().equals("B")) {
                it.remove();
            } else {
                e.setValue(((Integer) e.getValue()) * 10);
            }
        }

        assertThat(map).containsExactly(Map.entry("A", 10), Map.entry("C", 30));
        assertThat(map.get("c")).isEqualTo(30);
    }

    @Test
    void namesEqualIgnoringCaseHashAlikeForEveryCharacter() {
        for (char c = 0; c < Character.MAX_VALUE; c++) {
            String s = String.valueOf(c);
            for (char other : new char[] {Character.toUpperCase(c), Character.toLowerCase(c),
                    Character.toTitleCase(c)}) {
                String t = String.valueOf(other);
                if (s.equalsIgnoreCase(t)) {
                    assertThat(HeaderMap.hash(t)).as("U+%04X and U+%04X", (int) c, (int) other)
                            .isEqualTo(HeaderMap.hash(s));
                }
            }
        }
        assertThat(HeaderMap.hash("\u0130d")).isEqualTo(HeaderMap.hash("\u0069d")); // 'İ' folds to 'i' as equalsIgnoreCase does
    }

    @Test
    void answersAsCamelsCaseInsensitiveTreeMapDoesOverRandomOperations() {
        TreeMap<String, Object> camel = new TreeMap<>(String.CASE_INSENSITIVE_ORDER); // what Camel's map is
        SplittableRandom random = new SplittableRandom(18);
        List<String> names = List.of("Content-Type", "content-type", "CONTENT-TYPE", "X-Request-Id", "x-request-id",
                "Authorization", "CamelHttpPath", "camelhttppath", "Accept", "ACCEPT", "Host", "X-\u00c9t\u00e9",
                "x-\u00e9T\u00c9", "K", "\u212a");
        for (int op = 0; op < 20_000; op++) {
            String name = names.get(random.nextInt(names.size())) + (random.nextInt(4) == 0 ? random.nextInt(40) : "");
            switch (random.nextInt(6)) {
                case 0, 1 -> {
                    Integer v = random.nextInt(3) == 0 ? null : op;
                    assertThat(map.put(name, v)).isEqualTo(camel.put(name, v));
                }
                case 2 -> assertThat(map.remove(name)).isEqualTo(camel.remove(name));
                case 3 -> assertThat(map.containsKey(name)).isEqualTo(camel.containsKey(name));
                case 4 -> assertThat(map.get(name)).isEqualTo(camel.get(name));
                default -> {
                    if (random.nextInt(500) == 0) {
                        map.clear();
                        camel.clear();
                    }
                }
            }
            assertThat(map.size()).isEqualTo(camel.size());
        }
        TreeMap<String, Object> sorted = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        sorted.putAll(map);
        assertThat(sorted).containsExactlyEntriesOf(camel);
        assertThat(map).isEqualTo(camel);
    }
}
