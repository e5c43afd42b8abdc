package io.tide.persistence.aof;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's background fsync of AOF files. Thread-safe: each writer (each shard's stream) has a thread of its own
 * ({@code tide-aof-fsync-N}) that runs its fsyncs, so the shards' files are fsynced side by side rather than one after
 * another; one more thread ({@code tide-aof-fsync-watch}) declares fsyncs that exceed {@code aof-fsync-timeout-ms}
 * failed (the fsync thread itself may be stuck in the kernel) and asks for the once-a-second fsync of
 * {@code everysec} writers (and a retry for writers whose last fsync failed). No fsync ever runs on an event loop.
 *
 * <p>Requests coalesce: a writer is asked at most once until its thread takes the request, and that fsync covers
 * everything written before it started, so a burst of requests from one event-loop iteration, or several, costs one
 * fsync per file.
 */
public final class AofFsync implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AofFsync.class);
    private static final long EVERYSEC_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final CopyOnWriteArrayList<AofWriter> writers = new CopyOnWriteArrayList<>();
    /** The writers' fsync threads still running. */
    private final CopyOnWriteArrayList<Thread> syncers = new CopyOnWriteArrayList<>();
    private final AtomicInteger syncerNames = new AtomicInteger();
    private final Thread watcher;
    private volatile long timeoutMillis;
    private volatile boolean running = true;
    /** Told after each completed fsync (WAITAOF's waiters). */
    private volatile Runnable onFsync = () -> { };

    /** Starts the watch thread; {@code timeoutMillis} is {@code aof-fsync-timeout-ms}. */
    public AofFsync(long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
        this.watcher = Thread.ofPlatform().name("tide-aof-fsync-watch").daemon().unstarted(this::watchLoop);
        watcher.start();
    }

    /** {@code aof-fsync-timeout-ms} from now on. */
    public void timeoutMillis(long millis) {
        this.timeoutMillis = millis;
    }

    /** {@code listener} runs on an fsync thread after each fsync attempt; it must be thread-safe and not block. */
    public void onFsync(Runnable listener) {
        this.onFsync = listener;
    }

    /** Starts {@code writer}'s fsync thread; it ends once the writer is closed (or this is). */
    void register(AofWriter writer) {
        Thread t = Thread.ofPlatform().name("tide-aof-fsync-" + syncerNames.getAndIncrement()).daemon()
                .unstarted(() -> syncLoop(writer));
        writer.syncer = t;
        syncers.add(t);
        writers.add(writer);
        t.start();
    }

    void unregister(AofWriter writer) {
        writers.remove(writer);
        LockSupport.unpark(writer.syncer);
    }

    /** Asks for an fsync of {@code writer}'s files unless one is asked for and not yet started. */
    void enqueue(AofWriter writer) {
        if (writer.queued.compareAndSet(false, true)) LockSupport.unpark(writer.syncer);
    }

    private void syncLoop(AofWriter w) {
        try {
            while (running && !w.closed()) {
                if (!w.queued.getAndSet(false)) {   // a request from now on needs another fsync
                    LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
                    continue;
                }
                try {
                    w.syncOnFsyncThread();
                    onFsync.run();
                } catch (RuntimeException e) {
                    log.error("AOF fsync failed unexpectedly", e);
                }
            }
        } finally {
            syncers.remove(Thread.currentThread());
        }
    }

    private void watchLoop() {
        long lastEverysec = System.nanoTime();
        while (running) {
            long timeout = timeoutMillis;
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(Math.max(5, Math.min(100, timeout / 4))));
            long now = System.nanoTime();
            long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeout);
            boolean tick = now - lastEverysec >= EVERYSEC_NANOS;
            if (tick) lastEverysec = now;
            for (AofWriter w : writers) {
                if (w.closed()) continue;
                w.checkTimeout(now, timeoutNanos, timeout);
                if (tick && (w.sharedPolicy() == AofWriter.FsyncPolicy.EVERYSEC || w.failed()) && w.needsSync()) {
                    w.requestSync();
                }
            }
        }
    }

    /** Stops the threads (after the writers are closed). */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(watcher);
        for (Thread t : syncers) LockSupport.unpark(t);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            watcher.join(TimeUnit.SECONDS.toMillis(5));
            for (Thread t : syncers) {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
