package dev.caravan.sim;

/** {@code ./caravan sim}: simulated engines. Not built yet (issue "Engine simulator"). */
public final class SimMain {

    private SimMain() {
    }

    public static void main(String[] args) {
        System.err.println("caravan sim: the engine simulator is not built yet.");
        System.exit(2);
    }
}
