package dev.caravan.sim.pd;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.vertx.core.Vertx;

/**
 * The prefill side of the P/D rendezvous: the state of each bootstrap room this engine has seen, and long-poll
 * waiters for rooms not decided yet. A room is {@code pending} until the prefill of the request that carries it
 * completes ({@code ready}) or the request dies first ({@code failed}); unknown rooms also read as pending, because
 * a router sends the decode leg at the same time as the prefill leg and it may ask first.
 *
 * <p>Keeps the last {@value #MAX_ROOMS} rooms. Not thread-safe: used on the engine's context only.
 */
public final class RoomRegistry {

    static final int MAX_ROOMS = 100_000;

    /** What a decode engine learns about a room. */
    public enum State { PENDING, READY, FAILED }

    private final Vertx vertx;
    private final Map<String, Room> rooms = new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Room> eldest) {
            return size() > MAX_ROOMS;
        }
    };
    private final Map<String, List<Waiter>> waiters = new HashMap<>();

    public RoomRegistry(Vertx vertx) {
        this.vertx = vertx;
    }

    /** A prefill request carrying {@code room} arrived. */
    public void announce(String room) {
        rooms.putIfAbsent(room, new Room(State.PENDING, 0, null));
    }

    /** The room's KV is complete. */
    public void ready(String room, int promptTokens) {
        settle(room, new Room(State.READY, promptTokens, null));
    }

    /** The prefill request died before its KV was complete. */
    public void failed(String room, String reason) {
        Room r = rooms.get(room);
        if (r != null && r.state == State.READY) {
            return;
        }
        settle(room, new Room(State.FAILED, 0, reason));
    }

    public State state(String room) {
        Room r = rooms.get(room);
        return r == null ? State.PENDING : r.state;
    }

    /**
     * Answers with the room's state once it is decided, or with {@code pending} after {@code waitMs}.
     */
    public void await(String room, long waitMs, Consumer<Map<String, Object>> reply) {
        Room r = rooms.get(room);
        if ((r != null && r.state != State.PENDING) || waitMs <= 0) {
            reply.accept(json(room, r));
            return;
        }
        Waiter w = new Waiter(reply);
        waiters.computeIfAbsent(room, k -> new ArrayList<>()).add(w);
        w.timerId = vertx.setTimer(waitMs, id -> {
            List<Waiter> list = waiters.get(room);
            if (list != null && list.remove(w)) {
                if (list.isEmpty()) {
                    waiters.remove(room);
                }
                w.reply.accept(json(room, rooms.get(room)));
            }
        });
    }

    /** Long-poll requests currently parked. */
    public int parkedWaiters() {
        return waiters.values().stream().mapToInt(List::size).sum();
    }

    private void settle(String room, Room state) {
        rooms.put(room, state);
        List<Waiter> list = waiters.remove(room);
        if (list != null) {
            for (Waiter w : list) {
                vertx.cancelTimer(w.timerId);
                w.reply.accept(json(room, state));
            }
        }
    }

    private static Map<String, Object> json(String room, Room r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("room", room);
        m.put("state", (r == null ? State.PENDING : r.state).name().toLowerCase(java.util.Locale.ROOT));
        if (r != null && r.state == State.READY) {
            m.put("prompt_tokens", r.promptTokens);
        }
        if (r != null && r.reason != null) {
            m.put("reason", r.reason);
        }
        return m;
    }

    private record Room(State state, int promptTokens, String reason) {
    }

    private static final class Waiter {
        final Consumer<Map<String, Object>> reply;
        long timerId;

        Waiter(Consumer<Map<String, Object>> reply) {
            this.reply = reply;
        }
    }
}
