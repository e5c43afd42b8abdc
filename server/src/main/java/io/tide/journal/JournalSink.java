package io.tide.journal;

import java.util.List;

/**
 * Where one shard's journal delivers its write effects: the AOF writer, later the replication stream. Called on
 * the thread that owns the shard (its event loop, or the coordinator while the shard is parked), in journal order.
 */
public interface JournalSink {

    /** One effect outside any transaction. */
    void command(Effect e);

    /**
     * Effects that must be applied whole or not at all, as {@code MULTI ... EXEC}. {@code groupSeq} is 0 for a
     * transaction of this shard alone; otherwise this is this shard's part of an operation spanning {@code parts}
     * shards, all of whose parts carry the same server-wide {@code groupSeq}.
     */
    void transaction(long groupSeq, int parts, List<Effect> effects);
}
