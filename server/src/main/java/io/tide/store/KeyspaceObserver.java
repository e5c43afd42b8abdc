package io.tide.store;

/**
 * Called on the thread that owns the {@link Database} (its shard thread, or the coordinator while the shard is
 * parked) for every change to a key: the write seam's bookkeeping (dirty counting, WATCH, client tracking, blocked
 * clients, expiry notifications) hangs off these callbacks, so command handlers never do it by hand.
 * Implementations must not modify the database from inside a callback.
 */
public interface KeyspaceObserver {

    /**
     * After a key's value, expiry or existence changed through {@link Database#put}, {@link Database#putRaw},
     * {@link Database#remove}, {@link Database#setExpireAt}, {@link Database#persist} or
     * {@link Database#modified} (an in-place change). Not for expiry, which calls {@link #expired}.
     */
    default void written(Database db, byte[] key) {}

    /**
     * Instead of {@link #written}, when a store replaced a live value by one of another of the types clients block on
     * (list, sorted set, stream, or any other): Redis's setKey overwrite, which tells only the clients that wait to
     * hear of a deletion (signalDeletedKeyAsReady), where a key created or changed in place readies all its waiters.
     */
    default void retyped(Database db, byte[] key) {
        written(db, key);
    }

    /** Just before a key that did not exist is stored. */
    default void added(Database db, byte[] key) {}

    /** Just after {@link Database#remove} deleted a key (not on expiry). */
    default void removed(Database db, byte[] key) {}

    /** Just after {@link Database#evict} deleted a key to free memory (then {@link #written} follows). */
    default void evicted(Database db, byte[] key) {}

    /** Right after lazy or active expiry deleted {@code key}, whose value was {@code value}. */
    default void expired(Database db, byte[] key, Object value) {}

    /** After active expiry deleted elements of {@code key}'s value; {@code keyDeleted} when none was left. */
    default void fieldsExpired(Database db, byte[] key, boolean keyDeleted) {}

    /**
     * Whether expired keys must stay where they are for now (CLIENT PAUSE: Redis keeps the dataset constant while
     * paused). Asked only when a lookup meets an expired key and before an active expiry cycle: lookups then answer
     * "absent" without deleting, the cycle deletes nothing, and a write that stores over such a key expires it first.
     */
    default boolean expiryHeld() { return false; }

    /** Just before {@link Database#clear} empties {@code db} (FLUSHDB, FLUSHALL). */
    default void flushing(Database db) {}

    /** Just after {@link Database#swapContents} exchanged the contents of {@code a} and {@code b} (SWAPDB). */
    default void swapped(Database a, Database b) {}
}
