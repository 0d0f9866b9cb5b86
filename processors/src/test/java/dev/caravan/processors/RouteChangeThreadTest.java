package dev.caravan.processors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.LifecycleStrategySupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RouteChangeThread}: Camel's stop walks the routes, so a stopping context first lets the queued route changes
 * finish, and refuses later ones.
 */
class RouteChangeThreadTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final DefaultCamelContext camel = new DefaultCamelContext();
    private final RouteChangeThread changes = new RouteChangeThread("test-route-changes", "Test route changes");
    private final List<String> events = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() {
        changes.close();
        camel.stop();
    }

    @Test
    void aStoppingContextWaitsForTheChangeAlreadyQueuedBeforeItGoesOn() throws Exception {
        changes.stopWith(camel);
        camel.addLifecycleStrategy(new LifecycleStrategySupport() { // called after the thread's own, in order
            @Override
            public void onContextStopping(CamelContext c) {
                events.add("context went on stopping");
            }
        });
        camel.start();
        CountDownLatch release = new CountDownLatch(1);
        changes.submit(() -> {
            await().atMost(WAIT).until(() -> release.getCount() == 0);
            events.add("queued change ran");
        });
        AtomicReference<Thread> stopper = new AtomicReference<>();
        CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> {
            stopper.set(Thread.currentThread());
            camel.stop();
        });
        // the stop is waiting for the change (or, were it not to wait, has gone on without it)
        await().atMost(WAIT).until(() -> stopper.get() != null
                && (stopper.get().getState() == Thread.State.TIMED_WAITING || !events.isEmpty()));
        release.countDown();
        stop.get();

        assertThat(events).containsExactly("queued change ran", "context went on stopping");
    }

    @Test
    void aChangeSubmittedOnceTheContextIsStoppingNeverRuns() {
        changes.stopWith(camel);
        camel.start();
        camel.stop();

        changes.submit(() -> events.add("late change"));
        changes.schedule(() -> events.add("late retry"), 0);

        assertThat(events).isEmpty(); // refused at once: the thread is shut down, nothing is left to run them
    }
}
