package dev.caravan.processors.forward;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerResponse;

/**
 * Small test doubles for the Vert.x HTTP types a relay drives, so relay state machines run on the test thread with no
 * server, no socket and no event loop. Each double is a plain class with the few methods the relay calls, exposed as
 * the Vert.x interface through a {@link Proxy}: a call to any other method fails the test, so a relay that starts using
 * something new is noticed here. Fluent methods (returning the interface) return the proxy.
 */
final class FakeHttp {

    private FakeHttp() {
    }

    /** {@code impl}'s public method of the same name whose parameters accept the arguments answers each call. */
    @SuppressWarnings("unchecked")
    static <T> T proxy(Class<T> type, Object impl) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            Object[] a = args == null ? new Object[0] : args;
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == a[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> type.getSimpleName() + " fake " + impl;
                };
            }
            Method target = find(impl, method.getName(), a);
            try {
                Object result = target.invoke(impl, a);
                return result == null && method.getReturnType().isInstance(proxy) ? proxy : result;
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    private static Method find(Object impl, String name, Object[] args) {
        for (Method m : impl.getClass().getDeclaredMethods()) {
            if (!m.getName().equals(name) || m.getParameterCount() != args.length) {
                continue;
            }
            boolean fits = true;
            for (int i = 0; i < args.length && fits; i++) {
                Class<?> p = m.getParameterTypes()[i];
                fits = args[i] == null ? !p.isPrimitive() : wrap(p).isInstance(args[i]);
            }
            if (fits) {
                m.setAccessible(true);
                return m;
            }
        }
        throw new UnsupportedOperationException("the fake " + impl.getClass().getSimpleName() + " has no " + name
                + " taking " + args.length + " argument(s)");
    }

    private static Class<?> wrap(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        return c == int.class ? Integer.class : c == long.class ? Long.class : c == boolean.class ? Boolean.class : c;
    }

    /** The client's response: records what the relay writes; the test closes it or fills its write queue. */
    static final class Client {
        final MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        final Buffer body = Buffer.buffer();
        /** Each write to the connection as Vert.x would send it: "head", "head+body", "body", "head+body+end", ... */
        final List<String> messages = new ArrayList<>();
        final HttpServerResponse response = proxy(HttpServerResponse.class, this);
        int status = 200;
        boolean chunked;
        boolean headWritten;
        boolean ended;
        boolean reset;
        boolean closed;
        boolean writeQueueFull;
        /** A reset closes the connection, which Vert.x reports through the close handler: on this thread, at once. */
        boolean closeOnReset;
        private Handler<Void> closeHandler;
        private Handler<Void> drainHandler;

        /** The connection closes (the client left). */
        void close() {
            closed = true;
            if (closeHandler != null) {
                closeHandler.handle(null);
            }
        }

        /** The write queue emptied. */
        void drain() {
            writeQueueFull = false;
            if (drainHandler != null) {
                drainHandler.handle(null);
            }
        }

        String text() {
            return body.toString();
        }

        boolean closed() {
            return closed;
        }

        void closeHandler(Handler<Void> h) {
            closeHandler = h;
        }

        void drainHandler(Handler<Void> h) {
            drainHandler = h;
        }

        void setStatusCode(int code) {
            status = code;
        }

        MultiMap headers() {
            return headers;
        }

        void setChunked(boolean c) {
            chunked = c;
        }

        Future<Void> writeHead() {
            if (!headWritten) {
                messages.add("head");
            }
            headWritten = true;
            return Future.succeededFuture();
        }

        boolean headWritten() {
            return headWritten;
        }

        Future<Void> write(Buffer data) {
            if (ended) {
                throw new IllegalStateException("Response has already been written");
            }
            messages.add((headWritten ? "" : "head+") + "body");
            headWritten = true;
            body.appendBuffer(data);
            return Future.succeededFuture();
        }

        /** The relay's per-chunk write (no completion handler). */
        void write(Buffer data, io.vertx.core.Handler<io.vertx.core.AsyncResult<Void>> handler) {
            write(data);
            if (handler != null) {
                handler.handle(Future.succeededFuture());
            }
        }

        boolean writeQueueFull() {
            return writeQueueFull;
        }

        Future<Void> end() {
            return end(Buffer.buffer());
        }

        Future<Void> end(Buffer data) {
            if (ended) {
                throw new IllegalStateException("Response has already been written");
            }
            messages.add((headWritten ? "" : "head+") + (data.length() > 0 ? "body+" : "") + "end");
            headWritten = true;
            body.appendBuffer(data);
            ended = true;
            return Future.succeededFuture();
        }

        boolean ended() {
            return ended;
        }

        boolean reset() {
            reset = true;
            if (closeOnReset) {
                close();
            }
            return true;
        }
    }

    /** An upstream response and its request: the test sends chunks, ends or breaks it; resets are recorded. */
    static final class Upstream {
        final MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        final HttpClientResponse response = proxy(HttpClientResponse.class, this);
        final HttpClientRequest request = proxy(HttpClientRequest.class, new Request());
        final int status;
        boolean paused;
        boolean requestReset;
        private Handler<Buffer> handler;
        private Handler<Throwable> exceptionHandler;
        private Handler<Void> endHandler;

        Upstream(int status, String contentType) {
            this.status = status;
            if (contentType != null) {
                headers.set("content-type", contentType);
            }
        }

        void chunk(String data) {
            handler.handle(Buffer.buffer(data));
        }

        void end() {
            endHandler.handle(null);
        }

        void fail(Throwable t) {
            exceptionHandler.handle(t);
        }

        int statusCode() {
            return status;
        }

        MultiMap headers() {
            return headers;
        }

        String getHeader(String name) {
            return headers.get(name);
        }

        void handler(Handler<Buffer> h) {
            handler = h;
        }

        void exceptionHandler(Handler<Throwable> h) {
            exceptionHandler = h;
        }

        void endHandler(Handler<Void> h) {
            endHandler = h;
        }

        void pause() {
            paused = true;
        }

        void resume() {
            paused = false;
        }

        HttpClientRequest request() {
            return request;
        }

        final class Request {
            boolean reset() {
                requestReset = true;
                return true;
            }
        }
    }
}
