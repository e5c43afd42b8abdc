package io.tide.replication;

import io.tide.journal.Effect;
import io.tide.journal.JournalSink;
import java.util.ArrayList;
import java.util.List;

/**
 * Confined to the thread that owns the shard (its loop, or the coordinator while it is parked), as the journal is.
 * One shard's journal sink for replication: gathers the shard's records and, at each journal flush (before any reply
 * that acknowledges them leaves), hands them to the {@link Primary} as one batch.
 */
final class ReplicationSink implements JournalSink {

    /** A transaction record: a shard's own MULTI/EXEC ({@code groupSeq} 0) or its part of a cross-shard group. */
    record Tx(long groupSeq, int parts, List<Effect> effects) {}

    /** One flush's records of one shard, in journal order: {@link Effect}s and {@link Tx}s. */
    record Batch(List<Object> records) {}

    private final Primary primary;
    private ArrayList<Object> pending = new ArrayList<>();

    ReplicationSink(Primary primary) {
        this.primary = primary;
    }

    @Override
    public void command(Effect e) {
        pending.add(e);
    }

    @Override
    public void transaction(long groupSeq, int parts, List<Effect> effects) {
        pending.add(new Tx(groupSeq, parts, effects));
    }

    @Override
    public void flush() {
        if (pending.isEmpty()) return;
        primary.offer(new Batch(pending));
        pending = new ArrayList<>();
    }

    @Override
    public boolean pending() {
        return !pending.isEmpty();
    }
}
