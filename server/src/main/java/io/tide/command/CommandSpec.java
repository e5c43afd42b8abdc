package io.tide.command;

import io.tide.protocol.Reply;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the dispatcher knows of one command or subcommand: name, arity, flags, key positions, ACL
 * categories, docs and its handler. Immutable after the table is built, so thread-safe; the per-shard
 * statistics it carries are each confined to their shard thread.
 */
public final class CommandSpec {

    // Flags, as Redis names them in COMMAND INFO.
    public static final int WRITE = 1;
    public static final int READONLY = 1 << 1;
    public static final int DENYOOM = 1 << 2;
    public static final int ADMIN = 1 << 3;
    public static final int PUBSUB = 1 << 4;
    public static final int NOSCRIPT = 1 << 5;
    public static final int BLOCKING = 1 << 6;
    public static final int LOADING = 1 << 7;
    public static final int STALE = 1 << 8;
    public static final int SKIP_MONITOR = 1 << 9;
    public static final int SKIP_SLOWLOG = 1 << 10;
    public static final int FAST = 1 << 11;
    public static final int NO_AUTH = 1 << 12;
    public static final int MAY_REPLICATE = 1 << 13;
    public static final int NO_MULTI = 1 << 14;
    public static final int ALLOW_BUSY = 1 << 15;
    public static final int NO_MANDATORY_KEYS = 1 << 16;
    /** Refused while loading a replica's data asynchronously; Tide never loads that way, so only COMMAND INFO shows it. */
    public static final int NO_ASYNC_LOADING = 1 << 17;
    /** Tide's own: the command reads or writes every shard's keyspace (KEYS, DBSIZE, FLUSHALL, ...). */
    public static final int ALL_SHARDS = 1 << 24;

    /** Redis's ACL categories in the order of its category table (acl.c). */
    public static final List<String> CATEGORY_ORDER = List.of("@keyspace", "@read", "@write", "@set", "@sortedset",
            "@list", "@hash", "@string", "@bitmap", "@hyperloglog", "@geo", "@stream", "@pubsub", "@admin", "@fast",
            "@slow", "@blocking", "@dangerous", "@connection", "@transaction", "@scripting");

    private static final String[] FLAG_NAMES = {
        "write", "readonly", "denyoom", "admin", "pubsub", "noscript", "blocking", "loading", "stale",
        "skip_monitor", "skip_slowlog", "fast", "no_auth", "may_replicate", "no_multi", "allow_busy",
        "no_mandatory_keys", "no_async_loading"
    };

    private final String name;
    private final String fullName;
    /** Redis's key-spec flags per key ({@link KeyFlags}), or null for the legacy RO/RW ones. */
    private final List<List<String>> keyFlags;
    private final int arity;
    private final int flags;
    private final int firstKey;
    private final int lastKey;
    private final int keyStep;
    private final List<String> aclCategories;
    private final String group;
    private final String since;
    private final String summary;
    private final CommandHandler handler;
    private final Map<String, CommandSpec> subcommands = new LinkedHashMap<>();
    private final CommandSpec parent;
    private CommandStats[] stats = new CommandStats[0];
    private KeyFinder keyFinder;
    private KeySpec keySpec;
    private GetKeys getKeys;

    /**
     * Finds the keys of a command whose key positions depend on its arguments (Redis's "movablekeys":
     * LMPOP's numkeys, ZUNIONSTORE, XREAD's STREAMS, SORT's BY/GET). Returns the key arguments; an empty
     * array when the arguments are malformed (the command then runs on the client's shard and its handler
     * replies with the error); {@link #ALL_KEYS} when it may touch any key (SORT ... BY pattern).
     */
    @FunctionalInterface
    public interface KeyFinder {
        byte[][] keys(byte[][] argv);
    }

    /** A {@link KeyFinder}'s answer for a command that may touch keys anywhere: it runs with every shard parked. */
    public static final byte[][] ALL_KEYS = new byte[0][];

    CommandSpec(CommandSpec parent, String name, int arity, String flagWords, int firstKey, int lastKey, int keyStep,
                String categories, String group, String since, String summary, CommandHandler handler) {
        this.parent = parent;
        this.name = name.toLowerCase(Locale.ROOT);
        this.fullName = parent == null ? this.name : parent.name + "|" + this.name;
        this.keyFlags = KeyFlags.of(fullName);
        this.arity = arity;
        this.flags = parseFlags(flagWords);
        this.firstKey = firstKey;
        this.lastKey = lastKey;
        this.keyStep = keyStep;
        this.aclCategories = categories(flags, categories);
        this.group = group;
        this.since = since;
        this.summary = summary;
        this.handler = handler;
    }

    static int parseFlags(String words) {
        int f = 0;
        if (words == null || words.isBlank()) {
            return 0;
        }
        outer:
        for (String w : words.trim().split("\\s+")) {
            if (w.equals("allshards")) {
                f |= ALL_SHARDS;
                continue;
            }
            for (int i = 0; i < FLAG_NAMES.length; i++) {
                if (FLAG_NAMES[i].equals(w)) {
                    f |= 1 << i;
                    continue outer;
                }
            }
            throw new IllegalArgumentException("unknown command flag " + w);
        }
        return f;
    }

    private static List<String> categories(int flags, String explicit) {
        List<String> out = new ArrayList<>();
        if ((flags & WRITE) != 0) out.add("@write");
        // As Redis's setImplicitACLCategories: read-only scripting commands (EVAL_RO, FCALL_RO) are not @read.
        boolean scripting = explicit != null && List.of(explicit.trim().split("\\s+")).contains("@scripting");
        if ((flags & READONLY) != 0 && !scripting) out.add("@read");
        if ((flags & ADMIN) != 0) {
            out.add("@admin");
            out.add("@dangerous");
        }
        if ((flags & PUBSUB) != 0) out.add("@pubsub");
        if ((flags & FAST) != 0) out.add("@fast");
        else out.add("@slow");
        if ((flags & BLOCKING) != 0) out.add("@blocking");
        if (explicit != null && !explicit.isBlank()) {
            for (String c : explicit.trim().split("\\s+")) {
                if (!out.contains(c)) out.add(c);
            }
        }
        // COMMAND INFO lists them in the order of Redis's ACL category table.
        out.sort(java.util.Comparator.comparingInt(c -> {
            int i = CATEGORY_ORDER.indexOf(c);
            return i < 0 ? Integer.MAX_VALUE : i;
        }));
        return List.copyOf(out);
    }

    /**
     * Gives the command a {@link KeyFinder}: the dispatcher routes by the keys it finds, COMMAND GETKEYS
     * lists them, and COMMAND INFO shows the {@code movablekeys} flag. The legacy positions passed to
     * {@code add} stay what COMMAND INFO reports (Redis's are 0 or the fixed prefix for such commands).
     */
    public CommandSpec keysBy(KeyFinder finder) {
        this.keyFinder = finder;
        return this;
    }

    public KeyFinder keyFinder() { return keyFinder; }

    /** False where the key finder only steers routing and Redis's key positions are fixed (SSUBSCRIBE's channels). */
    private boolean movableKeys = true;

    /**
     * Routes by {@code finder} while COMMAND INFO keeps the fixed positions given to {@code add}, without the
     * {@code movablekeys} flag, as Redis shows the command.
     */
    public CommandSpec routedBy(KeyFinder finder) {
        this.keyFinder = finder;
        this.movableKeys = false;
        return this;
    }

    private Gather gather;

    /**
     * A read of an ALL_SHARDS command that needs no single instant across shards (DBSIZE, KEYS, SCAN, INFO): instead of
     * parking every shard on the coordinator, the dispatcher visits the shards on their own threads, each running
     * {@link #part} for its own data, and answers from the parts once the walk ends. Shards are visited one after
     * another, from {@link #first} on by {@link #next}; a part says whether to go on.
     */
    public interface Gather {
        /**
         * On the client's home shard, before anything runs ({@code ctx} runs there, for the client, database, clock
         * and server only): checks the arguments (throwing the command's errors) and returns what the parts need;
         * {@link #first} reads where the walk starts from it.
         */
        Object begin(CommandContext ctx, byte[][] argv);

        /** The shard the walk starts on (0 for all of them in order). */
        default int first(Object plan, int shards) { return 0; }

        /** The shard to visit after {@code shard} when its part asked to go on, or -1: by default the next one up. */
        default int next(Object plan, int shard, int shards) { return shard + 1 < shards ? shard + 1 : -1; }

        /**
         * On the visited shard's thread, with {@code ctx} running there alone: that shard's part. Returns true to go
         * on to the {@link #next} shard (when there is one), false when the walk is complete.
         */
        boolean part(CommandContext ctx, Object plan, int shard, int shards);

        /** On the home shard once the walk ended: the reply. */
        Reply reply(Object plan);

        /**
         * The whole walk on this thread, for a context that holds every shard's data (the coordinator, with the shards
         * parked, in MULTI and scripts; the only shard of a one-shard server): the command's handler there.
         */
        default Reply walkHere(CommandContext ctx, byte[][] argv) {
            Object plan = begin(ctx, argv);
            int n = ctx.shards().size();
            for (int s = first(plan, n); s >= 0 && part(ctx, plan, s, n); s = next(plan, s, n)) { }
            return reply(plan);
        }
    }

    /** Lets the dispatcher gather this ALL_SHARDS read shard by shard without parking them ({@link Gather}). */
    public CommandSpec gatherBy(Gather g) {
        this.gather = g;
        return this;
    }

    public Gather gather() { return gather; }

    /** A key argument and its key-spec flags, as COMMAND GETKEYSANDFLAGS lists them. */
    public record KeyRef(byte[] key, List<String> flags) {}

    /** Redis's getkeys function of a command: its keys with their flags (none when the arguments are malformed). */
    @FunctionalInterface
    public interface GetKeys {
        List<KeyRef> keys(byte[][] argv);
    }

    /**
     * Declares the command's Redis key spec: COMMAND INFO shows it and COMMAND GETKEYS / GETKEYSANDFLAGS apply it,
     * falling back, where it does not apply, to {@code getKeys} (Redis's getkeys function). Without a declared spec
     * those commands use {@link #getKeysBy} or else the key finder or the legacy range.
     */
    public CommandSpec keySpec(KeySpec spec, GetKeys getKeys) {
        this.keySpec = spec;
        this.getKeys = getKeys;
        return this;
    }

    /**
     * Gives COMMAND GETKEYS / GETKEYSANDFLAGS Redis's getkeys function for a command whose key specs are incomplete
     * (SORT's STORE): used instead of the routing key finder, which may answer "all keys".
     */
    public CommandSpec getKeysBy(GetKeys getKeys) {
        this.getKeys = getKeys;
        return this;
    }

    /** The declared key spec, or null. */
    public KeySpec keySpec() { return keySpec; }

    /** Redis's getkeys function for COMMAND GETKEYS, or null. */
    public GetKeys getKeys() { return getKeys; }

    /** Adds a subcommand to this container command. */
    public CommandSpec sub(String subName, int subArity, String flagWords, int first, int last, int step,
                           String categories, String subSince, String subSummary, CommandHandler subHandler) {
        CommandSpec s = new CommandSpec(this, subName, subArity, flagWords, first, last, step, categories, group,
                subSince, subSummary, subHandler);
        subcommands.put(s.name, s);
        return s;
    }

    /** One set of statistics per shard thread, and one (index {@code shards}) for the coordinator thread. */
    void allocateStats(int shards) {
        stats = new CommandStats[shards + 1];
        for (int i = 0; i <= shards; i++) stats[i] = new CommandStats();
        for (CommandSpec s : subcommands.values()) s.allocateStats(shards);
    }

    public String name() { return name; }
    public String fullName() { return fullName; }
    public int arity() { return arity; }
    public int flags() { return flags; }
    public boolean has(int flag) { return (flags & flag) != 0; }
    public int firstKey() { return firstKey; }
    public int lastKey() { return lastKey; }
    public int keyStep() { return keyStep; }
    public List<String> aclCategories() { return aclCategories; }
    public String group() { return group; }
    public String since() { return since; }
    public String summary() { return summary; }
    public CommandHandler handler() { return handler; }
    public CommandSpec parent() { return parent; }
    public Map<String, CommandSpec> subcommands() { return subcommands; }
    public boolean isContainer() { return !subcommands.isEmpty(); }
    public CommandStats stats(int shard) { return stats[shard]; }
    public CommandStats[] allStats() { return stats; }

    /** COMMAND INFO's flag order (Redis's addReplyCommandFlags); may_replicate is hidden there, as in Redis. */
    private static final int[] INFO_ORDER = {
        WRITE, READONLY, DENYOOM, ADMIN, PUBSUB, NOSCRIPT, BLOCKING, LOADING, STALE, SKIP_MONITOR, SKIP_SLOWLOG, FAST,
        NO_AUTH, NO_MANDATORY_KEYS, NO_ASYNC_LOADING, NO_MULTI, -1, ALLOW_BUSY
    };

    /** Flag names for COMMAND INFO, in Redis's order; {@code -1} above stands for movablekeys. */
    public List<String> flagNames() {
        List<String> out = new ArrayList<>();
        for (int bit : INFO_ORDER) {
            if (bit == -1) {
                if (keyFinder != null && movableKeys) out.add("movablekeys");
            } else if ((flags & bit) != 0) {
                out.add(FLAG_NAMES[Integer.numberOfTrailingZeros(bit)]);
            }
        }
        return out;
    }

    public boolean arityOk(int argc) {
        return arity >= 0 ? argc == arity : argc >= -arity;
    }

    /** The key flags COMMAND INFO shows for a command without a declared key spec: RO access for reads, else RW. */
    public List<String> legacyKeyFlags() {
        return has(READONLY) ? RO_ACCESS : RW;
    }

    /**
     * The flags COMMAND INFO gives the one key spec Tide describes from the legacy range: Redis's own where the
     * command has a single key spec in {@link KeyFlags}, else {@link #legacyKeyFlags()}.
     */
    public List<String> infoKeyFlags() {
        return keyFlags != null && keyFlags.size() == 1 ? keyFlags.get(0) : legacyKeyFlags();
    }

    private static final List<String> RO_ACCESS = List.of("RO", "access");
    private static final List<String> RW = List.of("RW");

    /**
     * The keys of {@code argv} (the whole command, name first) with their flags, as COMMAND GETKEYSANDFLAGS gives them
     * and the ACL checks them: a declared key spec where it applies, else the command's getkeys function, else its key
     * finder or legacy range.
     */
    public List<KeyRef> keyRefs(byte[][] argv) {
        int[] positions = keySpec == null ? null : keySpec.positions(argv);
        if (positions != null) {
            List<KeyRef> out = new java.util.ArrayList<>(positions.length);
            for (int p : positions) out.add(new KeyRef(argv[p], keySpec.flags()));
            return out;
        }
        if (getKeys != null) return getKeys.keys(argv);
        List<KeyRef> out = new java.util.ArrayList<>();
        for (byte[] k : keys(argv)) {
            List<String> flags = keyFlags == null ? legacyKeyFlags()
                    : keyFlags.get(Math.min(out.size(), keyFlags.size() - 1));
            out.add(new KeyRef(k, flags));
        }
        return out;
    }

    /** EVAL, EVALSHA, FCALL and their read-only forms: a script, whose keys are the ones its calls touch. */
    public boolean isScript() {
        return switch (name) {
            case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro" -> true;
            default -> false;
        };
    }

    /** True if the command names keys in its arguments. */
    public boolean hasKeys() {
        return firstKey > 0 || keyFinder != null;
    }

    /** Index of the last key argument for this argv (negative lastKey counts from the end). */
    public int lastKeyIndex(int argc) {
        return lastKey >= 0 ? lastKey : argc + lastKey;
    }

    /** The key arguments of an argv, in order. */
    public List<byte[]> keys(byte[][] argv) {
        List<byte[]> out = new ArrayList<>();
        if (keyFinder != null) {
            byte[][] found = keyFinder.keys(argv);
            if (found != ALL_KEYS) out.addAll(Arrays.asList(found));
            return out;
        }
        if (firstKey <= 0) return out;
        int last = Math.min(lastKeyIndex(argv.length), argv.length - 1);
        for (int i = firstKey; i <= last; i += keyStep) out.add(argv[i]);
        return out;
    }

    /**
     * Per-thread call statistics (INFO commandstats, latencystats, LATENCY HISTOGRAM). Confined to its shard thread
     * (or the coordinator's); read while that thread is parked.
     */
    public static final class CommandStats {
        public long calls;
        public long micros;
        public long rejectedCalls;
        public long failedCalls;
        /** Latency histogram, created on the first call recorded with latency-tracking on (null until then). */
        public org.HdrHistogram.Histogram latency;

        /** A call that ran for {@code micros}: counts it and, when {@code track}, records it in the histogram. */
        public void call(long micros, boolean failed, boolean track) {
            calls++;
            this.micros += micros;
            if (failed) failedCalls++;
            if (track) {
                if (latency == null) latency = io.tide.metrics.LatencyHistograms.create();
                io.tide.metrics.LatencyHistograms.record(latency, micros);
            }
        }

        public void reset() {
            calls = 0;
            micros = 0;
            rejectedCalls = 0;
            failedCalls = 0;
            latency = null;
        }
    }
}
