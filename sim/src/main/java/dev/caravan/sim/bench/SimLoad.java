package dev.caravan.sim.bench;

import java.net.URI;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.PoolOptions;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Closed-loop load driver for measuring how many requests per second a simulator process sustains: keeps
 * {@code --concurrency} requests in flight, spread round-robin over the engines, each request sent again as soon as
 * the previous one completes. Prompts are a tenant prefix (one of {@code --tenants}) plus a unique suffix, like the
 * b2b scenario. Prints throughput and latency percentiles of the measured window (after warm-up).
 * Non-blocking (Vert.x HttpClient), meant to run as its own process next to {@code ./caravan sim}.
 */
@Command(name = "sim-load", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Closed-loop load against simulated engines; reports requests/second and latency.")
public final class SimLoad implements Callable<Integer> {

    @Option(names = "--base-url", description = "URL of the first engine.")
    String baseUrl = "http://127.0.0.1:8000";
    @Option(names = "--count", description = "Engines on consecutive ports from --base-url.")
    int count = 8;
    @Option(names = "--concurrency", description = "Requests in flight.")
    int concurrency = 256;
    @Option(names = "--duration-s", description = "Measured seconds.")
    int durationS = 20;
    @Option(names = "--warmup-s", description = "Unmeasured seconds first.")
    int warmupS = 5;
    @Option(names = "--stream", description = "Use stream: true (SSE).")
    boolean stream;
    @Option(names = "--max-tokens", description = "Tokens per completion.")
    int maxTokens = 8;
    @Option(names = "--prefix-chars", description = "Characters of the shared tenant prefix.")
    int prefixChars = 400;
    @Option(names = "--tenants", description = "Distinct prefixes.")
    int tenants = 100;
    @Option(names = "--event-loops", description = "Client event-loop threads.")
    int eventLoops = 1;

    private final AtomicLong sent = new AtomicLong();
    private volatile boolean measuring;
    private volatile boolean stopping;
    private final AtomicLong ok = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong chunks = new AtomicLong();

    @Override
    public Integer call() throws Exception {
        URI base = URI.create(baseUrl);
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops));
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setTcpNoDelay(true),
                new PoolOptions().setHttp1MaxSize(concurrency / count + 1));
        String[] prefixes = new String[tenants];
        for (int t = 0; t < tenants; t++) {
            StringBuilder sb = new StringBuilder("Tenant " + t + " system prompt. ");
            while (sb.length() < prefixChars) {
                sb.append("Rules of tenant ").append(t).append(" apply. ");
            }
            prefixes[t] = sb.substring(0, prefixChars);
        }
        CountDownLatch done = new CountDownLatch(concurrency);
        long[][] lat = new long[concurrency][];
        int[] latN = new int[concurrency];
        for (int i = 0; i < concurrency; i++) {
            lat[i] = new long[1 << 16];
            int slot = i;
            loop(client, base, prefixes, slot, lat, latN, done);
        }
        TimeUnit.SECONDS.sleep(warmupS);
        measuring = true;
        long t0 = System.nanoTime();
        TimeUnit.SECONDS.sleep(durationS);
        measuring = false;
        double secs = (System.nanoTime() - t0) / 1e9;
        long okN = ok.get();
        long failedN = failed.get();
        long chunkN = chunks.get();
        stopping = true;
        done.await(60, TimeUnit.SECONDS);
        long[] all = new long[Arrays.stream(latN).sum()];
        int k = 0;
        for (int i = 0; i < concurrency; i++) {
            System.arraycopy(lat[i], 0, all, k, latN[i]);
            k += latN[i];
        }
        Arrays.sort(all);
        System.out.printf(Locale.ROOT, "engines=%d concurrency=%d stream=%s max_tokens=%d duration=%.1fs%n", count,
                concurrency, stream, maxTokens, secs);
        System.out.printf(Locale.ROOT, "requests/s=%.0f ok=%d failed=%d sse_events/s=%.0f%n", okN / secs, okN,
                failedN, chunkN / secs);
        System.out.printf(Locale.ROOT, "latency_ms p50=%.1f p90=%.1f p99=%.1f max=%.1f%n", pct(all, 0.5),
                pct(all, 0.9), pct(all, 0.99), all.length == 0 ? 0 : all[all.length - 1] / 1e6);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        return failedN == 0 ? 0 : 1;
    }

    private static double pct(long[] sorted, double q) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, q * sorted.length)] / 1e6;
    }

    private void loop(HttpClient client, URI base, String[] prefixes, int slot, long[][] lat, int[] latN,
                      CountDownLatch done) {
        if (stopping) {
            done.countDown();
            return;
        }
        long n = sent.incrementAndGet();
        int engine = (int) (n % count);
        String prompt = prefixes[(int) ((n * 2654435761L >>> 8) % prefixes.length)] + " Question " + n + "?";
        String body = "{\"prompt\":\"" + prompt + "\",\"max_tokens\":" + maxTokens + ",\"stream\":" + stream + "}";
        RequestOptions opts = new RequestOptions().setMethod(HttpMethod.POST).setHost(base.getHost())
                .setPort(base.getPort() + engine).setURI("/v1/completions")
                .putHeader("content-type", "application/json");
        long start = System.nanoTime();
        boolean counted = measuring;
        client.request(opts)
                .compose(req -> req.send(Buffer.buffer(body)).compose(resp -> resp.body().map(b -> {
                    if (resp.statusCode() != 200) {
                        throw new IllegalStateException("status " + resp.statusCode());
                    }
                    return b;
                })))
                .onComplete(ar -> {
                    if (counted && measuring) {
                        if (ar.succeeded()) {
                            ok.incrementAndGet();
                            if (stream) {
                                chunks.addAndGet(countEvents(ar.result()));
                            }
                            if (latN[slot] < lat[slot].length) {
                                lat[slot][latN[slot]++] = System.nanoTime() - start;
                            }
                        } else {
                            failed.incrementAndGet();
                        }
                    }
                    loop(client, base, prefixes, slot, lat, latN, done);
                });
    }

    private static int countEvents(Buffer b) {
        int c = 0;
        for (int i = 0; i + 5 < b.length(); i++) {
            if (b.getByte(i) == 'd' && b.getByte(i + 1) == 'a' && b.getByte(i + 4) == ':') {
                c++;
            }
        }
        return c;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new SimLoad()).execute(args));
    }
}
