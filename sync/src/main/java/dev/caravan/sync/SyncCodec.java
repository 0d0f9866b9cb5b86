package dev.caravan.sync;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.caravan.policies.fleet.BucketRanges;
import dev.caravan.policies.fleet.FleetPrefixIndex;
import dev.caravan.policies.fleet.PrefixDecision;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.processors.kv.KvEventIngestor;
import dev.caravan.processors.kv.SequenceTracker;

/**
 * The sync messages' wire format, versioned so that a rolling restart with mixed versions keeps working.
 *
 * <p>Every message starts with a header: magic {@code 0xCA 0x5C}, the writer's schema version, the oldest reader
 * version that can read it, the kind, the origin member id and the send time (cluster clock, ms). A reader accepts a
 * message whose minimum reader version is at most {@link #VERSION}, reads the fields it knows and ignores any after them
 * (new fields are only ever appended); otherwise {@link #read} throws {@link SchemaMismatch}, which the routes count and
 * skip. Strings are UTF-8 with a varint length; each batch carries its strings once (a table indexed by varint).
 *
 * <p>Bodies: {@code DECISIONS} (string table; per decision the worker's index, the stamp, the hashes), {@code LOADS}
 * (per worker key its in-flight count; schema 2 appends per worker key kv_aware's active blocks), {@code SNAPSHOT} (string table; per entry owner index, hash, stamp),
 * {@code SESSION} (model, workers, version), {@code KV_SNAPSHOT} (adapter names; per engine its key, its publishers'
 * positions and per rank block size, non-routing groups and (engine id, key, mask) entries), {@code BUCKET_RANGES}
 * (per worker its URL and inclusive length range). Thread-safe (stateless).
 */
final class SyncCodec {

    /** The schema this replica writes and reads (2 added {@code KV_SNAPSHOT} and {@code BUCKET_RANGES}). */
    static final int VERSION = 2;
    /** The oldest reader that can read what this replica writes. */
    static final int MIN_READER = 1;

    private static final int MAGIC = 0xCA5C;

    enum Kind { DECISIONS, LOADS, SNAPSHOT, SESSION, KV_SNAPSHOT, BUCKET_RANGES }

    /** A message another schema cannot read: skipped and counted, never fatal. */
    static final class SchemaMismatch extends Exception {
        SchemaMismatch(String message) {
            super(message, null, false, false);
        }
    }

    /** A message's header. */
    record Header(int version, int minReader, Kind kind, UUID origin, long sentAtMillis) {
    }

    /**
     * A load report: in-flight requests per worker key and (schema 2, appended) kv_aware's distinct active blocks per
     * worker key; a schema-1 report reads with no blocks.
     */
    record LoadReport(Map<String, Integer> counts, Map<String, Integer> activeBlocks) {
    }

    /** A session entry's value. */
    record Session(String model, List<String> workers, long version) {
    }

    /** A peer's KV block index for a joining replica: adapter names and each engine's part. */
    record KvSnapshot(List<String> loraNames, List<KvEventIngestor.WorkerSnapshot> workers) {
    }

    /** A decoded message: its header and its body ({@code List<PrefixDecision>}, {@code Map<String,Integer>}, ...). */
    record Message(Header header, Object body) {
        @SuppressWarnings("unchecked")
        List<PrefixDecision> decisions() {
            return (List<PrefixDecision>) body;
        }

        LoadReport loads() {
            return (LoadReport) body;
        }

        @SuppressWarnings("unchecked")
        List<FleetPrefixIndex.Entry> snapshot() {
            return (List<FleetPrefixIndex.Entry>) body;
        }

        Session session() {
            return (Session) body;
        }

        KvSnapshot kvSnapshot() {
            return (KvSnapshot) body;
        }

        @SuppressWarnings("unchecked")
        List<BucketRanges.Range> bucketRanges() {
            return (List<BucketRanges.Range>) body;
        }
    }

    private final int writeVersion;
    private final int writeMinReader;

    SyncCodec() {
        this(VERSION, MIN_READER);
    }

    /** A codec that writes another schema's header (tests of mixed-version fleets). */
    SyncCodec(int writeVersion, int writeMinReader) {
        this.writeVersion = writeVersion;
        this.writeMinReader = writeMinReader;
    }

    byte[] decisions(UUID origin, long sentAt, List<PrefixDecision> decisions) {
        return write(Kind.DECISIONS, origin, sentAt, out -> {
            List<String> strings = new ArrayList<>();
            Map<String, Integer> index = new LinkedHashMap<>();
            for (PrefixDecision d : decisions) {
                index.computeIfAbsent(d.workerUrl(), s -> {
                    strings.add(s);
                    return strings.size() - 1;
                });
            }
            writeStrings(out, strings);
            writeVarint(out, decisions.size());
            for (PrefixDecision d : decisions) {
                writeVarint(out, index.get(d.workerUrl()));
                out.writeLong(d.stamp());
                writeVarint(out, d.hashes().length);
                for (long h : d.hashes()) {
                    out.writeLong(h);
                }
            }
        });
    }

    byte[] loads(UUID origin, long sentAt, Map<String, Integer> counts) {
        return loads(origin, sentAt, new LoadReport(counts, Map.of()));
    }

    byte[] loads(UUID origin, long sentAt, LoadReport report) {
        return write(Kind.LOADS, origin, sentAt, out -> {
            writeCounts(out, report.counts());
            writeCounts(out, report.activeBlocks()); // schema 2: appended, so schema-1 readers skip it
        });
    }

    private static void writeCounts(DataOutputStream out, Map<String, Integer> counts) throws IOException {
        writeVarint(out, counts.size());
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            writeString(out, e.getKey());
            writeVarint(out, e.getValue());
        }
    }

    private static Map<String, Integer> readCounts(DataInputStream in) throws IOException {
        int n = readCount(in, 2);
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            out.put(readString(in), readVarint(in));
        }
        return out;
    }

    byte[] snapshot(UUID origin, long sentAt, List<FleetPrefixIndex.Entry> entries) {
        return write(Kind.SNAPSHOT, origin, sentAt, out -> {
            List<String> strings = new ArrayList<>();
            Map<String, Integer> index = new LinkedHashMap<>();
            for (FleetPrefixIndex.Entry e : entries) {
                index.computeIfAbsent(e.owner(), s -> {
                    strings.add(s);
                    return strings.size() - 1;
                });
            }
            writeStrings(out, strings);
            writeVarint(out, entries.size());
            for (FleetPrefixIndex.Entry e : entries) {
                writeVarint(out, index.get(e.owner()));
                out.writeLong(e.hash());
                out.writeLong(e.stamp());
            }
        });
    }

    byte[] kvSnapshot(UUID origin, long sentAt, KvSnapshot snapshot) {
        return write(Kind.KV_SNAPSHOT, origin, sentAt, out -> {
            writeStrings(out, snapshot.loraNames());
            writeVarint(out, snapshot.workers().size());
            for (KvEventIngestor.WorkerSnapshot w : snapshot.workers()) {
                writeString(out, w.key());
                writeVarint(out, w.positions().size());
                for (SequenceTracker.Position p : w.positions()) {
                    writeString(out, p.topic());
                    writeVarint(out, p.rank());
                    out.writeLong(p.sequence());
                }
                writeVarint(out, w.ranks().size());
                for (KvBlockIndex.RankState r : w.ranks()) {
                    writeVarint(out, r.rank());
                    writeVarint(out, r.blockSize());
                    out.writeLong(r.nonRoutingGroups());
                    writeVarint(out, r.engineIds().length);
                    for (int i = 0; i < r.engineIds().length; i++) {
                        out.writeLong(r.engineIds()[i]);
                        out.writeLong(r.keys()[i]);
                        out.writeLong(r.masks()[i]);
                    }
                }
            }
        });
    }

    byte[] bucketRanges(UUID origin, long sentAt, List<BucketRanges.Range> ranges) {
        return write(Kind.BUCKET_RANGES, origin, sentAt, out -> {
            writeVarint(out, ranges.size());
            for (BucketRanges.Range r : ranges) {
                writeString(out, r.url());
                out.writeLong(r.lo());
                out.writeLong(r.hi());
            }
        });
    }

    byte[] session(Session session) {
        return write(Kind.SESSION, new UUID(0, 0), 0, out -> {
            writeString(out, session.model());
            writeStrings(out, session.workers());
            out.writeLong(session.version());
        });
    }

    /**
     * @throws SchemaMismatch            when this replica's schema cannot read the message (or does not know its kind)
     * @throws IllegalArgumentException when the bytes are not a sync message, are cut short, or hold a count or string
     *                                  index the message cannot (the routes count it and skip the message)
     */
    Message read(byte[] bytes) throws SchemaMismatch {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        try {
            if (in.readUnsignedShort() != MAGIC) {
                throw new IllegalArgumentException("not a Caravan sync message");
            }
            int version = in.readUnsignedByte();
            int minReader = in.readUnsignedByte();
            if (minReader > VERSION) {
                throw new SchemaMismatch("schema " + version + " needs a reader of at least " + minReader
                        + "; this replica reads " + VERSION);
            }
            int kind = in.readUnsignedByte();
            if (kind >= Kind.values().length) {
                throw new SchemaMismatch("unknown message kind " + kind + " of schema " + version);
            }
            Header header = new Header(version, minReader, Kind.values()[kind], new UUID(in.readLong(), in.readLong()),
                    in.readLong());
            return new Message(header, body(header.kind(), in));
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated sync message: " + e, e);
        }
    }

    private static Object body(Kind kind, DataInputStream in) throws IOException {
        switch (kind) {
            case DECISIONS: {
                List<String> strings = readStrings(in);
                int n = readCount(in, 10);
                List<PrefixDecision> out = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    String worker = readIndexed(in, strings);
                    long stamp = in.readLong();
                    long[] hashes = new long[readCount(in, Long.BYTES)];
                    for (int h = 0; h < hashes.length; h++) {
                        hashes[h] = in.readLong();
                    }
                    out.add(new PrefixDecision(worker, stamp, hashes));
                }
                return out;
            }
            case LOADS: {
                Map<String, Integer> counts = readCounts(in);
                Map<String, Integer> blocks = in.available() > 0 ? readCounts(in) : Map.of();
                return new LoadReport(counts, blocks);
            }
            case SNAPSHOT: {
                List<String> strings = readStrings(in);
                int n = readCount(in, 17);
                List<FleetPrefixIndex.Entry> out = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    String owner = readIndexed(in, strings);
                    out.add(new FleetPrefixIndex.Entry(in.readLong(), owner, in.readLong()));
                }
                return out;
            }
            case KV_SNAPSHOT:
                return readKvSnapshot(in);
            case BUCKET_RANGES: {
                int n = readCount(in, 17);
                List<BucketRanges.Range> out = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    out.add(new BucketRanges.Range(readString(in), in.readLong(), in.readLong()));
                }
                return out;
            }
            default:
                return new Session(readString(in), readStrings(in), in.readLong());
        }
    }

    private static KvSnapshot readKvSnapshot(DataInputStream in) throws IOException {
        List<String> lora = readStrings(in);
        int workers = readCount(in, 3);
        List<KvEventIngestor.WorkerSnapshot> out = new ArrayList<>(workers);
        for (int w = 0; w < workers; w++) {
            String key = readString(in);
            int np = readCount(in, 10);
            List<SequenceTracker.Position> positions = new ArrayList<>(np);
            for (int i = 0; i < np; i++) {
                positions.add(new SequenceTracker.Position(readString(in), readVarint(in), in.readLong()));
            }
            int nr = readCount(in, 11);
            List<KvBlockIndex.RankState> ranks = new ArrayList<>(nr);
            for (int i = 0; i < nr; i++) {
                int rank = readVarint(in);
                int blockSize = readVarint(in);
                long nonRouting = in.readLong();
                int n = readCount(in, 3 * Long.BYTES);
                long[] ids = new long[n];
                long[] keys = new long[n];
                long[] masks = new long[n];
                for (int e = 0; e < n; e++) {
                    ids[e] = in.readLong();
                    keys[e] = in.readLong();
                    masks[e] = in.readLong();
                }
                ranks.add(new KvBlockIndex.RankState(rank, blockSize, nonRouting, ids, keys, masks));
            }
            out.add(new KvEventIngestor.WorkerSnapshot(key, positions, ranks));
        }
        return new KvSnapshot(lora, out);
    }

    private interface Body {
        void write(DataOutputStream out) throws IOException;
    }

    private byte[] write(Kind kind, UUID origin, long sentAt, Body body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            out.writeShort(MAGIC);
            out.writeByte(writeVersion);
            out.writeByte(writeMinReader);
            out.writeByte(kind.ordinal());
            out.writeLong(origin.getMostSignificantBits());
            out.writeLong(origin.getLeastSignificantBits());
            out.writeLong(sentAt);
            body.write(out);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }

    private static void writeStrings(DataOutputStream out, List<String> strings) throws IOException {
        writeVarint(out, strings.size());
        for (String s : strings) {
            writeString(out, s);
        }
    }

    private static List<String> readStrings(DataInputStream in) throws IOException {
        int n = readCount(in, 1);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(readString(in));
        }
        return out;
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeVarint(out, b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in) throws IOException {
        byte[] b = new byte[readCount(in, 1)];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    /**
     * A count of items that take at least {@code minBytes} each. More than the rest of the message can hold is a broken
     * message, rejected before anything is sized by it (a peer's 5-byte count must not allocate gigabytes).
     */
    private static int readCount(DataInputStream in, int minBytes) throws IOException {
        int n = readVarint(in);
        int left = in.available(); // exact: the stream reads a byte array
        if (n > left / minBytes) {
            throw new IllegalArgumentException("malformed sync message: a count of " + n + " items of at least "
                    + minBytes + " bytes, " + left + " bytes left");
        }
        return n;
    }

    /** An index into the message's string table. */
    private static String readIndexed(DataInputStream in, List<String> strings) throws IOException {
        int i = readVarint(in);
        if (i >= strings.size()) {
            throw new IllegalArgumentException("malformed sync message: string " + i + " of a table of "
                    + strings.size());
        }
        return strings.get(i);
    }

    static void writeVarint(DataOutputStream out, int v) throws IOException {
        if (v < 0) {
            throw new IllegalArgumentException("varints are unsigned, was " + v);
        }
        while ((v & ~0x7F) != 0) {
            out.writeByte((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.writeByte(v);
    }

    static int readVarint(DataInputStream in) throws IOException {
        int v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = in.readUnsignedByte();
            v |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                if (v < 0) {
                    throw new IOException("varint out of range");
                }
                return v;
            }
        }
        throw new IOException("varint longer than 5 bytes");
    }
}
