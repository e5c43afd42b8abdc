package io.tide.command;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Every command's statistics on one thread (a shard's or the coordinator's), copied on that thread, indexed as
 * {@link CommandTable#allWithSubcommands} lists the commands: INFO commandstats and latencystats, and /metrics, add these up.
 */
public record CommandFigures(long[] calls, long[] micros, long[] rejected, long[] failed, Histogram[] latency) {

    /**
     * On the thread that owns slot {@code slot} of every command's statistics; with {@code latency}, the histograms
     * too (copied: 30 KB each, which INFO commandstats has no use for).
     */
    public static CommandFigures of(List<CommandSpec> specs, int slot, boolean latency) {
        int n = specs.size();
        long[] calls = new long[n];
        long[] micros = new long[n];
        long[] rejected = new long[n];
        long[] failed = new long[n];
        Histogram[] histograms = new Histogram[n];
        for (int c = 0; c < n; c++) {
            CommandSpec.CommandStats cs = specs.get(c).allStats()[slot];
            calls[c] = cs.calls;
            micros[c] = cs.micros;
            rejected[c] = cs.rejectedCalls;
            failed[c] = cs.failedCalls;
            if (latency && cs.latency != null && cs.latency.getTotalCount() > 0) histograms[c] = cs.latency.copy();
        }
        return new CommandFigures(calls, micros, rejected, failed, histograms);
    }

    /** Command {@code c}'s calls, microseconds, rejected and failed calls added up over {@code parts}. */
    public static long[] total(List<CommandFigures> parts, int c) {
        long[] t = new long[4];
        for (CommandFigures f : parts) {
            t[0] += f.calls[c];
            t[1] += f.micros[c];
            t[2] += f.rejected[c];
            t[3] += f.failed[c];
        }
        return t;
    }
}
