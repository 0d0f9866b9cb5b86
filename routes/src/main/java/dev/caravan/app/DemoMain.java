package dev.caravan.app;

/** {@code ./caravan demo}: the gateway in front of simulated engines. Not built yet (issue "Gateway data plane"). */
public final class DemoMain {

    private DemoMain() {
    }

    public static void main(String[] args) {
        System.err.println("caravan demo: the gateway and the engine simulator are not built yet.");
        System.exit(2);
    }
}
