package dev.caravan.it.tokens;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Timer;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.tokens.TokensFeature;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.SimFleet;

/**
 * What asking the engine's {@code /tokenize} costs a kv_aware request against computing the tokens here: two gateways
 * on the same simulated engines (Mistral NeMo's tokenizer and template), one with {@code --model-path} (local tokens),
 * one without (the engines' {@code /tokenize}, the default under kv_aware), sent the same sequence of distinct
 * multi-turn chat requests one at a time, alternating between them, so both see the same machine load. Prints, per
 * gateway, the client's end-to-end latency p50/p99 and the tokens step's mean ({@code caravan_prompt_tokens_seconds}),
 * the ratios engine/local, and the load average.
 *
 * <pre>
 * mvn -B -q -o -pl it-tests -am package dependency:build-classpath -Dmdep.outputFile=target/cp.txt -DskipTests
 * java -cp it-tests/target/classes:$(cat it-tests/target/cp.txt) dev.caravan.it.tokens.TokenSourceLatencyMeasure \
 *     [--requests 2000] [--warmup 200]
 * </pre>
 */
public final class TokenSourceLatencyMeasure {

    private static final Path NEMO = Path.of("models/mistral_nemo").toAbsolutePath().normalize();

    private TokenSourceLatencyMeasure() {
    }

    public static void main(String[] args) throws IOException {
        int requests = intArg(args, "--requests", 2000);
        int warmup = intArg(args, "--warmup", 200);
        Path models = Files.isDirectory(NEMO) ? NEMO : Path.of("../models/mistral_nemo").toAbsolutePath().normalize();
        System.setProperty("ENGINE_CACHE_DIR", Path.of("target/djl-cache").toAbsolutePath().toString());
        try (SimFleet fleet = SimFleet.start(2, KvFixtures.publishing(SimConfig.builder()).tokenizer(models)
                .timeScale(1000).build());
             GatewayHarness local = start(fleet, models.toString());
             GatewayHarness engine = start(fleet, null)) {
            String model = fleet.engine(0).config().model();
            long[][] nanos = new long[2][requests];
            GatewayHarness[] gateways = {local, engine};
            for (int i = -warmup; i < requests; i++) {
                for (int g = 0; g < 2; g++) {
                    Map<String, Object> body = chat(model, g, i);
                    long t0 = System.nanoTime();
                    HttpResponse<String> r = gateways[g].client().postJson("/v1/chat/completions",
                            GatewayClient.json(body));
                    long took = System.nanoTime() - t0;
                    if (r.statusCode() != 200) {
                        throw new IllegalStateException("answered " + r.statusCode() + ": " + r.body());
                    }
                    if (i >= 0) {
                        nanos[g][i] = took;
                    }
                }
            }
            double[] p50 = {percentile(nanos[0], 0.50), percentile(nanos[1], 0.50)};
            double[] p99 = {percentile(nanos[0], 0.99), percentile(nanos[1], 0.99)};
            double[] step = {stepMean(local, "local"), stepMean(engine, "engine")};
            System.out.printf(Locale.ROOT, "| tokens | end-to-end p50 ms | p99 ms | tokens step mean ms |%n");
            System.out.printf(Locale.ROOT, "|---|---|---|---|%n");
            System.out.printf(Locale.ROOT, "| local (--model-path) | %.2f | %.2f | %.3f |%n", p50[0], p99[0], step[0]);
            System.out.printf(Locale.ROOT, "| engine (/tokenize) | %.2f | %.2f | %.3f |%n", p50[1], p99[1], step[1]);
            System.out.printf(Locale.ROOT, "ratio engine/local: p50 %.2f, p99 %.2f; %d requests each after %d warm-up; "
                    + "load average %s%n", p50[1] / p50[0], p99[1] / p99[0], requests, warmup,
                    Files.readString(Path.of("/proc/loadavg")).trim());
        }
    }

    private static GatewayHarness start(SimFleet fleet, String modelPath) {
        GatewayConfig config = GatewayHarness.config(List.of()).with(CoreFlags.POLICY_NAME, "kv_aware");
        if (modelPath != null) {
            config = config.with(TokensFeature.MODEL_PATH, modelPath);
        }
        GatewayHarness gateway = GatewayHarness.start(config);
        for (SimEngine e : fleet.engines()) {
            KvFixtures.register(gateway.client(), e, e.config().model());
        }
        return gateway;
    }

    /** Request {@code i} of gateway {@code g}: a three-turn chat of its own (no two requests share a prompt). */
    private static Map<String, Object> chat(String model, int g, int i) {
        String tag = "gateway " + g + ", trip " + i;
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("messages", List.of(
                Map.of("role", "user", "content", "For " + tag + ": plan a caravan from the coast to the mountains "
                        + "with twelve camels, resting at every oasis and avoiding the salt flats."),
                Map.of("role", "assistant", "content", "Three legs: the coast to Ain Salah, on to Tamanrasset, then "
                        + "Djanet; about twenty days with loaded camels."),
                Map.of("role", "user", "content", "How much water per camel per leg for " + tag + "?")));
        body.put("max_tokens", 1);
        return body;
    }

    private static double stepMean(GatewayHarness gateway, String source) {
        Timer t = gateway.gateway().beans().meterRegistry().find("caravan_prompt_tokens_seconds")
                .tag("source", source).timer();
        if (t == null || t.count() == 0) {
            throw new IllegalStateException("no request got " + source + " tokens");
        }
        return t.mean(TimeUnit.MILLISECONDS);
    }

    private static double percentile(long[] nanos, double q) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int i = Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1);
        return sorted[Math.max(0, i)] / 1e6;
    }

    private static int intArg(String[] args, String name, int fallback) {
        List<String> list = new ArrayList<>(Arrays.asList(args));
        int i = list.indexOf(name);
        return i >= 0 && i + 1 < list.size() ? Integer.parseInt(list.get(i + 1)) : fallback;
    }
}
