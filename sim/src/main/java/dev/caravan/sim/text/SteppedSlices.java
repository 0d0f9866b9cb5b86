package dev.caravan.sim.text;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.filter.Filter;

/**
 * Python slices with a step ({@code messages[::-1]}, which Qwen3's template iterates), which Jinjava's parser lacks
 * (it reads {@code [start:stop]} only). {@link #rewrite} turns {@code base[a:b:c]} in a template's source into
 * {@code (base|sim_slice(a, b, c))}, an empty bound becoming {@code none}; the base is the primary expression before
 * the bracket (names, dots, calls, subscripts and string literals). {@link #FILTER} is that filter: Python's slice of a list or a
 * string, negative indices and steps included.
 */
final class SteppedSlices {

    /** The filter name the rewritten source calls. */
    static final String NAME = "sim_slice";
    static final Filter FILTER = new SliceFilter();

    private static final Pattern STEPPED = Pattern.compile("\\[([^\\[\\]:{}]*):([^\\[\\]:{}]*):([^\\[\\]:{}]*)]");

    private SteppedSlices() {
    }

    /** The source with every stepped slice turned into a {@value #NAME} filter call. */
    static String rewrite(String source) {
        StringBuilder out = new StringBuilder(source);
        Matcher m = STEPPED.matcher(source);
        List<int[]> found = new ArrayList<>();
        while (m.find()) {
            found.add(new int[] {m.start(), m.end()});
        }
        for (int i = found.size() - 1; i >= 0; i--) {     // from the end, so earlier offsets stay valid
            int open = found.get(i)[0];
            int close = found.get(i)[1];
            Matcher g = STEPPED.matcher(source.substring(open, close));
            g.matches();
            int base = primaryStart(source, open);
            if (base == open) {
                continue;                                 // nothing before the bracket: not a subscript
            }
            String call = "(" + source.substring(base, open) + "|" + NAME + "(" + bound(g.group(1)) + ", "
                    + bound(g.group(2)) + ", " + bound(g.group(3)) + "))";
            out.replace(base, close, call);
        }
        return out.toString();
    }

    private static String bound(String s) {
        return s.isBlank() ? "none" : s.trim();
    }

    /** Where the primary expression that ends just before {@code end} starts. */
    private static int primaryStart(String s, int end) {
        int i = end;
        while (i > 0) {
            char c = s.charAt(i - 1);
            if (Character.isLetterOrDigit(c) || c == '_' || c == '.') {
                i--;
            } else if (c == '\'' || c == '"') {
                i = s.lastIndexOf(c, i - 2);              // a string literal's opening quote
                if (i < 0) {
                    return end;
                }
            } else if (c == ']' || c == ')') {
                int depth = 0;
                do {
                    char d = s.charAt(--i);
                    depth += d == ']' || d == ')' ? 1 : d == '[' || d == '(' ? -1 : 0;
                } while (depth > 0 && i > 0);
            } else {
                break;
            }
        }
        return i;
    }

    private static final class SliceFilter implements Filter {

        @Override
        public String getName() {
            return NAME;
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
            throw new IllegalStateException(NAME + " takes its bounds as values");
        }

        @Override
        public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
            int step = args.length > 2 && args[2] != null ? ((Number) args[2]).intValue() : 1;
            if (step == 0) {
                throw new IllegalArgumentException("slice step cannot be zero");
            }
            if (var instanceof CharSequence s) {
                int[] idx = indices(s.length(), args, step);
                StringBuilder sb = new StringBuilder();
                for (int i : idx) {
                    sb.append(s.charAt(i));
                }
                return sb.toString();
            }
            List<Object> items = new ArrayList<>();
            if (var instanceof Iterable<?> it) {
                it.forEach(items::add);
            } else if (var instanceof Object[] arr) {
                items.addAll(List.of(arr));
            } else {
                return var;
            }
            List<Object> out = new ArrayList<>();
            for (int i : indices(items.size(), args, step)) {
                out.add(items.get(i));
            }
            return out;
        }

        /** Python's {@code slice(start, stop, step).indices(length)}, enumerated. */
        private static int[] indices(int length, Object[] args, int step) {
            Integer start = args.length > 0 && args[0] != null ? ((Number) args[0]).intValue() : null;
            Integer stop = args.length > 1 && args[1] != null ? ((Number) args[1]).intValue() : null;
            int lo;
            int hi;
            if (step > 0) {
                lo = start == null ? 0 : clamp(start < 0 ? start + length : start, 0, length);
                hi = stop == null ? length : clamp(stop < 0 ? stop + length : stop, 0, length);
            } else {
                lo = start == null ? length - 1 : clamp(start < 0 ? start + length : start, -1, length - 1);
                hi = stop == null ? -1 : clamp(stop < 0 ? stop + length : stop, -1, length - 1);
            }
            List<Integer> out = new ArrayList<>();
            for (int i = lo; step > 0 ? i < hi : i > hi; i += step) {
                out.add(i);
            }
            return out.stream().mapToInt(Integer::intValue).toArray();
        }

        private static int clamp(int v, int min, int max) {
            return Math.max(min, Math.min(max, v));
        }
    }
}
