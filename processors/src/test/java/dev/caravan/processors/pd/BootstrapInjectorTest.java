package dev.caravan.processors.pd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.request.RequestKind;

class BootstrapInjectorTest {

    private static final Worker PREFILL = PdTestPairs.prefillWorker();

    @Test
    void addsHostPortAndOneRoomForASingleSequence() {
        BootstrapInjector.Injected in = BootstrapInjector.inject(RequestKind.GENERATE,
                Map.of("text", "hello", "sampling_params", Map.of("max_new_tokens", 4)), PREFILL,
                new SplittableRandom(1));
        assertThat(in.body()).containsEntry("bootstrap_host", "10.0.0.1").containsEntry("bootstrap_port", 8998)
                .containsEntry("bootstrap_room", in.rooms().get(0)).containsEntry("text", "hello");
        assertThat(in.rooms()).hasSize(1);
    }

    @Test
    void sendsJsonNullForAPrefillWithoutBootstrapPort() {
        Worker noPort = Worker.builder("http://p2:8080").role(WorkerRole.PREFILL).build();
        Map<String, Object> body = BootstrapInjector.inject(RequestKind.CHAT, Map.of("messages", List.of()), noPort,
                new SplittableRandom(1)).body();
        assertThat(body).containsKey("bootstrap_port");
        assertThat(body.get("bootstrap_port")).isNull();
        assertThat(body).containsEntry("bootstrap_host", "p2");
    }

    @Test
    void theBootstrapHostIsTheWorkerUrlsHostAsWritten() {
        // SGLang's bootstrap_host is the URL's host_str(): '_' names as they are, IPv6 literals in brackets
        Worker underscore = Worker.builder("http://prefill_a:8080").role(WorkerRole.PREFILL).bootstrapPort(8998).build();
        Worker v6 = Worker.builder("http://[fd00::7]:8080").role(WorkerRole.PREFILL).bootstrapPort(8998).build();
        assertThat(BootstrapInjector.inject(RequestKind.CHAT, Map.of("messages", List.of()), underscore,
                new SplittableRandom(1)).body()).containsEntry("bootstrap_host", "prefill_a");
        assertThat(BootstrapInjector.inject(RequestKind.CHAT, Map.of("messages", List.of()), v6,
                new SplittableRandom(1)).body()).containsEntry("bootstrap_host", "[fd00::7]");
    }

    @Test
    void givesEverySequenceOfABatchItsOwnRoom() {
        BootstrapInjector.Injected in = BootstrapInjector.inject(RequestKind.GENERATE,
                Map.of("input_ids", List.of(List.of(1, 2), List.of(3), List.of(4, 5, 6))), PREFILL,
                new SplittableRandom(3));
        assertThat(in.body().get("bootstrap_host")).isEqualTo(List.of("10.0.0.1", "10.0.0.1", "10.0.0.1"));
        assertThat(in.body().get("bootstrap_port")).isEqualTo(List.of(8998, 8998, 8998));
        assertThat(in.body().get("bootstrap_room")).isEqualTo(in.rooms());
        assertThat(new HashSet<>(in.rooms())).hasSize(3);
    }

    @Test
    void countsBatchesAsSGLangAndMiniLbDo() {
        assertThat(BootstrapInjector.batchSize(RequestKind.GENERATE, Map.of("input_ids", List.of(1, 2, 3)))).isNull();
        assertThat(BootstrapInjector.batchSize(RequestKind.GENERATE, Map.of("input_ids", List.of(List.of(1))))).isEqualTo(1);
        assertThat(BootstrapInjector.batchSize(RequestKind.GENERATE, Map.of("text", List.of("a", "b")))).isEqualTo(2);
        assertThat(BootstrapInjector.batchSize(RequestKind.GENERATE, Map.of("text", "a",
                "sampling_params", Map.of("n", 3)))).isEqualTo(3);
        assertThat(BootstrapInjector.batchSize(RequestKind.CHAT, Map.of("n", 1))).isNull();
        assertThat(BootstrapInjector.batchSize(RequestKind.CHAT, Map.of("n", 4))).isEqualTo(4);
        assertThat(BootstrapInjector.batchSize(RequestKind.COMPLETIONS, Map.of("prompt", List.of("a", "b", "c"))))
                .isEqualTo(3);
        assertThat(BootstrapInjector.batchSize(RequestKind.COMPLETIONS, Map.of("prompt", List.of(5, 6, 7)))).isNull();
        assertThat(BootstrapInjector.batchSize(RequestKind.COMPLETIONS, Map.of("prompt", List.of(List.of(5),
                List.of(6)), "n", 2))).isEqualTo(4);
    }

    @Test
    void roomsAreNonNegative63BitNumbersSpreadOverTheRange() {
        SplittableRandom random = new SplittableRandom(11);
        long[] rooms = new long[10_000];
        for (int i = 0; i < rooms.length; i++) {
            rooms[i] = BootstrapInjector.room(random);
        }
        assertThat(Arrays.stream(rooms).allMatch(r -> r >= 0)).isTrue();
        long aboveHalf = Arrays.stream(rooms).filter(r -> r > Long.MAX_VALUE / 2).count();
        assertThat(aboveHalf).isBetween(4_700L, 5_300L); // uniform: half of them in the upper half
        assertThat(Arrays.stream(rooms).distinct().count()).isEqualTo(rooms.length);
    }

    @Test
    void replacesBootstrapFieldsTheClientSent() {
        Map<String, Object> body = BootstrapInjector.inject(RequestKind.GENERATE, Map.of("text", "x",
                "bootstrap_room", 5, "bootstrap_host", "evil"), PREFILL, new SplittableRandom(2)).body();
        assertThat(body.get("bootstrap_host")).isEqualTo("10.0.0.1");
        assertThat(body.get("bootstrap_room")).isNotEqualTo(5);
    }

    @Test
    void detectsLogprobRequestsPerApi() {
        assertThat(BootstrapInjector.logprobsRequested(RequestKind.GENERATE, Map.of("return_logprob", true))).isTrue();
        assertThat(BootstrapInjector.logprobsRequested(RequestKind.GENERATE, Map.of("logprobs", true))).isFalse();
        assertThat(BootstrapInjector.logprobsRequested(RequestKind.CHAT, Map.of("logprobs", true))).isTrue();
        assertThat(BootstrapInjector.logprobsRequested(RequestKind.CHAT, Map.of("logprobs", false))).isFalse();
        assertThat(BootstrapInjector.logprobsRequested(RequestKind.COMPLETIONS, Map.of("logprobs", 0))).isTrue();
        assertThat(BootstrapInjector.logprobsRequested(RequestKind.COMPLETIONS, Map.of())).isFalse();
    }
}
