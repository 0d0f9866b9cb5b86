package dev.caravan.bench.sse;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

/**
 * The load side of the SSE relay benchmark: keeps {@code streams} chat-completion streams open through a target (the
 * origin directly, nginx or the gateway), a new one starting as soon as one ends, and measures over a window after a
 * warm-up: the events received per second and each event's one-way latency (receive {@code nanoTime} minus the
 * origin's, {@link SseOrigin}). It also reads the CPU time the target's processes ({@code --pids}) spent in the window
 * from {@code /proc}, and their thread count and resident memory at its end. Prints one line of
 * {@code key=value} pairs.
 *
 * <p>Usage: {@code SseClient URL STREAMS WARMUP_S SECONDS [PIDS]} (PIDS comma-separated, or {@code -}).
 */
public final class SseClient {

    private static final byte[] FP = "\"fp_".getBytes(StandardCharsets.US_ASCII);
    private static final long CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

    private final Vertx vertx;
    private final HttpClient client;
    private final RequestOptions request;
    private final Buffer body;
    private volatile boolean measuring;
    private volatile boolean stopping;
    private long[] latencies = new long[1 << 20];
    private int count;
    private long events;
    private long streamsCompleted;
    private long streamErrors;

    private SseClient(Vertx vertx, URI url, int streams) {
        this.vertx = vertx;
        this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true),
                new PoolOptions().setHttp1MaxSize(streams + 16));
        this.request = new RequestOptions().setMethod(HttpMethod.POST).setHost(url.getHost()).setPort(url.getPort())
                .setURI(url.getPath()).putHeader("content-type", "application/json");
        this.body = Buffer.buffer("{\"model\":\"" + SseOrigin.MODEL + "\",\"stream\":true,\"messages\":[{\"role\":"
                + "\"user\",\"content\":\"Write a long story about caravans crossing the desert.\"}]}");
    }

    public static void main(String[] args) throws Exception {
        URI url = URI.create(args[0]);
        int streams = Integer.parseInt(args[1]);
        long warmupS = Long.parseLong(args[2]);
        long seconds = Long.parseLong(args[3]);
        long[] pids = args.length > 4 && !args[4].equals("-")
                ? Arrays.stream(args[4].split(",")).mapToLong(Long::parseLong).toArray() : new long[0];
        // one event loop: everything the client does runs there, so its counters need no locks
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
        SseClient c = new SseClient(vertx, url, streams);
        // ramp up over a second so the streams' token ticks spread out as independent clients' would
        for (int i = 0; i < streams; i++) {
            vertx.setTimer(1 + (long) i * 1000 / streams, id -> c.open());
        }
        Thread.sleep(TimeUnit.SECONDS.toMillis(warmupS));
        long cpu0 = cpuTicks(pids);
        long t0 = System.nanoTime();
        long[] startCounts = c.onLoop(() -> {
            c.measuring = true;
            return new long[] {c.events, c.streamsCompleted, c.streamErrors};
        });
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        long[] endCounts = c.onLoop(() -> {
            c.measuring = false;
            return new long[] {c.events, c.streamsCompleted, c.streamErrors};
        });
        long t1 = System.nanoTime();
        long cpu1 = cpuTicks(pids);
        c.stopping = true;
        long[] sorted = c.onLoop(() -> Arrays.copyOf(c.latencies, c.count));
        Arrays.sort(sorted);
        double windowS = (t1 - t0) / 1e9;
        long ev = endCounts[0] - startCounts[0];
        double cpuMs = (cpu1 - cpu0) * 1000.0 / CLOCK_TICKS_PER_SECOND;
        System.out.printf(java.util.Locale.ROOT,
                "events=%d events_per_s=%.0f lat_p50_ms=%.3f lat_p99_ms=%.3f lat_p999_ms=%.3f lat_max_ms=%.3f "
                        + "streams_completed=%d stream_errors=%d cpu_ms=%.0f cpu_ms_per_1k_events=%.2f threads=%d "
                        + "rss_mb=%.0f%n",
                ev, ev / windowS, ms(sorted, 0.50), ms(sorted, 0.99), ms(sorted, 0.999),
                sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1] / 1e6, endCounts[1] - startCounts[1],
                endCounts[2] - startCounts[2], cpuMs, ev == 0 ? Double.NaN : cpuMs / (ev / 1000.0),
                status(pids, "Threads:"), status(pids, "VmRSS:") / 1024.0);
        vertx.close();
        System.exit(0);
    }

    private void open() {
        if (stopping) {
            return;
        }
        client.request(request).compose(req -> req.send(body)).onComplete(ar -> {
            if (ar.failed()) {
                failed();
                return;
            }
            HttpClientResponse response = ar.result();
            if (response.statusCode() != 200) {
                response.body().onComplete(b -> failed());
                return;
            }
            Buffer[] partial = {null};
            response.handler(chunk -> partial[0] = onChunk(partial[0], chunk));
            response.exceptionHandler(e -> failed());
            response.endHandler(v -> {
                if (measuring) {
                    streamsCompleted++;
                }
                open();
            });
        });
    }

    private void failed() {
        if (measuring) {
            streamErrors++;
        }
        if (!stopping) {
            vertx.setTimer(100, id -> open());
        }
    }

    /** Reads the complete lines of {@code chunk} (after what an earlier chunk left); returns the incomplete rest. */
    private Buffer onChunk(Buffer partial, Buffer chunk) {
        long now = System.nanoTime();
        byte[] data = partial == null ? chunk.getBytes() : partial.appendBuffer(chunk).getBytes();
        int lineStart = 0;
        for (int i = 0; i < data.length; i++) {
            if (data[i] == '\n') {
                onLine(data, lineStart, i, now);
                lineStart = i + 1;
            }
        }
        return lineStart == data.length ? null : Buffer.buffer(Arrays.copyOfRange(data, lineStart, data.length));
    }

    private void onLine(byte[] data, int start, int end, long now) {
        int at = indexOf(data, start, end);
        if (at < 0) {
            return;
        }
        long emitted = 0;
        for (int i = at + FP.length; i < end && data[i] >= '0' && data[i] <= '9'; i++) {
            emitted = emitted * 10 + (data[i] - '0');
        }
        if (!measuring) {
            return;
        }
        events++;
        if (count == latencies.length) {
            latencies = Arrays.copyOf(latencies, count * 2);
        }
        latencies[count++] = now - emitted;
    }

    private static int indexOf(byte[] data, int start, int end) {
        outer:
        for (int i = start; i <= end - FP.length; i++) {
            for (int j = 0; j < FP.length; j++) {
                if (data[i + j] != FP[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private <T> T onLoop(java.util.concurrent.Callable<T> task) throws Exception {
        Object[] result = new Object[1];
        Exception[] failure = new Exception[1];
        CountDownLatch done = new CountDownLatch(1);
        vertx.runOnContext(v -> {
            try {
                result[0] = task.call();
            } catch (Exception e) {
                failure[0] = e;
            }
            done.countDown();
        });
        done.await();
        if (failure[0] != null) {
            throw failure[0];
        }
        @SuppressWarnings("unchecked")
        T t = (T) result[0];
        return t;
    }

    private static double ms(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))] / 1e6;
    }

    /** utime + stime of the processes, in clock ticks. */
    private static long cpuTicks(long[] pids) throws Exception {
        long ticks = 0;
        for (long pid : pids) {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
        return ticks;
    }

    /** The sum of a numeric /proc/PID/status field over the processes (kB for memory). */
    private static long status(long[] pids, String field) throws Exception {
        long sum = 0;
        for (long pid : pids) {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith(field)) {
                    sum += Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
                }
            }
        }
        return sum;
    }
}
