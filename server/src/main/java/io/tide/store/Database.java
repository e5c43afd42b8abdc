package io.tide.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Confined to its shard thread. One Redis logical database on one shard: an open-addressing hash
 * table (linear probing, parallel arrays, capacity a power of two, load at most 3/4) that maps key
 * bytes to opaque values, with the expiry and the access clock stored inline per slot.
 *
 * <p>Resizing is incremental. When the table must grow (or shrink, below 1/8 load), a new table is
 * allocated and the old one is frozen: new keys go only to the new table, and every operation moves
 * a few old slots across, in index order ({@link #rehashStep} lets the shard's cron move more). A key
 * lives in exactly one of the two tables. Slots vacated in the frozen table become tombstones so its
 * probe chains stay intact; the live table deletes by backward shift and never holds tombstones.
 *
 * <p>{@link #scan} keeps Redis's guarantee (every key present for the whole scan is returned at least
 * once) across resizes, using a reverse-binary cursor over home buckets ({@code hash & mask}), over
 * both tables while rehashing, as Redis's {@code dictScan} does.
 *
 * <p>Keys are stored by reference: callers must not modify a key array after handing it over.
 * A key is expired when {@code nowMs > expireAt}, as in Redis.
 */
public final class Database {

    /** {@code expireAtMs} for {@link #put}: keep the existing expiry of an overwritten key. */
    public static final long KEEP_TTL = -1;

    static final int MIN_CAPACITY = 16;
    private static final int MAX_CAPACITY = 1 << 30;

    /** Tombstone in the frozen table: occupied for probing, never equal to a key. */
    private static final byte[] MOVED = new byte[0];

    /** Work done by every operation while rehashing: slots moved, slots visited. */
    private static final int STEP_MOVES = 4;
    private static final int STEP_VISITS = 40;

    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long SEED = ThreadLocalRandom.current().nextLong();

    private final int id;
    /** The table new keys go to. */
    private Table cur;
    /** The frozen table being drained, or null when not rehashing. */
    private Table old;
    /** Next slot of {@link #old} to move. */
    private int rehashIdx;
    private long volatileCount;
    /** Bytes of keys and values; table arrays are added in {@link #usedBytes()}. */
    private long dataBytes;
    private int expireCursor;
    private ExpiryListener listener;
    /** Scratch result of {@link #locate}: the table holding the slot it returned. */
    private Table found;

    public Database(int id) {
        this.id = id;
        this.cur = new Table(MIN_CAPACITY);
    }

    public int id() {
        return id;
    }

    /** Number of keys, including expired keys not yet reclaimed (like Redis's DBSIZE). */
    public long size() {
        return cur.live + (old == null ? 0 : old.live);
    }

    /** Number of keys that carry an expiry. */
    public long volatileCount() {
        return volatileCount;
    }

    public void setExpiryListener(ExpiryListener l) {
        this.listener = l;
    }

    // ---------------------------------------------------------------- lookups

    /** The value of a live key or null; deletes the key if it has expired; refreshes the access clock. */
    public Object get(byte[] key, long nowMs) {
        int i = lookupLive(key, nowMs);
        if (i < 0) {
            return null;
        }
        found.access[i] = clock(nowMs);
        return found.values[i];
    }

    /** Like {@link #get} but leaves the access clock alone. */
    public Object peek(byte[] key, long nowMs) {
        int i = lookupLive(key, nowMs);
        return i < 0 ? null : found.values[i];
    }

    /** Whether a live key exists (expired keys are deleted); leaves the access clock alone. */
    public boolean exists(byte[] key, long nowMs) {
        return lookupLive(key, nowMs) >= 0;
    }

    /** Absolute expiry in unix ms, 0 if the key has none (or is absent). No expiry check. */
    public long expireAt(byte[] key) {
        int i = locate(key, hash(key));
        if (i < 0 || found.expires == null) {
            return 0;
        }
        return found.expires[i];
    }

    /** Millis since the key was last accessed (second resolution); -1 if absent. No expiry check. */
    public long idleMillis(byte[] key, long nowMs) {
        int i = locate(key, hash(key));
        if (i < 0) {
            return -1;
        }
        return Math.max(0, nowMs - Integer.toUnsignedLong(found.access[i]) * 1000);
    }

    /** Refreshes the access clock of a key, if present. */
    public void touch(byte[] key, long nowMs) {
        int i = locate(key, hash(key));
        if (i >= 0) {
            found.access[i] = clock(nowMs);
        }
    }

    // ---------------------------------------------------------------- writes

    /**
     * Inserts or overwrites. {@code expireAtMs}: absolute unix ms, 0 for no expiry (clearing an existing
     * one), or {@link #KEEP_TTL}. The access clock is set from the wall clock.
     */
    public void put(byte[] key, Object value, long expireAtMs) {
        put(key, value, expireAtMs, System.currentTimeMillis());
    }

    /** Like {@link #put(byte[], Object, long)} with the access clock set to {@code nowMs}. */
    public void put(byte[] key, Object value, long expireAtMs, long nowMs) {
        if (expireAtMs < 0 && expireAtMs != KEEP_TTL) {
            throw new IllegalArgumentException("expireAtMs " + expireAtMs);
        }
        step();
        int h = hash(key);
        int i = locate(key, h);
        int clock = clock(nowMs);
        if (i >= 0 && found == cur) {
            Table t = cur;
            dataBytes += MemoryCost.of(value) - MemoryCost.of(t.values[i]);
            t.values[i] = value;
            t.access[i] = clock;
            if (expireAtMs != KEEP_TTL) {
                setExpiry(t, i, expireAtMs);
            }
            return;
        }
        long expiry = expireAtMs;
        if (i >= 0) {
            // Still in the frozen table: move it to the new one.
            Table o = old;
            if (expiry == KEEP_TTL) {
                expiry = o.expires == null ? 0 : o.expires[i];
            }
            key = o.keys[i];
            deleteAt(o, i);
        } else if (expiry == KEEP_TTL) {
            expiry = 0;
        }
        insertNew(key, h, value, expiry, clock);
    }

    /** Removes a key (expired or not); returns its value or null. */
    public Object remove(byte[] key) {
        step();
        int i = locate(key, hash(key));
        if (i < 0) {
            return null;
        }
        Object v = found.values[i];
        deleteAt(found, i);
        afterRemove();
        return v;
    }

    /** Sets the absolute expiry ({@code whenMs > 0}); false if the key is absent. */
    public boolean setExpireAt(byte[] key, long whenMs) {
        if (whenMs <= 0) {
            throw new IllegalArgumentException("whenMs " + whenMs);
        }
        int i = locate(key, hash(key));
        if (i < 0) {
            return false;
        }
        setExpiry(found, i, whenMs);
        return true;
    }

    /** Removes the expiry of a key; true if there was one. */
    public boolean persist(byte[] key) {
        int i = locate(key, hash(key));
        if (i < 0 || found.expires == null || found.expires[i] == 0) {
            return false;
        }
        setExpiry(found, i, 0);
        return true;
    }

    /** Drops everything (FLUSHDB) and shrinks to the minimum capacity. */
    public void clear() {
        cur = new Table(MIN_CAPACITY);
        old = null;
        rehashIdx = 0;
        volatileCount = 0;
        dataBytes = 0;
        expireCursor = 0;
    }

    /**
     * For values mutated in place: callers that grow or shrink a {@link Sized} value held here report
     * the change in its {@link Sized#memoryBytes()} so that {@link #usedBytes()} stays exact.
     */
    public void adjustUsedBytes(long delta) {
        dataBytes += delta;
    }

    /** SWAPDB: exchanges all table state with {@code other}; ids and listeners stay. */
    public void swapContents(Database other) {
        Table c = cur, o = old;
        int ri = rehashIdx, ec = expireCursor;
        long vc = volatileCount, db = dataBytes;
        cur = other.cur;
        old = other.old;
        rehashIdx = other.rehashIdx;
        expireCursor = other.expireCursor;
        volatileCount = other.volatileCount;
        dataBytes = other.dataBytes;
        other.cur = c;
        other.old = o;
        other.rehashIdx = ri;
        other.expireCursor = ec;
        other.volatileCount = vc;
        other.dataBytes = db;
    }

    // ---------------------------------------------------------------- iteration

    /**
     * One SCAN step: visits home buckets from {@code cursor} until at least {@code count} keys were
     * emitted (or 10*count buckets visited) and returns the next cursor, 0 when the scan is complete.
     * Does not expire keys. {@code out} must not modify this database.
     */
    public long scan(long cursor, int count, Consumer<byte[]> out) {
        if (size() == 0) {
            return 0;
        }
        long v = cursor;
        long emitted = 0;
        long budget = Math.max(1L, count) * 10;
        do {
            if (old == null) {
                long m = cur.mask;
                emitted += emitBucket(cur, (int) (v & m), out);
                v = nextCursor(v, m);
            } else {
                Table small = old.mask <= cur.mask ? old : cur;
                Table large = small == old ? cur : old;
                long m0 = small.mask;
                long m1 = large.mask;
                emitted += emitBucket(small, (int) (v & m0), out);
                // Every bucket of the larger table that expands from this bucket of the smaller one.
                do {
                    emitted += emitBucket(large, (int) (v & m1), out);
                    v = (((v | m0) + 1) & ~m0) | (v & m0);
                } while ((v & (m0 ^ m1)) != 0);
                v = nextCursor(v, m0);
            }
        } while (v != 0 && --budget > 0 && emitted < count);
        return v;
    }

    /** Reverse-binary increment of the bits under {@code mask}. */
    private static long nextCursor(long v, long mask) {
        v |= ~mask;
        v = Long.reverse(v);
        v++;
        return Long.reverse(v);
    }

    /** Emits the keys whose home is bucket {@code b}: they lie between b and the next empty slot. */
    private static int emitBucket(Table t, int b, Consumer<byte[]> out) {
        int n = 0;
        int m = t.mask;
        for (int i = b; ; i = (i + 1) & m) {
            byte[] k = t.keys[i];
            if (k == null) {
                return n;
            }
            if (k != MOVED && (t.hashes[i] & m) == b) {
                out.accept(k);
                n++;
            }
        }
    }

    /** Every entry, expired ones included; works while rehashing. {@code action} must not modify this database. */
    public void forEach(BiConsumer<byte[], Object> action) {
        Table o = old;
        Table c = cur;
        if (o != null) {
            eachIn(o, action);
        }
        eachIn(c, action);
    }

    private static void eachIn(Table t, BiConsumer<byte[], Object> action) {
        byte[][] ks = t.keys;
        Object[] vs = t.values;
        for (int i = 0; i < ks.length; i++) {
            byte[] k = ks[i];
            if (k != null && k != MOVED) {
                action.accept(k, vs[i]);
            }
        }
    }

    /** A random live key or null; expired keys met on the way are deleted. */
    public byte[] randomKey(long nowMs) {
        step();
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        for (int tries = 0; tries < 128; tries++) {
            long size = size();
            if (size == 0) {
                return null;
            }
            Table t = old != null && rnd.nextLong(size) < old.live ? old : cur;
            int i = rnd.nextInt(t.keys.length);
            byte[] k = t.keys[i];
            if (k == null || k == MOVED) {
                continue;
            }
            if (isExpired(t, i, nowMs)) {
                expireSlot(t, i);
                afterRemove();
                continue;
            }
            return k;
        }
        // Unlucky or sparse: walk the tables from a random point.
        byte[] k = walkForLive(cur, rnd.nextInt(cur.keys.length), nowMs);
        if (k == null && old != null) {
            k = walkForLive(old, rnd.nextInt(old.keys.length), nowMs);
        }
        afterRemove();
        return k;
    }

    private byte[] walkForLive(Table t, int start, long nowMs) {
        int m = t.mask;
        int i = start;
        for (int n = 0; n <= m; ) {
            byte[] k = t.keys[i];
            if (k != null && k != MOVED) {
                if (!isExpired(t, i, nowMs)) {
                    return k;
                }
                expireSlot(t, i);
                if (t != old) {
                    continue; // backward shift may have pulled another entry into slot i: look again
                }
            }
            i = (i + 1) & m;
            n++;
        }
        return null;
    }

    // ---------------------------------------------------------------- expiry and housekeeping

    /**
     * Active expiry: walks slots from a rolling cursor, deletes expired keys, and stops after examining
     * {@code maxChecks} slots that carry an expiry (or 20 times as many slots in all). Returns the number
     * of keys deleted. While rehashing only the new table is walked; the frozen one drains into it.
     */
    public int activeExpireCycle(long nowMs, int maxChecks) {
        if (volatileCount == 0) {
            return 0;
        }
        Table t = cur;
        if (t.expires == null) {
            return 0;
        }
        int m = t.mask;
        int i = expireCursor & m;
        int checks = 0;
        int deleted = 0;
        long visits = Math.max(1L, maxChecks) * 20;
        while (checks < maxChecks && visits-- > 0) {
            if (t.keys[i] != null) {
                long e = t.expires[i];
                if (e != 0) {
                    checks++;
                    if (nowMs > e) {
                        expireSlot(t, i);
                        deleted++;
                        continue; // backward shift may have moved another entry into slot i
                    }
                }
            }
            i = (i + 1) & m;
        }
        expireCursor = i;
        if (deleted > 0) {
            afterRemove();
        }
        return deleted;
    }

    /** Moves up to {@code maxSlots} slots of the frozen table; true if still rehashing afterwards. */
    public boolean rehashStep(int maxSlots) {
        if (old != null) {
            migrate(maxSlots, maxSlots);
        }
        return old != null;
    }

    /** Estimated bytes held: keys, values and table arrays. Maintained incrementally. */
    public long usedBytes() {
        return dataBytes + cur.bytes() + (old == null ? 0 : old.bytes());
    }

    // ---------------------------------------------------------------- internals

    private int lookupLive(byte[] key, long nowMs) {
        step();
        int i = locate(key, hash(key));
        if (i < 0) {
            return -1;
        }
        Table t = found;
        if (isExpired(t, i, nowMs)) {
            expireSlot(t, i);
            afterRemove();
            return -1;
        }
        return i;
    }

    private static boolean isExpired(Table t, int i, long nowMs) {
        if (t.expires == null) {
            return false;
        }
        long e = t.expires[i];
        return e != 0 && nowMs > e;
    }

    /** Deletes an expired entry and tells the listener; no resize. */
    private void expireSlot(Table t, int i) {
        byte[] k = t.keys[i];
        Object v = t.values[i];
        deleteAt(t, i);
        if (listener != null) {
            listener.expired(this, k, v);
        }
    }

    /** Slot of {@code key} in {@link #cur} or {@link #old} (recorded in {@link #found}), or -1. */
    private int locate(byte[] key, int h) {
        Table t = cur;
        int i = t.find(key, h);
        if (i < 0 && old != null) {
            t = old;
            i = t.find(key, h);
        }
        found = t;
        return i;
    }

    private void step() {
        if (old != null) {
            migrate(STEP_MOVES, STEP_VISITS);
        }
    }

    private void migrate(int maxMoves, int maxVisits) {
        Table o = old;
        Table c = cur;
        int idx = rehashIdx;
        int end = o.keys.length;
        while (maxVisits > 0 && maxMoves > 0 && idx < end) {
            byte[] k = o.keys[idx];
            if (k != null && k != MOVED) {
                transfer(o, idx, c);
                if (o.expires != null) {
                    o.expires[idx] = 0;
                }
                o.keys[idx] = MOVED;
                o.values[idx] = null;
                o.live--;
                maxMoves--;
            }
            idx++;
            maxVisits--;
        }
        rehashIdx = idx;
        if (idx >= end || o.live == 0) {
            old = null;
        }
    }

    /** Copies slot i of {@code from} into a free slot of {@code to}; leaves {@code from} alone. */
    private static void transfer(Table from, int i, Table to) {
        int h = from.hashes[i];
        int j = to.freeSlot(h);
        to.keys[j] = from.keys[i];
        to.hashes[j] = h;
        to.values[j] = from.values[i];
        to.access[j] = from.access[i];
        if (from.expires != null && from.expires[i] != 0) {
            to.ensureExpires()[j] = from.expires[i];
        }
        to.live++;
    }

    /**
     * Rare fallback when the new table fills before the frozen one has drained (a shrink followed by
     * a burst of inserts, or a grow whose migration fell behind): move both into one bigger table at
     * once. The new table never holds more than its maximum load, so probing always terminates.
     */
    private void rebuild(int capacity) {
        Table t = new Table(capacity);
        for (Table from : new Table[] {old, cur}) {
            byte[][] ks = from.keys;
            for (int i = 0; i < ks.length; i++) {
                if (ks[i] != null && ks[i] != MOVED) {
                    transfer(from, i, t);
                }
            }
        }
        cur = t;
        old = null;
        rehashIdx = 0;
        expireCursor = 0;
    }

    private void startResize(int capacity) {
        old = cur;
        cur = new Table(capacity);
        rehashIdx = 0;
        expireCursor = 0;
        if (old.live == 0) {
            old = null;
        }
    }

    private void insertNew(byte[] key, int h, Object value, long expireAtMs, int clock) {
        // Keys still in the frozen table will all land in cur: count them against its load.
        if (size() >= cur.maxLive && cur.keys.length < MAX_CAPACITY) {
            if (old == null) {
                startResize(cur.keys.length << 1);
            } else {
                rebuild(Math.max(cur.keys.length << 1, tableSizeFor((int) Math.min(MAX_CAPACITY, size() * 2 + 2))));
            }
        }
        Table t = cur;
        int i = t.freeSlot(h);
        t.keys[i] = key;
        t.hashes[i] = h;
        t.values[i] = value;
        t.access[i] = clock;
        t.live++;
        if (expireAtMs > 0) {
            t.ensureExpires()[i] = expireAtMs;
            volatileCount++;
        }
        dataBytes += MemoryCost.ofKey(key) + MemoryCost.of(value);
    }

    private void setExpiry(Table t, int i, long expireAtMs) {
        long prev = t.expires == null ? 0 : t.expires[i];
        if (expireAtMs == 0) {
            if (prev != 0) {
                t.expires[i] = 0;
                volatileCount--;
            }
        } else {
            if (prev == 0) {
                volatileCount++;
            }
            t.ensureExpires()[i] = expireAtMs;
        }
    }

    /** Removes slot i of t with accounting; tombstone in the frozen table, backward shift otherwise. */
    private void deleteAt(Table t, int i) {
        dataBytes -= MemoryCost.ofKey(t.keys[i]) + MemoryCost.of(t.values[i]);
        long[] ex = t.expires;
        if (ex != null && ex[i] != 0) {
            volatileCount--;
            ex[i] = 0;
        }
        t.live--;
        if (t == old) {
            t.keys[i] = MOVED;
            t.values[i] = null;
            return;
        }
        int m = t.mask;
        byte[][] ks = t.keys;
        int hole = i;
        for (int j = (i + 1) & m; ; j = (j + 1) & m) {
            byte[] k = ks[j];
            if (k == null) {
                break;
            }
            int home = t.hashes[j] & m;
            // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
            if (((j - home) & m) >= ((j - hole) & m)) {
                ks[hole] = k;
                t.hashes[hole] = t.hashes[j];
                t.values[hole] = t.values[j];
                t.access[hole] = t.access[j];
                if (ex != null) {
                    ex[hole] = ex[j];
                }
                hole = j;
            }
        }
        ks[hole] = null;
        t.values[hole] = null;
        if (ex != null) {
            ex[hole] = 0;
        }
    }

    private void afterRemove() {
        if (old != null && old.live == 0) {
            old = null;
        }
        if (old == null) {
            int cap = cur.keys.length;
            if (cap > MIN_CAPACITY && cur.live < cap >>> 3) {
                startResize(Math.max(MIN_CAPACITY, tableSizeFor(cur.live * 2)));
            }
        }
    }

    private static int tableSizeFor(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    private static int clock(long nowMs) {
        return (int) (nowMs / 1000);
    }

    /** 32-bit seeded hash of the key bytes, 8 bytes at a time. */
    static int hash(byte[] key) {
        int len = key.length;
        long h = SEED ^ (len * 0x9E3779B97F4A7C15L);
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            long w = (long) LONGS.get(key, i);
            h = Long.rotateLeft(h ^ (w * 0x87C37B91114253D5L), 31) * 0x4CF5AD432745937FL;
        }
        if (i < len) {
            long w = 0;
            for (int s = 0; i < len; i++, s += 8) {
                w |= (key[i] & 0xFFL) << s;
            }
            h = Long.rotateLeft(h ^ (w * 0x87C37B91114253D5L), 31) * 0x4CF5AD432745937FL;
        }
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        h *= 0xC4CEB9FE1A85EC53L;
        h ^= h >>> 33;
        return (int) h;
    }

    // Visible for tests.
    boolean isRehashing() {
        return old != null;
    }

    int capacity() {
        return cur.keys.length;
    }

    /** One table's parallel arrays. Confined to the owning database's shard thread. */
    private static final class Table {
        final byte[][] keys;
        final Object[] values;
        final int[] hashes;
        /** Access clock: unix seconds, unsigned. */
        final int[] access;
        /** Absolute expiry in unix ms, 0 = none; allocated when the first expiry is set. */
        long[] expires;
        final int mask;
        final int maxLive;
        int live;

        Table(int capacity) {
            keys = new byte[capacity][];
            values = new Object[capacity];
            hashes = new int[capacity];
            access = new int[capacity];
            mask = capacity - 1;
            maxLive = capacity - (capacity >>> 2);
        }

        int find(byte[] key, int h) {
            byte[][] ks = keys;
            int[] hs = hashes;
            int m = mask;
            for (int i = h & m; ; i = (i + 1) & m) {
                byte[] k = ks[i];
                if (k == null) {
                    return -1;
                }
                if (hs[i] == h && k != MOVED && Arrays.equals(k, key)) {
                    return i;
                }
            }
        }

        /** First empty slot from the home of {@code h}; only for the live table, which has no tombstones. */
        int freeSlot(int h) {
            byte[][] ks = keys;
            int m = mask;
            int i = h & m;
            while (ks[i] != null) {
                i = (i + 1) & m;
            }
            return i;
        }

        long[] ensureExpires() {
            long[] ex = expires;
            if (ex == null) {
                ex = expires = new long[keys.length];
            }
            return ex;
        }

        /** Bytes of the arrays: four 4-byte arrays (compressed references), plus 8 per slot for expiries. */
        long bytes() {
            long n = keys.length;
            long b = 32 + 4 * (16 + 4 * n);
            if (expires != null) {
                b += 16 + 8 * n;
            }
            return b;
        }
    }
}
