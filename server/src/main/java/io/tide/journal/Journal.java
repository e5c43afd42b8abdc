package io.tide.journal;

import java.util.List;

/**
 * One shard's journal: the ordered stream of write effects (commands that changed data, in the deterministic
 * form Redis propagates them, transactions and scripts wrapped in MULTI/EXEC, cross-shard operations as parts of
 * a numbered group) that the AOF writes and replication streams. Confined to the thread that owns the shard: its
 * event loop, or the coordinator while the shard is parked (the barrier's latches order the two).
 *
 * <p>The journal itself keeps nothing: it hands each record to its sinks at once, in order. With no sink
 * ({@code appendonly no} and no replicas) {@link #active()} is false and the dispatcher builds no records at
 * all, so the hot path pays one field read. See docs/decisions/0007-write-seam-and-journal.md.
 */
public final class Journal {

    private static final JournalSink[] NONE = new JournalSink[0];

    private JournalSink[] sinks = NONE;
    /** Some sink keeps its records' argument arrays; kept with {@link #sinks}. */
    private boolean keepsArguments;
    /** Records handed over so far (commands and transactions), for tests and INFO. */
    private long records;
    /** Schedules a task after the owning loop's current iteration. */
    private final java.util.function.Consumer<Runnable> afterIteration;
    private final java.util.ArrayList<Runnable> afterFlush = new java.util.ArrayList<>();
    private boolean tailScheduled;
    private final Runnable tail = this::flushAtIterationEnd;

    /** {@code afterIteration} runs a task on the owning thread once its current event-loop iteration is done. */
    public Journal(java.util.function.Consumer<Runnable> afterIteration) {
        this.afterIteration = afterIteration;
    }

    /** Whether any sink listens; when false, callers skip building records. */
    public boolean active() {
        return sinks.length != 0;
    }

    /** Whether some sink holds on to the argument arrays of its records ({@link JournalSink#keepsArguments}). */
    public boolean keepsArguments() {
        return keepsArguments;
    }

    /** Adds a sink; on the owning thread (or with the shard parked). */
    public void addSink(JournalSink s) {
        JournalSink[] n = java.util.Arrays.copyOf(sinks, sinks.length + 1);
        n[sinks.length] = s;
        sinks = n;
        keepsArguments |= s.keepsArguments();
    }

    /** Removes a sink (AOF turned off); on the owning thread (or with the shard parked). */
    public void removeSink(JournalSink s) {
        int n = 0;
        JournalSink[] out = new JournalSink[sinks.length];
        for (JournalSink x : sinks) if (x != s) out[n++] = x;
        sinks = java.util.Arrays.copyOf(out, n);
        keepsArguments = false;
        for (JournalSink x : sinks) keepsArguments |= x.keepsArguments();
    }

    public void command(Effect e) {
        records++;
        for (JournalSink s : sinks) s.command(e);
    }

    public void transaction(long groupSeq, int parts, List<Effect> effects) {
        records++;
        for (JournalSink s : sinks) s.transaction(groupSeq, parts, effects);
    }

    public long records() {
        return records;
    }

    /** Flushes every sink (before replies leave this shard; cheap when nothing was recorded). */
    public void flush() {
        for (JournalSink s : sinks) s.flush();
    }

    /** Whether some record is not flushed yet. */
    public boolean pending() {
        for (JournalSink s : sinks) if (s.pending()) return true;
        return false;
    }

    /**
     * Runs {@code r} on the owning thread right after the journal is flushed at the end of this event-loop
     * iteration: connections hold their replies until then, so one write(2) of the AOF serves every connection
     * of the iteration, as Redis's beforeSleep writes the AOF once before it writes the replies.
     */
    public void afterNextFlush(Runnable r) {
        afterFlush.add(r);
        if (!tailScheduled) {
            tailScheduled = true;
            afterIteration.accept(tail);
        }
    }

    private void flushAtIterationEnd() {
        tailScheduled = false;
        flush();
        if (afterFlush.isEmpty()) return;
        Runnable[] due = afterFlush.toArray(new Runnable[0]);
        afterFlush.clear();
        for (Runnable r : due) r.run();
    }

    /** Whether some sink makes replies wait for durability. */
    public boolean syncsReplies() {
        for (JournalSink s : sinks) if (s.syncsReplies()) return true;
        return false;
    }

    /** Runs {@code done} once every sink that syncs has made the records so far durable (false if one failed). */
    public void whenDurable(java.util.function.Consumer<Boolean> done) {
        JournalSink only = null;
        int n = 0;
        for (JournalSink s : sinks) {
            if (s.syncsReplies()) {
                only = s;
                n++;
            }
        }
        if (n == 0) {
            done.accept(true);
        } else if (n == 1) {
            only.whenDurable(done);
        } else {
            int[] left = {n};
            boolean[] ok = {true};
            for (JournalSink s : sinks) {
                if (!s.syncsReplies()) continue;
                s.whenDurable(r -> {
                    ok[0] &= r;
                    if (--left[0] == 0) done.accept(ok[0]);
                });
            }
        }
    }

    /** The first sink's failure (writes are refused meanwhile), or null. */
    public String failure() {
        for (JournalSink s : sinks) {
            String f = s.failure();
            if (f != null) return f;
        }
        return null;
    }
}
