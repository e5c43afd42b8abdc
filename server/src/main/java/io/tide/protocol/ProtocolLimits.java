package io.tide.protocol;

/**
 * Thread-safe: the live protocol limits ({@code proto-max-bulk-len}, {@code client-query-buffer-limit})
 * read by every {@link RespDecoder}; {@code CONFIG SET} changes them for all connections at once.
 */
public final class ProtocolLimits {

    /** Redis's default {@code proto-max-bulk-len}: 512 MiB. */
    public static final long DEFAULT_MAX_BULK_LENGTH = 512L * 1024 * 1024;
    /** Redis's default {@code client-query-buffer-limit}: 1 GiB. */
    public static final long DEFAULT_QUERY_BUFFER_LIMIT = 1024L * 1024 * 1024;

    private volatile long maxBulkLength;
    private volatile long queryBufferLimit;

    public ProtocolLimits() {
        this(DEFAULT_MAX_BULK_LENGTH, DEFAULT_QUERY_BUFFER_LIMIT);
    }

    public ProtocolLimits(long maxBulkLength, long queryBufferLimit) {
        this.maxBulkLength = maxBulkLength;
        this.queryBufferLimit = queryBufferLimit;
    }

    /** The largest bulk argument accepted, in bytes ({@code proto-max-bulk-len}). */
    public long maxBulkLength() {
        return maxBulkLength;
    }

    public void setMaxBulkLength(long bytes) {
        this.maxBulkLength = bytes;
    }

    /** The most unprocessed input a connection may hold, in bytes ({@code client-query-buffer-limit}). */
    public long queryBufferLimit() {
        return queryBufferLimit;
    }

    public void setQueryBufferLimit(long bytes) {
        this.queryBufferLimit = bytes;
    }
}
