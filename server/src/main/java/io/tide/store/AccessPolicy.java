package io.tide.store;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Immutable (so thread-safe; a CONFIG SET hands each shard a new one): how the {@value Database#CLOCK_BITS}-bit access
 * field of each key is kept. Under an LRU (or any non-LFU) policy
 * it is a clock in seconds; under an LFU policy, as Redis reuses its 24-bit {@code lru} field, it holds the time of
 * the last decrement in minutes (the high 20 bits, wrapping after about two years) and an 8-bit logarithmic access
 * counter (the low 8 bits). Switching policy reinterprets the fields, as in Redis: the values adjust over time.
 */
public final class AccessPolicy {

    /** Redis's LFU_INIT_VAL: new keys start here so they are not evicted before they had a chance. */
    public static final int LFU_INIT = 5;
    private static final int MINUTE_BITS = Database.CLOCK_BITS - 8;
    private static final int MINUTE_MASK = (1 << MINUTE_BITS) - 1;

    /** LRU, for databases outside a server and under every non-LFU policy. */
    public static final AccessPolicy LRU = new AccessPolicy(false, 10, 1);

    private final boolean lfu;
    private final int logFactor;
    private final int decayMinutes;

    /** The mode and the LFU parameters ({@code lfu-log-factor}, {@code lfu-decay-time}). */
    public AccessPolicy(boolean lfu, int logFactor, int decayMinutes) {
        this.lfu = lfu;
        this.logFactor = logFactor;
        this.decayMinutes = decayMinutes;
    }

    public boolean lfu() {
        return lfu;
    }

    private static int minutes(long nowMs) {
        return (int) ((nowMs / 60_000) & MINUTE_MASK);
    }

    /** An LFU field: the current minute and {@code counter}. */
    int pack(long nowMs, int counter) {
        return (minutes(nowMs) << 8) | Math.min(255, Math.max(0, counter));
    }

    /** Redis's LFUDecrAndReturn: the counter less one per {@code lfu-decay-time} minutes since the field's time. */
    int decayed(int field, long nowMs) {
        int counter = field & 255;
        int then = field >>> 8;
        int now = minutes(nowMs);
        int elapsed = now >= then ? now - then : MINUTE_MASK - then + now;
        int d = decayMinutes;
        int periods = d > 0 ? elapsed / d : 0;
        return periods >= counter ? 0 : counter - periods;
    }

    /** Redis's LFULogIncr: increments with probability 1 / ((counter - LFU_INIT) * lfu-log-factor + 1). */
    int increment(int counter) {
        if (counter >= 255) return 255;
        double base = Math.max(0, counter - LFU_INIT);
        double p = 1.0 / (base * logFactor + 1);
        return ThreadLocalRandom.current().nextDouble() < p ? counter + 1 : counter;
    }
}
