package io.tide.store;

/**
 * Called on the shard thread that owns the {@link Database}, right after lazy or active expiry has
 * deleted a key. Implementations must not modify the database from inside the callback.
 */
@FunctionalInterface
public interface ExpiryListener {

    /** {@code key} and {@code value} are the entry that was just removed from {@code db}. */
    void expired(Database db, byte[] key, Object value);
}
