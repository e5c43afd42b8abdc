package io.tide.shard;

import io.tide.store.Freer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Thread-safe (lock-free: shard threads hand over, one freer thread drains). The server's lazy freer, Redis's
 * lazy-free bio thread: what {@link Freer#free} and {@link Freer#freeDatabase} hand over waits in a queue, counted in
 * {@code lazyfree_pending_objects}, until the freer thread takes it and counts it in {@code lazyfreed_objects}.
 *
 * <p>On the JVM the collector reclaims memory, and removing a key costs O(1) on the shard thread already (memory is
 * accounted incrementally), so there is no walk to move away: what the freer thread takes over is the last reference
 * to the value (or to a dropped database's tables), which it drops. So the counters count exactly what Redis hands
 * to its lazy-free thread, and an object is pending for exactly as long as it is still queued.
 */
public final class LazyFree implements Freer {

    private final ConcurrentLinkedQueue<Job> queue = new ConcurrentLinkedQueue<>();
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong freed = new AtomicLong();
    private final AtomicInteger policy = new AtomicInteger();
    private final AtomicBoolean parked = new AtomicBoolean();
    private final AtomicBoolean stopped = new AtomicBoolean();
    /** The freer thread starts with the first object handed over: a server that never frees lazily has none. */
    private final AtomicBoolean started = new AtomicBoolean();
    private final Thread thread;

    /** One handed-over object and the number of objects it counts for. */
    private record Job(Object object, long objects) {}

    public LazyFree(String threadName) {
        thread = Thread.ofPlatform().name(threadName).daemon().unstarted(this::run);
    }

    /** Sets or clears the policy bit {@code kind} (from CONFIG). */
    public void policy(int kind, boolean on) {
        policy.getAndUpdate(p -> on ? p | kind : p & ~kind);
    }

    @Override
    public boolean lazy(int kind) {
        return (policy.get() & kind) != 0;
    }

    @Override
    public boolean free(Object value) {
        if (value == null || Freer.effort(value) <= THRESHOLD) return false;
        submit(value, 1);
        return true;
    }

    @Override
    public void freeDatabase(Object contents, long keys) {
        submit(contents, keys);
    }

    /** Objects handed over and not freed yet ({@code lazyfree_pending_objects}). */
    public long pendingObjects() {
        return pending.get();
    }

    /** Objects freed since the start or CONFIG RESETSTAT ({@code lazyfreed_objects}). */
    public long freedObjects() {
        return freed.get();
    }

    /** CONFIG RESETSTAT (Redis's lazyfreeResetStats). */
    public void resetStats() {
        freed.set(0);
    }

    /** Stops the freer thread after it has taken what was handed over. */
    public void close() {
        stopped.set(true);
        if (!started.get()) return;
        LockSupport.unpark(thread);
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void submit(Object object, long objects) {
        pending.addAndGet(objects);
        queue.offer(new Job(object, objects));
        if (!started.get() && !stopped.get() && started.compareAndSet(false, true)) {
            thread.start();
            return;
        }
        if (parked.get()) LockSupport.unpark(thread);
    }

    private void run() {
        while (true) {
            Job j = queue.poll();
            if (j != null) {
                long n = j.objects();
                j = null; // the last reference to the object: from here on it is the collector's
                pending.addAndGet(-n);
                freed.addAndGet(n);
                continue;
            }
            if (stopped.get()) return;
            parked.set(true);
            // Set before looking at the queue, read by submit after offering: one of the two sees the other.
            if (queue.isEmpty() && !stopped.get()) LockSupport.park(this);
            parked.set(false);
        }
    }
}
