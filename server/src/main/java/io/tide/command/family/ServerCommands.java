package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.ClientSession;
import io.tide.command.CommandContext;
import io.tide.command.CommandFigures;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.command.KeySpec;
import io.tide.command.ServerContext;
import io.tide.command.ShardSnapshot;
import io.tide.config.ConfigException;
import io.tide.config.ConfigRegistry;
import io.tide.protocol.Reply;
import io.tide.script.NumberFormat;
import io.tide.shard.Shard;
import io.tide.shard.ShardStats;
import io.tide.store.Database;
import io.tide.util.Glob;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server commands: INFO, CONFIG, TIME, SHUTDOWN, DEBUG, COMMAND, ROLE, MODULE and LOLWUT. Thread-safe (stateless but for
 * the process-wide heap peak). INFO, CONFIG RESETSTAT and DEBUG are ALL_SHARDS commands: they read or
 * reset every shard's counters, or stop the whole server, while every shard is parked.
 */
public final class ServerCommands {

    private static final Logger LOG = LoggerFactory.getLogger(ServerCommands.class);

    /** INFO sections in Redis's order. */
    private static final List<String> SECTIONS = List.of("server", "clients", "memory", "persistence", "stats",
            "replication", "cpu", "modules", "commandstats", "errorstats", "latencystats", "cluster", "keyspace", "tide");
    private static final Set<String> DEFAULT_SECTIONS = Set.of("server", "clients", "memory", "persistence",
            "stats", "replication", "cpu", "modules", "errorstats", "cluster", "keyspace");
    /** INFO's os: what uname says, as the JVM read it. */
    private static final String OS = System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
            + System.getProperty("os.arch");


    private ServerCommands() {}

    /** Redis's enable-debug-command: no (the default), yes, or local (loopback connections only). */
    private static boolean debugAllowed(CommandContext ctx) {
        return switch (ctx.server().config().get("enable-debug-command")) {
            case "yes" -> true;
            case "local" -> {
                String addr = ctx.client().connection().remoteAddress();
                yield addr.startsWith("127.") || addr.startsWith("0:0:0:0:0:0:0:1") || addr.startsWith("::1");
            }
            default -> false;
        };
    }

    public static void register(CommandTable t) {
        t.group("server");
        t.add("info", -1, "loading stale allshards", 0, 0, 0, "@dangerous", "1.0.0",
                "Returns information and statistics about the server.", Handler.INFO).gatherBy(INFO_GATHER);
        t.add("time", 1, "loading stale fast", 0, 0, 0, "", "2.6.0",
                "Returns the server time.", Handler.TIME);
        t.add("shutdown", -1, "admin noscript loading stale no_multi allow_busy", 0, 0, 0, "", "1.0.0",
                "Shuts down the server.", Handler.SHUTDOWN);
        t.add("save", 1, "admin noscript no_async_loading no_multi allshards", 0, 0, 0, "@admin @slow @dangerous", "1.0.0",
                "Synchronously saves the database(s) to disk.", Handler.SAVE);
        t.add("bgsave", -1, "admin noscript no_async_loading allshards", 0, 0, 0, "@admin @slow @dangerous", "1.0.0",
                "Asynchronously saves the database(s) to disk.", Handler.BGSAVE);
        t.add("bgrewriteaof", 1, "admin noscript no_async_loading allshards", 0, 0, 0, "@admin @slow @dangerous", "1.0.0",
                "Asynchronously rewrites the append-only file to disk.", Handler.BGREWRITEAOF);
        t.add("lastsave", 1, "loading stale fast", 0, 0, 0, "@admin @fast @dangerous", "1.0.0",
                "Returns the Unix timestamp of the last successful save to disk.", Handler.LASTSAVE);
        t.add("debug", -2, "admin noscript loading stale allshards", 0, 0, 0, "", "1.0.0",
                "A container for debugging commands (SLEEP).", Handler.DEBUG);
        var command = t.container("command", -1, "loading stale", "@connection", "2.8.13",
                "Returns detailed information about all commands.", Handler.COMMAND_ALL);
        command.sub("count", 2, "loading stale", 0, 0, 0, "@connection", "2.8.13",
                "Returns a count of commands.", Handler.COMMAND_COUNT);
        command.sub("info", -2, "loading stale", 0, 0, 0, "@connection", "2.8.13",
                "Returns information about one, multiple or all commands.",
                Handler.COMMAND_INFO);
        command.sub("docs", -2, "loading stale", 0, 0, 0, "@connection", "7.0.0",
                "Returns documentary information about one, multiple or all commands.",
                Handler.COMMAND_DOCS);
        command.sub("list", -2, "loading stale", 0, 0, 0, "@connection", "7.0.0",
                "Returns a list of command names.", Handler.COMMAND_LIST);
        command.sub("getkeys", -4, "loading stale", 0, 0, 0, "@connection", "2.8.13",
                "Extracts the key names from an arbitrary command.",
                Handler.COMMAND_GETKEYS);
        command.sub("getkeysandflags", -4, "loading stale", 0, 0, 0, "@connection", "7.0.0",
                "Extracts the key names and access flags for an arbitrary command.",
                Handler.COMMAND_GETKEYSANDFLAGS);
        command.sub("help", 2, "loading stale", 0, 0, 0, "@connection", "5.0.0",
                "Returns helpful text about the different subcommands.", Handler.COMMAND_HELP);
        t.add("role", 1, "noscript loading stale fast", 0, 0, 0, "@admin @fast @dangerous", "2.8.12",
                "Returns the replication role.", Handler.ROLE);
        t.add("lolwut", -1, "readonly fast", 0, 0, 0, "@read @fast", "5.0.0",
                "Displays computer art and the Redis version", Handler.LOLWUT);
        var module = t.container("module", -2, "", "@slow", "4.0.0", "A container for module commands.");
        module.sub("list", 2, "admin noscript", 0, 0, 0, "@admin @slow @dangerous", "4.0.0",
                "Returns all loaded modules.", Handler.MODULE_LIST);
        module.sub("help", 2, "loading stale", 0, 0, 0, "@slow", "5.0.0",
                "Returns helpful text about the different subcommands.", Handler.MODULE_HELP);
        // Tide loads no native modules: it answers as Redis does with enable-module-command at its default, no.
        module.sub("load", -3, "admin noscript no_async_loading", 0, 0, 0, "@admin @slow @dangerous", "4.0.0",
                "Loads a module.", Handler.MODULE_REFUSED);
        module.sub("loadex", -3, "admin noscript no_async_loading", 0, 0, 0, "@admin @slow @dangerous", "7.0.0",
                "Loads a module using extended parameters.", Handler.MODULE_REFUSED);
        module.sub("unload", 3, "admin noscript no_async_loading", 0, 0, 0, "@admin @slow @dangerous", "4.0.0",
                "Unloads a module.", Handler.MODULE_REFUSED);
        var config = t.container("config", -2, "", "", "2.0.0", "A container for server configuration commands.");
        config.sub("get", -3, "admin noscript loading stale", 0, 0, 0, "", "2.0.0",
                "Returns the effective values of configuration parameters.", Handler.CONFIG_GET);
        config.sub("set", -4, "admin noscript loading stale", 0, 0, 0, "", "2.0.0",
                "Sets configuration parameters in-flight.", Handler.CONFIG_SET);
        config.sub("resetstat", 2, "admin noscript loading stale allshards", 0, 0, 0, "", "2.0.0",
                "Resets the server's statistics.", Handler.CONFIG_RESET_STAT);
        config.sub("rewrite", 2, "admin noscript loading stale", 0, 0, 0, "", "2.8.0",
                "Persists the effective configuration to file.", Handler.CONFIG_REWRITE);
        config.sub("help", 2, "loading stale", 0, 0, 0, "", "5.0.0",
                "Returns helpful text about the different subcommands.", Handler.CONFIG_HELP);
    }

    // ------------------------------------------------------------------------------------------ INFO

    /**
     * What INFO renders from: the server, the asking client (null outside one), each shard's figures taken on its own
     * thread or with it parked, and, when commandstats or latencystats are asked for, the commands they list and the
     * coordinator's share of their statistics.
     */
    private record InfoInput(ServerContext server, ClientSession client, List<ShardSnapshot> shards,
                             List<CommandSpec> specs, CommandFigures coordinator) {}

    /** INFO where the shards are parked or this thread owns them (MULTI, scripts, a one-shard server). */
    static Reply info(CommandContext ctx, byte[][] argv) {
        return INFO_GATHER.walkHere(ctx, argv);
    }

    /**
     * INFO from a client on a server of several shards: gathered, so no shard is parked. Each shard's figures are
     * taken on its own thread, one shard after another; the coordinator's share of the command statistics (commands
     * that ran across shards) is read as it stands, without stopping the coordinator (on the coordinator's thread
     * when {@link #info} runs the walk there).
     */
    static final CommandSpec.Gather INFO_GATHER = new CommandSpec.Gather() {
        private static final class Plan {
            Set<String> wanted;
            ServerContext server;
            ClientSession client;
            List<CommandSpec> specs;
            boolean latency;
            ShardSnapshot[] shards;
        }

        @Override
        public Object begin(CommandContext ctx, byte[][] argv) {
            Plan p = new Plan();
            p.wanted = infoSections(argv);
            p.server = ctx.server();
            p.client = ctx.client();
            p.specs = wantsCommandFigures(p.wanted) ? ctx.server().table().allWithSubcommands() : null;
            p.latency = p.wanted.contains("latencystats");
            p.shards = new ShardSnapshot[ctx.shards().size()];
            return p;
        }

        @Override
        public boolean part(CommandContext ctx, Object plan, int shard, int shards) {
            Plan p = (Plan) plan;
            p.shards[shard] = ShardSnapshot.of(ctx.shards().get(shard), p.specs, p.latency, System.currentTimeMillis());
            return true;
        }

        @Override
        public Reply reply(Object plan) {
            Plan p = (Plan) plan;
            CommandFigures coordinator =
                    p.specs == null ? null : CommandFigures.of(p.specs, p.shards.length, p.latency);
            return renderInfo(p.wanted, new InfoInput(p.server, p.client, List.of(p.shards), p.specs, coordinator));
        }
    };

    private static Set<String> infoSections(byte[][] argv) {
        Set<String> wanted = new LinkedHashSet<>();
        if (argv.length == 1) wanted.addAll(DEFAULT_SECTIONS);
        for (int i = 1; i < argv.length; i++) {
            String s = Args.lower(argv[i]);
            switch (s) {
                case "all", "everything" -> wanted.addAll(SECTIONS);
                case "default" -> wanted.addAll(DEFAULT_SECTIONS);
                default -> wanted.add(s);
            }
        }
        return wanted;
    }

    private static boolean wantsCommandFigures(Set<String> wanted) {
        return wanted.contains("commandstats") || wanted.contains("latencystats");
    }

    private static Reply renderInfo(Set<String> wanted, InfoInput in) {
        StringBuilder sb = new StringBuilder(2048);
        int n = 0;
        for (String section : SECTIONS) {
            if (!wanted.contains(section)) continue;
            if (n++ > 0) sb.append("\r\n");
            switch (section) {
                case "server" -> serverSection(in.server(), sb);
                case "clients" -> clientsSection(in, sb);
                case "memory" -> memorySection(in.server(), sb);
                case "persistence" -> persistenceSection(in, sb);
                case "stats" -> statsSection(in, sb);
                case "replication" -> replicationSection(in.server(), sb);
                case "cpu" -> cpuSection(sb);
                case "modules" -> sb.append("# Modules\r\n"); // Tide loads no modules (MODULE LOAD is refused)
                case "commandstats" -> commandStatsSection(in, sb);
                case "errorstats" -> errorStatsSection(in, sb);
                case "latencystats" -> latencyStatsSection(in, sb);
                case "cluster" -> sb.append("# Cluster\r\ncluster_enabled:0\r\n"); // standalone only
                case "keyspace" -> keyspaceSection(in, sb);
                case "tide" -> tideSection(in, sb);
                default -> throw new IllegalStateException(section);
            }
        }
        return ClientCommands.text(sb.toString());
    }

    private static void line(StringBuilder sb, String key, Object value) {
        sb.append(key).append(':').append(value).append("\r\n");
    }

    private static void serverSection(ServerContext s, StringBuilder sb) {
        sb.append("# Server\r\n");
        line(sb, "redis_version", ConnectionCommands.REDIS_COMPAT_VERSION);
        line(sb, "tide_version", s.version());
        line(sb, "redis_mode", "standalone");
        line(sb, "os", OS);
        line(sb, "arch_bits", System.getProperty("sun.arch.data.model", "64"));
        line(sb, "multiplexing_api", s.ioDriver());
        line(sb, "process_id", ProcessHandle.current().pid());
        line(sb, "run_id", s.runId());
        line(sb, "tcp_port", s.tcpPort());
        Instant now = Instant.now();
        line(sb, "server_time_usec", now.getEpochSecond() * 1_000_000L + now.getNano() / 1000);
        long uptime = s.uptimeMillis() / 1000;
        line(sb, "uptime_in_seconds", uptime);
        line(sb, "uptime_in_days", uptime / 86400);
        int hz = s.config().getInt("hz");
        line(sb, "hz", hz);
        line(sb, "configured_hz", hz);
        line(sb, "lru_clock", io.tide.store.Database.accessClock(System.currentTimeMillis()));
        line(sb, "executable", io.tide.util.ProcSelf.executable());
        line(sb, "config_file", configFile(s));
        // Every shard's event loop reads and writes its own connections: more than one I/O thread with two shards or more.
        line(sb, "io_threads_active", s.shards().size() > 1 ? 1 : 0);
        line(sb, "tide_shards", s.shards().size());
        line(sb, "tide_io_driver", s.ioDriver());
        line(sb, "java_version", Runtime.version());
    }

    private static void clientsSection(InfoInput in, StringBuilder sb) {
        sb.append("# Clients\r\n");
        line(sb, "connected_clients", in.server().clients().size());
        line(sb, "maxclients", in.server().config().get("maxclients"));
        long maxInput = 0;
        long maxOutput = 0;
        int blockingKeys = 0;
        for (ShardSnapshot sh : in.shards()) {
            maxInput = Math.max(maxInput, sh.inputPeak());
            maxOutput = Math.max(maxOutput, sh.outputPeak());
            blockingKeys += sh.blockingKeys();
        }
        line(sb, "client_recent_max_input_buffer", maxInput);
        line(sb, "client_recent_max_output_buffer", maxOutput);
        long blocked = 0;
        long inTimeoutTable = 0;
        for (ClientSession c : in.server().clients()) {
            if (c.isBlocked()) blocked++;
            if (c.blockedWithTimeout()) inTimeoutTable++;
        }
        line(sb, "blocked_clients", blocked);
        line(sb, "tracking_clients", in.server().tracking().clientCount());
        line(sb, "clients_in_timeout_table", inTimeoutTable);
        line(sb, "total_blocking_keys", blockingKeys);
    }

    private static void memorySection(ServerContext server, StringBuilder sb) {
        io.tide.command.MemoryGuard memory = server.memory();
        long dataset = memory.datasetBytes();
        long clientBuffers = memory.clientBufferBytes();
        long used = dataset + clientBuffers;
        long peak = memory.peak(used);
        sb.append("# Memory\r\n");
        line(sb, "used_memory", used);
        line(sb, "used_memory_human", human(used));
        long rss = io.tide.util.ProcSelf.rssBytes();
        if (rss >= 0) {
            line(sb, "used_memory_rss", rss);
            line(sb, "used_memory_rss_human", human(rss));
        }
        line(sb, "used_memory_peak", peak);
        line(sb, "used_memory_peak_human", human(peak));
        line(sb, "used_memory_peak_perc", percent(used, peak));
        line(sb, "used_memory_overhead", clientBuffers);
        line(sb, "used_memory_startup", server.startupMemory());
        line(sb, "used_memory_dataset", dataset);
        line(sb, "used_memory_dataset_perc", percent(dataset, used));
        long total = io.tide.util.ProcSelf.totalSystemMemory();
        if (total >= 0) {
            line(sb, "total_system_memory", total);
            line(sb, "total_system_memory_human", human(total));
        }
        scriptingMemory(server, sb);
        long maxmemory = server.config().getLong("maxmemory");
        line(sb, "maxmemory", maxmemory);
        line(sb, "maxmemory_human", human(maxmemory));
        line(sb, "maxmemory_policy", server.config().get("maxmemory-policy"));
        if (rss >= 0 && used > 0) {
            line(sb, "mem_fragmentation_ratio", NumberFormat.f((double) rss / used, 2));
            line(sb, "mem_fragmentation_bytes", rss - used);
        }
        io.tide.replication.Primary.Info repl = server.replication().info();
        // The backlog's ring, allocated whole while active; unlike Redis's, it is not in used_memory (the limit is
        // the dataset's and the clients' buffers).
        line(sb, "mem_replication_backlog", repl.backlogActive() ? repl.backlogSize() : 0);
        line(sb, "mem_clients_normal", clientBuffers);
        line(sb, "mem_allocator", MemoryCommands.allocatorName());
        line(sb, "lazyfree_pending_objects", server.lazyFree().pendingObjects());
        line(sb, "lazyfreed_objects", server.lazyFree().freedObjects());
        // The JVM's side: used_memory counts what Tide keeps (incrementally); the heap also holds garbage and
        // the JVM's own structures. tide_memory_limit is maxmemory, or the implicit limit when it is 0.
        Runtime rt = Runtime.getRuntime();
        line(sb, "tide_heap_used", rt.totalMemory() - rt.freeMemory());
        line(sb, "tide_heap_committed", rt.totalMemory());
        line(sb, "tide_heap_max", rt.maxMemory());
        line(sb, "tide_memory_limit", memory.limit());
        io.tide.util.HeapGovernor governor = server.heapGovernor();
        if (governor != null) {
            line(sb, "tide_heap_governor_cycles", governor.requests());
            line(sb, "tide_heap_governor_periodic_switches", governor.periodicSwitches());
            if (governor.softMaxSet() > 0) line(sb, "tide_heap_soft_max", governor.softMaxSet());
        }
    }

    /** Redis's "%.2f%%" of part over whole (0 when whole is 0). */
    private static String percent(long part, long whole) {
        return NumberFormat.f(whole == 0 ? 0.0 : part * 100.0 / whole, 2) + "%";
    }

    /**
     * Redis 7.0's scripting memory fields, from the script cache and the function libraries: "vm" is the compiled
     * state (LuaJ closures and prototypes), the others what the cache and libraries hold besides (bodies, names,
     * entries); both are estimated object by object ({@link io.tide.script.ScriptMemory} describes the method).
     * Unlike Redis's, the vm figures leave out the Lua environment all scripts share.
     */
    private static void scriptingMemory(ServerContext server, StringBuilder sb) {
        io.tide.script.Scripting scripting = server.scripting();
        io.tide.script.FunctionLibraries libs = scripting.functions();
        long vmEval = scripting.cachedCompiledBytes();
        long scriptsEval = scripting.cachedOverheadBytes();
        long vmFunctions = libs.compiledBytes();
        long functions = libs.overheadBytes();
        line(sb, "used_memory_lua", vmEval);
        line(sb, "used_memory_vm_eval", vmEval);
        line(sb, "used_memory_lua_human", human(vmEval));
        line(sb, "used_memory_scripts_eval", scriptsEval);
        line(sb, "number_of_cached_scripts", scripting.size());
        line(sb, "number_of_functions", libs.functionCount());
        line(sb, "number_of_libraries", libs.libraries().size());
        line(sb, "used_memory_vm_functions", vmFunctions);
        line(sb, "used_memory_vm_total", vmEval + vmFunctions);
        line(sb, "used_memory_vm_total_human", human(vmEval + vmFunctions));
        line(sb, "used_memory_functions", functions);
        line(sb, "used_memory_scripts", scriptsEval + functions);
        line(sb, "used_memory_scripts_human", human(scriptsEval + functions));
    }

    /** Redis's bytesToHuman. */
    static String human(long n) {
        if (n < 1024) return n + "B";
        String[] units = {"K", "M", "G", "T", "P"};
        double d = n / 1024.0;
        int u = 0;
        while (d >= 1024 && u < units.length - 1) {
            d /= 1024;
            u++;
        }
        return NumberFormat.f(d, 2) + units[u];
    }

    /**
     * Redis 7.0's persistence fields that mean something without a fork (the copy-on-write and fork fields do not
     * exist here and are left out rather than reported as zeros).
     */
    private static void persistenceSection(InfoInput in, StringBuilder sb) {
        io.tide.persistence.Persistence p = in.server().persistence();
        sb.append("# Persistence\r\n");
        line(sb, "loading", p.loading() ? 1 : 0);
        line(sb, "async_loading", p.asyncLoading() ? 1 : 0);
        if (p.loading()) {
            long total = p.loadingTotalBytes();
            long loaded = p.loadingLoadedBytes();
            long elapsed = Math.max(1, System.currentTimeMillis() / 1000 - p.loadingStartSeconds());
            line(sb, "loading_start_time", p.loadingStartSeconds());
            line(sb, "loading_total_bytes", total);
            line(sb, "loading_rdb_used_mem", total);
            line(sb, "loading_loaded_bytes", loaded);
            line(sb, "loading_loaded_perc", NumberFormat.f(total == 0 ? 0.0 : loaded * 100.0 / total, 2));
            line(sb, "loading_eta_seconds", loaded == 0 ? 1 : (total - loaded) * elapsed / loaded);
        }
        long dirty = 0;
        for (ShardSnapshot shard : in.shards()) dirty += shard.dirty();
        line(sb, "rdb_changes_since_last_save", dirty);
        line(sb, "rdb_bgsave_in_progress", p.bgsaveInProgress() ? 1 : 0);
        line(sb, "rdb_last_save_time", p.lastSaveSeconds());
        sb.append("rdb_last_bgsave_status:").append(p.lastBgsaveOk() ? "ok" : "err").append("\r\n");
        line(sb, "rdb_last_bgsave_time_sec", p.lastBgsaveSeconds());
        line(sb, "rdb_current_bgsave_time_sec", p.currentBgsaveSeconds());
        line(sb, "rdb_saves", p.saves());
        line(sb, "rdb_last_load_keys_expired", p.lastLoadKeysExpired());
        line(sb, "rdb_last_load_keys_loaded", p.lastLoadKeysLoaded());
        io.tide.persistence.AppendOnly aof = in.server().appendOnly();
        line(sb, "aof_enabled", aof.enabled() ? 1 : 0);
        line(sb, "aof_rewrite_in_progress", aof.rewriting() ? 1 : 0);
        line(sb, "aof_rewrite_scheduled", aof.rewriteScheduled() ? 1 : 0);
        line(sb, "aof_last_rewrite_time_sec", aof.lastRewriteSeconds());
        line(sb, "aof_current_rewrite_time_sec", aof.currentRewriteSeconds());
        sb.append("aof_last_bgrewrite_status:").append(aof.lastRewriteOk() ? "ok" : "err").append("\r\n");
        line(sb, "aof_rewrites", aof.rewrites());
        line(sb, "aof_last_write_status", aof.lastWriteStatus());
        if (aof.enabled()) {
            line(sb, "aof_current_size", aof.currentSize());
            line(sb, "aof_base_size", aof.baseSize());
        }
    }

    private static void statsSection(InfoInput in, StringBuilder sb) {
        ShardStats sum = new ShardStats();
        long opsPerSec = 0;
        long inPerSec = 0;
        long outPerSec = 0;
        double stalePerc = 0;
        for (ShardSnapshot shard : in.shards()) {
            ShardStats st = shard.stats();
            opsPerSec += shard.opsPerSec();
            inPerSec += shard.inputPerSec();
            outPerSec += shard.outputPerSec();
            sum.commandsProcessed += st.commandsProcessed;
            sum.netInputBytes += st.netInputBytes;
            sum.netOutputBytes += st.netOutputBytes;
            sum.expiredKeys += st.expiredKeys;
            sum.evictedKeys += st.evictedKeys;
            sum.keyspaceHits += st.keyspaceHits;
            sum.keyspaceMisses += st.keyspaceMisses;
            sum.errorReplies += st.errorReplies;
            sum.readsProcessed += st.readsProcessed;
            sum.writesProcessed += st.writesProcessed;
            sum.expiredTimeCapReached += st.expiredTimeCapReached;
            sum.expireCycleNanos += st.expireCycleNanos;
            stalePerc += st.expiredStalePerc;
        }
        stalePerc /= in.shards().size();
        sb.append("# Stats\r\n");
        line(sb, "total_connections_received", in.server().connectionsReceived().get());
        // Tide counts a command as it starts, Redis once it returns: the INFO (or EXEC, EVAL) reading it is not in yet.
        line(sb, "total_commands_processed", Math.max(0, sum.commandsProcessed - (in.client() != null ? 1 : 0)));
        line(sb, "instantaneous_ops_per_sec", opsPerSec);
        line(sb, "total_net_input_bytes", sum.netInputBytes);
        line(sb, "total_net_output_bytes", sum.netOutputBytes);
        line(sb, "total_net_repl_input_bytes", in.server().replica().replInputBytes());
        line(sb, "total_net_repl_output_bytes", in.server().replication().replOutputBytes());
        line(sb, "instantaneous_input_kbps", kbps(inPerSec));
        line(sb, "instantaneous_output_kbps", kbps(outPerSec));
        line(sb, "instantaneous_input_repl_kbps", kbps(in.server().replInputRate().perSecond()));
        line(sb, "instantaneous_output_repl_kbps", kbps(in.server().replOutputRate().perSecond()));
        line(sb, "rejected_connections", in.server().rejectedConnections().get());
        line(sb, "sync_full", in.server().replication().syncFull());
        line(sb, "sync_partial_ok", in.server().replication().syncPartialOk());
        line(sb, "sync_partial_err", in.server().replication().syncPartialErr());
        line(sb, "expired_keys", sum.expiredKeys);
        line(sb, "expired_stale_perc", NumberFormat.f(stalePerc * 100, 2));
        line(sb, "expired_time_cap_reached_count", sum.expiredTimeCapReached);
        line(sb, "expire_cycle_cpu_milliseconds", sum.expireCycleNanos / 1_000_000);
        line(sb, "evicted_keys", sum.evictedKeys);
        line(sb, "evicted_clients", in.server().memory().evictedClients());
        line(sb, "keyspace_hits", sum.keyspaceHits);
        line(sb, "keyspace_misses", sum.keyspaceMisses);
        line(sb, "pubsub_channels", in.server().pubSub().size(io.tide.pubsub.PubSub.Kind.CHANNEL));
        line(sb, "pubsub_patterns", in.server().pubSub().size(io.tide.pubsub.PubSub.Kind.PATTERN));
        line(sb, "pubsubshard_channels", in.server().pubSub().size(io.tide.pubsub.PubSub.Kind.SHARD));
        line(sb, "migrate_cached_sockets", in.server().migrateCachedSockets());
        io.tide.pubsub.Tracking tracking = in.server().tracking();
        line(sb, "tracking_total_keys", tracking.keyCount());
        line(sb, "tracking_total_items", tracking.itemCount());
        line(sb, "tracking_total_prefixes", tracking.prefixCount());
        line(sb, "unexpected_error_replies", in.server().unexpectedErrorReplies().get());
        line(sb, "total_error_replies", sum.errorReplies);
        line(sb, "total_reads_processed", sum.readsProcessed);
        line(sb, "total_writes_processed", sum.writesProcessed);
        // Redis 7.2's refusal counters (7.0 has only the ACL LOG): denied AUTH, commands, keys and channels.
        io.tide.acl.AclLog log = in.server().aclLog();
        line(sb, "acl_access_denied_auth", log.denied(io.tide.acl.AclLog.Reason.AUTH));
        line(sb, "acl_access_denied_cmd", log.denied(io.tide.acl.AclLog.Reason.COMMAND));
        line(sb, "acl_access_denied_key", log.denied(io.tide.acl.AclLog.Reason.KEY));
        line(sb, "acl_access_denied_channel", log.denied(io.tide.acl.AclLog.Reason.CHANNEL));
    }

    /** Bytes per second as Redis's "%.2f" kilobytes. */
    private static String kbps(long bytesPerSec) {
        return NumberFormat.f(bytesPerSec / 1024.0, 2);
    }

    /** Redis 7.0's replication section of a primary, from the replication thread's last published state. */
    private static void replicationSection(ServerContext server, StringBuilder sb) {
        io.tide.replication.Primary p = server.replication();
        io.tide.replication.Primary.Info r = p.info();
        ConfigRegistry config = server.config();
        sb.append("# Replication\r\n");
        io.tide.replication.Replica rep = server.replica();
        String host = rep.host();
        if (host == null) {
            line(sb, "role", "master");
        } else {
            line(sb, "role", "slave");
            line(sb, "master_host", host);
            line(sb, "master_port", rep.port());
            line(sb, "master_link_status", rep.linkUp() ? "up" : "down");
            line(sb, "master_last_io_seconds_ago", rep.linkUp() ? rep.lastIoSecondsAgo() : -1);
            line(sb, "master_sync_in_progress", rep.syncing() ? 1 : 0);
            line(sb, "slave_read_repl_offset", rep.readOffset());
            line(sb, "slave_repl_offset", rep.offset());
            if (rep.syncing()) {
                long total = rep.syncTotalBytes();
                long read = rep.syncReadBytes();
                line(sb, "master_sync_total_bytes", total);
                line(sb, "master_sync_read_bytes", read);
                line(sb, "master_sync_left_bytes", total < 0 ? -1 : total - read);
                line(sb, "master_sync_perc", NumberFormat.f(total <= 0 ? 0.0 : read * 100.0 / total, 2));
                line(sb, "master_sync_last_io_seconds_ago", rep.lastIoSecondsAgo());
            }
            if (!rep.linkUp()) line(sb, "master_link_down_since_seconds", rep.linkDownSinceSeconds());
            line(sb, "slave_priority", config.getLong("replica-priority"));
            line(sb, "slave_read_only", config.getBool("replica-read-only") ? 1 : 0);
            line(sb, "replica_announced", 1);
        }
        line(sb, "connected_slaves", r.replicas().size());
        if (config.getLong("min-replicas-to-write") > 0 && config.getLong("min-replicas-max-lag") > 0) {
            line(sb, "min_slaves_good_slaves", p.goodReplicas());
        }
        int i = 0;
        for (io.tide.replication.Primary.Replica x : r.replicas()) {
            line(sb, "slave" + i++, "ip=" + x.ip() + ",port=" + x.port() + ",state=" + x.state() + ",offset="
                    + x.offset() + ",lag=" + x.lagSeconds());
        }
        line(sb, "master_failover_state", "no-failover");
        line(sb, "master_replid", host != null && !rep.masterReplid().equals("?") ? rep.masterReplid() : r.replid());
        line(sb, "master_replid2", r.replid2());
        line(sb, "master_repl_offset", host != null ? rep.offset() : r.offset());
        line(sb, "second_repl_offset", r.secondOffset());
        line(sb, "repl_backlog_active", r.backlogActive() ? 1 : 0);
        line(sb, "repl_backlog_size", r.backlogSize());
        line(sb, "repl_backlog_first_byte_offset", r.backlogFirstByte());
        line(sb, "repl_backlog_histlen", r.backlogHistlen());
    }

    private static void cpuSection(StringBuilder sb) {
        sb.append("# CPU\r\n");
        double[] t = io.tide.util.ProcSelf.cpuSeconds();
        if (t == null) return;
        line(sb, "used_cpu_sys", seconds(t[1]));
        line(sb, "used_cpu_user", seconds(t[0]));
        line(sb, "used_cpu_sys_children", seconds(t[3]));
        line(sb, "used_cpu_user_children", seconds(t[2]));
    }

    private static String seconds(double s) {
        return NumberFormat.f(s, 6);
    }

    private static void commandStatsSection(InfoInput in, StringBuilder sb) {
        sb.append("# Commandstats\r\n");
        List<CommandFigures> parts = commandFigures(in);
        for (int c = 0; c < in.specs().size(); c++) {
            long[] t = CommandFigures.total(parts, c);
            long calls = t[0];
            long usec = t[1];
            long rejected = t[2];
            long failed = t[3];
            if (calls == 0 && rejected == 0 && failed == 0) continue;
            sb.append("cmdstat_").append(in.specs().get(c).fullName()).append(":calls=").append(calls).append(",usec=")
                    .append(usec).append(",usec_per_call=")
                    .append(NumberFormat.f(calls == 0 ? 0.0 : (double) usec / calls, 2))
                    .append(",rejected_calls=").append(rejected).append(",failed_calls=").append(failed).append("\r\n");
        }
    }

    /** Every shard's share of the command statistics, then the coordinator's. */
    private static List<CommandFigures> commandFigures(InfoInput in) {
        List<CommandFigures> parts = new ArrayList<>();
        for (ShardSnapshot sh : in.shards()) parts.add(sh.commandFigures());
        parts.add(in.coordinator());
        return parts;
    }

    /** Redis's errorstats: error replies by code, codes in byte order. */
    private static void errorStatsSection(InfoInput in, StringBuilder sb) {
        sb.append("# Errorstats\r\n");
        java.util.TreeMap<String, Long> codes = new java.util.TreeMap<>();
        for (ShardSnapshot shard : in.shards()) shard.errors().forEach((code, n) -> codes.merge(code, n, Long::sum));
        codes.forEach((code, n) -> sb.append("errorstat_").append(code).append(":count=").append(n).append("\r\n"));
    }

    /** Redis 7's latencystats: per command with samples, the percentiles of latency-tracking-info-percentiles. */
    private static void latencyStatsSection(InfoInput in, StringBuilder sb) {
        sb.append("# Latencystats\r\n");
        double[] percentiles = in.server().observability().percentiles();
        List<CommandFigures> parts = commandFigures(in);
        for (int c = 0; c < in.specs().size(); c++) {
            List<org.HdrHistogram.Histogram> hs = new ArrayList<>();
            for (CommandFigures f : parts) hs.add(f.latency()[c]);
            org.HdrHistogram.Histogram h = io.tide.metrics.LatencyHistograms.merge(hs);
            if (h == null) continue;
            sb.append("latency_percentiles_usec_").append(in.specs().get(c).fullName()).append(':')
                    .append(io.tide.metrics.LatencyHistograms.percentilesLine(h, percentiles)).append("\r\n");
        }
    }

    /** The command's latency histogram over every thread's, or null when it has no sample. Shards parked. */
    public static org.HdrHistogram.Histogram mergedLatency(CommandSpec spec) {
        List<org.HdrHistogram.Histogram> parts = new ArrayList<>();
        for (CommandSpec.CommandStats st : spec.allStats()) parts.add(st.latency);
        return io.tide.metrics.LatencyHistograms.merge(parts);
    }

    /**
     * Tide's own section (in INFO all and everything, not in the default set): the shards, each one's keys (all
     * databases), keys with a TTL, commands processed (sent by its connections), commands executed (run on its
     * thread alone, the shard's load), dataset bytes and the tasks queued on its event loop, and the
     * coordinator's multi-shard operations with the time they held shards parked.
     */
    private static void tideSection(InfoInput in, StringBuilder sb) {
        ServerContext s = in.server();
        sb.append("# Tide\r\n");
        line(sb, "tide_shards", s.shards().size());
        line(sb, "tide_io_driver", s.ioDriver());
        line(sb, "tide_coordinator_operations", s.shards().coordinator().operations());
        line(sb, "tide_coordinator_usec", s.shards().coordinator().parkedMicros());
        for (ShardSnapshot sh : in.shards()) {
            long expires = 0;
            for (long e : sh.expires()) expires += e;
            sb.append("shard").append(sh.id()).append(":keys=").append(sh.allKeys()).append(",expires=").append(expires)
                    .append(",ops=").append(sh.stats().commandsProcessed).append(",executed=")
                    .append(sh.stats().commandsExecuted).append(",used_memory=")
                    .append(sh.usedBytes()).append(",pending_tasks=").append(sh.pendingTasks()).append("\r\n");
        }
    }

    private static void keyspaceSection(InfoInput in, StringBuilder sb) {
        sb.append("# Keyspace\r\n");
        int dbs = in.shards().get(0).keys().length;
        for (int i = 0; i < dbs; i++) {
            long keys = 0;
            long expires = 0;
            double ttlWeighted = 0;
            for (ShardSnapshot sh : in.shards()) {
                keys += sh.keys()[i];
                expires += sh.expires()[i];
                ttlWeighted += (double) sh.avgTtlMs()[i] * sh.expires()[i];
            }
            long avgTtl = expires == 0 ? 0 : Math.round(ttlWeighted / expires); // shards weighted by their expiries
            if (keys > 0) sb.append("db").append(i).append(":keys=").append(keys).append(",expires=").append(expires)
                    .append(",avg_ttl=").append(avgTtl).append("\r\n");
        }
    }

    // ------------------------------------------------------------------------------------------ CONFIG

    static Reply configGet(CommandContext ctx, byte[][] argv) {
        Map<String, String> found = new LinkedHashMap<>();
        ConfigRegistry config = ctx.server().config();
        for (int i = 2; i < argv.length; i++) {
            for (String[] pair : config.match(Args.text(argv[i]))) found.putIfAbsent(pair[0], pair[1]);
        }
        List<Reply> out = new ArrayList<>(found.size() * 2);
        found.forEach((k, v) -> {
            out.add(Reply.bulk(k));
            out.add(Reply.bulk(v));
        });
        return Reply.map(out);
    }

    static Reply configSet(CommandContext ctx, byte[][] argv) {
        if ((argv.length & 1) != 0) throw Errors.syntax();
        List<String[]> pairs = new ArrayList<>();
        for (int i = 2; i < argv.length; i += 2) pairs.add(new String[] {Args.text(argv[i]), Args.text(argv[i + 1])});
        try {
            ctx.server().config().setAll(pairs);
        } catch (ConfigException e) {
            throw Errors.error(e.getMessage());
        }
        return Reply.OK;
    }

    static Reply configResetStat(CommandContext ctx, byte[][] argv) {
        for (Shard shard : ctx.shards().all()) {
            shard.stats().reset();
        }
        for (CommandSpec spec : ctx.server().table().all()) {
            resetStats(spec);
            for (CommandSpec sub : spec.subcommands().values()) resetStats(sub);
        }
        ctx.server().connectionsReceived().set(0);
        ctx.server().rejectedConnections().set(0);
        ctx.server().unexpectedErrorReplies().set(0);
        ctx.server().aclLog().resetStats();
        ctx.server().replInputRate().reset();
        ctx.server().replOutputRate().reset();
        ctx.server().lazyFree().resetStats();
        ctx.server().replication().resetStats();
        ctx.shards().coordinator().resetStats();
        // Counted as it started and reset just now: it counts again, as Redis counts it once it returns.
        if (ctx.client() != null) ctx.shards().all()[0].stats().commandsProcessed = 1;
        return Reply.OK;
    }

    private static void resetStats(CommandSpec spec) {
        for (CommandSpec.CommandStats st : spec.allStats()) st.reset();
    }

    static Reply configRewrite(CommandContext ctx, byte[][] argv) {
        String file = configFile(ctx.server());
        if (file.isEmpty()) throw Errors.error(Errors.NO_CONFIG_FILE);
        String error = ctx.server().config().rewrite(Path.of(file));
        if (error != null) throw Errors.error(error);
        return Reply.OK;
    }

    /**
     * The file the server was started from: the context's, else the one the configuration was loaded
     * from (the launcher records it only there for now); empty when there is none.
     */
    private static String configFile(ServerContext server) {
        String file = server.configFile();
        if (!file.isEmpty()) return file;
        Path loaded = server.config().configFile();
        return loaded == null ? "" : loaded.toAbsolutePath().toString();
    }

    static Reply configHelp(CommandContext ctx, byte[][] argv) {
        return Help.reply("CONFIG",
                "GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
                "SET <directive> <value>", "    Set the configuration <directive> to <value>.",
                "RESETSTAT", "    Reset statistics reported by the INFO command.",
                "REWRITE", "    Rewrite the configuration file.");
    }

    // ------------------------------------------------------------------------------------------ TIME, SHUTDOWN, DEBUG

    static Reply time(CommandContext ctx, byte[][] argv) {
        Instant now = Instant.now();
        return Reply.array(Reply.bulk(Long.toString(now.getEpochSecond())),
                Reply.bulk(Long.toString(now.getNano() / 1000)));
    }

    static Reply shutdown(CommandContext ctx, byte[][] argv) {
        boolean noSave = false;
        boolean save = false;
        boolean other = false;
        boolean abort = false;
        boolean force = false;
        for (int i = 1; i < argv.length; i++) {
            switch (Args.lower(argv[i])) {
                case "nosave" -> noSave = true;
                case "save" -> save = true;
                case "now" -> other = true;
                case "force" -> {
                    other = true;
                    force = true;
                }
                case "abort" -> abort = true;
                default -> throw Errors.syntax();
            }
        }
        if ((abort && (noSave || save || other)) || (noSave && save)) throw Errors.syntax();
        if (abort) throw Errors.error(Errors.NO_SHUTDOWN_IN_PROGRESS);
        LOG.info("User requested shutdown...");
        Boolean saveChoice = noSave ? Boolean.FALSE : save ? Boolean.TRUE : null;
        boolean forced = force; // FORCE: stop even if the save fails, as Redis
        // On success the connection closes without a reply, as Redis's; a failed save answers the error.
        java.util.function.Consumer<Reply> answer = ctx.answerLater();
        // Saving parks every shard and closing waits for the shard loops to stop: neither may run on one of them.
        ServerContext server = ctx.server();
        Thread.ofPlatform().name("tide-shutdown").daemon(false).start(() -> {
            if (!server.requestShutdown(saveChoice, forced)) answer.accept(Reply.error(Errors.SHUTDOWN_FAILED));
        });
        return Reply.OK;
    }

    /** SAVE: on the coordinator with every shard parked, so clients wait for it as they do in Redis. */
    static Reply save(CommandContext ctx, byte[][] argv) {
        io.tide.persistence.Persistence p = ctx.server().persistence();
        if (p.bgsaveInProgress()) throw Errors.error(Errors.BGSAVE_IN_PROGRESS);
        try {
            p.saveNow();
        } catch (java.io.IOException | RuntimeException e) {
            throw Errors.error("ERR");
        }
        return Reply.OK;
    }

    /** BGSAVE [SCHEDULE]: the image is taken here, with every shard parked; the shards write it while serving. */
    static Reply bgsave(CommandContext ctx, byte[][] argv) {
        if (argv.length > 2 || (argv.length == 2 && !Args.is(argv[1], "schedule"))) throw Errors.syntax();
        io.tide.persistence.Persistence p = ctx.server().persistence();
        if (p.bgsaveInProgress()) throw Errors.error(Errors.BGSAVE_IN_PROGRESS);
        boolean schedule = argv.length == 2;
        if (ctx.server().appendOnly().rewriting() || ctx.nested()) { // Redis: another child, or in_exec
            if (!schedule && !ctx.nested()) throw Errors.error(Errors.BGSAVE_CHILD_ACTIVE);
            p.scheduleBackgroundSave();
            return Reply.simple("Background saving scheduled");
        }
        p.beginBackgroundSave();
        return Reply.simple("Background saving started");
    }

    /** BGREWRITEAOF: the image is taken here, with every shard parked; after a running BGSAVE when one runs. */
    static Reply bgrewriteaof(CommandContext ctx, byte[][] argv) {
        io.tide.persistence.AppendOnly aof = ctx.server().appendOnly();
        if (aof.rewriting()) throw Errors.error(Errors.AOF_REWRITE_IN_PROGRESS);
        if (ctx.server().persistence().bgsaveInProgress() || ctx.nested()) {
            aof.scheduleRewrite();
            return Reply.simple("Background append only file rewriting scheduled");
        }
        try {
            aof.beginRewrite();
        } catch (java.io.IOException e) {
            throw Errors.error("ERR Can't rewrite the append only file: " + e.getMessage());
        }
        return Reply.simple("Background append only file rewriting started");
    }

    static Reply lastsave(CommandContext ctx, byte[][] argv) {
        return Reply.integer(ctx.server().persistence().lastSaveSeconds());
    }

    private static final Pattern STRTOD = Pattern.compile("^\\s*[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

    static Reply debug(CommandContext ctx, byte[][] argv) {
        if (!debugAllowed(ctx)) throw Errors.error(Errors.DEBUG_NOT_ALLOWED);
        String sub = Args.lower(argv[1]);
        if (sub.equals("help") && argv.length == 2) {
            return Help.reply("DEBUG",
                    "SLEEP <seconds>", "    Stop the server for <seconds>. Decimals allowed.");
        }
        if (sub.equals("sleep") && argv.length == 3) {
            // Redis parses with strtod and no check: a prefix that is not a number sleeps 0 seconds.
            Matcher m = STRTOD.matcher(Args.text(argv[2]));
            double seconds = m.find() ? Double.parseDouble(m.group().trim()) : 0;
            long nanos = (long) (seconds * 1e9);
            if (nanos > 0) {
                try {
                    Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Reply.OK;
        }
        throw Errors.error("ERR unknown subcommand or wrong number of arguments for '" + Errors.printable(argv[1])
                + "'. Try DEBUG HELP.");
    }

    // ------------------------------------------------------------------------------------------ COMMAND

    /** Bare COMMAND: details of every command. */
    static Reply commandAll(CommandContext ctx, byte[][] argv) {
        List<Reply> all = new ArrayList<>();
        for (CommandSpec spec : ctx.server().table().all()) all.add(commandInfo(spec));
        return Reply.array(all);
    }

    // ------------------------------------------------------------------------------------------ ROLE, MODULE, LOLWUT

    /** ROLE of a primary: its offset and, per replica, ip, listening port and acknowledged offset (as strings). */
    static Reply role(CommandContext ctx, byte[][] argv) {
        io.tide.replication.Replica rep = ctx.server().replica();
        String host = rep.host();
        if (host != null) {
            return Reply.array(Reply.bulk("slave"), Reply.bulk(host), Reply.integer(rep.port()),
                    Reply.bulk(rep.linkState()), Reply.integer(rep.linkUp() ? rep.offset() : -1));
        }
        io.tide.replication.Primary.Info r = ctx.server().replication().info();
        List<Reply> replicas = new ArrayList<>();
        for (io.tide.replication.Primary.Replica x : r.replicas()) {
            if (!x.state().equals("online")) continue; // Redis lists only replicas past the sync
            replicas.add(Reply.array(Reply.bulk(x.ip()), Reply.bulk(Integer.toString(x.port())),
                    Reply.bulk(Long.toString(x.offset()))));
        }
        return Reply.array(Reply.bulk("master"), Reply.integer(r.offset()), Reply.array(replicas));
    }

    /** Redis's MODULE HELP. */
    static Reply moduleHelp(CommandContext ctx, byte[][] argv) {
        return Help.reply("MODULE",
                "LIST", "    Return a list of loaded modules.",
                "LOAD <path> [<arg> ...]", "    Load a module library from <path>, passing to it any optional arguments.",
                "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
                "    Load a module library from <path>, while passing it module configurations and optional arguments.",
                "UNLOAD <name>", "    Unload a module.");
    }

    /** MODULE LOAD, LOADEX and UNLOAD: refused, as Redis refuses them while enable-module-command is no. */
    static Reply moduleRefused(CommandContext ctx, byte[][] argv) {
        throw Errors.error(Errors.MODULE_NOT_ALLOWED);
    }

    /**
     * LOLWUT [VERSION v [args...]]: as Redis 7.0, version 5 draws Schotter ({@code [columns [squares-per-row
     * [squares-per-column]]]}), version 6 a skyline ({@code [columns [rows]]}), see {@link Lolwut}; every other
     * version, 7 (Redis's own) the default, replies the version line alone.
     */
    static Reply lolwut(CommandContext ctx, byte[][] argv) {
        long version = 7;
        if (argv.length >= 3 && Args.is(argv[1], "version")) {
            Long v = Args.parseLongOrNull(argv[2]);
            if (v == null) throw Errors.notInteger();
            version = v;
        }
        if (version == 5 || version == 6) {
            long[] p = version == 5 ? new long[] {66, 8, 12} : new long[] {80, 20};
            for (int i = 0; i < p.length && i + 3 < argv.length; i++) {
                Long v = Args.parseLongOrNull(argv[i + 3]);
                if (v == null) throw Errors.notInteger();
                p[i] = v;
            }
            String redis = ConnectionCommands.REDIS_COMPAT_VERSION;
            return ClientCommands.text(version == 5 ? Lolwut.schotter(p[0], p[1], p[2], redis)
                    : Lolwut.skyline(p[0], p[1], redis));
        }
        return ClientCommands.text("Redis ver. " + ConnectionCommands.REDIS_COMPAT_VERSION + "\n");
    }

    static Reply commandHelp(CommandContext ctx, byte[][] argv) {
        return Help.reply("COMMAND",
                "(no subcommand)", "    Return details about all commands.",
                "COUNT", "    Return the total number of commands in this server.",
                "LIST", "    Return a list of all commands in this server.",
                "INFO [<command-name> ...]", "    Return details about multiple commands.",
                "    If no command names are given, details for all commands are returned.",
                "DOCS [<command-name> ...]", "    Return documentation details about multiple commands.",
                "    If no command names are given, documentation details for all",
                "    commands are returned.",
                "GETKEYS <full-command>", "    Return the keys from a full command.",
                "GETKEYSANDFLAGS <full-command>", "    Return the keys and the access flags from a full command.");
    }

    /** A command or {@code container|subcommand} by name, or null. */
    private static CommandSpec find(CommandTable table, String name) {
        int bar = name.indexOf('|');
        if (bar < 0) return table.lookup(name);
        CommandSpec parent = table.lookup(name.substring(0, bar));
        if (parent == null) return null;
        return parent.subcommands().get(name.substring(bar + 1).toLowerCase(Locale.ROOT));
    }

    private static Reply commandInfo(CommandTable table, byte[][] argv) {
        List<Reply> out = new ArrayList<>();
        if (argv.length == 2) {
            for (CommandSpec spec : table.all()) out.add(commandInfo(spec));
        } else {
            for (int i = 2; i < argv.length; i++) {
                CommandSpec spec = find(table, Args.text(argv[i]));
                out.add(spec == null ? Reply.NULL : commandInfo(spec));
            }
        }
        return Reply.array(out);
    }

    /** Redis 7's ten-element COMMAND INFO entry. */
    static Reply commandInfo(CommandSpec spec) {
        List<Reply> flags = new ArrayList<>();
        for (String f : spec.flagNames()) flags.add(Reply.simple(f));
        List<Reply> acl = new ArrayList<>();
        for (String c : spec.aclCategories()) acl.add(Reply.simple(c));
        List<Reply> subs = new ArrayList<>();
        for (CommandSpec s : spec.subcommands().values()) subs.add(commandInfo(s));
        Reply keySpecs = spec.hasKeys() ? new Reply.SetReply(new Reply[] {keySpec(spec)}) : emptySet();
        return Reply.array(
                Reply.bulk(spec.fullName()),
                Reply.integer(spec.arity()),
                new Reply.SetReply(flags.toArray(new Reply[0])),
                Reply.integer(spec.firstKey()),
                Reply.integer(spec.lastKey()),
                Reply.integer(spec.keyStep()),
                new Reply.SetReply(acl.toArray(new Reply[0])),
                emptySet(),
                keySpecs,
                new Reply.SetReply(subs.toArray(new Reply[0])));
    }

    private static Reply emptySet() {
        return new Reply.SetReply(new Reply[0]);
    }

    /** The declared key spec, or else the one that Redis's legacy first/last/step range describes. */
    private static Reply keySpec(CommandSpec spec) {
        KeySpec ks = spec.keySpec();
        if (ks != null) {
            List<Reply> m = new ArrayList<>();
            if (ks.notes() != null) {
                m.add(Reply.bulk("notes"));
                m.add(Reply.bulk(ks.notes()));
            }
            m.addAll(List.of(
                    Reply.bulk("flags"), keyFlags(ks.flags()),
                    Reply.bulk("begin_search"), Reply.map(Reply.bulk("type"), Reply.bulk("index"),
                            Reply.bulk("spec"), Reply.map(Reply.bulk("index"), Reply.integer(ks.beginIndex()))),
                    Reply.bulk("find_keys"), Reply.map(Reply.bulk("type"), Reply.bulk("keynum"),
                            Reply.bulk("spec"), Reply.map(Reply.bulk("keynumidx"), Reply.integer(ks.keyNumIdx()),
                                    Reply.bulk("firstkey"), Reply.integer(ks.firstKey()),
                                    Reply.bulk("keystep"), Reply.integer(ks.keyStep())))));
            return Reply.map(m);
        }
        int last = spec.lastKey() < 0 ? spec.lastKey() : spec.lastKey() - spec.firstKey();
        return Reply.map(
                Reply.bulk("flags"), keyFlags(spec.infoKeyFlags()),
                Reply.bulk("begin_search"), Reply.map(Reply.bulk("type"), Reply.bulk("index"),
                        Reply.bulk("spec"), Reply.map(Reply.bulk("index"), Reply.integer(spec.firstKey()))),
                Reply.bulk("find_keys"), Reply.map(Reply.bulk("type"), Reply.bulk("range"),
                        Reply.bulk("spec"), Reply.map(Reply.bulk("lastkey"), Reply.integer(last),
                                Reply.bulk("keystep"), Reply.integer(spec.keyStep()),
                                Reply.bulk("limit"), Reply.integer(0))));
    }

    /** Key flags as COMMAND INFO and COMMAND GETKEYSANDFLAGS reply them: a set of simple strings. */
    private static Reply keyFlags(List<String> flags) {
        Reply[] out = new Reply[flags.size()];
        for (int i = 0; i < out.length; i++) out[i] = Reply.simple(flags.get(i));
        return new Reply.SetReply(out);
    }

    private static Reply commandDocs(CommandTable table, byte[][] argv) {
        List<Reply> out = new ArrayList<>();
        if (argv.length == 2) {
            for (CommandSpec spec : table.all()) {
                out.add(Reply.bulk(spec.fullName()));
                out.add(docs(spec));
            }
        } else {
            for (int i = 2; i < argv.length; i++) {
                CommandSpec spec = find(table, Args.text(argv[i]));
                if (spec == null) continue;
                out.add(Reply.bulk(spec.fullName()));
                out.add(docs(spec));
            }
        }
        return Reply.map(out);
    }

    private static Reply docs(CommandSpec spec) {
        List<Reply> m = new ArrayList<>();
        m.add(Reply.bulk("summary"));
        m.add(Reply.bulk(spec.summary()));
        m.add(Reply.bulk("since"));
        m.add(Reply.bulk(spec.since()));
        m.add(Reply.bulk("group"));
        m.add(Reply.bulk(spec.group()));
        if (spec.isContainer()) {
            List<Reply> subs = new ArrayList<>();
            for (CommandSpec s : spec.subcommands().values()) {
                subs.add(Reply.bulk(s.fullName()));
                subs.add(docs(s));
            }
            m.add(Reply.bulk("subcommands"));
            m.add(Reply.map(subs));
        }
        return Reply.map(m);
    }

    private static Reply commandList(CommandTable table, byte[][] argv) {
        String kind = null;
        String value = null;
        if (argv.length == 5 && Args.is(argv[2], "filterby")) {
            kind = Args.lower(argv[3]);
            value = Args.text(argv[4]);
            if (!kind.equals("module") && !kind.equals("aclcat") && !kind.equals("pattern")) throw Errors.syntax();
        } else if (argv.length != 2) {
            throw Errors.syntax();
        }
        List<Reply> out = new ArrayList<>();
        if ("module".equals(kind)) return Reply.array(out); // no modules
        for (CommandSpec spec : table.all()) {
            listIfMatching(spec, kind, value, out);
            for (CommandSpec sub : spec.subcommands().values()) listIfMatching(sub, kind, value, out);
        }
        return Reply.array(out);
    }

    private static void listIfMatching(CommandSpec spec, String kind, String value, List<Reply> out) {
        boolean match = kind == null
                || (kind.equals("aclcat") && spec.aclCategories().contains("@" + value.toLowerCase(Locale.ROOT)))
                || (kind.equals("pattern") && Glob.matches(value, spec.fullName(), true));
        if (match) out.add(Reply.bulk(spec.fullName()));
    }

    /**
     * COMMAND GETKEYS and, {@code withFlags}, GETKEYSANDFLAGS (Redis's getKeysSubcommandImpl): a declared key spec
     * where it applies, else the command's getkeys function, else its key finder or legacy range. No keys is an empty array for a no_mandatory_keys command (EVAL with 0 keys), else an error.
     */
    static Reply commandGetKeys(CommandTable table, byte[][] argv, boolean withFlags) {
        byte[][] cmd = Arrays.copyOfRange(argv, 2, argv.length);
        CommandSpec spec = table.lookup(cmd[0]);
        if (spec != null && spec.isContainer()) spec = spec.subcommands().get(Args.lower(cmd[1]));
        if (spec == null) throw Errors.error(Errors.GETKEYS_INVALID_COMMAND);
        // Shard channels (SPUBLISH, SSUBSCRIBE) route like keys but are not keys (Redis's NOT_KEY flag).
        if (!spec.hasKeys() || spec.has(CommandSpec.PUBSUB)) throw Errors.error(Errors.GETKEYS_NO_KEYS);
        if (!spec.arityOk(cmd.length)) throw Errors.error(Errors.GETKEYS_BAD_ARITY);
        List<CommandSpec.KeyRef> keys = spec.keyRefs(cmd);
        if (keys.isEmpty()) {
            if (spec.has(CommandSpec.NO_MANDATORY_KEYS)) return Reply.EMPTY_ARRAY;
            throw Errors.error(Errors.GETKEYS_BAD_ARGUMENTS);
        }
        Reply[] out = new Reply[keys.size()];
        for (int i = 0; i < out.length; i++) {
            Reply key = Reply.bulk(keys.get(i).key());
            out[i] = withFlags ? Reply.array(key, keyFlags(keys.get(i).flags())) : key;
        }
        return Reply.array(out);
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        INFO,
        TIME,
        SHUTDOWN,
        SAVE,
        BGSAVE,
        BGREWRITEAOF,
        LASTSAVE,
        DEBUG,
        COMMAND_ALL,
        COMMAND_COUNT,
        COMMAND_INFO,
        COMMAND_DOCS,
        COMMAND_LIST,
        COMMAND_GETKEYS,
        COMMAND_GETKEYSANDFLAGS,
        COMMAND_HELP,
        ROLE,
        LOLWUT,
        MODULE_LIST,
        MODULE_HELP,
        MODULE_REFUSED,
        CONFIG_GET,
        CONFIG_SET,
        CONFIG_RESET_STAT,
        CONFIG_REWRITE,
        CONFIG_HELP;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case INFO -> info(ctx, argv);
                case TIME -> time(ctx, argv);
                case SHUTDOWN -> shutdown(ctx, argv);
                case SAVE -> save(ctx, argv);
                case BGSAVE -> bgsave(ctx, argv);
                case BGREWRITEAOF -> bgrewriteaof(ctx, argv);
                case LASTSAVE -> lastsave(ctx, argv);
                case DEBUG -> debug(ctx, argv);
                case COMMAND_ALL -> commandAll(ctx, argv);
                case COMMAND_COUNT -> Reply.integer(ctx.server().table().size());
                case COMMAND_INFO -> commandInfo(ctx.server().table(), argv);
                case COMMAND_DOCS -> commandDocs(ctx.server().table(), argv);
                case COMMAND_LIST -> commandList(ctx.server().table(), argv);
                case COMMAND_GETKEYS -> commandGetKeys(ctx.server().table(), argv, false);
                case COMMAND_GETKEYSANDFLAGS -> commandGetKeys(ctx.server().table(), argv, true);
                case COMMAND_HELP -> commandHelp(ctx, argv);
                case ROLE -> role(ctx, argv);
                case LOLWUT -> lolwut(ctx, argv);
                case MODULE_LIST -> Reply.EMPTY_ARRAY;
                case MODULE_HELP -> moduleHelp(ctx, argv);
                case MODULE_REFUSED -> moduleRefused(ctx, argv);
                case CONFIG_GET -> configGet(ctx, argv);
                case CONFIG_SET -> configSet(ctx, argv);
                case CONFIG_RESET_STAT -> configResetStat(ctx, argv);
                case CONFIG_REWRITE -> configRewrite(ctx, argv);
                case CONFIG_HELP -> configHelp(ctx, argv);
            };
        }
    }
}
