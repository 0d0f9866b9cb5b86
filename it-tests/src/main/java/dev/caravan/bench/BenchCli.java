package dev.caravan.bench;

/** Entry point of caravan-bench.jar (./caravan bench). */
public final class BenchCli {

    private BenchCli() {
    }

    public static void main(String[] args) {
        System.err.println("caravan bench: the fleet benchmark is not built yet.");
        System.exit(2);
    }
}
