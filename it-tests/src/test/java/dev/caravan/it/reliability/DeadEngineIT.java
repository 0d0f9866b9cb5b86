package dev.caravan.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.caravan.it.ChaosReport;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.StreamRecorder;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.reliability.AttemptOutcome;
import dev.caravan.processors.reliability.BreakerObserver;
import dev.caravan.processors.reliability.BreakerState;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.SimFleet;

/**
 * Chaos: one of four engines dies (its server stops) while 200 concurrent streaming requests run, and 100 more are sent
 * the moment it dies. Only the streams that engine was already sending are cut; every request that had not received a byte — those queued inside the dying engine and those
 * sent after it died — completes on another engine; the dead engine's breaker takes it out of routing within
 * milliseconds, long before the health probe (60 s interval) could.
 */
class DeadEngineIT {

    private static final int ENGINES = 4;
    /** The victim runs 40 at a time, so 10 of its 50 first-wave requests wait inside it without a byte sent. */
    private static final int VICTIM_RUNNING = 40;
    private static final int FIRST_WAVE = 200;   // 50 per engine (round robin), all in flight when the victim dies
    private static final int VICTIM_WAITING = FIRST_WAVE / ENGINES - VICTIM_RUNNING;
    private static final int SECOND_WAVE = 100;  // sent the moment the engine dies

    @Test
    void onlyStreamsAlreadyOnTheDeadEngineFailAndTheRestSucceedElsewhere() throws Exception {
        // 20-second streams: long enough that all 200 are mid-stream when the engine dies, even on a loaded machine
        SimConfig engineConfig = SimConfig.builder().decodeMsPerToken(100).defaultMaxTokens(200).build();
        try (SimFleet fleet = SimFleet.start(ENGINES - 1, engineConfig);
             SimEngine victim = SimEngine.start(engineConfig.toBuilder().maxRunning(VICTIM_RUNNING).seed(99).build());
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(urls(fleet, victim))
                     .with(CoreFlags.DECISION_HEADERS, "true")
                     .with(CoreFlags.POLICY_NAME, "round_robin")
                     .with(ReliabilityFeature.CB_FAILURE_THRESHOLD, "5"));
             StreamRecorder client = new StreamRecorder(gw.port())) {
            Worker dead = gw.workers().findByUrl(victim.url()).orElseThrow();
            AtomicLong openedAt = new AtomicLong();
            AtomicInteger attemptsAfterKill = new AtomicInteger();
            AtomicLong killedAt = new AtomicLong();
            AtomicLong firstFailureAt = new AtomicLong();
            gw.gateway().beans().reliability().breakers().addObserver(new BreakerObserver() {
                @Override
                public void onOutcome(Worker w, AttemptOutcome outcome) {
                    if (w == dead && killedAt.get() != 0) {
                        attemptsAfterKill.incrementAndGet();
                        if (outcome == AttemptOutcome.FAILURE) {
                            firstFailureAt.compareAndSet(0, System.nanoTime());
                        }
                    }
                }

                @Override
                public void onTransition(Worker w, BreakerState from, BreakerState to) {
                    if (w == dead && to == BreakerState.OPEN) {
                        openedAt.compareAndSet(0, System.nanoTime());
                    }
                }
            });

            // A cold JVM on a loaded machine takes seconds to start 200 streams: warm it up with short ones first (a
            // multiple of the fleet size, so round robin starts the first wave where it would have anyway).
            List<StreamRecorder.Stream> warm = client.send(FIRST_WAVE, "/v1/chat/completions", shortBody());
            assertThat(client.awaitAll(Duration.ofSeconds(60))).isTrue();
            assertThat(warm).allSatisfy(s -> assertThat(s.completed()).as(s.toString()).isTrue());

            List<StreamRecorder.Stream> first = client.send(FIRST_WAVE, "/v1/chat/completions", body());
            // the victim streams 40 (their heads reached the client) and holds 10 that have not received a byte; the
            // other engines stream all of theirs
            await().atMost(Duration.ofSeconds(40)).untilAsserted(() -> assertThat(List.of(victim.running(),
                    victim.waiting(), first.stream().filter(x -> x.headReceived && victim.url().equals(x.worker))
                            .count(), client.headsReceived(first)))
                    .as("victim running, victim waiting, victim heads, all heads")
                    .isEqualTo(List.of(VICTIM_RUNNING, VICTIM_WAITING, (long) VICTIM_RUNNING,
                            (long) (FIRST_WAVE - VICTIM_WAITING))));
            int waitingInVictim = victim.waiting();
            long streamingAtKill = client.headsReceived(first);
            int inFlightOnVictim = dead.load();

            killedAt.set(System.nanoTime());
            victim.close();
            List<StreamRecorder.Stream> second = client.send(SECOND_WAVE, "/v1/chat/completions", body());
            assertThat(client.awaitAll(Duration.ofSeconds(60))).as("every request ended").isTrue();

            assertThat(first.stream().filter(s -> s.endNanos - killedAt.get() > 0)).as("in flight at the kill")
                    .hasSize(FIRST_WAVE);
            List<StreamRecorder.Stream> cut = first.stream().filter(s -> !s.completed()).toList();
            long streamingOnVictim = first.stream().filter(s -> victim.url().equals(s.worker)
                    && s.headNanos < killedAt.get()).count();
            assertThat(cut).as("cut streams").allSatisfy(s -> {
                assertThat(s.worker).isEqualTo(victim.url());
                assertThat(s.status).isEqualTo(200);
                assertThat(s.broken).isTrue();
            });
            assertThat(cut).hasSize((int) streamingOnVictim);
            assertThat(streamingOnVictim).isEqualTo(VICTIM_RUNNING);
            assertThat(first.stream().filter(StreamRecorder.Stream::completed)).hasSize(FIRST_WAVE - VICTIM_RUNNING);
            assertThat(second).as("requests that had not received a byte").allSatisfy(s -> {
                assertThat(s.completed()).as(s.toString()).isTrue();
                assertThat(s.worker).isNotEqualTo(victim.url());
            });
            assertThat(openedAt.get()).as("breaker opened").isPositive();
            int newAttempts = attemptsAfterKill.get() - inFlightOnVictim;
            assertThat(newAttempts).as("new attempts sent to the dead engine: fewer than one breaker trip")
                    .isLessThanOrEqualTo(5);
            assertThat(dead.isHealthy()).as("the health probe has not declared it yet").isTrue();
            // the client can see a response end a moment before the gateway has released its lease and slot
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                assertThat(gw.workers().all()).allSatisfy(w -> assertThat(w.load()).isZero());
                assertThat(gw.gateway().beans().flow().admission().inFlight()).isZero();
            });

            double retries = gw.gateway().beans().meterRegistry().find("caravan.retries").counters().stream()
                    .mapToDouble(c -> c.count()).sum();
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("requests", FIRST_WAVE + SECOND_WAVE);
            figures.put("streaming_at_kill", streamingAtKill);
            figures.put("cut_streams", cut.size());
            figures.put("queued_in_dead_engine", waitingInVictim);
            figures.put("completed", FIRST_WAVE + SECOND_WAVE - cut.size());
            figures.put("retried_attempts", (long) retries);
            figures.put("in_flight_on_dead_engine", inFlightOnVictim);
            figures.put("new_attempts_on_dead_engine", newAttempts);
            figures.put("ms_kill_to_excluded", String.format("%.1f", (openedAt.get() - killedAt.get()) / 1e6));
            figures.put("ms_first_failure_to_excluded", String.format("%.2f",
                    (openedAt.get() - firstFailureAt.get()) / 1e6));
            figures.put("health_probe_would_need_s", 3 * 60);
            ChaosReport.record("dead-engine", figures);
            assertThat(retries).as("the queued requests of the dead engine were retried")
                    .isGreaterThanOrEqualTo(waitingInVictim);
        }
    }

    private static List<String> urls(SimFleet fleet, SimEngine victim) {
        List<String> urls = new java.util.ArrayList<>(fleet.urls());
        urls.add(victim.url());
        return urls;
    }

    private static String shortBody() {
        return GatewayClient.json(Map.of("stream", true, "max_tokens", 2, "messages",
                List.of(Map.of("role", "user", "content", "Warm up."))));
    }

    private static String body() {
        return GatewayClient.json(Map.of("stream", true, "messages",
                List.of(Map.of("role", "user", "content", "Tell me about camels."))));
    }
}
