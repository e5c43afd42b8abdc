package io.tide.shard;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;

/**
 * Confined to its shard thread (or the coordinator while the shard is parked). The clients blocked on
 * this shard's keys, per (database, key) in the order they blocked, and the keys signalled ready since
 * the dispatcher last served them. Redis's {@code blocking_keys} and {@code ready_keys}.
 */
public final class BlockedKeys {

    /**
     * Numbers every signal of a key with waiters, across shards: an operation that pushes to keys of several shards
     * has their waiters served in the order it signalled the keys, as Redis's one {@code ready_keys} list has them.
     */
    private static final java.util.concurrent.atomic.AtomicLong SIGNALS = new java.util.concurrent.atomic.AtomicLong();

    private final HashMap<DbKey, ArrayDeque<Waiter>> byKey = new HashMap<>();
    /** The keys signalled ready, in signal order, with their numbers from {@link #SIGNALS}. */
    private final ArrayDeque<Ready> ready = new ArrayDeque<>();
    private final HashSet<DbKey> readySet = new HashSet<>();

    private record Ready(DbKey key, long signal) {}

    /** A key in one database, compared by content. */
    public record DbKey(int db, byte[] key) {
        @Override
        public boolean equals(Object o) {
            return o instanceof DbKey k && k.db == db && Arrays.equals(k.key, key);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(key) * 31 + db;
        }
    }

    /** Whether no client waits on any key of this shard. */
    public boolean isEmpty() {
        return byKey.isEmpty();
    }

    /**
     * A write changed {@code key} of {@code d} (created, changed in place or deleted it): marks it ready when one of
     * its waiters waits for what the key holds now ({@link Waiter#retriedOn}): a list for list pops, a stream for
     * XREAD, anything for XREADGROUP (a deletion too). As Redis's typed signalKeyAsReady, a stream created where only
     * list clients wait readies nothing, even if a list is stored over it later in the same transaction. Cheap when no
     * one waits anywhere.
     */
    public void signal(int db, byte[] key, io.tide.store.Database d) {
        readyFor(db, key, d, false);
    }

    /**
     * A store replaced {@code key}'s value by one of another type (Redis's setKey overwrite): marks it ready only when
     * a client that must hear of a deletion waits on it (XREADGROUP), as signalDeletedKeyAsReady does; then, as in
     * Redis, all its waiters are tried.
     */
    public void signalRetyped(int db, byte[] key) {
        readyFor(db, key, null, true);
    }

    /** {@link #signal} ({@code retyped} false, reading the key in {@code d}) and {@link #signalRetyped}. */
    private void readyFor(int db, byte[] key, io.tide.store.Database d, boolean retyped) {
        if (byKey.isEmpty()) return;
        DbKey k = new DbKey(db, key);
        ArrayDeque<Waiter> q = byKey.get(k);
        if (q == null || readySet.contains(k)) return;
        Object now = retyped ? null : d.peekQuietly(key, System.currentTimeMillis());
        for (Waiter w : q) {
            if (retyped ? w.toldOfDeletion() : w.retriedOn(now)) {
                markReady(k);
                return;
            }
        }
    }

    /** Marks every key of database {@code db} with waiters ready (SWAPDB and FLUSH change them all at once). */
    public void signalDb(int db) {
        for (DbKey k : byKey.keySet()) {
            if (k.db() == db) markReady(k);
        }
    }

    /** Queues {@code k} among the ready keys, numbered in signal order, unless it is there already. */
    private void markReady(DbKey k) {
        if (readySet.add(k)) ready.add(new Ready(k, SIGNALS.incrementAndGet()));
    }

    /** Whether some key was signalled since the last {@link #takeReady}. */
    public boolean hasReady() {
        return !ready.isEmpty();
    }

    /** The keys signalled so far, in signal order; clears them. */
    public ArrayList<DbKey> takeReady() {
        ArrayList<DbKey> out = new ArrayList<>(ready.size());
        for (Ready r : ready) out.add(r.key());
        ready.clear();
        readySet.clear();
        return out;
    }

    /** The number of the earliest signal not yet taken ({@link #takeFirstReady}), or {@link Long#MAX_VALUE}. */
    public long firstReadySignal() {
        Ready r = ready.peekFirst();
        return r == null ? Long.MAX_VALUE : r.signal();
    }

    /** The earliest key signalled and not yet taken; null if none. It may be signalled again from now on. */
    public DbKey takeFirstReady() {
        Ready r = ready.pollFirst();
        if (r == null) return null;
        readySet.remove(r.key());
        return r.key();
    }

    /** Queues {@code w} on {@code key}, behind earlier waiters. */
    public void add(Waiter w, int db, byte[] key) {
        byKey.computeIfAbsent(new DbKey(db, key), k -> new ArrayDeque<>()).add(w);
    }

    /** The waiters on {@code key}, in blocking order, or null. */
    public ArrayDeque<Waiter> waiters(DbKey key) {
        return byKey.get(key);
    }

    /** Removes {@code w} from the queues of those of its keys that live on this shard. */
    public void remove(Waiter w, ShardSet shards, Shard self) {
        for (byte[] key : w.keys()) {
            if (shards.shardOf(key) != self) continue;
            DbKey k = new DbKey(w.db(), key);
            ArrayDeque<Waiter> q = byKey.get(k);
            if (q == null) continue;
            q.remove(w);
            if (q.isEmpty()) byKey.remove(k);
        }
    }

    /** Drops finished waiters from the head of {@code key}'s queue and the queue itself once empty. */
    public void prune(DbKey key) {
        ArrayDeque<Waiter> q = byKey.get(key);
        if (q == null) return;
        q.removeIf(Waiter::isDone);
        if (q.isEmpty()) byKey.remove(key);
    }

    /** Number of keys with at least one waiter (INFO's blocking keys). */
    public int keyCount() {
        return byKey.size();
    }
}
