package io.tide.metrics;

/**
 * The largest value recorded in the last {@value #SECONDS} seconds, one slot a second (Redis's
 * CLIENTS_PEAK_MEM_USAGE_SLOTS, behind INFO's client_recent_max_input_buffer and client_recent_max_output_buffer).
 * Not thread-safe: one thread records; readers read while it is parked.
 */
public final class RecentPeak {

    public static final int SECONDS = 8;

    private final long[] second = new long[SECONDS];
    private final long[] peak = new long[SECONDS];

    /** Records {@code value} as seen at unix second {@code nowSec}. */
    public void record(long nowSec, long value) {
        int i = (int) Math.floorMod(nowSec, (long) SECONDS);
        if (second[i] != nowSec) {
            second[i] = nowSec;
            peak[i] = 0;
        }
        if (value > peak[i]) peak[i] = value;
    }

    /** The largest value recorded in the {@value #SECONDS} seconds up to {@code nowSec}; 0 when none. */
    public long max(long nowSec) {
        long m = 0;
        for (int i = 0; i < SECONDS; i++) {
            if (nowSec - second[i] < SECONDS && second[i] <= nowSec && peak[i] > m) m = peak[i];
        }
        return m;
    }
}
