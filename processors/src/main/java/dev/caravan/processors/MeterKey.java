package dev.caravan.processors;

/**
 * The key under which a meter class caches a meter it looked up once: which meter ({@code meter}) and the values of
 * its labels, compared by value. Micrometer's {@code builder().register()} allocates an id and sorts its tags on every
 * call, so the per-request paths look meters up in a map; a key made of the label values themselves (strings the
 * caller already holds, whose hashes the JVM caches, and an int such as a status) costs one small object per lookup,
 * where a key string built by concatenation cost a copy of every value and a hash over all of it, on every request
 * (design/request-path.md, "Per-request cost").
 *
 * @param meter  which meter (a short constant per meter class)
 * @param first  a label value, or null
 * @param second a label value, or null
 * @param third  a label value, or null
 * @param number a numeric label value (a status), or 0
 */
public record MeterKey(String meter, Object first, Object second, Object third, int number) {

    public static MeterKey of(String meter, Object first) {
        return new MeterKey(meter, first, null, null, 0);
    }

    public static MeterKey of(String meter, Object first, Object second) {
        return new MeterKey(meter, first, second, null, 0);
    }

    public static MeterKey of(String meter, Object first, Object second, Object third) {
        return new MeterKey(meter, first, second, third, 0);
    }

    public static MeterKey of(String meter, Object first, int number) {
        return new MeterKey(meter, first, null, null, number);
    }
}
