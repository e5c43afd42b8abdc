package io.tide.command;

import io.tide.protocol.Reply;
import io.tide.shard.BlockedKeys;
import io.tide.shard.Shard;
import io.tide.shard.ShardSet;
import java.util.ArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place every request passes: lookup, arity, auth, routing, execution, error replies and
 * statistics. Thread-safe: it holds only immutable wiring plus one reusable {@link CommandContext}
 * per shard thread (used only by that thread) and one for the coordinator thread.
 *
 * <p>Routing. A request arrives on its client's home shard. With one shard everything runs inline.
 * With several, the keys named by the command's key positions decide: all on the home shard, run
 * inline; all on one other shard, <em>hop</em> there (post the command to that shard's loop, post the
 * reply back); on several shards, or for an ALL_SHARDS command, the {@link io.tide.shard.Coordinator}
 * parks the shards involved and runs the command against all of them at once, so it is atomic. ALL_SHARDS reads
 * that need no single instant (DBSIZE, KEYS, SCAN, RANDOMKEY, INFO, CLIENT LIST: a {@link CommandSpec.Gather}) are instead gathered
 * shard by shard on the shards' own threads, parking none of them.
 *
 * <p>Batching. Hops are not posted one by one: during an event-loop iteration the home shard collects
 * them per target shard, and after the iteration posts each target one task with the whole batch;
 * the target runs them in order and posts the replies back in one task. Under pipelined or
 * many-client load this turns two cross-thread wake-ups per command into two per batch.
 *
 * <p>Order. Replies leave in request order: a command that completes later reserves its place in the
 * session's reply queue. Commands that hop to the same shard run in order because each loop is FIFO.
 * While a coordinated command of a client is in flight, that client's next requests wait on its home
 * shard, so a later single-shard command can never overtake it; likewise a command that would run elsewhere than
 * the client's hops still in flight waits for them ({@link #followsHops}), so that a client's commands take effect
 * in the order it sent them, as in Redis.
 */
public final class Dispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
    /** Deferred requests beyond which the client's socket stops being read until they drain. */
    private static final int DEFER_PAUSE_THRESHOLD = 4096;
    /** Delivered hops a home shard keeps for reuse. */
    private static final int MAX_FREE_HOPS = 1024;
    /** Completed hop batches an outbox keeps for reuse. */
    private static final int MAX_FREE_BATCHES = 64;
    /**
     * Longest view reply a hop keeps in its own array (decision 0030): the longest value GET reads in place (an embedded
     * one); so the free hops of a home shard hold at most 1 MB of such arrays.
     */
    private static final int HOP_BYTES_MAX = io.tide.store.Database.INLINE_LIMIT;
    private static final Reply QUEUED = Reply.simple("QUEUED");

    private final ServerContext server;
    private final CommandTable table;
    private final ShardSet shards;
    private final CommandContext[] shardContexts;
    private final CommandContext coordinatorContext;
    /** Per shard: the outcome holding its context's reusable view reply (GET's reply read in place). */
    private final Outcome[] viewOutcomes;
    private final Outcome[] intViewOutcomes;
    private final boolean single;
    /**
     * Scripts run inline on a shard, in a continuation that moves to the coordinator if they turn busy: with one shard,
     * every script; with several, one whose declared keys all live on one shard (there: {@link #sendScript} when it is
     * not the client's) or that declares none (on the client's), which also moves once it reaches another shard's key
     * (decision 0022).
     */
    private final boolean inlineScripts;
    /** Per home shard, confined to its thread: clients postponed by CLIENT PAUSE, in order, and the pause end its
     *  release timer is armed for (0 = none). */
    private final java.util.ArrayDeque<ClientSession>[] postponedClients;
    private final long[] releaseArmedFor;
    /** Per home shard: hops gathered during the current loop iteration. */
    private final Outbox[] outboxes;
    /** Per home shard: coordinated operations on that shard alone, gathered during the current loop iteration. */
    private final SelfParkBatch[] selfParks;
    private final CommandSpec execSpec;
    private final CommandSpec watchSpec;
    private final CommandSpec multiSpec;
    private final CommandSpec discardSpec;
    private final CommandSpec quitSpec;
    private final CommandSpec resetSpec;
    private final CommandSpec shutdownSpec;
    private final io.tide.shard.Coordinator coordinator;
    private final io.tide.script.ScriptWatchdog watchdog;

    public Dispatcher(ServerContext server) {
        this.server = server;
        this.table = server.table();
        this.shards = server.shards();
        this.single = shards.size() == 1;
        this.inlineScripts = io.tide.util.Continuations.available();
        this.shardContexts = new CommandContext[shards.size()];
        for (int i = 0; i < shardContexts.length; i++) shardContexts[i] = new CommandContext(server);
        this.viewOutcomes = new Outcome[shardContexts.length];
        this.intViewOutcomes = new Outcome[shardContexts.length];
        for (int i = 0; i < viewOutcomes.length; i++) {
            viewOutcomes[i] = new Outcome(shardContexts[i].view(), false, null);
            intViewOutcomes[i] = new Outcome(shardContexts[i].intView(), false, null);
        }
        this.coordinatorContext = new CommandContext(server);
        this.postponedClients = newQueues(shards.size());
        this.releaseArmedFor = new long[shards.size()];
        this.outboxes = new Outbox[shards.size()];
        for (int i = 0; i < outboxes.length; i++) outboxes[i] = new Outbox(shards.get(i));
        this.selfParks = new SelfParkBatch[shards.size()];
        for (int i = 0; i < selfParks.length; i++) selfParks[i] = new SelfParkBatch(shards.get(i));
        this.execSpec = spec("exec");
        this.watchSpec = spec("watch");
        this.multiSpec = spec("multi");
        this.discardSpec = spec("discard");
        this.quitSpec = spec("quit");
        this.resetSpec = spec("reset");
        this.shutdownSpec = spec("shutdown");
        this.coordinator = shards.coordinator();
        this.watchdog = server.scripting().watchdog();
        server.onUnpause(this::resumeAllPostponed);
    }

    @SuppressWarnings("unchecked")
    private static java.util.ArrayDeque<ClientSession>[] newQueues(int n) {
        java.util.ArrayDeque<ClientSession>[] q = new java.util.ArrayDeque[n];
        for (int i = 0; i < n; i++) q[i] = new java.util.ArrayDeque<>();
        return q;
    }

    private CommandSpec spec(String name) {
        return table.lookup(name.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    /** Marks a protocol error in a client's queue of held-back requests: {@code {PROTOCOL_ERROR, message}}. */
    private static final byte[] PROTOCOL_ERROR = new byte[0];

    /**
     * A protocol error that the decoder found after the client's earlier requests, on its home shard thread. As Redis
     * does, those requests are answered, then the error, and the connection closes. Requests held back behind a
     * multi-shard, blocking or paused command have not run yet, so the error waits behind them in the same queue
     * ({@link #resume} answers it once they have run). Otherwise it goes out after the replies still pending, and
     * {@code closeNow} closes at once when none is.
     */
    public void protocolError(ClientSession c, String message, Runnable closeNow) {
        if (c.quitting || c.closed) return;
        if (c.barrierInFlight) {
            c.defer(new byte[][] {PROTOCOL_ERROR, message.getBytes(java.nio.charset.StandardCharsets.UTF_8)}, false);
        } else if (c.pendingReplies() > 0) {
            answerProtocolError(c, message);
        } else {
            c.send(Reply.error(message));
            closeNow.run();
        }
    }

    /** The error after every reply due before it; the connection closes once they are out. */
    private static void answerProtocolError(ClientSession c, String message) {
        c.requestClose();
        c.send(Reply.error(message));
    }

    /** Handles one request on the client's home shard thread. */
    public void dispatch(ClientSession c, byte[][] argv) {
        if (c.quitting || c.closed) return;
        if (c.barrierInFlight) {
            c.defer(argv, false);
            if (c.deferredRequests() == DEFER_PAUSE_THRESHOLD) c.connection().pauseReading(true);
            return;
        }
        dispatchNow(c, argv);
    }

    /**
     * Prefetches the keys of a batch of requests that one read brought, before the first of them runs (decision 0023):
     * the keys on the client's home shard (with several shards, the others are prefetched by their own shard when their
     * hops arrive). Only the key positions the command table names (the first
     * {@link io.tide.store.Database#PREFETCH_MAX} home keys of the batch), and only when there are several: a lone key
     * is looked up at once, with nothing to overlap. A client not yet authenticated gets nothing.
     */
    public void prefetch(ClientSession c, java.util.List<Object> batch) {
        if (c == null || !c.authenticated || c.home() == null) return;
        if (batch.size() == 1 && !(batch.get(0) instanceof byte[][] one && one.length > 2 && severalKeys(c, one))) {
            return;
        }
        Shard home = c.home();
        io.tide.store.Database db = home.db(c.db());
        byte[] lastName = null;
        CommandSpec spec = null;
        for (int k = 0, n = batch.size(); k < n; k++) {
            if (!(batch.get(k) instanceof byte[][] argv) || argv.length < 2) continue;
            if (argv[0] != lastName) {
                lastName = argv[0];
                spec = specOf(c, argv[0]);
            }
            if (!prefetchKeys(db, spec, argv, single ? null : home)) break;
        }
        db.prefetchEntries();
    }

    /**
     * Whether batches of requests have their keys prefetched (decision 0023): a read's on its home shard, a batch of
     * hops on its target; {@code -Dtide.prefetch=false} turns it off.
     */
    public static final boolean PREFETCH = !"false".equals(System.getProperty("tide.prefetch"));
    /** Whether argument arrays go back to the decoder (decision 0028); {@code -Dtide.argvPool=false} turns it off (A/B). */
    static final boolean ARGV_POOL = !"false".equals(System.getProperty("tide.argvPool"));

    /**
     * Whether nothing outside a command's handler can hold its arguments by reference once it has run (decision 0028):
     * no journal sink that keeps its records' arrays (replication queues them until its flush; the AOF encodes them at
     * once, see {@link io.tide.journal.JournalSink#keepsArguments}) and no blocked client (a key that a write
     * signals waits in the ready list). Both belong to this shard and change only on its thread (or while it is
     * parked), so what this reads after the command held all through it. Keyspace events and client tracking, which
     * other threads switch on, copy the keys they keep.
     */
    private boolean nothingKeepsArguments(Shard home) {
        return !home.writes().journal().keepsArguments() && home.blocking().isEmpty();
    }

    /**
     * Prefetches the keys of a batch of hops on their target shard, whose own keys they all are, before the first runs
     * (decision 0023). Batches whose hops name several databases are left alone.
     */
    private void prefetchHops(Shard target, Hop[] batch, int n) {
        if (!PREFETCH || n < 2) return;
        int db = batch[0].db;
        for (int i = 0; i < n; i++) if (batch[i].db != db) return;
        io.tide.store.Database d = target.db(db);
        for (int i = 0; i < n; i++) {
            if (!prefetchKeys(d, batch[i].spec, batch[i].argv, null)) break; // a hop's keys are all its target's
        }
        d.prefetchEntries();
    }

    /**
     * The first prefetch pass over the keys {@code spec} names in {@code argv} (none when it names none, or is null),
     * those of them on shard {@code only} when it is not null; false once the database takes no more.
     */
    private boolean prefetchKeys(io.tide.store.Database d, CommandSpec spec, byte[][] argv, Shard only) {
        int last = lastKeyIndex(spec, argv);
        if (last == 0) return true;
        for (int i = spec.firstKey(), step = Math.max(1, spec.keyStep()); i <= last; i += step) {
            if ((only == null || shards.shardOf(argv[i]) == only) && !d.prefetch(argv[i])) return false;
        }
        return true;
    }

    /** The command table's entry for {@code name}, through the session's memory of its last one. */
    private CommandSpec specOf(ClientSession c, byte[] name) {
        return name == c.lastCommandName ? c.lastCommandSpec : table.lookup(name);
    }

    /** Whether the command of {@code argv} names more than one key in it. */
    private boolean severalKeys(ClientSession c, byte[][] argv) {
        CommandSpec spec = specOf(c, argv[0]);
        int last = lastKeyIndex(spec, argv);
        return last != 0 && last > spec.firstKey();
    }

    /** Index in {@code argv} of the last key {@code spec} names there; 0 when it names none (or is null). */
    private static int lastKeyIndex(CommandSpec spec, byte[][] argv) {
        if (spec == null || spec.firstKey() <= 0) return 0;
        return spec.lastKey() < 0 ? argv.length + spec.lastKey() : Math.min(spec.lastKey(), argv.length - 1);
    }

    private void dispatchNow(ClientSession c, byte[][] argv) {
        Shard home = c.home();
        // The command's start and wall-clock time, chained to the previous command of the same run (decision 0024).
        io.tide.shard.CommandClock clock = home.clock();
        long t0 = clock.start();
        long now = clock.millis(t0);
        c.lastInteractionSec = (int) (now / 1000);
        boolean silent = c.takeSilence();

        CommandSpec spec;
        if (argv[0] == c.lastCommandName) {
            spec = c.lastCommandSpec;
        } else {
            spec = table.lookup(argv[0]);
            c.lastCommandName = argv[0];
            c.lastCommandSpec = spec;
        }
        if (spec == null) {
            c.failMulti();
            c.reply(Reply.error(Errors.unknownCommand(argv)), silent);
            return;
        }
        if (spec.isContainer() && (argv.length >= 2 || spec.handler() == null)) {
            if (argv.length < 2) {
                reject(c, spec, home, Errors.wrongArity(spec.fullName()), silent);
                return;
            }
            CommandSpec sub = spec.subcommands().get(Args.lower(argv[1]));
            if (sub == null) {
                reject(c, spec, home, Errors.unknownSubcommand(Errors.printable(argv[1]), spec.name()).getMessage(),
                        silent);
                return;
            }
            spec = sub;
        }
        if (!spec.arityOk(argv.length)) {
            reject(c, spec, home, Errors.wrongArity(spec.fullName()), silent);
            return;
        }
        if (!c.authenticated && !spec.has(CommandSpec.NO_AUTH)) {
            reject(c, spec, home, Errors.NOAUTH, silent);
            return;
        }
        if (!server.acl().unrestricted()) {
            io.tide.acl.Acl.Denial d = server.aclCheck(c, spec, argv,
                    c.inMulti() ? io.tide.acl.AclLog.Context.MULTI : io.tide.acl.AclLog.Context.TOPLEVEL);
            if (d != io.tide.acl.Acl.Denial.NONE) {
                reject(c, spec, home, Errors.aclDenied(d, spec, false), silent);
                return;
            }
        }
        io.tide.persistence.Persistence persistence = server.persistence();
        if (persistence.loading() && !spec.has(CommandSpec.LOADING)) {
            reject(c, spec, home, Errors.LOADING, silent);
            return;
        }
        if (server.replica().refusesStale() && (!spec.has(CommandSpec.STALE) || (spec == execSpec && c.inMulti()
                && queuesNonStale(c)))) {
            reject(c, spec, home, Errors.MASTERDOWN, silent);
            return;
        }
        if (spec.has(CommandSpec.WRITE) && !c.inMulti()) {
            if (persistence.writesRefused()) {
                reject(c, spec, home, Errors.MISCONF, silent);
                return;
            }
            String aof = server.appendOnly().refusal();
            if (aof != null) {
                reject(c, spec, home, Errors.AOF_WRITE_ERROR_PREFIX + aof, silent);
                return;
            }
        }
        if ((spec.has(CommandSpec.WRITE) || (spec == execSpec && c.inMulti() && queuesWrite(c)))
                && server.replica().refusesWrites()) {
            reject(c, spec, home, Errors.READONLY, silent);
            return;
        }
        if ((spec.has(CommandSpec.WRITE) || (spec == execSpec && c.inMulti() && queuesWrite(c))) && !goodReplicas()
                && !server.replica().active()) {
            reject(c, spec, home, Errors.NOREPLICAS, silent);
            return;
        }
        if ((c.inMulti() || spec == execSpec) && !server.memory().admit(home) && rejectsOnOom(c, spec)) {
            reject(c, spec, home, Errors.OOM, silent);
            return;
        }
        if (c.protocol == 2 && c.inPubSubMode() && !allowedInSubscribeMode(spec)) {
            reject(c, spec, home, Errors.PUBSUB_CONTEXT_PREFIX + spec.fullName() + Errors.PUBSUB_CONTEXT_SUFFIX,
                    silent);
            return;
        }
        if (coordinator.lent() && refusedWhileBusy(c, spec, argv, home, silent)) return;
        ServerContext.Pause pause = server.pauseAt(now);
        if (pause != null && (pause.all() || mayReplicate(c, spec, argv))) {
            if (silent && c.replyMode() != ClientSession.ReplyMode.OFF) c.skipNextReply(); // SKIP applies when it runs
            c.lastCommand = spec.fullName(); // CLIENT LIST shows the command it waits with, as Redis
            postpone(c, argv, pause.endMs(), now);
            return;
        }
        if (c.inMulti()) {
            if (spec.has(CommandSpec.NO_MULTI)) {
                reject(c, spec, home, Errors.NOT_IN_MULTI, silent);
                return;
            }
            if (!runsInsideMulti(spec)) {
                c.queue(spec, argv);
                c.reply(QUEUED, silent);
                return;
            }
        }
        // The shards of the command's keys, each key's slot hashed once for both uses below; -1: any (ALL_SHARDS, or
        // keys a key finder cannot name in advance), 0: none. A one-shard server has no use for it.
        long involved = single ? 0 : spec == execSpec && c.inMulti() ? execShards(c) : routeMask(spec, argv);
        if (c.hopsInFlight > 0 && !followsHops(c, spec, argv, involved)) {
            // Redis runs a client's commands one after the other. One that would run elsewhere than the client's
            // commands still on their way to another shard could take effect (or read) before them, so it waits.
            if (silent && c.replyMode() != ClientSession.ReplyMode.OFF) c.skipNextReply(); // SKIP applies when it runs
            c.defer(argv, true);
            c.barrierInFlight = true;
            c.awaitingHops = true;
            return;
        }
        c.lastCommand = spec.fullName();
        long argvBytes = 0;
        for (byte[] a : argv) argvBytes += a.length;
        c.argvBytes(argvBytes);
        home.stats().commandsProcessed++; // as Redis's total_commands_processed: commands that get to run

        if (single) {
            if (inlineScripts && spec.isScript()) runInline(c, spec, argv, home, now, t0, silent, null);
            else if (needsCoordinator(c, spec, argv)) runCoordinated(c, spec, argv, shards.all(), silent);
            else runInline(c, spec, argv, home, now, t0, silent);
            return;
        }
        if (spec.has(CommandSpec.ALL_SHARDS)) {
            if (spec.gather() != null && !c.inMulti()) runGathered(c, spec, argv, silent);
            else runCoordinated(c, spec, argv, shards.all(), silent);
            return;
        }
        if (involved == -1L) {
            // EXEC of a queue that needs every shard, or keys named only as the command runs (a script's, which start
            // with their declared keys' shards parked)
            long declared = spec != execSpec && spec.isScript() ? declaredKeysMask(argv) : 0;
            Shard[] coordinated = declared != 0 ? shardsOf(declared) : shards.all();
            // Inline on the shard of its declared keys (the home shard when it declares none), when no earlier command
            // of the client is still on its way to another shard (an undeclared key there must not be read before it).
            if (inlineScripts && spec != execSpec && spec.isScript() && c.hopsInFlight == 0
                    && Long.bitCount(declared) <= 1 && !server.scripting().crossedBefore(spec.name(), argv[1])) {
                if (declared == 0 || declared == 1L << home.id()) runInline(c, spec, argv, home, now, t0, silent, coordinated);
                else sendScript(c, spec, argv, shards.get(Long.numberOfTrailingZeros(declared)), silent, coordinated);
            } else {
                runCoordinated(c, spec, argv, coordinated, silent);
            }
            return;
        }
        if (involved == 0) {
            runInline(c, spec, argv, home, now, t0, silent);
            return;
        }
        Shard target = shards.get(Long.numberOfTrailingZeros(involved));
        if (Long.bitCount(involved) > 1) {
            runCoordinated(c, spec, argv, shardsOf(involved), silent);
        } else if (target == home) {
            runInline(c, spec, argv, home, now, t0, silent);
        } else {
            hop(c, spec, argv, target, silent);
        }
    }

    private void runInline(ClientSession c, CommandSpec spec, byte[][] argv, Shard home, long now, long t0,
                           boolean silent) {
        runInline(c, spec, argv, home, now, t0, silent, false, null);
    }

    /** A script inline on {@code home}: see the next. */
    private void runInline(ClientSession c, CommandSpec spec, byte[][] argv, Shard home, long now, long t0,
                           boolean silent, Shard[] coordinated) {
        runInline(c, spec, argv, home, now, t0, silent, true, coordinated);
    }

    /**
     * {@code script}: a script run in a continuation; if it turns busy, or (with several shards) reaches another
     * shard's key, it yields, and its rest moves to the coordinator ({@link #moveScript}), so that this thread can
     * answer -BUSY meanwhile, or the coordinator can park that shard too (decision 0022). With several shards the Lua
     * engine must be free now ({@code coordinated}: where the script runs otherwise, over those shards), as this thread
     * must never wait for it: the script holding it may be a coordinated one that needs this shard parked.
     */
    private void runInline(ClientSession c, CommandSpec spec, byte[][] argv, Shard home, long now, long t0,
                           boolean silent, boolean script, Shard[] coordinated) {
        CommandContext ctx = shardContexts[home.id()].reset(home, false, 0, c, c.db, now, c.noTouch);
        // The reply is written below, before this thread runs anything else (or settled); a script's is its own.
        if (!script) {
            ctx.allowReplyInPlace();
            ctx.allowArgumentsBack();
        }
        io.tide.journal.Journal journal = home.writes().journal();
        long recorded = journal.records();
        Outcome o = c.inMulti() ? null : memoryRefusal(spec, home);
        if (o == null && script) {
            InlineScript run = new InlineScript(spec, ctx, argv);
            switch (run.here(coordinated != null)) {
                case ENGINE_TAKEN -> {
                    runCoordinated(c, spec, argv, coordinated, silent);
                    return;
                }
                case CROSSED_BEFORE -> {
                    runCoordinated(c, spec, argv, coordinated, silent, true);
                    return;
                }
                case MOVED -> {
                    ClientSession.Slot slot = c.reserve(silent, spec, argv);
                    c.barrierInFlight = true;
                    moveScript(c, spec, argv, home, slot, ctx, run, recorded, t0);
                    return;
                }
                case RAN -> o = run.outcome;
            }
        }
        if (o == null) o = execute(spec, ctx, argv);
        record(spec, home, o, home.clock().end() - t0, c, argv);
        if (c.forceCurrent) {
            c.forceCurrent = false;
            c.suppressCurrent = false;
            silent = false;
        } else if (c.suppressCurrent) {
            c.suppressCurrent = false;
            silent = true;
        }
        if (o.block != null) {
            BlockedCommand w = new BlockedCommand(this, shards, c, spec, o.block, c.reserve(silent), c.db,
                    1L << home.id());
            w.register();
            c.barrierInFlight = true;
            blocked(w, now);
        } else if (journal.records() != recorded && journal.syncsReplies()) {
            // appendfsync always: the reply leaves once what the command recorded is fsynced (group commit).
            ClientSession.Slot slot = c.reserve(silent, spec, argv);
            Reply r = Reply.settled(o.reply);
            journal.whenDurable(ok -> {
                c.complete(slot, ok ? r : Reply.error(aofError(home)));
                c.connection().flush();
            });
        } else if (o.reply instanceof Reply.Later later) {
            answerLater(c, c.reserve(silent, spec, argv), later);
        } else {
            // Read before the reply: one that waits in a slot behind another holds argv there.
            boolean giveBack = !ctx.argumentsKept() && ARGV_POOL && c.nonePending();
            c.reply(o.reply, silent, spec, argv);
            if (giveBack && nothingKeepsArguments(home)) {
                io.tide.protocol.ArgvPool.current().give(argv);
            }
        }
        // While a busy script holds the data, the coordinator serves later. Served clients' commands run here, between
        // this command's end and the next one's start: the next one reads the clock afresh.
        if (!home.dataLent() && home.blocking().hasReady()) {
            serveReady(home);
            home.clock().breakChain();
        }
    }

    /**
     * What came of starting a script inline ({@link InlineScript#here}): it ran to its end; it yielded to move to the
     * coordinator ({@link #moveScript}); the Lua engine was taken, or it reached another shard's key when it last ran
     * there (MONITOR has shown it then): either way nothing ran, and it starts on the coordinator instead.
     */
    private enum Inline { RAN, MOVED, ENGINE_TAKEN, CROSSED_BEFORE }

    /** A script's run, inside a continuation (see {@link #runInline}). */
    private final class InlineScript implements Runnable {
        private final CommandSpec spec;
        private final CommandContext ctx;
        private final byte[][] argv;
        private Object continuation;
        Outcome outcome;

        InlineScript(CommandSpec spec, CommandContext ctx, byte[][] argv) {
            this.spec = spec;
            this.ctx = ctx;
            this.argv = argv;
        }

        /**
         * Runs it on this (shard) thread, in a continuation. {@code takeEngine} (several shards): only if the Lua engine
         * is free now, as a shard thread never waits for it. What came of it: {@link Inline}.
         */
        Inline here(boolean takeEngine) {
            io.tide.script.LuaEngine engine = null;
            if (takeEngine) {
                engine = server.scripting().engine();
                if (!engine.tryHold()) return Inline.ENGINE_TAKEN;
                ctx.holdEnginePermit();
            }
            ctx.suspendable(true);
            continuation = io.tide.util.Continuations.create(this);
            io.tide.util.Continuations.run(continuation);
            if (!io.tide.util.Continuations.isDone(continuation)) return Inline.MOVED;
            if (ctx.takeEnginePermit()) engine.release(); // it ended before the engine ran (NOSCRIPT, a bad numkeys)
            return outcome.reply == io.tide.script.LuaEngine.ON_THE_COORDINATOR ? Inline.CROSSED_BEFORE : Inline.RAN;
        }

        /** On the coordinator thread: runs the rest to its end (only a shard thread yields). */
        void finish() {
            io.tide.util.Continuations.run(continuation);
        }

        @Override
        public void run() {
            outcome = execute(spec, ctx, argv);
        }
    }

    /**
     * On the home shard: a script whose declared keys all live on {@code target}, another shard, is sent there to run
     * inline (decision 0022, amended 2026-12-07); the client's later requests wait for its reply, as for a
     * coordinated command, which is what it becomes if it cannot run there ({@code coordinated}: its shards).
     */
    private void sendScript(ClientSession c, CommandSpec spec, byte[][] argv, Shard target, boolean silent,
                            Shard[] coordinated) {
        ClientSession.Slot slot = c.reserve(silent, spec, argv);
        c.barrierInFlight = true;
        int db = c.db;
        boolean noTouch = c.noTouch;
        long t0 = System.nanoTime();
        target.loop().execute(() -> scriptOn(target, c, spec, argv, slot, db, noTouch, coordinated, t0));
    }

    /** On {@code target}'s thread: {@link #sendScript}'s script, whose reply goes home as a coordinated one's does. */
    private void scriptOn(Shard target, ClientSession c, CommandSpec spec, byte[][] argv, ClientSession.Slot slot,
                          int db, boolean noTouch, Shard[] coordinated, long t0) {
        if (target.dataLent()) { // a busy script holds the data: after it
            coordinate(c, spec, argv, coordinated, slot, db, noTouch, false);
            return;
        }
        CommandContext ctx = shardContexts[target.id()].reset(target, false, 0, c, db, System.currentTimeMillis(),
                noTouch);
        long recorded = target.writes().journal().records();
        memoryRefusal(spec, target); // a script's own: records the state its denyoom calls are refused by
        InlineScript run = new InlineScript(spec, ctx, argv);
        switch (run.here(true)) {
            case ENGINE_TAKEN -> {
                coordinate(c, spec, argv, coordinated, slot, db, noTouch, false);
                return;
            }
            case CROSSED_BEFORE -> {
                coordinate(c, spec, argv, coordinated, slot, db, noTouch, true);
                return;
            }
            case MOVED -> {
                moveScript(c, spec, argv, target, slot, ctx, run, recorded, t0);
                return;
            }
            case RAN -> { }
        }
        Outcome o = run.outcome;
        long nanos = System.nanoTime() - t0;
        if (target.blocking().hasReady()) serveReady(target);
        afterCoordinated(new Shard[] {target}, new long[] {recorded}, c.home(), ok -> finishCoordinated(c, spec, argv,
                slot, ok ? o : new Outcome(Reply.error(aofError(target)), true, null), nanos, null));
    }

    /**
     * A script inline on {@code executing} turned busy, or reached another shard's key, and yielded: its rest runs on
     * the coordinator thread, with this shard parked until the coordinator lends the data (as for a busy coordinated
     * script: this thread then answers -BUSY); the reply ({@code slot}, reserved on the client's home shard) follows as
     * a coordinated command's does. The script keeps {@code ctx}; the shard takes a fresh context for what it serves
     * meanwhile.
     */
    private void moveScript(ClientSession c, CommandSpec spec, byte[][] argv, Shard executing, ClientSession.Slot slot,
                            CommandContext ctx, InlineScript run, long recorded, long t0) {
        int id = executing.id();
        CommandContext fresh = new CommandContext(server);
        shardContexts[id] = fresh;
        viewOutcomes[id] = new Outcome(fresh.view(), false, null);
        intViewOutcomes[id] = new Outcome(fresh.intView(), false, null);
        Shard[] involved = {executing};
        long[] recordedAt = {recorded};
        Runnable rest = () -> {
            ctx.movedToCoordinator();
            run.finish();
            Outcome o = run.outcome;
            long nanos = System.nanoTime() - t0;
            long owned = ctx.parkedMask(); // with several shards it may have parked more than its own
            Touched t = touched(ctx, involved, recordedAt);
            serveReadyCoordinated(owned);
            afterCoordinated(t.shards, t.recorded, c.home(), ok -> finishCoordinated(c, spec, argv, slot,
                    ok ? o : new Outcome(Reply.error(aofError(executing)), true, null), nanos, null));
        };
        Runnable rejected = shuttingDown(c, spec, argv, slot, c.home());
        shards.coordinator().adopt(executing, rest, rejected, true);
    }

    /** The shards a coordinated run owned at its end, and their journals' record counts before it wrote to them. */
    private record Touched(Shard[] shards, long[] recorded) {}

    /**
     * What a coordinated run that began with {@code involved} (their journals' counts {@code recorded}) owns at its
     * end: more shards when a script parked others for undeclared keys ({@link CommandContext#parkedMask}), each
     * with its count from when it was parked.
     */
    private Touched touched(CommandContext ctx, Shard[] involved, long[] recorded) {
        long owned = ctx.parkedMask();
        if (owned == maskOf(involved)) return new Touched(involved, recorded);
        Shard[] touched = shardsOf(owned);
        long[] touchedRecorded = new long[touched.length];
        for (int i = 0; i < touched.length; i++) {
            int at = indexOf(involved, touched[i]);
            touchedRecorded[i] = at >= 0 ? recorded[at] : ctx.recordsAtPark(touched[i].id());
        }
        return new Touched(touched, touchedRecorded);
    }

    /**
     * Whether a command may start, its keys on the shards of {@code mask} ({@link #routeMask}), while {@code c}'s hops
     * to {@link ClientSession#hopTarget} are unanswered without
     * running before them: a hop to that same shard (its loop runs them in order), or a coordinated or gathered command
     * that involves that shard (its barrier or walk waits there behind them). Anything else (inline on the home shard,
     * a hop to a third shard) could run first, so another client could see its effect without theirs.
     */
    private boolean followsHops(ClientSession c, CommandSpec spec, byte[][] argv, long mask) {
        if (spec.has(CommandSpec.ALL_SHARDS)) return true;
        if (mask == -1L) { // any key: coordinated over every shard, or a script over its declared keys' shards
            if (!spec.isScript()) return true;
            mask = declaredKeysMask(argv);
            if (mask == 0) return true;
        }
        return (mask & (1L << c.hopTarget.id())) != 0;
    }

    private void hop(ClientSession c, CommandSpec spec, byte[][] argv, Shard target, boolean silent) {
        c.hopsInFlight++;
        c.hopTarget = target;
        Hop h = outboxes[c.home().id()].hop(c, spec, argv, c.reserve(silent, spec, argv), c.db, c.noTouch);
        if (spec.has(CommandSpec.BLOCKING) || spec == execSpec || spec == watchSpec) {
            // Like Redis, a client's later requests wait until its blocking command has been answered; EXEC
            // and WATCH change the client's transaction state where they run, so the next request waits too.
            h.barrier = true;
            c.barrierInFlight = true;
        }
        outboxes[c.home().id()].add(target, h);
    }

    /** Runs a batch of hops on {@code target}'s thread, then posts their replies home in one task. */
    private void runHops(Shard target, Shard home, Hop[] batch, int n, Runnable complete) {
        if (target.dataLent()) {
            refuseHopsWhileBusy(target, home, batch, n);
            return;
        }
        CommandContext ctx = shardContexts[target.id()];
        io.tide.journal.Journal journal = target.writes().journal();
        long recordedBefore = journal.records();
        try {
            prefetchHops(target, batch, n);
        } catch (RuntimeException e) {
            LOG.error("internal error prefetching a batch of hops", e); // only loads: the batch still runs
        }
        // The hops of the batch run back to back: one run of the shard's clock (decision 0024).
        target.clock().beginRun();
        try {
            for (int i = 0; i < n; i++) {
                Hop h = batch[i];
                try {
                    runHop(target, ctx, journal, h);
                } catch (RuntimeException | StackOverflowError e) {
                    // execute() answers a failing command itself; this is the bookkeeping around it. Every hop of the
                    // batch is still answered, so no client of it waits forever for a reply.
                    LOG.error("internal error running a hop of {}", h.spec.fullName(), e);
                    if (h.outcome == null || h.outcome.block != null && h.waiter == null) {
                        h.outcome = new Outcome(Reply.error("ERR internal error while executing '"
                                + h.spec.fullName() + "': " + e.getClass().getSimpleName()), true, null);
                    }
                }
            }
        } finally {
            target.clock().endRun();
        }
        if (journal.records() == recordedBefore) {
            home.loop().execute(complete);
            return;
        }
        journal.flush(); // before the replies leave: a killed process then loses nothing acknowledged
        if (!journal.syncsReplies()) {
            home.loop().execute(complete);
            return;
        }
        journal.whenDurable(ok -> {
            if (!ok) {
                Reply failed = Reply.error(aofError(target));
                for (int i = 0; i < n; i++) {
                    Hop h = batch[i];
                    if (h.recorded && h.waiter == null) h.outcome = new Outcome(failed, true, null);
                }
            }
            home.loop().execute(complete);
        });
    }

    /**
     * Tests only: sees each hop's argv on its target as it starts (its time counts as the hop's), and may throw there.
     * Null otherwise.
     */
    static java.util.function.Consumer<byte[][]> hopFaultForTests;

    /** Runs one hop of a batch on its target shard: its outcome, whether it was journalled, its time, its waiter. */
    private void runHop(Shard target, CommandContext ctx, io.tide.journal.Journal journal, Hop h) {
        io.tide.shard.CommandClock clock = target.clock();
        long t0 = clock.start();
        java.util.function.Consumer<byte[][]> fault = hopFaultForTests;
        if (fault != null) fault.accept(h.argv);
        ctx.reset(target, false, 0, h.client, h.db, clock.millis(t0), h.noTouch);
        ctx.allowArgumentsBack();
        ctx.allowReplyInPlace(); // a view reply is copied into the hop below, before the next hop runs (decision 0030)
        long recorded = journal.records();
        Outcome refused = memoryRefusal(h.spec, target);
        h.outcome = refused != null ? refused : h.own(execute(h.spec, ctx, h.argv), ctx);
        h.recorded = journal.records() != recorded;
        h.nanos = clock.end() - t0;
        if (h.outcome.block != null) {
            BlockedCommand w = new BlockedCommand(this, shards, h.client, h.spec, h.outcome.block, h.slot, h.db,
                    1L << target.id());
            w.register();
            h.waiter = w; // only once registered: a hop whose waiter failed to register is answered with an error
        }
        if (target.blocking().hasReady()) {
            serveReady(target);
            clock.breakChain(); // the served clients' commands ran after this hop's end
        }
        // Read here, on the target: its journal and blocked keys are its own (see nothingKeepsArguments).
        h.argvFree = h.waiter == null && !ctx.argumentsKept() && ARGV_POOL && nothingKeepsArguments(target);
    }

    private void completeHops(Shard home, Hop[] batch, int n) {
        ClientSession last = null;
        long now = System.currentTimeMillis();
        for (int i = 0; i < n; i++) {
            Hop h = batch[i];
            record(h.spec, home, h.outcome, h.nanos, h.client, h.argv);
            ClientSession c = h.client;
            c.hopsInFlight--;
            if (h.waiter != null) {
                blocked(h.waiter, now);
            } else {
                // Home, where the decoder took the arrays: back to its pool once the reply is written (decision 0028).
                h.slot.argvBack = h.argvFree;
                c.complete(h.slot, h.outcome.reply);
                if (h.barrier) resume(c);
            }
            if (c.hopsInFlight == 0 && c.awaitingHops) {
                c.awaitingHops = false;
                resume(c);
            }
            if (c != last && last != null) flushUnlessHopping(last);
            last = c;
            outboxes[home.id()].recycle(h);
        }
        if (last != null) flushUnlessHopping(last);
    }

    /**
     * Writes what a client's replies have ready, unless some of its commands are still on another shard: their own
     * completion writes then, in one write with what is ready now (replies leave in order, so nothing after their
     * place could go before it anyway).
     */
    private static void flushUnlessHopping(ClientSession c) {
        if (c.hopsInFlight == 0) c.connection().flush();
    }

    private void runCoordinated(ClientSession c, CommandSpec spec, byte[][] argv, Shard[] involved, boolean silent) {
        runCoordinated(c, spec, argv, involved, silent, false);
    }

    /** {@code monitorFed}: a script that MONITOR was shown already, when it began inline and went no further. */
    private void runCoordinated(ClientSession c, CommandSpec spec, byte[][] argv, Shard[] involved, boolean silent,
                                boolean monitorFed) {
        Shard home = c.home();
        if (spec != execSpec && memoryRefusal(spec, home) != null) {
            c.reply(Reply.error(Errors.OOM), silent);
            return;
        }
        // Hops gathered earlier in this iteration must reach their shards before the coordinator's barriers.
        outboxes[home.id()].flush();
        ClientSession.Slot slot = c.reserve(silent, spec, argv);
        c.barrierInFlight = true;
        Runnable body = coordinatedBody(c, spec, argv, involved, slot, c.db, c.noTouch, monitorFed);
        Runnable rejected = shuttingDown(c, spec, argv, slot, home);
        if (involved.length == 1 && involved[0] == home) selfParks[home.id()].add(body, rejected);
        else shards.coordinator().run(involved, body, rejected);
    }

    /** From any thread, for a client whose reply {@code slot} is reserved: runs the command coordinated over {@code involved}. */
    private void coordinate(ClientSession c, CommandSpec spec, byte[][] argv, Shard[] involved, ClientSession.Slot slot,
                            int db, boolean noTouch, boolean monitorFed) {
        shards.coordinator().run(involved, coordinatedBody(c, spec, argv, involved, slot, db, noTouch, monitorFed),
                shuttingDown(c, spec, argv, slot, c.home()));
    }

    /** The coordinator thread's part of {@link #runCoordinated}: runs it, then its reply goes home. */
    private Runnable coordinatedBody(ClientSession c, CommandSpec spec, byte[][] argv, Shard[] involved,
                                     ClientSession.Slot slot, int db, boolean noTouch, boolean monitorFed) {
        Shard home = c.home();
        long mask = maskOf(involved);
        return () -> {
            CommandContext ctx = coordinatorContext.reset(null, true, mask, c, db, System.currentTimeMillis(), noTouch);
            long[] recorded = new long[involved.length];
            for (int i = 0; i < involved.length; i++) recorded[i] = involved[i].writes().journal().records();
            long t0 = System.nanoTime();
            Outcome o = monitorFed ? run(spec, ctx, argv) : execute(spec, ctx, argv);
            long nanos = System.nanoTime() - t0;
            long owned = ctx.parkedMask(); // a script may have parked more shards than it started with
            Touched t = touched(ctx, involved, recorded);
            BlockedCommand w = null;
            if (o.block != null) {
                w = new BlockedCommand(this, shards, c, spec, o.block, slot, db, mask);
                w.register();
            }
            BlockedCommand waiter = w;
            serveReadyCoordinated(owned);
            afterCoordinated(t.shards, t.recorded, home, ok -> finishCoordinated(c, spec, argv, slot,
                    ok ? o : new Outcome(Reply.error(aofError(home)), true, null), nanos, waiter));
        };
    }

    /** What a coordinated operation the coordinator will not run does instead: -ERR server is shutting down. */
    private Runnable shuttingDown(ClientSession c, CommandSpec spec, byte[][] argv, ClientSession.Slot slot, Shard home) {
        return () -> home.loop().execute(() -> finishCoordinated(c, spec, argv, slot,
                new Outcome(Reply.error("ERR server is shutting down"), true, null), 0, null));
    }

    // ---------------------------------------------------------------- gathered reads

    /**
     * An ALL_SHARDS read with a {@link CommandSpec.Gather} (DBSIZE, KEYS, SCAN, ...): the shards are visited one after
     * another, each on its own thread, without parking any of them or passing through the coordinator; the reply is
     * made on the home shard once the walk ends. As for a coordinated command, the client's later requests wait for
     * it, and hops it sent before reach their shards first (each loop is FIFO), so it sees the client's earlier writes.
     */
    private void runGathered(ClientSession c, CommandSpec spec, byte[][] argv, boolean silent) {
        Shard home = c.home();
        CommandSpec.Gather g = spec.gather();
        CommandContext ctx = shardContexts[home.id()].reset(home, false, 0, c, c.db, System.currentTimeMillis(),
                c.noTouch);
        Object plan;
        try {
            plan = g.begin(ctx, argv);
        } catch (CommandException e) {
            Outcome o = new Outcome(Reply.error(e.getMessage()), true, null);
            record(spec, home, o, 0, c, argv);
            c.reply(o.reply, silent, spec, argv);
            return;
        }
        if (server.monitor().active()) ctx.feedMonitors(spec, argv, null, false);
        outboxes[home.id()].flush();
        ClientSession.Slot slot = c.reserve(silent, spec, argv);
        c.barrierInFlight = true;
        GatherWalk w = new GatherWalk(c, spec, argv, slot, plan, c.db, c.noTouch, System.nanoTime());
        visit(w, g.first(plan, shards.size()));
    }

    /** One gathered read on its way through the shards; each step runs on the visited shard's thread. */
    private record GatherWalk(ClientSession client, CommandSpec spec, byte[][] argv, ClientSession.Slot slot,
                              Object plan, int db, boolean noTouch, long startNanos) {}

    private void visit(GatherWalk w, int shard) {
        Shard s = shards.get(shard);
        s.executeOnData(() -> visitHere(w, s)); // postponed while a busy script holds the data
    }

    private void visitHere(GatherWalk w, Shard s) {
        CommandContext ctx = shardContexts[s.id()].reset(s, false, 0, w.client, w.db, System.currentTimeMillis(),
                w.noTouch);
        io.tide.journal.Journal journal = s.writes().journal();
        long recorded = journal.records();
        boolean more;
        ctx.beginOp();
        try {
            more = w.spec.gather().part(ctx, w.plan, s.id(), shards.size());
        } catch (RuntimeException e) {
            LOG.error("internal error gathering {}", w.spec.fullName(), e);
            more = false;
        } finally {
            ctx.endOp(w.argv, w.db); // a read's lazy expiry deletions are journalled, as on any shard
        }
        serveReady(s);
        if (journal.records() != recorded) journal.flush();
        int next = more ? w.spec.gather().next(w.plan, s.id(), shards.size()) : -1;
        if (next >= 0) {
            visit(w, next);
            return;
        }
        Shard home = w.client.home();
        home.loop().execute(() -> {
            Outcome o = new Outcome(w.spec.gather().reply(w.plan), false, null);
            record(w.spec, home, o, System.nanoTime() - w.startNanos, w.client, w.argv);
            w.client.complete(w.slot, o.reply);
            resume(w.client);
        });
    }

    /**
     * Coordinated operations whose only shard is the home shard (with one shard: scripts and an EXEC that runs one),
     * gathered during a loop iteration and handed to the coordinator after it, with the shard thread parking itself
     * ({@link io.tide.shard.Coordinator#runSelfParked}) instead of waiting for a barrier: one hand-off each way per
     * iteration. Confined to that home shard's thread.
     */
    private final class SelfParkBatch {
        private final Shard home;
        private final ArrayList<Runnable> bodies = new ArrayList<>();
        private final ArrayList<Runnable> rejected = new ArrayList<>();
        private final Runnable flushTask = this::flush;

        SelfParkBatch(Shard home) {
            this.home = home;
        }

        void add(Runnable body, Runnable onRejected) {
            if (bodies.isEmpty()) home.executeAfterIteration(flushTask);
            bodies.add(body);
            rejected.add(onRejected);
        }

        void flush() {
            if (bodies.isEmpty()) return;
            java.util.List<Runnable> b = java.util.List.copyOf(bodies);
            java.util.List<Runnable> r = java.util.List.copyOf(rejected);
            bodies.clear();
            rejected.clear();
            shards.coordinator().runSelfParked(home, b, r);
        }
    }

    /**
     * After an operation, on the thread that owns {@code involved} (the coordinator with them parked, or the one
     * shard that served a blocked client): flushes the journals it recorded in (every part of a cross-shard operation
     * is written before any reply leaves), then runs {@code reply} on the home shard, under appendfsync always once
     * every part is durable.
     */
    private void afterCoordinated(Shard[] involved, long[] recorded, Shard home,
                                  java.util.function.Consumer<Boolean> reply) {
        int syncing = 0;
        for (int i = 0; i < involved.length; i++) {
            io.tide.journal.Journal j = involved[i].writes().journal();
            if (j.records() == recorded[i]) continue;
            j.flush();
            if (j.syncsReplies()) syncing++;
        }
        if (syncing == 0) {
            home.loop().execute(() -> reply.accept(true));
            return;
        }
        java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(syncing);
        java.util.concurrent.atomic.AtomicBoolean ok = new java.util.concurrent.atomic.AtomicBoolean(true);
        for (int i = 0; i < involved.length; i++) {
            io.tide.journal.Journal j = involved[i].writes().journal();
            if (j.records() == recorded[i] || !j.syncsReplies()) continue;
            j.whenDurable(r -> {
                if (!r) ok.set(false);
                if (left.decrementAndGet() == 0) home.loop().execute(() -> reply.accept(ok.get()));
            });
        }
    }

    /** The error a write gets when its journal could not make it durable (Redis's AOF write error text). */
    private static String aofError(Shard s) {
        String f = s.writes().journal().failure();
        return Errors.AOF_WRITE_ERROR_PREFIX + (f != null ? f : "fsync did not complete");
    }

    /**
     * Runs one journalled command while the dataset loads, with no client: on {@code shard}'s thread for that shard's
     * own stream, or on the coordinator (every shard parked) with {@code shard} null. The clock reads 0, so nothing
     * expires while loading and every absolute expiry is set as written (as Redis's loading does). Returns the error
     * reply's text, or null; an error counts in INFO's unexpected_error_replies, as Redis counts its AOF and primary
     * clients' errors.
     */
    public String replay(Shard shard, int db, byte[][] argv) {
        String error = replayCommand(shard, db, argv);
        if (error != null) server.unexpectedErrorReplies().incrementAndGet();
        return error;
    }

    private String replayCommand(Shard shard, int db, byte[][] argv) {
        CommandSpec spec = table.lookup(argv[0]);
        if (spec == null) return Errors.unknownCommand(argv);
        if (spec.isContainer() && argv.length >= 2) {
            CommandSpec sub = spec.subcommands().get(Args.lower(argv[1]));
            if (sub == null) return Errors.unknownSubcommand(Errors.printable(argv[1]), spec.name()).getMessage();
            spec = sub;
        }
        if (!spec.arityOk(argv.length)) return Errors.wrongArity(spec.fullName());
        CommandContext ctx = shard != null
                ? shardContexts[shard.id()].reset(shard, false, 0, null, db, 0L, true)
                : coordinatorContext.reset(null, true, maskOf(shards.all()), null, db, 0L, true);
        ctx.disallowBlocking();
        Outcome o = run(spec, ctx, argv);
        if (shard != null) serveReady(shard);
        return o.failed && o.reply instanceof Reply.Error e ? e.text() : null;
    }

    private void finishCoordinated(ClientSession c, CommandSpec spec, byte[][] argv, ClientSession.Slot slot,
                                   Outcome o, long nanos, BlockedCommand waiter) {
        record(spec, c.home(), o, nanos, c, argv);
        if (waiter != null) {
            blocked(waiter, System.currentTimeMillis());
            return;
        }
        if (o.reply instanceof Reply.Later later) {
            answerLater(c, slot, later);
            return;
        }
        c.complete(slot, o.reply);
        resume(c);
    }

    /**
     * A reply known later (WAIT): the client is blocked as Redis blocks it (its next requests wait) until the answer
     * arrives, from any thread; then it is answered in order on its home shard and its held requests run.
     */
    private void answerLater(ClientSession c, ClientSession.Slot slot, Reply.Later later) {
        c.barrierInFlight = true;
        later.reply().whenComplete((r, err) -> c.home().loop().execute(() -> {
            if (c.isClosed()) return;
            c.complete(slot, err != null ? Reply.error("ERR " + err.getMessage()) : r);
            resume(c);
        }));
    }

    /** On the home shard: lets requests held back behind a multi-shard or blocking command run. */
    private void resume(ClientSession c) {
        c.barrierInFlight = false;
        boolean wasPaused = c.deferredRequests() >= DEFER_PAUSE_THRESHOLD;
        byte[][] next;
        // The held-back requests run back to back: one run of the shard's clock (decision 0024). Called within
        // another run (a blocked client served by a push), this ends that run: its next command reads the clock.
        io.tide.shard.CommandClock clock = c.deferredRequests() > 0 ? c.home().clock() : null;
        if (clock != null) clock.beginRun();
        try {
            while (!c.barrierInFlight && !c.quitting && (next = c.pollDeferred()) != null) {
                if (next[0] == PROTOCOL_ERROR) {
                    answerProtocolError(c, new String(next[1], java.nio.charset.StandardCharsets.UTF_8));
                    break;
                }
                dispatchNow(c, next);
            }
        } finally {
            if (clock != null) clock.endRun();
        }
        if (wasPaused && c.deferredRequests() < DEFER_PAUSE_THRESHOLD) c.connection().pauseReading(false);
        flushUnlessHopping(c);
    }

    private Outcome execute(CommandSpec spec, CommandContext ctx, byte[][] argv) {
        boolean script = spec.has(CommandSpec.SKIP_MONITOR) && spec.isScript();
        // Scripts are skip_monitor, yet Redis shows them, before the commands they run (as "lua").
        if (script && server.monitor().active()) ctx.feedMonitors(spec, argv, null, true);
        Outcome o = run(spec, ctx, argv);
        if (!script && server.monitor().active()) ctx.feedMonitors(spec, argv, null, false);
        return o;
    }

    private Outcome run(CommandSpec spec, CommandContext ctx, byte[][] argv) {
        int db = ctx.dbIndex();
        Shard inline = ctx.inlineShard();
        if (inline != null) inline.stats().commandsExecuted++;
        ctx.beginOp();
        try {
            Reply r = spec.handler().execute(ctx, argv);
            BlockRequest b = ctx.takeBlockRequest();
            if (b == null) {
                ctx.afterCommand(spec, argv);
                return succeeded(r, ctx);
            }
            return new Outcome(r, false, b);
        } catch (CommandException e) {
            ctx.takeBlockRequest();
            return new Outcome(Reply.error(e.getMessage()), true, null);
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            ctx.takeBlockRequest();
            // After a failed allocation no state can be trusted: the process exits (standalone) or the server closes.
            io.tide.util.OutOfMemory.handle(e, "command " + spec.fullName(), ctx.server()::requestShutdown);
            LOG.error("internal error executing {} ", spec.fullName(), e);
            return new Outcome(Reply.error("ERR internal error while executing '" + spec.fullName() + "': "
                    + e.getClass().getSimpleName()), true, null);
        } finally {
            ctx.endOp(argv, db); // a command that failed after writing is journalled too, as Redis propagates it
        }
    }

    // ---------------------------------------------------------------- blocked clients

    /** On the home shard: the client's command is parked; its later requests wait (barrierInFlight stays set). */
    private void blocked(BlockedCommand w, long nowMs) {
        w.client.blockedOn = w;
        if (w.client.closed) {
            w.cancel(null); // disconnected while the command ran elsewhere
            return;
        }
        w.armTimer(nowMs);
    }

    /** On the home shard: the waiter was answered (served, timed out or cancelled). */
    void unblocked(BlockedCommand w) {
        ClientSession c = w.client;
        if (c.blockedOn == w) c.blockedOn = null;
        if (!c.closed) {
            resume(c);
        }
    }

    /**
     * On shard {@code s}'s thread, after a command: serves the clients blocked on keys that were signalled,
     * first blocked first served, until no key is left ready (a served BLMOVE may make its destination ready).
     */
    private void serveReady(Shard s) {
        BlockedKeys b = s.blocking();
        while (b.hasReady()) {
            for (BlockedKeys.DbKey k : b.takeReady()) serveKey(s, k, 1L << s.id(), false);
        }
    }

    /**
     * On shard {@code s}'s thread, after its cron: serves the clients blocked on keys its active expiry deleted
     * (a waiting XREADGROUP is told its stream is gone), unless a busy script holds the data.
     */
    public void serveAfterCron(Shard s) {
        if (s.blocking().hasReady() && !s.dataLent()) serveReady(s);
    }

    /**
     * In the coordinator, with the shards of {@code parked} parked: {@link #serveReady} for all of them, the keys in
     * the order they were signalled across those shards (a script or transaction that pushed to keys of two shards
     * has the first key's waiters served first, as Redis does; what those serve may feed the second key).
     */
    private void serveReadyCoordinated(long parked) {
        while (true) {
            Shard first = null;
            long earliest = Long.MAX_VALUE;
            for (Shard s : shards.all()) {
                if ((parked & (1L << s.id())) == 0) continue;
                long signal = s.blocking().firstReadySignal();
                if (signal < earliest) {
                    earliest = signal;
                    first = s;
                }
            }
            if (first == null) return;
            serveKey(first, first.blocking().takeFirstReady(), parked, true);
        }
    }

    /**
     * Tries the waiters on {@code k} in order. A waiter whose keys span shards not all parked here is served by
     * the coordinator with every shard parked; so are the waiters behind it, to keep their order.
     */
    private void serveKey(Shard s, BlockedKeys.DbKey k, long parked, boolean coordinated) {
        java.util.ArrayDeque<io.tide.shard.Waiter> q = s.blocking().waiters(k);
        if (q == null) return;
        for (io.tide.shard.Waiter each : q.toArray(new io.tide.shard.Waiter[0])) {
            BlockedCommand w = (BlockedCommand) each;
            if (w.isDone()) continue;
            if (!w.retriedOn(s.db(k.db()).peekQuietly(k.key(), System.currentTimeMillis()))) continue;
            if ((w.shardMask() & ~parked) != 0) {
                handOver(s, k, coordinated);
                break;
            }
            CommandContext ctx = coordinated ? coordinatorContext : shardContexts[s.id()];
            ctx.reset(coordinated ? null : s, coordinated, parked, w.client, w.db(), System.currentTimeMillis(), w.noTouch);
            ctx.markRetry();
            tryServe(w, ctx);
        }
        s.blocking().prune(k);
    }

    /**
     * Serves the rest of {@code k}'s queue from the coordinator, with every shard parked, before anything else runs on
     * {@code s}: as in Redis, the command that readied the key is followed by its waiters' service, so neither its
     * client's next command nor another client's on {@code s} can find the key in between (and take what the waiter
     * was due). From {@code s}'s thread ({@code coordinated} false) the thread hands the service over and waits until
     * it has run ({@link io.tide.shard.Coordinator#adopt}); from the coordinator thread, in the middle of an operation
     * that parked only some shards, the operation parks the others too ({@link io.tide.shard.Coordinator#extend}).
     * While a busy script holds the data, the service waits for the next batch. See decision 0004.
     */
    private void handOver(Shard s, BlockedKeys.DbKey k, boolean coordinated) {
        io.tide.shard.Coordinator coordinator = shards.coordinator();
        Shard[] every = shards.all();
        long all = maskOf(every);
        Runnable serve = () -> {
            serveKey(s, k, all, true);
            serveReadyCoordinated(all);
        };
        if (coordinated) {
            if (!coordinator.lent() && coordinator.extend(every)) serve.run();
            else coordinator.run(every, serve, () -> { });
        } else if (coordinator.lent()) {
            coordinator.run(every, serve, () -> { });
        } else {
            coordinator.adopt(s, () -> {
                if (coordinator.extend(every)) serve.run();
            }, () -> { }, false);
        }
    }

    /** Runs the waiter's command again; if it is answered this time, the reply goes home. */
    private void tryServe(BlockedCommand w, CommandContext ctx) {
        if (!w.claim()) return;
        Shard[] involved = shardsOf(w.shardMask());
        long[] recorded = new long[involved.length];
        for (int i = 0; i < involved.length; i++) recorded[i] = involved[i].writes().journal().records();
        long t0 = System.nanoTime();
        Outcome o = execute(w.spec, ctx, w.argv);
        if (o.block != null) {
            w.unclaim();
            return;
        }
        observe(server.observability(), w.spec, w.argv, (System.nanoTime() - t0) / 1000, w.client, true);
        w.served();
        w.unregister();
        // The pop it made is in the journal's file (and fsynced under always) before the client hears of it.
        afterCoordinated(involved, recorded, w.client.home(),
                ok -> w.deliver(ok ? o.reply : Reply.error(aofError(involved[0]))));
    }

    /** RESP2 subscribe mode lets only these through, as Redis's processCommand. */
    private static boolean allowedInSubscribeMode(CommandSpec spec) {
        return switch (spec.fullName()) {
            case "ping", "subscribe", "ssubscribe", "unsubscribe", "sunsubscribe", "psubscribe", "punsubscribe",
                 "quit", "reset" -> true;
            default -> false;
        };
    }

    private static long maskOf(Shard[] involved) {
        long m = 0;
        for (Shard s : involved) m |= 1L << s.id();
        return m;
    }

    /**
     * After a top-level command, on its client's home shard thread: INFO commandstats and the latency histogram of
     * that shard, then the latency monitor and the command logs ({@link #observe}). A command that blocked is
     * logged when it is served, as Redis does.
     */
    private void record(CommandSpec spec, Shard home, Outcome o, long nanos, ClientSession c, byte[][] argv) {
        long micros = nanos / 1000;
        io.tide.metrics.Observability obs = server.observability();
        spec.stats(home.id()).call(micros, o.failed, obs.tracking());
        if (o.block == null) observe(obs, spec, argv, micros, c, true);
    }

    /**
     * Redis's call() bookkeeping after a command ran for {@code micros}, top-level or nested (EXEC's commands, a
     * script's): the latency monitor's command or fast-command event; unless the command is skip_slowlog (EXEC),
     * the slow log and, for a top-level command, the large-request log (its size as RESP sends it). Any thread.
     */
    static void observe(io.tide.metrics.Observability obs, CommandSpec spec, byte[][] argv, long micros,
                        ClientSession client, boolean topLevel) {
        obs.latency().sampleIfNeeded(spec.has(CommandSpec.FAST) ? "fast-command" : "command", micros / 1000);
        if (spec.has(CommandSpec.SKIP_SLOWLOG)) return;
        // The client's address and name only for an entry: a connection's address string is made when first needed.
        if (obs.slow().wants(micros)) obs.slow().add(spec.fullName(), argv, micros, peer(client), name(client));
        if (topLevel && obs.largeRequest().enabled() && obs.largeRequest().wants(requestBytesAtMost(argv))) {
            long bytes = requestBytes(argv);
            if (obs.largeRequest().wants(bytes)) {
                obs.largeRequest().add(spec.fullName(), argv, bytes, peer(client), name(client));
            }
        }
    }

    /** A log entry's client address: the connection's, or Redis's Lua client's {@code ?:0} (null: a script). */
    private static String peer(ClientSession c) {
        return c == null ? "?:0" : c.connection().remoteAddress();
    }

    private static String name(ClientSession c) {
        return c == null ? "" : c.name();
    }

    /**
     * At least {@link #requestBytes}, without its digit counting: each length's digits and the count's at most 10.
     * Most requests are far under the large-request threshold, and this decides it for them.
     */
    static long requestBytesAtMost(byte[][] argv) {
        long n = 13;
        for (byte[] a : argv) n += a.length + 15;
        return n;
    }

    /** The bytes of {@code argv} as a RESP multibulk request: {@code *N\r\n} and {@code $len\r\n<arg>\r\n} each. */
    static long requestBytes(byte[][] argv) {
        long n = digits(argv.length) + 3;
        for (byte[] a : argv) n += a.length + digits(a.length) + 5;
        return n;
    }

    private static int digits(long v) {
        int d = 1;
        while (v >= 10) {
            v /= 10;
            d++;
        }
        return d;
    }

    // ---------------------------------------------------------------- busy scripts

    /**
     * With one shard, the commands that would run on the coordinator with several: scripts (their key finder
     * answers "all keys") and an EXEC that queues one. They run on the coordinator thread with the shard parked,
     * so that a script past busy-reply-threshold can hand the shard thread back to answer -BUSY and SCRIPT KILL.
     */
    /** min-replicas-to-write / min-replicas-max-lag (Redis's checkGoodReplicasStatus). */
    private boolean goodReplicas() {
        return !server.replication().refusesWrites();
    }

    private static boolean queuesNonStale(ClientSession c) {
        for (ClientSession.Queued q : c.queued()) if (!q.spec().has(CommandSpec.STALE)) return true;
        return false;
    }

    private static boolean queuesWrite(ClientSession c) {
        for (ClientSession.Queued q : c.queued()) if (q.spec().has(CommandSpec.WRITE)) return true;
        return false;
    }

    private boolean needsCoordinator(ClientSession c, CommandSpec spec, byte[][] argv) {
        if (spec.keyFinder() != null) return spec.keyFinder().keys(argv) == CommandSpec.ALL_KEYS;
        if (spec != execSpec || !c.inMulti()) return false;
        for (ClientSession.Queued q : c.queued()) {
            if (q.spec().keyFinder() != null && q.spec().keyFinder().keys(q.argv()) == CommandSpec.ALL_KEYS) return true;
        }
        return false;
    }

    /**
     * On the home shard while a busy script holds the data (Redis's processCommand with
     * isInsideYieldingLongCommand): -BUSY for every command not flagged allow_busy and for SHUTDOWN without
     * NOSAVE; WATCH, which registers in a shard's watched keys, waits until the script ends. The other
     * allow_busy commands (MULTI, DISCARD, UNWATCH, RESET, AUTH, HELLO, QUIT, SCRIPT KILL, FUNCTION KILL,
     * SHUTDOWN NOSAVE) run: they touch only the client's state, and their removals from watched or blocked keys
     * go through {@link Shard#executeOnData}. Returns true when the request was answered or held back.
     */
    private boolean refusedWhileBusy(ClientSession c, CommandSpec spec, byte[][] argv, Shard home, boolean silent) {
        if (spec == execSpec && c.inMulti()) {
            reject(c, spec, home, watchdog.busyError(), silent);
            return true;
        }
        if (!spec.has(CommandSpec.ALLOW_BUSY) || (spec == shutdownSpec && !hasNoSave(argv))) {
            reject(c, spec, home, watchdog.busyError(), silent);
            return true;
        }
        if (spec == watchSpec) {
            if (silent && c.replyMode() != ClientSession.ReplyMode.OFF) c.skipNextReply();
            c.defer(argv, true);
            c.barrierInFlight = true;
            home.executeOnData(() -> {
                if (!c.closed) resume(c);
            });
            return true;
        }
        return false;
    }

    private static boolean hasNoSave(byte[][] argv) {
        return Args.has(argv, 1, "nosave");
    }

    /**
     * On a target shard while a busy script holds the data: hops that were on their way are answered -BUSY
     * without running, except WATCH, which runs once the script has ended (the client waits for it anyway).
     */
    private void refuseHopsWhileBusy(Shard target, Shard home, Hop[] batch, int n) {
        ArrayList<Hop> later = new ArrayList<>();
        ArrayList<Hop> answered = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Hop h = batch[i];
            if (h.spec == watchSpec) {
                later.add(h);
            } else {
                h.outcome = new Outcome(Reply.error(watchdog.busyError()), true, null);
                answered.add(h);
            }
        }
        if (!later.isEmpty()) {
            Hop[] rest = later.toArray(new Hop[0]);
            target.executeOnData(() -> runHops(target, home, rest, rest.length,
                    () -> completeHops(home, rest, rest.length)));
        }
        if (!answered.isEmpty()) {
            Hop[] done = answered.toArray(new Hop[0]);
            home.loop().execute(() -> completeHops(home, done, done.length));
        }
        // The batch itself is not taken back: it belongs to the home thread's outbox, and this is the target's.
    }

    // ---------------------------------------------------------------- CLIENT PAUSE

    /**
     * Redis's is_may_replicate_command, which CLIENT PAUSE WRITE holds back: writes and may-replicate commands
     * (PUBLISH, PFCOUNT, ...), scripts as their declared flags say, and an EXEC that queued any of these.
     */
    private boolean mayReplicate(ClientSession c, CommandSpec spec, byte[][] argv) {
        if (spec != execSpec || !c.inMulti()) return mayReplicate(spec, argv);
        for (ClientSession.Queued q : c.queued()) {
            if (mayReplicate(q.spec(), q.argv())) return true;
        }
        return false;
    }

    /**
     * One command's may-replicate flag. A script with declared flags (a shebang, or any function) replaces the
     * command's own flags with them (Redis's getCommandFlags): it may replicate unless it declares no-writes, so
     * EVAL of a no-writes script runs during a WRITE pause and EVAL_RO of a script without it waits. Without
     * declared flags (no shebang, an unknown script or function) the command's own flags count: EVAL, EVALSHA
     * and FCALL may replicate, their _RO forms do not.
     */
    private boolean mayReplicate(CommandSpec spec, byte[][] argv) {
        boolean own = spec.has(CommandSpec.WRITE) || spec.has(CommandSpec.MAY_REPLICATE);
        int declared = switch (spec.name()) {
            case "eval", "eval_ro" -> server.scripting().declaredFlags(argv[1], false);
            case "evalsha", "evalsha_ro" -> server.scripting().declaredFlags(argv[1], true);
            case "fcall", "fcall_ro" -> server.scripting().functions().declaredFlags(argv[1]);
            default -> -1;
        };
        return declared < 0 ? own : (declared & io.tide.script.Scripting.NO_WRITES) == 0;
    }

    /**
     * Holds the client's request (and all after it) until the pause ends or CLIENT UNPAUSE. The client joins its
     * home shard's queue of postponed clients, released in the order they were postponed, as Redis does.
     */
    private void postpone(ClientSession c, byte[][] argv, long until, long now) {
        c.defer(argv, true);
        c.barrierInFlight = true;
        if (c.postponed) return;
        c.postponed = true;
        Shard home = c.home();
        postponedClients[home.id()].add(c);
        if (releaseArmedFor[home.id()] < until) {
            releaseArmedFor[home.id()] = until;
            home.loop().schedule(() -> releasePostponed(home), Math.max(1, until - now),
                    java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    /**
     * On {@code home}'s thread, at a pause's end or on CLIENT UNPAUSE: the clients postponed there run again, first
     * postponed first; each first request is checked against the pause again (one that was extended queues it anew).
     */
    private void releasePostponed(Shard home) {
        releaseArmedFor[home.id()] = 0;
        java.util.ArrayDeque<ClientSession> q = postponedClients[home.id()];
        for (int n = q.size(); n > 0; n--) {
            ClientSession c = q.poll();
            if (!c.postponed || c.closed) continue;
            c.postponed = false;
            resume(c);
        }
    }

    /** CLIENT UNPAUSE: every postponed client runs again, on its home shard. */
    private void resumeAllPostponed() {
        for (Shard s : shards.all()) s.loop().execute(() -> releasePostponed(s));
    }

    /** MULTI, EXEC, DISCARD, WATCH, QUIT and RESET run at once inside MULTI; everything else is queued. */
    private boolean runsInsideMulti(CommandSpec spec) {
        return spec == execSpec || spec == watchSpec || spec == multiSpec || spec == discardSpec
                || spec == quitSpec || spec == resetSpec;
    }

    /** The shards EXEC needs parked: those of its queued commands and watched keys; -1 for all of them. */
    private long execShards(ClientSession c) {
        long mask = 0;
        for (ClientSession.Queued q : c.queued()) {
            long m = routeMask(q.spec(), q.argv());
            if (m == -1L) return -1L;
            mask |= m;
        }
        io.tide.shard.WatchedKeys.Watch w = c.watch();
        if (w != null) {
            for (BlockedKeys.DbKey k : w.keys) mask |= 1L << shards.shardOf(k.key()).id();
        }
        return mask;
    }

    /** The shards a command's keys live on, as a mask; -1 when it needs every shard; 0 without keys. */
    private long routeMask(CommandSpec spec, byte[][] argv) {
        return CommandContext.routeMask(shards, spec, argv);
    }

    /**
     * A script's (EVAL, EVALSHA, FCALL and their _RO forms) declared keys' shards, as a mask: the shards it starts
     * with parked; it parks more when it reaches a key elsewhere (decision 0016). 0 (park every shard) when it
     * declares none or its numkeys is not valid (the handler then answers the error).
     */
    private long declaredKeysMask(byte[][] argv) {
        if (argv.length < 3) return 0;
        Long n = Args.parseLongOrNull(argv[2]);
        if (n == null || n <= 0 || n > argv.length - 3) return 0;
        long mask = 0;
        for (int i = 3; i < 3 + n; i++) mask |= 1L << shards.shardOf(argv[i]).id();
        return mask;
    }

    /**
     * maxmemory before a command outside MULTI, on the thread of the shard that runs it, so that the figure it
     * compares includes every write before it: commands that may grow memory get -OOM when nothing can be evicted;
     * scripts only record the state (their denyoom calls are refused then). Other reads skip the check, which Redis
     * makes for every command: the shard cron evicts for them. Null when the command may run.
     */
    private Outcome memoryRefusal(CommandSpec spec, Shard executing) {
        boolean denyoom = spec.has(CommandSpec.DENYOOM);
        if (!denyoom && !spec.isScript()) return null;
        if (server.memory().admit(executing) || !denyoom) return null;
        spec.stats(executing.id()).rejectedCalls++;
        return new Outcome(Reply.error(Errors.OOM), true, null);
    }

    /** Redis's reject_cmd_on_oom: denyoom commands, EXEC of denyoom commands, and whatever MULTI would queue. */
    private boolean rejectsOnOom(ClientSession c, CommandSpec spec) {
        if (spec.has(CommandSpec.DENYOOM)) return true;
        if (spec == execSpec) {
            if (!c.inMulti()) return false;
            for (ClientSession.Queued q : c.queued()) if (q.spec().has(CommandSpec.DENYOOM)) return true;
            return false;
        }
        if (!c.inMulti()) return false;
        return switch (spec.name()) {
            case "discard", "quit", "reset" -> false;
            default -> true;
        };
    }

    /** Redis's rejectCommand: the transaction fails; a rejected EXEC discards it (execCommandAbort). */
    private void reject(ClientSession c, CommandSpec spec, Shard home, String error, boolean silent) {
        if (spec == execSpec && c.inMulti()) {
            spec.stats(home.id()).rejectedCalls++;
            c.endMulti();
            c.unwatchFromHome();
            c.reply(Reply.error(Errors.EXECABORT_BECAUSE + error), silent);
            return;
        }
        c.failMulti();
        spec.stats(home.id()).rejectedCalls++;
        c.reply(Reply.error(error), silent);
    }

    private Shard[] shardsOf(long mask) {
        Shard[] out = new Shard[Long.bitCount(mask)];
        int n = 0;
        for (Shard s : shards.all()) {
            if ((mask & (1L << s.id())) != 0) out[n++] = s;
        }
        return out;
    }

    private static int indexOf(Shard[] set, Shard s) {
        for (int i = 0; i < set.length; i++) if (set[i] == s) return i;
        return -1;
    }

    /** A command's result: its reply, or with {@code block} set, the request to park the client. */
    private record Outcome(Reply reply, boolean failed, BlockRequest block) {}

    private static final Outcome OK_OUTCOME = new Outcome(Reply.OK, false, null);
    private static final Outcome NULL_OUTCOME = new Outcome(Reply.NULL, false, null);
    /** Outcomes of the shared integer replies, by value + 16 (Reply.integer shares -16..1023). */
    private static final Outcome[] INT_OUTCOMES = new Outcome[1024 + 16];

    static {
        for (int i = 0; i < INT_OUTCOMES.length; i++) INT_OUTCOMES[i] = new Outcome(Reply.integer(i - 16), false, null);
    }

    /** The outcome of a command that succeeded with {@code r}: a shared one for the shared replies (no allocation). */
    private Outcome succeeded(Reply r, CommandContext ctx) {
        if (r == Reply.OK) return OK_OUTCOME;
        if (r == Reply.NULL) return NULL_OUTCOME;
        if (r instanceof Reply.Int i && i.value() >= -16 && i.value() < 1024 && INT_OUTCOMES[(int) i.value() + 16].reply == r) {
            return INT_OUTCOMES[(int) i.value() + 16];
        }
        if (r == ctx.view() || r == ctx.intView()) {
            Shard s = ctx.inlineShard();
            if (s != null && shardContexts[s.id()] == ctx) return r == ctx.view() ? viewOutcomes[s.id()] : intViewOutcomes[s.id()];
        }
        return new Outcome(r, false, null);
    }

    /**
     * A command sent to another shard; the result fields are written there and read back home. Reused: its home
     * shard's outbox takes it back once its reply is delivered (so a hop allocates nothing in steady state).
     */
    private static final class Hop {
        ClientSession client;
        CommandSpec spec;
        byte[][] argv;
        ClientSession.Slot slot;
        int db;
        boolean noTouch;
        /** A blocking command: the client's later requests wait for this one's reply. */
        boolean barrier;
        Outcome outcome;
        long nanos;
        /** Set on the target shard when the command blocked there. */
        BlockedCommand waiter;
        /** Set on the target shard when the command recorded something in its journal. */
        boolean recorded;
        /** Set on the target shard when nothing there keeps the command's arguments (decision 0028). */
        boolean argvFree;

        /**
         * The hop's own reply holders (decision 0030): a view reply on the target (GET's entry bytes, INCR's number) is
         * copied here, and home writes it from here; they are reused with the hop, once its reply has been written.
         */
        private byte[] bytes;
        private final Reply.BulkView bulk = new Reply.BulkView();
        private final Reply.IntView number = new Reply.IntView();
        private final Outcome bulkOutcome = new Outcome(bulk, false, null);
        private final Outcome numberOutcome = new Outcome(number, false, null);

        /**
         * {@code o}, or for a reply that is a view of the target's context (valid only until its next command) the same
         * reply in this hop's holders; a value over {@link #HOP_BYTES_MAX} bytes is copied into a reply of its own.
         */
        Outcome own(Outcome o, CommandContext ctx) {
            Reply r = o.reply;
            if (r == ctx.intView()) {
                number.of(((Reply.IntView) r).value());
                return numberOutcome;
            }
            if (r != ctx.view()) return o;
            Reply.BulkView v = (Reply.BulkView) r;
            int n = v.length();
            if (n > HOP_BYTES_MAX) return new Outcome(v.copy(), false, null);
            if (bytes == null || bytes.length < n) bytes = new byte[Math.max(n, 32)];
            System.arraycopy(v.array(), v.offset(), bytes, 0, n);
            bulk.of(bytes, 0, n);
            return bulkOutcome;
        }

        Hop set(ClientSession client, CommandSpec spec, byte[][] argv, ClientSession.Slot slot, int db, boolean noTouch) {
            this.client = client;
            this.spec = spec;
            this.argv = argv;
            this.slot = slot;
            this.db = db;
            this.noTouch = noTouch;
            barrier = false;
            outcome = null;
            nanos = 0;
            waiter = null;
            recorded = false;
            argvFree = false;
            return this;
        }
    }

    /**
     * One home shard's hops for one target in one loop iteration, posted to the target as one task and completed on home
     * as one task. Reused, with its two tasks, once home has completed it: a batch then allocates nothing in steady
     * state. Filled and completed on home; run on the target between the two (the event loops' queues order these).
     */
    private final class HopBatch {
        private final Outbox outbox;
        private Shard target;
        private Hop[] hops = new Hop[16];
        private int n;
        private final Runnable onTarget;
        private final Runnable onHome;

        HopBatch(Outbox outbox) {
            this.outbox = outbox;
            onHome = () -> {
                completeHops(outbox.home, hops, n);
                outbox.release(this);
            };
            onTarget = () -> runHops(target, outbox.home, hops, n, onHome);
        }

        void add(Hop h) {
            if (n == hops.length) hops = java.util.Arrays.copyOf(hops, n * 2);
            hops[n++] = h;
        }
    }

    /** The hops one home shard gathers during a loop iteration, per target. Confined to that home shard's thread. */
    private final class Outbox {
        private final Shard home;
        /** The batch being filled for each target, or null. */
        private final HopBatch[] perTarget;
        /** Completed batches, for reuse; at most {@link #MAX_FREE_BATCHES}. */
        private final java.util.ArrayDeque<HopBatch> freeBatches = new java.util.ArrayDeque<>();
        private final Runnable flushTask = this::flush;
        private boolean scheduled;
        /** Hops whose replies were delivered, for reuse; at most {@link #MAX_FREE_HOPS}. */
        private final java.util.ArrayDeque<Hop> free = new java.util.ArrayDeque<>();

        Hop hop(ClientSession c, CommandSpec spec, byte[][] argv, ClientSession.Slot slot, int db, boolean noTouch) {
            Hop h = free.poll();
            return (h != null ? h : new Hop()).set(c, spec, argv, slot, db, noTouch);
        }

        /** Takes back a hop whose reply was delivered (nothing refers to it any more but the finished batch). */
        void recycle(Hop h) {
            if (free.size() >= MAX_FREE_HOPS) return;
            h.set(null, null, null, null, 0, false);
            free.push(h);
        }

        Outbox(Shard home) {
            this.home = home;
            perTarget = new HopBatch[shards.size()];
        }

        void add(Shard target, Hop h) {
            HopBatch b = perTarget[target.id()];
            if (b == null) {
                b = freeBatches.poll();
                if (b == null) b = new HopBatch(this);
                b.target = target;
                perTarget[target.id()] = b;
            }
            b.add(h);
            if (!scheduled) {
                scheduled = true;
                home.executeAfterIteration(flushTask);
            }
        }

        /** Posts each target its batch. Runs after the loop iteration, or early before a coordinated command. */
        void flush() {
            scheduled = false;
            for (int t = 0; t < perTarget.length; t++) {
                HopBatch b = perTarget[t];
                if (b == null) continue;
                perTarget[t] = null;
                b.target.loop().execute(b.onTarget);
            }
        }

        /** Takes back a batch home has completed (its hops went back with {@link #recycle}). */
        void release(HopBatch b) {
            java.util.Arrays.fill(b.hops, 0, b.n, null);
            b.n = 0;
            b.target = null;
            if (freeBatches.size() < MAX_FREE_BATCHES) freeBatches.push(b);
        }
    }
}
