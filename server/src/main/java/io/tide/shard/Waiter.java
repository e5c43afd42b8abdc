package io.tide.shard;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thread-safe. A client blocked on keys. Its keys' shards try to serve it when one of them is signalled,
 * its home shard times it out or cancels it on disconnect; the state word decides which of them acts:
 * {@code WAITING -> SERVING -> (WAITING | DONE)} for an attempt to serve, {@code WAITING -> DONE} for a
 * timeout or a cancel. Only the thread that moved it to {@code SERVING} or {@code DONE} acts on it.
 */
public abstract class Waiter {

    private static final int WAITING = 0;
    private static final int SERVING = 1;
    private static final int DONE = 2;

    private final AtomicInteger state = new AtomicInteger(WAITING);
    private final int db;
    private final byte[][] keys;
    /** The shards owning {@link #keys}, as a bit mask of shard ids. */
    private final long shardMask;

    protected Waiter(int db, byte[][] keys, long shardMask) {
        this.db = db;
        this.keys = keys;
        this.shardMask = shardMask;
    }

    public int db() { return db; }

    /** Whether the key's deletion or change of type is news to this waiter (XREADGROUP: it then answers an error). */
    public boolean toldOfDeletion() { return false; }

    /** Whether a key of this waiter that now holds {@code value} (null: none) is worth running it again for. */
    public boolean retriedOn(Object value) { return true; }
    public byte[][] keys() { return keys; }
    public long shardMask() { return shardMask; }

    /** Whether all the keys live on one shard (then only that shard serves it, with no coordinator). */
    public boolean singleShard() {
        return Long.bitCount(shardMask) == 1;
    }

    public boolean isDone() {
        return state.get() == DONE;
    }

    /** Starts an attempt to serve; false if another thread is serving it or it is finished. */
    public boolean claim() {
        return state.compareAndSet(WAITING, SERVING);
    }

    /** Ends an attempt that found nothing to serve: the waiter keeps waiting. */
    public void unclaim() {
        state.set(WAITING);
    }

    /** Ends a successful attempt. */
    public void served() {
        state.set(DONE);
    }

    /** Finishes a waiting waiter (timeout, cancel); false if it is being served or already finished. */
    public boolean finish() {
        return state.compareAndSet(WAITING, DONE);
    }

    /** Whether an attempt to serve is under way (a timeout must then look again shortly). */
    public boolean isServing() {
        return state.get() == SERVING;
    }
}
