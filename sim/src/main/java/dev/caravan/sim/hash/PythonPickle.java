package dev.caravan.sim.hash;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * {@code pickle.dumps(obj, protocol=5)} (Python 3.8+'s {@code HIGHEST_PROTOCOL}) for the values vLLM hashes, written
 * from the pickle format (PEP 3154, PEP 574) and checked byte for byte against Python's output:
 * <ul>
 *   <li>{@code null} = None ({@code N}); {@code byte[]} = bytes ({@code C}+1-byte length below 256, else {@code B}
 *       +4-byte length, then {@code MEMOIZE}); {@link String} = str (UTF-8, {@code \x8c}+1-byte length below 256,
 *       else {@code X}+4-byte length, then {@code MEMOIZE});</li>
 *   <li>{@link Integer}/{@link Long} = int ({@code K} for 0..255, {@code M} for 256..65535, {@code J} for the signed
 *       32-bit range, else {@code \x8a} LONG1 with the minimal two's-complement little-endian bytes);</li>
 *   <li>{@code int[]} and {@code Object[]} = tuple: empty is {@code )}; 1 to 3 items are the items then
 *       {@code TUPLE1/2/3}; longer ones are {@code MARK}, the items, {@code TUPLE}; non-empty tuples are memoized.</li>
 * </ul>
 * The body is wrapped as protocol 5 writes it: {@code \x80\x05}, a {@code FRAME} opcode with the body's length as
 * 8 little-endian bytes when the body (with its closing {@code STOP}) is at least 4 bytes long, then the body. Objects are never shared,
 * so no memo lookups are emitted. Bodies beyond one 64 KiB frame are refused (vLLM's blocks are far smaller).
 */
public final class PythonPickle {

    private static final int FRAME_SIZE_MIN = 4;
    private static final int FRAME_SIZE_TARGET = 64 * 1024;

    private PythonPickle() {
    }

    public static byte[] dumps(Object obj) {
        ByteArrayOutputStream body = new ByteArrayOutputStream(128);
        save(obj, body);
        body.write('.');
        int bodyLen = body.size();
        if (bodyLen >= FRAME_SIZE_TARGET) {
            throw new IllegalArgumentException("pickle body of " + bodyLen + " bytes needs several frames");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(bodyLen + 12);
        out.write(0x80);
        out.write(5);
        if (bodyLen >= FRAME_SIZE_MIN) {
            out.write(0x95);
            writeLittle(out, bodyLen, 8);
        }
        out.write(body.toByteArray(), 0, body.size());
        return out.toByteArray();
    }

    private static void save(Object obj, ByteArrayOutputStream out) {
        if (obj == null) {
            out.write('N');
        } else if (obj instanceof byte[] b) {
            if (b.length < 256) {
                out.write('C');
                out.write(b.length);
            } else {
                out.write('B');
                writeLittle(out, b.length, 4);
            }
            out.writeBytes(b);
            out.write(0x94);
        } else if (obj instanceof String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            if (utf8.length < 256) {
                out.write(0x8c);
                out.write(utf8.length);
            } else {
                out.write('X');
                writeLittle(out, utf8.length, 4);
            }
            out.writeBytes(utf8);
            out.write(0x94);
        } else if (obj instanceof Integer || obj instanceof Long) {
            saveInt(((Number) obj).longValue(), out);
        } else if (obj instanceof int[] ints) {
            saveIntTuple(ints, out);
        } else if (obj instanceof Object[] tuple) {
            saveTuple(tuple, out);
        } else {
            throw new IllegalArgumentException("cannot pickle " + obj.getClass().getName());
        }
    }

    private static void saveTuple(Object[] tuple, ByteArrayOutputStream out) {
        if (tuple.length == 0) {
            out.write(')');
            return;
        }
        if (tuple.length <= 3) {
            for (Object o : tuple) {
                save(o, out);
            }
            out.write(0x84 + tuple.length);          // TUPLE1 0x85, TUPLE2 0x86, TUPLE3 0x87
        } else {
            out.write('(');
            for (Object o : tuple) {
                save(o, out);
            }
            out.write('t');
        }
        out.write(0x94);
    }

    /** A tuple of ints, written without boxing (the same bytes as {@link #saveTuple} would write). */
    private static void saveIntTuple(int[] ints, ByteArrayOutputStream out) {
        if (ints.length == 0) {
            out.write(')');
            return;
        }
        if (ints.length > 3) {
            out.write('(');
        }
        for (int v : ints) {
            saveInt(v, out);
        }
        out.write(ints.length > 3 ? 't' : 0x84 + ints.length);
        out.write(0x94);
    }

    private static void saveInt(long v, ByteArrayOutputStream out) {
        if (v >= 0 && v <= 0xff) {
            out.write('K');
            out.write((int) v);
        } else if (v >= 0 && v <= 0xffff) {
            out.write('M');
            writeLittle(out, v, 2);
        } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            out.write('J');
            writeLittle(out, v, 4);
        } else {
            int n = 8;
            while (n > 1 && fits(v, n - 1)) {
                n--;
            }
            out.write(0x8a);
            out.write(n);
            writeLittle(out, v, n);
        }
    }

    /** Whether {@code v} fits in {@code bytes} bytes of two's complement. */
    private static boolean fits(long v, int bytes) {
        long min = -(1L << (8 * bytes - 1));
        long max = (1L << (8 * bytes - 1)) - 1;
        return v >= min && v <= max;
    }

    private static void writeLittle(ByteArrayOutputStream out, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            out.write((int) (v >>> (8 * i)) & 0xff);
        }
    }
}
