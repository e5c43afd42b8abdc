package io.tide.metrics;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Per-command latency histograms as Redis 7 keeps them (LATENCY HISTOGRAM, INFO latencystats): HdrHistogram of
 * nanoseconds from 1 to 1 s, 2 significant digits, recorded at microsecond resolution. Stateless, so thread-safe;
 * each histogram it is given is confined to the thread that records into it (one per command per shard, merged
 * when read).
 */
public final class LatencyHistograms {

    /** Redis's LATENCY_HISTOGRAM_MIN_VALUE, LATENCY_HISTOGRAM_MAX_VALUE and LATENCY_HISTOGRAM_PRECISION. */
    static final long MIN_NS = 1;
    static final long MAX_NS = 1_000_000_000L;
    static final int PRECISION = 2;

    private LatencyHistograms() {}

    public static Histogram create() {
        return new Histogram(MIN_NS, MAX_NS, PRECISION);
    }

    /** Records a command's duration (clamped to the histogram's range, as Redis's updateCommandLatencyHistogram). */
    public static void record(Histogram h, long micros) {
        long ns = micros * 1000;
        if (ns < MIN_NS) ns = MIN_NS;
        if (ns > MAX_NS) ns = MAX_NS;
        h.recordValue(ns);
    }

    /** The sum of {@code parts} (nulls skipped), or null when none has a sample. */
    public static Histogram merge(Iterable<Histogram> parts) {
        Histogram out = null;
        for (Histogram h : parts) {
            if (h == null || h.getTotalCount() == 0) continue;
            if (out == null) out = create();
            out.add(h);
        }
        return out;
    }

    /**
     * LATENCY HISTOGRAM's histogram_usec: (microseconds, cumulative count) at the power-of-two reporting levels from
     * 1024 ns up, each level's highest equivalent value, only where the cumulative count grew (Redis's
     * fillCommandCDF over hdr_iter_log_init(1024, 2)).
     */
    public static List<long[]> cumulative(Histogram h) {
        List<long[]> out = new ArrayList<>();
        long total = h.getTotalCount();
        long previous = 0;
        for (long level = 1024; previous < total; level *= 2) {
            long at = Math.min(level, h.getHighestTrackableValue());
            long cum = h.getCountBetweenValues(0, at);
            if (cum > previous) out.add(new long[] {h.highestEquivalentValue(at) / 1000, cum});
            previous = cum;
            if (at == h.getHighestTrackableValue()) break;
        }
        return out;
    }

    /**
     * hdr_value_at_percentile as Redis's C HdrHistogram computes it: the count it seeks is the percentile's share of
     * the total rounded (Java's HdrHistogram takes its ceiling), at least 1. Asked for a share just under that count,
     * Java's {@link Histogram#getValueAtPercentile} seeks the same count, scanning the counts array directly, which
     * INFO latencystats does three times per command (the recorded-values iterator took a fifth of INFO ALL).
     */
    public static long valueAtPercentile(Histogram h, double percentile) {
        long total = h.getTotalCount();
        if (total == 0) return 0;
        double p = Math.min(percentile, 100.0);
        long countAt = Math.max(1, (long) ((p / 100) * total + 0.5));
        if (percentile == 0.0) return h.getValueAtPercentile(0.0); // the lowest equivalent of the first value
        return h.getValueAtPercentile((countAt - 0.5) * 100.0 / total);
    }

    /** A percentile as Redis prints it ("%f" with trailing zeros trimmed): 50, 99, 99.9. */
    public static String formatPercentile(double d) {
        String s = io.tide.script.NumberFormat.f(d, 6);
        if (s.indexOf('.') >= 0) {
            int end = s.length();
            while (s.charAt(end - 1) == '0') end--;
            if (s.charAt(end - 1) == '.') end--;
            s = s.substring(0, end);
        }
        return s;
    }

    /** INFO latencystats' value part: {@code p50=1.003,p99=2.007,p99.9=2.007}. */
    public static String percentilesLine(Histogram h, double[] percentiles) {
        StringBuilder sb = new StringBuilder();
        for (int j = 0; j < percentiles.length; j++) {
            if (j > 0) sb.append(',');
            sb.append('p').append(formatPercentile(percentiles[j])).append('=')
                    .append(io.tide.script.NumberFormat.f(valueAtPercentile(h, percentiles[j]) / 1000.0, 3));
        }
        return sb.toString();
    }
}
