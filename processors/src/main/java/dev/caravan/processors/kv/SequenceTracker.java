package dev.caravan.processors.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Follows the batch sequence numbers of each publisher of one worker. A publisher is (topic, DP rank): every DP rank
 * of an engine runs its own publisher with its own counter. The first sequence seen is the baseline (vLLM counts from
 * 0, llm-d's simulator from 1, and a subscriber may join late); sequences are unsigned 64-bit.
 *
 * <p>Not synchronised per call beyond its map: the worker's event pipeline is its single caller.
 */
public final class SequenceTracker {

    /** What one sequence number means relative to the publisher's previous one. */
    public enum Kind {
        /** First message from this publisher: the baseline. */
        FIRST,
        /** previous + 1. */
        NEXT,
        /** Ahead of previous + 1: batches {@code previous+1 .. sequence-1} were lost (slow joiner, HWM, network). */
        GAP,
        /** Equal to the previous: a repeat, to be ignored. */
        DUPLICATE,
        /** Behind the previous: the publisher restarted and its counter began again. */
        RESTART
    }

    /**
     * @param kind     the classification
     * @param previous the publisher's previous sequence (meaningless for FIRST)
     * @param sequence the sequence just observed
     */
    public record Verdict(Kind kind, long previous, long sequence) {
        /** For a GAP: how many batches are missing. */
        public long missing() {
            return kind == Kind.GAP ? sequence - previous - 1 : 0;
        }
    }

    private record Publisher(String topic, int rank) {
    }

    private final Map<Publisher, Long> last = new ConcurrentHashMap<>();

    /** Classifies {@code sequence} and records it as the publisher's latest (except duplicates). */
    public Verdict observe(String topic, int rank, long sequence) {
        Publisher p = new Publisher(topic, rank);
        Long previous = last.get(p);
        if (previous == null) {
            last.put(p, sequence);
            return new Verdict(Kind.FIRST, sequence, sequence);
        }
        long prev = previous;
        int cmp = Long.compareUnsigned(sequence, prev);
        if (cmp == 0) {
            return new Verdict(Kind.DUPLICATE, prev, sequence);
        }
        last.put(p, sequence);
        if (cmp < 0) {
            return new Verdict(Kind.RESTART, prev, sequence);
        }
        return new Verdict(sequence == prev + 1 ? Kind.NEXT : Kind.GAP, prev, sequence);
    }

    /** One publisher's latest sequence. */
    public record Position(String topic, int rank, long sequence) {
    }

    /** Every publisher's latest sequence (a snapshot). */
    public List<Position> positions() {
        List<Position> out = new ArrayList<>();
        last.forEach((p, seq) -> out.add(new Position(p.topic(), p.rank(), seq)));
        return out;
    }

    /**
     * Takes a peer replica's position as the publisher's baseline unless a message of it was already seen: the next
     * live message is then NEXT, a GAP (the batches since the peer's snapshot, to replay) or a RESTART.
     */
    public void seed(Position position) {
        last.putIfAbsent(new Publisher(position.topic(), position.rank()), position.sequence());
    }

    /** Forgets every publisher: the next message of each is a new baseline. */
    public void reset() {
        last.clear();
    }
}
