package io.tide.shard;

import io.tide.util.Crc16;

/**
 * All shards of a server and the slot map that routes keys to them: hash slot (CRC16 of the key or
 * its {@code {tag}}, mod 16384) to shard, in contiguous slot ranges as Redis Cluster assigns them.
 * Thread-safe: immutable after construction.
 */
public final class ShardSet {

    public static final int SLOTS = 16384;

    private final Shard[] shards;
    private final int[] slotToShard = new int[SLOTS];
    private final Coordinator coordinator;

    public ShardSet(Shard[] shards) {
        this.shards = shards.clone();
        for (int slot = 0; slot < SLOTS; slot++) {
            slotToShard[slot] = (int) ((long) slot * shards.length / SLOTS);
        }
        // Also with one shard: scripts run there so the shard thread stays free to answer -BUSY (decision 0006).
        this.coordinator = new Coordinator();
        for (Shard s : this.shards) s.coordinator(coordinator);
    }

    public int size() { return shards.length; }
    public Shard[] all() { return shards; }
    public Shard get(int i) { return shards[i]; }
    public Coordinator coordinator() { return coordinator; }

    public int shardIndexOfSlot(int slot) {
        return slotToShard[slot];
    }

    public Shard shardOf(byte[] key) {
        return shards.length == 1 ? shards[0] : shards[slotToShard[Crc16.slot(key)]];
    }

    public void close() {
        coordinator.close();
    }
}
