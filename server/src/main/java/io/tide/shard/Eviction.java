package io.tide.shard;

import io.tide.store.Database;
import java.util.Arrays;

/**
 * Confined to its shard's thread, except {@link #ask} and {@link #mayHaveCandidates}, which other shards call.
 * Redis's eviction (evict.c) over this shard's databases: approximated LRU, LFU and
 * volatile-ttl by sampling {@code maxmemory-samples} keys per database into a pool of the best {@value #POOL}
 * candidates kept across calls, evicting the best candidate that still exists; the random policies pick a random key
 * of the next database in turn. Each eviction goes through {@link Database#evict}, so the seam journals a DEL, emits
 * {@code evicted}, counts {@code evicted_keys}, invalidates tracking and touches WATCH.
 */
public final class Eviction {

    /** Redis's EVPOOL_SIZE. */
    static final int POOL = 16;

    /** A policy as eviction needs it: which keys may go, and by what order. */
    public record Policy(boolean volatileOnly, Database.Score score) {}

    /** Key prefixes never evicted ({@code maxmemory-protect-prefix}). Replaced whole by CONFIG SET. */
    public interface Protection {
        boolean isProtected(byte[] key);
    }

    private final Shard shard;
    /** The pool, ascending by score: the best candidate is the last. */
    private final byte[][] keys = new byte[POOL][];
    private final long[] scores = new long[POOL];
    private final Database[] dbs = new Database[POOL];
    private int size;
    private int nextRandomDb;
    /** Set when a pass found nothing it may evict; cleared when a pass finds a candidate. Read by other shards. */
    private volatile boolean exhausted;
    /** This shard's dataset bytes when it was last found exhausted: once it holds more, keys were added since. */
    private volatile long exhaustedAtBytes;
    /** Whether a continuation of an unfinished pass is scheduled. */
    private boolean continuing;
    private int ticks;
    /** Whether another shard's request for a pass here is queued and not yet run. */
    private final java.util.concurrent.atomic.AtomicBoolean asked = new java.util.concurrent.atomic.AtomicBoolean();

    Eviction(Shard shard) {
        this.shard = shard;
    }

    /** Whether this shard may still have keys to evict (other shards read it to decide between OOM and waiting). */
    public boolean mayHaveCandidates(Policy p) {
        return (!exhausted || shard.usedBytes() > exhaustedAtBytes) && mayHaveCandidatesNow(p);
    }

    private boolean mayHaveCandidatesNow(Policy p) {
        for (int i = 0; i < shard.databases(); i++) {
            if (holdsCandidates(shard.db(i), p)) return true;
        }
        return false;
    }

    private static boolean holdsCandidates(Database d, Policy p) {
        return p.volatileOnly() ? d.volatileCount() > 0 : d.size() > 0;
    }

    /** Any thread: claims the right to queue a pass request here; false when one is already queued. */
    public boolean ask() {
        return asked.compareAndSet(false, true);
    }

    /** This shard's thread: the queued request is running (a later one may be queued again). */
    public void answered() {
        asked.set(false);
    }

    /** A counter of memory checks on this shard (for checking one in n). */
    public int tick() {
        return ticks++;
    }

    /** Marks this shard as worth trying again (keys were added since it found none). */
    public void rearm() {
        exhausted = false;
    }

    /**
     * Evicts keys until {@code over} (a supplier of bytes still over the limit) reaches 0 or below, nothing is left to
     * evict, or {@code deadlineNanos} passes (checked every 16 keys, as Redis does). Returns the number of keys
     * evicted, or -1 when nothing could be evicted at all.
     */
    public long evict(Policy p, Protection protection, int samples, java.util.function.LongSupplier over,
                      long deadlineNanos) {
        long evicted = 0;
        long now = System.currentTimeMillis();
        while (over.getAsLong() > 0) {
            if (!evictOne(p, protection, samples, now)) {
                exhaustedAtBytes = shard.usedBytes();
                exhausted = true;
                return evicted == 0 ? -1 : evicted;
            }
            exhausted = false;
            evicted++;
            if ((evicted & 15) == 0 && System.nanoTime() - deadlineNanos > 0) break;
        }
        return evicted;
    }

    /** Schedules {@code task} (a continuation of an unfinished pass) on this shard's thread, once at a time. */
    public void continueLater(Runnable task) {
        if (continuing) return;
        continuing = true;
        shard.executeOnData(() -> {
            continuing = false;
            task.run();
        });
    }

    /** Rounds of sampling before a pass decides there is nothing it may evict (protected keys are skipped). */
    private static final int ROUNDS = 8;

    private boolean evictOne(Policy p, Protection protection, int samples, long now) {
        if (p.score() == Database.Score.RANDOM) {
            int n = shard.databases();
            for (int tries = 0; tries < n; tries++) {
                Database d = shard.db(nextRandomDb);
                nextRandomDb = (nextRandomDb + 1) % n;
                byte[][] picked = new byte[1][];
                // Runs of 16 slots from random points, in case most keys are protected.
                for (int draw = 0; draw < ROUNDS && picked[0] == null; draw++) {
                    if (d.sample(16, p.volatileOnly(), p.score(), now, (db, key, score) -> {
                        if (picked[0] == null && !protection.isProtected(key)) picked[0] = key;
                    }) == 0 && !holdsCandidates(d, p)) break; // else the run met only empty slots: draw again
                }
                if (picked[0] != null && d.evict(picked[0])) return true;
            }
            return false;
        }
        while (true) {
            // Every pick samples afresh, as Redis's evictionPoolPopulate does; more rounds only while nothing qualifies.
            for (int round = 0; round < ROUNDS && (round == 0 || size == 0); round++) {
                int offered = 0;
                for (int i = 0; i < shard.databases(); i++) {
                    Database d = shard.db(i);
                    offered += d.sample(samples, p.volatileOnly(), p.score(), now, (db, key, score) -> {
                        if (!protection.isProtected(key)) offer(db, key, score);
                    });
                }
                // Nothing at all to sample: no use trying again. A sample is a run of slots from a random point, which may
                // meet only empty ones in a sparse table: then it draws again (giving up would answer -OOM wrongly).
                if (offered == 0 && !mayHaveCandidatesNow(p)) break;
            }
            if (size == 0) return false;
            // The best candidate that still exists (as such: a volatile policy's key must still have its TTL).
            while (size > 0) {
                size--;
                byte[] key = keys[size];
                Database d = dbs[size];
                keys[size] = null;
                dbs[size] = null;
                if (p.volatileOnly() && d.expireAt(key) == 0) continue;
                if (d.evict(key)) return true;
            }
        }
    }

    /** Redis's evictionPoolPopulate step for one key: keeps the pool sorted and at most {@value #POOL} long. */
    private void offer(Database db, byte[] key, long score) {
        for (int j = 0; j < size; j++) {
            if (dbs[j] == db && Arrays.equals(keys[j], key)) { // already a candidate: refresh its score
                removeAt(j);
                break;
            }
        }
        int at = 0;
        while (at < size && scores[at] < score) at++;
        if (size == POOL) {
            if (at == 0) return; // worse than every candidate in a full pool
            // Drop the worst (first) to make room; the insertion point moves left by one.
            removeAt(0);
            at--;
        }
        System.arraycopy(keys, at, keys, at + 1, size - at);
        System.arraycopy(scores, at, scores, at + 1, size - at);
        System.arraycopy(dbs, at, dbs, at + 1, size - at);
        keys[at] = key;
        scores[at] = score;
        dbs[at] = db;
        size++;
    }

    private void removeAt(int j) {
        System.arraycopy(keys, j + 1, keys, j, size - j - 1);
        System.arraycopy(scores, j + 1, scores, j, size - j - 1);
        System.arraycopy(dbs, j + 1, dbs, j, size - j - 1);
        size--;
        keys[size] = null;
        dbs[size] = null;
    }

    /** Forgets the pool (FLUSHALL, a policy change): its keys may be gone or no longer eligible. */
    public void clearPool() {
        Arrays.fill(keys, null);
        Arrays.fill(dbs, null);
        size = 0;
    }
}
