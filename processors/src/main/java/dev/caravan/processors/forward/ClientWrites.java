package dev.caravan.processors.forward;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

import dev.caravan.processors.time.DelayScheduler;

/**
 * Writes a relayed response to the client so that what one read of the worker's socket brought leaves in one write to
 * the client's: the head, the chunks and the end are held until the current event's work is done
 * ({@link DelayScheduler#runSoon}) and then written together. A non-streamed answer that arrives in one read (head,
 * body and end) becomes one message with its head, one system call and one TCP segment, where writing each part as it
 * came took three writes, each flushed at once because the client connection was not the one being read. A stream's
 * events still leave as they arrive: the hold lasts until the event loop has handled the read that brought them, not
 * for any time. Runs on the relay's event loop only.
 */
final class ClientWrites {

    private final HttpServerResponse client;
    private final DelayScheduler scheduler;
    private final Runnable flush = this::flush;
    private final Runnable beforeFlush;
    private final Runnable afterWrite;
    private Buffer pending;
    private boolean pendingOwned;
    private boolean flushQueued;
    private boolean done;

    /**
     * @param beforeFlush run when the held writes' turn comes, whether or not the response is still open (the relay
     *                    re-arms its timer there once the head has come, rather than at once: a response that ends in
     *                    the same read never needs it)
     * @param afterWrite  run after each write reaches the client connection (the relay checks its write queue there)
     */
    ClientWrites(HttpServerResponse client, DelayScheduler scheduler, Runnable beforeFlush, Runnable afterWrite) {
        this.client = client;
        this.scheduler = scheduler;
        this.beforeFlush = beforeFlush;
        this.afterWrite = afterWrite;
    }

    /** The head is ready: it leaves with the first chunk, or alone once this event's work is done. */
    void head() {
        queueFlush();
    }

    /** A chunk to relay: it leaves once this event's work is done, with whatever else arrives meanwhile. */
    void write(Buffer chunk) {
        if (chunk.length() == 0 || done) {
            return;
        }
        if (pending == null) {
            pending = chunk;
        } else {
            if (!pendingOwned) { // the first chunk is the reader's buffer: copy before appending
                pending = Buffer.buffer(pending.length() + chunk.length()).appendBuffer(pending);
                pendingOwned = true;
            }
            pending.appendBuffer(chunk);
        }
        queueFlush();
    }

    /** The response ends with {@code tail}: the head (if still held), the held chunks and the tail in one write. */
    void end(Buffer tail) {
        if (done) {
            return;
        }
        write(tail);
        done = true;
        Buffer last = pending;
        pending = null;
        if (last == null) {
            client.end();
        } else {
            client.end(last);
        }
    }

    /**
     * Writes what is held now and stops: the caller writes the rest (a final error event). The head, if still held,
     * goes with it.
     */
    void handOver() {
        flush();
        done = true;
    }

    /** Drops what is held: the client has gone, nothing more can reach it. */
    void discard() {
        done = true;
        pending = null;
    }

    private void queueFlush() {
        if (!flushQueued && !done) {
            flushQueued = true;
            scheduler.runSoon(flush);
        }
    }

    private void flush() {
        flushQueued = false;
        beforeFlush.run();
        if (done || client.ended()) {
            return;
        }
        Buffer out = pending;
        pending = null;
        pendingOwned = false;
        if (out != null) {
            // no completion handler: Vert.x then writes with Netty's void promise instead of allocating a promise and
            // a listener per chunk (a failed write closes the connection, which the relay's close handler handles)
            client.write(out, null);
            afterWrite.run();
        } else if (!client.headWritten()) {
            client.writeHead();
        }
    }
}
