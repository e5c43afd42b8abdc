package io.tide.store;

/**
 * Called on the thread that owns the {@link Database} (its shard thread, or the coordinator while the
 * shard is parked) just before a key that did not exist is stored. Must not modify the database.
 */
@FunctionalInterface
public interface KeyAddedListener {

    void added(Database db, byte[] key);
}
