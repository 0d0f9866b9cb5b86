package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

/**
 * Request threads select (with the stale-tenant purge firing as health flips) while another thread runs maintenance and
 * targeted eviction. Bounded by operation counts. Every decision must name a candidate and no call may throw; after a
 * final maintenance pass every worker is within budget.
 */
class CacheAwarePolicyConcurrencyTest {

    @Test
    void selectionStaysCorrectWhileEvictionAndHealthFlipsRun() throws Exception {
        List<Worker> w = TestWorkers.of(4);
        CacheAwarePolicy p = new CacheAwarePolicy(CacheAwareConfig.defaults().withMaxTreeSize(500),
                PolicyEnvironment.seeded(1));
        w.forEach(p::onWorkerAdded);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicBoolean done = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        Thread[] requests = new Thread[3];
        for (int i = 0; i < requests.length; i++) {
            long seed = i;
            requests[i] = new Thread(() -> {
                SplittableRandom r = new SplittableRandom(seed);
                try {
                    start.await();
                    for (int n = 0; n < 4000; n++) {
                        String text = "tenant " + r.nextInt(30) + " system prompt; user turn " + r.nextInt(50);
                        Decision d = p.select(w, SelectionContext.ofText(text));
                        if (!d.isEmpty() && !w.contains(d.worker())) {
                            throw new AssertionError("chose a non-candidate: " + d);
                        }
                    }
                } catch (Throwable t) {
                    errors.add(t);
                }
            });
        }
        Thread housekeeping = new Thread(() -> {
            SplittableRandom r = new SplittableRandom(99);
            try {
                start.await();
                while (!done.get()) {
                    p.runMaintenance();
                    Worker x = w.get(r.nextInt(w.size()));
                    x.setHealthy(!x.isHealthy());
                    p.evictTenantChars(w.get(r.nextInt(w.size())).url(), 40);
                    p.treeChars();
                }
            } catch (Throwable t) {
                errors.add(t);
            }
        });
        for (Thread t : requests) {
            t.start();
        }
        housekeeping.start();
        start.countDown();
        for (Thread t : requests) {
            t.join(60_000);
        }
        done.set(true);
        housekeeping.join(60_000);

        assertThat(errors).isEmpty();
        p.runMaintenance();
        assertThat(p.treeChars().get("unknown").values()).allSatisfy(c -> assertThat(c).isLessThanOrEqualTo(500));
    }
}
