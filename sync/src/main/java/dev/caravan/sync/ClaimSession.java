package dev.caravan.sync;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.hazelcast.map.EntryProcessor;

/**
 * The atomic first assignment of a routing key, run by Hazelcast on the key's partition owner (and replayed on its
 * backup): keep the entry if one of its workers is usable by the caller ({@code occupied_hit}); else record the
 * caller's proposal, for a new key ({@code vacant}) or appended keeping the newest two ({@code occupied_miss}). Values
 * are {@link SyncCodec} session messages, so replicas of another schema read them or leave them alone.
 */
final class ClaimSession implements EntryProcessor<String, byte[], ClaimSession.Result>, Serializable {

    private static final long serialVersionUID = 1L;
    static final int MAX_WORKERS = 2;

    /** What the claim found or recorded; {@code compatible} false when the held value's schema is unreadable here. */
    record Result(List<String> workers, String branch, long version, boolean compatible) implements Serializable {
    }

    private final String model;
    private final List<String> usable;
    private final String proposal;

    ClaimSession(String model, List<String> usable, String proposal) {
        this.model = model;
        this.usable = List.copyOf(usable);
        this.proposal = proposal;
    }

    @Override
    public Result process(Map.Entry<String, byte[]> entry) {
        SyncCodec codec = new SyncCodec();
        byte[] held = entry.getValue();
        if (held == null) {
            entry.setValue(codec.session(new SyncCodec.Session(model, List.of(proposal), 1)));
            return new Result(List.of(proposal), "vacant", 1, true);
        }
        SyncCodec.Session session;
        try {
            session = codec.read(held).session();
        } catch (SyncCodec.SchemaMismatch | RuntimeException e) {
            return new Result(List.of(), "incompatible", -1, false);
        }
        for (String w : session.workers()) {
            if (usable.contains(w)) {
                return new Result(session.workers(), "occupied_hit", session.version(), true);
            }
        }
        List<String> next = new ArrayList<>(session.workers());
        while (next.size() >= MAX_WORKERS) {
            next.remove(0);
        }
        next.add(proposal);
        long version = session.version() + 1;
        entry.setValue(codec.session(new SyncCodec.Session(session.model(), next, version)));
        return new Result(next, "occupied_miss", version, true);
    }
}
