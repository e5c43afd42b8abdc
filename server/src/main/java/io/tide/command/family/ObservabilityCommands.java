package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.metrics.CommandLog;
import io.tide.metrics.LatencyDoctor;
import io.tide.metrics.LatencyGraph;
import io.tide.metrics.LatencyHistograms;
import io.tide.metrics.LatencyMonitor;
import io.tide.metrics.Observability;
import io.tide.protocol.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * SLOWLOG (Redis 7), COMMANDLOG (Valkey 8.1) and LATENCY: the command logs, the latency monitor and the per-command
 * latency histograms. Thread-safe (stateless): the logs and the monitor lock themselves; LATENCY HISTOGRAM is an
 * ALL_SHARDS command, so the per-shard histograms it merges are read while their shards are parked.
 */
public final class ObservabilityCommands {

    private static final String COUNT_RANGE = "ERR count should be greater than or equal to -1";
    private static final String BAD_TYPE = "ERR type should be one of the following: slow, large-request, large-reply";

    private ObservabilityCommands() {}

    public static void register(CommandTable t) {
        t.group("server");
        var slowlog = t.container("slowlog", -2, "", "@slow", "2.2.12", "A container for slow log commands.");
        slowlog.sub("get", -2, "admin loading stale", 0, 0, 0, "@admin @slow @dangerous", "2.2.12",
                "Returns the slow log's entries.", Handler.SLOWLOG_GET);
        slowlog.sub("len", 2, "admin loading stale", 0, 0, 0, "@admin @slow @dangerous", "2.2.12",
                "Returns the number of entries in the slow log.",
                Handler.SLOWLOG_LEN);
        slowlog.sub("reset", 2, "admin loading stale", 0, 0, 0, "@admin @slow @dangerous", "2.2.12",
                "Clears all entries from the slow log.", (ctx, argv) -> {
                    obs(ctx).slow().reset();
                    return Reply.OK;
                });
        slowlog.sub("help", 2, "loading stale", 0, 0, 0, "@slow", "6.2.0",
                "Show helpful text about the different subcommands", Handler.SLOWLOG_HELP);

        var commandlog = t.container("commandlog", -2, "", "@slow", "8.1.0",
                "A container for command log commands.");
        commandlog.sub("get", 4, "admin loading stale", 0, 0, 0, "@admin @slow @dangerous", "8.1.0",
                "Returns the specified command log's entries.", Handler.COMMANDLOG_GET);
        commandlog.sub("len", 3, "admin loading stale", 0, 0, 0, "@admin @slow @dangerous", "8.1.0",
                "Returns the number of entries in the specified type of command log.",
                Handler.COMMANDLOG_LEN);
        commandlog.sub("reset", 3, "admin loading stale", 0, 0, 0, "@admin @slow @dangerous", "8.1.0",
                "Clears all entries from the specified type of command log.", (ctx, argv) -> {
                    log(ctx, argv[2]).reset();
                    return Reply.OK;
                });
        commandlog.sub("help", 2, "loading stale", 0, 0, 0, "@slow", "8.1.0",
                "Show helpful text about the different subcommands", Handler.COMMANDLOG_HELP);

        var latency = t.container("latency", -2, "", "@slow", "2.8.13",
                "A container for latency diagnostics commands.");
        latency.sub("doctor", 2, "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous", "2.8.13",
                "Returns a human-readable latency analysis report.", Handler.LATENCY_DOCTOR);
        latency.sub("graph", 3, "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous", "2.8.13",
                "Returns a latency graph for an event.", Handler.LATENCY_GRAPH);
        latency.sub("latest", 2, "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous", "2.8.13",
                "Returns the latest latency samples for all events.", Handler.LATENCY_LATEST);
        latency.sub("history", 3, "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous", "2.8.13",
                "Returns timestamp-latency samples for an event.", Handler.LATENCY_HISTORY);
        latency.sub("reset", -2, "admin noscript loading stale", 0, 0, 0, "@admin @slow @dangerous", "2.8.13",
                "Resets the latency data for one or more events.", Handler.LATENCY_RESET);
        latency.sub("histogram", -2, "admin noscript loading stale allshards", 0, 0, 0, "@admin @slow @dangerous",
                "7.0.0", "Returns the cumulative distribution of latencies of a subset or all commands.",
                Handler.LATENCY_HISTOGRAM);
        latency.sub("help", 2, "loading stale", 0, 0, 0, "@slow", "2.8.13",
                "Returns helpful text about the different subcommands.", Handler.LATENCY_HELP);
    }

    private static Observability obs(CommandContext ctx) {
        return ctx.server().observability();
    }

    // ------------------------------------------------------------------------------ SLOWLOG, COMMANDLOG

    static Reply slowlogGet(CommandContext ctx, byte[][] argv) {
        if (argv.length > 3) throw Errors.error(Errors.subcommandSyntax(Args.text(argv[1]), "slowlog"));
        long count = argv.length == 3 ? count(argv[2]) : 10;
        return entries(obs(ctx).slow(), count);
    }

    static Reply commandlogGet(CommandContext ctx, byte[][] argv) {
        long count = count(argv[2]);
        return entries(log(ctx, argv[3]), count);
    }

    /** Redis's getRangeLongFromObjectOrReply(-1, LONG_MAX) with the count message. */
    private static long count(byte[] arg) {
        Long n = Args.parseLongOrNull(arg);
        if (n == null || n < -1) throw Errors.error(COUNT_RANGE);
        return n;
    }

    private static CommandLog log(CommandContext ctx, byte[] type) {
        if (Args.is(type, "slow")) return obs(ctx).slow();
        if (Args.is(type, "large-request")) return obs(ctx).largeRequest();
        if (Args.is(type, "large-reply")) return obs(ctx).largeReply();
        throw Errors.error(BAD_TYPE);
    }

    /** Entries newest first: [id, unix time, measure, [argv...], "ip:port", name]. */
    private static Reply entries(CommandLog log, long count) {
        List<Reply> out = new ArrayList<>();
        for (CommandLog.Entry e : log.latest(count)) {
            List<Reply> args = new ArrayList<>(e.argv().length);
            for (byte[] a : e.argv()) args.add(Reply.bulk(a));
            out.add(Reply.array(Reply.integer(e.id()), Reply.integer(e.unixTime()), Reply.integer(e.value()),
                    Reply.array(args), Reply.bulk(e.peer()), Reply.bulk(e.name())));
        }
        return Reply.array(out);
    }

    // ------------------------------------------------------------------------------ LATENCY

    static Reply latencyLatest(CommandContext ctx, byte[][] argv) {
        List<Reply> out = new ArrayList<>();
        for (Map.Entry<String, LatencyMonitor.Series> e : obs(ctx).latency().snapshot().entrySet()) {
            LatencyMonitor.Series s = e.getValue();
            out.add(Reply.array(Reply.bulk(e.getKey()), Reply.integer(s.lastTime()), Reply.integer(s.lastLatency()),
                    Reply.integer(s.max())));
        }
        return Reply.array(out);
    }

    static Reply latencyHistory(CommandContext ctx, byte[][] argv) {
        LatencyMonitor.Series s = obs(ctx).latency().snapshot().get(Args.text(argv[2]));
        if (s == null) return Reply.EMPTY_ARRAY;
        List<Reply> out = new ArrayList<>();
        for (long[] sample : s.samples()) out.add(Reply.array(Reply.integer(sample[0]), Reply.integer(sample[1])));
        return Reply.array(out);
    }

    /** Redis's report as verbatim text ({@code txt}): a bulk string in RESP2. */
    static Reply latencyDoctor(CommandContext ctx, byte[][] argv) {
        io.tide.config.ConfigRegistry config = ctx.server().config();
        LatencyMonitor monitor = obs(ctx).latency();
        LatencyDoctor.Settings settings = new LatencyDoctor.Settings(monitor.threshold(),
                config.getLong("slowlog-log-slower-than"), config.getInt("hz"),
                config.get("appendfsync").equals("always"));
        String report = LatencyDoctor.report(monitor.snapshot(), settings, System.currentTimeMillis() / 1000);
        return new Reply.Verbatim("txt", report.getBytes(StandardCharsets.UTF_8));
    }

    static Reply latencyGraph(CommandContext ctx, byte[][] argv) {
        String event = Args.text(argv[2]);
        LatencyMonitor.Series s = obs(ctx).latency().snapshot().get(event);
        if (s == null) throw Errors.error(Errors.latencyNoSamples(event));
        String graph = LatencyGraph.render(event, s, System.currentTimeMillis() / 1000);
        return new Reply.Verbatim("txt", graph.getBytes(StandardCharsets.UTF_8));
    }

    static Reply latencyReset(CommandContext ctx, byte[][] argv) {
        List<String> names = new ArrayList<>();
        for (int i = 2; i < argv.length; i++) names.add(Args.text(argv[i]));
        return Reply.integer(obs(ctx).latency().reset(names));
    }

    /**
     * Redis 7's LATENCY HISTOGRAM: a map from command full name to {calls, histogram_usec}; with names, each named
     * command (a container also names its subcommands) that has samples, unknown names skipped; without, every one.
     */
    static Reply latencyHistogram(CommandContext ctx, byte[][] argv) {
        CommandTable table = ctx.server().table();
        List<Reply> out = new ArrayList<>();
        if (argv.length == 2) {
            for (CommandSpec spec : table.all()) withSubcommands(spec, out);
            return Reply.map(out);
        }
        for (int i = 2; i < argv.length; i++) {
            CommandSpec spec = lookup(table, Args.lower(argv[i]));
            if (spec != null) withSubcommands(spec, out);
        }
        return Reply.map(out);
    }

    /** Redis's lookupCommandBySds: "name" or "container|sub". */
    private static CommandSpec lookup(CommandTable table, String name) {
        int bar = name.indexOf('|');
        if (bar < 0) return table.lookup(name);
        CommandSpec parent = table.lookup(name.substring(0, bar));
        if (parent == null) return null;
        return parent.subcommands().get(name.substring(bar + 1));
    }

    private static void withSubcommands(CommandSpec spec, List<Reply> out) {
        histogramOf(spec, out);
        for (CommandSpec sub : spec.subcommands().values()) histogramOf(sub, out);
    }

    private static void histogramOf(CommandSpec spec, List<Reply> out) {
        Histogram h = ServerCommands.mergedLatency(spec);
        if (h == null) return;
        List<Reply> buckets = new ArrayList<>();
        for (long[] b : LatencyHistograms.cumulative(h)) {
            buckets.add(Reply.integer(b[0]));
            buckets.add(Reply.integer(b[1]));
        }
        out.add(Reply.bulk(spec.fullName()));
        out.add(Reply.map(Reply.bulk("calls"), Reply.integer(h.getTotalCount()), Reply.bulk("histogram_usec"),
                Reply.map(buckets)));
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        SLOWLOG_GET,
        SLOWLOG_LEN,
        SLOWLOG_HELP,
        COMMANDLOG_GET,
        COMMANDLOG_LEN,
        COMMANDLOG_HELP,
        LATENCY_DOCTOR,
        LATENCY_GRAPH,
        LATENCY_LATEST,
        LATENCY_HISTORY,
        LATENCY_RESET,
        LATENCY_HISTOGRAM,
        LATENCY_HELP;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case SLOWLOG_GET -> slowlogGet(ctx, argv);
                case SLOWLOG_LEN -> Reply.integer(obs(ctx).slow().size());
                case SLOWLOG_HELP -> Help.reply("SLOWLOG",
                        "GET [<count>]",
                        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
                        "    Entries are made of:",
                        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
                        "    client name",
                        "LEN",
                        "    Return the length of the slowlog.",
                        "RESET",
                        "    Reset the slowlog.");
                case COMMANDLOG_GET -> commandlogGet(ctx, argv);
                case COMMANDLOG_LEN -> Reply.integer(log(ctx, argv[2]).size());
                case COMMANDLOG_HELP -> Help.reply("COMMANDLOG",
                        "GET <count> <type>",
                        "    Return top <count> entries of the specified <type> from the commandlog (-1 mean all).",
                        "    Entries are made of:",
                        "    id, timestamp,",
                        "        time in microseconds for type of slow,",
                        "        or size in bytes for type of large-request,",
                        "        or size in bytes for type of large-reply",
                        "    arguments array, client IP and port,",
                        "    client name",
                        "LEN <type>",
                        "    Return the length of the specified type of commandlog.",
                        "RESET <type>",
                        "    Reset the specified type of commandlog.");
                case LATENCY_DOCTOR -> latencyDoctor(ctx, argv);
                case LATENCY_GRAPH -> latencyGraph(ctx, argv);
                case LATENCY_LATEST -> latencyLatest(ctx, argv);
                case LATENCY_HISTORY -> latencyHistory(ctx, argv);
                case LATENCY_RESET -> latencyReset(ctx, argv);
                case LATENCY_HISTOGRAM -> latencyHistogram(ctx, argv);
                case LATENCY_HELP -> Help.reply("LATENCY",
                        "DOCTOR",
                        "    Return a human readable latency analysis report.",
                        "GRAPH <event>",
                        "    Return an ASCII latency graph for the <event> class.",
                        "HISTORY <event>",
                        "    Return time-latency samples for the <event> class.",
                        "LATEST",
                        "    Return the latest latency samples for all events.",
                        "RESET [<event> ...]",
                        "    Reset latency data of one or more <event> classes.",
                        "    (default: reset all data for all event classes)",
                        "HISTOGRAM [COMMAND ...]",
                        "    Return a cumulative distribution of latencies in the format of a histogram for the"
                        + " specified command names.",
                        "    If no commands are specified then all histograms are replied.");
            };
        }
    }
}
