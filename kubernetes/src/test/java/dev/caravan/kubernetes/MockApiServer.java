package dev.caravan.kubernetes;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;

/**
 * fabric8's CRUD mock API server on 127.0.0.1 (ephemeral port), with control over watches that the stock mock lacks:
 * {@link #expireOpenWatches()} sends every open watch the ERROR event a real API server sends when a watch's
 * resourceVersion is too old (Status 410 Expired) and closes it, and {@link #refuseWatches} answers new watch requests
 * with HTTP 410 Gone — the two ways a client meets watch expiry. {@link #dropOpenWatches()} cuts connections without a
 * reason and {@link #forbidLists} answers pod lists 403, as a missing RBAC grant would.
 */
final class MockApiServer implements AutoCloseable {

    private static final String GONE_STATUS = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
            + "\"status\":\"Failure\",\"message\":\"too old resource version\",\"reason\":\"Expired\",\"code\":410}";

    private static final String FORBIDDEN_STATUS = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
            + "\"status\":\"Failure\",\"message\":\"pods is forbidden\",\"reason\":\"Forbidden\",\"code\":403}";

    private final WatchControl control;
    private final KubernetesMockServer server;
    private final KubernetesClient client;

    private MockApiServer() throws Exception {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        control = new WatchControl(new KubernetesMixedDispatcher(responses));
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses, control, false);
        server.init(InetAddress.getByName("127.0.0.1"), 0);
        client = server.createClient();
    }

    static MockApiServer start() throws Exception {
        return new MockApiServer();
    }

    KubernetesClient client() {
        return client;
    }

    /** While true, every new watch request is answered 410 Gone. */
    void refuseWatches(boolean refuse) {
        control.refuse = refuse;
    }

    /** Sends a 410 Expired ERROR event on every open watch and closes it; returns how many were open. */
    int expireOpenWatches() {
        int n = 0;
        for (WebSocket ws : Set.copyOf(control.open)) {
            ws.send("{\"type\":\"ERROR\",\"object\":" + GONE_STATUS + "}");
            ws.close(1000, "expired");
            n++;
        }
        return n;
    }

    /** Closes every open watch connection without an ERROR event, as a restarting API server or a proxy would. */
    int dropOpenWatches() {
        int n = 0;
        for (WebSocket ws : Set.copyOf(control.open)) {
            ws.close(1001, "going away");
            n++;
        }
        return n;
    }

    /** While true, every pod list is answered 403 Forbidden, as without RBAC permission. */
    void forbidLists(boolean forbid) {
        control.forbidLists = forbid;
    }

    /** Watch requests received so far (accepted or refused). */
    int watchRequests() {
        return control.watchRequests.get();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }

    private static final class WatchControl extends Dispatcher {
        private final Dispatcher delegate;
        private final Set<WebSocket> open = ConcurrentHashMap.newKeySet();
        private final AtomicInteger watchRequests = new AtomicInteger();
        private volatile boolean refuse;
        private volatile boolean forbidLists;

        WatchControl(Dispatcher delegate) {
            this.delegate = delegate;
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            if (request.getPath() == null || !request.getPath().contains("watch=true")) {
                boolean podList = "GET".equals(request.getMethod()) && request.getPath().matches(".*/pods/?(\\?.*)?$");
                if (forbidLists && podList) {
                    return new MockResponse().setResponseCode(403).setHeader("Content-Type", "application/json")
                            .setBody(FORBIDDEN_STATUS);
                }
                return delegate.dispatch(request);
            }
            watchRequests.incrementAndGet();
            if (refuse) {
                return new MockResponse().setResponseCode(410).setHeader("Content-Type", "application/json")
                        .setBody(GONE_STATUS);
            }
            MockResponse response = delegate.dispatch(request);
            WebSocketListener inner = response.getWebSocketListener();
            if (inner != null) {
                response.withWebSocketUpgrade(new Tracking(inner, open));
            }
            return response;
        }

        @Override
        public void shutdown() {
            delegate.shutdown();
        }
    }

    /** Delegates every callback and remembers the sockets that are open. */
    private static final class Tracking extends WebSocketListener {
        private final WebSocketListener inner;
        private final Set<WebSocket> open;

        Tracking(WebSocketListener inner, Set<WebSocket> open) {
            this.inner = inner;
            this.open = open;
        }

        @Override
        public void onBeforeAccept(WebSocket ws, Response response) {
            inner.onBeforeAccept(ws, response);
        }

        @Override
        public void onOpen(WebSocket ws, Response response) {
            open.add(ws);
            inner.onOpen(ws, response);
        }

        @Override
        public void onMessage(WebSocket ws, String text) {
            inner.onMessage(ws, text);
        }

        @Override
        public void onMessage(WebSocket ws, ByteString bytes) {
            inner.onMessage(ws, bytes);
        }

        @Override
        public void onMessage(WebSocket ws, byte[] bytes) {
            inner.onMessage(ws, bytes);
        }

        @Override
        public void onClosing(WebSocket ws, int code, String reason) {
            open.remove(ws);
            inner.onClosing(ws, code, reason);
        }

        @Override
        public void onClosed(WebSocket ws, int code, String reason) {
            open.remove(ws);
            inner.onClosed(ws, code, reason);
        }

        @Override
        public void onFailure(WebSocket ws, Throwable t, Response response) {
            open.remove(ws);
            inner.onFailure(ws, t, response);
        }
    }
}
