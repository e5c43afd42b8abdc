package io.tide.replication;

import io.tide.config.ConfigRegistry;
import io.tide.journal.Effect;
import io.tide.persistence.AppendOnly;
import io.tide.persistence.Persistence;
import io.tide.shard.Shard;
import io.tide.shard.ShardSet;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: other threads only {@link #offer} events into a lock-free queue; one thread ({@code tide-repl}) owns
 * every piece of state, except the volatile figures INFO, ROLE and the write gate read. The primary side of
 * replication: turns the shards' journals into one ordered stream with a global offset, keeps the backlog, and feeds
 * the replicas (full sync, partial resync, acknowledgements, WAIT); on a replica, it keeps and forwards the
 * primary's stream instead (see {@link Replica}).
 *
 * <p><b>One stream out of many journals.</b> Each shard's {@link ReplicationSink} gathers its records and, when its
 * journal is flushed (before any reply acknowledging them leaves the shard), appends them as one batch to the queue.
 * The queue's order is the stream's order: a shard appends its own batches in its journal order, so per-shard order
 * holds; and a write that another write depends on (a client saw the first's reply, then sent the second) was
 * appended before that reply left, so before the second was even executed: the order is causal. Offsets are
 * assigned by the replication thread as it encodes the queue, so no shard ever contends for a counter.
 *
 * <p><b>Cross-shard operations.</b> Their parts, one per shard and all numbered with the same group, are journalled
 * by the coordinator while every involved shard is parked, and flushed before the shards are released; they reach the
 * queue one after the other, with at most batches of unrelated shards between them. The thread holds the parts until
 * all have arrived and emits them as one MULTI/EXEC, so a single-threaded replica applies the operation whole. A
 * whole-database command (FLUSHALL, SWAPDB) recorded by several parts is the same command array in each and is
 * emitted once, in its place.
 *
 * <p><b>Full sync.</b> The image's instant is taken on the coordinator with every shard parked: the sinks are
 * flushed, a marker is queued, and the fork-less snapshot begins. Everything before the marker is in the image and
 * everything after follows it in the stream, so the offset at the marker is the FULLRESYNC offset. The snapshot's
 * chunks come back through the same queue, behind the marker; the stream meanwhile is held per replica (and counts
 * against its output-buffer limit).
 */
public final class Primary implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Primary.class);
    private static final String ZERO_ID = "0".repeat(40);
    private static final long TICK_NANOS = 100_000_000L;
    /** RDB bytes unsent to a replica beyond which the snapshot's writer waits (so the RDB never piles up). */
    private static final long RDB_WINDOW = 8L * 1024 * 1024;
    private static final byte[] CRLF = {'\r', '\n'};

    // ------------------------------------------------------------------------------------------------ events

    private record Psync(ReplicaLink link, String replid, long offset) {}

    private record Ack(ReplicaLink link, long offset, long fsyncedOffset) {}

    private record Lost(ReplicaLink link) {}

    private record Wait(int replicas, long deadlineMs, LongConsumer answer) {}

    private record WaitAof(int local, int replicas, long deadlineMs, AppendOnly.Marks marks, AofAnswer answer) {}

    /** An AOF fsync completed (coalesced: at most one queued). */
    private record Fsynced() {}

    private record SyncBegun(Sync sync) {}

    private record SyncBusy(Sync sync) {}

    private record RdbChunk(Sync sync, byte[] bytes) {}

    private record SyncImageDone(Sync sync, Throwable error) {}

    private record FileSent(Sync sync, Throwable error) {}

    private record Detached() {}

    private record Resize() {}

    private record DropAll() {}

    private record Promoted(String replid, long offset) {}

    /** A replica's full sync began a new history: the primary's replid and the FULLRESYNC offset. */
    private record MirrorReset(String replid, long offset) {}

    /** Bytes of the primary's stream a replica applied, kept verbatim in the backlog (as Redis's replicas do). */
    private record Mirror(byte[] bytes) {}

    private record History(CompletableFuture<String[]> answer) {}

    /** One full sync: the replicas it feeds and how. */
    private static final class Sync {
        /** Copy-on-write: a replica may join a disk-based sync while the file's sender thread reads the list. */
        final List<ReplicaLink> links;
        final boolean diskless;
        final byte[] eofMark;
        volatile boolean abandoned;
        /** The +FULLRESYNC offset (set when the image's instant is reached). */
        long offset = -1;
        /** The image is complete: a replica that asks now can no longer join this sync. */
        boolean imageWritten;

        Sync(List<ReplicaLink> links, boolean diskless) {
            this.links = new java.util.concurrent.CopyOnWriteArrayList<>(links);
            this.diskless = diskless;
            byte[] mark = new byte[20];
            new SecureRandom().nextBytes(mark);
            this.eofMark = HexFormat.of().formatHex(mark).getBytes(StandardCharsets.US_ASCII);
        }

        long maxRdbUnsent() {
            long m = 0;
            boolean any = false;
            for (ReplicaLink l : links) {
                if (l.closed) continue;
                any = true;
                m = Math.max(m, l.rdbUnsent.get());
            }
            if (!any) abandoned = true;
            return m;
        }
    }

    /** Why a WAITAOF client is answered with an error instead of counts. */
    public enum AofRefusal { NONE, AOF_OFF, DEMOTED }

    /** WAITAOF's answer: how many of the local AOF (0 or 1) and of the replicas fsynced, unless refused. */
    @FunctionalInterface
    public interface AofAnswer {
        void done(long local, long replicas, AofRefusal refusal);
    }

    /**
     * What INFO replication and ROLE show, published by the replication thread; {@code aofOffset} is the last
     * {@code REPLCONF ACK ... FACK} offset (-1: none, as from a Redis 7.0 replica).
     */
    public record Replica(String ip, int port, String state, long offset, long lagSeconds, long aofOffset) {}

    public record Info(String replid, String replid2, long offset, long secondOffset, boolean backlogActive,
                       long backlogSize, long backlogFirstByte, long backlogHistlen, List<Replica> replicas) {}

    // ------------------------------------------------------------------------------------------------ state

    private final ConfigRegistry config;
    private final ShardSet shards;
    private final Persistence persistence;
    private final ReplicationSink[] sinks;
    private final ConcurrentLinkedQueue<Object> inbox = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private final java.util.concurrent.atomic.AtomicBoolean started = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile boolean sleeping;
    private volatile boolean closed;
    /** Whether the sinks are on the journals; changed on the coordinator with every shard parked. */
    private volatile boolean attached;
    /** While this server is a replica: the backlog holds the primary's stream, and is never freed by the TTL. */
    private volatile boolean mirroring;

    // The replication thread's.
    private String replid = newId();
    private String replid2 = ZERO_ID;
    private long secondOffset = -1;
    private long offset;
    private Backlog backlog;
    private final List<ReplicaLink> links = new ArrayList<>();
    /** PSYNCs that arrived while the sinks were being taken off the journals. */
    private final List<Psync> deferred = new ArrayList<>();
    private final List<Object[]> waiters = new ArrayList<>(); // {Wait, target offset}
    private final List<Object[]> aofWaiters = new ArrayList<>(); // {WaitAof, target offset}
    /** Whether WAITAOF clients wait, so that fsyncs are worth telling the thread about. */
    private volatile boolean aofWaiting;
    private final java.util.concurrent.atomic.AtomicBoolean fsyncQueued = new java.util.concurrent.atomic.AtomicBoolean();
    private final Map<Long, List<List<Effect>>> groups = new HashMap<>();
    private int streamDb = -1;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    private Sync sync;
    private boolean syncStarting;
    private boolean detaching;
    private long noReplicasSinceMs = System.currentTimeMillis();
    private long lastPingMs = System.currentTimeMillis();
    private long lastNewlineMs;
    private long lastTickNanos;
    private boolean getAckDue;
    private long retrySyncAtMs;

    private volatile Info info;
    private volatile int goodReplicas;
    private final AtomicLong syncFull = new AtomicLong();
    private final AtomicLong syncPartialOk = new AtomicLong();
    private final AtomicLong syncPartialErr = new AtomicLong();

    public Primary(ConfigRegistry config, ShardSet shards, Persistence persistence) {
        this.config = config;
        this.shards = shards;
        this.persistence = persistence;
        this.sinks = new ReplicationSink[shards.size()];
        for (int i = 0; i < sinks.length; i++) sinks[i] = new ReplicationSink(this);
        publish();
        config.onChange("repl-backlog-size", v -> offer(new Resize()));
        replicaLimits = parseReplicaLimits();
        config.onChange("client-output-buffer-limit", v -> replicaLimits = parseReplicaLimits());
        minToWrite = config.getLong("min-replicas-to-write");
        maxLag = config.getLong("min-replicas-max-lag");
        config.onChange("min-replicas-to-write", v -> minToWrite = config.getLong("min-replicas-to-write"));
        config.onChange("min-replicas-max-lag", v -> maxLag = config.getLong("min-replicas-max-lag"));
        // Started by the first event (a replica's PSYNC, WAIT, a configuration change...): a server that never has a
        // replica nor a waiter runs without it (decision 0014).
        thread = Thread.ofPlatform().name("tide-repl").daemon(true).unstarted(this::run);
    }

    // ------------------------------------------------------------------------------------------------ API

    private final java.util.concurrent.atomic.AtomicLong replOutputBytes = new java.util.concurrent.atomic.AtomicLong();

    /** {@code n} bytes (stream, image or handshake) reached a replica's socket. Any thread. */
    void replicated(long n) {
        replOutputBytes.addAndGet(n);
    }

    /** INFO total_net_repl_output_bytes: bytes written to replicas. */
    public long replOutputBytes() {
        return replOutputBytes.get();
    }

    /** Queues an event for the replication thread. Thread-safe, lock-free. */
    void offer(Object event) {
        inbox.add(event);
        if (!started.get()) {
            if (!closed && started.compareAndSet(false, true)) thread.start();
        } else if (sleeping) {
            LockSupport.unpark(thread);
        }
    }

    /** Whether the replication thread runs: it starts with the first event. For tests. */
    boolean threadStarted() {
        return started.get();
    }

    /** PSYNC (or SYNC, with {@code replid} null) from {@code link}'s connection, which is a replica from now on. */
    public void psync(ReplicaLink link, ReplicaLink.Channel channel, String replid, long offset) {
        link.channel = channel;
        offer(new Psync(link, replid, offset));
    }

    /** REPLICAOF: every replica of this server is disconnected (as Redis's disconnectSlaves). */
    public void disconnectReplicas() {
        offer(new DropAll());
    }

    /** REPLCONF ACK from a replica: its applied offset and, with FACK (Redis 7.2+, Tide), its fsynced one, else -1. */
    public void ack(ReplicaLink link, long offset, long fsyncedOffset) {
        offer(new Ack(link, offset, fsyncedOffset));
    }

    /**
     * WAITAOF: {@code answer} gets whether this server's AOF fsynced everything recorded before {@code marks} were
     * taken ({@link AppendOnly#marks}, null with the AOF off) and how many replicas acknowledged (FACK) having fsynced
     * the whole stream as of now; once {@code local} and {@code replicas} are reached, or at {@code deadlineMs} (0:
     * none). Called after every shard's journal was flushed.
     */
    public void awaitAof(int local, int replicas, long deadlineMs, AppendOnly.Marks marks, AofAnswer answer) {
        offer(new WaitAof(local, replicas, deadlineMs, marks, answer));
    }

    /** After each AOF fsync, on the fsync thread: wakes WAITAOF's waiters, if any. */
    public void fsynced() {
        if (aofWaiting && fsyncQueued.compareAndSet(false, true)) offer(new Fsynced());
    }

    /** Replicas that acknowledged having fsynced the stream up to {@code target}, as of the last publish. */
    public static long aofAcked(Info info, long target) {
        long n = 0;
        for (Replica r : info.replicas()) if (r.state().equals("online") && r.aofOffset() >= target) n++;
        return n;
    }

    /** The replica's connection is gone. */
    public void linkLost(ReplicaLink link) {
        offer(new Lost(link));
    }

    /**
     * WAIT: {@code answer} gets the number of replicas that acknowledged the whole stream as of now (every record
     * flushed before this call), once {@code replicas} of them have or at {@code deadlineMs} (0: no deadline).
     * Called after the caller's shard journals were flushed.
     */
    public void await(int replicas, long deadlineMs, LongConsumer answer) {
        offer(new Wait(replicas, deadlineMs, answer));
    }

    private volatile long minToWrite;
    private volatile long maxLag;

    /**
     * Whether writes get -NOREPLICAS: min-replicas-to-write and min-replicas-max-lag are both set and fewer good
     * replicas than the first are connected (Redis's checkGoodReplicasStatus). Three volatile reads.
     */
    public boolean refusesWrites() {
        long min = minToWrite;
        return min > 0 && maxLag > 0 && goodReplicas < min;
    }

    /**
     * A replica's full sync from a primary with {@code replid} at {@code offset}: the backlog restarts there and is fed
     * with the stream the replica applies ({@link #mirror}), so that after a promotion the other replicas of the old
     * primary can continue from this one (PSYNC2). On the coordinator or the link thread, before any {@link #mirror}.
     */
    public void mirrorReset(String replid, long offset) {
        mirroring = true;
        offer(new MirrorReset(replid, offset));
    }

    /** Bytes of the stream a replica applied, in order (from the coordinator, as each batch is applied). */
    public void mirror(byte[] bytes) {
        offer(new Mirror(bytes));
    }

    /**
     * REPLICAOF host port on a server that was a primary, with every shard parked: the sinks come off the journals
     * (a replica's history is the primary's stream, mirrored) and this server's own history is returned, {replid,
     * offset, backlog?}, so that the link can ask its new primary to continue it (Redis's
     * replicationCacheMasterUsingMyself). Waits for the replication thread (which never waits for the coordinator).
     */
    public String[] becomeReplica() {
        if (attached) {
            for (Shard sh : shards.all()) {
                sinks[sh.id()].flush();
                sh.writes().journal().removeSink(sinks[sh.id()]);
            }
            attached = false;
        }
        mirroring = true;
        CompletableFuture<String[]> f = new CompletableFuture<>();
        offer(new DropAll());
        offer(new History(f));
        try {
            return f.get(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * REPLICAOF NO ONE, with every shard parked (or on the only shard): the sinks go on the journals, so the writes
     * this server accepts from now on extend the mirrored history its old primary's replicas can continue.
     */
    public void attachParked() {
        if (attached) return;
        for (Shard sh : shards.all()) sh.writes().journal().addSink(sinks[sh.id()]);
        attached = true;
    }

    /**
     * REPLICAOF NO ONE after following a primary: this server's history continues that primary's, as Redis's
     * shiftReplicationId (a new replid, the old one as replid2 up to {@code offset}). Tide keeps no backlog of the
     * stream it applied, so its replicas resync fully.
     */
    public void continueHistory(String masterReplid, long offset) {
        offer(new Promoted(masterReplid, offset));
    }

    /** Online replicas whose last acknowledgement is at most min-replicas-max-lag seconds old. */
    public int goodReplicas() {
        return goodReplicas;
    }

    public Info info() {
        return info;
    }

    public long syncFull() { return syncFull.get(); }
    public long syncPartialOk() { return syncPartialOk.get(); }
    public long syncPartialErr() { return syncPartialErr.get(); }

    /** CONFIG RESETSTAT. */
    public void resetStats() {
        syncFull.set(0);
        syncPartialOk.set(0);
        syncPartialErr.set(0);
    }

    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------------------------------------ the thread

    private void run() {
        while (!closed) {
            try {
                Object e;
                boolean any = false;
                while ((e = inbox.poll()) != null) {
                    handle(e);
                    any = true;
                }
                distribute();
                if (getAckDue && !mirroring) {
                    getAckDue = false;
                    emitRaw(new byte[][] {b("REPLCONF"), b("GETACK"), b("*")});
                    distribute();
                }
                long now = System.nanoTime();
                if (now - lastTickNanos >= TICK_NANOS) {
                    lastTickNanos = now;
                    tick(System.currentTimeMillis());
                    distribute();
                    any = true;
                }
                if (any) publish();
                if (inbox.isEmpty()) {
                    sleeping = true;
                    if (inbox.isEmpty() && !closed) LockSupport.parkNanos(TICK_NANOS);
                    sleeping = false;
                }
            } catch (RuntimeException ex) {
                LOG.error("replication thread error", ex);
            }
        }
        for (ReplicaLink l : links) l.channel.close();
    }

    private void handle(Object e) {
        switch (e) {
            case ReplicationSink.Batch batch -> {
                if (backlog == null) return; // no backlog, no stream (as Redis feeds nothing without one)
                for (Object r : batch.records()) {
                    if (r instanceof Effect eff) {
                        emit(eff.db(), eff.argv());
                    } else if (r instanceof ReplicationSink.Tx tx) {
                        transaction(tx);
                    }
                }
            }
            case Psync p -> {
                distribute();
                if (detaching) deferred.add(p); // after the backlog is gone: a full sync attaches again
                else psync(p);
            }
            case Ack a -> {
                if (a.offset > a.link.ackOffset) a.link.ackOffset = a.offset;
                if (a.fsyncedOffset > a.link.aofAckOffset) a.link.aofAckOffset = a.fsyncedOffset;
                a.link.ackTimeMs = System.currentTimeMillis();
                if (a.link.awaitingFirstAck && !a.link.closed) {
                    distribute();
                    a.link.awaitingFirstAck = false;
                    sendHeld(a.link);
                }
                answerWaiters(false);
                answerAofWaiters(false);
            }
            case Lost l -> {
                distribute();
                drop(l.link, null);
            }
            case Wait w -> {
                distribute();
                long target = offset;
                long n = acked(target);
                if (n >= w.replicas) {
                    w.answer.accept(n);
                } else {
                    waiters.add(new Object[] {w, target});
                    getAckDue = true;
                }
            }
            case WaitAof w -> {
                distribute();
                long target = offset;
                if (!answerAof(w, target, false)) {
                    aofWaiters.add(new Object[] {w, target});
                    aofWaiting = true;
                    if (w.replicas > aofAcked(target)) getAckDue = true;
                    AppendOnly aof = persistence.appendOnly();
                    // Under everysec the client need not wait for the next second's fsync; under no Tide runs none.
                    if (w.local > 0 && aof != null && config.get("appendfsync").equals("everysec")) aof.syncSoon();
                }
            }
            case Fsynced f -> {
                fsyncQueued.set(false);
                answerAofWaiters(false);
            }
            case SyncBegun s -> {
                distribute();
                syncBegun(s.sync);
            }
            case SyncBusy s -> {
                syncStarting = false;
                retrySyncAtMs = System.currentTimeMillis() + 100;
            }
            case RdbChunk c -> {
                for (ReplicaLink l : c.sync.links) if (!l.closed) l.writeRdb(c.bytes, this);
            }
            case SyncImageDone d -> {
                distribute();
                imageDone(d.sync, d.error);
            }
            case FileSent f -> {
                distribute();
                bulkDone(f.sync, f.error);
            }
            case Detached d -> {
                distribute();
                detaching = false;
                backlog = null;
                replid2 = ZERO_ID;
                secondOffset = -1;
                replid = newId();
                LOG.info("Replication backlog freed after {} seconds without connected replicas.",
                        config.getLong("repl-backlog-ttl"));
                for (Psync p : deferred) psync(p);
                deferred.clear();
            }
            case Promoted p -> {
                // Redis's shiftReplicationId: the primary's history is ours up to the offset, under a new replid.
                distribute();
                // Its replicas must learn the new replid: they reconnect and continue (Redis's replicationUnsetMaster).
                for (ReplicaLink l : new ArrayList<>(links)) drop(l, "the replication ID changed");
                mirroring = false;
                replid2 = p.replid;
                secondOffset = p.offset + 1;
                replid = newId();
                if (backlog == null || offset != p.offset) backlog = attached ? new Backlog(backlogSize(), p.offset) : null;
                offset = p.offset;
                streamDb = -1;
                noReplicasSinceMs = System.currentTimeMillis();
            }
            case MirrorReset m -> {
                distribute();
                // A new history from the primary: this server's own replicas must resync (Redis's disconnectSlaves).
                for (ReplicaLink l : new ArrayList<>(links)) drop(l, "its primary's replica did a full sync");
                replid = m.replid;
                replid2 = ZERO_ID;
                secondOffset = -1;
                offset = m.offset;
                backlog = new Backlog(backlogSize(), m.offset);
            }
            case Mirror m -> {
                if (!mirroring || backlog == null) return;
                out.writeBytes(m.bytes); // to the backlog and to this replica's own replicas (chained replication)
                distribute();
            }
            case History h -> {
                distribute();
                h.answer.complete(new String[] {replid, Long.toString(offset), backlog == null ? "0" : "1"});
            }
            case DropAll d -> {
                distribute();
                for (ReplicaLink l : new ArrayList<>(links)) drop(l, "this server became a replica");
                for (Object[] w : aofWaiters) ((WaitAof) w[0]).answer.done(0, 0, AofRefusal.DEMOTED);
                aofWaiters.clear();
                aofWaiting = false;
            }
            case Resize r -> {
                if (backlog != null) backlog.resize(backlogSize());
            }
            default -> throw new IllegalStateException("unknown replication event " + e);
        }
    }

    // ------------------------------------------------------------------------------------------------ the stream

    private void transaction(ReplicationSink.Tx tx) {
        if (tx.groupSeq() == 0 || tx.parts() <= 1) {
            emitMulti(tx.effects());
            return;
        }
        List<List<Effect>> parts = groups.computeIfAbsent(tx.groupSeq(), k -> new ArrayList<>(tx.parts()));
        parts.add(tx.effects());
        if (parts.size() < tx.parts()) return;
        groups.remove(tx.groupSeq());
        emitMulti(merge(parts));
    }

    /**
     * The effects of a cross-shard operation's parts as one sequence. Keys of different shards are disjoint, so the
     * parts commute, except for whole-database commands (FLUSHALL, SWAPDB), which every part they changed records as
     * the same command array: each is emitted once, after what every part recorded before it.
     */
    static List<Effect> merge(List<List<Effect>> parts) {
        IdentityHashMap<byte[][], Integer> seenIn = new IdentityHashMap<>();
        for (List<Effect> p : parts) {
            IdentityHashMap<byte[][], Boolean> once = new IdentityHashMap<>();
            for (Effect e : p) if (once.put(e.argv(), Boolean.TRUE) == null) seenIn.merge(e.argv(), 1, Integer::sum);
        }
        List<Effect> longest = null;
        int most = 0;
        for (List<Effect> p : parts) {
            int n = 0;
            for (Effect e : p) if (seenIn.get(e.argv()) > 1) n++;
            if (longest == null || n > most) {
                longest = p;
                most = n;
            }
        }
        List<Effect> merged = new ArrayList<>();
        int[] at = new int[parts.size()];
        IdentityHashMap<byte[][], Boolean> emitted = new IdentityHashMap<>();
        if (most > 0) {
            for (Effect barrier : longest) {
                if (seenIn.get(barrier.argv()) < 2 || emitted.containsKey(barrier.argv())) continue;
                for (int i = 0; i < parts.size(); i++) {
                    List<Effect> p = parts.get(i);
                    int stop = -1;
                    for (int j = at[i]; j < p.size(); j++) {
                        if (p.get(j).argv() == barrier.argv()) {
                            stop = j;
                            break;
                        }
                    }
                    if (stop < 0) continue;
                    for (int j = at[i]; j < stop; j++) addOnce(merged, emitted, p.get(j), seenIn);
                    at[i] = stop + 1;
                }
                addOnce(merged, emitted, barrier, seenIn);
            }
        }
        for (int i = 0; i < parts.size(); i++) {
            List<Effect> p = parts.get(i);
            for (int j = at[i]; j < p.size(); j++) addOnce(merged, emitted, p.get(j), seenIn);
        }
        return merged;
    }

    private static void addOnce(List<Effect> merged, IdentityHashMap<byte[][], Boolean> emitted, Effect e,
                                IdentityHashMap<byte[][], Integer> seenIn) {
        if (seenIn.get(e.argv()) > 1 && emitted.put(e.argv(), Boolean.TRUE) != null) return;
        merged.add(e);
    }

    private void emitMulti(List<Effect> effects) {
        if (effects.isEmpty()) return;
        selectFor(effects.get(0).db());
        command(new byte[][] {b("MULTI")});
        for (Effect e : effects) emit(e.db(), e.argv());
        command(new byte[][] {b("EXEC")});
    }

    private void emit(int db, byte[][] argv) {
        selectFor(db);
        command(argv);
    }

    /** A command that applies to no database (PING, REPLCONF GETACK), as Redis feeds them. */
    private void emitRaw(byte[][] argv) {
        if (backlog == null) return;
        command(argv);
    }

    private void selectFor(int db) {
        if (db < 0 || db == streamDb) return;
        command(new byte[][] {b("SELECT"), b(Integer.toString(db))});
        streamDb = db;
    }

    private void command(byte[][] argv) {
        header('*', argv.length);
        for (byte[] a : argv) {
            header('$', a.length);
            out.writeBytes(a);
            out.writeBytes(CRLF);
        }
    }

    private void header(char type, long n) {
        out.write(type);
        out.writeBytes(b(Long.toString(n)));
        out.writeBytes(CRLF);
    }

    /** Moves the bytes encoded so far into the backlog and to the replicas. */
    private void distribute() {
        if (out.size() == 0) return;
        byte[] bytes = out.toByteArray();
        out.reset();
        if (backlog == null) return;
        backlog.append(bytes, 0, bytes.length);
        offset += bytes.length;
        for (int i = links.size() - 1; i >= 0; i--) {
            ReplicaLink l = links.get(i);
            if (l.state == ReplicaLink.State.ONLINE && !l.awaitingFirstAck) {
                l.writeStream(bytes, this);
            } else if (l.state != ReplicaLink.State.WAIT_BGSAVE_START) {
                l.held.add(bytes);
                l.heldBytes += bytes.length;
            } else {
                continue;
            }
            checkLimit(l, System.currentTimeMillis());
        }
    }

    // ------------------------------------------------------------------------------------------------ syncs

    private void psync(Psync p) {
        ReplicaLink l = p.link;
        if (l.closed) return;
        links.add(l);
        noReplicasSinceMs = 0;
        l.ackTimeMs = System.currentTimeMillis();
        if (p.replid != null && partial(l, p.replid, p.offset)) {
            syncPartialOk.incrementAndGet();
            return;
        }
        if (p.replid != null && !p.replid.equals("?")) syncPartialErr.incrementAndGet();
        syncFull.incrementAndGet();
        LOG.info("Replica {}:{} asks for synchronization; full resync", l.ip(), l.listeningPort());
        l.state = ReplicaLink.State.WAIT_BGSAVE_START;
        l.waitingSinceMs = System.currentTimeMillis();
        l.psync = p.replid != null;
        if (joinRunningSync(l)) return;
        maybeStartSync(System.currentTimeMillis());
    }

    /**
     * Redis's "Waiting for end of BGSAVE for SYNC": while a disk-based sync's image is still being written, a new
     * replica joins it instead of waiting for the next one. It gets the same +FULLRESYNC offset and a copy of what a
     * replica of that sync holds of the stream since that offset, so the file it is then sent lines up with what
     * follows.
     */
    private boolean joinRunningSync(ReplicaLink l) {
        Sync s = sync;
        if (s == null || s.diskless || s.imageWritten || s.offset < 0) return false;
        ReplicaLink peer = null;
        for (ReplicaLink o : s.links) {
            if (!o.closed && o.state == ReplicaLink.State.WAIT_BGSAVE_END) {
                peer = o;
                break;
            }
        }
        if (peer == null) return false;
        s.links.add(l);
        if (l.psync) l.writeRdb(b("+FULLRESYNC " + replid + " " + s.offset + "\r\n"), this);
        l.held.addAll(peer.held);
        l.heldBytes = peer.heldBytes;
        l.state = ReplicaLink.State.WAIT_BGSAVE_END;
        LOG.info("Replica {}:{} joins the disk-based sync in progress (offset {})", l.ip(), l.listeningPort(),
                s.offset);
        return true;
    }

    /** Redis's masterTryPartialResynchronization: +CONTINUE and the backlog from the replica's offset. */
    private boolean partial(ReplicaLink l, String id, long from) {
        boolean idOk = id.equals(replid) || (id.equals(replid2) && from <= secondOffset);
        if (!idOk || backlog == null || !backlog.covers(from)) {
            if (!id.equals("?")) {
                LOG.info("Partial resynchronization not accepted: {}", !idOk ? "replication ID mismatch"
                        : "offset " + from + " out of the backlog");
            }
            return false;
        }
        String line = l.capaPsync2() ? "+CONTINUE " + replid + "\r\n" : "+CONTINUE\r\n";
        l.state = ReplicaLink.State.ONLINE;
        l.writeRdb(b(line), this);
        if (from <= offset) l.writeStream(backlog.from(from), this);
        LOG.info("Partial resynchronization request from {}:{} accepted, sending {} bytes of backlog",
                l.ip(), l.listeningPort(), offset + 1 - from);
        return true;
    }

    private void maybeStartSync(long now) {
        if (sync != null || syncStarting || detaching || now < retrySyncAtMs) return;
        List<ReplicaLink> waiting = new ArrayList<>();
        long oldest = Long.MAX_VALUE;
        boolean allEof = true;
        for (ReplicaLink l : links) {
            if (l.state != ReplicaLink.State.WAIT_BGSAVE_START) continue;
            waiting.add(l);
            oldest = Math.min(oldest, l.waitingSinceMs);
            allEof &= l.capaEof() && l.psync;
        }
        if (waiting.isEmpty()) return;
        boolean diskless = config.getBool("repl-diskless-sync") && allEof;
        if (diskless) {
            long max = config.getLong("repl-diskless-sync-max-replicas");
            long delayMs = config.getLong("repl-diskless-sync-delay") * 1000;
            if ((max == 0 || waiting.size() < max) && now - oldest < delayMs) return;
        }
        Sync s = new Sync(waiting, diskless);
        syncStarting = true;
        shards.coordinator().run(shards.all(), () -> beginSync(s), () -> offer(new SyncBusy(s)));
    }

    /**
     * On the coordinator with every shard parked: the instant of the image. The sinks go on the journals if they are
     * not there yet, every record so far is queued, then the marker, then the snapshot begins.
     */
    private void beginSync(Sync s) {
        if (persistence.snapshotRunning()) {
            offer(new SyncBusy(s));
            return;
        }
        if (mirroring) { // a replica: the stream is its primary's, mirrored from the batches applied on this thread
            offer(new SyncBegun(s));
            CompletableFuture<Long> f = persistence.beginReplicationSnapshot(s.diskless ? new RdbChannel(s) : null);
            if (f == null) offer(new SyncImageDone(s, new IOException("a snapshot is in progress")));
            else f.whenComplete((size, err) -> offer(new SyncImageDone(s, err)));
            return;
        }
        if (!attached) {
            for (Shard sh : shards.all()) sh.writes().journal().addSink(sinks[sh.id()]);
            attached = true;
        }
        for (ReplicationSink k : sinks) k.flush();
        offer(new SyncBegun(s));
        CompletableFuture<Long> f = persistence.beginReplicationSnapshot(s.diskless ? new RdbChannel(s) : null);
        if (f == null) { // cannot happen: nothing else begins snapshots while the shards are parked
            offer(new SyncImageDone(s, new IOException("a snapshot is in progress")));
            return;
        }
        f.whenComplete((size, err) -> offer(new SyncImageDone(s, err)));
    }

    private void syncBegun(Sync s) {
        syncStarting = false;
        sync = s;
        if (backlog == null && mirroring) { // a replica that has not synced yet: nothing to offer
            for (ReplicaLink l : s.links) drop(l, "this replica has no data from its primary yet");
            return;
        }
        if (backlog == null) {
            // A new history: a new replication ID, and no secondary one (Redis's createReplicationBacklog in SYNC).
            replid = newId();
            replid2 = ZERO_ID;
            secondOffset = -1;
            backlog = new Backlog(backlogSize(), offset);
        }
        streamDb = -1; // the replicas' databases after loading are unknown: the stream selects again
        s.offset = offset;
        for (ReplicaLink l : s.links) {
            if (l.closed) continue;
            if (l.psync) l.writeRdb(b("+FULLRESYNC " + replid + " " + offset + "\r\n"), this);
            if (s.diskless) {
                l.writeRdb(b("$EOF:" + new String(s.eofMark, StandardCharsets.US_ASCII) + "\r\n"), this);
            }
            l.state = ReplicaLink.State.WAIT_BGSAVE_END;
        }
        LOG.info("Synchronization with {} replica(s) started ({}), offset {}", s.links.size(),
                s.diskless ? "disk-less" : "disk", offset);
    }

    private void imageDone(Sync s, Throwable err) {
        s.imageWritten = true;
        if (err != null) {
            LOG.warn("Full sync image failed: {}", err.toString());
            for (ReplicaLink l : s.links) drop(l, "the full sync failed");
            sync = null;
            return;
        }
        if (s.diskless) {
            for (ReplicaLink l : s.links) if (!l.closed) l.writeRdb(s.eofMark, this);
            bulkDone(s, null);
            return;
        }
        for (ReplicaLink l : s.links) if (!l.closed) l.state = ReplicaLink.State.SEND_BULK;
        Path file = persistence.rdbPath();
        Thread.ofPlatform().name("tide-repl-send").daemon(true).start(() -> sendFile(s, file));
    }

    /** Disk-based sync: {@code $<size>} and the file, read with the replicas' pace. */
    private void sendFile(Sync s, Path file) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            offer(new RdbChunk(s, b("$" + size + "\r\n")));
            ByteBuffer buf = ByteBuffer.allocate(256 * 1024);
            long sent = 0;
            while (sent < size) {
                awaitWindow(s);
                buf.clear();
                int n = ch.read(buf);
                if (n < 0) break;
                byte[] chunk = new byte[n];
                buf.flip();
                buf.get(chunk);
                sent += n;
                offer(new RdbChunk(s, chunk));
            }
            offer(new FileSent(s, null));
        } catch (IOException | RuntimeException e) {
            offer(new FileSent(s, e));
        }
    }

    private static void awaitWindow(Sync s) throws IOException {
        while (s.maxRdbUnsent() > RDB_WINDOW) {
            if (s.abandoned) throw new IOException("no replica left to sync");
            LockSupport.parkNanos(1_000_000);
        }
        if (s.abandoned) throw new IOException("no replica left to sync");
    }

    private void bulkDone(Sync s, Throwable err) {
        sync = null;
        for (ReplicaLink l : s.links) {
            if (l.closed) continue;
            if (err != null) {
                drop(l, "sending the RDB failed: " + err);
                continue;
            }
            if (l.rdbOnly()) {
                drop(l, null);
                continue;
            }
            l.state = ReplicaLink.State.ONLINE;
            l.ackTimeMs = System.currentTimeMillis();
            if (s.diskless) {
                // The replica finds the end of an EOF-marked RDB only as the last bytes it has read: nothing may
                // follow the mark until it says it loaded the image (its first ACK), as Redis's
                // repl_start_cmd_stream_on_ack.
                l.awaitingFirstAck = true;
                LOG.info("Streamed RDB transfer with replica {}:{} succeeded (socket). Waiting for REPLCONF ACK "
                        + "from replica to enable streaming", l.ip(), l.listeningPort());
            } else {
                sendHeld(l);
                LOG.info("Synchronization with replica {}:{} succeeded", l.ip(), l.listeningPort());
            }
        }
        maybeStartSync(System.currentTimeMillis());
    }

    private void sendHeld(ReplicaLink l) {
        byte[] b;
        while ((b = l.held.poll()) != null) l.writeStream(b, this);
        l.heldBytes = 0;
    }

    /** The snapshot writer's target in a disk-less sync: chunks go to the replicas through the queue, in order. */
    private final class RdbChannel implements WritableByteChannel {
        private final Sync s;

        RdbChannel(Sync s) {
            this.s = s;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            awaitWindow(s);
            int n = src.remaining();
            byte[] chunk = new byte[n];
            src.get(chunk);
            offer(new RdbChunk(s, chunk));
            return n;
        }

        @Override
        public boolean isOpen() {
            return !s.abandoned;
        }

        @Override
        public void close() {}
    }

    // ------------------------------------------------------------------------------------------------ upkeep

    private void drop(ReplicaLink l, String why) {
        if (l.closed) return;
        l.closed = true;
        links.remove(l);
        l.held.clear();
        l.heldBytes = 0;
        if (why != null) LOG.warn("Disconnecting replica {}:{}: {}", l.ip(), l.listeningPort(), why);
        else LOG.info("Connection with replica {}:{} lost.", l.ip(), l.listeningPort());
        l.channel.close();
        if (links.isEmpty()) noReplicasSinceMs = System.currentTimeMillis();
        answerWaiters(false);
        answerAofWaiters(false);
    }

    /** The replica class of client-output-buffer-limit, checked as Redis checks it when output is added. */
    private void checkLimit(ReplicaLink l, long now) {
        long[] lim = replicaLimits();
        long used = l.outputBytes();
        boolean over = lim[0] > 0 && used >= lim[0];
        if (!over && lim[1] > 0 && used >= lim[1]) {
            if (l.overSoftSinceMs == 0) l.overSoftSinceMs = now;
            else over = now - l.overSoftSinceMs >= lim[2] * 1000;
        } else if (!over) {
            l.overSoftSinceMs = 0;
        }
        if (over) {
            LOG.warn("Client id={} addr={}:{} (replica) scheduled to be closed ASAP for overcoming of output buffer "
                    + "limits.", l.clientId, l.ip(), l.listeningPort());
            drop(l, "output buffer limit (" + used + " bytes)");
        }
    }

    private volatile long[] replicaLimits;

    private long[] replicaLimits() {
        return replicaLimits;
    }

    /** The replica class of client-output-buffer-limit (canonically named {@code slave}): hard, soft, seconds. */
    private long[] parseReplicaLimits() {
        String[] w = config.get("client-output-buffer-limit").trim().split("\\s+");
        for (int i = 0; i + 3 < w.length; i += 4) {
            if (w[i].equals("slave") || w[i].equals("replica")) {
                return new long[] {Long.parseLong(w[i + 1]), Long.parseLong(w[i + 2]), Long.parseLong(w[i + 3])};
            }
        }
        return new long[] {0, 0, 0};
    }

    private long acked(long target) {
        long n = 0;
        for (ReplicaLink l : links) if (l.state == ReplicaLink.State.ONLINE && l.ackOffset >= target) n++;
        return n;
    }

    private long aofAcked(long target) {
        long n = 0;
        for (ReplicaLink l : links) if (l.state == ReplicaLink.State.ONLINE && l.aofAckOffset >= target) n++;
        return n;
    }

    /** Answers {@code w} if it is satisfied (or {@code force}, or the AOF it waits on was turned off). */
    private boolean answerAof(WaitAof w, long target, boolean force) {
        AppendOnly aof = persistence.appendOnly();
        boolean on = aof != null && aof.enabled();
        if (w.local > 0 && !on) { // Redis's processClientsWaitingReplicas: appendonly turned off meanwhile
            w.answer.done(0, 0, AofRefusal.AOF_OFF);
            return true;
        }
        long replicas = aofAcked(target);
        long local = on && aof.fsynced(w.marks) ? 1 : 0;
        if (force || (replicas >= w.replicas && local >= w.local)) {
            w.answer.done(local, replicas, AofRefusal.NONE);
            return true;
        }
        return false;
    }

    private void answerAofWaiters(boolean timeoutsOnly) {
        if (aofWaiters.isEmpty()) return;
        long now = System.currentTimeMillis();
        for (int i = aofWaiters.size() - 1; i >= 0; i--) {
            WaitAof w = (WaitAof) aofWaiters.get(i)[0];
            long target = (Long) aofWaiters.get(i)[1];
            boolean timedOut = (w.deadlineMs > 0 && now >= w.deadlineMs) || closed;
            if ((timeoutsOnly && !timedOut) ? false : answerAof(w, target, timedOut)) aofWaiters.remove(i);
        }
        aofWaiting = !aofWaiters.isEmpty();
    }

    private void answerWaiters(boolean timeoutsOnly) {
        if (waiters.isEmpty()) return;
        long now = System.currentTimeMillis();
        for (int i = waiters.size() - 1; i >= 0; i--) {
            Wait w = (Wait) waiters.get(i)[0];
            long target = (Long) waiters.get(i)[1];
            long n = acked(target);
            boolean timedOut = w.deadlineMs > 0 && now >= w.deadlineMs;
            if ((!timeoutsOnly && n >= w.replicas) || timedOut || closed) {
                waiters.remove(i);
                w.answer.accept(n);
            }
        }
    }

    private void tick(long now) {
        answerWaiters(true);
        answerAofWaiters(false); // timeouts, and a local fsync the listener could not report (AOF turned off)
        long period = Math.max(1, config.getLong("repl-ping-replica-period")) * 1000;
        if (!links.isEmpty() && !mirroring && now - lastPingMs >= period) { // a replica forwards its primary's
            lastPingMs = now;
            emitRaw(new byte[][] {b("PING")});
        }
        if (now - lastNewlineMs >= 1000) {
            lastNewlineMs = now;
            for (ReplicaLink l : links) {
                boolean waitingImage = l.state == ReplicaLink.State.WAIT_BGSAVE_START
                        || (l.state == ReplicaLink.State.WAIT_BGSAVE_END && sync != null && !sync.diskless
                            && sync.links.contains(l));
                if (waitingImage) l.writeRdb(NEWLINE, this);
            }
        }
        long timeoutMs = config.getLong("repl-timeout") * 1000;
        long maxLag = this.maxLag;
        int good = 0;
        for (int i = links.size() - 1; i >= 0; i--) {
            ReplicaLink l = links.get(i);
            if (l.state != ReplicaLink.State.ONLINE) continue;
            if (timeoutMs > 0 && now - l.ackTimeMs > timeoutMs && !l.rdbOnly()) {
                drop(l, "timeout (no acknowledgement for " + (now - l.ackTimeMs) / 1000 + " seconds)");
                continue;
            }
            if ((now - l.ackTimeMs) / 1000 <= maxLag) good++;
            checkLimit(l, now);
        }
        goodReplicas = good;
        long ttl = config.getLong("repl-backlog-ttl");
        if (links.isEmpty() && backlog != null && ttl > 0 && !detaching && sync == null && !syncStarting && !mirroring
                && noReplicasSinceMs > 0 && (now - noReplicasSinceMs) / 1000 >= ttl) {
            detaching = true;
            shards.coordinator().run(shards.all(), () -> {
                if (attached) {
                    for (Shard sh : shards.all()) {
                        sinks[sh.id()].flush();
                        sh.writes().journal().removeSink(sinks[sh.id()]);
                    }
                    attached = false;
                }
                offer(new Detached());
            }, () -> { });
        }
        maybeStartSync(now);
    }

    private static final byte[] NEWLINE = {'\n'};

    private int backlogSize() {
        return (int) Math.min(Integer.MAX_VALUE - 16, Math.max(16 * 1024, config.getLong("repl-backlog-size")));
    }

    private void publish() {
        List<Replica> rs = new ArrayList<>(links.size());
        long now = System.currentTimeMillis();
        for (ReplicaLink l : links) {
            rs.add(new Replica(l.ip(), l.listeningPort(), l.state.info, l.ackOffset, (now - l.ackTimeMs) / 1000,
                    l.aofAckOffset));
        }
        Backlog bl = backlog;
        info = new Info(replid, replid2, offset, secondOffset, bl != null, bl == null ? backlogSize() : bl.size(),
                bl == null ? 0 : bl.firstByteOffset(), bl == null ? 0 : bl.histlen(), List.copyOf(rs));
    }

    private static String newId() {
        byte[] r = new byte[20];
        new SecureRandom().nextBytes(r);
        return HexFormat.of().formatHex(r);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
