package dev.caravan.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpServer;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerOptions;

/**
 * An OTLP trace receiver started inside a test on 127.0.0.1: over gRPC ({@link #grpc()}: HTTP/2 without TLS, what
 * {@code --otlp-traces-endpoint host:port} speaks) or over HTTP with protobuf ({@link #http()}: {@code POST /v1/traces}).
 * It decodes the spans of every export with a small protobuf reader of its own (the OTLP trace schema's fields it
 * needs: ids, name, kind, string/int/bool/double attributes) and answers success. {@link #close()} stops it.
 */
public final class OtlpReceiver implements AutoCloseable {

    /** One received span; ids in lower-case hex, {@code parentSpanId} empty for a root span. */
    public record ReceivedSpan(String traceId, String spanId, String parentSpanId, String name, int kind,
                               Map<String, Object> attributes) {
        public static final int KIND_INTERNAL = 1;
        public static final int KIND_SERVER = 2;
        public static final int KIND_CLIENT = 3;
    }

    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();
    private final Vertx vertx;
    private final io.vertx.core.http.HttpServer grpcServer;
    private final HttpServer httpServer;
    private final String endpoint;

    private OtlpReceiver(boolean grpc) {
        try {
            if (grpc) {
                vertx = Vertx.vertx();
                httpServer = null;
                grpcServer = vertx.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(true))
                        .requestHandler(req -> req.body().onSuccess(body -> {
                            decodeGrpc(body.getBytes());
                            req.response().putHeader("content-type", "application/grpc")
                                    .putTrailer("grpc-status", "0").end(Buffer.buffer(new byte[5]));
                        }));
                grpcServer.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
                endpoint = "127.0.0.1:" + grpcServer.actualPort();
            } else {
                vertx = null;
                grpcServer = null;
                httpServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
                httpServer.createContext("/v1/traces", ex -> {
                    decodeRequest(ex.getRequestBody().readAllBytes());
                    ex.getResponseHeaders().add("content-type", "application/x-protobuf");
                    ex.sendResponseHeaders(200, -1);
                    ex.close();
                });
                httpServer.start();
                endpoint = "http://127.0.0.1:" + httpServer.getAddress().getPort() + "/v1/traces";
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException("OTLP receiver did not start", e);
        }
    }

    /** A receiver of OTLP over gRPC; {@link #endpoint()} is {@code 127.0.0.1:port}. */
    public static OtlpReceiver grpc() {
        return new OtlpReceiver(true);
    }

    /** A receiver of OTLP over HTTP; {@link #endpoint()} is {@code http://127.0.0.1:port/v1/traces}. */
    public static OtlpReceiver http() {
        return new OtlpReceiver(false);
    }

    /** The value of {@code --otlp-traces-endpoint} that reaches this receiver. */
    public String endpoint() {
        return endpoint;
    }

    /** Every span received so far. */
    public List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    /** The spans of one trace. */
    public List<ReceivedSpan> trace(String traceId) {
        return spans.stream().filter(s -> s.traceId().equals(traceId)).toList();
    }

    private void decodeGrpc(byte[] frames) {
        int i = 0;
        while (i + 5 <= frames.length) {
            int length = ByteBuffer.wrap(frames, i + 1, 4).order(ByteOrder.BIG_ENDIAN).getInt();
            byte[] message = new byte[length];
            System.arraycopy(frames, i + 5, message, 0, length);
            decodeRequest(message);
            i += 5 + length;
        }
    }

    /** ExportTraceServiceRequest: resource_spans(1) → scope_spans(2) → spans(2). */
    private void decodeRequest(byte[] bytes) {
        for (byte[] resourceSpans : Proto.messages(bytes, 1)) {
            for (byte[] scopeSpans : Proto.messages(resourceSpans, 2)) {
                for (byte[] span : Proto.messages(scopeSpans, 2)) {
                    spans.add(decodeSpan(span));
                }
            }
        }
    }

    private static ReceivedSpan decodeSpan(byte[] span) {
        Proto p = new Proto(span);
        String traceId = "";
        String spanId = "";
        String parent = "";
        String name = "";
        int kind = 0;
        Map<String, Object> attributes = new LinkedHashMap<>();
        while (p.more()) {
            int tag = p.varint32();
            int field = tag >>> 3;
            int wire = tag & 7;
            switch (field) {
                case 1 -> traceId = HexFormat.of().formatHex(p.bytes());
                case 2 -> spanId = HexFormat.of().formatHex(p.bytes());
                case 4 -> parent = HexFormat.of().formatHex(p.bytes());
                case 5 -> name = new String(p.bytes(), java.nio.charset.StandardCharsets.UTF_8);
                case 6 -> kind = (int) p.varint();
                case 9 -> attribute(p.bytes(), attributes);
                default -> p.skip(wire);
            }
        }
        return new ReceivedSpan(traceId, spanId, parent, name, kind, attributes);
    }

    /** KeyValue: key(1), value(2) = AnyValue: string(1), bool(2), int(3), double(4). */
    private static void attribute(byte[] kv, Map<String, Object> out) {
        Proto p = new Proto(kv);
        String key = null;
        Object value = null;
        while (p.more()) {
            int tag = p.varint32();
            if (tag >>> 3 == 1) {
                key = new String(p.bytes(), java.nio.charset.StandardCharsets.UTF_8);
            } else if (tag >>> 3 == 2) {
                Proto v = new Proto(p.bytes());
                while (v.more()) {
                    int t = v.varint32();
                    switch (t >>> 3) {
                        case 1 -> value = new String(v.bytes(), java.nio.charset.StandardCharsets.UTF_8);
                        case 2 -> value = v.varint() != 0;
                        case 3 -> value = v.varint();
                        case 4 -> value = Double.longBitsToDouble(v.fixed64());
                        default -> v.skip(t & 7);
                    }
                }
            } else {
                p.skip(tag & 7);
            }
        }
        if (key != null) {
            out.put(key, value);
        }
    }

    @Override
    public void close() {
        if (httpServer != null) {
            httpServer.stop(0);
        }
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().join();
        }
    }

    /** The protobuf wire format, as far as reading OTLP spans needs it. */
    private static final class Proto {
        private final byte[] b;
        private int i;

        Proto(byte[] b) {
            this.b = b;
        }

        boolean more() {
            return i < b.length;
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                byte x = b[i++];
                v |= (long) (x & 0x7f) << shift;
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
            throw new IllegalArgumentException("malformed varint");
        }

        int varint32() {
            return (int) varint();
        }

        long fixed64() {
            long v = ByteBuffer.wrap(b, i, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
            i += 8;
            return v;
        }

        byte[] bytes() {
            int n = varint32();
            byte[] out = new byte[n];
            System.arraycopy(b, i, out, 0, n);
            i += n;
            return out;
        }

        void skip(int wire) {
            switch (wire) {
                case 0 -> varint();
                case 1 -> i += 8;
                case 2 -> bytes();
                case 5 -> i += 4;
                default -> throw new IllegalArgumentException("unsupported wire type " + wire);
            }
        }

        /** The length-delimited values of {@code field} in a message. */
        static List<byte[]> messages(byte[] message, int field) {
            List<byte[]> out = new ArrayList<>();
            Proto p = new Proto(message);
            while (p.more()) {
                int tag = p.varint32();
                if (tag >>> 3 == field && (tag & 7) == 2) {
                    out.add(p.bytes());
                } else {
                    p.skip(tag & 7);
                }
            }
            return out;
        }
    }
}
