package io.tide.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.junit.jupiter.api.Test;

class LatencyHistogramsTest {

    /** hdr_value_at_percentile of Redis's C HdrHistogram, written out over the recorded values: the reference. */
    private static long redisValueAtPercentile(Histogram h, double percentile) {
        double p = Math.min(percentile, 100.0);
        long countAt = (long) ((p / 100) * h.getTotalCount() + 0.5);
        if (countAt < 1) countAt = 1;
        long cum = 0;
        for (HistogramIterationValue v : h.recordedValues()) {
            cum += v.getCountAtValueIteratedTo();
            if (cum >= countAt) {
                long value = v.getValueIteratedTo();
                return percentile == 0.0 ? h.lowestEquivalentValue(value) : h.highestEquivalentValue(value);
            }
        }
        return 0;
    }

    @Test
    void valueAtPercentile_roundsTheCountAsRedisDoes_forAnySampleCountAndPercentile() {
        Random rnd = new Random(3);
        double[] percentiles = {0, 0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100, 150};
        for (int round = 0; round < 300; round++) {
            Histogram h = LatencyHistograms.create();
            int n = 1 + rnd.nextInt(round < 100 ? 12 : 3000); // few samples: where rounding and ceiling part
            for (int i = 0; i < n; i++) {
                LatencyHistograms.record(h, rnd.nextInt(4) == 0 ? rnd.nextInt(200_000) : 1 + rnd.nextInt(50));
            }
            for (double p : percentiles) {
                assertThat(LatencyHistograms.valueAtPercentile(h, p)).as("n=%d p=%s", n, p)
                        .isEqualTo(redisValueAtPercentile(h, p));
            }
        }
        // Two samples: p50 seeks the first.
        Histogram two = LatencyHistograms.create();
        LatencyHistograms.record(two, 10);
        LatencyHistograms.record(two, 1000);
        assertThat(LatencyHistograms.valueAtPercentile(two, 50) / 1000).isEqualTo(10);
        Histogram four = LatencyHistograms.create();
        for (long v : new long[] {10, 20, 30, 40}) LatencyHistograms.record(four, v);
        // 30% of 4 samples is 1.2: Redis rounds it to the first sample; Java's HdrHistogram takes the ceiling
        assertThat(LatencyHistograms.valueAtPercentile(four, 30) / 1000).isEqualTo(10);
        assertThat(four.getValueAtPercentile(30) / 1000).isEqualTo(20);
    }
}
