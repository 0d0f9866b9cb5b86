package dev.caravan.bench.soak;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

import dev.caravan.gateway.CaravanGateway;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.GatewayConfig;

/**
 * The main class of a soak's gateway replica process: the arguments are {@code --flag value} pairs of
 * {@code ./caravan run}, applied to the defaults, plus {@code --soak-workers FILE}: engines to register before the
 * server starts (one a line: URL, KV-event endpoint, replay endpoint), as discovery would hand them over. The gateway
 * is installed as an embedding application installs it ({@link CaravanGateway#install}), prints
 * {@code listening <port>} once its server is bound, and stops (draining) on SIGTERM. The soak kills it with SIGKILL to
 * model a crash.
 */
public final class GatewayChild {

    /** The line the parent waits for, followed by the bound port. */
    static final String READY = "listening ";
    /** The option naming the engines to register. */
    static final String WORKERS = "--soak-workers";

    private GatewayChild() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length % 2 != 0) {
            throw new IllegalArgumentException("expected --flag value pairs, got " + args.length + " arguments");
        }
        GatewayConfig config = GatewayConfig.defaults();
        List<String> workers = List.of();
        for (int i = 0; i < args.length; i += 2) {
            String flag = args[i];
            if (flag.equals(WORKERS)) {
                workers = Files.readAllLines(Path.of(args[i + 1]));
                continue;
            }
            config = config.with(CaravanFlags.byFlag(flag)
                    .orElseThrow(() -> new IllegalArgumentException("unknown flag " + flag)), args[i + 1]);
        }
        CamelContext context = new DefaultCamelContext();
        CaravanGateway gateway = CaravanGateway.install(context, config);
        for (String line : workers) {
            String[] w = line.trim().split("\\s+");
            if (w.length == 3) {
                gateway.workers().add(Worker.builder(w[0]).kvEventsEndpoint(w[1]).kvReplayEndpoint(w[2]).build());
            }
        }
        context.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            context.stop();
            stopped.countDown();
        }, "soak-gateway-stop"));
        System.out.println(READY + gateway.port());
        System.out.flush();
        stopped.await();
    }
}
