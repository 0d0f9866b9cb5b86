package dev.caravan.sim.http;

import java.util.List;
import java.util.Map;

/** Typed reads of untyped JSON request fields, failing with a {@link BadRequest} that names the field. */
final class Fields {

    private Fields() {
    }

    static int integer(Map<?, ?> body, String key, int dflt, int min, int max) {
        Object v = body.get(key);
        if (v == null) {
            return dflt;
        }
        if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
            throw new BadRequest(key + " must be an integer, was " + Json.string(v));
        }
        long l = n.longValue();
        if (l < min || l > max) {
            throw new BadRequest(key + " must be in [" + min + "," + max + "], was " + l);
        }
        return (int) l;
    }

    static boolean bool(Map<?, ?> body, String key, boolean dflt) {
        Object v = body.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw new BadRequest(key + " must be true or false, was " + Json.string(v));
    }

    static Map<?, ?> object(Map<?, ?> body, String key) {
        Object v = body.get(key);
        if (v == null) {
            return null;
        }
        if (v instanceof Map<?, ?> m) {
            return m;
        }
        throw new BadRequest(key + " must be an object, was " + Json.string(v));
    }

    static String string(Map<?, ?> body, String key) {
        Object v = body.get(key);
        if (v == null) {
            return null;
        }
        if (v instanceof String s) {
            return s;
        }
        throw new BadRequest(key + " must be a string, was " + Json.string(v));
    }

    /** A JSON array of non-negative 32-bit integers as token ids. */
    static int[] tokenIds(List<?> list, String what) {
        int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++) {
            Object v = list.get(i);
            if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue()) || n.longValue() < 0
                    || n.longValue() > Integer.MAX_VALUE) {
                throw new BadRequest(what + "[" + i + "] must be a non-negative integer token id, was "
                        + Json.string(v));
            }
            out[i] = n.intValue();
        }
        return out;
    }

    /** True when every element of the list is a number (a single token-id prompt). */
    static boolean allNumbers(List<?> list) {
        for (Object o : list) {
            if (!(o instanceof Number)) {
                return false;
            }
        }
        return true;
    }
}
