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
import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.sim.EngineRole;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.SimFleet;

/**
 * {@code ./caravan demo --pd}: a prefill/decode fleet of simulated engines — N prefill engines, each with its own KV
 * bootstrap port, and N decode engines — behind the gateway on 127.0.0.1:30000 with {@code --pd-disaggregation}
 * (cache_aware on the prefill pool, so a conversation's prefills stay where its prefix is cached), printing curl
 * commands to try. Any {@code ./caravan run} flag applies ({@code --pd-mode vllm}, {@code --decode-policy ...}).
 */
final class PdDemo {

    static final int DEFAULT_ENGINES_PER_ROLE = 2;

    private PdDemo() {
    }

    /** @param modelDir the demo model's directory ({@link DemoModel}), which the engines tokenize with */
    static void run(int perRole, List<String> gatewayArgs, Path modelDir, Consumer<DemoMain.Running> onStarted)
            throws Exception {
        DemoMain.withKvTokenizer(gatewayArgs, modelDir);
        ConfigResolver.Resolved resolved = ConfigResolver.resolve(gatewayArgs.toArray(String[]::new), Map.of(),
                Path.of("").toAbsolutePath());
        GatewayMain.applyLogLevel(resolved.config().get(CoreFlags.LOG_LEVEL));
        LogFile.add(resolved.config().get(CoreFlags.LOG_DIR));
        try (SimFleet prefill = SimFleet.start(perRole, DemoMain.engineConfig(modelDir).role(EngineRole.PREFILL)
                .bootstrapPort(0).build());
             SimFleet decode = SimFleet.start(perRole, DemoMain.engineConfig(modelDir).role(EngineRole.DECODE).build())) {
            List<String> groups = new ArrayList<>();
            for (SimEngine e : prefill.engines()) {
                groups.add(e.url() + " " + e.bootstrapPort());
            }
            GatewayConfig config = resolved.config()
                    .with(PdFeature.PD_DISAGGREGATION, "true")
                    .with(PdFeature.PREFILL, String.join(",", groups))
                    .with(PdFeature.DECODE, String.join(",", decode.urls()));
            Main main = GatewayMain.create(config, resolved.others());
            String model = prefill.engine(0).config().model();
            main.addMainListener(new MainListenerSupport() {
                @Override
                public void afterStart(BaseMainSupport m) {
                    int port = CaravanGateway.port(m.getCamelContext());
                    String url = "http://" + DemoMain.DEMO_HOST + ":" + port;
                    System.out.println(banner(url, groups, decode.urls(), model, config));
                    List<String> engines = new ArrayList<>(prefill.urls());
                    engines.addAll(decode.urls());
                    onStarted.accept(new DemoMain.Running(url, engines, main));
                }
            });
            main.run();
        }
    }

    /** One command line applying {@code /sim/faults} to every prefill engine. */
    private static String faults(List<String> prefill, String method, String args) {
        List<String> cmds = new ArrayList<>();
        for (String p : prefill) {
            cmds.add(("curl -s " + method + " " + p.split(" ")[0] + "/sim/faults " + args).trim());
        }
        return "  " + String.join("; ", cmds);
    }

    static String banner(String gw, List<String> prefill, List<String> decode, String model, GatewayConfig config) {
        String mode = config.get(PdFeature.PD_MODE);
        String chat = "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Tell me about caravans\"}]}";
        String stream = "{\"model\":\"" + model + "\",\"stream\":true,\"max_tokens\":32,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Tell me about caravans\"}]}";
        List<String> lines = new ArrayList<>(List.of(
                "",
                "Caravan P/D demo (" + mode + " mode): gateway " + gw + " in front of simulated engines",
                "  prefill (URL and KV bootstrap port): " + String.join("  ", prefill),
                "  decode: " + String.join("  ", decode),
                "",
                "Try:",
                "  # chat: X-Caravan-Worker names the pair (prefill=...; decode=...), X-Caravan-Decision both choices",
                "  curl -si " + gw + "/v1/chat/completions -H 'Content-Type: application/json' -d '" + chat + "'",
                "  # streaming: decode's tokens arrive as it produces them",
                "  curl -sN " + gw + "/v1/chat/completions -H 'Content-Type: application/json' -d '" + stream + "'"));
        if (!"vllm".equals(mode)) {
            lines.addAll(List.of(
                    "  # prompt logprobs come from the prefill engine, spliced before decode's (every SSE chunk too)",
                    "  curl -s " + gw + "/generate -H 'Content-Type: application/json' "
                            + "-d '{\"text\":\"Once upon a time\",\"return_logprob\":true,\"sampling_params\":{\"max_new_tokens\":4}}'",
                    "  # a batch: one bootstrap room per prompt",
                    "  curl -s " + gw + "/generate -H 'Content-Type: application/json' "
                            + "-d '{\"text\":[\"first prompt\",\"second prompt\"],\"sampling_params\":{\"max_new_tokens\":4}}'"));
        }
        lines.addAll(List.of(
                "  # both legs' /health_generate on a pair",
                "  curl -s " + gw + "/health_generate",
                "  # failing prefill engines: each waiting decode is cancelled at once (cancelled_waiting in its",
                "  # /sim/stats) instead of waiting 300 s for KV that never comes; the client gets 502 prefill_server_error",
                faults(prefill, "-XPOST", "-H 'Content-Type: application/json' -d '{\"error_rate\":1.0}'"),
                "  curl -s " + gw + "/v1/chat/completions -H 'Content-Type: application/json' -d '" + chat + "'",
                "  curl -s " + decode.get(0) + "/sim/stats; curl -s " + decode.get(decode.size() - 1) + "/sim/stats",
                faults(prefill, "-XDELETE", ""),
                "  # P/D metrics: selections, failures, early rejections, cancellations, prefill wait",
                "  curl -s " + gw + "/metrics | grep ^caravan_pd_",
                "",
                "Ctrl-C stops the gateway and the engines.",
                ""));
        return String.join("\n", lines);
    }
}
