package io.tide.store;

/**
 * Thread-safe (volatile fields, written by CONFIG SET, read by every shard). The thresholds at which a
 * collection leaves its compact encoding for its scalable one, with Redis's parameter names:
 * {@code list-max-listpack-size}, {@code hash-max-listpack-entries|value}, {@code set-max-intset-entries},
 * {@code set-max-listpack-entries|value}, {@code zset-max-listpack-entries|value},
 * {@code stream-node-max-bytes|entries} and {@code hll-sparse-max-bytes}. A collection checks them when it
 * grows (to convert up) and where Redis converts down; a change applies to later writes, as in Redis.
 */
public final class EncodingLimits {

    public volatile int listMaxListpackSize = -2;
    public volatile long hashMaxListpackEntries = 512;
    public volatile long hashMaxListpackValue = 64;
    public volatile long setMaxIntsetEntries = 512;
    public volatile long setMaxListpackEntries = 128;
    public volatile long setMaxListpackValue = 64;
    public volatile long zsetMaxListpackEntries = 128;
    public volatile long zsetMaxListpackValue = 64;
    public volatile long streamNodeMaxBytes = 4096;
    public volatile long streamNodeMaxEntries = 100;
    public volatile long hllSparseMaxBytes = 3000;

    /**
     * Whether a list node (or a whole listpack-encoded list) of {@code entries} entries and about
     * {@code bytes} bytes is within {@code list-max-listpack-size}: a positive value caps the entries
     * (and, as in Redis, a node never exceeds 8 KB unless it holds a single entry); -1..-5 cap the
     * bytes at 4, 8, 16, 32 or 64 KB.
     */
    public boolean listNodeFits(long entries, long bytes) {
        int fill = listMaxListpackSize;
        if (fill >= 0) {
            return entries <= Math.max(fill, 1) && (bytes <= 8192 || entries <= 1);
        }
        int level = Math.min(-fill, 5);
        return bytes <= (4096L << (level - 1));
    }
}
