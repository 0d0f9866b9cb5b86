package dev.caravan.policies.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Many request threads insert and match while one thread evicts and another removes and re-adds a tenant. Bounded by
 * operation counts, not time. Afterwards (and during, from the evicting thread) every tenant's count must equal a
 * recount of the structure, and nothing may have thrown.
 */
class ApproximateRadixTreeConcurrencyTest {

    private static final int WRITERS = 4;
    private static final int OPS_PER_WRITER = 6_000;
    private static final List<String> TENANTS = List.of("http://w0:8000", "http://w1:8000", "http://w2:8000",
            "http://w3:8000", "http://w4:8000");

    @ParameterizedTest
    @EnumSource(OwnerRule.class)
    void countsStayExactUnderConcurrentInsertMatchEvictAndRemove(OwnerRule ownerRule) throws Exception {
        ApproximateRadixTree tree = new ApproximateRadixTree(ownerRule);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicBoolean writersDone = new AtomicBoolean();
        CountDownLatch start = new CountDownLatch(1);
        String[] prefixes = {"You are a helpful assistant. ", "系统提示：请简洁回答。", "Tools: [search, calc] \uD83D\uDE00 "};

        Thread[] writers = new Thread[WRITERS];
        for (int w = 0; w < WRITERS; w++) {
            long seed = w;
            writers[w] = new Thread(() -> {
                SplittableRandom r = new SplittableRandom(seed);
                try {
                    start.await();
                    for (int i = 0; i < OPS_PER_WRITER; i++) {
                        String text = prefixes[r.nextInt(prefixes.length)] + "user " + r.nextInt(200) + " says "
                                + "x".repeat(r.nextInt(40));
                        String tenant = TENANTS.get(r.nextInt(TENANTS.size()));
                        PrefixMatch m = tree.prefixMatch(text);
                        if (m.matchedChars() > m.inputChars()) {
                            throw new AssertionError("matched more than the input: " + m);
                        }
                        tree.insert(text, tenant);
                        if (i % 50 == 0) {
                            tree.matchedCharsByTenant(text);
                        }
                    }
                } catch (Throwable t) {
                    errors.add(t);
                }
            });
        }
        Thread evictor = new Thread(() -> {
            try {
                start.await();
                int round = 0;
                while (!writersDone.get()) {
                    tree.evictTenantBySize(300);
                    tree.evictTenantChars(TENANTS.get(round % TENANTS.size()), 50);
                    if (++round % 20 == 0) {
                        tree.verify();
                    }
                }
            } catch (Throwable t) {
                errors.add(t);
            }
        });
        Thread remover = new Thread(() -> {
            try {
                start.await();
                int i = 0;
                while (!writersDone.get()) {
                    tree.removeTenant(TENANTS.get(i++ % TENANTS.size()));
                    Thread.onSpinWait();
                }
            } catch (Throwable t) {
                errors.add(t);
            }
        });
        for (Thread t : writers) {
            t.start();
        }
        evictor.start();
        remover.start();
        start.countDown();
        for (Thread t : writers) {
            t.join(TimeUnit.SECONDS.toMillis(60));
        }
        writersDone.set(true);
        evictor.join(TimeUnit.SECONDS.toMillis(60));
        remover.join(TimeUnit.SECONDS.toMillis(60));

        assertThat(errors).isEmpty();
        Map<String, Long> recount = tree.verify();
        assertThat(recount).isEqualTo(tree.tenantCharCounts());
        tree.evictTenantBySize(300);
        assertThat(tree.tenantCharCounts().values()).allSatisfy(c -> assertThat(c).isLessThanOrEqualTo(300));
        tree.verify();
    }
}
