package io.tide.command;

import io.tide.protocol.Reply;
import io.tide.shard.Shard;
import io.tide.shard.ShardSet;
import io.tide.store.Database;

/**
 * What a handler sees while it runs: the databases that own its keys, the client, the time.
 * Confined to the thread executing the command: a shard thread, or the coordinator while the
 * shards it needs are parked (then {@link #db(byte[])} reaches any shard, safely).
 */
public final class CommandContext {

    private final ServerContext server;
    private final ShardSet shards;
    private Shard shard;
    private boolean coordinated;
    private ClientSession client;
    private int dbIndex;
    private long now;
    private boolean noTouch;
    /** Set by {@link #block}: the waiter the dispatcher parks once the handler returns. */
    private BlockRequest blockRequest;
    /** False where a blocking command must not block: inside MULTI/EXEC and scripts, and on a retry. */
    private boolean mayBlock = true;
    /** True while the dispatcher re-runs a parked command after one of its keys was signalled. */
    private boolean retry;

    CommandContext(ServerContext server) {
        this.server = server;
        this.shards = server.shards();
    }

    CommandContext reset(Shard executing, boolean coordinated, ClientSession client, int dbIndex, long nowMs,
                         boolean noTouch) {
        this.shard = executing;
        this.coordinated = coordinated;
        this.client = client;
        this.dbIndex = dbIndex;
        this.now = nowMs;
        this.noTouch = noTouch;
        this.blockRequest = null;
        this.mayBlock = true;
        this.retry = false;
        return this;
    }

    // ---------------------------------------------------------------- blocking commands

    /**
     * Called by a blocking command (BLPOP, BZPOPMIN, XREAD BLOCK, ...) that finds nothing to serve now.
     * Returns what the handler must return: {@code timeoutReply} where the client may not block (inside
     * MULTI/EXEC or a script, as Redis answers there), otherwise null, and the dispatcher then parks the
     * client on {@code keys} (in the selected database) until a write {@linkplain #signalReady signals}
     * one of them, the deadline passes ({@code deadlineMs} unix ms, 0 = never), or the client disconnects.
     * On a signal the command runs again with {@code retryArgv} (the original argv, or one with
     * {@code $}-style arguments resolved, as XREAD needs); if it calls {@code block} again it keeps waiting.
     * Waiters on a key are served first blocked, first served.
     */
    public Reply block(byte[][] keys, long deadlineMs, Reply timeoutReply, byte[][] retryArgv) {
        if (!mayBlock) return timeoutReply;
        blockRequest = new BlockRequest(keys, deadlineMs, timeoutReply, retryArgv);
        return null;
    }

    /**
     * Tells waiters on {@code key} (selected database) that it may now serve them: called by writes that
     * add data a blocking command waits for (a push, ZADD, XADD, ...). Keys a write creates are signalled
     * by the keyspace itself, so only additions to an existing key need this call. Waiters are served
     * after the current command (or transaction) completes.
     */
    public void signalReady(byte[] key) {
        shardOf(key).blocking().signal(dbIndex, key);
    }

    /** The block request the handler just made, cleared by reading. */
    BlockRequest takeBlockRequest() {
        BlockRequest r = blockRequest;
        blockRequest = null;
        return r;
    }

    /**
     * Runs another command inside the current one (EXEC's queued commands, a script's {@code redis.call}):
     * same client, database, clock and parked shards; blocking commands answer as on timeout. The caller has
     * checked arity and that the command's keys are reachable from here (all shards for scripts). A command
     * error comes back as an error reply; anything else propagates.
     */
    public Reply call(CommandSpec spec, byte[][] argv) {
        return call(spec, argv, null);
    }

    /** {@link #call} from a script: MONITOR shows the command with the source {@code lua}, as Redis does. */
    public Reply callFromScript(CommandSpec spec, byte[][] argv) {
        return call(spec, argv, "lua");
    }

    private Reply call(CommandSpec spec, byte[][] argv, String monitorSource) {
        boolean couldBlock = mayBlock;
        mayBlock = false;
        try {
            Reply r = spec.handler().execute(this, argv);
            touchWritten(spec, argv);
            if (server.monitor().active()) feedMonitors(spec, argv, monitorSource, false);
            return r;
        } catch (CommandException e) {
            return Reply.error(e.getMessage());
        } finally {
            blockRequest = null;
            mayBlock = couldBlock;
        }
    }

    /**
     * MONITOR's feed, after the command ran (as Redis's call(), so SELECT shows its new database and EXEC comes
     * after the commands it ran): not for admin or skip_monitor commands, nor for a blocked command's retries;
     * AUTH and HELLO's credentials are redacted. {@code source} is "lua" for script calls, else the client's
     * address; {@code evenIfSkipped} shows a skip_monitor command (scripts, which Redis shows before they run).
     */
    void feedMonitors(CommandSpec spec, byte[][] argv, String source, boolean evenIfSkipped) {
        if (spec.has(CommandSpec.ADMIN) || retry || client == null) return;
        if (spec.has(CommandSpec.SKIP_MONITOR) && !evenIfSkipped) return;
        int redact = -1;
        if (spec.name().equals("auth")) redact = 1;
        if (spec.name().equals("hello")) {
            for (int i = 1; i < argv.length - 2; i++) {
                if (Args.is(argv[i], "auth")) redact = i + 1;
            }
        }
        java.time.Instant t = java.time.Instant.now();
        long now = t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
        int db = spec.name().equals("select") ? client.db() : dbIndex; // SELECT runs on the home shard
        server.monitor().feed(now, db, source != null ? source : client.connection().remoteAddress(), argv, redact);
    }

    /**
     * After a write command succeeded: marks the WATCHes of its keys dirty (Redis's signalModifiedKey). A
     * write that changed nothing (SET NX on an existing key) touches too: such a transaction fails where
     * Redis's would run, never the other way round.
     */
    void touchWritten(CommandSpec spec, byte[][] argv) {
        io.tide.pubsub.Tracking t = server.tracking();
        if (t.active()) track(t, spec, argv);
        if (!spec.has(CommandSpec.WRITE)) return;
        if (spec.keyFinder() != null) {
            byte[][] keys = spec.keyFinder().keys(argv);
            for (byte[] key : keys) shardOf(key).watched().touch(dbIndex, key);
            return;
        }
        if (spec.firstKey() <= 0) return;
        int last = Math.min(spec.lastKeyIndex(argv.length), argv.length - 1);
        for (int i = spec.firstKey(); i <= last; i += spec.keyStep()) {
            Shard s = shardOf(argv[i]);
            if (!s.watched().isEmpty()) s.watched().touch(dbIndex, argv[i]);
        }
    }

    /**
     * Client tracking after a command (Redis's trackingRememberKeys and signalModifiedKey): a write invalidates
     * its keys (FLUSHDB/FLUSHALL everything); a read by a tracking client remembers its keys, as OPTIN/OPTOUT
     * and CLIENT CACHING allow. CLIENT CACHING's flag lasts until a command other than CLIENT runs.
     */
    private void track(io.tide.pubsub.Tracking t, CommandSpec spec, byte[][] argv) {
        long origin = client == null ? 0 : client.id();
        int caching = client == null ? 0 : client.caching();
        if (caching != 0 && !spec.fullName().startsWith("client|")) client.caching(0); // as Redis's resetClient
        if (spec.has(CommandSpec.WRITE)) {
            if (spec.name().equals("flushdb") || spec.name().equals("flushall")) {
                t.invalidateAll();
                return;
            }
            for (byte[] k : keysOf(spec, argv)) t.invalidate(k, origin);
            return;
        }
        io.tide.pubsub.Tracking.Mode m = client == null ? null : client.trackingMode();
        if (m == null || m.bcast() || !spec.has(CommandSpec.READONLY)) return;
        if ((m.optin() && caching != 1) || (m.optout() && caching == -1)) return;
        for (byte[] k : keysOf(spec, argv)) t.remember(origin, k);
    }

    private static java.util.List<byte[]> keysOf(CommandSpec spec, byte[][] argv) {
        if (spec.keyFinder() != null) return java.util.Arrays.asList(spec.keyFinder().keys(argv));
        java.util.List<byte[]> out = new java.util.ArrayList<>();
        if (spec.firstKey() <= 0) return out;
        int last = Math.min(spec.lastKeyIndex(argv.length), argv.length - 1);
        for (int i = spec.firstKey(); i <= last; i += spec.keyStep()) out.add(argv[i]);
        return out;
    }

    /** Follows a SELECT run through {@link #call}: later calls use the client's new database. */
    public void selectDb(int index) {
        dbIndex = index;
    }

    /** Whether this run is a parked command's retry (a {@link #block} call then means "keep waiting"). */
    public boolean isRetry() {
        return retry;
    }

    void markRetry() {
        retry = true;
    }

    /** True while running inside another command (EXEC's queued commands, scripts) or with blocking forbidden. */
    public boolean nested() {
        return !mayBlock;
    }

    /** Forbids blocking for the rest of this command (transactions, scripts). */
    public void disallowBlocking() {
        mayBlock = false;
    }

    // ---------------------------------------------------------------- keyspace notifications

    /**
     * Redis's notifyKeyspaceEvent for {@code key} in the selected database: {@code type} is a
     * {@link io.tide.pubsub.KeyspaceEvents} class bit, {@code event} Redis's event name. One int test when
     * notifications are off.
     */
    public void notify(int type, String event, byte[] key) {
        io.tide.pubsub.KeyspaceEvents ev = server.keyspaceEvents();
        if ((ev.flags() & type) != 0) ev.notify(type, event, key, dbIndex);
    }

    /** {@link #notify(int, String, byte[])} for database {@code db} (MOVE, COPY DB). */
    public void notify(int type, String event, byte[] key, int db) {
        io.tide.pubsub.KeyspaceEvents ev = server.keyspaceEvents();
        if ((ev.flags() & type) != 0) ev.notify(type, event, key, db);
    }

    public ServerContext server() { return server; }
    public ShardSet shards() { return shards; }
    /** The client that sent the command. Keyed handlers may run off its home thread: read, never mutate. */
    public ClientSession client() { return client; }
    public int dbIndex() { return dbIndex; }
    /** The command's clock (unix ms), fixed for the whole command as Redis does. */
    public long now() { return now; }
    /** CLIENT NO-TOUCH: reads must not refresh the access clock. */
    public boolean noTouch() { return noTouch; }
    /** True when the command runs with several shards parked (multi-shard or ALL_SHARDS commands). */
    public boolean coordinated() { return coordinated; }

    /** The selected database on the shard that owns {@code key}. */
    public Database db(byte[] key) {
        return db(key, dbIndex);
    }

    /** Database {@code index} on the shard that owns {@code key}. */
    public Database db(byte[] key, int index) {
        return shardOf(key).db(index);
    }

    /** The shard owning {@code key} (for its statistics). */
    public Shard shardOf(byte[] key) {
        return coordinated ? shards.shardOf(key) : shard;
    }

    /**
     * Reads a key for a read command: lazy expiry, access clock (unless NO-TOUCH) and the
     * keyspace hit/miss counters.
     */
    public Object read(byte[] key) {
        Shard s = shardOf(key);
        Database d = s.db(dbIndex);
        Object v = noTouch ? d.peek(key, now) : d.get(key, now);
        if (v == null) {
            s.stats().keyspaceMisses++;
            notify(io.tide.pubsub.KeyspaceEvents.KEY_MISS, "keymiss", key);
        } else {
            s.stats().keyspaceHits++;
        }
        return v;
    }

    /** Reads a key for a write command (lazy expiry; no hit/miss counting, as Redis's lookupKeyWrite). */
    public Object readForWrite(byte[] key) {
        return db(key).get(key, now);
    }

    /** Every shard's copy of database {@code index}: only for ALL_SHARDS commands (or with one shard). */
    public Database[] allDbs(int index) {
        Shard[] all = shards.all();
        Database[] out = new Database[all.length];
        for (int i = 0; i < all.length; i++) out[i] = all[i].db(index);
        return out;
    }
}
