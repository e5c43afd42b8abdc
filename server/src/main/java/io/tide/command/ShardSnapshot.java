package io.tide.command;

import io.tide.shard.Shard;
import io.tide.shard.ShardStats;
import io.tide.store.Database;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One shard's figures for INFO and /metrics, taken on the shard's own thread (or with it parked): its counters, rates,
 * client-buffer peaks, blocked keys, changes since the last save, databases, error codes and its share of every
 * command's statistics. A reader on another thread then neither parks the shard nor reads what it is changing, and
 * each shard's figures are of one instant of that shard.
 *
 * @param commandFigures the shard's slot of the command statistics, or null when not asked for
 */
public record ShardSnapshot(int id, ShardStats stats, long opsPerSec, long inputPerSec, long outputPerSec,
                            long inputPeak, long outputPeak, int blockingKeys, long dirty, long usedBytes,
                            long pendingTasks, long[] keys, long[] expires, long[] avgTtlMs, Map<String, Long> errors,
                            CommandFigures commandFigures) {

    /**
     * On {@code s}'s thread; {@code specs} null leaves the command statistics out, {@code latency} false their
     * histograms.
     */
    public static ShardSnapshot of(Shard s, List<CommandSpec> specs, boolean latency, long nowMs) {
        ShardStats st = s.stats();
        int dbs = s.databases();
        long[] keys = new long[dbs];
        long[] expires = new long[dbs];
        long[] avgTtl = new long[dbs];
        for (int i = 0; i < dbs; i++) {
            Database d = s.db(i);
            keys[i] = d.size();
            expires[i] = d.volatileCount();
            avgTtl[i] = d.avgTtlMillis();
        }
        Map<String, Long> errors = new HashMap<>();
        st.errorCodes.forEach((code, n) -> errors.put(code, n[0]));
        long nowSec = nowMs / 1000;
        return new ShardSnapshot(s.id(), st.counters(), st.instantaneousOpsPerSec(),
                st.instantaneousInputBytesPerSec(), st.instantaneousOutputBytesPerSec(), st.clientInputPeak.max(nowSec),
                st.clientOutputPeak.max(nowSec), s.blocking().keyCount(), s.writes().dirty(), s.usedBytes(),
                s.pendingTasks(), keys, expires, avgTtl, errors,
                specs == null ? null : CommandFigures.of(specs, s.id(), latency));
    }

    /** Keys in every database of the shard. */
    public long allKeys() {
        long k = 0;
        for (long x : keys) k += x;
        return k;
    }
}
