package io.tide.shard;

import io.netty.channel.EventLoop;
import io.netty.channel.SingleThreadEventLoop;
import io.tide.store.Database;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One shard: an event-loop thread and the slice of the keyspace (all databases) it owns.
 * Confined to its event-loop thread: other threads only post tasks to {@link #loop()}, except the
 * coordinator, which touches the data while this thread is parked on its barrier.
 *
 * <p>The shard also runs Redis's {@code serverCron} duties for its slice, {@code hz} times a second:
 * the active expiry cycle (adaptive effort, bounded time), incremental rehash steps and idle-client
 * timeouts.
 *
 * <p>Busy scripts: while the coordinator has {@linkplain Coordinator#lend() lent} the data to a script that ran
 * past {@code busy-reply-threshold}, this thread runs its loop again but must not touch its data (databases,
 * blocked keys, watched keys): the dispatcher answers -BUSY, the cron skips expiry, field expiry and rehashing,
 * and tasks that change blocked or watched keys go through {@link #executeOnData}, which postpones them until
 * the coordinator has taken the data back. See docs/decisions/0006-busy-scripts.md.
 */
public final class Shard {

    private final int id;
    private final EventLoop loop;
    private final Database[] dbs;
    private final ShardStats stats = new ShardStats();
    private final CommandClock clock = new CommandClock();
    private final BlockedKeys blocking = new BlockedKeys();
    private final WatchedKeys watched = new WatchedKeys();
    /** The write seam: every change to a key of this shard passes through it. */
    private final ShardWrites writes = new ShardWrites(this);
    private final Eviction eviction = new Eviction(this);

    private Coordinator coordinator;
    /** While the dataset loads, the cron leaves the data alone (no expiry: the journal's TTLs replay as written). */
    private boolean loading;

    public Shard(int id, EventLoop loop, int databases) {
        this.id = id;
        this.loop = loop;
        this.dbs = new Database[databases];
        for (int i = 0; i < databases; i++) {
            Database d = new Database(i);
            d.setObserver(writes);
            dbs[i] = d;
        }
    }

    /** Set once by {@link ShardSet} before the server starts. */
    void coordinator(Coordinator c) { coordinator = c; }

    /** True while a busy script holds the data and this thread must not touch it. */
    public boolean dataLent() {
        Coordinator c = coordinator;
        return c != null && c.lent();
    }

    /**
     * Runs {@code task}, which touches this shard's data (blocked or watched keys), on this shard's thread once no
     * busy script holds the data; tasks postponed this way keep their order among themselves only loosely (they
     * are retried every millisecond), which is enough for the removals that use it.
     */
    public void executeOnData(Runnable task) {
        loop.execute(() -> runOnData(task));
    }

    /**
     * Runs {@code task} as {@link #executeOnData} does, but from the loop's timer after {@code delayNanos}: a
     * scheduled task waits for the loop's next iteration, so the shard reads its sockets first. (A task posted with
     * {@code execute} from a running task runs in the same batch of tasks, before any I/O.)
     */
    public void scheduleOnData(Runnable task, long delayNanos) {
        loop.schedule(() -> runOnData(task), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void runOnData(Runnable task) {
        if (dataLent() && !loop.isShuttingDown()) {
            loop.schedule(() -> runOnData(task), 1, TimeUnit.MILLISECONDS);
            return;
        }
        task.run();
    }

    /** The latency monitor the active expiry cycle is sampled into (Redis's expire-cycle event). */
    private io.tide.metrics.LatencyMonitor latency;

    /** The large-reply command log the replies of its clients' commands are measured for; null when none. */
    private io.tide.metrics.CommandLog largeReplies;

    /** Sets the large-reply command log; before the shard runs. */
    public void largeReplyLog(io.tide.metrics.CommandLog log) {
        this.largeReplies = log;
    }

    public io.tide.metrics.CommandLog largeReplyLog() {
        return largeReplies;
    }

    /** Sets the latency monitor; before the shard runs. */
    public void latencyMonitor(io.tide.metrics.LatencyMonitor m) {
        this.latency = m;
    }

    /**
     * The active expiry part of the cron: true when it used up the time budget. Feeds INFO's expired_stale_perc
     * (the share of sampled keys found expired) and expired_time_cap_reached_count, as Redis's cycle does.
     */
    private boolean expireCycle(int effort, LongSupplier clock, long start, long budgetNanos) {
        int checksPerRound = 200 + 100 * (effort - 1);
        long sampled = 0;
        long expired = 0;
        try {
            for (Database d : dbs) {
                if (d.volatileCount() == 0) continue;
                while (true) {
                    int deleted = d.activeExpireCycle(clock.getAsLong(), checksPerRound);
                    sampled += d.lastExpireChecks();
                    expired += deleted;
                    if (deleted <= checksPerRound / 10 || d.volatileCount() == 0) break; // < ~10% stale: done
                    if (System.nanoTime() - start > budgetNanos) {
                        stats.expiredTimeCapReached++;
                        return true;
                    }
                }
                if (System.nanoTime() - start > budgetNanos) return true;
            }
        } finally {
            stats.expireCycleDone(sampled, expired);
        }
        for (Database d : dbs) {
            d.activeExpireFields(clock.getAsLong(), checksPerRound); // hash fields with HEXPIRE
            if (System.nanoTime() - start > budgetNanos) return true;
        }
        return false;
    }

    /** Wires the server's lazy freer into every database; called once at startup, before clients connect. */
    public void freer(io.tide.store.Freer f) {
        for (Database d : dbs) d.setFreer(f);
    }

    /**
     * Wires what keeps expired keys in place (CLIENT PAUSE, {@link ShardWrites#expiryHeld}); called once at startup,
     * before clients connect.
     */
    public void holdExpiryWhile(java.util.function.BooleanSupplier held) {
        writes.holdExpiryWhile(held);
    }

    /** Wires keyspace notifications (expired, new); called once at startup, before clients connect. */
    public void keyspaceEvents(io.tide.pubsub.KeyspaceEvents e) {
        writes.keyspaceEvents(e);
    }

    /**
     * Set by the loader around loading the dataset, from any thread: the flag is published to this shard's thread by
     * the task queue of its loop, through which the loader also posts the data.
     */
    public void loading(boolean on) {
        if (loop.inEventLoop()) loading = on;
        else loop.execute(() -> loading = on);
    }

    public int id() { return id; }
    public EventLoop loop() { return loop; }

    /** Tasks queued on this shard's event loop now (its queue depth), -1 when the loop cannot tell. Any thread. */
    public long pendingTasks() {
        return loop instanceof io.netty.util.concurrent.SingleThreadEventExecutor e ? e.pendingTasks() : -1;
    }
    public Database db(int index) { return dbs[index]; }

    /** Heap this shard's databases take beyond their used bytes ({@link Database#slackBytes}); read without locks. */
    public long slackBytes() {
        long sum = 0;
        for (Database d : dbs) sum += d.slackBytes();
        return sum;
    }

    /** Bytes of this shard's databases ({@link Database#usedBytes}); read without locks from other threads. */
    public long usedBytes() {
        long sum = 0;
        for (Database d : dbs) sum += d.usedBytes();
        return sum;
    }
    public int databases() { return dbs.length; }
    public ShardStats stats() { return stats; }
    /** The clock of the commands this shard's thread runs (its thread only). */
    public CommandClock clock() { return clock; }
    public Eviction eviction() { return eviction; }
    /** The clients blocked on this shard's keys, and the keys signalled ready for them. */
    public BlockedKeys blocking() { return blocking; }
    /** The keys of this shard that clients WATCH. */
    public WatchedKeys watched() { return watched; }
    /** The write seam: dirty counters, the journal, and what the running command wrote. */
    public ShardWrites writes() { return writes; }
    /**
     * Runs {@code task} on this shard's thread once the current event-loop iteration has processed its
     * I/O and tasks (Netty's tail tasks); called from this shard's thread.
     */
    public void executeAfterIteration(Runnable task) {
        if (loop instanceof SingleThreadEventLoop stl) {
            stl.executeAfterEventLoopIteration(task);
        } else {
            loop.execute(task);
        }
    }

    /**
     * Starts the periodic cron. {@code hz} and {@code effort} are read each tick so CONFIG SET applies live.
     * {@code extra} runs on each tick too (idle-client timeouts).
     */
    public void startCron(java.util.function.IntSupplier hz, java.util.function.IntSupplier effort, Runnable extra,
                          LongSupplier clock) {
        scheduleCron(hz, effort, extra, clock);
    }

    private void scheduleCron(java.util.function.IntSupplier hz, java.util.function.IntSupplier effort, Runnable extra,
                              LongSupplier clock) {
        long periodMicros = 1_000_000L / hz.getAsInt();
        loop.schedule(() -> {
            try {
                stats.sample(clock.getAsLong());
                if (!dataLent() && !loading) cronTick(periodMicros, effort.getAsInt(), clock);
                extra.run();
            } finally {
                if (!loop.isShuttingDown()) {
                    scheduleCron(hz, effort, extra, clock);
                }
            }
        }, periodMicros, TimeUnit.MICROSECONDS);
    }

    /**
     * Active expiry with Redis's adaptive effort: keep sweeping while more than 10% of the examined
     * keys were expired, within a time budget of 25% of the cron period (scaled up with effort), then
     * spend a little time on incremental rehashing.
     */
    void cronTick(long periodMicros, int effort, LongSupplier clock) {
        long budgetNanos = periodMicros * 1000L * (25 + 2 * (effort - 1)) / 100;
        long start = System.nanoTime();
        boolean spent = expireCycle(effort, clock, start, budgetNanos);
        long elapsed = System.nanoTime() - start;
        stats.expireCycleNanos += elapsed;
        io.tide.metrics.LatencyMonitor lm = latency;
        if (lm != null) lm.sampleIfNeeded("expire-cycle", elapsed / 1_000_000);
        long nowMs = clock.getAsLong();
        for (Database d : dbs) d.releaseIdleValues(nowMs);
        if (spent) return;
        for (Database d : dbs) {
            int rounds = 0;
            while (d.rehashStep(1000) && ++rounds < 100) {
                if (System.nanoTime() - start > budgetNanos) return;
            }
        }
    }
}
