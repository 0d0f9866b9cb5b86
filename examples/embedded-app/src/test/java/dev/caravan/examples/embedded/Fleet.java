package dev.caravan.examples.embedded;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.metrics.MetricsFeature;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimFleet;

/** Simulated engines for the example's tests, and request bodies for them. */
final class Fleet {

    /** Each generated token takes this long, so a stream of N tokens lasts about N × this. */
    static final int DECODE_MS_PER_TOKEN = 20;

    private Fleet() {
    }

    static SimFleet start() {
        return SimFleet.start(2, SimConfig.builder().decodeMsPerToken(DECODE_MS_PER_TOKEN).build());
    }

    /** The gateway on 127.0.0.1 and a free port, in front of {@code fleet}. */
    static GatewayConfig gateway(SimFleet fleet) {
        return GatewayConfig.defaults().with(CoreFlags.HOST, "127.0.0.1").with(CoreFlags.PORT, "0")
                .with(MetricsFeature.PROMETHEUS_PORT, "-1").with(CoreFlags.WORKER_URLS, String.join(",", fleet.urls()));
    }

    static String chat(SimFleet fleet, boolean stream, int maxTokens) {
        return "{\"model\":\"" + fleet.engine(0).config().model() + "\",\"stream\":" + stream + ",\"max_tokens\":"
                + maxTokens + ",\"messages\":[{\"role\":\"user\",\"content\":\"Tell me about caravans\"}]}";
    }
}
