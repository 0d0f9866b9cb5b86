package dev.caravan.bench.synccost;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

/**
 * An open-loop load at a fixed rate, spread round robin over the replicas: one-token completions whose prompts are a
 * tenant's preamble (one of a fixed set, so cache_aware has prefixes to route by and share) and a question of their
 * own (so every request is a decision the replicas have not seen). Requests are sent on schedule whether or not the
 * earlier ones were answered; a run counts those answered 200 and the others.
 */
final class RateDriver {

    static final String MODEL = "meta-llama/Meta-Llama-3-8B-Instruct";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** What a run answered. */
    record Counts(long ok, long failed) {
    }

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final List<URI> replicas;
    private final double rate;
    private final List<String> preambles;
    private final SplittableRandom random;
    private long sent;

    /**
     * @param replicas      the gateways' base URLs
     * @param rate          requests per second, all replicas together
     * @param tenants       distinct preambles
     * @param preambleChars characters of each preamble
     * @param seed          seeds the preambles and the questions
     */
    RateDriver(List<URI> replicas, double rate, int tenants, int preambleChars, long seed) {
        if (replicas.isEmpty()) {
            throw new IllegalArgumentException("no replica to send to");
        }
        if (!(rate > 0)) {
            throw new IllegalArgumentException("rate must be positive, was " + rate);
        }
        this.replicas = List.copyOf(replicas);
        this.rate = rate;
        this.random = new SplittableRandom(seed);
        this.preambles = IntStream.range(0, tenants)
                .mapToObj(t -> "Tenant " + t + " instructions. " + words(preambleChars)).toList();
    }

    /**
     * Sends at the rate for {@code seconds}, then waits (up to the request timeout) for the answers; a request still
     * unanswered then counts as failed.
     */
    Counts run(double seconds) throws InterruptedException {
        AtomicLong ok = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long start = System.nanoTime();
        long period = Math.round(1e9 / rate);
        long end = start + Math.round(seconds * 1e9);
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (long i = 0; start + i * period < end; i++) {
            long wait;
            while ((wait = start + i * period - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            pending.add(client.sendAsync(request(), HttpResponse.BodyHandlers.discarding())
                    .handle((r, e) -> (e == null && r.statusCode() == 200 ? ok : failed).incrementAndGet()));
            if (pending.size() >= 4096) {
                pending.removeIf(CompletableFuture::isDone);
            }
        }
        try {
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // the unanswered ones are counted below
        }
        long unanswered = pending.stream().filter(f -> !f.isDone()).count();
        return new Counts(ok.get(), failed.get() + unanswered);
    }

    private HttpRequest request() {
        URI base = replicas.get((int) (sent++ % replicas.size()));
        String prompt = preambles.get(random.nextInt(preambles.size())) + " Question " + sent + ": " + words(160);
        String body = "{\"model\":\"" + MODEL + "\",\"prompt\":\"" + prompt + "\",\"max_tokens\":1}";
        return HttpRequest.newBuilder(base.resolve("/v1/completions")).timeout(TIMEOUT)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /** About {@code chars} characters of lower-case pseudo-words (JSON-safe). */
    private String words(int chars) {
        StringBuilder sb = new StringBuilder(chars + 12);
        while (sb.length() < chars) {
            int len = 2 + random.nextInt(8);
            for (int i = 0; i < len; i++) {
                sb.append((char) ('a' + random.nextInt(26)));
            }
            sb.append(' ');
        }
        return sb.toString().trim();
    }
}
