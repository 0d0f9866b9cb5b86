package dev.caravan.it;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

/**
 * Many concurrent streaming requests from one non-blocking client, each recorded to the end: status, the worker that
 * served it ({@code X-Caravan-Worker}), whether the head arrived, how the body ended ({@code [DONE]} seen and ended
 * cleanly, or the connection broke). For chaos tests that must classify every request exactly.
 *
 * <pre>{@code
 * try (StreamRecorder rec = new StreamRecorder(gatewayPort)) {
 *     List<StreamRecorder.Stream> batch = rec.send(100, "/v1/chat/completions", body);
 *     rec.awaitAll(Duration.ofSeconds(60));
 * }
 * }</pre>
 */
public final class StreamRecorder implements AutoCloseable {

    /** One request's life. Fields are written by the client's event loop and read after {@link #awaitAll}. */
    public static final class Stream {
        public final int index;
        public volatile int status = -1;
        public volatile String worker;
        public volatile long headNanos;
        public volatile long endNanos;
        public volatile boolean headReceived;
        public volatile boolean sawDone;
        public volatile boolean ended;
        public volatile boolean broken;
        public volatile String error;
        final Buffer body = Buffer.buffer();

        Stream(int index) {
            this.index = index;
        }

        /** Complete: 200, every chunk through {@code data: [DONE]}, ended cleanly. */
        public boolean completed() {
            return status == 200 && sawDone && ended && !broken;
        }

        /** A complete non-streamed answer: 200 and a JSON body with {@code choices} that ended cleanly. */
        public boolean answered() {
            return status == 200 && ended && !broken && body().contains("\"choices\"");
        }

        public synchronized String body() {
            return body.toString();
        }

        @Override
        public String toString() {
            String text = body();
            return "Stream#" + index + "{status=" + status + ", worker=" + worker + ", done=" + sawDone + ", ended="
                    + ended + ", broken=" + broken + (error == null ? "" : ", error=" + error) + ", tail="
                    + text.substring(Math.max(0, text.length() - 200)).replace("\n", "\\n") + "}";
        }
    }

    private final Vertx vertx = Vertx.vertx();
    private final HttpClient client;
    private final int port;
    private final List<Stream> all = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private int outstanding;

    public StreamRecorder(int port) {
        this.port = port;
        this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false),
                new PoolOptions().setHttp1MaxSize(2000));
    }

    /** Sends {@code n} POSTs with this JSON body at once; returns their records (filled in as they progress). */
    public List<Stream> send(int n, String path, String json, String... headers) {
        List<Stream> batch = new CopyOnWriteArrayList<>();
        Buffer body = Buffer.buffer(json);
        synchronized (lock) {
            outstanding += n;
        }
        for (int i = 0; i < n; i++) {
            Stream s = new Stream(all.size());
            all.add(s);
            batch.add(s);
            RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port)
                    .setURI(path).putHeader("Content-Type", "application/json");
            for (int h = 0; h + 1 < headers.length; h += 2) {
                options.putHeader(headers[h], headers[h + 1]);
            }
            client.request(options).compose(req -> req.send(body)).onSuccess(resp -> {
                s.status = resp.statusCode();
                s.worker = resp.getHeader("X-Caravan-Worker");
                s.headNanos = System.nanoTime();
                s.headReceived = true;
                resp.handler(chunk -> {
                    synchronized (s) {
                        s.body.appendBuffer(chunk);
                    }
                });
                resp.exceptionHandler(e -> finish(s, true, e.toString()));
                resp.endHandler(v -> finish(s, false, null));
            }).onFailure(e -> finish(s, true, e.toString()));
        }
        return batch;
    }

    private void finish(Stream s, boolean broken, String error) {
        synchronized (s) {
            if (s.endNanos != 0) {
                return;
            }
            s.endNanos = System.nanoTime();
            s.sawDone = s.body.toString().contains("data: [DONE]"); // chunks may split the marker
            s.broken = broken;
            s.ended = !broken;
            s.error = error;
        }
        synchronized (lock) {
            outstanding--;
            lock.notifyAll();
        }
    }

    /** Waits until every request sent so far has ended or broken. */
    public boolean awaitAll(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (outstanding > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return true;
        }
    }

    /** Requests whose response head has arrived. */
    public long headsReceived(List<Stream> batch) {
        return batch.stream().filter(s -> s.headReceived).count();
    }

    public List<Stream> all() {
        return all;
    }

    @Override
    public void close() {
        client.close();
        vertx.close();
    }
}
