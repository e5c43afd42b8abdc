package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.command.MemoryGuard;
import io.tide.protocol.Reply;
import io.tide.shard.Shard;
import io.tide.store.Database;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;

/**
 * Stateless; each handler runs on the thread the dispatcher gives it (MEMORY USAGE on the key's shard, STATS and
 * DOCTOR on the coordinator with every shard parked). The MEMORY family: USAGE, STATS, DOCTOR, MALLOC-STATS, PURGE,
 * HELP, with Redis 7.0's replies.
 *
 * <p>Figures come from the incremental accounting ({@link Database#usedBytes()}, {@link io.tide.store.MemoryCost}),
 * {@link MemoryGuard} (used memory, peak, client buffers) and the JVM's memory beans; Redis's jemalloc figures
 * (allocator.*) map to the JVM's pools: allocated = used bytes of heap, non-heap and buffer pools, active = their
 * committed bytes. MEMORY USAGE is exact in O(1) (every value keeps its {@code memoryBytes} current), so SAMPLES is
 * checked as Redis checks it and does not change the figure.
 */
public final class MemoryCommands {

    private static final Reply HELP = Help.reply("MEMORY",
            "DOCTOR",
            "    Return memory problems reports.",
            "MALLOC-STATS",
            "    Return internal statistics report from the memory allocator.",
            "PURGE",
            "    Attempt to purge dirty pages for reclamation by the allocator.",
            "STATS",
            "    Return information about the memory usage of the server.",
            "USAGE <key> [SAMPLES <count>]",
            "    Return memory in bytes used by <key> and its value. Nested values are",
            "    sampled up to <count> times (default: 5, 0 means sample all).");

    private MemoryCommands() {}

    public static void register(CommandTable t) {
        t.group("server");
        var memory = t.container("memory", -2, "", "", "4.0.0", "A container for memory diagnostics commands");
        memory.sub("doctor", 2, "allshards", 0, 0, 0, "", "4.0.0", "Outputs memory problems report",
                Handler.DOCTOR);
        memory.sub("help", 2, "loading stale", 0, 0, 0, "", "4.0.0",
                "Show helpful text about the different subcommands", Handler.MEMORY_HELP);
        memory.sub("malloc-stats", 2, "", 0, 0, 0, "", "4.0.0", "Show allocator internal stats",
                Handler.MALLOC_STATS);
        memory.sub("purge", 2, "", 0, 0, 0, "", "4.0.0", "Ask the allocator to release memory",
                Handler.PURGE);
        memory.sub("stats", 2, "allshards", 0, 0, 0, "", "4.0.0", "Show memory usage details",
                Handler.STATS);
        memory.sub("usage", -3, "readonly", 2, 2, 1, "", "4.0.0", "Estimate the memory usage of a key",
                Handler.USAGE);
    }

    // ---------------------------------------------------------------- USAGE

    /**
     * The entry's bytes (key and value, or the embedded array) plus the key's share of its table's arrays (Redis adds
     * its dictEntry). Like Redis's, it finds the entry without an expiry check and without touching it.
     */
    static Reply usage(CommandContext ctx, byte[][] argv) {
        for (int j = 3; j < argv.length; j++) {
            if (Args.is(argv[j], "samples") && j + 1 < argv.length) {
                if (Args.parseLong(argv[j + 1]) < 0) throw Errors.syntax();
                j++;
            } else {
                throw Errors.syntax();
            }
        }
        byte[] key = argv[2];
        Database db = ctx.db(key);
        long entry = db.entryBytes(key);
        if (entry < 0) return Reply.NULL;
        long tables = db.tableBytes(false); // the expiry field, if any, is in the entry
        return Reply.integer(entry + Math.ceilDiv(tables, Math.max(1, db.size())));
    }

    // ---------------------------------------------------------------- STATS and DOCTOR

    /** One database index's figures summed over the shards (Redis's per-db overhead entry). */
    record DbOverhead(int db, long keys, long main, long expires) {}

    /** The JVM's side of memory: what the pools use and have committed, and the process's RSS (-1 if unknown). */
    record JvmMemory(long allocated, long active, long resident, long rss) {
        /** Looked up once: the lookup (the platform's MBean registry) cost more than the figures it gives. */
        private static final java.lang.management.MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
        private static final List<BufferPoolMXBean> BUFFER_POOLS =
                ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class);

        static JvmMemory now() {
            MemoryUsage heap = MEMORY.getHeapMemoryUsage();
            MemoryUsage nonHeap = MEMORY.getNonHeapMemoryUsage();
            long buffers = 0;
            for (BufferPoolMXBean b : BUFFER_POOLS) {
                buffers += Math.max(0, b.getMemoryUsed());
            }
            long netty = Math.max(0, io.netty.util.internal.PlatformDependent.usedDirectMemory());
            long allocated = heap.getUsed() + nonHeap.getUsed() + buffers + netty;
            long active = heap.getCommitted() + nonHeap.getCommitted() + buffers + netty;
            // The JVM reports no residency per pool: its committed bytes stand for jemalloc's resident ones.
            long rss = io.tide.util.ProcSelf.rssBytes();
            return new JvmMemory(allocated, active, active, rss);
        }
    }

    /**
     * Redis's redisMemOverhead, from Tide's state. {@code total} is used memory as INFO and maxmemory count it
     * (every database plus the clients' buffers); {@code dataset} is the keys and values alone, and the overhead is
     * the rest: the tables as they were at startup, the clients' buffers and the tables' growth (the db.N figures
     * are each database's whole table arrays, so like Redis's they overlap startup.allocated by the empty tables).
     * Replication, replica clients and cluster links do not exist in Tide: 0, Redis's value when there are none.
     * lua.caches and functions.caches are the script cache's and libraries' estimates (INFO's
     * used_memory_scripts_eval and used_memory_functions) and aof.buffer the AOF writers' buffers: real figures, but
     * outside Tide's used memory, so not in overhead.total.
     */
    record Overhead(long peak, long total, long startup, long clientsNormal, long aofBuffer, long luaCaches,
                    long functionsCaches, List<DbOverhead> dbs, long overheadTotal, long keys, long bytesPerKey,
                    long dataset, float datasetPerc, float peakPerc, JvmMemory jvm) {

        static Overhead of(CommandContext ctx) {
            MemoryGuard memory = ctx.server().memory();
            long clients = memory.clientBufferBytes();
            Shard[] shards = ctx.shards().all();
            int databases = shards[0].databases();
            List<DbOverhead> dbs = new ArrayList<>();
            long keys = 0;
            long tablesAll = 0;
            long datasetAll = 0;
            for (int d = 0; d < databases; d++) {
                long n = 0;
                long main = 0;
                long expires = 0;
                for (Shard s : shards) {
                    Database db = s.db(d);
                    n += db.size();
                    main += db.tableBytes(false);
                    expires += db.tableBytes(true);
                    datasetAll += db.usedBytes() - db.tableBytes(false) - db.tableBytes(true);
                }
                tablesAll += main + expires;
                keys += n;
                if (n > 0) dbs.add(new DbOverhead(d, n, main, expires));
            }
            long total = datasetAll + tablesAll + clients;
            long peak = memory.peak(total);
            long startup = ctx.server().startupMemory();
            long net = total > startup ? total - startup : 1;
            io.tide.script.Scripting scripting = ctx.server().scripting();
            return new Overhead(peak, total, startup, clients, ctx.server().appendOnly().bufferBytes(),
                    scripting.cachedOverheadBytes(), scripting.functions().overheadBytes(), dbs, total - datasetAll,
                    keys, keys == 0 ? 0 : net / keys, datasetAll, (float) datasetAll * 100 / net,
                    (float) total * 100 / peak, JvmMemory.now());
        }
    }

    static Reply stats(CommandContext ctx, byte[][] argv) {
        Overhead o = Overhead.of(ctx);
        JvmMemory j = o.jvm();
        List<Reply> m = new ArrayList<>();
        put(m, "peak.allocated", o.peak());
        put(m, "total.allocated", o.total());
        put(m, "startup.allocated", o.startup());
        put(m, "replication.backlog", 0); // no replication
        put(m, "clients.slaves", 0); // no replicas
        put(m, "clients.normal", o.clientsNormal());
        put(m, "cluster.links", 0); // no cluster bus
        put(m, "aof.buffer", o.aofBuffer());
        put(m, "lua.caches", o.luaCaches());
        put(m, "functions.caches", o.functionsCaches());
        for (DbOverhead d : o.dbs()) {
            m.add(Reply.bulk("db." + d.db()));
            m.add(Reply.map(Reply.bulk("overhead.hashtable.main"), Reply.integer(d.main()),
                    Reply.bulk("overhead.hashtable.expires"), Reply.integer(d.expires()),
                    // Tide keeps no slot-to-keys index (Redis only has one in cluster mode).
                    Reply.bulk("overhead.hashtable.slot-to-keys"), Reply.integer(0)));
        }
        put(m, "overhead.total", o.overheadTotal());
        put(m, "keys.count", o.keys());
        put(m, "keys.bytes-per-key", o.bytesPerKey());
        put(m, "dataset.bytes", o.dataset());
        putDouble(m, "dataset.percentage", o.datasetPerc());
        putDouble(m, "peak.percentage", o.peakPerc());
        put(m, "allocator.allocated", j.allocated());
        put(m, "allocator.active", j.active());
        put(m, "allocator.resident", j.resident());
        putDouble(m, "allocator-fragmentation.ratio", (float) j.active() / j.allocated());
        put(m, "allocator-fragmentation.bytes", j.active() - j.allocated());
        putDouble(m, "allocator-rss.ratio", (float) j.resident() / j.active());
        put(m, "allocator-rss.bytes", j.resident() - j.active());
        long rss = Math.max(0, j.rss());
        putDouble(m, "rss-overhead.ratio", (float) rss / j.resident());
        put(m, "rss-overhead.bytes", rss - j.resident());
        putDouble(m, "fragmentation", (float) rss / o.total());
        put(m, "fragmentation.bytes", rss - o.total());
        return Reply.map(m);
    }

    private static void put(List<Reply> m, String name, long value) {
        m.add(Reply.bulk(name));
        m.add(Reply.integer(value));
    }

    private static void putDouble(List<Reply> m, String name, float value) {
        m.add(Reply.bulk(name));
        m.add(new Reply.Double(value));
    }

    /** Redis's getMemoryDoctorReport: the same tests and thresholds, over the figures MEMORY STATS reports. */
    static Reply doctor(CommandContext ctx, byte[][] argv) {
        return ClientCommands.text(doctorReport(Overhead.of(ctx), ctx.server().clients().size(),
                ctx.server().scripting().size(), allocatorName()));
    }

    static String doctorReport(Overhead o, int clients, int scripts, String allocator) {
        JvmMemory j = o.jvm();
        boolean empty = false;
        boolean bigPeak = false;
        boolean highFrag = false;
        boolean highAllocFrag = false;
        boolean highAllocRss = false;
        boolean highProcRss = false;
        boolean bigClientBuf = false;
        boolean manyScripts = false;
        int reports = 0;
        long rss = Math.max(0, j.rss());
        if (o.total() < 5L * 1024 * 1024) {
            empty = true;
            reports++;
        } else {
            if ((float) o.peak() / o.total() > 1.5) { bigPeak = true; reports++; }
            if ((float) rss / o.total() > 1.4 && rss - o.total() > 10 << 20) { highFrag = true; reports++; }
            if ((float) j.active() / j.allocated() > 1.1 && j.active() - j.allocated() > 10 << 20) {
                highAllocFrag = true;
                reports++;
            }
            if ((float) j.resident() / j.active() > 1.1 && j.resident() - j.active() > 10 << 20) {
                highAllocRss = true;
                reports++;
            }
            if ((float) rss / j.resident() > 1.1 && rss - j.resident() > 10 << 20) { highProcRss = true; reports++; }
            if (o.clientsNormal() / Math.max(1, clients) > 1024 * 200) { bigClientBuf = true; reports++; }
            // No replicas: Redis's "big replica buffers" test never fires.
            if (scripts > 1000) { manyScripts = true; reports++; }
        }
        if (reports == 0) {
            return "Hi Sam, I can't find any memory issue in your instance. "
                    + "I can only account for what occurs on this base.\n";
        }
        if (empty) {
            return "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in "
                    + "these conditions. Please, leave for your mission on Earth and fill it with some data. The new "
                    + "Sam and I will be back to our programming as soon as I finished rebooting.\n";
        }
        StringBuilder s = new StringBuilder("Sam, I detected a few issues in this Redis instance memory implants:\n\n");
        if (bigPeak) {
            s.append(" * Peak memory: In the past this instance used more than 150% the memory that is currently "
                    + "using. The allocator is normally not able to release memory after a peak, so you can expect to "
                    + "see a big fragmentation ratio, however this is actually harmless and is only due to the memory "
                    + "peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the "
                    + "memory will be used as soon as you fill the Redis instance with more data. If the memory peak "
                    + "was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE "
                    + "command, otherwise the only other option is to shutdown and restart the instance.\n\n");
        }
        if (highFrag) {
            s.append(" * High total RSS: This instance has a memory fragmentation and RSS overhead greater than 1.4 "
                    + "(this means that the Resident Set Size of the Redis process is much larger than the sum of the "
                    + "logical allocations Redis performed). This problem is usually due either to a large peak "
                    + "memory (check if there is a peak memory entry above in the report) or may result from a "
                    + "workload that causes the allocator to fragment memory a lot. If the problem is a large peak "
                    + "memory, then there is no issue. Otherwise, make sure you are using the Jemalloc allocator and "
                    + "not the default libc malloc. Note: The currently used allocator is \"")
                    .append(allocator).append("\".\n\n");
        }
        if (highAllocFrag) {
            s.append(" * High allocator fragmentation: This instance has an allocator external fragmentation greater "
                    + "than 1.1. This problem is usually due either to a large peak memory (check if there is a peak "
                    + "memory entry above in the report) or may result from a workload that causes the allocator to "
                    + "fragment memory a lot. You can try enabling 'activedefrag' config option.\n\n");
        }
        if (highAllocRss) {
            s.append(" * High allocator RSS overhead: This instance has an RSS memory overhead is greater than 1.1 "
                    + "(this means that the Resident Set Size of the allocator is much larger than the sum what the "
                    + "allocator actually holds). This problem is usually due to a large peak memory (check if there "
                    + "is a peak memory entry above in the report), you can try the MEMORY PURGE command to reclaim "
                    + "it.\n\n");
        }
        if (highProcRss) {
            s.append(" * High process RSS overhead: This instance has non-allocator RSS memory overhead is greater "
                    + "than 1.1 (this means that the Resident Set Size of the Redis process is much larger than the "
                    + "RSS the allocator holds). This problem may be due to Lua scripts or Modules.\n\n");
        }
        if (bigClientBuf) {
            s.append(" * Big client buffers: The clients output buffers in this instance are greater than 200K per "
                    + "client (on average). This may result from different causes, like Pub/Sub clients subscribed "
                    + "to channels bot not receiving data fast enough, so that data piles on the Redis instance "
                    + "output buffer, or clients sending commands with large replies or very large sequences of "
                    + "commands in the same pipeline. Please use the CLIENT LIST command in order to investigate the "
                    + "issue if it causes problems in your instance, or to understand better why certain clients are "
                    + "using a big amount of memory.\n\n");
        }
        if (manyScripts) {
            s.append(" * Many scripts: There seem to be many cached scripts in this instance (more than 1000). This "
                    + "may be because scripts are generated and `EVAL`ed, instead of being parameterized (with KEYS "
                    + "and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT FLUSH` is called periodically, the "
                    + "scripts' caches may end up consuming most of your memory.\n\n");
        }
        s.append("I'm here to keep you safe, Sam. I want to help you.\n");
        return s.toString();
    }

    /** INFO's mem_allocator: "jvm" and the collectors. */
    static String allocatorName() {
        return "jvm " + String.join(" + ", io.tide.util.ProcSelf.collectors());
    }

    // ---------------------------------------------------------------- MALLOC-STATS and PURGE

    /**
     * The JVM is Tide's allocator, and it has real statistics: a text of its memory pools, buffer pools and
     * collectors, as Redis built with jemalloc answers with jemalloc's text (verbatim "txt" in RESP3).
     */
    static Reply mallocStats(CommandContext ctx, byte[][] argv) {
        StringBuilder s = new StringBuilder("___ Begin JVM memory statistics ___\n");
        s.append("Allocator: ").append(allocatorName()).append('\n');
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        MemoryUsage nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage();
        s.append("Heap: ").append(usage(heap)).append('\n');
        s.append("Non-heap: ").append(usage(nonHeap)).append('\n');
        s.append("Memory pools:\n");
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            s.append("  ").append(p.getName()).append(" (").append(p.getType() == java.lang.management.MemoryType.HEAP
                    ? "heap" : "non-heap").append("): ").append(usage(p.getUsage()));
            MemoryUsage peak = p.getPeakUsage();
            if (peak != null) s.append(", peak used ").append(peak.getUsed());
            s.append('\n');
        }
        s.append("Buffer pools:\n");
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            s.append("  ").append(b.getName()).append(": count ").append(b.getCount()).append(", used ")
                    .append(b.getMemoryUsed()).append(", capacity ").append(b.getTotalCapacity()).append('\n');
        }
        long netty = io.netty.util.internal.PlatformDependent.usedDirectMemory();
        if (netty >= 0) {
            s.append("  netty direct: used ").append(netty).append(", max ")
                    .append(io.netty.util.internal.PlatformDependent.maxDirectMemory()).append('\n');
        }
        s.append("Collectors:\n");
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            s.append("  ").append(gc.getName()).append(": collections ").append(gc.getCollectionCount())
                    .append(", time ").append(gc.getCollectionTime()).append(" ms\n");
        }
        s.append("___ End JVM memory statistics ___\n");
        return ClientCommands.text(s.toString());
    }

    private static String usage(MemoryUsage u) {
        return "used " + u.getUsed() + ", committed " + u.getCommitted() + ", max "
                + (u.getMax() < 0 ? "undefined" : Long.toString(u.getMax()));
    }

    /**
     * Asks the JVM to collect and give memory back: a full collection, after which G1 shrinks the heap to
     * MaxHeapFreeRatio (20% under the launcher's flags) and uncommits the rest. Stops the world while it runs, as
     * jemalloc's purge holds Redis's only thread; does nothing under -XX:+DisableExplicitGC.
     */
    static Reply purge(CommandContext ctx, byte[][] argv) {
        System.gc();
        return Reply.OK;
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        DOCTOR,
        MEMORY_HELP,
        MALLOC_STATS,
        PURGE,
        STATS,
        USAGE;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case DOCTOR -> doctor(ctx, argv);
                case MEMORY_HELP -> HELP;
                case MALLOC_STATS -> mallocStats(ctx, argv);
                case PURGE -> purge(ctx, argv);
                case STATS -> stats(ctx, argv);
                case USAGE -> usage(ctx, argv);
            };
        }
    }
}
