package io.tide.metrics;

import java.util.List;

/**
 * LATENCY GRAPH: Redis's ASCII sparkline of one event's samples. Thread-safe (stateless).
 *
 * <p>The text, as Redis 7.0 writes it: a header {@code "<event> - high H ms, low L ms (all time high M ms)"}, a
 * line of 80 dashes, then the samples oldest first, one column each, 80 columns to a block (blocks separated by an
 * empty line). A block is four rows that draw each sample's height on a scale of 12 steps from the lowest sample to
 * the highest ({@code _}, {@code o}, {@code #} in the top row a sample reaches, {@code |} below it), an empty row,
 * and each sample's age ({@code 12s}, {@code 3m}, {@code 2h}, {@code 1d}) written downwards, one character a row.
 * Every row is as wide as its block: trailing spaces are kept.
 */
public final class LatencyGraph {

    /** Redis's LATENCY_GRAPH_COLS. */
    static final int COLUMNS = 80;
    private static final int ROWS = 4;
    private static final String LEVELS = "_o#";
    private static final int STEPS = LEVELS.length() * ROWS;

    private LatencyGraph() {}

    /** The graph of {@code series} named {@code event}, the samples' ages counted up to unix second {@code now}. */
    public static String render(String event, LatencyMonitor.Series series, long now) {
        return render(event, series.samples(), series.max(), now);
    }

    /** The graph of {@code samples} ((unix second, ms) pairs, oldest first, at least one). */
    static String render(String event, List<long[]> samples, long allTimeHigh, long now) {
        int n = samples.size();
        long[] values = new long[n];
        String[] labels = new String[n];
        long min = 0;
        long max = 0;
        for (int i = 0; i < n; i++) {
            long[] s = samples.get(i);
            values[i] = s[1];
            if (i == 0 || s[1] < min) min = s[1];
            if (i == 0 || s[1] > max) max = s[1];
            labels[i] = age(now - s[0]);
        }
        StringBuilder out = new StringBuilder();
        out.append(event).append(" - high ").append(max).append(" ms, low ").append(min)
                .append(" ms (all time high ").append(allTimeHigh).append(" ms)\n");
        out.append("-".repeat(COLUMNS)).append('\n');
        for (int from = 0; from < n; from += COLUMNS) {
            if (from != 0) out.append('\n');
            block(out, values, labels, from, Math.min(n, from + COLUMNS), min, max);
        }
        return out.toString();
    }

    /** How long ago, as Redis labels a sample: seconds under a minute, then minutes, hours, days. */
    private static String age(long elapsed) {
        if (elapsed < 60) return elapsed + "s";
        if (elapsed < 3600) return elapsed / 60 + "m";
        if (elapsed < 3600 * 24) return elapsed / 3600 + "h";
        return elapsed / (3600 * 24) + "d";
    }

    private static void block(StringBuilder out, long[] values, String[] labels, int from, int to, long min, long max) {
        double range = max - min == 0 ? 1 : max - min;
        char[] row = new char[to - from];
        for (int r = 0; r < ROWS; r++) {
            for (int j = from; j < to; j++) {
                // As Redis: the product is truncated to an int before the division, the quotient again after it.
                int step = (int) ((int) ((double) (values[j] - min) * STEPS) / range);
                step = Math.max(0, Math.min(STEPS - 1, step));
                int level = step - (ROWS - r - 1) * LEVELS.length();
                row[j - from] = level < 0 ? ' ' : level < LEVELS.length() ? LEVELS.charAt(level) : '|';
            }
            out.append(row).append('\n');
        }
        out.append(" ".repeat(to - from)).append('\n');
        for (int c = 0; ; c++) {
            boolean any = false;
            for (int j = from; j < to; j++) {
                boolean has = c < labels[j].length();
                any |= has;
                row[j - from] = has ? labels[j].charAt(c) : ' ';
            }
            if (!any) return;
            out.append(row).append('\n');
        }
    }
}
