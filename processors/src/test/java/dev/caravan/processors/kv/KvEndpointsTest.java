package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.GatewayConfig;

class KvEndpointsTest {

    private static KvSettings templates(String events, String replay) {
        return KvSettings.from(GatewayConfig.defaults().with(CaravanFlags.KV_EVENTS_ENDPOINT_TEMPLATE, events)
                .with(CaravanFlags.KV_REPLAY_ENDPOINT_TEMPLATE, replay));
    }

    @Test
    void aWorkersOwnEndpointsWinOverTheTemplates() {
        Worker w = Worker.builder("http://10.0.0.5:8000").kvEventsEndpoint("tcp://10.0.0.5:7000").build();
        assertThat(KvEndpoints.of(w, templates("tcp://{host}:5557", "tcp://{host}:5558")))
                .isEqualTo(new KvEndpoints("tcp://10.0.0.5:7000", null));
    }

    @Test
    void templatesTakeTheHostAndPortOfTheWorkerUrl() {
        Worker w = Worker.builder("http://10.0.0.5:8000").build();
        KvEndpoints e = KvEndpoints.of(w, templates("tcp://{host}:5557", "tcp://{host}:{port}9"));
        assertThat(e).isEqualTo(new KvEndpoints("tcp://10.0.0.5:5557", "tcp://10.0.0.5:80009"));
        assertThat(e.publishes()).isTrue();
    }

    @Test
    void noEndpointAndNoTemplateMeansNoSubscription() {
        KvEndpoints e = KvEndpoints.of(Worker.builder("http://a:1").build(), KvSettings.from(GatewayConfig.defaults()));
        assertThat(e.publishes()).isFalse();
        assertThat(e.replay()).isNull();
    }

    @Test
    void settingsNameTheFlagOfABadValue() {
        assertThatThrownBy(() -> KvSettings.from(GatewayConfig.defaults().with(CaravanFlags.KV_PARITY_WARN_BELOW, "2")))
                .hasMessage("--kv-parity-warn-below (caravan.kv.parity-warn-below) must be a number in [0, 1], was '2'");
        assertThatThrownBy(() -> KvSettings.from(GatewayConfig.defaults().with(CaravanFlags.KV_REPLAY_TIMEOUT_SECS, "0")))
                .hasMessage("--kv-replay-timeout-secs (caravan.kv.replay-timeout-secs) must be an integer >= 1, was '0'");
        KvSettings d = KvSettings.from(GatewayConfig.defaults());
        assertThat(d.silenceThreshold()).isEqualTo(Duration.ofSeconds(30));
        assertThat(d.pollsCapacity()).isFalse();
        assertThat(KvSettings.from(GatewayConfig.defaults().with(CaravanFlags.MAX_TREE_SIZE, "auto")).treeSizeAuto())
                .isTrue();
    }
}
