package io.tide.persistence.aof;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's background fsync of AOF files. Thread-safe: one thread ({@code tide-aof-fsync}) runs every fsync, and
 * a second ({@code tide-aof-fsync-watch}) declares fsyncs that exceed {@code aof-fsync-timeout-ms} failed (the fsync
 * thread itself may be stuck in the kernel) and asks for the once-a-second fsync of {@code everysec} writers (and a
 * retry for writers whose last fsync failed). No fsync ever runs on an event loop.
 *
 * <p>Requests coalesce: a writer is queued at most once, and its fsync covers everything written before the fsync
 * started, so a burst of requests from one event-loop iteration, or several, costs one fsync per file.
 */
public final class AofFsync implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AofFsync.class);
    private static final long EVERYSEC_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ConcurrentLinkedQueue<AofWriter> queue = new ConcurrentLinkedQueue<>();
    private final CopyOnWriteArrayList<AofWriter> writers = new CopyOnWriteArrayList<>();
    private final Thread syncer;
    private final Thread watcher;
    private volatile long timeoutMillis;
    private volatile boolean running = true;
    /** Told after each completed fsync (WAITAOF's waiters). */
    private volatile Runnable onFsync = () -> { };

    /** Starts the two threads; {@code timeoutMillis} is {@code aof-fsync-timeout-ms}. */
    public AofFsync(long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
        this.syncer = Thread.ofPlatform().name("tide-aof-fsync").daemon().unstarted(this::syncLoop);
        this.watcher = Thread.ofPlatform().name("tide-aof-fsync-watch").daemon().unstarted(this::watchLoop);
        syncer.start();
        watcher.start();
    }

    /** {@code aof-fsync-timeout-ms} from now on. */
    public void timeoutMillis(long millis) {
        this.timeoutMillis = millis;
    }

    /** {@code listener} runs on the fsync thread after each fsync attempt; it must not block. */
    public void onFsync(Runnable listener) {
        this.onFsync = listener;
    }

    void register(AofWriter writer) {
        writers.add(writer);
    }

    void unregister(AofWriter writer) {
        writers.remove(writer);
    }

    /** Queues an fsync of {@code writer}'s files unless one is queued and not yet started. */
    void enqueue(AofWriter writer) {
        if (writer.queued.compareAndSet(false, true)) {
            queue.add(writer);
            LockSupport.unpark(syncer);
        }
    }

    private void syncLoop() {
        while (running) {
            AofWriter w = queue.poll();
            if (w == null) {
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
                continue;
            }
            w.queued.set(false);   // a request from now on needs another fsync
            try {
                w.syncOnFsyncThread();
                onFsync.run();
            } catch (RuntimeException e) {
                log.error("AOF fsync failed unexpectedly", e);
            }
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

    /** Stops both threads (after the writers are closed). */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(syncer);
        LockSupport.unpark(watcher);
        try {
            syncer.join(TimeUnit.SECONDS.toMillis(5));
            watcher.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
