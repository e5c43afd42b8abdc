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

    /** Makes everything handed over so far survive a killed process (the AOF's write(2)); before replies leave. */
    default void flush() {}

    /** Whether something handed over is not yet flushed. */
    default boolean pending() { return false; }

    /** Whether a reply may leave only once what its command recorded is durable ({@code appendfsync always}). */
    default boolean syncsReplies() { return false; }

    /**
     * Runs {@code done} on the owning shard's thread once everything handed over so far is durable ({@code true})
     * or can no longer become so ({@code false}: the fsync failed or timed out).
     */
    default void whenDurable(java.util.function.Consumer<Boolean> done) { done.accept(true); }

    /**
     * Whether this sink holds on to the argument arrays of the effects it is handed once the call returns (decision
     * 0028): then the decoder may not have them back. The AOF encodes each record into its buffer at once and keeps
     * none; the replication stream queues the effects themselves.
     */
    default boolean keepsArguments() { return true; }

    /** The error clients get while this sink cannot record writes, or null when it can. */
    default String failure() { return null; }
}
