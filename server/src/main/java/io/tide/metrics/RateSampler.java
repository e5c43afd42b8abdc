package io.tide.metrics;

/**
 * Redis's instantaneous metrics: a per-second rate of a growing total, the average of its last {@value #SAMPLES}
 * samples, each taken at least {@value #PERIOD_MS} ms after the one before (Redis's trackInstantaneousMetric from its
 * 100 ms cron). Not thread-safe: one thread samples; readers see the ring while that thread is parked, or a value
 * that is a sample late.
 */
public final class RateSampler {

    /** Redis's STATS_METRIC_SAMPLES. */
    public static final int SAMPLES = 16;
    public static final long PERIOD_MS = 100;

    private final long[] rates = new long[SAMPLES];
    private int next;
    private long lastMs;
    private long lastTotal;

    /** Records the rate of {@code total} since the previous sample; a total that went down (a reset) is skipped. */
    public void sample(long nowMs, long total) {
        long dt = nowMs - lastMs;
        if (lastMs != 0 && dt < PERIOD_MS) return;
        if (lastMs != 0 && total >= lastTotal) {
            rates[next] = (total - lastTotal) * 1000 / dt;
            next = (next + 1) % SAMPLES;
        }
        lastMs = nowMs;
        lastTotal = total;
    }

    /** The average per-second rate over the ring. */
    public long perSecond() {
        long sum = 0;
        for (long r : rates) sum += r;
        return sum / SAMPLES;
    }

    /** CONFIG RESETSTAT: forget every sample. */
    public void reset() {
        java.util.Arrays.fill(rates, 0);
        lastMs = 0;
        next = 0;
    }
}
