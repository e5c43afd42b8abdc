package io.tide.store;

/**
 * Confined to the shard thread that owns the value. A keyspace value that is not a string: a list,
 * hash, set, sorted set or stream. TYPE, OBJECT ENCODING, COPY, SCAN TYPE and memory accounting
 * reach every such value through this interface.
 *
 * <p>Rules every implementation keeps: a key never holds an empty collection (the command that
 * removes the last element deletes the key); {@link #memoryBytes()} is O(1) and kept current as the
 * value changes, and a command that mutates a value in place reports the change with
 * {@link Database#adjustUsedBytes(long)}.
 */
public interface CollectionValue extends Sized {

    /** TYPE's answer: "list", "hash", "set", "zset" or "stream". */
    String typeName();

    /** OBJECT ENCODING's answer for the current representation, in Redis's names where the shape matches. */
    String encodingName();

    /** An independent deep copy (COPY), in the same encoding. */
    CollectionValue copy();

    /**
     * Reads the value's data (the lines of a listpack's array, {@link #touchLines}) and returns something it read: the
     * last pass of {@link Database#prefetchEntries}, which overlaps the cache misses of a batch's values (decision 0023).
     */
    default int touch() {
        return 0;
    }

    /** Bytes of a compact value's array that {@link #touch} reads: 16 cache lines, most of a small listpack's. */
    int TOUCH_BYTES = 1024;

    /**
     * Reads one byte in each 64-byte line of the first {@link #TOUCH_BYTES} of {@code a} (null: none) and returns their
     * sum. The loads do not depend on each other, so their misses overlap, where a scan of the entries, which finds
     * each entry's start from the one before, waits for them one at a time.
     */
    static int touchLines(byte[] a) {
        if (a == null) return 0;
        int acc = a.length;
        for (int i = 0, end = Math.min(a.length, TOUCH_BYTES); i < end; i += 64) acc += a[i];
        return acc;
    }
}
