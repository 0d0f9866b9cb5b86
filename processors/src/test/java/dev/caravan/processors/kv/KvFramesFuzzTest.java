package dev.caravan.processors.kv;

import static dev.caravan.processors.CaravanExchangeProperties.KV_RANK;
import static dev.caravan.processors.CaravanExchangeProperties.KV_WORKER_ID;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvTier;
import dev.caravan.processors.FuzzOracle;
import dev.caravan.processors.StartedCamel;

/**
 * Fuzz targets: what a KV-event publisher sends, through the steps of {@code kv-events.camel.yaml}
 * ({@code decodeKvBatch}, {@code applyKvEvents}) into a real {@link KvEventIngestor} and {@link KvBlockIndex}, and
 * what a replay endpoint answers ({@link ReplayClient} on a real DEALER socket, against a ROUTER that answers with the
 * fuzzed frames).
 *
 * <p>Oracle ({@link FuzzOracle}): nothing escapes the steps or the ingestor (an undecodable message is counted, a bad
 * reply is logged and skipped); the thread allocates within the per-input bound; and afterwards a valid batch from
 * another publisher of the same worker, with block ids of its own, is applied and its blocks are in the index.
 * Regression inputs: {@code KvFramesFuzzTestInputs/<method>/}.
 */
class KvFramesFuzzTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    static final String LIVE = "live";
    static final String REPLAYED = "replayed";
    /** The live sequence that makes a replayed worker ask for everything before it. */
    static final long JOIN_SEQUENCE = 5;

    static final KvBlockIndex INDEX = new KvBlockIndex();
    static final KvEventIngestor INGESTOR = new KvEventIngestor(INDEX, List.of(), Duration.ofMillis(500),
            System::nanoTime);
    static final DecodeKvBatchProcessor DECODE = new DecodeKvBatchProcessor(INGESTOR);
    static final ApplyKvEventsProcessor APPLY = new ApplyKvEventsProcessor(INGESTOR);
    static final AtomicLong CHECKS = new AtomicLong();
    static final AtomicLong JOINS = new AtomicLong();
    static final AtomicReference<List<List<byte[]>>> REPLIES = new AtomicReference<>(List.of());

    static ZContext serverContext;
    static Thread server;
    static volatile boolean serving = true;

    @BeforeAll
    static void start() throws Exception {
        serverContext = new ZContext(1);
        CompletableFuture<String> bound = new CompletableFuture<>();
        server = new Thread(() -> serve(bound), "fuzz-replay-server");
        server.start();
        String endpoint = bound.get(10, TimeUnit.SECONDS);
        INGESTOR.register(Worker.builder("http://live:8000").id(LIVE).modelId("m").kvEventsEndpoint("tcp://live:5557")
                .build());
        INGESTOR.register(Worker.builder("http://replayed:8000").id(REPLAYED).modelId("m")
                .kvEventsEndpoint("tcp://replayed:5557").kvReplayEndpoint(endpoint).build());
        assertStillServing(LIVE); // warm-up, outside any input's allocation
        assertStillServing(REPLAYED);
    }

    @AfterAll
    static void stop() throws Exception {
        serving = false;
        server.join(10_000);
        serverContext.close();
        INGESTOR.close();
    }

    /**
     * Input: byte 0 picks the frame count (3, the live layout, or 1 to 4), byte 1 the sequence frame's length (0 to
     * 15); then the sequence frame, then the payload (a msgpack batch in either layout). The topic is fixed.
     */
    @FuzzTest(maxDuration = "60s")
    void liveFrames(byte[] input) throws Exception {
        List<byte[]> frames = liveMessage(input);
        FuzzOracle.allocationOf(input.length, () -> route(LIVE, frames));
        assertStillServing(LIVE);
    }

    /**
     * Input: the replay endpoint's answer to the request a late join sends: byte 0 gives the number of replies (0 to
     * 3); each reply is a byte with its frame count (0 to 4) followed by its frames, each a 2-byte big-endian length
     * and that many bytes (cut at the end of the input). The server then sends the end marker.
     */
    @FuzzTest(maxDuration = "60s")
    void replayAnswers(byte[] input) throws Exception {
        REPLIES.set(replies(input));
        String topic = "join-" + JOINS.incrementAndGet();
        FuzzOracle.allocationOf(input.length, () -> route(REPLAYED, List.of(topic.getBytes(StandardCharsets.UTF_8),
                KvEventDecoder.sequenceFrame(JOIN_SEQUENCE), KvTestPayloads.stored(0, 1))));
        assertStillServing(REPLAYED);
    }

    static List<byte[]> liveMessage(byte[] input) {
        int count = input.length == 0 ? 3 : new int[] {3, 1, 2, 4}[input[0] & 3];
        int seqLength = input.length < 2 ? 8 : input[1] & 15;
        int from = Math.min(2, input.length);
        byte[] seq = Arrays.copyOfRange(input, from, Math.min(input.length, from + seqLength));
        byte[] payload = Arrays.copyOfRange(input, Math.min(input.length, from + seqLength), input.length);
        List<byte[]> frames = new ArrayList<>(List.of("kv@live@m".getBytes(StandardCharsets.UTF_8), seq, payload));
        while (frames.size() > count) {
            frames.remove(frames.size() - 1);
        }
        while (frames.size() < count) {
            frames.add(new byte[0]);
        }
        return frames;
    }

    static List<List<byte[]>> replies(byte[] input) {
        List<List<byte[]>> out = new ArrayList<>();
        int at = 0;
        int replies = input.length == 0 ? 0 : input[at++] & 3;
        for (int r = 0; r < replies && at < input.length; r++) {
            int frames = (input[at++] & 0xff) % 5;
            List<byte[]> reply = new ArrayList<>();
            for (int f = 0; f < frames; f++) {
                int length = at + 1 < input.length ? ((input[at] & 0xff) << 8) | (input[at + 1] & 0xff) : 0;
                at = Math.min(input.length, at + 2);
                int end = Math.min(input.length, at + length);
                reply.add(Arrays.copyOfRange(input, at, end));
                at = end;
            }
            out.add(reply);
        }
        return out;
    }

    /** The two steps of the KV-event route on one message of {@code worker}'s rank-0 subscription. */
    static void route(String worker, List<byte[]> frames) {
        Exchange e = CAMEL.exchange();
        KV_WORKER_ID.set(e, worker);
        KV_RANK.set(e, "0");
        e.getIn().setBody(frames);
        FuzzOracle.clientError(() -> {
            DECODE.process(e);
            if (!e.isRouteStop()) {
                APPLY.process(e);
            }
        });
    }

    /**
     * A valid batch from a publisher of its own is applied to {@code worker}'s rank 0 and its blocks are found. Its two
     * blocks have engine ids no earlier check and no input used ({@link #checkId}): an engine id names one block, and
     * a store of an id the rank already holds keeps that id's key, whatever tokens it carries.
     */
    static void assertStillServing(String worker) {
        long n = CHECKS.incrementAndGet();
        long first = checkId(2 * n);
        long second = checkId(2 * n + 1);
        long before = INGESTOR.stats(worker).blockStoredEvents();
        route(worker, List.of("check".getBytes(StandardCharsets.UTF_8), KvEventDecoder.sequenceFrame(n),
                KvTestPayloads.stored(0, first, second)));
        assertThat(INGESTOR.stats(worker).blockStoredEvents()).isEqualTo(before + 1);
        assertThat(INDEX.holds(worker, KvTestPayloads.key(first, second), KvTier.GPU)).isTrue();
    }

    /**
     * The engine id of a check's {@code i}-th block: {@code i} in the low 31 bits (so ids never repeat, and the token
     * {@link KvTestPayloads} gives the block, the id's low 32 bits, is a valid token id) under 32 bits of SplitMix64's
     * mix of {@code i}, which an input cannot have guessed.
     */
    static long checkId(long i) {
        long z = (i + 0x9E3779B97F4A7C15L) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return ((z ^ (z >>> 31)) & 0xFFFF_FFFF_0000_0000L) | (i & 0x7FFF_FFFFL);
    }

    /** A ROUTER answering every replay request with {@link #REPLIES}, then the end marker. */
    private static void serve(CompletableFuture<String> bound) {
        ZMQ.Socket router = serverContext.createSocket(SocketType.ROUTER);
        router.setLinger(0);
        router.setReceiveTimeOut(50);
        router.bind("tcp://127.0.0.1:*");
        bound.complete(router.getLastEndpoint());
        while (serving) {
            ZMsg request = ZMsg.recvMsg(router);
            if (request == null || request.isEmpty()) {
                continue;
            }
            byte[] identity = request.pop().getData();
            for (List<byte[]> reply : REPLIES.get()) {
                send(router, identity, reply);
            }
            send(router, identity, List.of(KvEventDecoder.sequenceFrame(KvEventDecoder.END_SEQUENCE), new byte[0]));
        }
        router.close();
    }

    private static void send(ZMQ.Socket router, byte[] identity, List<byte[]> frames) {
        router.send(identity, ZMQ.SNDMORE);
        router.send(new byte[0], frames.isEmpty() ? 0 : ZMQ.SNDMORE);
        for (int i = 0; i < frames.size(); i++) {
            router.send(frames.get(i), i == frames.size() - 1 ? 0 : ZMQ.SNDMORE);
        }
    }
}
