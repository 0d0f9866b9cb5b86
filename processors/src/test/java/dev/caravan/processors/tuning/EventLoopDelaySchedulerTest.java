package dev.caravan.processors.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.time.DelayScheduler;

class EventLoopDelaySchedulerTest {

    private final Vertx vertx = Vertx.vertx();
    private final DelayScheduler timers = new EventLoopDelayScheduler(vertx);
    private final List<String> ran = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void aTaskRunsOnTheContextThatScheduledItWithThatContextCurrent() {
        Context context = vertx.getOrCreateContext();
        AtomicReference<Context> scheduledOn = new AtomicReference<>();
        AtomicReference<Context> ranOn = new AtomicReference<>();
        context.runOnContext(v -> {
            scheduledOn.set(Vertx.currentContext());
            timers.schedule(1, () -> ranOn.set(Vertx.currentContext()));
        });

        await().until(() -> ranOn.get() != null);
        assertThat(ranOn.get()).isSameAs(scheduledOn.get()).isSameAs(context);
    }

    @Test
    void aCancelledTaskNeverRunsAndLaterOnesOnTheLoopDo() {
        vertx.getOrCreateContext().runOnContext(v -> {
            DelayScheduler.Scheduled first = timers.schedule(1, () -> ran.add("cancelled"));
            timers.schedule(20, () -> ran.add("later"));
            first.cancel();
        });

        await().until(() -> ran.contains("later"));
        assertThat(ran).containsExactly("later"); // the cancelled one was due first on the same loop
    }

    @Test
    void cancellingATaskThatRanChangesNothing() {
        AtomicReference<DelayScheduler.Scheduled> handle = new AtomicReference<>();
        vertx.getOrCreateContext().runOnContext(v -> handle.set(timers.schedule(1, () -> ran.add("ran"))));

        await().until(() -> ran.contains("ran"));
        handle.get().cancel();
        handle.get().cancel();
        assertThat(ran).containsExactly("ran");
    }

    @Test
    void aTaskThatThrowsReachesTheContextsExceptionHandlerAndTheLoopGoesOn() {
        Context context = vertx.getOrCreateContext();
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        context.exceptionHandler(reported::add);
        context.runOnContext(v -> {
            timers.schedule(1, () -> {
                throw new IllegalStateException("boom");
            });
            timers.schedule(10, () -> ran.add("after"));
        });

        await().until(() -> ran.contains("after"));
        assertThat(reported).singleElement().extracting(Throwable::getMessage).isEqualTo("boom");
    }
}
