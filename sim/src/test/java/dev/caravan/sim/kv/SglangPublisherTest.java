package dev.caravan.sim.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

import dev.caravan.sim.Http;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.hash.SglangPageHasher;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZFrame;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/** {@code --kv-publisher sglang}: SGLang's page events, ids and replay replies from a running engine (page size 4). */
class SglangPublisherTest {

    private static final int PAGE = 4;
    private SimEngine engine;
    private KvSubscriber sub;

    @BeforeEach
    void start() {
        engine = SimEngine.start(SimConfig.builder().kvPublisher(KvPublisherKind.SGLANG).blockSize(PAGE)
                .timeScale(100).kvEventsEndpoint("tcp://127.0.0.1:*").kvReplayEndpoint("tcp://127.0.0.1:*").build());
        sub = new KvSubscriber(engine.kvEventsEndpoint());
        int[] n = {0};
        sub.join(() -> generate("probe " + n[0]++ + " " + "p".repeat(24)));
    }

    @AfterEach
    void stop() {
        sub.close();
        engine.close();
    }

    private void generate(String text) {
        assertThat(Http.post(engine.url() + "/generate", Map.of("text", text, "sampling_params",
                Map.of("max_new_tokens", 1))).statusCode()).isEqualTo(200);
    }

    @SuppressWarnings("unchecked")
    private int[] tokens(String text) {
        List<Integer> ids = (List<Integer>) Http.map(Http.post(engine.url() + "/tokenize", Map.of("prompt", text))
                .body()).get("tokens");
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    @Test
    void publishesOneEventPerPageWithSglangsSignedChainedIds() {
        String text = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS";   // 53 chars: 14 tokens, 3 pages hit-able
        int[] ids = tokens(text);
        assertThat(ids).hasSize(14);
        generate(text);
        SglangPageHasher pages = new SglangPageHasher(PAGE);
        byte[][] digests = pages.digests(ids, null);
        long first = pages.external(digests[0]);
        KvEventReader.Event e0 = sub.awaitEvent(e -> e.type().equals("BlockStored") && e.hashes()[0] == first);
        assertThat(e0.hashes()).hasSize(1);
        assertThat(e0.parent()).isNull();
        assertThat(e0.tokenCount()).isEqualTo(PAGE);
        for (int p = 1; p < 3; p++) {
            long id = pages.external(digests[p]);
            long parent = pages.external(digests[p - 1]);
            KvEventReader.Event e = sub.awaitEvent(ev -> ev.type().equals("BlockStored") && ev.hashes()[0] == id);
            assertThat(e.parent()).isEqualTo(parent);
        }
        assertThat(sub.received()).allSatisfy(m -> assertThat(m.batch().dpRank()).isZero());
    }

    @Test
    void repliesToAReplayWithoutTheTopicFrameAsSglangDoes() throws Exception {
        generate("replayed " + "r".repeat(40));
        long upTo = sub.received().get(sub.received().size() - 1).seq();
        try (ZContext zmq = new ZContext()) {
            ZMQ.Socket dealer = zmq.createSocket(SocketType.DEALER);
            dealer.setReceiveTimeOut(5_000);
            dealer.setHandshakeIvl(1_000);
            dealer.connect(engine.kvReplayEndpoint());
            dealer.sendMore(new byte[0]);
            dealer.send(ByteBuffer.allocate(8).putLong(upTo).array());
            ZMsg data = ZMsg.recvMsg(dealer);
            ZMsg end = ZMsg.recvMsg(dealer);
            assertThat(data).as("a replayed batch within 5 s").isNotNull();
            byte[][] d = data.stream().map(ZFrame::getData).toArray(byte[][]::new);
            assertThat(d).hasNumberOfRows(3);
            assertThat(d[0]).isEmpty();
            assertThat(ByteBuffer.wrap(d[1]).getLong()).isEqualTo(upTo);
            assertThat(KvEventReader.read(d[2]).events()).isNotEmpty();
            byte[][] e = end.stream().map(ZFrame::getData).toArray(byte[][]::new);
            assertThat(e).hasNumberOfRows(3);
            assertThat(e[1]).containsExactly(-1, -1, -1, -1, -1, -1, -1, -1);
            assertThat(e[2]).isEmpty();
        }
    }
}
