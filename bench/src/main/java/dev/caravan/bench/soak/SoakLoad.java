package dev.caravan.bench.soak;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The soak's clients: open-loop Poisson arrivals (seeded) alternating over the replicas, a mix of chat and
 * completions, streamed and not, three tenants (one with a per-minute limit it exceeds), and slow clients that read a
 * stream a chunk at a time with a pause. Prompts share one of a few long system prefixes, so routing state matters.
 * Each request is in the {@link Ledger} before it is sent, and ends there exactly once. One thread sends; each request
 * runs on a thread of its own pool (blocking reads: slow clients hold one for their whole stream).
 */
final class SoakLoad implements AutoCloseable {

    /** Tenants' API keys: alpha unlimited, beta with a per-minute request limit, none the default tenant. */
    static final List<String> KEYS = List.of("sk-soak-alpha", "sk-soak-beta", "");
    private static final Pattern ERROR_CODE = Pattern.compile("\"code\"\\s*:\\s*\"([^\"]+)\"");
    private static final int PREFIXES = 12;
    private static final long SLOW_READ_PAUSE_MS = 150;

    private final List<URI> replicas;
    private final String model;
    private final double ratePerSecond;
    private final SplittableRandom random;
    private final Ledger ledger;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final ExecutorService requests = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "soak-client");
        t.setDaemon(true);
        return t;
    });
    private final ObjectMapper json = new ObjectMapper();
    private final Duration clientTimeout;
    private volatile boolean running = true;
    private Thread sender;

    SoakLoad(List<URI> replicas, String model, double ratePerSecond, long seed, Ledger ledger, Duration clientTimeout) {
        this.replicas = List.copyOf(replicas);
        this.model = model;
        this.ratePerSecond = ratePerSecond;
        this.random = new SplittableRandom(seed);
        this.ledger = ledger;
        this.clientTimeout = clientTimeout;
    }

    SoakLoad start() {
        sender = new Thread(this::sendLoop, "soak-sender");
        sender.setDaemon(true);
        sender.start();
        return this;
    }

    private void sendLoop() {
        long next = System.nanoTime();
        for (long n = 0; running; n++) {
            next += (long) (-Math.log(1 - random.nextDouble()) / ratePerSecond * 1e9);
            long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (!running) {
                return;
            }
            int replica = (int) (n % replicas.size());
            boolean chat = random.nextBoolean();
            boolean stream = random.nextBoolean();
            boolean slow = stream && random.nextInt(5) == 0;
            String key = KEYS.get(random.nextInt(KEYS.size()));
            int prefix = random.nextInt(PREFIXES);
            int maxTokens = 8 + random.nextInt(17);
            long question = random.nextLong(1_000_000);
            Ledger.Sent s = ledger.send(replica, stream, slow);
            requests.execute(() -> call(s, replica, chat, slow, key, prefix, maxTokens, question));
        }
    }

    private void call(Ledger.Sent s, int replica, boolean chat, boolean slow, String key, int prefix, int maxTokens,
                      long question) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(replicas.get(replica)
                            .resolve(chat ? "/v1/chat/completions" : "/v1/completions"))
                    .timeout(clientTimeout).header("Content-Type", "application/json")
                    .header("X-Request-Id", "soak-" + s.id())
                    .POST(HttpRequest.BodyPublishers.ofString(body(chat, s.stream(), prefix, maxTokens, question)));
            if (!key.isEmpty()) {
                b.header("Authorization", "Bearer " + key);
            }
            HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = r.body()) {
                if (r.statusCode() != 200) {
                    String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                    status(s, r.statusCode(), text);
                } else if (s.stream()) {
                    stream(s, in, slow);
                } else {
                    in.readAllBytes();
                    ledger.answered(s);
                }
            }
        } catch (ConnectException e) {
            ledger.failed(s, Cause.CONNECTION_REFUSED, e.toString());
        } catch (HttpTimeoutException e) {
            ledger.failed(s, Cause.CLIENT_TIMEOUT, e.toString());
        } catch (IOException e) {
            ledger.failed(s, Cause.CONNECTION_RESET, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            ledger.failed(s, Cause.OTHER_IO, e.toString());
        }
    }

    private void stream(Ledger.Sent s, InputStream in, boolean slow) throws IOException, InterruptedException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            if (!line.startsWith("data:")) {
                continue;
            }
            String data = line.substring(5).trim();
            if (data.equals("[DONE]")) {
                ledger.answered(s);
                return;
            }
            if (data.startsWith("{\"error\"")) {
                ledger.failed(s, Cause.STREAM_ERROR_EVENT, data);
                return;
            }
            if (slow) {
                Thread.sleep(SLOW_READ_PAUSE_MS);
            }
        }
        ledger.failed(s, Cause.STREAM_TRUNCATED, "ended without [DONE]");
    }

    private void status(Ledger.Sent s, int status, String body) {
        Matcher m = ERROR_CODE.matcher(body);
        String code = m.find() ? m.group(1) : "";
        Cause cause;
        if (status == 429 && code.equals("rate_limit_exceeded")) {
            ledger.limited(s);
            return;
        } else if (status == 502 && code.equals("upstream_error")) {
            cause = Cause.UPSTREAM_ERROR;
        } else if (status == 504) {
            cause = Cause.UPSTREAM_TIMEOUT;
        } else if (status == 503 && code.equals("no_available_workers")) {
            cause = Cause.NO_AVAILABLE_WORKERS;
        } else if (status == 503 && code.equals("shutting_down")) {
            cause = Cause.SHUTTING_DOWN;
        } else {
            cause = Cause.OTHER_STATUS;
        }
        ledger.failed(s, cause, status + " " + code);
    }

    private String body(boolean chat, boolean stream, int prefix, int maxTokens, long question) {
        String system = ("Soak prefix " + prefix + ": you answer questions about the caravan routes, ").repeat(12);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("model", model);
        if (chat) {
            m.put("messages", List.of(Map.of("role", "system", "content", system),
                    Map.of("role", "user", "content", "question " + question)));
        } else {
            m.put("prompt", system + " question " + question);
        }
        m.put("max_tokens", maxTokens);
        if (stream) {
            m.put("stream", true);
            m.put("stream_options", Map.of("include_usage", true));
        }
        try {
            return json.writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops sending; requests in flight go on. */
    void stopSending() {
        running = false;
        if (sender != null) {
            sender.interrupt();
        }
    }

    @Override
    public void close() {
        stopSending();
        requests.shutdownNow();
    }
}
