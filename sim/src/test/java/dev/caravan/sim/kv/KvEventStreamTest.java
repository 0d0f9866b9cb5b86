package dev.caravan.sim.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;

import dev.caravan.sim.Faults;
import dev.caravan.sim.Http;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.hash.HashAlgo;
import dev.caravan.sim.hash.VllmBlockHasher;
import dev.caravan.sim.text.SyntheticTokenizer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * A real JeroMQ SUB and DEALER against a running simulated engine.
 *
 * <p>The client sockets set a handshake interval: on a loaded machine about 6 % of JeroMQ 0.6.0 TCP connects that
 * complete asynchronously never finish their handshake (measured: 13 of 200 stalled for over 4 s with the default
 * 30 s interval, 0 of 200 with 1 s), and the handshake timer makes them reconnect.
 */
class KvEventStreamTest {

    private static final int HANDSHAKE_IVL_MS = 1_000;

    private static final String SHARED = "The caravan crosses the desert at night, guided by stars. ".repeat(5)
            .substring(0, 256);
    /** The engine is seeded, so this test knows its hash root; sha256 (pickle) is vLLM's default algorithm. */
    private static final String SEED = "7";
    private final SyntheticTokenizer tokenizer = new SyntheticTokenizer(4);
    private final VllmBlockHasher hasher = new VllmBlockHasher(HashAlgo.SHA256, 16,
            VllmBlockHasher.root(HashAlgo.SHA256, SEED, null));
    private SimEngine engine;
    private ZContext zmq;
    private ZMQ.Socket sub;
    private long lastSeq = -1;
    private int probes;

    @BeforeEach
    void start() {
        engine = SimEngine.start(SimConfig.builder().timeScale(1000).kvEventsEndpoint("tcp://127.0.0.1:*")
                .kvReplayEndpoint("tcp://127.0.0.1:*").kvEventsTopic("kv@sim@test").hashSeed(SEED).build());
        zmq = new ZContext();
        sub = zmq.createSocket(SocketType.SUB);
        sub.subscribe("kv@".getBytes());
        sub.setReceiveTimeOut(100);
        sub.setHandshakeIvl(HANDSHAKE_IVL_MS);
        sub.connect(engine.kvEventsEndpoint());
        await().atMost(Duration.ofSeconds(10)).until(this::probeReceived);
    }

    @AfterEach
    void stop() {
        zmq.close();
        engine.close();
    }

    private long[] hashes(String prompt) {
        byte[][] digests = hasher.digests(tokenizer.encode(prompt, true), null);
        long[] out = new long[digests.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = hasher.external(digests[i]);
        }
        return out;
    }

    /** Works around ZeroMQ's slow joiner: send unique prompts until one of their batches arrives. */
    private boolean probeReceived() {
        complete("probe " + (probes++) + " " + "x".repeat(80));
        ZMsg m;
        boolean got = false;
        while ((m = ZMsg.recvMsg(sub)) != null) {
            lastSeq = ByteBuffer.wrap(m.toArray(new org.zeromq.ZFrame[0])[1].getData()).getLong();
            got = true;
        }
        return got;
    }

    private void complete(String prompt) {
        assertThat(Http.post(engine.url() + "/v1/completions", Map.of("prompt", prompt, "max_tokens", 1)).statusCode())
                .isEqualTo(200);
    }

    private Live next() throws Exception {
        sub.setReceiveTimeOut(5_000);
        ZMsg m = ZMsg.recvMsg(sub);
        assertThat(m).as("a KV-event message within 5 s").isNotNull();
        byte[][] f = m.stream().map(org.zeromq.ZFrame::getData).toArray(byte[][]::new);
        assertThat(f).hasNumberOfRows(3);
        assertThat(new String(f[0])).isEqualTo("kv@sim@test");
        assertThat(f[1]).hasSize(8);
        return new Live(ByteBuffer.wrap(f[1]).getLong(), KvEventReader.read(f[2]));
    }

    private record Live(long seq, KvEventReader.Batch batch) {
    }

    @Test
    void sharedPrefixGivesOneLongerThenOneShorterBlockStored() throws Exception {
        String a = SHARED + "a".repeat(80);
        String b = SHARED + "b".repeat(80);
        complete(a);
        Live first = next();
        complete(b);
        Live second = next();
        assertThat(first.seq()).isEqualTo(lastSeq + 1);
        assertThat(second.seq()).isEqualTo(lastSeq + 2);
        KvEventReader.Event sa = first.batch().events().get(0);
        KvEventReader.Event sb = second.batch().events().get(0);
        long[] ha = hashes(a);
        long[] hb = hashes(b);
        assertThat(sa.type()).isEqualTo("BlockStored");
        assertThat(sa.hashes()).containsExactly(ha);
        assertThat(sa.parent()).isNull();
        assertThat(sa.tokenCount()).isEqualTo(5 * 16);
        assertThat(sb.hashes()).containsExactly(hb[4]);
        assertThat(sb.parent()).isEqualTo(ha[3]);
        assertThat(second.batch().dpRank()).isZero();
    }

    @Test
    void replayFillsADeliberateGap() throws Exception {
        engine.setFaults(Faults.NONE.merge(Map.of("drop_kv_events", true)));
        String missed = SHARED + "m".repeat(80);
        complete(missed);
        engine.resetFaults();
        complete(SHARED + "n".repeat(80));
        Live live = next();
        assertThat(live.seq()).isEqualTo(lastSeq + 2);
        long gapStart = lastSeq + 1;
        try (ZMQ.Socket dealer = zmq.createSocket(SocketType.DEALER)) {
            dealer.setReceiveTimeOut(5_000);
            dealer.setHandshakeIvl(HANDSHAKE_IVL_MS);
            dealer.connect(engine.kvReplayEndpoint());
            dealer.sendMore(new byte[0]);
            dealer.send(ByteBuffer.allocate(8).putLong(gapStart).array());
            byte[][] r1 = frames(ZMsg.recvMsg(dealer));
            byte[][] r2 = frames(ZMsg.recvMsg(dealer));
            byte[][] end = frames(ZMsg.recvMsg(dealer));
            assertThat(r1).hasNumberOfRows(4);
            assertThat(r1[0]).isEmpty();
            assertThat(new String(r1[1])).isEqualTo("kv@sim@test");
            assertThat(ByteBuffer.wrap(r1[2]).getLong()).isEqualTo(gapStart);
            KvEventReader.Event replayed = KvEventReader.read(r1[3]).events().get(0);
            assertThat(replayed.hashes()).contains(hashes(missed)[4]);
            assertThat(ByteBuffer.wrap(r2[2]).getLong()).isEqualTo(gapStart + 1);
            assertThat(end).hasNumberOfRows(4);
            assertThat(end[1]).isEmpty();
            assertThat(end[2]).containsExactly(-1, -1, -1, -1, -1, -1, -1, -1);
            assertThat(end[3]).isEmpty();
        }
    }

    private static byte[][] frames(ZMsg m) {
        assertThat(m).as("a replay message within 5 s").isNotNull();
        return m.stream().map(org.zeromq.ZFrame::getData).toArray(byte[][]::new);
    }

    @Test
    void reportsTheBoundEphemeralEndpoints() {
        assertThat(engine.kvEventsEndpoint()).matches("tcp://127\\.0\\.0\\.1:\\d+");
        assertThat(engine.kvReplayEndpoint()).matches("tcp://127\\.0\\.0\\.1:\\d+");
        assertThat(Arrays.asList(engine.kvEventsEndpoint(), engine.kvReplayEndpoint())).doesNotHaveDuplicates();
    }
}
