package dev.caravan.it.request;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

/**
 * Opens many SSE chat streams through a gateway at once from a non-blocking Vert.x client (one connection each, no
 * thread per stream on the client side either) and samples, every 20 ms while they are open, the whole JVM's thread
 * count ({@link ThreadMXBean}) and the requests in flight through the gateway, so a test can show that open streams do
 * not hold threads.
 */
public final class ConcurrentStreams {

    /**
     * @param ended        every stream ended (completed or failed) within the timeout
     * @param completed    streams that answered 200 and ended with {@code data: [DONE]}
     * @param peakOpen     most responses the client was receiving at once
     * @param peakInFlight highest in-flight count sampled
     * @param peakThreads  most JVM threads sampled
     */
    public record Result(boolean ended, int completed, int peakOpen, int peakInFlight, int peakThreads) {
    }

    private ConcurrentStreams() {
    }

    /**
     * Sends {@code streams} {@code POST /v1/chat/completions} to {@code 127.0.0.1:port}, request {@code i} with body
     * {@code body.apply(i)}, and waits up to {@code timeoutSeconds} for all of them to end.
     *
     * @param inFlight the gateway's requests in flight, sampled with the thread count
     */
    public static Result run(int port, int streams, IntFunction<String> body, IntSupplier inFlight, long timeoutSeconds)
            throws InterruptedException {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Vertx vertx = Vertx.vertx();
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false),
                new PoolOptions().setHttp1MaxSize(streams));
        AtomicInteger open = new AtomicInteger();
        AtomicInteger peakOpen = new AtomicInteger();
        AtomicInteger peakInFlight = new AtomicInteger();
        AtomicInteger peakThreads = new AtomicInteger(threads.getThreadCount());
        AtomicInteger completed = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(streams);
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleAtFixedRate(() -> {
            peakThreads.accumulateAndGet(threads.getThreadCount(), Math::max);
            peakInFlight.accumulateAndGet(inFlight.getAsInt(), Math::max);
        }, 0, 20, TimeUnit.MILLISECONDS);
        try {
            for (int i = 0; i < streams; i++) {
                Buffer request = Buffer.buffer(body.apply(i));
                client.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port)
                                .setURI("/v1/chat/completions").putHeader("Content-Type", "application/json"))
                        .compose(req -> req.send(request))
                        .onSuccess(resp -> {
                            peakOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
                            Buffer all = Buffer.buffer();
                            resp.handler(all::appendBuffer);
                            resp.endHandler(v -> {
                                open.decrementAndGet();
                                if (resp.statusCode() == 200 && all.toString().contains("data: [DONE]")) {
                                    completed.incrementAndGet();
                                }
                                done.countDown();
                            });
                            resp.exceptionHandler(e -> done.countDown());
                        })
                        .onFailure(e -> done.countDown());
            }
            boolean ended = done.await(timeoutSeconds, TimeUnit.SECONDS);
            return new Result(ended, completed.get(), peakOpen.get(), peakInFlight.get(), peakThreads.get());
        } finally {
            sampler.shutdownNow();
            client.close();
            vertx.close();
        }
    }
}
