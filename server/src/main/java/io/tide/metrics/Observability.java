package io.tide.metrics;

import io.tide.config.ConfigRegistry;
import java.util.List;

/**
 * The server's command logs, latency monitor and latency-tracking settings, kept equal to their configuration.
 * Thread-safe: settings are volatile fields the hot path reads; the logs and the monitor lock only to add.
 */
public final class Observability {

    private final CommandLog slow;
    private final CommandLog largeRequest;
    private final CommandLog largeReply;
    private final LatencyMonitor latency;
    private volatile boolean tracking;
    private volatile double[] percentiles;

    public Observability(ConfigRegistry config) {
        slow = new CommandLog(config.getLong("commandlog-execution-slower-than"),
                config.getLong("commandlog-slow-execution-max-len"));
        largeRequest = new CommandLog(config.getLong("commandlog-request-larger-than"),
                config.getLong("commandlog-large-request-max-len"));
        largeReply = new CommandLog(config.getLong("commandlog-reply-larger-than"),
                config.getLong("commandlog-large-reply-max-len"));
        latency = new LatencyMonitor(config.getLong("latency-monitor-threshold"));
        tracking = config.getBool("latency-tracking");
        percentiles = parse(config.get("latency-tracking-info-percentiles"));
        // One call site for the numeric parameters: each lambda call site costs a cold start a generated class
        // (decision 0014).
        for (String name : List.of("commandlog-execution-slower-than", "commandlog-slow-execution-max-len",
                "commandlog-request-larger-than", "commandlog-large-request-max-len", "commandlog-reply-larger-than",
                "commandlog-large-reply-max-len", "latency-monitor-threshold")) {
            config.onChange(name, v -> apply(name, config.getLong(name)));
        }
        config.onChange("latency-tracking", v -> tracking = config.getBool("latency-tracking"));
        config.onChange("latency-tracking-info-percentiles",
                v -> percentiles = parse(config.get("latency-tracking-info-percentiles")));
    }

    private void apply(String name, long value) {
        switch (name) {
            case "commandlog-execution-slower-than" -> slow.threshold(value);
            case "commandlog-slow-execution-max-len" -> slow.maxLen(value);
            case "commandlog-request-larger-than" -> largeRequest.threshold(value);
            case "commandlog-large-request-max-len" -> largeRequest.maxLen(value);
            case "commandlog-reply-larger-than" -> largeReply.threshold(value);
            case "commandlog-large-reply-max-len" -> largeReply.maxLen(value);
            case "latency-monitor-threshold" -> latency.threshold(value);
            default -> throw new IllegalArgumentException(name);
        }
    }

    private static double[] parse(String words) {
        String w = words.trim();
        if (w.isEmpty()) return new double[0];
        String[] parts = w.split("\\s+");
        double[] out = new double[parts.length];
        for (int i = 0; i < parts.length; i++) out[i] = Double.parseDouble(parts[i]);
        return out;
    }

    /** The slow log (SLOWLOG, COMMANDLOG ... slow). */
    public CommandLog slow() { return slow; }
    public CommandLog largeRequest() { return largeRequest; }
    public CommandLog largeReply() { return largeReply; }
    public LatencyMonitor latency() { return latency; }
    /** latency-tracking: whether per-command histograms record. */
    public boolean tracking() { return tracking; }
    /** latency-tracking-info-percentiles, parsed. */
    public double[] percentiles() { return percentiles; }
}
