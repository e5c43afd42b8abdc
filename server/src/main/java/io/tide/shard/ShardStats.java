package io.tide.shard;

/**
 * Counters one shard keeps for INFO. Confined to its shard thread: INFO and /metrics read a {@link #counters} copy taken
 * there (io.tide.command.ShardSnapshot).
 */
public final class ShardStats {

    public long keyspaceHits;
    public long keyspaceMisses;
    public long expiredKeys;
    public long evictedKeys;
    public long netInputBytes;
    public long netOutputBytes;
    public long commandsProcessed;
    /** Top-level commands that ran on this shard's thread alone, whatever their connection's home shard (its load). */
    public long commandsExecuted;
    /** Error replies sent (INFO total_error_replies) and their counts by error code (INFO errorstats). */
    public long errorReplies;
    public final java.util.HashMap<String, long[]> errorCodes = new java.util.HashMap<>();

    /** Redis's ERROR_STATS_NUMBER: error codes beyond this many distinct ones are not tracked. */
    public static final int ERROR_CODES_MAX = 128;

    /**
     * Counts an error reply as Redis's afterErrorReply: its code is the text before the first space within its first
     * 31 characters, else ERR.
     */
    public void countError(String text) {
        errorReplies++;
        int space = text.indexOf(' ');
        String code = space > 0 && space < 31 ? text.substring(0, space) : "ERR";
        long[] n = errorCodes.get(code);
        if (n == null) {
            if (errorCodes.size() >= ERROR_CODES_MAX) return;
            errorCodes.put(code, n = new long[1]);
        }
        n[0]++;
    }

    /** Read events handled (a batch of reads from one socket) and flushes that wrote to a socket. */
    public long readsProcessed;
    public long writesProcessed;
    /** The active expiry's running estimate of the share of sampled volatile keys found expired (0 to 1). */
    public double expiredStalePerc;
    /** Active expiry cycles that stopped at their time budget with expired keys left to find. */
    public long expiredTimeCapReached;
    /** Time spent in the active expiry cycle. */
    public long expireCycleNanos;
    /** The largest query buffer and reply backlog of this shard's clients, recently (Redis's clientsCron peaks). */
    public final io.tide.metrics.RecentPeak clientInputPeak = new io.tide.metrics.RecentPeak();
    public final io.tide.metrics.RecentPeak clientOutputPeak = new io.tide.metrics.RecentPeak();

    /** Per-second rates of commands, input bytes and output bytes. */
    private final io.tide.metrics.RateSampler opsRate = new io.tide.metrics.RateSampler();
    private final io.tide.metrics.RateSampler inputRate = new io.tide.metrics.RateSampler();
    private final io.tide.metrics.RateSampler outputRate = new io.tide.metrics.RateSampler();

    /** Called from the shard's cron: records the rates since the previous sample. */
    public void sample(long nowMs) {
        opsRate.sample(nowMs, commandsProcessed);
        inputRate.sample(nowMs, netInputBytes);
        outputRate.sample(nowMs, netOutputBytes);
    }

    /** Redis's stat_expired_stale_perc update at the end of a cycle: the cycle's share weighs 5%. */
    public void expireCycleDone(long sampled, long expired) {
        if (sampled == 0) return;
        expiredStalePerc = (double) expired / sampled * 0.05 + expiredStalePerc * 0.95;
    }

    /** Average commands per second over the last samples (INFO instantaneous_ops_per_sec). */
    public long instantaneousOpsPerSec() {
        return opsRate.perSecond();
    }

    /** Average input bytes per second over the last samples. */
    public long instantaneousInputBytesPerSec() {
        return inputRate.perSecond();
    }

    /** Average output bytes per second over the last samples. */
    public long instantaneousOutputBytesPerSec() {
        return outputRate.perSecond();
    }

    /** A copy of the counters (not the error codes, peaks or rate samples), for a reader on another thread. */
    public ShardStats counters() {
        ShardStats c = new ShardStats();
        c.keyspaceHits = keyspaceHits;
        c.keyspaceMisses = keyspaceMisses;
        c.expiredKeys = expiredKeys;
        c.evictedKeys = evictedKeys;
        c.netInputBytes = netInputBytes;
        c.netOutputBytes = netOutputBytes;
        c.commandsProcessed = commandsProcessed;
        c.commandsExecuted = commandsExecuted;
        c.errorReplies = errorReplies;
        c.readsProcessed = readsProcessed;
        c.writesProcessed = writesProcessed;
        c.expiredStalePerc = expiredStalePerc;
        c.expiredTimeCapReached = expiredTimeCapReached;
        c.expireCycleNanos = expireCycleNanos;
        return c;
    }

    /** CONFIG RESETSTAT: zero every counter and sample. */
    public void reset() {
        keyspaceHits = 0;
        keyspaceMisses = 0;
        expiredKeys = 0;
        evictedKeys = 0;
        netInputBytes = 0;
        netOutputBytes = 0;
        commandsProcessed = 0;
        commandsExecuted = 0;
        errorReplies = 0;
        errorCodes.clear();
        readsProcessed = 0;
        writesProcessed = 0;
        expiredStalePerc = 0;
        expiredTimeCapReached = 0;
        expireCycleNanos = 0;
        opsRate.reset();
        inputRate.reset();
        outputRate.reset();
    }
}
