package io.tide.command;

import io.tide.acl.AclLog;
import io.tide.config.ConfigRegistry;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.pubsub.Monitor;
import io.tide.pubsub.PubSub;
import io.tide.pubsub.Tracking;
import io.tide.shard.ShardSet;
import io.tide.store.EncodingLimits;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Process-wide state that commands may consult: configuration, the command table, the shards, the
 * client registry and server-level counters. Thread-safe (final references, concurrent collections
 * and atomics); the per-shard parts are reached through {@link ShardSet}.
 */
public final class ServerContext {

    private final ConfigRegistry config;
    private final CommandTable table;
    private final ShardSet shards;
    private final ClientTable clients = new ClientTable();
    private final AtomicLong nextClientId = new AtomicLong(1);
    private final AtomicLong connectionsReceived = new AtomicLong();
    private final AtomicLong rejectedConnections = new AtomicLong();
    /** Errors from commands no client sent: the primary's stream and the AOF (INFO unexpected_error_replies). */
    private final AtomicLong unexpectedErrorReplies = new AtomicLong();
    /** The replication streams' per-second rates; sampled on shard 0's cron, read by INFO while it is parked. */
    private final io.tide.metrics.RateSampler replInputRate = new io.tide.metrics.RateSampler();
    private final io.tide.metrics.RateSampler replOutputRate = new io.tide.metrics.RateSampler();
    /** Numbers the operations whose journalled effects span shards (see io.tide.journal.JournalSink). */
    private final AtomicLong groupSeq = new AtomicLong();
    private final long startTimeMs = System.currentTimeMillis();
    private final long startNanos = System.nanoTime();
    private final String runId;
    private final String version;
    private final String ioDriver;
    private volatile int tcpPort;
    private volatile ShutdownRequest shutdownRequest = (save, force) -> true;
    private volatile EncodingLimits limits;
    private final PubSub pubSub = new PubSub();
    private final KeyspaceEvents keyspaceEvents = new KeyspaceEvents(pubSub);
    private final io.tide.shard.LazyFree lazyFree = new io.tide.shard.LazyFree("tide-lazyfree");
    private final Monitor monitor = new Monitor();
    private final io.tide.metrics.Observability observability;
    private final Tracking tracking = new Tracking(id -> {
        ClientSession c = clients.get(id);
        return c == null || c.isClosed() ? null : c.subscriber(pubSub);
    });
    private final io.tide.script.Scripting scripting;
    private final MemoryGuard memory;
    private final long startupMemory;
    private final io.tide.persistence.Persistence persistence;
    private final io.tide.persistence.AppendOnly appendOnly;
    private final io.tide.replication.Primary replication;
    private final io.tide.replication.Replica replica;
    /** CLIENT PAUSE in force, or null: one volatile read on every command's path, no lock. */
    private final java.util.concurrent.atomic.AtomicReference<Pause> pause = new java.util.concurrent.atomic.AtomicReference<>();
    private volatile Runnable unpauseHook = () -> { };
    /** MIGRATE's connection caches: one per shard thread (by shard id), the coordinator's last. */
    private final MigrateSockets[] migrateSockets;
    /** The ACL users; the default user's password follows requirepass. */
    private final io.tide.acl.Acl acl;
    private final AclLog aclLog = new AclLog();

    public ServerContext(ConfigRegistry config, CommandTable table, ShardSet shards, String version, String ioDriver) {
        this.config = config;
        this.table = table;
        this.shards = shards;
        this.version = version;
        this.ioDriver = ioDriver;
        this.observability = new io.tide.metrics.Observability(config);
        this.migrateSockets = new MigrateSockets[shards.size() + 1];
        for (int i = 0; i < migrateSockets.length; i++) migrateSockets[i] = new MigrateSockets();
        this.scripting = new io.tide.script.Scripting(version);
        this.persistence = new io.tide.persistence.Persistence(config, shards, version,
                () -> scripting.functions().libraries().stream().map(io.tide.script.Library::code).toList());
        this.appendOnly = new io.tide.persistence.AppendOnly(config, shards, persistence);
        this.replication = new io.tide.replication.Primary(config, shards, persistence);
        this.replica = new io.tide.replication.Replica(config, shards, persistence, replication);
        groupSeq.set(System.currentTimeMillis() * 1000); // group numbers keep growing across restarts
        byte[] r = new byte[20];
        new SecureRandom().nextBytes(r);
        this.runId = HexFormat.of().formatHex(r);
        bindLimits();
        pubSub.limits(config.get("client-output-buffer-limit"));
        config.onChange("client-output-buffer-limit", v -> pubSub.limits(config.get("client-output-buffer-limit")));
        keyspaceEvents.configure(config.get("notify-keyspace-events"));
        this.acl = new io.tide.acl.Acl(table);
        acl.defaultPassword(config.get("requirepass"));
        config.onChange("requirepass", v -> acl.defaultPassword(config.get("requirepass")));
        config.onChange("acllog-max-len", v -> aclLog.trim(aclLogMaxLen()));
        acl.allChannelsByDefault(config.get("acl-pubsub-default").equals("allchannels"));
        config.onChange("acl-pubsub-default", v -> acl.allChannelsByDefault(v.equals("allchannels")));
        try {
            loadUsers(config);
        } catch (RuntimeException e) {
            lazyFree.close(); // the server does not start: nothing may stay behind
            throw e;
        }
        config.users(acl::describeAll);
        config.onChange("notify-keyspace-events", v -> keyspaceEvents.configure(config.get("notify-keyspace-events")));
        keyspaceEvents.tracking(tracking);
        for (io.tide.shard.Shard s : shards.all()) {
            s.keyspaceEvents(keyspaceEvents);
            // A replica keeps expired keys until its primary's DEL arrives (reads see them gone), as under a pause.
            s.holdExpiryWhile(() -> paused() || replica.active());
            s.freer(lazyFree);
        }
        bindLazyFree("lazyfree-lazy-user-del", io.tide.store.Freer.USER_DEL);
        bindLazyFree("lazyfree-lazy-expire", io.tide.store.Freer.EXPIRE);
        bindLazyFree("lazyfree-lazy-server-del", io.tide.store.Freer.SERVER_DEL);
        bindLazyFree("lazyfree-lazy-eviction", io.tide.store.Freer.EVICTION);
        this.memory = new MemoryGuard(config, shards, clients);
        memory.replicaCheck(replica::active);
        memory.latencyMonitor(observability.latency());
        appendOnly.latencyMonitor(observability.latency());
        for (io.tide.shard.Shard s : shards.all()) {
            s.latencyMonitor(observability.latency());
            s.largeReplyLog(observability.largeReply());
        }
        shards.coordinator().latencyMonitor(observability.latency());
        long hint = config.getLong("initial-keyspace-hint");
        if (hint > 0) {
            long perShard = hint / shards.size() + 1;
            for (io.tide.shard.Shard s : shards.all()) s.executeOnData(() -> s.db(0).reserve(perShard));
        }
        this.startupMemory = memory.used();
    }

    /** maxmemory, eviction and used memory. */
    public MemoryGuard memory() { return memory; }

    /** Used memory (MemoryGuard's measure) before anything was loaded or connected: MEMORY STATS's startup.allocated. */
    public long startupMemory() { return startupMemory; }

    /** Keeps the lazy freer's policy bit {@code kind} equal to the boolean parameter {@code name}. */
    private void bindLazyFree(String name, int kind) {
        lazyFree.policy(kind, config.getBool(name));
        config.onChange(name, v -> lazyFree.policy(kind, config.getBool(name)));
    }

    /** Keeps {@link #limits()} equal to the encoding parameters, now and after every CONFIG SET. */
    private void bindLimits() {
        limits = readLimits();
        // One listener for all of them: each lambda call site costs a cold start a generated class (decision 0014).
        java.util.function.Consumer<String> reread = v -> limits = readLimits();
        for (String name : List.of("list-max-listpack-size", "list-compress-depth", "hash-max-listpack-entries",
                "hash-max-listpack-value", "set-max-intset-entries", "set-max-listpack-entries",
                "set-max-listpack-value", "zset-max-listpack-entries", "zset-max-listpack-value",
                "stream-node-max-bytes", "stream-node-max-entries", "hll-sparse-max-bytes")) {
            config.onChange(name, reread);
        }
    }

    private EncodingLimits readLimits() {
        return new EncodingLimits(config.getInt("list-max-listpack-size"),
                config.getInt("list-compress-depth"),
                config.getLong("hash-max-listpack-entries"),
                config.getLong("hash-max-listpack-value"),
                config.getLong("set-max-intset-entries"),
                config.getLong("set-max-listpack-entries"),
                config.getLong("set-max-listpack-value"),
                config.getLong("zset-max-listpack-entries"),
                config.getLong("zset-max-listpack-value"),
                config.getLong("stream-node-max-bytes"),
                config.getLong("stream-node-max-entries"),
                config.getLong("hll-sparse-max-bytes"));
    }

    public ConfigRegistry config() { return config; }
    /** The append-only file. */
    public io.tide.persistence.AppendOnly appendOnly() { return appendOnly; }

    /** The primary side of replication: the stream, its backlog and the replicas. */
    public io.tide.replication.Primary replication() { return replication; }

    /** The replica side: REPLICAOF's link to a primary. */
    public io.tide.replication.Replica replica() { return replica; }

    /**
     * MIGRATE's connection cache of a thread: shard {@code thread}'s, or the coordinator's for {@code shards().size()}.
     * Only that thread may use it.
     */
    public MigrateSockets migrateSockets(int thread) { return migrateSockets[thread]; }

    /** Closes every MIGRATE connection: only once the shard threads and the coordinator have stopped. */
    public void closeMigrateSockets() {
        for (MigrateSockets m : migrateSockets) m.closeAll();
    }

    /** SAVE, BGSAVE, the save points, loading at startup. */
    public io.tide.persistence.Persistence persistence() { return persistence; }
    /** Lua scripts and functions: the engine and the script cache. */
    public io.tide.script.Scripting scripting() { return scripting; }
    /** Collection encoding thresholds, kept current with CONFIG SET. */
    public EncodingLimits limits() { return limits; }
    public CommandTable table() { return table; }
    /** The pub/sub registry shared by every shard. */
    public PubSub pubSub() { return pubSub; }
    /** notify-keyspace-events and its publishing. */
    public KeyspaceEvents keyspaceEvents() { return keyspaceEvents; }
    /** The lazy freer (UNLINK, FLUSH ... ASYNC, lazyfree-lazy-*): its thread and INFO's lazyfree counters. */
    public io.tide.shard.LazyFree lazyFree() { return lazyFree; }

    private volatile io.tide.util.HeapGovernor heapGovernor;

    /**
     * Starts what watches the JVM: the heap governor where the JVM allows one (see {@link io.tide.util.HeapGovernor})
     * and the GC pause listener of LATENCY's gc-pause event; by the server, which stops them with
     * {@link #stopJvmWatchers()}.
     */
    public void startJvmWatchers() {
        // what the data holds on the heap: used memory and the slabs' holes
        heapGovernor = io.tide.util.HeapGovernor.startIfConcurrent(() -> memory.used() + memory.slackBytes());
        gcPauses = io.tide.metrics.GcPauses.start(observability.latency());
    }

    /** The heap governor, or null where it does not run. */
    public io.tide.util.HeapGovernor heapGovernor() { return heapGovernor; }

    /** Stops the heap governor and the GC pause listener; by the server as it stops. */
    public void stopJvmWatchers() {
        io.tide.util.HeapGovernor g = heapGovernor;
        if (g != null) g.close();
        io.tide.metrics.GcPauses p = gcPauses;
        if (p != null) p.close();
    }

    private volatile io.tide.metrics.GcPauses gcPauses;
    /** The MONITOR clients. */
    public Monitor monitor() { return monitor; }

    /** Command logs (SLOWLOG, COMMANDLOG), the latency monitor and latency-tracking settings. */
    public io.tide.metrics.Observability observability() { return observability; }
    /** CLIENT TRACKING's key and prefix tables. */
    public Tracking tracking() { return tracking; }
    public ShardSet shards() { return shards; }
    public ClientTable clients() { return clients; }
    public long nextClientId() { return nextClientId.getAndIncrement(); }
    public AtomicLong connectionsReceived() { return connectionsReceived; }
    public AtomicLong rejectedConnections() { return rejectedConnections; }
    public AtomicLong unexpectedErrorReplies() { return unexpectedErrorReplies; }
    public io.tide.acl.Acl acl() { return acl; }

    /**
     * Redis's ACLCheckAllPerm for a client's command (at the top level, inside MULTI before it is queued, and for each
     * call of a script): NONE when its user may run it. A user deleted meanwhile may run nothing.
     */
    public io.tide.acl.Acl.Denial aclCheck(ClientSession c, CommandSpec spec, byte[][] argv, AclLog.Context where) {
        if (acl.unrestricted()) return io.tide.acl.Acl.Denial.NONE;
        io.tide.acl.AclUser u = acl.user(c.user());
        io.tide.acl.Acl.Result r = u == null ? new io.tide.acl.Acl.Result(io.tide.acl.Acl.Denial.CMD, 0, null)
                : acl.check(u, spec, argv, CommandSpec::keyRefs);
        switch (r.denial()) {
            case NONE -> { }
            case KEY -> aclDenied(c, AclLog.Reason.KEY, where, text(r.subject()), c.user());
            case CHANNEL -> aclDenied(c, AclLog.Reason.CHANNEL, where, text(r.subject()), c.user());
            default -> aclDenied(c, AclLog.Reason.COMMAND, where, spec.fullName(), c.user());
        }
        return r.denial();
    }

    /**
     * The users at startup: the aclfile's (relative to dir), else the config file's {@code user} lines; requirepass
     * then sets the default user's password unless they defined the default user, as Redis orders them.
     */
    private void loadUsers(ConfigRegistry config) {
        io.tide.acl.Acl.Loaded loaded;
        try {
            if (aclFile() != null) {
                loaded = loadAclFile();
            } else if (!config.userLines().isEmpty()) {
                loaded = acl.load(config.userLines(), "config file");
            } else {
                return;
            }
        } catch (io.tide.acl.Acl.RuleException e) {
            throw new io.tide.config.ConfigException("tide: Aborting startup because of ACL errors: " + e.getMessage());
        }
        if (!loaded.definesDefault()) acl.defaultPassword(config.get("requirepass"));
    }

    /** The aclfile, relative to the working directory (dir) as Redis reads it, or null when none is configured. */
    public java.nio.file.Path aclFile() {
        String name = config.get("aclfile");
        return name.isEmpty() ? null : java.nio.file.Path.of(config.get("dir")).resolve(name);
    }

    /**
     * The aclfile's users in place of every user (ACL LOAD, and startup), all or nothing.
     *
     * @throws io.tide.acl.Acl.RuleException with Redis's text when the file cannot be read or a line is wrong
     */
    public io.tide.acl.Acl.Loaded loadAclFile() throws io.tide.acl.Acl.RuleException {
        String name = config.get("aclfile");
        java.util.List<String> lines;
        try {
            lines = java.nio.file.Files.readAllLines(aclFile(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new io.tide.acl.Acl.RuleException("Error loading ACLs, opening file '" + name + "': "
                    + (e instanceof java.nio.file.NoSuchFileException ? "No such file or directory" : e.getMessage()));
        }
        return acl.load(lines, name);
    }

    /** The ACL LOG of refusals (and INFO's acl_access_denied_* counters). */
    public AclLog aclLog() { return aclLog; }

    /** Records a refusal in the ACL LOG, with the client's CLIENT INFO line as it is now. */
    public void aclDenied(ClientSession c, AclLog.Reason reason, AclLog.Context where, String object, String user) {
        long now = System.currentTimeMillis();
        String info = c == null ? "" : io.tide.command.family.ClientCommands.describe(c, now);
        aclLog.add(reason, where, object, user, info, now, aclLogMaxLen());
    }

    /** acllog-max-len, a 64-bit setting as in Redis; no log holds more than an int's worth of entries. */
    private int aclLogMaxLen() {
        return (int) Math.min(Integer.MAX_VALUE, config.getLong("acllog-max-len"));
    }

    private static String text(byte[] b) {
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Redis's authRequired for a new connection: the default user has a password, or is off. Otherwise a connection
     * starts authenticated as the default user.
     */
    public boolean authRequired() {
        io.tide.acl.AclUser d = acl.defaultUser();
        return !d.nopass() || !d.enabled();
    }

    /** On shard 0's cron: the replication streams' rates (INFO instantaneous_input_repl_kbps and _output_). */
    public void sampleReplicationRates(long nowMs) {
        replInputRate.sample(nowMs, replica.replInputBytes());
        replOutputRate.sample(nowMs, replication.replOutputBytes());
    }

    public io.tide.metrics.RateSampler replInputRate() { return replInputRate; }
    public io.tide.metrics.RateSampler replOutputRate() { return replOutputRate; }

    /** INFO migrate_cached_sockets: MIGRATE's open connections, over every thread's cache. */
    public int migrateCachedSockets() {
        int n = 0;
        for (MigrateSockets m : migrateSockets) n += m.size();
        return n;
    }
    /** The next server-wide sequence number of a cross-shard journal group. */
    public long nextGroupSeq() { return groupSeq.incrementAndGet(); }
    /** After loading an AOF: later groups number on from the highest loaded. */
    public void groupSeqAtLeast(long seq) { groupSeq.accumulateAndGet(seq, Math::max); }
    public long startTimeMs() { return startTimeMs; }
    public long uptimeMillis() { return (System.nanoTime() - startNanos) / 1_000_000; }
    public String runId() { return runId; }
    public String version() { return version; }
    public String ioDriver() { return ioDriver; }
    public int tcpPort() { return tcpPort; }
    public void tcpPort(int p) { tcpPort = p; }
    /** Absolute path of the config file the server was started with, or "" if none. */
    public String configFile() {
        java.nio.file.Path p = config.configFile();
        return p == null ? "" : p.toAbsolutePath().toString();
    }

    /** A CLIENT PAUSE: until {@code endMs} (unix ms); every command ({@code all}) or only writes (WRITE). */
    public record Pause(long endMs, boolean all) {}

    /**
     * CLIENT PAUSE: a pause until {@code endMs}; as Redis 7.0, overlapping pauses keep the later end and the
     * stricter mode (a pause that has already ended counts for nothing).
     */
    public void pause(long endMs, boolean all, long nowMs) {
        pause.updateAndGet(p -> p == null || nowMs >= p.endMs()
                ? new Pause(endMs, all)
                : new Pause(Math.max(endMs, p.endMs()), all || p.all()));
    }

    /** CLIENT UNPAUSE: ends the pause and lets every postponed client run. */
    public void unpause() {
        pause.set(null);
        unpauseHook.run();
    }

    /**
     * The pause in force at {@code nowMs}, or null: commands then wait (every command under ALL, writes and
     * may-replicate commands under WRITE), and expiry keeps expired keys, as Redis keeps the dataset constant.
     */
    public Pause pauseAt(long nowMs) {
        Pause p = pause.get();
        if (p == null) return null;
        if (nowMs < p.endMs()) return p;
        pause.compareAndSet(p, null);
        return null;
    }

    /** Whether a pause is in force now (the shards' expiry asks, only when it meets an expired key). */
    public boolean paused() {
        return pause.get() != null && pauseAt(System.currentTimeMillis()) != null;
    }

    /** Set by the dispatcher: what CLIENT UNPAUSE runs to wake postponed clients. */
    public void onUnpause(Runnable r) { unpauseHook = r; }

    /** Asks the server to shut down (SHUTDOWN); the server decides whether that also ends the process. */
    public void requestShutdown() { shutdownRequest.shutdown(null, false); }

    /**
     * SHUTDOWN with a save decision ({@code save} true: SAVE / save points set; false: NOSAVE; null: as configured).
     * Returns false, with the server still running, when the save failed.
     */
    public boolean requestShutdown(Boolean save, boolean force) { return shutdownRequest.shutdown(save, force); }

    /** What SHUTDOWN runs (set by the server). */
    public interface ShutdownRequest {
        boolean shutdown(Boolean save, boolean force);
    }

    public void onShutdownRequest(ShutdownRequest r) { shutdownRequest = r; }
}
