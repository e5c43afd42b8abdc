package io.tide.shard;

/** Counters one shard keeps for INFO. Confined to its shard thread; read by INFO while shards are parked. */
public final class ShardStats {

    /** Samples in the instantaneous averages, taken at most every 100 ms, as Redis does. */
    private static final int SAMPLES = 16;
    private static final long SAMPLE_PERIOD_MS = 100;

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

    /** Per-second rates of commands, input bytes and output bytes: one ring of samples each. */
    private final long[][] rates = new long[3][SAMPLES];
    private int next;
    private long lastSampleMs;
    private long lastCommands;
    private long lastInput;
    private long lastOutput;

    /** Called from the shard's cron: records the rates since the previous sample. */
    public void sample(long nowMs) {
        long dt = nowMs - lastSampleMs;
        if (lastSampleMs != 0 && dt < SAMPLE_PERIOD_MS) return;
        if (lastSampleMs != 0 && commandsProcessed >= lastCommands && netInputBytes >= lastInput
                && netOutputBytes >= lastOutput) {
            rates[0][next] = (commandsProcessed - lastCommands) * 1000 / dt;
            rates[1][next] = (netInputBytes - lastInput) * 1000 / dt;
            rates[2][next] = (netOutputBytes - lastOutput) * 1000 / dt;
            next = (next + 1) % SAMPLES;
        }
        lastSampleMs = nowMs;
        lastCommands = commandsProcessed;
        lastInput = netInputBytes;
        lastOutput = netOutputBytes;
    }

    /** Average commands per second over the last samples (INFO instantaneous_ops_per_sec). */
    public long instantaneousOpsPerSec() {
        return average(rates[0]);
    }

    /** Average input bytes per second over the last samples. */
    public long instantaneousInputBytesPerSec() {
        return average(rates[1]);
    }

    /** Average output bytes per second over the last samples. */
    public long instantaneousOutputBytesPerSec() {
        return average(rates[2]);
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
        for (long[] r : rates) java.util.Arrays.fill(r, 0);
        lastSampleMs = 0;
    }

    private static long average(long[] samples) {
        long sum = 0;
        for (long s : samples) sum += s;
        return sum / samples.length;
    }
}
