package io.tide.command;

import io.tide.journal.Effect;
import io.tide.journal.Journal;
import io.tide.protocol.Reply;
import io.tide.shard.Shard;
import io.tide.shard.ShardSet;
import io.tide.shard.ShardWrites;
import io.tide.store.Database;
import io.tide.store.Sized;
import java.util.ArrayList;
import java.util.List;

/**
 * What a handler sees while it runs: the databases that own its keys, the client, the time.
 * Confined to the thread executing the command: a shard thread, or the coordinator while the
 * shards it needs are parked (then {@link #db(byte[])} reaches any shard, safely).
 */
public final class CommandContext implements ShardWrites.Recorder {

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
    /** True while the current command runs from a script ({@link #callFromScript}). */
    private boolean fromScript;
    /** While {@link #fromScript}: the script's {@code redis.setresp}. */
    private int scriptResp = 2;
    /** True while the dispatcher re-runs a parked command after one of its keys was signalled. */
    private boolean retry;
    /** The shards this run may touch, as a mask: the executing shard, or those the coordinator parked. */
    private long parked;

    // The write seam, per command: values opened with readForWrite and their size then (memory accounting).
    private final ArrayList<OpenWrite> openWrites = new ArrayList<>();
    private int openCount;

    // The journal, per top-level operation (a command, a transaction, a script): see beginOp / endOp.
    /** Whether this operation's effects are recorded (some journal has a sink). */
    private boolean journalling;
    /** Per shard id: the effects recorded for that shard so far in this operation (null = none yet). */
    private final List<Effect>[] effects;
    /** Per shard id: its write counter when the current command began. */
    private final long[] writesAtStart;
    /** Per shard id: the keys the current command wrote there (for a command that spans shards). */
    private final ArrayList<WrittenKey> writtenKeys = new ArrayList<>();
    /** The current command wrote a whole database somewhere (FLUSHDB, FLUSHALL, SWAPDB): journal it as it is. */
    private boolean wroteWholeDb;
    /** The current command's journalled form when it differs from its argv ({@link #propagateAs}). */
    private byte[][][] rewrite;
    /** Commands run nested in the current top-level one (EXEC, scripts): those journal for it. */
    private int nestedCalls;
    /** The current command changed server-wide state the journal must carry (FUNCTION LOAD, DELETE, ...). */
    private boolean wroteServerState;

    @SuppressWarnings("unchecked")
    CommandContext(ServerContext server) {
        this.server = server;
        this.shards = server.shards();
        this.effects = new List[shards.size()];
        this.writesAtStart = new long[shards.size()];
    }

    /** The shard this run executes on alone, or null for a coordinated run. */
    Shard inlineShard() {
        return coordinated ? null : shard;
    }

    /**
     * Prepares a top-level run. {@code parkedMask}: the shards the coordinator parked for a coordinated run (ignored
     * otherwise: an inline or hop run touches only {@code executing}).
     */
    CommandContext reset(Shard executing, boolean coordinated, long parkedMask, ClientSession client, int dbIndex,
                         long nowMs, boolean noTouch) {
        this.shard = executing;
        this.coordinated = coordinated;
        this.parked = coordinated ? parkedMask : 1L << executing.id();
        this.client = client;
        this.dbIndex = dbIndex;
        this.now = nowMs;
        this.noTouch = noTouch;
        this.blockRequest = null;
        this.mayBlock = true;
        this.fromScript = false;
        this.retry = false;
        this.replyInPlace = false;
        this.argvKept = true;
        this.argvReleasable = false;
        this.suspendable = false;
        return this;
    }

    /** See {@link #suspendable()}. */
    private boolean suspendable;

    /**
     * Whether this run is a script inline on its shard, inside a continuation the dispatcher runs: if it turns busy it
     * may yield there and go on on the coordinator thread (decision 0022).
     */
    public boolean suspendable() {
        return suspendable;
    }

    void suspendable(boolean inContinuation) {
        suspendable = inContinuation;
    }

    /**
     * The run began inline on its shard and goes on on the coordinator thread, with that shard parked (a busy script,
     * see {@link #suspendable()}): from now on it is a coordinated run of that one shard, as if it had begun there.
     */
    void movedToCoordinator() {
        coordinated = true; // parked is already that shard alone
        suspendable = false;
    }

    /**
     * Whether a script's call would reach beyond the one shard this run holds: inline in a continuation on a shard of a
     * multi-shard server, a call whose keys (or whose need of every shard) include another shard's. The script then
     * moves to the coordinator first, which parks that shard too ({@link #parkFor}).
     */
    public boolean reachesOtherShards(CommandSpec spec, byte[][] argv) {
        return inlineOnOneOfShards() && (routeMask(shards, spec, argv) & ~(1L << shard.id())) != 0;
    }

    /** Whether this run is a script inline in a continuation on one shard of several (see {@link #reachesOtherShards}). */
    public boolean inlineOnOneOfShards() {
        return !coordinated && suspendable && shards.size() > 1;
    }

    /** See {@link #holdEnginePermit}. */
    private boolean enginePermit;

    /** The dispatcher took the Lua engine for this run ({@code LuaEngine.tryHold}): the engine uses that permit. */
    void holdEnginePermit() {
        enginePermit = true;
    }

    /** Whether this run held the Lua engine's permit, which the caller now takes over (and later gives back). */
    public boolean takeEnginePermit() {
        boolean held = enginePermit;
        enginePermit = false;
        return held;
    }

    /** Whether the running top-level command's reply is written at once, so it may be read in place; see readInPlace. */
    private boolean replyInPlace;
    /** The one reusable reply of {@link #readInPlace}. */
    private final Reply.BulkView view = new Reply.BulkView();

    /** Whether the reply may be a view of stored bytes ({@link #bulkView}): the dispatcher writes it at once. */
    public boolean repliesInPlace() {
        return replyInPlace;
    }

    /**
     * This context's reusable {@link Reply.BulkView} of {@code length} stored bytes of {@code array} from {@code offset};
     * only while {@link #repliesInPlace()}, and returned by the handler as its reply.
     */
    public Reply bulkView(byte[] array, int offset, int length) {
        if (!replyInPlace) throw new IllegalStateException("a view reply outside a reply written at once");
        return view.of(array, offset, length);
    }

    /** The one reusable reply of {@link #integerReply}. */
    private final Reply.IntView intView = new Reply.IntView();

    /**
     * The integer reply {@code v}: a shared one for small values, this context's reusable {@link Reply.IntView} when the
     * dispatcher writes the reply at once (no allocation), else a new one.
     */
    public Reply integerReply(long v) {
        if (!replyInPlace || (v >= -16 && v < 1024)) return Reply.integer(v);
        return intView.of(v);
    }

    Reply.IntView intView() {
        return intView;
    }

    /** Set by the dispatcher for a command run inline whose reply it writes before this thread runs anything else. */
    void allowReplyInPlace() {
        replyInPlace = true;
    }

    /** See {@link #scores}. */
    private double[] scores = new double[4];
    private final double[] oneScore = new double[1];

    /**
     * Scratch space of at least {@code n} doubles for a handler's parsed scores, reused by the next command run in this
     * context: valid until the handler returns, and not across a nested {@link #call}.
     */
    public double[] scores(int n) {
        if (scores.length < n) scores = new double[n];
        return scores;
    }

    private final long[] oneSpan = new long[1];

    /** A scratch long, for where the store says a value's bytes lie (LPOP's and RPOP's views); as {@link #scores}. */
    public long[] oneSpan() {
        return oneSpan;
    }

    /** One more scratch double, for a score a handler gets back from the store; as {@link #scores}. */
    public double[] oneScore() {
        return oneScore;
    }

    /** False once the running top-level command's handler said it keeps no reference to its arguments. */
    private boolean argvKept = true;
    /** Whether {@link #keepsNoArguments} counts: a top-level command run inline or as a hop (set by the dispatcher). */
    private boolean argvReleasable;

    /** Set by the dispatcher for a top-level command run inline or as a hop, whose argv it may give back. */
    void allowArgumentsBack() {
        argvReleasable = true;
    }

    /**
     * Said by a handler that keeps no reference to any of its arguments past its return, whatever it wrote (decision
     * 0028): the store copies what it keeps, and nothing else of the handler's holds them. The dispatcher may then
     * give the arrays to the decoder to fill again, if nothing outside the handler keeps arguments by reference
     * either. Only counts for a top-level command run inline or as a hop (a nested one's arguments are its caller's).
     */
    public void keepsNoArguments() {
        if (argvReleasable) argvKept = false;
    }

    /** See {@link #keepsNoArguments}. */
    boolean argumentsKept() {
        return argvKept;
    }

    /** This context's reusable view reply (the dispatcher pairs it with a preallocated outcome). */
    Reply.BulkView view() {
        return view;
    }

    /**
     * {@link #read} for a reply that returns the value as it is (GET): when the dispatcher writes the reply at once and
     * the value is a string embedded in its entry, the answer is a {@link Reply.BulkView} of the stored bytes, which the
     * handler returns as its reply (no copy, no allocation); otherwise the value, as {@link #read} gives it.
     */
    public Object readInPlace(byte[] key) {
        if (!replyInPlace) return read(key);
        Shard s = shardOf(key);
        Database d = s.db(dbIndex);
        Object v = d.getInPlace(key, now, !noTouch);
        if (v == null) {
            s.stats().keyspaceMisses++;
            notify(io.tide.pubsub.KeyspaceEvents.KEY_MISS, "keymiss", key);
            return null;
        }
        s.stats().keyspaceHits++;
        if (v != Database.EMBEDDED) return v;
        return view.of(d.inPlaceArray(), d.inPlaceOffset(), d.inPlaceLength());
    }

    // ---------------------------------------------------------------- blocking commands

    /**
     * Called by a blocking command (BLPOP, BZPOPMIN, XREAD BLOCK, ...) that finds nothing to serve now.
     * Returns what the handler must return: {@code timeoutReply} where the client may not block (inside
     * MULTI/EXEC or a script, as Redis answers there), otherwise null, and the dispatcher then parks the
     * client on {@code keys} (in the selected database) until a write signals one of them (the keyspace does, through
     * the shard's write seam), the deadline passes ({@code deadlineMs} unix ms, 0 = never), or the client disconnects.
     * On a signal the command runs again with {@code retryArgv} (the original argv, or one with
     * {@code $}-style arguments resolved, as XREAD needs); if it calls {@code block} again it keeps waiting.
     * Waiters on a key are served first blocked, first served.
     */
    public Reply block(byte[][] keys, long deadlineMs, Reply timeoutReply, byte[][] retryArgv) {
        if (!mayBlock) return timeoutReply;
        blockRequest = new BlockRequest(keys, deadlineMs, timeoutReply, retryArgv);
        return null;
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
        return call(spec, argv, false);
    }

    /**
     * {@link #call} from a script: MONITOR shows the command with the source {@code lua}, as Redis does, the
     * command sees {@link #calledFromScript()}, and it shapes its reply for {@code resp}, the script's
     * {@code redis.setresp} ({@link #replyProtocol()}), not for the calling client.
     */
    public Reply callFromScript(CommandSpec spec, byte[][] argv, int resp) {
        int outerResp = scriptResp;
        scriptResp = resp;
        try {
            return call(spec, argv, true);
        } finally {
            scriptResp = outerResp;
        }
    }

    /**
     * The protocol a command shapes its reply for where RESP2 and RESP3 differ in more than encoding (ZRANGE's
     * score pairs, XREAD's map, GEOPOS's doubles): the client's, or within a script its {@code redis.setresp}, as
     * Redis's script client has.
     */
    public int replyProtocol() {
        if (fromScript) return scriptResp;
        return client == null ? 2 : client.protocol();
    }

    /**
     * A script runs with the shards of its declared keys parked (decision 0016): before one of its calls reaches a
     * key of another shard (or needs every shard), the coordinator parks that shard too, and from then on this run
     * owns it: its writes are recorded, journalled and flushed with the others'.
     */
    private void parkFor(CommandSpec spec, byte[][] argv) {
        long all = shards.size() == 64 ? -1L : (1L << shards.size()) - 1;
        if (parked == all) return;
        long need = routeMask(shards, spec, argv);
        if (need == -1L) need = all;
        long more = need & ~parked;
        if (more == 0) return;
        Shard[] extra = new Shard[Long.bitCount(more)];
        int n = 0;
        for (long m = more; m != 0; m &= m - 1) extra[n++] = shards.get(Long.numberOfTrailingZeros(m));
        if (!shards.coordinator().extend(extra)) throw new CommandException("ERR server is shutting down");
        long origin = client == null ? 0 : client.id();
        ShardWrites.Recorder r = journalling ? this : null;
        for (Shard s : extra) {
            s.writes().running(origin, r);
            recordsAtPark[s.id()] = s.writes().journal().records();
        }
        parked |= more;
    }

    /** The journal's record count of each shard {@link #parkFor} added, when it was parked. */
    private final long[] recordsAtPark = new long[64];

    /** The shards this coordinated run owns now, as a mask (more than it started with after {@link #parkFor}). */
    long parkedMask() {
        return parked;
    }

    /** The record count of shard {@code id}'s journal when {@link #parkFor} parked it. */
    long recordsAtPark(int id) {
        return recordsAtPark[id];
    }

    /** The shards a command's keys live on, as a mask; -1 when it needs every shard; 0 without keys. */
    static long routeMask(ShardSet shards, CommandSpec spec, byte[][] argv) {
        if (spec.has(CommandSpec.ALL_SHARDS)) return -1L;
        long mask = 0;
        if (spec.keyFinder() != null) {
            byte[][] keys = spec.keyFinder().keys(argv);
            if (keys == CommandSpec.ALL_KEYS) return -1L;
            for (byte[] k : keys) mask |= 1L << shards.shardOf(k).id();
        } else if (spec.hasKeys() && argv.length > spec.firstKey()) {
            int last = Math.min(spec.lastKeyIndex(argv.length), argv.length - 1);
            for (int i = spec.firstKey(); i <= last; i += spec.keyStep()) mask |= 1L << shards.shardOf(argv[i]).id();
        }
        return mask;
    }

    /** True while a command runs from a script's {@code redis.call} (Redis's CLIENT_SCRIPT caller). */
    public boolean calledFromScript() {
        return fromScript;
    }

    private Reply call(CommandSpec spec, byte[][] argv, boolean script) {
        if (script && coordinated) parkFor(spec, argv);
        String monitorSource = script ? "lua" : null;
        boolean outerFromScript = fromScript;
        fromScript = script;
        boolean outerInPlace = replyInPlace;
        replyInPlace = false; // a nested command's reply is kept (EXEC's array, a script's value)
        boolean outerReleasable = argvReleasable;
        argvReleasable = false; // a nested command's arguments are its caller's
        boolean couldBlock = mayBlock;
        mayBlock = false;
        int outerNested = nestedCalls;
        nestedCalls = 0;
        byte[][][] outerRewrite = rewrite;
        int db = dbIndex;
        beginCommand();
        long t0 = System.nanoTime();
        boolean failed = false;
        try {
            Reply r = spec.handler().execute(this, argv);
            afterCommand(spec, argv);
            if (server.monitor().active()) feedMonitors(spec, argv, monitorSource, false);
            return r;
        } catch (CommandException e) {
            failed = true;
            return Reply.error(e.getMessage());
        } finally {
            observeNested(spec, argv, (System.nanoTime() - t0) / 1000, failed, script);
            endCommand(argv, db, nestedCalls > 0);
            nestedCalls = outerNested + 1;
            rewrite = outerRewrite;
            blockRequest = null;
            mayBlock = couldBlock;
            fromScript = outerFromScript;
            replyInPlace = outerInPlace;
            argvReleasable = outerReleasable;
        }
    }

    /**
     * Redis's call() bookkeeping for a nested command, on the executing thread: INFO commandstats and the latency
     * histogram of that thread (the shard's, or the coordinator's slot), the latency monitor and the slow log. A
     * script's commands are logged as Redis logs its Lua client's ("?:0", no name); EXEC's as its client's.
     */
    private void observeNested(CommandSpec spec, byte[][] argv, long micros, boolean failed, boolean script) {
        if (client == null) return; // loading the AOF or applying a replicated stream: no statistics, as Redis
        io.tide.metrics.Observability obs = server.observability();
        spec.stats(shard != null ? shard.id() : shards.size()).call(micros, failed, obs.tracking());
        boolean asClient = !script && client != null;
        Dispatcher.observe(obs, spec, argv, micros, asClient ? client : null, false);
    }

    /**
     * MONITOR's feed, after the command ran (as Redis's call(), so SELECT shows its new database and EXEC comes
     * after the commands it ran): not for admin or skip_monitor commands, nor for a blocked command's retries;
     * AUTH, HELLO and MIGRATE's credentials are redacted. {@code source} is "lua" for script calls, else the client's
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
        if (spec.name().equals("migrate")) {
            // Its AUTH/AUTH2 credentials, and (more than Redis hides) whatever follows them.
            for (int i = 6; i < argv.length - 1 && redact < 0; i++) {
                if (Args.is(argv[i], "keys")) break;
                if (Args.is(argv[i], "auth") || Args.is(argv[i], "auth2")) redact = i + 1;
            }
        }
        java.time.Instant t = java.time.Instant.now();
        long now = t.getEpochSecond() * 1_000_000 + t.getNano() / 1000;
        int db = spec.name().equals("select") ? client.db() : dbIndex; // SELECT runs on the home shard
        server.monitor().feed(now, db, source != null ? source : client.connection().remoteAddress(), argv, redact);
    }

    /**
     * After a command succeeded: client tracking's read side (and FLUSHDB/FLUSHALL's invalidation of everything).
     * Everything a write changes is booked by the write seam ({@link ShardWrites}) as it happens.
     */
    void afterCommand(CommandSpec spec, byte[][] argv) {
        io.tide.pubsub.Tracking t = server.tracking();
        if (t.active()) track(t, spec, argv);
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
            // The keys a write changed were invalidated by the write seam as they changed.
            if (spec.name().equals("flushdb") || spec.name().equals("flushall")) t.invalidateAll();
            return;
        }
        io.tide.pubsub.Tracking.Mode m = client == null ? null : client.trackingMode();
        // A read-only script tracks what its calls read (each call comes through here), not its declared keys.
        if (m == null || m.bcast() || !spec.has(CommandSpec.READONLY) || spec.isScript()) return;
        if ((m.optin() && caching != 1) || (m.optout() && caching == -1)) return;
        // Redis's getKeysFromCommand, as COMMAND GETKEYS has it: SORT_RO's sorted key even where a BY or GET pattern
        // makes the routing finder answer "every key"
        for (CommandSpec.KeyRef k : spec.keyRefs(argv)) t.remember(origin, k.key());
    }

    /**
     * For a handler that answers later from another thread (SHUTDOWN's save): the reply the handler returns is
     * dropped, and the returned function delivers the real answer in the client's reply order, from any thread.
     * Only for commands that run on the client's home shard.
     */
    public java.util.function.Consumer<Reply> answerLater() {
        ClientSession c = client;
        ClientSession.Slot slot = c.reserve(false);
        c.suppressCurrentReply();
        return r -> c.home().loop().execute(() -> {
            c.complete(slot, r);
            c.connection().flush();
        });
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

    /** MIGRATE's connection cache of the thread running this command: its shard's, or the coordinator's. */
    public MigrateSockets migrateSockets() {
        return server.migrateSockets(coordinated || shard == null ? shards.size() : shard.id());
    }
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

    /**
     * Reads a key for a write command (Redis's lookupKeyWrite: lazy expiry, no hit/miss counting). The handler may
     * change the value in place afterwards; it then reports that with {@link #modified} (a snapshot in progress has
     * already kept the old value, and the size change is booked).
     */
    public Object readForWrite(byte[] key) {
        Database d = db(key);
        Object v = d.getForWrite(key, now);
        if (v instanceof Sized sz) open(d, key, sz);
        return v;
    }

    /**
     * {@link #readForWrite} for INCR and its kin: an integer embedded in its entry comes back as
     * {@link Database#INTEGER}, its value in the key's database's {@link Database#integerRead()} (no boxing).
     */
    public Object readIntegerForWrite(byte[] key) {
        return db(key).getIntegerForWrite(key, now);
    }

    /**
     * Redis's signalModifiedKey where nothing changed (LTRIM that keeps the whole list): clients that WATCH the key
     * (selected database) see it touched and tracking clients get its invalidation, as in Redis; nothing is
     * journalled or counted, since nothing changed.
     */
    public void touched(byte[] key) {
        shardOf(key).writes().touched(db(key), key);
    }

    /**
     * The write seam for in-place changes: the value of {@code key} (selected database), obtained with
     * {@link #readForWrite}, was changed. Books its size change and tells the shard's seam (dirty counter, WATCH,
     * tracking, blocked clients, the journal). A handler that changed nothing does not call this, and then nothing
     * is touched or recorded. Keyspace events stay the handler's, as in Redis (their names are the command's).
     */
    public void modified(byte[] key) {
        Database d = db(key);
        long delta = 0;
        for (int i = 0; i < openCount; i++) {
            OpenWrite w = openWrites.get(i);
            if (w.db == d && java.util.Arrays.equals(w.key, key)) {
                long now = w.value.memoryBytes();
                delta = now - w.before;
                w.before = now;
                break;
            }
        }
        d.modified(key, delta);
    }

    private void open(Database d, byte[] key, Sized v) {
        for (int i = 0; i < openCount; i++) {
            if (openWrites.get(i).value == v) return;
        }
        OpenWrite w;
        if (openCount < openWrites.size()) {
            w = openWrites.get(openCount);
        } else {
            w = new OpenWrite();
            openWrites.add(w);
        }
        openCount++;
        w.db = d;
        w.key = key;
        w.value = v;
        w.before = v.memoryBytes();
    }

    /** After a command: books the size change of every value it opened (also those it did not report). */
    private void closeWrites() {
        for (int i = 0; i < openCount; i++) {
            OpenWrite w = openWrites.get(i);
            long delta = w.value.memoryBytes() - w.before;
            if (delta != 0) w.db.adjustUsedBytes(delta);
            w.db = null;
            w.key = null;
            w.value = null;
        }
        openCount = 0;
    }

    /** A value opened for writing by the running command. */
    private static final class OpenWrite {
        Database db;
        byte[] key;
        Sized value;
        long before;
    }

    // ---------------------------------------------------------------- the journal

    /**
     * Replaces the current command's journalled form (Redis's rewriteClientCommandVector / alsoPropagate): the
     * deterministic commands that reproduce its effect, such as PEXPIREAT for EXPIRE, SREM for SPOP, LPOP for a
     * served BLPOP. Each runs in the command's database. Has no effect if the command turns out to change nothing.
     */
    public void propagateAs(byte[][]... commands) {
        rewrite = commands;
    }

    /**
     * Tells the journal that the current command changed server-wide state outside the keyspace (functions), so
     * that it is recorded although no key changed.
     */
    public void serverStateChanged() {
        wroteServerState = true;
    }

    /** Whether the journal records this run's effects (a handler may skip building a costly rewrite otherwise). */
    public boolean journalling() {
        return journalling;
    }

    /** Starts a top-level operation: its effects go to the journals of the shards it changed, whole, at endOp. */
    /** The tracking whose batch this operation opened (someone tracked when it began), else null. */
    private io.tide.pubsub.Tracking trackingBatch;

    void beginOp() {
        Shard first = coordinated ? shards.get(Long.numberOfTrailingZeros(parked)) : shard;
        journalling = first.writes().journal().active();
        nestedCalls = 0;
        long origin = client == null ? 0 : client.id();
        ShardWrites.Recorder r = journalling ? this : null;
        if (!coordinated) {
            shard.writes().running(origin, r);
        } else {
            for (long m = parked; m != 0; m &= m - 1) shards.get(Long.numberOfTrailingZeros(m)).writes().running(origin, r);
        }
        io.tide.pubsub.Tracking t = server.tracking();
        trackingBatch = t.active() ? t : null;
        if (trackingBatch != null) t.beginCommand(origin);
        beginCommand();
    }

    private void beginCommand() {
        rewrite = null;
        wroteWholeDb = false;
        wroteServerState = false;
        writtenKeys.clear();
        if (!journalling) return;
        if (!coordinated) {
            writesAtStart[shard.id()] = shard.writes().writes();
        } else {
            for (long m = parked; m != 0; m &= m - 1) {
                int id = Long.numberOfTrailingZeros(m);
                writesAtStart[id] = shards.get(id).writes().writes();
            }
        }
    }

    /**
     * After a command (top-level or nested) ran in database {@code db}: records its effect for the shards it
     * changed. On one shard, its journalled form; on several (a multi-key command across shards), each shard gets
     * the resulting state of the keys it owns, except for whole-database commands (FLUSHALL, SWAPDB), which every
     * changed shard records as they are.
     */
    private void endCommand(byte[][] argv, int db, boolean ranNested) {
        closeWrites();
        // A command that ran others (EXEC, a script) is journalled by their effects, which are recorded already.
        if (!journalling || ranNested) return;
        int changed = 0;
        int only = -1;
        if (!coordinated) {
            if (shard.writes().writes() != writesAtStart[shard.id()]) {
                changed = 1;
                only = shard.id();
            }
        } else {
            for (long m = parked; m != 0; m &= m - 1) {
                int id = Long.numberOfTrailingZeros(m);
                if (shards.get(id).writes().writes() != writesAtStart[id]) {
                    changed++;
                    only = id;
                }
            }
        }
        if (changed == 0 && wroteServerState) { // recorded on the shard it ran on: any one stream carries it
            changed = 1;
            only = coordinated ? Long.numberOfTrailingZeros(parked) : shard.id();
        }
        if (changed == 0) return;
        // A coordinated command whose keys span shards but that changed only one: its argv names other shards' keys
        // (a per-shard replay cannot read them, a merged stream may order it after their later writes), so that
        // shard records the state of its written keys instead.
        if (changed == 1 && coordinated && !wroteWholeDb && spansShards(argv)) changed = 2;
        if (changed == 1 || wroteWholeDb) {
            for (long m = coordinated ? parked : 1L << only; m != 0; m &= m - 1) {
                int id = Long.numberOfTrailingZeros(m);
                if (changed == 1 && id != only) continue;
                if (changed > 1 && shards.get(id).writes().writes() == writesAtStart[id]) continue;
                if (rewrite != null) {
                    for (byte[][] c : rewrite) effectsOf(id).add(new Effect(db, c));
                } else {
                    effectsOf(id).add(new Effect(db, argv));
                }
            }
            return;
        }
        // A command whose writes span shards: each shard records the resulting state of its keys.
        java.util.HashSet<WrittenKey> seen = new java.util.HashSet<>();
        for (WrittenKey k : writtenKeys) {
            if (!seen.add(k)) continue;
            Database d = shards.get(k.shard).db(k.db);
            for (byte[][] c : io.tide.journal.KeyStates.of(d, k.key, now)) effectsOf(k.shard).add(new Effect(k.db, c));
        }
    }

    /** Whether the keys of {@code argv} (by its command's key positions) belong to more than one shard. */
    private boolean spansShards(byte[][] argv) {
        CommandSpec spec = server.table().lookup(argv[0]);
        if (spec == null || !spec.hasKeys()) return false;
        int first = -1;
        for (byte[] k : spec.keys(argv)) {
            int id = shards.shardOf(k).id();
            if (first == -1) first = id;
            else if (id != first) return true;
        }
        return false;
    }

    private List<Effect> effectsOf(int shardId) {
        List<Effect> l = effects[shardId];
        if (l == null) l = effects[shardId] = new ArrayList<>(4);
        return l;
    }

    /** Ends the top-level operation: hands its effects to the journals, whole (see {@link Journal}). */
    void endOp(byte[][] argv, int db) {
        endCommand(argv, db, nestedCalls > 0);
        io.tide.pubsub.Tracking t = trackingBatch;
        if (t != null) {
            trackingBatch = null;
            t.endCommand(); // BCAST invalidations of the whole command, EXEC or script
        }
        long mask = coordinated ? parked : 1L << shard.id();
        if (journalling) {
            int parts = 0;
            for (long m = mask; m != 0; m &= m - 1) {
                List<Effect> l = effects[Long.numberOfTrailingZeros(m)];
                if (l != null && !l.isEmpty()) parts++;
            }
            long seq = parts > 1 ? server.nextGroupSeq() : 0;
            for (long m = mask; m != 0; m &= m - 1) {
                int id = Long.numberOfTrailingZeros(m);
                List<Effect> l = effects[id];
                if (l == null || l.isEmpty()) continue;
                Journal j = shards.get(id).writes().journal();
                if (parts == 1 && l.size() == 1) j.command(l.get(0));
                else j.transaction(seq, parts, List.copyOf(l));
                l.clear();
            }
        }
        for (long m = mask; m != 0; m &= m - 1) shards.get(Long.numberOfTrailingZeros(m)).writes().running(0, null);
        journalling = false;
    }

    @Override
    public void written(Shard s, int db, byte[] key) {
        if (key == null) {
            wroteWholeDb = true;
            return;
        }
        if (coordinated) writtenKeys.add(new WrittenKey(s.id(), db, key));
    }

    @Override
    public void expired(Shard s, Effect del) {
        effectsOf(s.id()).add(del);
    }

    /** A key written by the running command, compared by content. */
    private record WrittenKey(int shard, int db, byte[] key) {
        @Override
        public boolean equals(Object o) {
            return o instanceof WrittenKey k && k.shard == shard && k.db == db && java.util.Arrays.equals(k.key, key);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(key) * 31 + shard * 17 + db;
        }
    }

    /**
     * The shards this run owns: every shard the coordinator parked, or the one it runs on (with one shard, or while
     * one shard's journal is replayed at startup). Whole-database commands (FLUSHALL, SWAPDB) act on these.
     */
    public Shard[] ownedShards() {
        if (!coordinated) return new Shard[] {shard};
        Shard[] out = new Shard[Long.bitCount(parked)];
        int n = 0;
        for (long m = parked; m != 0; m &= m - 1) out[n++] = shards.get(Long.numberOfTrailingZeros(m));
        return out;
    }

    /** Every shard's copy of database {@code index}: only for ALL_SHARDS commands (or with one shard). */
    public Database[] allDbs(int index) {
        Shard[] all = shards.all();
        Database[] out = new Database[all.length];
        for (int i = 0; i < all.length; i++) out[i] = all[i].db(index);
        return out;
    }
}
