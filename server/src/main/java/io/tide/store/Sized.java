package io.tide.store;

/**
 * Confined to the shard thread that owns the value. A value that reports its own memory footprint
 * for the keyspace's incremental accounting; see {@link MemoryCost}.
 */
public interface Sized {

    /** Estimated heap bytes held by this value, including its own object header. */
    long memoryBytes();
}
