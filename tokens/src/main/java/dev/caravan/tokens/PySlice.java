package dev.caravan.tokens;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.filter.Filter;

/**
 * Python's {@code seq[start:stop:step]} on a list or string, as the filter {@link JinjaSource#SLICE_FILTER} that step
 * slices are rewritten to: negative bounds count from the end, null bounds are the ends for the step's direction, a
 * zero step fails as in Python.
 */
final class PySlice implements Filter {

    @Override
    public String getName() {
        return JinjaSource.SLICE_FILTER;
    }

    @Override
    public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
        return filter(var, interpreter, (Object[]) args, Map.of());
    }

    @Override
    public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
        Integer start = index(args, 0);
        Integer stop = index(args, 1);
        Integer stepArg = index(args, 2);
        int step = stepArg == null ? 1 : stepArg;
        if (step == 0) {
            throw new IllegalArgumentException("slice step cannot be zero");
        }
        if (var instanceof String s) {
            StringBuilder sb = new StringBuilder();
            for (int i : indices(s.length(), start, stop, step)) {
                sb.append(s.charAt(i));
            }
            return sb.toString();
        }
        List<Object> items = new ArrayList<>();
        if (var instanceof Iterable<?> it) {
            it.forEach(items::add);
        } else if (var != null) {
            throw new IllegalArgumentException("cannot slice " + var.getClass().getSimpleName());
        }
        List<Object> out = new ArrayList<>();
        for (int i : indices(items.size(), start, stop, step)) {
            out.add(items.get(i));
        }
        return out;
    }

    private static Integer index(Object[] args, int i) {
        if (args == null || args.length <= i || args[i] == null) {
            return null;
        }
        Object v = args[i];
        return v instanceof Number n ? n.intValue() : Integer.valueOf(v.toString().trim());
    }

    /** Python's {@code slice.indices}, as the list of positions. */
    static List<Integer> indices(int length, Integer start, Integer stop, int step) {
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
        return out;
    }

    private static int clamp(int v, int min, int max) {
        return Math.max(min, Math.min(max, v));
    }
}
