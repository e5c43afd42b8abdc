package io.tide.store;

/**
 * Receives the entries of one database's point-in-time image while a fork-less snapshot runs. Called on the
 * thread that owns the database (its shard thread, or the coordinator while the shard is parked), either by the
 * snapshot's own walk ({@link Database.Snapshot#step}) or by a write that is about to change or move an entry the
 * walk has not reached yet, so that the image keeps the value the entry had when the snapshot began. The value
 * must be serialized before the call returns: the caller changes it right afterwards.
 */
@FunctionalInterface
public interface SnapshotSink {

    /** One entry of the image: {@code expireAtMs} is absolute unix ms, 0 for none. */
    void save(byte[] key, Object value, long expireAtMs);

    /**
     * One entry whose key lies in {@code slab} at {@code [keyOff, keyOff + keyLen)}, and, when {@code value} is
     * null, whose value is the string at {@code [valueOff, valueOff + valueLen)} of the same slab: for a sink that
     * serializes them at once, with no copy (a snapshot of millions of keys otherwise makes two arrays of garbage a
     * key). The bytes are the database's own: read them before returning, never keep or change them. By default,
     * copies them for {@link #save}.
     */
    default void save(byte[] slab, int keyOff, int keyLen, Object value, int valueOff, int valueLen, long expireAtMs) {
        save(java.util.Arrays.copyOfRange(slab, keyOff, keyOff + keyLen),
                value != null ? value : java.util.Arrays.copyOfRange(slab, valueOff, valueOff + valueLen), expireAtMs);
    }
}
