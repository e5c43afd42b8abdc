package io.tide.shard;

/** Counters one shard keeps for INFO. Confined to its shard thread; read by INFO while shards are parked. */
public final class ShardStats {
    public long keyspaceHits;
    public long keyspaceMisses;
    public long expiredKeys;
    public long netInputBytes;
    public long netOutputBytes;
    public long commandsProcessed;
}
