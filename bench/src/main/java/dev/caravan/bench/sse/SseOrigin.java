package dev.caravan.bench.sse;

import java.util.concurrent.CountDownLatch;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * The engine side of the SSE relay benchmark ({@code it-tests/bench/sse-relay.sh}): answers every POST with an
 * OpenAI-shaped {@code chat.completion.chunk} stream of {@code tokens} events, one every {@code intervalMs}, each carrying
 * the {@code System.nanoTime()} it was written at in {@code system_fingerprint} ({@code fp_<nanos>}), then a usage chunk
 * and {@code [DONE]}. On Linux {@code nanoTime} is {@code CLOCK_MONOTONIC}, shared by every process of the machine, so
 * the load client ({@link SseClient}) reads each event's one-way latency directly. GETs (the gateway's health and
 * engine probes) answer {@code 200 {}}, {@code /v1/models} a one-model list.
 */
public final class SseOrigin {

    static final String MODEL = "bench-model";

    private final Vertx vertx;
    private final int tokens;
    private final long intervalMs;

    private SseOrigin(Vertx vertx, int tokens, long intervalMs) {
        this.vertx = vertx;
        this.tokens = tokens;
        this.intervalMs = intervalMs;
    }

    /** Usage: {@code SseOrigin PORT TOKENS INTERVAL_MS [EVENT_LOOPS]}; runs until killed. */
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int tokens = Integer.parseInt(args[1]);
        long intervalMs = Long.parseLong(args[2]);
        int loops = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops));
        SseOrigin origin = new SseOrigin(vertx, tokens, intervalMs);
        CountDownLatch listening = new CountDownLatch(loops);
        for (int i = 0; i < loops; i++) {
            vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port).setTcpNoDelay(true))
                    .requestHandler(origin::handle)
                    .listen().onComplete(r -> {
                        if (r.failed()) {
                            System.err.println("origin cannot listen on " + port + ": " + r.cause());
                            System.exit(1);
                        }
                        listening.countDown();
                    });
        }
        listening.await();
        System.out.println("origin listening on 127.0.0.1:" + port + ", " + tokens + " tokens every " + intervalMs + " ms");
    }

    private void handle(HttpServerRequest request) {
        if (request.method() != HttpMethod.POST) {
            String body = request.path().equals("/v1/models")
                    ? "{\"object\":\"list\",\"data\":[{\"id\":\"" + MODEL + "\",\"object\":\"model\"}]}" : "{}";
            request.response().putHeader("content-type", "application/json").end(body);
            return;
        }
        request.body().onSuccess(body -> stream(request.response()));
    }

    private void stream(HttpServerResponse response) {
        response.setChunked(true).putHeader("content-type", "text/event-stream").putHeader("cache-control", "no-cache");
        response.writeHead();
        int[] sent = {0};
        long timer = vertx.setPeriodic(intervalMs, id -> {
            if (response.closed()) {
                vertx.cancelTimer(id);
                return;
            }
            if (sent[0] < tokens) {
                sent[0]++;
                response.write(Buffer.buffer(event(System.nanoTime())));
                return;
            }
            vertx.cancelTimer(id);
            response.write("data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
                    + "\"model\":\"" + MODEL + "\",\"choices\":[],\"usage\":{\"prompt_tokens\":16,\"completion_tokens\":"
                    + tokens + ",\"total_tokens\":" + (16 + tokens) + "}}\n\ndata: [DONE]\n\n");
            response.end();
        });
        response.closeHandler(v -> vertx.cancelTimer(timer));
    }

    /** One token event, about the size of a real one (~230 bytes). */
    static String event(long nanos) {
        return "data: {\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\""
                + MODEL + "\",\"system_fingerprint\":\"fp_" + nanos + "\",\"choices\":[{\"index\":0,\"delta\":"
                + "{\"content\":\" token\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n";
    }
}
