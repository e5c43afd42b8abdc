package io.tide.metrics;

import java.util.List;
import java.util.Map;

/**
 * LATENCY DOCTOR: Redis 7.0's report on the latency monitor's events, with advice for the events Tide has.
 * Thread-safe (stateless).
 *
 * <p>The frame is Redis's, word for word (the texts for no monitoring, no spike, the greeting, one line of figures per
 * event: samples, average, mean deviation and period in whole milliseconds as Redis truncates them, the worst ever).
 * The advice follows Redis's where it holds for Tide (the slow log, hz, the fsync policy, mass eviction, the system's
 * intrinsic latency) and says what is true here elsewhere: removing a key is O(1) on its shard, however large the
 * value (memory is accounted incrementally and large values are dropped by the lazy freer), so Redis's advice about
 * deleting large objects becomes one about commands that walk every element; and Tide's own events,
 * {@code coordinator-park} and {@code gc-pause}, get theirs.
 */
public final class LatencyDoctor {

    /** The settings the advice depends on. */
    public record Settings(long thresholdMs, long slowlogSlowerThanMicros, int hz, boolean fsyncAlways) {}

    static final String DISABLED = "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis"
            + " instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it."
            + " If we weren't in a deep space mission I'd suggest to take a look at"
            + " https://redis.io/topics/latency-monitor.\n";
    static final String NO_SPIKE = "Dave, no latency spike was observed during the lifetime of this Redis instance,"
            + " not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think"
            + " things over.\n";
    private static final String GREETING = "Dave, I have observed latency spikes in this Redis instance. You don't"
            + " mind talking about it, do you Dave?\n\n";
    private static final String NO_FIX = "\nWhile there are latency events logged, I'm not able to suggest any easy"
            + " fix. Please use the Redis community to get some help, providing this report in your help request.\n";

    /** The advice, in the order the report gives it. */
    private enum Advice {
        SLOWLOG_ENABLE, SLOWLOG_TUNING, SLOWLOG_INSPECT, SCHEDULER, LOCAL_DISK, SSD, DATA_WRITEBACK, DISK_CONTENTION,
        RELAX_FSYNC, HZ, SPREAD_EXPIRES, WHOLE_OBJECTS, MASS_EVICTION, COORDINATOR_PARK, GC_PAUSE
    }

    private LatencyDoctor() {}

    /** The report on {@code events} (in the order they first happened) as of unix second {@code now}. */
    public static String report(Map<String, LatencyMonitor.Series> events, Settings settings, long now) {
        if (events.isEmpty() && settings.thresholdMs() == 0) return DISABLED;
        StringBuilder out = new StringBuilder();
        boolean[] advise = new boolean[Advice.values().length];
        int advices = 0;
        int eventNum = 0;
        for (Map.Entry<String, LatencyMonitor.Series> e : events.entrySet()) {
            String event = e.getKey();
            eventNum++;
            if (eventNum == 1) out.append(GREETING);
            out.append(eventNum).append(". ").append(event).append(": ").append(figures(e.getValue(), now));
            switch (event) {
                case "command" -> {
                    if (settings.slowlogSlowerThanMicros() < 0) {
                        advise[Advice.SLOWLOG_ENABLE.ordinal()] = true;
                        advices++;
                    } else if (settings.slowlogSlowerThanMicros() / 1000 > settings.thresholdMs()) {
                        advise[Advice.SLOWLOG_TUNING.ordinal()] = true;
                        advices++;
                    }
                    advise[Advice.SLOWLOG_INSPECT.ordinal()] = true;
                    advise[Advice.WHOLE_OBJECTS.ordinal()] = true;
                    advices += 2;
                }
                case "fast-command" -> advices += set(advise, Advice.SCHEDULER);
                case "aof-write" -> advices += set(advise, Advice.LOCAL_DISK, Advice.DISK_CONTENTION, Advice.SSD,
                        Advice.DATA_WRITEBACK);
                case "aof-fsync-always" -> advices += set(advise, Advice.RELAX_FSYNC);
                case "expire-cycle" -> advices += set(advise, Advice.HZ, Advice.SPREAD_EXPIRES);
                case "eviction-cycle" -> advices += set(advise, Advice.MASS_EVICTION);
                case "coordinator-park" -> advices += set(advise, Advice.COORDINATOR_PARK);
                case "gc-pause" -> advices += set(advise, Advice.GC_PAUSE);
                default -> { }
            }
            out.append('\n');
        }
        if (eventNum == 0 && advices == 0) {
            out.append(NO_SPIKE);
        } else if (advices == 0) {
            out.append(NO_FIX);
        } else {
            out.append("\nI have a few advices for you:\n\n");
            for (Advice a : Advice.values()) {
                if (advise[a.ordinal()]) out.append(text(a, settings));
            }
        }
        return out.toString();
    }

    private static int set(boolean[] advise, Advice... which) {
        for (Advice a : which) advise[a.ordinal()] = true;
        return which.length;
    }

    /**
     * Redis's analyzeLatencyForEvent: the samples kept, their average and mean absolute deviation (integer
     * divisions), the seconds since the oldest (at least 1) per sample, and the worst ever.
     */
    static String figures(LatencyMonitor.Series series, long now) {
        List<long[]> samples = series.samples();
        int n = samples.size();
        long sum = 0;
        long oldest = 0;
        for (long[] s : samples) {
            sum += s[1];
            if (oldest == 0 || s[0] < oldest) oldest = s[0];
        }
        long avg = 0;
        long period = 0;
        long mad = 0;
        if (n > 0) {
            avg = sum / n;
            period = now - oldest;
            if (period == 0) period = 1;
            long deviation = 0;
            for (long[] s : samples) deviation += Math.abs(avg - s[1]);
            mad = deviation / n;
        }
        String perSample = n == 0 ? "-nan" : io.tide.script.NumberFormat.f((double) period / n, 2);
        return n + " latency spikes (average " + avg + "ms, mean deviation " + mad + "ms, period " + perSample
                + " sec). Worst all time event " + series.max() + "ms.";
    }

    private static String text(Advice a, Settings settings) {
        return switch (a) {
            case SLOWLOG_ENABLE -> "- There are latency issues with potentially slow commands you are using. Try to"
                    + " enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than "
                    + settings.thresholdMs() * 1000 + "'. If the Slow log is disabled Redis is not able to log slow"
                    + " commands execution for you.\n";
            case SLOWLOG_TUNING -> "- Your current Slow Log configuration only logs events that are slower than your"
                    + " configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than "
                    + settings.thresholdMs() * 1000 + "'.\n";
            case SLOWLOG_INSPECT -> "- Check your Slow Log to understand what are the commands you are running which"
                    + " are too slow to execute. Please check https://redis.io/commands/slowlog for more"
                    + " information.\n";
            case SCHEDULER -> "- The system is slow to execute Tide code paths not containing system calls. This"
                    + " usually means the system does not provide the server CPU time to run for long periods. You"
                    + " should try to:\n"
                    + "  1) Lower the system load.\n"
                    + "  2) Use a computer / VM just for Tide if you are running other software in the same system.\n"
                    + "  3) Check if you have a \"noisy neighbour\" problem.\n"
                    + "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your"
                    + " system.\n"
                    + "  5) Check the gc-pause event: a collection that stops the JVM delays every command running"
                    + " meanwhile.\n";
            case LOCAL_DISK -> "- It is strongly advised to use local disks for persistence, especially if you are"
                    + " using AOF. Remote disks provided by platform-as-a-service providers are known to be slow.\n";
            case SSD -> "- SSD disks are able to reduce write and fsync latency, and the time needed for snapshotting"
                    + " and AOF rewriting. With extremely high write load SSD disks can be a good option. However"
                    + " Tide should perform reasonably with high load using normal disks. Use this advice as a last"
                    + " resort.\n";
            case DATA_WRITEBACK -> "- Mounting ext3/4 filesystems with data=writeback can provide a performance boost"
                    + " compared to data=ordered, however this mode of operation provides less guarantees: after a"
                    + " hard crash the AOF file may end with a half-written command, which Tide cuts off when it loads"
                    + " the file (aof-load-truncated yes) or refuses to start on (no).\n";
            case DISK_CONTENTION -> "- Try to lower the disk contention. This is often caused by other disk intensive"
                    + " processes running in the same computer (including other Tide or Redis instances).\n";
            case RELAX_FSYNC -> settings.fsyncAlways()
                    ? "- Your fsync policy is set to 'always'. Every write waits for its fsync before the reply (one"
                            + " fsync per event-loop batch), so a slow disk delays the replies of every client of"
                            + " the shard. If possible try to relax the fsync policy to 'everysec'.\n"
                    : "";
            case HZ -> settings.hz() < 100 ? "- In order to make the Redis keys expiring process more incremental,"
                    + " try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n" : "";
            case SPREAD_EXPIRES -> "- Each shard's active expiry cycle may work up to a quarter of its 1/hz period"
                    + " while more than 10% of the keys it samples are expired, as Redis's does. Many keys expiring"
                    + " at the same moment keep it that busy: add some randomness to the TTLs you set so that the"
                    + " expiries spread out.\n";
            case WHOLE_OBJECTS -> "- Commands that walk every element of a large object (SMEMBERS, HGETALL, LRANGE"
                    + " 0 -1, ZRANGE 0 -1, SORT, unions and intersections of large sets) or every key (KEYS) run in"
                    + " one go on their shard and hold it for that time. Use SCAN, SSCAN, HSCAN, ZSCAN or ranges to"
                    + " read such objects in parts, or split them into multiple smaller objects. (Deleting, expiring"
                    + " or evicting a large object is not slow here: the key is removed at once and the value freed"
                    + " in the background.)\n";
            case MASS_EVICTION -> "- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of"
                    + " large objects via sets or sorted sets intersections, STORE option of SORT, or RESTORE of large"
                    + " keys, may create sudden memory pressure forcing the shards to block trying to evict keys.\n";
            case COORDINATOR_PARK -> "- Operations across shards park every shard they involve while they run:"
                    + " multi-key commands, transactions and scripts whose keys live on several shards, and commands"
                    + " that need every shard (FLUSHALL, SWAPDB, DEBUG, ...). The clients of those shards"
                    + " wait meanwhile. Keep the keys one operation touches on one shard with a hash tag ({user1}:a,"
                    + " {user1}:b), keep such transactions and scripts short, and prefer commands that need one"
                    + " shard, or run fewer shards (--shards).\n";
            case GC_PAUSE -> "- The JVM's garbage collector stopped the server for these pauses: every shard waits"
                    + " while it runs. The launcher (bin/tide-server) chooses the collector and heap flags (see"
                    + " docs/decisions/0003-jvm-flags.md): TIDE_GC replaces the collector flags, TIDE_JAVA_OPTS adds"
                    + " others, e.g. a larger -Xmx: a heap with little free room makes collections more frequent.\n";
        };
    }
}
