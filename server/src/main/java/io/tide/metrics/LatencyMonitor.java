package io.tide.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Redis's latency monitor: per event class ("command", "fast-command", "expire-cycle", ...), the last 160 samples
 * of at least {@code latency-monitor-threshold} milliseconds (one per second: a later spike in the same second
 * raises that second's sample) and the worst ever. Thread-safe: the hot path reads the volatile threshold
 * ({@link #wants}); the lock is taken only to add a sample over it and by the LATENCY command.
 */
public final class LatencyMonitor {

    /** Redis's LATENCY_TS_LEN. */
    public static final int SAMPLES = 160;

    /** One event's samples: a ring of (unix second, ms) and the maximum ever seen. */
    public static final class Series {
        final int[] times = new int[SAMPLES];
        final int[] latencies = new int[SAMPLES];
        int idx;
        int max;

        /** The samples oldest first, as (time, latency) pairs; seconds with no sample are skipped. */
        public List<long[]> samples() {
            List<long[]> out = new ArrayList<>();
            for (int j = 0; j < SAMPLES; j++) {
                int i = (idx + j) % SAMPLES;
                if (times[i] == 0) continue;
                out.add(new long[] {times[i], latencies[i]});
            }
            return out;
        }

        public long lastTime() { return times[(idx + SAMPLES - 1) % SAMPLES]; }
        public long lastLatency() { return latencies[(idx + SAMPLES - 1) % SAMPLES]; }
        public long max() { return max; }
    }

    private volatile long thresholdMs;
    private final Map<String, Series> events = new LinkedHashMap<>();

    public LatencyMonitor(long thresholdMs) {
        this.thresholdMs = thresholdMs;
    }

    public void threshold(long ms) { thresholdMs = ms; }
    public long threshold() { return thresholdMs; }

    /** Redis's latencyAddSampleIfNeeded condition: monitoring on and the latency at least the threshold. */
    public boolean wants(long ms) {
        long t = thresholdMs;
        return t > 0 && ms >= t;
    }

    /** Records {@code ms} for {@code event} if it reaches the threshold. */
    public void sampleIfNeeded(String event, long ms) {
        if (wants(ms)) add(event, ms, System.currentTimeMillis() / 1000);
    }

    /** Adds a sample at unix second {@code now} (Redis's latencyAddSample). */
    synchronized void add(String event, long ms, long now) {
        Series ts = events.computeIfAbsent(event, e -> new Series());
        int latency = (int) Math.min(ms, Integer.MAX_VALUE);
        if (latency > ts.max) ts.max = latency;
        int prev = (ts.idx + SAMPLES - 1) % SAMPLES;
        if (ts.times[prev] == now) {
            if (latency > ts.latencies[prev]) ts.latencies[prev] = latency;
            return;
        }
        ts.times[ts.idx] = (int) now;
        ts.latencies[ts.idx] = latency;
        ts.idx = (ts.idx + 1) % SAMPLES;
    }

    /** A copy of every event's series, in the order the events first happened. */
    public synchronized Map<String, Series> snapshot() {
        Map<String, Series> out = new LinkedHashMap<>();
        events.forEach((k, v) -> {
            Series c = new Series();
            System.arraycopy(v.times, 0, c.times, 0, SAMPLES);
            System.arraycopy(v.latencies, 0, c.latencies, 0, SAMPLES);
            c.idx = v.idx;
            c.max = v.max;
            out.put(k, c);
        });
        return out;
    }

    /**
     * Drops the named events' data (all events for an empty list), names compared ignoring case as Redis's
     * latencyResetEvent does; returns how many were dropped.
     */
    public synchronized int reset(List<String> names) {
        if (names.isEmpty()) {
            int n = events.size();
            events.clear();
            return n;
        }
        int n = 0;
        for (String name : names) {
            var it = events.keySet().iterator();
            while (it.hasNext()) {
                if (it.next().equalsIgnoreCase(name)) {
                    it.remove();
                    n++;
                }
            }
        }
        return n;
    }
}
