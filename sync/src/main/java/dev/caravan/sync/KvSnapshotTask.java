package dev.caravan.sync;

import java.io.Serializable;
import java.util.concurrent.Callable;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;

/**
 * Runs on a peer through the executor service: that member's KV block index (kv_aware's view of what the engines
 * hold) and its publishers' positions as a {@link SyncCodec} {@code KV_SNAPSHOT} message, for a replica that joins.
 */
final class KvSnapshotTask implements Callable<byte[]>, Serializable, HazelcastInstanceAware {

    private static final long serialVersionUID = 1L;

    private transient HazelcastInstance instance;

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
        return node.exportKvSnapshot(instance);
    }
}
