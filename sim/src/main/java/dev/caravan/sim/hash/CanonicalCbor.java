package dev.caravan.sim.hash;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * {@code cbor2.dumps(obj, canonical=True)} (RFC 8949 deterministic encoding) for the values vLLM hashes: definite
 * lengths and the shortest argument encoding (0..23 inline, then 1, 2, 4 or 8 bytes). {@code null} = {@code f6};
 * {@code byte[]} = byte string (major type 2); {@link String} = text string (major type 3, UTF-8);
 * {@link Integer}/{@link Long} = unsigned (0) or negative (1) integer; {@code int[]} and {@code Object[]} (Python
 * tuples) = arrays (major type 4).
 */
public final class CanonicalCbor {

    private CanonicalCbor() {
    }

    public static byte[] encode(Object obj) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        write(obj, out);
        return out.toByteArray();
    }

    private static void write(Object obj, ByteArrayOutputStream out) {
        if (obj == null) {
            out.write(0xf6);
        } else if (obj instanceof byte[] b) {
            head(2, b.length, out);
            out.writeBytes(b);
        } else if (obj instanceof String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            head(3, utf8.length, out);
            out.writeBytes(utf8);
        } else if (obj instanceof Integer || obj instanceof Long) {
            long v = ((Number) obj).longValue();
            if (v >= 0) {
                head(0, v, out);
            } else {
                head(1, -1 - v, out);
            }
        } else if (obj instanceof int[] ints) {
            head(4, ints.length, out);
            for (int v : ints) {
                if (v >= 0) {
                    head(0, v, out);
                } else {
                    head(1, -1L - v, out);
                }
            }
        } else if (obj instanceof Object[] items) {
            head(4, items.length, out);
            for (Object o : items) {
                write(o, out);
            }
        } else {
            throw new IllegalArgumentException("cannot CBOR-encode " + obj.getClass().getName());
        }
    }

    /** Major type and argument in the shortest form; {@code arg} is taken as unsigned. */
    private static void head(int major, long arg, ByteArrayOutputStream out) {
        int mt = major << 5;
        if (arg >= 0 && arg < 24) {
            out.write(mt | (int) arg);
        } else if (arg >= 0 && arg <= 0xffL) {
            out.write(mt | 24);
            out.write((int) arg);
        } else if (arg >= 0 && arg <= 0xffffL) {
            out.write(mt | 25);
            writeBig(out, arg, 2);
        } else if (arg >= 0 && arg <= 0xffff_ffffL) {
            out.write(mt | 26);
            writeBig(out, arg, 4);
        } else {
            out.write(mt | 27);
            writeBig(out, arg, 8);
        }
    }

    private static void writeBig(ByteArrayOutputStream out, long v, int bytes) {
        for (int i = bytes - 1; i >= 0; i--) {
            out.write((int) (v >>> (8 * i)) & 0xff);
        }
    }
}
