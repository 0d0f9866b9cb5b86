package dev.caravan.sync;

import java.io.Serializable;
import java.util.concurrent.Callable;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;

/**
 * Runs on a peer through the executor service, for a replica that joins or rejoins after a partition: that member's
 * fleet prefix index as a {@link SyncCodec} {@code SNAPSHOT} message, or with {@link #kvIndex()} its KV block index and
 * publisher positions as a {@code KV_SNAPSHOT} message.
 */
final class SnapshotTask implements Callable<byte[]>, Serializable, HazelcastInstanceAware {

    private static final long serialVersionUID = 1L;

    private final boolean kvIndex;
    private transient HazelcastInstance instance;

    /** The fleet prefix index. */
    SnapshotTask() {
        this(false);
    }

    private SnapshotTask(boolean kvIndex) {
        this.kvIndex = kvIndex;
    }

    /** The KV block index and its publishers' positions. */
    static SnapshotTask kvIndex() {
        return new SnapshotTask(true);
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.instance = instance;
    }

    @Override
    public byte[] call() {
        SyncNode node = (SyncNode) instance.getUserContext().get(SyncMember.NODE);
        if (node == null) {
            throw new IllegalStateException("this member has no Caravan sync node");
        }
        return kvIndex ? node.exportKvSnapshot(instance) : node.exportSnapshot(instance);
    }
}
