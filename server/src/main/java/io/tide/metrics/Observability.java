package io.tide.metrics;

import io.tide.config.ConfigRegistry;

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
        bind(config, "commandlog-execution-slower-than", v -> slow.threshold(v));
        bind(config, "commandlog-slow-execution-max-len", v -> slow.maxLen(v));
        bind(config, "commandlog-request-larger-than", v -> largeRequest.threshold(v));
        bind(config, "commandlog-large-request-max-len", v -> largeRequest.maxLen(v));
        bind(config, "commandlog-reply-larger-than", v -> largeReply.threshold(v));
        bind(config, "commandlog-large-reply-max-len", v -> largeReply.maxLen(v));
        bind(config, "latency-monitor-threshold", v -> latency.threshold(v));
        config.onChange("latency-tracking", v -> tracking = config.getBool("latency-tracking"));
        config.onChange("latency-tracking-info-percentiles",
                v -> percentiles = parse(config.get("latency-tracking-info-percentiles")));
    }

    private static void bind(ConfigRegistry config, String name, java.util.function.LongConsumer apply) {
        config.onChange(name, v -> apply.accept(config.getLong(name)));
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
