package dev.caravan.app;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListenerSupport;

import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.ArgsParser;
import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimFleet;

/**
 * {@code ./caravan demo}: starts simulated engines in this process (127.0.0.1, ephemeral ports) and the gateway on
 * 127.0.0.1:30000 in front of them with the cache_aware policy, prints curl commands to try, and runs until Ctrl-C, which
 * stops the gateway (in-flight requests finish) and then the engines. The engines publish KV-cache events (ZeroMQ on
 * ephemeral ports, with replay) and are registered with those endpoints, so {@code --policy kv_aware} and
 * {@code --kv-calibrate-tree} work as they would against vLLM. The engines tokenize with the demo model's real
 * tokenizer ({@link DemoModel}) and the gateway is given the same file ({@code --kv-tokenizer}, unless the flags
 * name another), so {@code --policy kv_aware} runs the production tokenizer path and hits on chat too.
 *
 * <p>Flags: {@code --engines N} (default {@value #DEFAULT_ENGINES}) plus any {@code ./caravan run} flag
 * ({@code --port 8080}, {@code --policy round_robin}, ...). {@code --pd} starts a prefill/decode fleet instead
 * ({@link PdDemo}: {@code --engines N} prefill and N decode engines, default 2 + 2). {@code --gateways N} starts N
 * gateway replicas over the same engines on consecutive ports, syncing by default ({@link MultiGatewayDemo}). {@code --port 0} binds a
 * free port, which the banner names; {@link #run(String[], Consumer)} hands the running demo to a test.
 */
public final class DemoMain {

    static final int DEFAULT_ENGINES = 4;
    static final String DEMO_HOST = "127.0.0.1";
    /** KV-event PUB and replay sockets bound on free loopback ports. */
    static final String EPHEMERAL_ZMQ = "tcp://127.0.0.1:*";

    private DemoMain() {
    }

    /**
     * The running demo, handed to {@link #run}'s callback once every gateway listens.
     *
     * @param gatewayUrls each gateway's base URL, with the port it actually bound (one unless {@code --gateways N})
     * @param engineUrls  every simulated engine's base URL (P/D: prefill engines first)
     * @param mains       the camel-main applications, one per gateway; {@link #stop()} ends {@link #run} as Ctrl-C
     *                    would
     */
    public record Running(List<String> gatewayUrls, List<String> engineUrls, List<Main> mains) {

        public Running {
            gatewayUrls = List.copyOf(gatewayUrls);
            engineUrls = List.copyOf(engineUrls);
            mains = List.copyOf(mains);
        }

        Running(String gatewayUrl, List<String> engineUrls, Main main) {
            this(List.of(gatewayUrl), engineUrls, List.of(main));
        }

        /** The (first) gateway's base URL. */
        public String gatewayUrl() {
            return gatewayUrls.get(0);
        }

        /** Stops the gateways (in-flight requests finish); {@link #run} then stops the engines and returns. */
        public void stop() {
            mains.forEach(Main::completed);
        }
    }

    public static void main(String[] args) throws Exception {
        try {
            run(args, running -> { });
        } catch (Exception e) {
            // the engines are closed by now; one line, as ./caravan run says it (e.g. the port is taken)
            System.err.println("caravan demo: " + GatewayMain.startFailureLine(e));
            System.exit(1);
        }
    }

    /**
     * Runs the demo as {@code ./caravan demo ARGS} does and blocks until it is stopped (Ctrl-C, or
     * {@link Running#stop()}); the engines are closed before this returns.
     *
     * @param onStarted called once after the banner is printed (on camel-main's thread)
     */
    public static void run(String[] args, Consumer<Running> onStarted) throws Exception {
        Integer requestedEngines = null;
        int gateways = 1;
        boolean pd = false;
        // the banner's curl examples show X-Caravan-Worker and X-Caravan-Decision: on for the demo (off by default)
        List<String> gatewayArgs = new ArrayList<>(List.of("--host", DEMO_HOST, "--decision-headers", "true"));
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--engines") && i + 1 < args.length) {
                requestedEngines = Integer.parseInt(args[++i]);
            } else if (args[i].equals("--gateways") && i + 1 < args.length) {
                gateways = Integer.parseInt(args[++i]);
            } else if (args[i].equals("--pd")) {
                pd = true;
            } else if (args[i].equals("--help") || args[i].equals("-h")) {
                System.out.println("Usage: ./caravan demo [--pd] [--engines N] [--gateways N] [./caravan run flags]"
                        + "\n\n"
                        + ArgsParser.help());
                return;
            } else {
                gatewayArgs.add(args[i]);
            }
        }
        if (gateways < 1 || gateways > MultiGatewayDemo.MAX_GATEWAYS) {
            throw new IllegalArgumentException("--gateways must be in [1," + MultiGatewayDemo.MAX_GATEWAYS
                    + "], was " + gateways);
        }
        if (pd && gateways > 1) {
            throw new IllegalArgumentException("--gateways applies to the regular demo, not --pd");
        }
        if (pd) {
            PdDemo.run(requestedEngines == null ? PdDemo.DEFAULT_ENGINES_PER_ROLE : requestedEngines, gatewayArgs,
                    DemoModel.extract(), onStarted);
            return;
        }
        int engines = requestedEngines == null ? DEFAULT_ENGINES : requestedEngines;
        Path modelDir = DemoModel.extract();
        withKvTokenizer(gatewayArgs, modelDir);
        if (gateways > 1) {
            MultiGatewayDemo.withSync(gatewayArgs);
        }
        ConfigResolver.Resolved resolved = ConfigResolver.resolve(gatewayArgs.toArray(String[]::new),
                Map.of(), Path.of("").toAbsolutePath());
        GatewayMain.applyLogLevel(resolved.config().get(CoreFlags.LOG_LEVEL));
        LogFile.add(resolved.config().get(CoreFlags.LOG_DIR));
        if (gateways > 1) {
            MultiGatewayDemo.run(gateways, resolved, modelDir, engines, onStarted);
            return;
        }
        try (SimFleet fleet = SimFleet.start(engines, engineConfig(modelDir).kvEventsEndpoint(EPHEMERAL_ZMQ)
                .kvReplayEndpoint(EPHEMERAL_ZMQ).build())) {
            GatewayConfig config = resolved.config();
            Main main = GatewayMain.create(config, resolved.others(), workers(fleet));
            String model = fleet.engine(0).config().model();
            main.addMainListener(new MainListenerSupport() {
                @Override
                public void afterStart(BaseMainSupport m) {
                    int port = CaravanGateway.port(m.getCamelContext());
                    String url = "http://" + DEMO_HOST + ":" + port;
                    System.out.println(banner(url, fleet.urls(), model, config.policyName()));
                    onStarted.accept(new Running(url, fleet.urls(), main));
                }
            });
            main.run();
        }
    }

    /**
     * The demo engines: the demo model's tokenizer and chat template, and blocks hashed as a stock vLLM does
     * ({@code sha256} with a random root per engine): the gateway's kv_aware keys blocks by their token ids.
     */
    static SimConfig.Builder engineConfig(Path model) {
        return SimConfig.builder().tokenizer(model);
    }

    /** Adds {@code --kv-tokenizer <model>/tokenizer.json} unless the gateway flags already name a tokenizer. */
    static void withKvTokenizer(List<String> gatewayArgs, Path model) {
        boolean given = gatewayArgs.stream()
                .anyMatch(a -> a.equals("--kv-tokenizer") || a.startsWith("--kv-tokenizer="));
        if (!given) {
            gatewayArgs.add("--kv-tokenizer");
            gatewayArgs.add(model.resolve("tokenizer.json").toString());
        }
    }

    /** The fleet's engines as workers, with the KV-event endpoints each actually bound. */
    static List<Worker> workers(SimFleet fleet) {
        return fleet.engines().stream().map(e -> Worker.builder(e.url()).kvEventsEndpoint(e.kvEventsEndpoint())
                .kvReplayEndpoint(e.kvReplayEndpoint()).build()).toList();
    }

    static String banner(String gw, List<String> engines, String model, String policy) {
        String chat = "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Tell me about caravans\"}]}";
        String stream = "{\"model\":\"" + model + "\",\"stream\":true,\"max_tokens\":32,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Tell me about caravans\"}]}";
        return String.join("\n",
                "",
                "Caravan demo: gateway " + gw + " (policy " + policy + ") in front of " + engines.size()
                        + " simulated engines:",
                "  " + String.join("  ", engines),
                "",
                "Try:",
                "  # chat (run it twice: the second lands on the same engine, X-Caravan-Decision says why)",
                "  curl -si " + gw + "/v1/chat/completions -H 'Content-Type: application/json' -d '" + chat + "'",
                "  # streaming chat: tokens arrive as the engine produces them",
                "  curl -sN " + gw + "/v1/chat/completions -H 'Content-Type: application/json' -d '" + stream + "'",
                "  # SGLang's native API",
                "  curl -s " + gw + "/generate -H 'Content-Type: application/json' "
                        + "-d '{\"text\":\"Once upon a time\",\"sampling_params\":{\"max_new_tokens\":16}}'",
                "  # the workers, their in-flight load and engine load",
                "  curl -s " + gw + "/workers",
                "  # metrics: requests, decisions by branch, cached vs prompt tokens per engine",
                "  curl -s " + gw + "/metrics | grep ^caravan_",
                "  # KV events from the engines: blocks per worker, and (--policy kv_aware) the parity self-check",
                "  curl -s " + gw + "/metrics | grep -E '^caravan_kv_(index_blocks|events_total|parity_agreement)'",
                "",
                "Ctrl-C stops the gateway and the engines.",
                "");
    }
}
