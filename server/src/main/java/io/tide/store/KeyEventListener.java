package io.tide.store;

/**
 * Called on the thread that owns the {@link Database} (its shard thread, or the coordinator while the
 * shard is parked) when a key appears or is deleted: blocked clients wait for keys to appear, and some
 * (XREADGROUP) must learn that their key is gone. Must not modify the database.
 */
public interface KeyEventListener {

    /** Just before a key that did not exist is stored. */
    void added(Database db, byte[] key);

    /** Just after {@link Database#remove} deleted a key (not on expiry). */
    void removed(Database db, byte[] key);
    /** After active expiry deleted elements of {@code key}'s value; {@code keyDeleted} when none was left. */
    default void fieldsExpired(Database db, byte[] key, boolean keyDeleted) {}
}
