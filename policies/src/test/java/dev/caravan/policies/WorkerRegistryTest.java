package dev.caravan.policies;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

class WorkerRegistryTest {

    /** Records every notification as "+url" or "-url", in delivery order. */
    private static final class Recorder implements WorkerListener {
        final List<String> events = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onWorkerAdded(Worker worker) {
            events.add("+" + worker.url());
        }

        @Override
        public void onWorkerRemoved(Worker worker) {
            events.add("-" + worker.url());
        }
    }

    private static Worker worker(String url) {
        return Worker.builder(url).build();
    }

    @Test
    void listsWorkersInRegistrationOrderAcrossAddsAndRemovals() {
        WorkerRegistry registry = new WorkerRegistry();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            registry.add(Worker.builder("http://10.0.0." + i + ":8000").build());
            expected.add("http://10.0.0." + i + ":8000");
        }
        registry.removeByUrl("http://10.0.0.5:8000");
        expected.remove("http://10.0.0.5:8000");
        registry.add(Worker.builder("http://10.0.0.99:8000").role(WorkerRole.PREFILL).build());
        expected.add("http://10.0.0.99:8000");

        assertThat(registry.all().stream().map(Worker::url)).containsExactlyElementsOf(expected);
        assertThat(registry.list(null, WorkerRole.REGULAR).stream().map(Worker::url))
                .containsExactlyElementsOf(expected.subList(0, expected.size() - 1));
    }

    @Test
    void listenersHearEachAddAndRemoveExactlyOnce() {
        WorkerRegistry registry = new WorkerRegistry();
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        registry.addListener(a);
        registry.addListener(b);
        Worker w0 = registry.add(worker("http://w0:8000"));
        registry.add(worker("http://w1:8000"));
        assertThat(registry.remove(w0.id())).containsSame(w0);
        assertThat(registry.remove(w0.id())).isEmpty(); // unknown now: nobody is told
        assertThat(registry.removeByUrl("http://w1:8000/")).hasSize(1);
        assertThat(registry.removeByUrl("http://w1:8000")).isEmpty();

        List<String> expected = List.of("+http://w0:8000", "+http://w1:8000", "-http://w0:8000", "-http://w1:8000");
        assertThat(a.events).containsExactlyElementsOf(expected);
        assertThat(b.events).containsExactlyElementsOf(expected);
    }

    @Test
    void listenerIsToldOnlyAboutChangesWhileRegistered() {
        WorkerRegistry registry = new WorkerRegistry();
        Worker early = registry.add(worker("http://early:8000"));
        Recorder r = new Recorder();
        registry.addListener(r);
        registry.add(worker("http://mid:8000"));
        registry.removeListener(r);
        registry.remove(early.id());
        assertThat(r.events).containsExactly("+http://mid:8000");
    }

    @Test
    void failingListenerDoesNotStopTheOthersNorTheChange() {
        WorkerRegistry registry = new WorkerRegistry();
        registry.addListener(new WorkerListener() {
            @Override
            public void onWorkerAdded(Worker worker) {
                throw new IllegalStateException("boom");
            }
        });
        Recorder r = new Recorder();
        registry.addListener(r);
        registry.add(worker("http://w0:8000"));
        assertThat(registry.size()).isEqualTo(1);
        assertThat(r.events).containsExactly("+http://w0:8000");
    }

    @Test
    void sameUrlIsRejectedForTheSameRoleButAcceptedForAnother() {
        WorkerRegistry registry = new WorkerRegistry();
        Recorder r = new Recorder();
        registry.addListener(r);
        Worker first = registry.add(worker("http://w0:8000"));
        assertThatThrownBy(() -> registry.add(worker("http://w0:8000/")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("worker http://w0:8000 (regular) is already registered as " + first.id());
        Worker prefill = registry.add(Worker.builder("http://w0:8000").role(WorkerRole.PREFILL).build());

        assertThat(registry.all()).containsExactly(first, prefill);
        assertThat(registry.findByUrl("http://w0:8000")).containsSame(first); // the first registered wins
        assertThat(registry.removeByUrl("http://w0:8000")).containsExactly(first, prefill);
        assertThat(r.events).containsExactly("+http://w0:8000", "+http://w0:8000", "-http://w0:8000",
                "-http://w0:8000");
    }

    @Test
    void sameIdIsRejectedInsteadOfSilentlyReplacingTheWorker() {
        WorkerRegistry registry = new WorkerRegistry();
        Worker a = registry.add(Worker.builder("http://a:8000").id("w-1").build());
        assertThatThrownBy(() -> registry.add(Worker.builder("http://b:8000").id("w-1").build()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("worker id w-1 is already registered for http://a:8000");
        assertThat(registry.all()).containsExactly(a);
        assertThat(registry.get("w-1")).containsSame(a);
    }

    @Test
    void listsByModelAndRole() {
        WorkerRegistry registry = new WorkerRegistry();
        Worker llamaRegular = registry.add(Worker.builder("http://a:8000").modelId("llama").build());
        Worker llamaPrefill = registry.add(Worker.builder("http://b:8000").modelId("llama")
                .role(WorkerRole.PREFILL).build());
        Worker qwenDecode = registry.add(Worker.builder("http://c:8000").modelId("qwen")
                .role(WorkerRole.DECODE).build());
        Worker anyModel = registry.add(Worker.builder("http://d:8000").build());

        assertThat(registry.list("llama", null)).containsExactly(llamaRegular, llamaPrefill);
        assertThat(registry.list(" llama ", WorkerRole.PREFILL)).containsExactly(llamaPrefill);
        assertThat(registry.list(null, WorkerRole.DECODE)).containsExactly(qwenDecode);
        assertThat(registry.list(null, WorkerRole.REGULAR)).containsExactly(llamaRegular, anyModel);
        assertThat(registry.list("", null)).containsExactly(anyModel); // blank model = "unknown"
        assertThat(registry.list("mistral", null)).isEmpty();
        assertThat(registry.list(null, null)).containsExactlyElementsOf(registry.all());
    }

    @Test
    void snapshotsStayConsistentWhileOtherThreadsAddAndRemove() throws Exception {
        WorkerRegistry registry = new WorkerRegistry();
        List<Worker> stable = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            stable.add(registry.add(worker("http://stable" + i + ":8000")));
        }
        int writers = 3;
        int rounds = 100;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        try {
            List<Future<?>> writes = new ArrayList<>();
            for (int t = 0; t < writers; t++) {
                int id = t;
                writes.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        Worker w = registry.add(worker("http://churn" + id + "-" + i + ":8000"));
                        assertThat(registry.remove(w.id())).containsSame(w);
                    }
                    return null;
                }));
            }
            List<Future<Integer>> reads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                reads.add(pool.submit(() -> {
                    start.await();
                    int snapshots = 0;
                    while (writing.get() || snapshots == 0) {
                        List<Worker> all = registry.all();
                        Set<String> ids = new HashSet<>();
                        for (Worker w : all) { // iterating a snapshot while writers change the registry
                            assertThat(w).isNotNull();
                            assertThat(ids.add(w.id())).as("duplicate %s", w).isTrue();
                        }
                        assertThat(all.subList(0, 4)).containsExactlyElementsOf(stable); // order is kept
                        assertThat(all.size()).isBetween(4, 4 + writers);
                        assertThat(registry.list(null, WorkerRole.REGULAR)).hasSizeBetween(4, 4 + writers);
                        snapshots++;
                    }
                    return snapshots;
                }));
            }
            start.countDown();
            for (Future<?> f : writes) {
                f.get(60, TimeUnit.SECONDS);
            }
            writing.set(false);
            for (Future<Integer> f : reads) {
                assertThat(f.get(60, TimeUnit.SECONDS)).isPositive();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(registry.all()).containsExactlyElementsOf(stable);
    }

    /**
     * Thread A adds w and, inside the first listener's onWorkerAdded, waits until thread B has removed w from the
     * registry. If notifications were delivered outside any ordering, B would tell the recorder "-w" while A is still
     * on its way to telling it "+w".
     */
    @Test
    void concurrentAddThenRemoveReachListenersInChangeOrder() throws Exception {
        WorkerRegistry registry = new WorkerRegistry();
        Worker w = worker("http://w0:8000");
        CountDownLatch added = new CountDownLatch(1);
        registry.addListener(new WorkerListener() {
            @Override
            public void onWorkerAdded(Worker worker) {
                added.countDown();
                await().atMost(Duration.ofSeconds(10)).until(() -> registry.get(worker.id()).isEmpty());
            }
        });
        Recorder recorder = new Recorder();
        registry.addListener(recorder);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> adder = pool.submit(() -> registry.add(w));
            Future<?> remover = pool.submit(() -> {
                added.await();
                return registry.remove(w.id());
            });
            adder.get(30, TimeUnit.SECONDS);
            remover.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(recorder.events).containsExactly("+http://w0:8000", "-http://w0:8000");
    }

    @Test
    void aListenerMayChangeTheRegistryAndItsEventFollowsTheCurrentOne() {
        WorkerRegistry registry = new WorkerRegistry();
        registry.addListener(new WorkerListener() {
            @Override
            public void onWorkerAdded(Worker worker) {
                if (worker.url().equals("http://parent:8000")) {
                    registry.add(worker("http://child:8000"));
                }
            }
        });
        Recorder recorder = new Recorder();
        registry.addListener(recorder);
        registry.add(worker("http://parent:8000"));
        assertThat(recorder.events).containsExactly("+http://parent:8000", "+http://child:8000");
        assertThat(registry.size()).isEqualTo(2);
    }
}
