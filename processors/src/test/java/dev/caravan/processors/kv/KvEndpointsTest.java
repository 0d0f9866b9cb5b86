package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;

class KvEndpointsTest {

    private static KvSettings templates(String events, String replay) {
        KvSettings d = KvSettings.defaults();
        return new KvSettings(events, replay, d.topics(), d.replayTimeout(), d.maxBlocksPerWorker(),
                d.silenceThreshold(), d.calibrateTree(), d.treeSizeAuto(), d.charsPerToken(), d.blockSize(),
                d.parityExpiry(), d.parityWarnBelow());
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
    void templatesTakeHostsThatJavaNetUriCannotParseAsWritten() {
        KvSettings t = templates("tcp://{host}:5557", "tcp://{host}:{port}");
        assertThat(KvEndpoints.of(Worker.builder("http://worker_a:8000").build(), t))
                .isEqualTo(new KvEndpoints("tcp://worker_a:5557", "tcp://worker_a:8000"));
        assertThat(KvEndpoints.of(Worker.builder("http://[fd00::5]:8000").build(), t))
                .isEqualTo(new KvEndpoints("tcp://[fd00::5]:5557", "tcp://[fd00::5]:8000"));
    }

    @Test
    void noEndpointAndNoTemplateMeansNoSubscription() {
        KvEndpoints e = KvEndpoints.of(Worker.builder("http://a:1").build(), KvSettings.defaults());
        assertThat(e.publishes()).isFalse();
        assertThat(e.replay()).isNull();
    }

    @Test
    void settingsRejectValuesOutsideTheirInvariants() {
        KvSettings d = KvSettings.defaults();
        assertThatThrownBy(() -> new KvSettings(null, null, "", Duration.ZERO, 1, Duration.ZERO, false, false, 4, 16,
                d.parityExpiry(), 0.5)).hasMessage("replayTimeout must be positive, was PT0S");
        assertThatThrownBy(() -> new KvSettings(null, null, "", d.replayTimeout(), 1, Duration.ZERO, false, false, 4,
                16, d.parityExpiry(), 2.0)).hasMessage("parityWarnBelow must be in [0,1], was 2.0");
        assertThat(d.silenceThreshold()).isEqualTo(Duration.ofSeconds(30));
        assertThat(d.pollsCapacity()).isFalse();
        assertThat(d.eventsEndpointTemplate()).isNull();
    }
}
