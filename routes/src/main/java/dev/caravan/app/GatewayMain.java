package dev.caravan.app;

/** {@code ./caravan run}: the gateway. Not built yet (issue "Gateway data plane"). */
public final class GatewayMain {

    private GatewayMain() {
    }

    public static void main(String[] args) {
        System.err.println("caravan run: the gateway is not built yet.");
        System.exit(2);
    }
}
