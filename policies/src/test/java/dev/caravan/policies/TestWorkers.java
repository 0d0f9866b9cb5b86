package dev.caravan.policies;

import java.util.ArrayList;
import java.util.List;

/** Worker fixtures for policy tests: {@code http://w0:8000}, {@code http://w1:8000}, ... in one model. */
public final class TestWorkers {

    private TestWorkers() {
    }

    public static List<Worker> of(int n) {
        return of(n, null);
    }

    public static List<Worker> of(int n, String model) {
        List<Worker> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Worker.builder("http://w" + i + ":8000").id("w" + i).modelId(model).build());
        }
        return List.copyOf(out);
    }

    /** Takes {@code n} units of in-flight load on the worker (never released: tests set loads this way). */
    public static void load(Worker w, int n) {
        for (int i = 0; i < n; i++) {
            w.acquire();
        }
    }
}
