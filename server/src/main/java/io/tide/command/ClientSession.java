package io.tide.command;

import io.tide.protocol.Reply;
import io.tide.pubsub.PubSub;
import io.tide.pubsub.Subscriber;
import io.tide.pubsub.Tracking;
import io.tide.shard.Shard;
import io.tide.shard.WatchedKeys;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One client connection's state: selected database, protocol version, name, auth, flags, and the
 * queue that keeps replies in request order while some commands run on other shards.
 * Confined to its home shard's thread; a command running elsewhere reads only what was captured at
 * dispatch, and ALL_SHARDS commands read it while every shard is parked.
 */
public final class ClientSession {

    public enum ReplyMode { ON, OFF, SKIP }

    private final long id;
    private final ClientConnection connection;
    private final Shard home;
    /**
     * When the connection was made and last sent a command, in epoch seconds as unsigned ints (until 2106): CLIENT
     * LIST's age and idle and the idle timeout count whole seconds, as Redis's ctime and lastinteraction do.
     */
    private final int createdAtSec;
    int lastInteractionSec;

    int db;
    int protocol = 2;
    String name;
    String libName;
    String libVersion;
    boolean authenticated;
    boolean noEvict;
    boolean noTouch;
    /** CLIENT REPLY OFF (SKIP is {@link #skipNext}). */
    boolean repliesOff;
    boolean skipNext;
    /**
     * The last command name array dispatched and what the table found for it (null: unknown). The decoder hands a
     * connection the same array for a name it repeats, so a repeated command skips the table's hashing. Home thread.
     */
    byte[] lastCommandName;
    CommandSpec lastCommandSpec;
    String lastCommand = "NULL";
    /**
     * Bytes of the arguments of the command running or blocked now (CLIENT LIST {@code argv-mem}); 0 once answered.
     * Written by the home shard for every request, read from other threads: opaque access ({@link #ARGV_BYTES}), which
     * costs no fence, where a volatile write would cost one per request.
     */
    private long argvBytes;
    private static final java.lang.invoke.VarHandle ARGV_BYTES =
            io.tide.util.VarHandles.field(java.lang.invoke.MethodHandles.lookup(), "argvBytes", long.class);

    /** Sets {@link #argvBytes}: on the home shard. */
    void argvBytes(long bytes) {
        ARGV_BYTES.setOpaque(this, bytes);
    }
    /** Whether replies of executed commands are measured for the home shard's large-reply command log. */
    private boolean logsReplies;
    boolean closed;
    boolean quitting;
    boolean closeWhenDrained;
    boolean suppressCurrent;
    boolean forceCurrent;
    /**
     * What few connections use (a TLS certificate, CLIENT TRACKING, a replica's link), made on first use: each field
     * of a session costs every idle connection.
     */
    private volatile Rare rare;

    private static final class Rare {
        String tlsPeerName;
        /** Set by PSYNC/SYNC once this connection is a replica fed by the replication stream (CLIENT LIST flag S). */
        volatile boolean replica;
        io.tide.replication.ReplicaLink replicaLink;
        /** CLIENT TRACKING options while on, else null; and the registry they were given to. */
        Tracking.Mode trackingMode;
        Tracking tracking;
        /** CLIENT CACHING YES (1) or NO (-1) for the next command, else 0. */
        int caching;
    }

    private Rare rare() {
        Rare r = rare;
        if (r != null) return r;
        synchronized (this) {
            if (rare == null) rare = new Rare();
            return rare;
        }
    }

    /**
     * Replies not yet sent because an earlier command is still running on another shard; null until the first
     * (most connections never need one: every idle connection would carry an empty queue).
     */
    private ArrayDeque<Slot> pending;
    /** Requests held back while a multi-shard command of this client is in flight; null until the first. */
    private ArrayDeque<byte[][]> deferred;
    /** True while a multi-shard (coordinated) or blocking command of this client is unanswered. */
    boolean barrierInFlight;
    /** The blocking command this client is parked on, or null. */
    BlockedCommand blockedOn;
    /** Commands of this client sent to another shard and not yet answered; all go to {@link #hopTarget}. */
    int hopsInFlight;
    io.tide.shard.Shard hopTarget;
    /** Its next request would run elsewhere than its hops in flight, so it waits for them (barrierInFlight too). */
    boolean awaitingHops;
    /** Pub/sub state, created by the first subscription (or by tracking, from any thread). */
    private volatile Subscriber subscriber;
    /** Held back by CLIENT PAUSE: its next request is at the head of {@link #deferred}. */
    boolean postponed;
    /** Commands queued since MULTI, or null outside a transaction. */
    private ArrayList<Queued> multi;
    /** A command was rejected while queueing: EXEC answers EXECABORT. */
    private boolean multiFailed;
    /** The keys this client WATCHes, or null. */
    private WatchedKeys.Watch watch;

    /** A command queued inside MULTI, already checked (name, arity, auth). */
    public record Queued(CommandSpec spec, byte[][] argv) {}

    public ClientSession(long id, ClientConnection connection, Shard home, boolean authenticated, long nowMs) {
        this.id = id;
        this.connection = connection;
        this.home = home;
        this.authenticated = authenticated;
        this.createdAtSec = (int) (nowMs / 1000);
        this.lastInteractionSec = createdAtSec;
    }

    /** Redis's rule for client names (CLIENT SETNAME, HELLO SETNAME): printable ASCII without spaces. */
    public static boolean validName(String name) {
        for (int k = 0; k < name.length(); k++) {
            char ch = name.charAt(k);
            if (ch < '!' || ch > '~') return false;
        }
        return true;
    }

    public long id() { return id; }

    /**
     * The common name of the client certificate a TLS connection presented, or null (plain connection, or none sent).
     * The seam for Redis 8's {@code tls-auth-clients-user CN}: authenticate as the ACL user of that name.
     */
    public String tlsPeerName() {
        Rare r = rare;
        return r == null ? null : r.tlsPeerName;
    }
    public void tlsPeerName(String cn) { rare().tlsPeerName = cn; }
    public ClientConnection connection() { return connection; }
    public Shard home() { return home; }
    /** When the connection was made, in epoch seconds. */
    public long createdAtSec() { return Integer.toUnsignedLong(createdAtSec); }
    public int db() { return db; }
    public void selectDb(int index) { db = index; }
    public int protocol() { return protocol; }
    public void protocol(int version) { protocol = version; }
    public String name() { return name; }
    public void name(String n) { name = n; }
    public String libName() { return libName; }
    public void libName(String n) { libName = n; }
    public String libVersion() { return libVersion; }
    public void libVersion(String v) { libVersion = v; }
    public boolean authenticated() { return authenticated; }
    public void authenticated(boolean a) { authenticated = a; }

    /** The ACL user this connection runs as (Redis's c->user): the default user until AUTH names another. */
    private volatile String user = "default";

    public String user() { return user; }
    public void user(String name) { user = name; }
    public boolean noEvict() { return noEvict; }
    public void noEvict(boolean b) { noEvict = b; }
    public boolean noTouch() { return noTouch; }
    public void noTouch(boolean b) { noTouch = b; }
    public ReplyMode replyMode() { return repliesOff ? ReplyMode.OFF : ReplyMode.ON; }
    /** ON or OFF: CLIENT REPLY SKIP is {@link #skipNextReply}. */
    public void replyMode(ReplyMode m) { repliesOff = m == ReplyMode.OFF; }
    /** When the client last sent a command, in epoch seconds. */
    public long lastInteractionSec() { return Integer.toUnsignedLong(lastInteractionSec); }
    public String lastCommand() { return lastCommand; }
    public boolean isClosed() { return closed; }
    public int pendingReplies() { return pending == null ? 0 : pending.size(); }
    public boolean isReplica() {
        Rare r = rare;
        return r != null && r.replica;
    }
    /** The replication handshake's state of this connection (REPLCONF before PSYNC), or null; home shard only. */
    public io.tide.replication.ReplicaLink replicaLink() {
        Rare r = rare;
        return r == null ? null : r.replicaLink;
    }
    public void replicaLink(io.tide.replication.ReplicaLink l) { rare().replicaLink = l; }
    public void markReplica() { rare().replica = true; }
    public int deferredRequests() { return deferred == null ? 0 : deferred.size(); }

    boolean nonePending() {
        return pending == null || pending.isEmpty();
    }

    private ArrayDeque<Slot> pending() {
        if (pending == null) pending = new ArrayDeque<>();
        return pending;
    }

    /** Holds a request back, behind those held already ({@code first}: ahead of them). */
    void defer(byte[][] argv, boolean first) {
        if (deferred == null) deferred = new ArrayDeque<>();
        if (first) deferred.addFirst(argv); else deferred.add(argv);
    }

    /** The oldest request held back, removed, or null. */
    byte[][] pollDeferred() {
        return deferred == null ? null : deferred.poll();
    }
    /**
     * CLIENT UNBLOCK: answers this client's blocking command with {@code error}, or with its timeout reply when
     * null. Callable from any thread (the waiter's state word decides); the reply is delivered on the home shard.
     * True if the client was blocked and is now answered.
     */
    public boolean unblock(Reply error) {
        BlockedCommand w = blockedOn;
        if (w == null || !w.finish()) return false;
        home.loop().execute(() -> w.cancelled(error != null ? error : w.timeoutReply));
        return true;
    }

    /** Commands queued since MULTI (CLIENT LIST's multi=), -1 outside a transaction. */
    public int multiCount() { return multi == null ? -1 : multi.size(); }
    /** Whether MULTI was called and neither EXEC nor DISCARD yet. */
    public boolean inMulti() { return multi != null; }
    public void startMulti() {
        multi = new ArrayList<>();
        multiFailed = false;
    }
    /** The queued commands; the transaction ends (EXEC, DISCARD, RESET). */
    public List<Queued> endMulti() {
        List<Queued> q = multi;
        multi = null;
        multiFailed = false;
        return q;
    }
    List<Queued> queued() { return multi; }

    /**
     * Memory of the queued commands as Redis 7.0 counts CLIENT LIST {@code multi-mem}: their argument bytes plus one
     * 8-byte reference per argument. Racy outside the home thread (a snapshot for introspection): client eviction
     * reads it from shard 0's cron while the home shard queues, so the copy may hold nulls where the list was growing.
     */
    public long queuedBytes() {
        ArrayList<Queued> q = multi;
        if (q == null) return 0;
        long sum = 0;
        Object[] items = q.toArray();
        for (Object o : items) {
            if (o == null) continue;
            byte[][] argv = ((Queued) o).argv();
            sum += 8L * argv.length;
            for (byte[] a : argv) sum += a.length;
        }
        return sum;
    }

    /** CLIENT LIST {@code argv-mem}. */
    public long argvBytes() { return (long) ARGV_BYTES.getOpaque(this); }
    void queue(CommandSpec spec, byte[][] argv) { multi.add(new Queued(spec, argv)); }
    /** Redis's flagTransaction: an error while queueing makes EXEC fail. */
    void failMulti() { if (multi != null) multiFailed = true; }
    public boolean multiFailed() { return multiFailed; }
    /** The client's WATCH state, or null when it watches nothing. */
    public WatchedKeys.Watch watch() { return watch; }
    public void watch(WatchedKeys.Watch w) { watch = w; }

    /**
     * Whether the client is parked by a blocking command or postponed by CLIENT PAUSE: both count in INFO
     * blocked_clients and show CLIENT LIST's flag b, as Redis 7.0 counts them (CLIENT UNBLOCK frees only the first).
     */
    public boolean isBlocked() { return blockedOn != null || postponed; }
    /** Blocked on keys with a timeout (INFO clients_in_timeout_table: Redis's clients in its timeout table). */
    public boolean blockedWithTimeout() {
        BlockedCommand w = blockedOn;
        return w != null && w.deadlineMs != 0;
    }

    /**
     * QUIT or a protocol error: the connection closes once every reply already due, including the one
     * about to be sent, has gone out; later input is ignored.
     */
    public void requestClose() {
        quitting = true;
        closeWhenDrained = true;
    }

    private void closeIfDrained() {
        if (closeWhenDrained && nonePending()) {
            closeWhenDrained = false;
            connection.closeAfterReplies();
        }
    }

    /** CLIENT REPLY OFF|SKIP: the command being executed sends no reply. */
    public void suppressCurrentReply() {
        suppressCurrent = true;
    }

    /** Whether the next command's reply is to be dropped (CLIENT REPLY OFF, or the one after SKIP). */
    boolean takeSilence() {
        if (repliesOff) return true;
        if (skipNext) {
            skipNext = false;
            return true;
        }
        return false;
    }

    /** CLIENT REPLY ON: the command being executed is answered even if OFF or SKIP silenced it. */
    public void forceCurrentReply() {
        forceCurrent = true;
    }

    public void skipNextReply() {
        skipNext = true;
    }

    /** Sends a reply outside command execution (a protocol error), in order after pending ones. */
    public void send(Reply r) {
        reply(r, false);
    }

    /** Measures written replies of executed commands for the home shard's large-reply command log, if it has one. */
    public void logLargeReplies() {
        this.logsReplies = true;
    }

    /** A reply that is ready now. */
    void reply(Reply r, boolean silent) {
        reply(r, silent, null, null);
    }

    /** The reply of an executed command ({@code spec} with {@code argv}), measured for the large-reply log. */
    void reply(Reply r, boolean silent, CommandSpec spec, byte[][] argv) {
        if (r instanceof Reply.Later later) {
            completeLater(reserve(silent, spec, argv), later);
            return;
        }
        if (nonePending()) {
            emit(r, silent, spec, argv);
            closeIfDrained();
        } else {
            Slot s = new Slot(silent);
            s.reply = Reply.settled(r); // a reply read in place is valid only now
            s.done = true;
            s.spec = spec;
            s.argv = argv;
            pending().add(s);
        }
    }

    /** Reserves the next place in the reply order for a command that completes later. */
    Slot reserve(boolean silent) {
        Slot s = new Slot(silent);
        pending().add(s);
        return s;
    }

    /** {@link #reserve(boolean)} for an executed command, whose reply is measured for the large-reply log. */
    Slot reserve(boolean silent, CommandSpec spec, byte[][] argv) {
        Slot s = reserve(silent);
        s.spec = spec;
        s.argv = argv;
        return s;
    }

    /** Fills a reserved place and sends every reply that is now in order. */
    void complete(Slot slot, Reply r) {
        if (r instanceof Reply.Later later) {
            completeLater(slot, later);
            return;
        }
        // The head's reply is written below, at once: a view (a hop's reply in its holder, decision 0030) needs no copy.
        slot.reply = pending().peek() == slot ? r : Reply.settled(r);
        slot.done = true;
        Slot head;
        while ((head = pending().peek()) != null && head.done) {
            pending.poll();
            emit(head.reply, head.silent, head.spec, head.argv);
            if (head.argvBack) io.tide.protocol.ArgvPool.current().give(head.argv);
        }
        closeIfDrained();
    }

    /** Fills {@code slot} on the home shard once the deferred reply is known (from whichever thread knows it). */
    private void completeLater(Slot slot, Reply.Later later) {
        later.reply().whenComplete((r, err) -> home.loop().execute(() -> {
            if (closed) return;
            complete(slot, err != null ? Reply.error("ERR " + err.getMessage()) : r);
            connection.flush();
        }));
    }

    /**
     * Writes a reply unless CLIENT REPLY OFF/SKIP silenced it; a push (a subscribe or unsubscribe confirmation) is
     * written even then, as Redis 7.0 writes every push frame (in RESP2 too) whatever the reply mode.
     */
    private void emit(Reply r, boolean silent, CommandSpec spec, byte[][] argv) {
        if (!(r instanceof Reply.Push)) argvBytes(0);
        long written = 0;
        if ((!silent || r instanceof Reply.Push) && !closed) {
            written = connection.write(r, protocol);
        }
        if (r instanceof Reply.Error e) {
            home.stats().countError(e.text());
        } else if (spec != null && spec.name().equals("exec") && r instanceof Reply.Array a) {
            for (Reply item : a.items()) if (item instanceof Reply.Error e) home.stats().countError(e.text());
        }
        io.tide.metrics.CommandLog log = logsReplies ? home.largeReplyLog() : null;
        if (spec != null && log != null && log.wants(written) && !spec.has(CommandSpec.SKIP_SLOWLOG)) {
            log.add(spec.fullName(), argv, written, connection.remoteAddress(), name);
        }
        Subscriber s = subscriber;
        if (s != null && nonePending()) s.repliesSent(); // invalidations of its own writes follow the reply
    }

    /** This client's pub/sub side, created on first use. */
    public Subscriber subscriber(PubSub registry) {
        Subscriber s = subscriber;
        if (s != null) return s;
        synchronized (this) {
            if (subscriber == null) subscriber = new Subscriber(registry, home.loop(), new SubscriberSink());
            return subscriber;
        }
    }

    /** CLIENT TRACKING ON: {@code t} starts sending this client invalidations. Home thread. */
    public void trackingOn(Tracking t, Tracking.Mode m) {
        Rare r = rare();
        r.tracking = t;
        r.trackingMode = m;
        t.on(id, m);
    }

    /** CLIENT TRACKING OFF (and RESET, disconnect). Home thread. */
    public void trackingOff() {
        Rare r = rare;
        if (r == null) return;
        if (r.tracking != null) r.tracking.off(id);
        r.trackingMode = null;
        r.caching = 0;
    }

    /** Whether an invalidation found this client's REDIRECT target gone (CLIENT LIST flag R). */
    public boolean trackingRedirectBroken() {
        Rare r = rare;
        return r != null && r.tracking != null && r.trackingMode != null && r.tracking.redirectBroken(id);
    }

    /** The tracking options while tracking is on, else null. */
    public Tracking.Mode trackingMode() {
        Rare r = rare;
        return r == null ? null : r.trackingMode;
    }
    /** CLIENT CACHING's flag for the next command: 1 YES, -1 NO, 0 none. */
    public int caching() {
        Rare r = rare;
        return r == null ? 0 : r.caching;
    }
    public void caching(int c) {
        if (c != 0 || rare != null) rare().caching = c;
    }

    /** The pub/sub side if the client ever subscribed, else null. */
    public Subscriber subscriberOrNull() {
        return subscriber;
    }

    /** Whether the client has an active subscription (RESP2 subscribe mode; the pubsub output class). */
    public boolean inPubSubMode() {
        return subscriber != null && subscriber.active();
    }

    /** Called by the network layer when the connection is gone. */
    public void markClosed() {
        closed = true;
        if (subscriber != null) subscriber.unsubscribeAll();
        trackingOff();
        if (blockedOn != null) blockedOn.cancel(null);
        multi = null;
        unwatchFromHome();
        pending = null;
        deferred = null;
    }

    /** Delivery of pub/sub messages into this client's connection, on its home thread. */
    private final class SubscriberSink implements Subscriber.Sink {
        /**
         * A message (a MONITOR line, a publish) never overtakes replies still owed to commands this client sent
         * earlier (a hop, EXEC on another shard): it takes the next place in the reply order, unless the client is
         * parked by a blocking command or a pause, whose reply may take forever (Redis sends to blocked clients).
         */
        @Override
        public void write(Reply r) {
            if (closed) return;
            if (nonePending() || blockedOn != null || postponed) {
                connection.write(r, protocol);
            } else {
                Slot s = new Slot(false);
                s.reply = r;
                s.done = true;
                pending().add(s);
            }
        }

        @Override
        public void flush() {
            connection.flush();
        }

        @Override
        public boolean isClosed() {
            return closed;
        }

        @Override
        public long outputBytes() {
            return connection.outputBufferBytes();
        }

        @Override
        public int protocol() {
            return protocol;
        }

        @Override
        public boolean inPubSubMode() {
            return ClientSession.this.inPubSubMode();
        }

        @Override
        public void closeForLimit(long bytes) {
            org.slf4j.LoggerFactory.getLogger(ClientSession.class).warn(
                    "Client id={} addr={} closed for overcoming of output buffer limits ({} bytes).", id,
                    connection.remoteAddress(), bytes);
            markClosed();
            connection.close();
        }
    }

    /**
     * Forgets the watched keys, from the home shard: the removals are posted to the keys' shards (the watch
     * object is dropped here, so a late touch only marks a state nobody reads).
     */
    public void unwatchFromHome() {
        WatchedKeys.Watch w = watch;
        if (w == null) return;
        watch = null;
        for (io.tide.shard.BlockedKeys.DbKey k : w.keys) {
            io.tide.shard.Shard s = w.shards.shardOf(k.key());
            s.executeOnData(() -> s.watched().remove(w, k));
        }
    }

    /** A place in the reply order. */
    static final class Slot {
        final boolean silent;
        Reply reply;
        boolean done;
        /** The executed command this reply answers, for the large-reply log (null for other replies). */
        CommandSpec spec;
        byte[][] argv;
        /** Whether {@link #argv} goes back to this thread's decoder once the reply is written (decision 0028). */
        boolean argvBack;

        Slot(boolean silent) {
            this.silent = silent;
        }
    }
}
