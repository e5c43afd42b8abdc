package io.tide.shard;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs multi-shard operations atomically. Thread-safe.
 *
 * <p>One coordinator thread takes operations from a queue. For each batch it posts a barrier task to
 * every shard the batch needs; each shard thread, on reaching its barrier, signals arrival and parks
 * until released. When all have arrived, no other client can observe or change those shards, so the
 * coordinator runs the operations against their data directly, one after the other (the latches give
 * the happens-before edges in both directions), then releases them. Because only this single thread
 * ever parks shards, and a shard thread never waits for anything but its own release, there is no
 * lock-order cycle and no deadlock.
 *
 * <p>Batching: the operations waiting when the coordinator comes round (up to {@value #MAX_BATCH})
 * share one barrier over the union of their shards. Each operation is still atomic (nothing else
 * runs on those shards in between) and they take effect in queue order; under load the cost of
 * parking the shards is paid once per batch instead of once per command. A client never has two
 * operations in the queue: the dispatcher holds its next requests until the reply is back.
 * See docs/decisions/0002-multi-shard-atomicity.md.
 *
 * <p>Self-parking: a shard thread that hands over operations on itself alone parks itself at once
 * ({@link #runSelfParked}) instead of waiting for a barrier; while it waits it still takes barriers of batches queued
 * before its operations. See docs/decisions/0016-gathered-reads-and-self-parking.md.
 *
 * <p>Busy scripts. Scripts always run here (with one shard too). A script that runs past
 * {@code busy-reply-threshold} calls {@link #lend()}: the shards are released early while the script keeps
 * the data, and until {@link #reclaim()} (the script's end, before its caller touches data again) the shard
 * threads answer -BUSY and leave their data alone. Exactly one side owns the data at any time: the volatile
 * {@code lent} is written before the release and after the re-park. Operations queued meanwhile wait for
 * the next barrier. See docs/decisions/0006-busy-scripts.md.
 */
public final class Coordinator {

    private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);
    static final int MAX_BATCH = 256;

    private final LinkedBlockingQueue<Op> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean closed;
    /** The shards parked for the current batch and their release latch; coordinator thread only. */
    private Shard[] parked;
    private CountDownLatch release;
    /** The shards whose threads parked themselves for the current batch ({@link #runSelfParked}). */
    private Shard[] selfParkedShards;
    /** See {@link #lend()}. */
    private volatile boolean lent;

    /**
     * {@code adopted}: handed over by {@link #adopt}, run only through {@link #adoptedOps}, never from the queue;
     * {@code script}: the rest of a script that began inline on its shard (see {@link #runAdoptedScripts}).
     */
    private record Op(Shard[] shards, Runnable body, Runnable onRejected, SelfPark group, boolean adopted,
                      boolean script) {}

    /**
     * What shard threads handed over in the middle of their work ({@link #adopt}), until a batch takes it: the next
     * batch to run, whichever shards it parks, runs all of it, in the order handed over, before its own operations.
     * Several shards may hand over at once (each parks itself until its own has run).
     */
    private final java.util.concurrent.ConcurrentLinkedQueue<Op> adoptedOps =
            new java.util.concurrent.ConcurrentLinkedQueue<>();

    /**
     * Operations a shard thread handed over while parking itself ({@link #runSelfParked}): the thread waits in
     * {@link #awaitGroup} until they have all run, so no barrier is posted to it for them. Its signals carry what
     * the waiting thread must do: arrive at a barrier of an earlier batch, leave (the data was lent, or all ran).
     */
    private static final class SelfPark {
        final Shard shard;
        final LinkedBlockingQueue<Object> signals = new LinkedBlockingQueue<>();
        /** Operations of the group not yet run; coordinator thread only. */
        int remaining;
        /** The shard thread no longer waits (the data was lent): later batches park it by a barrier. */
        volatile boolean left;

        SelfPark(Shard shard, int n) {
            this.shard = shard;
            this.remaining = n;
        }
    }

    /** A barrier posted to one shard: taken once, by the loop task or by a self-parked thread. */
    private static final class Barrier {
        final CountDownLatch arrived;
        final CountDownLatch release;
        final java.util.concurrent.atomic.AtomicBoolean taken = new java.util.concurrent.atomic.AtomicBoolean();

        Barrier(CountDownLatch arrived, CountDownLatch release) {
            this.arrived = arrived;
            this.release = release;
        }

        void arrive() {
            if (!taken.compareAndSet(false, true)) return;
            arrived.countDown();
            awaitUninterruptibly(release);
        }
    }

    private static final Object DONE = new Object();
    /** Per shard id: the group its thread waits in now, and the barrier posted to it last (Dekker pair). */
    private final java.util.concurrent.atomic.AtomicReferenceArray<SelfPark> selfParked =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(64);
    private final java.util.concurrent.atomic.AtomicReferenceArray<Barrier> pending =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(64);
    /** The self-parked groups of the current batch; coordinator thread only. */
    private final List<SelfPark> batchGroups = new ArrayList<>();

    public Coordinator() {
        thread = new Thread(this::loop, "tide-coordinator");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Parks {@code shards}, runs {@code body} on the coordinator thread, releases them. Returns at once;
     * {@code body} must hand its result back to the caller's thread itself. If the server is shutting
     * down, {@code onRejected} runs instead.
     */
    public void run(Shard[] shards, Runnable body, Runnable onRejected) {
        if (closed) {
            onRejected.run();
            return;
        }
        Op op = new Op(shards, body, onRejected, null, false, false);
        queue.add(op);
        if (closed && queue.remove(op)) onRejected.run(); // lost the race with close(): nobody will run it

    }

    /**
     * On {@code self}'s own thread: runs {@code bodies} (each with {@code self} as its only shard) with that thread
     * parked, and returns once they have run, or once a busy script was lent the data. Instead of the coordinator
     * posting a barrier and waiting for the thread to reach it, the thread parks itself here at once: one hand-off
     * each way for the whole group. While it waits it still takes part in barriers of batches queued before (so
     * there is no deadlock). Counted as operations like {@link #run}; a body's {@code onRejected} runs on shutdown.
     */
    public void runSelfParked(Shard self, List<Runnable> bodies, List<Runnable> onRejected) {
        if (closed) {
            for (Runnable r : onRejected) r.run();
            return;
        }
        SelfPark g = new SelfPark(self, bodies.size());
        Shard[] only = {self};
        List<Op> ops = new ArrayList<>(bodies.size());
        for (int i = 0; i < bodies.size(); i++) ops.add(new Op(only, bodies.get(i), onRejected.get(i), g, false, false));
        selfParked.set(self.id(), g); // before reading pending and lent: see park() and lend()
        try {
            if (lent) g.left = true; // a busy script holds the data: stay in the loop to answer -BUSY
            Barrier b = pending.get(self.id());
            if (b != null) b.arrive(); // a batch queued before ours waits for this thread
            queue.addAll(ops);
            if (closed) { // lost the race with close(): nobody will run what is left of them
                for (Op op : ops) if (queue.remove(op)) op.onRejected.run();
            }
            if (!g.left) awaitGroup(g);
        } finally {
            selfParked.set(self.id(), null);
        }
    }

    /**
     * On {@code self}'s own thread, in the middle of an operation that began there alone (a script, inline on its shard,
     * that turned busy; a command whose push readied a waiter whose keys span shards): hands the rest of it
     * ({@code body}, which resumes the script, or serves the waiter after {@link #extend parking} every shard) to the
     * coordinator thread and parks this thread until it has run or been lent the data, as {@link #runSelfParked} does.
     * Nothing else may touch the shard's data before the rest has run, not even a batch queued before whose barrier
     * this thread takes while it waits: so the rest does not queue behind anything. The next batch to run (one waiting
     * for this thread's arrival, or the one this call wakes) runs it first, with this shard parked either way (by that
     * barrier, or self-parked here). On shutdown {@code onRejected} runs instead. {@code script}: the rest of a script
     * (which holds the Lua engine until it ends, see {@link #acquire}). See
     * docs/decisions/0022-scripts-inline-on-their-shard.md and 0004 (amended 2026-12-06).
     */
    public void adopt(Shard self, Runnable body, Runnable onRejected, boolean script) {
        if (closed) {
            onRejected.run();
            return;
        }
        SelfPark g = new SelfPark(self, 1);
        Op op = new Op(new Shard[] {self}, body, onRejected, g, true, script);
        selfParked.set(self.id(), g); // before reading pending: see park()
        try {
            adoptedOps.add(op); // before this thread arrives at any barrier: the batch that parked it finds the op
            queue.add(op); // wakes the coordinator when it waits for work (the loop drops it: adoptedOps runs it)
            Barrier b = pending.get(self.id());
            if (b != null) b.arrive(); // a batch queued before waits for this thread: it runs the op first
            if (closed && adoptedOps.remove(op)) { // lost the race with close(): nobody will run it
                onRejected.run();
                return;
            }
            awaitGroup(g);
        } finally {
            selfParked.set(self.id(), null);
        }
    }

    private void awaitGroup(SelfPark g) {
        while (true) {
            Object signal;
            try {
                signal = g.signals.poll(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                signal = null;
            }
            if (signal == DONE) return;
            if (signal instanceof Barrier b) {
                b.arrive();
            } else if (signal == null && (!thread.isAlive() || Thread.currentThread().isInterrupted())) {
                return; // the coordinator is gone (shutdown): nothing will run the rest
            }
        }
    }

    private void loop() {
        ON_THREAD.set(this);
        List<Op> batch = new ArrayList<>();
        Shard[] byId = new Shard[64];
        while (!closed) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                break;
            }
            queue.drainTo(batch, MAX_BATCH - 1);
            batch.removeIf(Op::adopted); // wake-ups: the op itself is run through adoptedOps
            if (batch.isEmpty() && adoptedOps.isEmpty()) continue;
            int n = 0;
            for (Op op : batch) {
                if (op.group != null && !op.group.left) {
                    if (!batchGroups.contains(op.group)) batchGroups.add(op.group);
                    continue; // its thread parked itself
                }
                for (Shard s : op.shards) {
                    if (byId[s.id()] == null) {
                        byId[s.id()] = s;
                        n++;
                    }
                }
            }
            Shard[] union = new Shard[n];
            for (int i = 0, k = 0; i < byId.length; i++) {
                if (byId[i] != null) {
                    union[k++] = byId[i];
                    byId[i] = null;
                }
            }
            coordinate(union, batch);
            batch.clear();
            batchGroups.clear();
        }
        Op left;
        while ((left = adoptedOps.poll()) != null) reject(left);
        while ((left = queue.poll()) != null) {
            if (!left.adopted) reject(left);
        }
    }

    /** Runs {@code op}'s rejection (the server is shutting down) and counts it as finished. */
    private void reject(Op op) {
        op.onRejected.run();
        finished(op);
    }

    /**
     * After an operation ran or was rejected: its self-parked thread may go once the whole group has. From then on its
     * shard is no longer parked for this batch: a later operation of the batch that reaches it parks it by a barrier
     * ({@link #extend}), instead of taking it for parked while its thread runs again.
     */
    private void finished(Op op) {
        SelfPark g = op.group;
        if (g != null && --g.remaining == 0 && !g.left) {
            g.signals.add(DONE);
            selfParkedShards = without(selfParkedShards, g.shard);
        }
    }

    /**
     * The shard of an operation handed over by {@link #adopt}: its thread waits there, so for the rest of the batch it
     * counts as parked (an {@link #extend} skips it) until {@link #finished} lets it go.
     */
    private void countSelfParked(Shard home) {
        if (contains(parked, home) || contains(selfParkedShards, home)) return;
        int n = selfParkedShards == null ? 0 : selfParkedShards.length;
        selfParkedShards = n == 0 ? new Shard[1] : java.util.Arrays.copyOf(selfParkedShards, n + 1);
        selfParkedShards[n] = home;
    }

    private static Shard[] without(Shard[] set, Shard s) {
        if (!contains(set, s)) return set;
        Shard[] out = new Shard[set.length - 1];
        int n = 0;
        for (Shard x : set) if (x != s) out[n++] = x;
        return out;
    }

    /** Operations run, and the nanoseconds their batches held shards parked (written on the coordinator thread). */
    private volatile long operations;
    private volatile long parkedNanos;

    /** INFO tide_coordinator_operations: multi-shard operations run since start (or CONFIG RESETSTAT). */
    public long operations() { return operations; }

    /** INFO tide_coordinator_usec: the time their batches held shards parked, from the first barrier to release. */
    public long parkedMicros() { return parkedNanos / 1000; }

    private volatile io.tide.metrics.LatencyMonitor latency;

    /** Where the {@code coordinator-park} event goes: each batch's time from its first barrier to the release. */
    public void latencyMonitor(io.tide.metrics.LatencyMonitor m) { latency = m; }

    /** CONFIG RESETSTAT; on the coordinator thread (an ALL_SHARDS command). */
    public void resetStats() {
        operations = 0;
        parkedNanos = 0;
    }

    private void coordinate(Shard[] shards, List<Op> batch) {
        long t0 = System.nanoTime();
        if (!park(shards)) {
            Op a;
            while ((a = adoptedOps.poll()) != null) reject(a);
            for (Op op : batch) reject(op);
            return;
        }
        selfParkedShards = new Shard[batchGroups.size()];
        for (int i = 0; i < selfParkedShards.length; i++) selfParkedShards[i] = batchGroups.get(i).shard;
        // Each was queued before its shard's thread arrived at any barrier, so that shard is parked now: by this
        // batch's barrier, or self-parked in adopt(), waiting for its op.
        List<Op> adopted = new ArrayList<>();
        for (Op a; (a = adoptedOps.poll()) != null; ) {
            adopted.add(a);
            countSelfParked(a.shards[0]);
        }
        operations += batch.size() + adopted.size();
        try {
            for (Op a : adopted) runOp(a);
            for (Op op : batch) runOp(op);
        } finally {
            if (release != null) release.countDown();
            releaseExtra();
            release = null;
            parked = null;
            selfParkedShards = null;
            for (Shard s : shards) pending.set(s.id(), null);
            long took = System.nanoTime() - t0;
            parkedNanos += took;
            io.tide.metrics.LatencyMonitor m = latency;
            if (m != null) m.sampleIfNeeded("coordinator-park", took / 1_000_000);
        }
    }

    private void runOp(Op op) {
        if (release == null) { // lent out and not taken back (shutting down)
            reject(op);
            return;
        }
        try {
            op.body.run();
        } catch (RuntimeException e) {
            LOG.error("multi-shard operation failed", e);
        } finally {
            if (lent) reclaim(); // an operation must never leave the data lent out
            finished(op);
        }
    }

    /** Posts a barrier to each shard and waits until all have parked; false (none left parked) on failure. */
    private boolean park(Shard[] shards) {
        CountDownLatch rel = parkOnly(shards);
        if (rel == null) return false;
        parked = shards;
        release = rel;
        return true;
    }

    /**
     * From the operation running on the coordinator thread (a script whose declared keys live on some shards and
     * that reaches a key of another): parks {@code more} too, until the batch ends (or, while a busy script holds the
     * data, only fences them: they then leave their data alone, see {@link #lend()}). Only this thread parks shards,
     * so parking more in the middle of an operation cannot deadlock; the operation stays atomic, since it touched
     * nothing of those shards before. Shards parked already are skipped. False when the server is shutting down.
     */
    public boolean extend(Shard[] more) {
        if (Thread.currentThread() != thread) throw new IllegalStateException("not on the coordinator thread");
        if (parked == null) return false;
        // A script's rest handed over meanwhile waits on its shard's thread, which would take this barrier: it runs
        // first, whole, so that this operation never sees it half done (nothing of its shard was touched here yet).
        runAdoptedScripts();
        List<Shard> add = new ArrayList<>();
        for (Shard s : more) {
            if (!contains(parked, s) && !contains(selfParkedShards, s)) add.add(s);
        }
        if (add.isEmpty()) return true;
        Shard[] extra = add.toArray(new Shard[0]);
        CountDownLatch rel = parkOnly(extra);
        if (rel == null) return false;
        if (lent) rel.countDown(); // a fence: from now on they see lent and leave their data alone
        else extraReleases.add(rel);
        Shard[] all = java.util.Arrays.copyOf(parked, parked.length + extra.length);
        System.arraycopy(extra, 0, all, parked.length, extra.length);
        parked = all; // a reclaim parks them again with the others
        return true;
    }

    private static boolean contains(Shard[] set, Shard s) {
        if (set == null) return false;
        for (Shard x : set) if (x == s) return true;
        return false;
    }

    /** The releases of shards {@link #extend} parked during the current batch; coordinator thread only. */
    private final List<CountDownLatch> extraReleases = new ArrayList<>();

    private void releaseExtra() {
        for (CountDownLatch l : extraReleases) l.countDown();
        extraReleases.clear();
    }

    /** Posts a barrier to each shard and waits until all have arrived; their release latch, or null on failure. */
    private CountDownLatch parkOnly(Shard[] shards) {
        CountDownLatch arrived = new CountDownLatch(shards.length);
        CountDownLatch rel = new CountDownLatch(1);
        try {
            for (Shard s : shards) {
                Barrier b = new Barrier(arrived, rel);
                pending.set(s.id(), b); // before reading selfParked: one of the two sides sees the other
                s.loop().execute(b::arrive);
                SelfPark g = selfParked.get(s.id());
                if (g != null) g.signals.add(b); // its thread waits in runSelfParked, not in its loop
            }
        } catch (RejectedExecutionException e) {
            rel.countDown();
            return null;
        }
        if (!awaitArrival(arrived)) {
            rel.countDown();
            return null;
        }
        return rel;
    }

    /**
     * Called by the operation running on the coordinator thread (a script past {@code busy-reply-threshold}):
     * releases the parked shards early while the operation keeps the data. From the volatile write of
     * {@link #lent()} until {@link #reclaim()} the shard threads run their loops but must not touch their data
     * (databases, blocked and watched keys): they answer -BUSY, skip the cron's data work and postpone data
     * tasks ({@link Shard#executeOnData}). Does nothing off the coordinator thread or with nothing parked.
     */
    public void lend() {
        if (Thread.currentThread() != thread || release == null || lent) return;
        lent = true; // published before the release: a shard that runs again sees it
        release.countDown();
        releaseExtra();
        // Every thread waiting in runSelfParked goes back to its loop (to answer -BUSY): from now on (the reclaim,
        // later batches) a barrier parks its shard for its group's operations.
        for (int i = 0; i < selfParked.length(); i++) {
            SelfPark g = selfParked.get(i);
            if (g == null || g.left) continue;
            g.left = true;
            g.signals.add(DONE);
        }
        if (selfParkedShards != null && selfParkedShards.length > 0) {
            Shard[] all = java.util.Arrays.copyOf(parked, parked.length + selfParkedShards.length);
            System.arraycopy(selfParkedShards, 0, all, parked.length, selfParkedShards.length);
            parked = all;
            selfParkedShards = null;
        }
    }

    /**
     * Takes the data back after {@link #lend()}: parks the same shards again, then clears {@link #lent()} (the
     * operation's last data access happens before that write). Called on the coordinator thread; the operation
     * body may go on touching data afterwards as before. If the shards cannot park (shutdown), the remaining
     * operations of the batch are rejected.
     */
    public void reclaim() {
        if (Thread.currentThread() != thread || !lent) return;
        Shard[] shards = parked;
        release = null;
        if (!park(shards)) parked = null;
        lent = false;
    }

    /**
     * The rests of scripts that began inline on their shards and were handed over ({@link #adopt} with
     * {@code script}) since this batch started, run now, in the middle of the current operation, before it touches
     * anything more: from the coordinator thread while the operation waits for the Lua engine such a script holds
     * ({@link #acquire}), or is about to park more shards ({@link #extend}). Each one's shard is parked already (its
     * thread waits in {@link #adopt}), and until it ends nothing else runs here, so it stays atomic. True if any ran.
     */
    private boolean runAdoptedScripts() {
        boolean ran = false;
        for (Op a : adoptedOps) { // weakly consistent: removing as it goes is safe
            if (!a.script || !adoptedOps.remove(a)) continue;
            countSelfParked(a.shards[0]);
            operations++;
            runOp(a);
            ran = true;
        }
        return ran;
    }

    /**
     * Takes the Lua engine's {@code permit}. Off the coordinator thread, waits for it. On it (a script or library load
     * in a coordinated operation), the permit may be held by a script inline on a shard of a multi-shard server, whose
     * rest may be handed over here (it turned busy, or reached another shard's key): while waiting, this thread runs
     * such rests ({@link #runAdoptedScripts}), so it never waits for work only it can do.
     */
    public void acquire(java.util.concurrent.Semaphore permit) {
        if (Thread.currentThread() != thread) {
            permit.acquireUninterruptibly();
            return;
        }
        boolean interrupted = false;
        while (!permit.tryAcquire()) {
            if (runAdoptedScripts()) continue;
            try {
                if (permit.tryAcquire(100, TimeUnit.MICROSECONDS)) break;
            } catch (InterruptedException e) {
                interrupted = true; // shutting down: the holder is killed at its next check, here or on its shard
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    /** The coordinator whose thread is the calling one, or null. */
    public static Coordinator onThisThread() {
        return ON_THREAD.get();
    }

    private static final ThreadLocal<Coordinator> ON_THREAD = new ThreadLocal<>();

    /** True while a coordinated operation holds the data with the shards released (a busy script). */
    public boolean lent() {
        return lent;
    }

    /** Whether the calling thread is the coordinator's (where scripts run). */
    public boolean isCoordinatorThread() {
        return Thread.currentThread() == thread;
    }

    /** Set by close(): the server is stopping (a busy script stops at its next check). */
    public boolean closed() {
        return closed;
    }

    private static boolean awaitArrival(CountDownLatch arrived) {
        try {
            // Shards that are shutting down never arrive; give up then instead of hanging.
            while (!arrived.await(1, TimeUnit.SECONDS)) {
                if (Thread.currentThread().isInterrupted()) return false;
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
