package dev.caravan.bench.drive;

import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.caravan.bench.workload.BenchRequest;
import dev.caravan.bench.workload.Workload;
import dev.caravan.policies.SelectionContext;
import dev.caravan.processors.flow.TenantsConfig;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.parsetools.RecordParser;

/**
 * Drives a workload through real HTTP, open loop: every request leaves at its scheduled time (simulated arrival time /
 * time scale after the start) whether or not earlier ones have answered, so a slow policy builds queues instead of
 * slowing the offered load down. Follow-up turns (multi-turn chat) are scheduled when the answer they extend arrives.
 *
 * <p>One sender thread takes due requests from a {@link DelayQueue} (it always holds the next open-loop arrival plus
 * any pending follow-ups), records the ideal reuse ({@link ReuseTracker}), serialises the body and hands it to a
 * non-blocking Vert.x client; responses are read as server-sent events on the client's event loop
 * ({@link StreamReader}). Every request carries {@code X-SMG-Routing-Key} with its tenant or session, so
 * consistent hashing, manual and nginx's {@code hash} can keep affinity.
 *
 * <p>Given several base URLs (N gateway replicas), the driver is their round-robin front: request {@code i} in send
 * order goes to URL {@code i mod N}, follow-up turns included, as a client-side load balancer would spread them.
 */
public final class LoadDriver {

    /**
     * @param bases          gateway (or nginx) base URLs, alternated over in send order
     * @param model          the {@code model} field sent
     * @param timeScale      simulated seconds per wall second (the engines' own time scale)
     * @param warmup         requests sent first and marked as warm-up
     * @param requestTimeout wall-clock limit of one request without bytes (then it fails)
     */
    public record Settings(List<URI> bases, String model, double timeScale, int warmup, long requestTimeoutMs) {
        public Settings {
            bases = List.copyOf(bases);
            if (bases.isEmpty()) {
                throw new IllegalArgumentException("no base URL to send to");
            }
        }

        /** One base URL. */
        public Settings(URI base, String model, double timeScale, int warmup, long requestTimeoutMs) {
            this(List.of(base), model, timeScale, warmup, requestTimeoutMs);
        }
    }

    /** Everything a run produced. */
    public record Run(List<RequestRecord> records, long startNanos, long firstMeasuredSentNanos, long lastSentNanos,
                      long endNanos) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long LEAD_NANOS = 200_000_000L;

    private final Vertx vertx;
    private final Settings settings;
    private final Workload workload;
    private final ReuseTracker reuse;
    private final Progress progress;
    private final DelayQueue<Pending> queue = new DelayQueue<>();
    private final AtomicInteger outstanding = new AtomicInteger();
    /** The gateway's tenant header, honoured when the tenants file says {@code trustTenantHeader: true}. */
    static final String TENANT_HEADER = TenantsConfig.TENANT_HEADER;

    private final ConcurrentLinkedQueue<RequestRecord> records = new ConcurrentLinkedQueue<>();
    private long startNanos;
    private volatile long firstMeasuredSent = -1;
    private volatile long lastSent = -1;

    public LoadDriver(Vertx vertx, Settings settings, Workload workload, ReuseTracker reuse, Progress progress) {
        this.vertx = vertx;
        this.settings = settings;
        this.workload = workload;
        this.reuse = reuse;
        this.progress = progress;
    }

    /** A request waiting for its wall-clock time. */
    private static final class Pending implements Delayed {
        final BenchRequest request;
        final long dueNanos;
        final boolean openLoop;

        Pending(BenchRequest request, long dueNanos, boolean openLoop) {
            this.request = request;
            this.dueNanos = dueNanos;
            this.openLoop = openLoop;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(dueNanos, ((Pending) o).dueNanos);
        }
    }

    /**
     * Sends the whole workload and waits for every answer (or its timeout).
     *
     * @param deadlineNanos wall-clock time after which requests still open are abandoned as failed
     */
    public Run run(long deadlineNanos) throws InterruptedException {
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true),
                new PoolOptions().setHttp1MaxSize(4096));
        try {
            startNanos = System.nanoTime() + LEAD_NANOS;
            Iterator<BenchRequest> arrivals = workload.arrivals();
            long seq = 0;
            if (arrivals.hasNext()) {
                enqueue(arrivals.next(), true);
            }
            while (true) {
                Pending p = queue.poll(50, TimeUnit.MILLISECONDS);
                if (p == null) {
                    if ((!arrivals.hasNext() && outstanding.get() == 0) || System.nanoTime() > deadlineNanos) {
                        break;
                    }
                    continue;
                }
                if (p.openLoop && arrivals.hasNext()) {
                    enqueue(arrivals.next(), true);
                }
                send(client, p, seq++);
            }
            long end = System.nanoTime();
            List<RequestRecord> out = new ArrayList<>(records);
            for (RequestRecord r : out) {
                if (r.doneNanos < 0) {
                    r.error = "no answer before the deadline";
                }
            }
            out.sort((a, b) -> Long.compare(a.seq, b.seq));
            return new Run(out, startNanos, firstMeasuredSent, lastSent, end);
        } finally {
            client.close();
        }
    }

    private void enqueue(BenchRequest r, boolean openLoop) {
        outstanding.incrementAndGet();
        queue.add(new Pending(r, startNanos + (long) (r.atNanos() / settings.timeScale()), openLoop));
    }

    private void send(HttpClient client, Pending p, long seq) {
        BenchRequest req = p.request;
        boolean warm = seq < settings.warmup();
        int reusable = reuse.admit(req);
        int replica = (int) (seq % settings.bases().size());
        URI base = settings.bases().get(replica);
        RequestRecord rec = new RequestRecord(seq, warm, req.atNanos(), p.dueNanos, reusable, req.prefixTokens(),
                req.routingKey(), replica);
        records.add(rec);
        Buffer body;
        try {
            body = Buffer.buffer(JSON.writeValueAsBytes(req.body(settings.model())));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        long now = System.nanoTime();
        rec.sentNanos = now;
        if (!warm && firstMeasuredSent < 0) {
            firstMeasuredSent = now;
        }
        lastSent = now;
        progress.onSent(now - p.dueNanos);
        RequestOptions opts = new RequestOptions().setMethod(HttpMethod.POST).setHost(base.getHost())
                .setPort(base.getPort()).setURI(req.path())
                .setIdleTimeout(settings.requestTimeoutMs())
                .putHeader("content-type", "application/json")
                .putHeader(SelectionContext.ROUTING_KEY_HEADER, req.routingKey());
        if (req.tenant() != null) {
            opts.putHeader(TENANT_HEADER, req.tenant());
        }
        StreamReader reader = new StreamReader(rec, workload.needsOutputText());
        // chained on an event-loop context, so the response's handlers are set before its first chunk is delivered
        // (chained from this sender thread, a fast response could complete the future first and lose its chunks)
        vertx.runOnContext(v -> client.request(opts)
                .compose(creq -> creq.send(body))
                .onSuccess(resp -> read(resp, rec, reader, req))
                .onFailure(e -> finish(rec, req, reader, 0, e.toString())));
    }

    private void read(HttpClientResponse resp, RequestRecord rec, StreamReader reader, BenchRequest req) {
        int status = resp.statusCode();
        rec.decision = resp.getHeader("x-caravan-decision");
        if (status != 200) {
            resp.body().onComplete(b -> finish(rec, req, reader, status,
                    b.succeeded() ? b.result().toString() : String.valueOf(b.cause())));
            return;
        }
        RecordParser parser = RecordParser.newDelimited("\n\n", event -> reader.onEvent(event, System.nanoTime()));
        try {
            resp.handler(parser);
            resp.exceptionHandler(e -> finish(rec, req, reader, 0, e.toString()));
            resp.endHandler(v -> finish(rec, req, reader, status, rec.error));
        } catch (IllegalStateException e) {
            // the whole response arrived before this callback ran (a loaded machine): its body is gone, so the
            // request counts as failed rather than waiting for an end that already happened (the run would hang)
            finish(rec, req, reader, 0, "response ended before the driver could read it");
        }
    }

    private void finish(RequestRecord rec, BenchRequest req, StreamReader reader, int status, String error) {
        synchronized (rec) {
            if (rec.doneNanos >= 0) {
                return;
            }
            rec.status = status;
            rec.error = error != null ? error : rec.promptTokens == 0 ? "no usage in the response" : null;
            rec.doneNanos = System.nanoTime();
        }
        try {
            progress.onDone(rec.ok(), rec.cachedTokens, rec.promptTokens);
            if (rec.ok() && workload.needsOutputText()) {
                String output = reader.output();
                reuse.remember(req, output);
                long doneVirtual = (long) ((rec.doneNanos - startNanos) * settings.timeScale());
                BenchRequest next = workload.followUp(req, output, Math.max(doneVirtual, req.atNanos()));
                if (next != null) {
                    enqueue(next, false);
                }
            }
        } finally {
            outstanding.decrementAndGet(); // even if the follow-up failed: the run must end, not wait for the deadline
        }
    }
}
