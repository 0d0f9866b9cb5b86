package dev.caravan.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.kv.ActiveBlocks;
import dev.caravan.policies.kv.PeerActiveBlocks;

class PeerLoadsTest {

    private final WorkerRegistry workers = new WorkerRegistry();
    private final PeerActiveBlocks blocks = new PeerActiveBlocks();
    private final AtomicLong now = new AtomicLong();
    private final PeerLoads loads = new PeerLoads(workers, blocks, now::get);
    private final Worker w1 = workers.add(Worker.builder("http://w1:8000").id("local-id-1").build());
    private final Worker w2 = workers.add(Worker.builder("http://w2:8000").id("local-id-2").build());

    @Test
    void peersReportsAreSummedPerWorkerUnderThisReplicasIds() {
        loads.apply(new UUID(0, 1), new SyncCodec.LoadReport(Map.of("regular http://w1:8000", 2),
                Map.of("regular http://w1:8000", 300)));
        loads.apply(new UUID(0, 2), new SyncCodec.LoadReport(Map.of("regular http://w1:8000", 1),
                Map.of("regular http://w1:8000", 100, "regular http://w2:8000", 40, "regular http://gone:8000", 9)));

        assertThat(w1.peerLoad()).isEqualTo(3);
        assertThat(blocks.peers("local-id-1")).isEqualTo(400);
        assertThat(blocks.peers("local-id-2")).isEqualTo(40);
    }

    @Test
    void aStaleReportNoLongerCounts() {
        loads.apply(new UUID(0, 1), new SyncCodec.LoadReport(Map.of("regular http://w1:8000", 2),
                Map.of("regular http://w1:8000", 300)));
        now.addAndGet(PeerLoads.STALE_NANOS + 1);

        assertThat(loads.expire()).isTrue();
        assertThat(w1.peerLoad()).isZero();
        assertThat(blocks.peers("local-id-1")).isZero();
    }

    @Test
    void publishesThisReplicasActiveBlocksByWorkerKey() {
        ActiveBlocks mine = new ActiveBlocks();
        blocks.register(mine);
        mine.add("local-id-2", 0, new long[] {1, 2, 3});

        assertThat(loads.localBlocks()).isEqualTo(Map.of("regular http://w2:8000", 3));
    }
}
