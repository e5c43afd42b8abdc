package io.tide.store;

/**
 * Immutable, so thread-safe (CONFIG SET publishes a new instance). The thresholds at which a
 * collection leaves its compact encoding for its scalable one, with Redis's parameter names:
 * {@code list-max-listpack-size}, {@code list-compress-depth}, {@code hash-max-listpack-entries|value}, {@code set-max-intset-entries},
 * {@code set-max-listpack-entries|value}, {@code zset-max-listpack-entries|value},
 * {@code stream-node-max-bytes|entries} and {@code hll-sparse-max-bytes}. A collection checks them when it
 * grows (to convert up) and where Redis converts down; a change applies to later writes, as in Redis.
 */
public final class EncodingLimits {

    public final int listMaxListpackSize;
    /** Quicklist nodes kept uncompressed at each end of a list (0 = none compressed). */
    public final int listCompressDepth;
    public final long hashMaxListpackEntries;
    public final long hashMaxListpackValue;
    public final long setMaxIntsetEntries;
    public final long setMaxListpackEntries;
    public final long setMaxListpackValue;
    public final long zsetMaxListpackEntries;
    public final long zsetMaxListpackValue;
    public final long streamNodeMaxBytes;
    public final long streamNodeMaxEntries;
    public final long hllSparseMaxBytes;

    /** Redis's defaults. */
    public static final EncodingLimits DEFAULTS =
            new EncodingLimits(-2, 0, 512, 64, 512, 128, 64, 128, 64, 4096, 100, 3000);

    /** With {@code list-compress-depth} 0. */
    public EncodingLimits(int listMaxListpackSize, long hashMaxListpackEntries, long hashMaxListpackValue,
                          long setMaxIntsetEntries, long setMaxListpackEntries, long setMaxListpackValue,
                          long zsetMaxListpackEntries, long zsetMaxListpackValue, long streamNodeMaxBytes,
                          long streamNodeMaxEntries, long hllSparseMaxBytes) {
        this(listMaxListpackSize, 0, hashMaxListpackEntries, hashMaxListpackValue, setMaxIntsetEntries,
                setMaxListpackEntries, setMaxListpackValue, zsetMaxListpackEntries, zsetMaxListpackValue,
                streamNodeMaxBytes, streamNodeMaxEntries, hllSparseMaxBytes);
    }

    public EncodingLimits(int listMaxListpackSize, int listCompressDepth, long hashMaxListpackEntries,
                          long hashMaxListpackValue, long setMaxIntsetEntries, long setMaxListpackEntries,
                          long setMaxListpackValue, long zsetMaxListpackEntries, long zsetMaxListpackValue,
                          long streamNodeMaxBytes, long streamNodeMaxEntries, long hllSparseMaxBytes) {
        this.listMaxListpackSize = listMaxListpackSize;
        this.listCompressDepth = listCompressDepth;
        this.hashMaxListpackEntries = hashMaxListpackEntries;
        this.hashMaxListpackValue = hashMaxListpackValue;
        this.setMaxIntsetEntries = setMaxIntsetEntries;
        this.setMaxListpackEntries = setMaxListpackEntries;
        this.setMaxListpackValue = setMaxListpackValue;
        this.zsetMaxListpackEntries = zsetMaxListpackEntries;
        this.zsetMaxListpackValue = zsetMaxListpackValue;
        this.streamNodeMaxBytes = streamNodeMaxBytes;
        this.streamNodeMaxEntries = streamNodeMaxEntries;
        this.hllSparseMaxBytes = hllSparseMaxBytes;
    }
}
