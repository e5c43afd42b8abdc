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
 * bytes to opaque values, with the expiry and the access clock stored in the entry.
 *
 * <p>Slot layout (decisions 0011 and 0018): {@code refs[i]} locates the slot's <em>entry</em> in the database's
 * {@link Slabs} (large byte arrays the entries are packed into, so that the collector sees a few hundred arrays
 * without references instead of one object per key): {@code [varint: key length << 2 | dead << 1 | has-expiry]
 * [varint: embedded value length][access field: 3 bytes][expiry: 8 bytes, only with has-expiry][key][value bytes,
 * when embedded]}, padded to 4 bytes; {@code ctrl[i]} is one byte: a 5-bit fragment of the key's hash (a probe
 * compares it before touching the entry), a VOLATILE bit (the entry has an expiry: active expiry and volatile sampling
 * read only this array), a RAW bit (the value is not embedded) and the snapshot's SAVED bit; {@code values[i]} holds
 * the value by reference for RAW entries, and is allocated only once a table holds one. A table of short strings thus
 * costs 5 bytes a slot beside its entries. The full hash is not stored: moves (resize, backward shift, slab
 * compaction) and SCAN recompute it from the key bytes, as Redis's dict does.
 *
 * <p>Embedded strings: a {@code byte[]} value of at most {@link #INLINE_LIMIT} bytes stored with {@link #put} is
 * kept inside the entry (a separate array would cost its own header, alignment and a reference: 20-28 bytes a key).
 * A {@link Long} (an "int" string) is kept there too, as its decimal text, its length field raised by
 * {@link #INT_TEXT} to say so (decision 0029): readers get a {@link Long} back, GET's in-place read the text, and
 * INCR reads and rewrites the number without boxing it ({@link #getIntegerForWrite}, {@link #putInteger}).
 * OBJECT ENCODING calls those up to {@link #EMBED_LIMIT} bytes "embstr" and longer ones "raw", as Redis names them.
 * Reads of an entry return fresh copies of the value
 * (and of the key, for iteration); string values are immutable to callers, so copies are equivalent.
 * {@link #putRaw} never embeds (results of APPEND and SETRANGE are "raw" in Redis).
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
 * <p>Every entry copies the key bytes: callers keep their key arrays. A key is expired when
 * {@code nowMs > expireAt}, as in Redis.
 */
public final class Database {

    /** {@code expireAtMs} for {@link #put}: keep the existing expiry of an overwritten key. */
    public static final long KEEP_TTL = -1;

    /** Longest embedded value OBJECT ENCODING reports as "embstr" (Redis's EMBSTR limit); longer ones are "raw". */
    public static final int EMBED_LIMIT = 44;

    /**
     * Longest {@code byte[]} value {@link #put} embeds in its entry. Beyond it the saved array header and reference
     * are under 2.5% of the value, while every read copies an embedded value: longer values are kept by reference.
     */
    public static final int INLINE_LIMIT = 1024;

    /**
     * An embedded value's length field at or above this says the value is an integer kept as its canonical decimal
     * text, of (field - INT_TEXT) bytes; below it the field is a string's length.
     */
    private static final int INT_TEXT = INLINE_LIMIT + 1;

    static final int MIN_CAPACITY = 16;
    private static final int MAX_CAPACITY = 1 << 30;

    /** Reference of an empty slot. */
    private static final int EMPTY = 0;
    /** Tombstone in the frozen table: occupied for probing, never a key's entry. */
    private static final int MOVED = -1;

    /** Work done by every operation while rehashing: slots moved, slots visited. */
    private static final int STEP_MOVES = 4;
    private static final int STEP_VISITS = 40;

    private static final VarHandle LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long SEED = ThreadLocalRandom.current().nextLong();

    /** Bits of an entry's access field: an LRU clock of 2^24 s (194 days, as Redis's) or LFU's minutes and counter. */
    static final int CLOCK_BITS = 24;
    private static final int CLOCK_MASK = (1 << CLOCK_BITS) - 1;
    /** Bits of the hash kept in a control byte. */
    private static final int FRAGMENT = 0x1F;
    /** Control bit: the entry has an expiry field. */
    private static final int VOLATILE = 0x20;
    /** Control bit: the value is held by reference in {@code values[i]}, not embedded in the entry. */
    private static final int RAW = 0x40;
    /**
     * Control bit for fork-less snapshots: the entry has been saved to the snapshot of its table when this
     * bit equals the table's {@code parity}; see {@link Snapshot}.
     */
    private static final int SAVED = 0x80;
    /** Bytes of an entry's access field, after its two length varints. */
    private static final int ACCESS_BYTES = 3;
    /** Bits of an entry's first varint: it has an expiry field; it has been freed (compaction skips it). */
    private static final int HAS_EXPIRY = 1;
    private static final int DEAD = 2;
    /** Live bytes of entries the compaction step moves per write (at least one entry). */
    private static final int COMPACT_STEP_BYTES = 1024;
    /** Origin of the access clock, unix seconds; clocks are taken modulo 2^CLOCK_BITS from it. */
    private static final long CLOCK_BASE_SEC = System.currentTimeMillis() / 1000;

    private final int id;
    /** Where the entries of {@link #cur} and {@link #old} are. */
    private Slabs heap = new Slabs();
    /** The slab being compacted and the offset of its next entry to look at; -1 when none. */
    private int compactSlab = -1;
    private int compactPos;
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
    /** Estimated average TTL of keys with an expiry, kept by the active expiry cycle as Redis does. */
    private long avgTtlMs;
    private int lastExpireChecks;
    private KeyspaceObserver observer = NO_OBSERVER;
    private Freer freer = Freer.INLINE;
    private java.util.function.Supplier<AccessPolicy> access = () -> AccessPolicy.LRU;
    private static final KeyspaceObserver NO_OBSERVER = new KeyspaceObserver() {};
    /** Keys whose values have elements with their own expiry (see {@link FieldExpiring}); null until one does. */
    private ByteMap fieldExpiryKeys;
    private int fieldExpiryCursor;
    /**
     * Scratch result of {@link #locate}: the table holding the slot it returned. Reset whenever a table is dropped, so
     * that it never keeps a flushed or drained table (and every value in it) reachable.
     */
    private Table found;

    public Database(int id) {
        this.id = id;
        this.cur = new Table(MIN_CAPACITY, heap);
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

    /** Told of every change to a key (the write seam's bookkeeping); see {@link KeyspaceObserver}. */
    public void setObserver(KeyspaceObserver o) {
        this.observer = o == null ? NO_OBSERVER : o;
    }

    /** Where deleted values go when a deletion is lazy (the server's lazy freer); inline by default. */
    public void setFreer(Freer f) {
        this.freer = f == null ? Freer.INLINE : f;
    }

    /** How the access field is kept (LRU clock or LFU counter), for this database alone; LRU by default. */
    public void setAccessPolicy(AccessPolicy a) {
        AccessPolicy fixed = a == null ? AccessPolicy.LRU : a;
        this.access = () -> fixed;
    }

    /**
     * Keeps the access field by whatever policy {@code current} gives at each access from now on (a server's
     * databases all follow the one CONFIG SET publishes before it replies, so that the next command, pipelined or on
     * another shard, keys by it as by Redis's one global; handing each shard a copy through its task queue let a
     * command read from the socket before the task ran key by the old one). Before use.
     */
    public void followAccessPolicy(java.util.function.Supplier<AccessPolicy> current) {
        this.access = current;
    }

    /** Where this database reads its access policy. */
    public java.util.function.Supplier<AccessPolicy> accessPolicySource() {
        return access;
    }


    // ---------------------------------------------------------------- lookups

    /** The value of a live key or null; deletes the key if it has expired; refreshes the access clock. */
    public Object get(byte[] key, long nowMs) {
        int i = lookupLive(key, nowMs);
        if (i < 0) {
            return null;
        }
        Table t = found;
        touchEntry(t, i, nowMs);
        return valueAt(t, i);
    }

    /** What {@link #getInPlace} returns for a value embedded in its entry: see {@link #inPlaceArray}. */
    public static final Object EMBEDDED = new Object();

    /** Where {@link #getInPlace}'s last embedded value is: its slab, the value's offset and length in it. */
    private byte[] inPlaceEntry;
    private int inPlaceOffset;
    private int inPlaceLength;

    /**
     * Like {@link #get} (or {@link #peek} when {@code touch} is false), except that a value embedded in its entry (a
     * string, or an integer's decimal text) is not copied: the answer is then {@link #EMBEDDED}, and the value is the {@link #inPlaceLength} bytes of
     * {@link #inPlaceArray} from {@link #inPlaceOffset}, valid only until this database is written again (an overwrite of the same
     * shape rewrites them in place). For a reply written at once (GET's); every other reader gets a copy.
     */
    public Object getInPlace(byte[] key, long nowMs, boolean touch) {
        int i = lookupLive(key, nowMs);
        if (i < 0) {
            return null;
        }
        Table t = found;
        if (touch) touchEntry(t, i, nowMs);
        if ((t.ctrl[i] & RAW) != 0) {
            return t.values[i];
        }
        int r = t.refs[i];
        byte[] s = Slabs.slab(t.heap.arr, r);
        int p = Slabs.offset(r);
        inPlaceEntry = s;
        inPlaceOffset = keyStart(s, p) + keyLength(s, p);
        inPlaceLength = valueLength(s, p);
        return EMBEDDED;
    }

    /** The array holding the value {@link #getInPlace} last answered {@link #EMBEDDED} for. */
    public byte[] inPlaceArray() {
        return inPlaceEntry;
    }

    /** The offset of that value in {@link #inPlaceArray()}. */
    public int inPlaceOffset() {
        return inPlaceOffset;
    }

    /** The length of that value. */
    public int inPlaceLength() {
        return inPlaceLength;
    }

    /**
     * The value of a live key for a command that may change it in place (Redis's lookupKeyWrite): like
     * {@link #get}, and a snapshot in progress first saves the entry's current value. After changing the value
     * in place the caller reports it with {@link #modified}.
     */
    public Object getForWrite(byte[] key, long nowMs) {
        int i = lookupForWrite(key, nowMs);
        return i < 0 ? null : valueAt(found, i);
    }

    /** What {@link #getIntegerForWrite} returns for an integer embedded in its entry: see {@link #integerRead}. */
    public static final Object INTEGER = new Object();

    /** The integer {@link #getIntegerForWrite} last answered {@link #INTEGER} for. */
    private long integerRead;

    /**
     * Like {@link #getForWrite}, except that an integer embedded in its entry is not boxed: the answer is then
     * {@link #INTEGER} and the number is {@link #integerRead()}. For INCR and its kin, which store the result with
     * {@link #putInteger} (allocating nothing when the key already held an integer).
     */
    public Object getIntegerForWrite(byte[] key, long nowMs) {
        int i = lookupForWrite(key, nowMs);
        if (i < 0) {
            return null;
        }
        Table t = found;
        if ((t.ctrl[i] & RAW) == 0) {
            int r = t.refs[i];
            byte[] e = Slabs.slab(t.heap.arr, r);
            int p = Slabs.offset(r);
            int field = valueField(e, p);
            if (field >= INT_TEXT) {
                integerRead = IntSet.parse(e, keyStart(e, p) + keyLength(e, p), field - INT_TEXT);
                return INTEGER;
            }
        }
        return valueAt(t, i);
    }

    /** The number {@link #getIntegerForWrite} last answered {@link #INTEGER} for. */
    public long integerRead() {
        return integerRead;
    }

    /** The live slot of {@code key} for a write (its table in {@link #found}), remembered for {@link #store}; or -1. */
    private int lookupForWrite(byte[] key, long nowMs) {
        int h = hash(key);
        int i = lookupLive(key, h, nowMs);
        if (i < 0) {
            return -1;
        }
        Table t = found;
        saveIfPending(t, i);
        touchEntry(t, i, nowMs);
        readKey = key;
        readTable = t;
        readSlot = i;
        readHash = h;
        return i;
    }

    /**
     * Where {@link #getForWrite} last found a key, and its hash: {@link #store} of the same key array (INCR's read, then
     * its write) starts there instead of hashing and probing again, once it has checked that the slot still holds the
     * key.
     */
    private byte[] readKey;
    private Table readTable;
    private int readSlot;
    private int readHash;

    /** The hash of the key {@link #locateAfterRead} last looked for. */
    private int afterReadHash;

    /**
     * The slot of {@code key} (its table in {@link #found}, its hash in {@link #afterReadHash}), or -1: the one
     * {@link #getForWrite} found if the same key array still holds the same key there, else a lookup. A change since, a
     * migration step or a delete's backward shift, shows as an empty, moved or other key's slot; a dropped table (a
     * flush, a finished migration, a rebuild, SWAPDB) is forgotten with {@link #found}. Forgets the read.
     */
    private int locateAfterRead(byte[] key) {
        Table t = readTable;
        int i = readSlot;
        boolean same = key == readKey && t != null;
        readKey = null;
        readTable = null;
        if (same) {
            int r = t.refs[i];
            if (r != EMPTY && r != MOVED && keyEquals(Slabs.slab(t.heap.arr, r), Slabs.offset(r), key)) {
                found = t;
                afterReadHash = readHash;
                return i;
            }
        }
        int h = hash(key);
        afterReadHash = h;
        return locate(key, h);
    }

    /**
     * After a value obtained with {@link #getForWrite} was changed in place: adds {@code bytesDelta} (the change
     * of its {@link Sized#memoryBytes()}) to the accounting and tells the observer.
     */
    public void modified(byte[] key, long bytesDelta) {
        dataBytes += bytesDelta;
        observer.written(this, key);
    }

    /** Like {@link #get} but leaves the access clock alone. */
    public Object peek(byte[] key, long nowMs) {
        int i = lookupLive(key, nowMs);
        return i < 0 ? null : valueAt(found, i);
    }

    /**
     * The value of a live key, or null, with no side effect at all: a key past its expiry reads as absent and is left
     * for the expiry to delete (nothing is journalled, notified or counted from here).
     */
    public Object peekQuietly(byte[] key, long nowMs) {
        int i = locate(key, hash(key));
        if (i < 0) return null;
        Table t = found;
        return isExpired(t, i, nowMs) ? null : valueAt(t, i);
    }

    /** Whether the key is present (no expiry check) and its value is embedded with it; see {@link #put}. */
    public boolean isEmbedded(byte[] key) {
        int i = locate(key, hash(key));
        return i >= 0 && (found.ctrl[i] & RAW) == 0;
    }

    /** Whether a live key exists (expired keys are deleted); leaves the access clock alone. */
    public boolean exists(byte[] key, long nowMs) {
        return lookupLive(key, nowMs) >= 0;
    }

    /** Absolute expiry in unix ms, 0 if the key has none (or is absent). No expiry check. */
    public long expireAt(byte[] key) {
        int i = locate(key, hash(key));
        return i < 0 ? 0 : expiry(found, i);
    }

    /** Millis since the key was last accessed (second resolution); -1 if absent. No expiry check. */
    public long idleMillis(byte[] key, long nowMs) {
        int i = locate(key, hash(key));
        if (i < 0) {
            return -1;
        }
        int then = access(found, i);
        long secs = (clock(nowMs) - then) & CLOCK_MASK;
        if (secs > CLOCK_MASK >>> 1) {
            return 0; // accessed "after" nowMs: the clock moved backwards
        }
        return secs * 1000 + Math.floorMod(nowMs, 1000L);
    }

    /** Refreshes the access clock of a key, if present. */
    public void touch(byte[] key, long nowMs) {
        int i = locate(key, hash(key));
        if (i >= 0) {
            touchEntry(found, i, nowMs);
        }
    }

    /**
     * OBJECT FREQ: the key's LFU counter after decay (Redis's LFUDecrAndReturn), or -1 if absent. Meaningful only
     * while the access policy is LFU. No expiry check.
     */
    public int frequency(byte[] key, long nowMs) {
        int i = locate(key, hash(key));
        return i < 0 ? -1 : access.get().decayed(access(found, i), nowMs);
    }

    /** RESTORE ... FREQ: sets the key's LFU counter (under an LFU policy; ignored otherwise). */
    public void setFrequency(byte[] key, int freq, long nowMs) {
        int i = locate(key, hash(key));
        AccessPolicy a = access.get();
        if (i >= 0 && a.lfu()) setAccess(found, i, a.pack(nowMs, freq));
    }

    // ---------------------------------------------------------------- writes

    /**
     * Inserts or overwrites. {@code expireAtMs}: absolute unix ms, 0 for no expiry (clearing an existing
     * one), or {@link #KEEP_TTL}. The access clock is set from the wall clock. A {@code byte[]} value of
     * at most {@link #INLINE_LIMIT} bytes is embedded with its key (the value and key bytes are copied), and so
     * is a {@link Long}, as its decimal text; any other value is stored by reference.
     */
    public void put(byte[] key, Object value, long expireAtMs) {
        put(key, value, expireAtMs, System.currentTimeMillis());
    }

    /** Like {@link #put(byte[], Object, long)} with the access clock set to {@code nowMs}. */
    public void put(byte[] key, Object value, long expireAtMs, long nowMs) {
        if (value instanceof Long l) {
            store(key, INTEGER, l, expireAtMs, nowMs, true);
        } else {
            store(key, value, 0, expireAtMs, nowMs, true);
        }
    }

    /** Like {@link #put(byte[], Object, long, long)} with the {@link Long} {@code value}, without boxing it. */
    public void putInteger(byte[] key, long value, long expireAtMs, long nowMs) {
        store(key, INTEGER, value, expireAtMs, nowMs, true);
    }

    /** Like {@link #put(byte[], Object, long, long)} but never embeds: the value is kept by reference. */
    public void putRaw(byte[] key, byte[] value, long expireAtMs, long nowMs) {
        store(key, value, 0, expireAtMs, nowMs, false);
    }

    /**
     * Stores a live key's value again in another representation and tells no one ({@link #putRaw}, or a
     * {@link RawString} above the inline limit, keeping the TTL): Redis's dbUnshareStringValue, which makes a string
     * raw without touching WATCH, tracking, the dirty counter or the journal, since its content is the same. Memory
     * accounting and a running snapshot still see it.
     */
    public void reencode(byte[] key, byte[] value, long nowMs) {
        quiet = true;
        try {
            if (value.length > INLINE_LIMIT) put(key, RawString.adopt(value), KEEP_TTL, nowMs);
            else putRaw(key, value, KEEP_TTL, nowMs);
        } finally {
            quiet = false;
        }
    }

    /** While set ({@link #reencode}), a store tells the observer nothing. */
    private boolean quiet;

    /** Scratch for the decimal text of an integer being stored. */
    private final byte[] intText = new byte[20];

    /** {@code value}: the value, or {@link #INTEGER} for the integer {@code integer}. */
    private void store(byte[] key, Object value, long integer, long expireAtMs, long nowMs, boolean mayEmbed) {
        if (expireAtMs < 0 && expireAtMs != KEEP_TTL) {
            throw new IllegalArgumentException("expireAtMs " + expireAtMs);
        }
        step();
        int i = locateAfterRead(key);
        int h = afterReadHash;
        if (i >= 0 && isExpired(found, i, nowMs) && observer.expiryHeld()) {
            // An expired key a pause kept (lookups called it absent): this write replaces it, so it expires first.
            expireSlot(found, i);
            afterRemove();
            i = locate(key, h);
        }
        // An overwrite keeps its LFU counter (Redis's dbSetValue); LRU restarts the clock.
        int clock = i >= 0 && access.get().lfu() ? access(found, i) : fresh(nowMs);
        boolean isInt = value == INTEGER;
        // What an embedded value's bytes are: the string's own, or the integer's text in the scratch array.
        byte[] text = isInt ? intText : value instanceof byte[] b && b.length <= INLINE_LIMIT ? b : null;
        int textLen = isInt ? writeText(intText, integer) : text != null ? text.length : 0;
        boolean embed = isInt || mayEmbed && text != null;
        if (!embed && value == null) {
            throw new IllegalArgumentException("null value");
        }
        if (value instanceof FieldExpiring fe && fe.hasFieldTtls()) {
            trackFieldExpiry(key);
        }
        boolean retyped = false;
        if (i >= 0) {
            saveIfPending(found, i);
            Object old = rawValue(found, i);
            retyped = waitType(old) != waitType(value);
            // Redis's dbOverwrite under lazyfree-lazy-server-del frees the replaced value in the background.
            if (old != null && old != value && freer.lazy(Freer.SERVER_DEL)) freer.free(old);
        }
        if (i >= 0 && found == cur) {
            Table t = cur;
            int r = t.refs[i];
            byte[] e = Slabs.slab(t.heap.arr, r);
            int p = Slabs.offset(r);
            int c = t.ctrl[i];
            boolean had = (c & VOLATILE) != 0;
            long expiry = expireAtMs == KEEP_TTL ? expiry(e, p) : expireAtMs;
            boolean reuse = (expiry != 0) == had && ((c & RAW) != 0
                    ? !embed
                    : embed && valueField(e, p) == (isInt ? INT_TEXT + textLen : textLen));
            // Rewritten in place, the entry keeps its size: only a value held by reference changes what the slot costs.
            long before = reuse ? ((c & RAW) != 0 ? MemoryCost.of(t.values[i]) : 0) : slotBytes(t, i);
            if (reuse) {
                // Same shape: rewrite the fields in place. Entries never leave this class (readers get copies, and
                // getInPlace's reader writes the bytes out before this thread runs anything else), so no one can
                // observe the change; and the overwrite allocates nothing.
                if (embed) {
                    System.arraycopy(text, 0, e, keyStart(e, p) + key.length, textLen);
                }
                writeAccess(e, accessAt(e, p), clock);
                if (expiry != 0) writeExpiry(e, p, expiry);
            } else {
                t.refs[i] = entry(heap, key, 0, key.length, expiry, clock, embed ? text : null, 0, textLen, isInt);
                free(heap, r);
            }
            boolean wasRaw = (c & RAW) != 0;
            if (embed) {
                if (wasRaw) {
                    t.values[i] = null;
                    t.rawRemoved();
                }
            } else {
                t.ensureValues()[i] = value;
                if (!wasRaw) t.raw++;
            }
            t.ctrl[i] = (byte) ((c & (FRAGMENT | SAVED)) | (embed ? 0 : RAW) | (expiry != 0 ? VOLATILE : 0));
            if (had != (expiry != 0)) volatileCount += had ? -1 : 1;
            dataBytes += (reuse ? (embed ? 0 : MemoryCost.of(value)) : slotBytes(t, i)) - before;
            if (quiet) return;
            if (retyped) observer.retyped(this, key);
            else observer.written(this, key);
            return;
        }
        long expiry = expireAtMs;
        if (i >= 0) {
            // Still in the frozen table: move it to the new one.
            Table o = old;
            if (expiry == KEEP_TTL) {
                expiry = expiry(o, i);
            }
            deleteAt(o, i);
        } else {
            if (expiry == KEEP_TTL) {
                expiry = 0;
            }
            observer.added(this, key);
        }
        insertNew(key, h, value, embed ? text : null, textLen, isInt, expiry, clock);
        if (quiet) return;
        if (retyped) observer.retyped(this, key);
        else observer.written(this, key);
    }

    /** Which of the types clients block on {@code v} is: 1 a list, 2 a sorted set, 3 a stream, 0 any other. */
    private static int waitType(Object v) {
        return v instanceof ListValue ? 1 : v instanceof ZSetValue ? 2 : v instanceof StreamValue ? 3 : 0;
    }

    /** Removes a key (expired or not); returns its value or null. */
    public Object remove(byte[] key) {
        step();
        int i = locate(key, hash(key));
        if (i < 0) {
            return null;
        }
        saveIfPending(found, i);
        Object v = valueAt(found, i);
        deleteAt(found, i);
        afterRemove();
        observer.removed(this, key);
        observer.written(this, key);
        return v;
    }

    /**
     * UNLINK (and DEL under {@code lazyfree-lazy-user-del}): removes the key as {@link #remove} does and hands its
     * value to the lazy freer, which frees a large one in the background. Returns whether the key existed.
     */
    public boolean unlink(byte[] key) {
        Object v = remove(key);
        if (v == null) return false;
        freer.free(v);
        return true;
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
        saveIfPending(found, i);
        setExpiry(found, i, whenMs);
        observer.written(this, key);
        return true;
    }

    /** Removes the expiry of a key; true if there was one. */
    public boolean persist(byte[] key) {
        int i = locate(key, hash(key));
        if (i < 0 || (found.ctrl[i] & VOLATILE) == 0) {
            return false;
        }
        saveIfPending(found, i);
        setExpiry(found, i, 0);
        observer.written(this, key);
        return true;
    }

    /**
     * Drops everything (FLUSHDB) and shrinks to the minimum capacity. A snapshot in progress keeps walking the
     * dropped tables, which nothing changes any more.
     */
    public void clear() {
        clear(false);
    }

    /**
     * FLUSHDB, or with {@code async} FLUSHDB ASYNC: the dropped tables go to the lazy freer, counting every key, as
     * Redis's emptyDbAsync counts them.
     */
    public void clear(boolean async) {
        long keys = size();
        Object contents = async && keys > 0 ? new Object[] {cur, old} : null;
        observer.flushing(this);
        heap = new Slabs(); // a snapshot still walking the dropped tables reads their entries in the old slabs
        compactSlab = -1;
        cur = new Table(MIN_CAPACITY, heap);
        old = null;
        found = null;
        readTable = null;
        rehashIdx = 0;
        volatileCount = 0;
        dataBytes = 0;
        expireCursor = 0;
        avgTtlMs = 0;
        fieldExpiryKeys = null;
        if (contents != null) freer.freeDatabase(contents, keys);
    }

    /**
     * Sizes the empty table for about {@code keys} keys at once (loading a file whose header says how many it
     * holds), so that the load does not grow it step by step. Does nothing unless the database is empty and idle.
     */
    public void reserve(long keys) {
        if (size() != 0 || old != null || cur.sink != null || keys <= 0) {
            return;
        }
        long want = Math.min(MAX_CAPACITY, keys + keys / 3 + 1);
        int cap = Math.max(MIN_CAPACITY, tableSizeFor((int) want));
        if (cap > cur.refs.length) {
            cur = new Table(cap, heap);
            found = null;
            readTable = null;
            expireCursor = 0;
        }
    }

    /** Sets every key's access clock to {@code nowMs} (after loading: the keys were just stored). */
    public void touchAll(long nowMs) {
        int c = fresh(nowMs);
        for (Table t : old == null ? new Table[] {cur} : new Table[] {old, cur}) {
            for (int i = 0; i < t.refs.length; i++) {
                int r = t.refs[i];
                if (r != EMPTY && r != MOVED) setAccess(t, i, c);
            }
        }
    }

    /** Whether some value may hold elements with their own TTL (hash fields): a snapshot then needs RDB 12. */
    public boolean mayHaveFieldTtls() {
        return fieldExpiryKeys != null && !fieldExpiryKeys.isEmpty();
    }

    /**
     * Registers {@code key} for active element expiry: its value is (now) a {@link FieldExpiring} with
     * element TTLs. Values stored with {@link #put} are registered automatically; a command that gives
     * elements of a stored value their first TTL calls this. Stale registrations are dropped by the cycle.
     */
    public void trackFieldExpiry(byte[] key) {
        if (fieldExpiryKeys == null) fieldExpiryKeys = new ByteMap();
        fieldExpiryKeys.put(key, null);
    }

    /**
     * Active element expiry: visits registered keys from a rolling cursor and deletes up to {@code maxFields}
     * expired elements in all, deleting keys left empty. Returns the number of elements deleted.
     */
    public int activeExpireFields(long nowMs, int maxFields) {
        ByteMap keys = fieldExpiryKeys;
        if (keys == null || keys.isEmpty() || observer.expiryHeld()) return 0;
        int deleted = 0;
        int visited = 0;
        int cap = keys.capacity();
        int i = fieldExpiryCursor % cap;
        while (visited < cap && deleted < maxFields && !keys.isEmpty()) {
            byte[] k = keys.keyAt(i);
            if (k == null) {
                i = (i + 1) % cap;
                visited++;
                continue;
            }
            Object v = peek(k, nowMs);
            if (!(v instanceof FieldExpiring fe) || !fe.hasFieldTtls()) {
                keys.removeAt(i); // slot i may now hold a shifted entry: look at it again
                visited++;
                continue;
            }
            saveIfPending(k);
            long before = fe.memoryBytes();
            int n = fe.expireFields(nowMs, maxFields - deleted);
            deleted += n;
            dataBytes += fe.memoryBytes() - before;
            boolean emptied = fe.isEmpty();
            if (emptied) {
                remove(k);
            }
            if (n > 0) observer.fieldsExpired(this, k, emptied);
            i = (i + 1) % cap;
            visited++;
        }
        fieldExpiryCursor = i;
        keys.shrinkIfSparse();
        return deleted;
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
        Slabs h = heap;
        int cs = compactSlab, cp = compactPos;
        int ri = rehashIdx, ec = expireCursor;
        long vc = volatileCount, db = dataBytes, ttl = avgTtlMs;
        ByteMap fk = fieldExpiryKeys;
        cur = other.cur;
        heap = other.heap;
        compactSlab = other.compactSlab;
        compactPos = other.compactPos;
        found = null;
        readTable = null;
        old = other.old;
        rehashIdx = other.rehashIdx;
        expireCursor = other.expireCursor;
        volatileCount = other.volatileCount;
        dataBytes = other.dataBytes;
        avgTtlMs = other.avgTtlMs;
        other.cur = c;
        other.heap = h;
        other.compactSlab = cs;
        other.compactPos = cp;
        other.found = null;
        other.readTable = null;
        other.old = o;
        other.rehashIdx = ri;
        other.expireCursor = ec;
        other.volatileCount = vc;
        other.dataBytes = db;
        other.avgTtlMs = ttl;
        fieldExpiryKeys = other.fieldExpiryKeys;
        other.fieldExpiryKeys = fk;
        observer.swapped(this, other);
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
                v = ByteMap.nextCursor(v, m);
            } else {
                Table small = old.mask <= cur.mask ? old : cur;
                Table large = small == old ? cur : old;
                long m0 = small.mask;
                long m1 = large.mask;
                emitted += emitBucket(small, (int) (v & m0), out);
                // Every bucket of the larger table that expands from this bucket of the smaller one, from
                // the cursor's bits above m0 on, in reverse-binary order as dictScan does: after a shrink
                // the cursor may carry those bits, and a plain increment of them would skip buckets.
                // When those bits wrap to zero the increment has carried into the bits under m0, which
                // is the next bucket of the smaller table.
                do {
                    emitted += emitBucket(large, (int) (v & m1), out);
                    v = ByteMap.nextCursor(v, m1);
                } while ((v & (m0 ^ m1)) != 0);
            }
        } while (v != 0 && --budget > 0 && emitted < count);
        return v;
    }

    /** Emits the keys whose home is bucket {@code b}: they lie between b and the next empty slot. */
    private static int emitBucket(Table t, int b, Consumer<byte[]> out) {
        int n = 0;
        int m = t.mask;
        for (int i = b; ; i = (i + 1) & m) {
            int r = t.refs[i];
            if (r == EMPTY) {
                return n;
            }
            if (r != MOVED && (entryHash(t, r) & m) == b) {
                out.accept(keyAt(t, i));
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
        int[] rs = t.refs;
        for (int i = 0; i < rs.length; i++) {
            int r = rs[i];
            if (r != EMPTY && r != MOVED) {
                action.accept(keyAt(t, i), valueAt(t, i));
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
            int i = rnd.nextInt(t.refs.length);
            int r = t.refs[i];
            if (r == EMPTY || r == MOVED) {
                continue;
            }
            if (isExpired(t, i, nowMs)) {
                if (observer.expiryHeld()) continue;
                expireSlot(t, i);
                afterRemove();
                continue;
            }
            return keyAt(t, i);
        }
        // Unlucky or sparse: walk the tables from a random point.
        byte[] k = walkForLive(cur, rnd.nextInt(cur.refs.length), nowMs);
        if (k == null && old != null) {
            k = walkForLive(old, rnd.nextInt(old.refs.length), nowMs);
        }
        afterRemove();
        return k;
    }

    /** Receives the keys {@link #sample} picks, with their eviction score (higher = evicted first). */
    public interface Candidates {
        void offer(Database db, byte[] key, long score);
    }

    /** What {@link #sample} scores keys by. */
    public enum Score {
        /** Idle time (LRU): seconds since the last access. */
        IDLE,
        /** Rarity (LFU): 255 minus the decayed counter. */
        RARITY,
        /** Nearness of expiry (volatile-ttl): the earlier the expiry, the higher. */
        EXPIRY,
        /** Random (the random policies): any key is as good. */
        RANDOM
    }

    /**
     * Redis's eviction sampling (dictGetSomeKeys): offers up to {@code count} keys from random slots, only keys with
     * an expiry when {@code volatileOnly}, each with its {@code score}; visits at most 20 slots per key wanted.
     * Returns how many were offered. Reads only: deletes nothing, not even expired keys.
     */
    public int sample(int count, boolean volatileOnly, Score score, long nowMs, Candidates out) {
        if (size() == 0 || (volatileOnly && volatileCount == 0)) return 0;
        count = (int) Math.min(count, volatileOnly ? volatileCount : size()); // as dictGetSomeKeys caps it
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        int offered = 0;
        for (Table t : old == null ? new Table[] {cur} : new Table[] {old, cur}) {
            if (t.live == 0) continue;
            int m = t.mask;
            int i = rnd.nextInt(t.refs.length);
            long visits = (long) count * 20;
            // Keys with a TTL may be few among many: the run is longer by as much, up to the whole table, so that it
            // still meets some (eviction answers -OOM when a sample offers nothing).
            if (volatileOnly) visits = Math.min(Math.max(visits, t.refs.length), visits * Math.max(1, size() / volatileCount));
            while (offered < count && visits-- > 0) {
                int r = t.refs[i];
                if (r != EMPTY && r != MOVED && (!volatileOnly || (t.ctrl[i] & VOLATILE) != 0)) {
                    long s = switch (score) {
                        case IDLE -> (clock(nowMs) - access(t, i)) & CLOCK_MASK;
                        case RARITY -> 255 - access.get().decayed(access(t, i), nowMs);
                        case EXPIRY -> Long.MAX_VALUE - expiry(t, i);
                        case RANDOM -> rnd.nextLong(Long.MAX_VALUE);
                    };
                    out.offer(this, keyAt(t, i), s);
                    offered++;
                }
                i = (i + 1) & m;
            }
        }
        return offered;
    }

    /**
     * Eviction: removes the key as {@link #remove} does, telling the observer it was evicted (before
     * {@link KeyspaceObserver#written}); its value goes to the lazy freer under {@code lazyfree-lazy-eviction}.
     * Returns whether the key existed.
     */
    public boolean evict(byte[] key) {
        step();
        int i = locate(key, hash(key));
        if (i < 0) {
            return false;
        }
        saveIfPending(found, i);
        Object v = valueAt(found, i);
        deleteAt(found, i);
        afterRemove();
        observer.removed(this, key);
        observer.evicted(this, key);
        observer.written(this, key);
        if (freer.lazy(Freer.EVICTION)) freer.free(v);
        return true;
    }

    private byte[] walkForLive(Table t, int start, long nowMs) {
        int m = t.mask;
        int i = start;
        for (int n = 0; n <= m; ) {
            int r = t.refs[i];
            if (r != EMPTY && r != MOVED) {
                if (!isExpired(t, i, nowMs)) {
                    return keyAt(t, i);
                }
                if (!observer.expiryHeld()) {
                    expireSlot(t, i);
                    if (t != old) {
                        continue; // backward shift may have pulled another entry into slot i: look again
                    }
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
        if (volatileCount == 0 || observer.expiryHeld()) {
            return 0;
        }
        Table t = cur;
        int m = t.mask;
        int i = expireCursor & m;
        int checks = 0;
        int deleted = 0;
        long ttlSum = 0;
        int ttlSamples = 0;
        long visits = Math.max(1L, maxChecks) * 20;
        while (checks < maxChecks && visits-- > 0) {
            if ((t.ctrl[i] & VOLATILE) != 0) {
                long e = expiry(t, i);
                checks++;
                if (nowMs > e) {
                    expireSlot(t, i);
                    deleted++;
                    continue; // backward shift may have moved another entry into slot i
                }
                ttlSum += e - nowMs;
                ttlSamples++;
            }
            i = (i + 1) & m;
        }
        expireCursor = i;
        if (ttlSamples > 0) {
            // Redis's running estimate: each cycle's sample average weighs 1/50.
            long avg = ttlSum / ttlSamples;
            avgTtlMs = avgTtlMs == 0 ? avg : (avgTtlMs / 50) * 49 + avg / 50;
        }
        if (deleted > 0) {
            afterRemove();
        }
        lastExpireChecks = checks;
        return deleted;
    }

    /** Keys with an expiry that the last {@link #activeExpireCycle} examined (INFO expired_stale_perc's sample). */
    public int lastExpireChecks() {
        return lastExpireChecks;
    }

    /**
     * INFO keyspace's avg_ttl: Redis's estimate, a running average of the TTLs the active expiry cycle
     * meets (each cycle's sample counts 1/50); 0 when no key has an expiry.
     */
    public long avgTtlMillis() {
        return volatileCount == 0 ? 0 : avgTtlMs;
    }

    /**
     * Housekeeping from the shard's cron: moves up to {@code maxSlots} slots of the frozen table, and about 64 bytes
     * per slot of entries out of sparse slabs; true if either has work left.
     */
    public boolean rehashStep(int maxSlots) {
        if (old != null) {
            migrate(maxSlots, maxSlots);
        }
        boolean sparse = compactionPending() && compact(maxSlots * 64);
        return old != null || sparse;
    }

    /** How long a table's value array may hold no value before the cron drops it (see {@code Table.raw}). */
    public static final long VALUES_IDLE_MS = 1000;

    /**
     * From the shard's cron: drops the live table's array of values held by reference once it has held none for
     * {@link #VALUES_IDLE_MS} (a database of strings alone then pays nothing for it). True if it went.
     */
    public boolean releaseIdleValues(long nowMs) {
        return cur.releaseIdleValues(nowMs);
    }

    /** Bytes of the slabs holding this database's entries: live entries, the holes freed ones left, free tails. */
    public long slabBytes() {
        return heap.heldBytes();
    }

    /**
     * Bytes of the slabs that hold no live entry (holes not compacted yet, the fill slab's tail): heap the dataset
     * takes beyond {@link #usedBytes()}, as an allocator's fragmentation. Read without locks from other threads.
     */
    public long slackBytes() {
        return heap.slackBytes();
    }

    /**
     * Estimated bytes held: keys, values and table arrays. Maintained incrementally. Read from other threads too
     * (used_memory, summed by whichever shard checks memory): each table field is read once, as the owner may end a
     * resize between two reads.
     */
    public long usedBytes() {
        return dataBytes + tableArrayBytes();
    }

    /** The table arrays' bytes, the resize's old one included; safe from any thread (a stale figure at worst). */
    private long tableArrayBytes() {
        Table o = old;
        return cur.bytes + (o == null ? 0 : o.bytes);
    }

    /**
     * Read-only, for MEMORY STATS: with {@code expires}, the bytes of the keys' expiry fields (8 in each entry that has
     * one, counted in the entries' bytes); without, the bytes of the table arrays.
     */
    public long tableBytes(boolean expires) {
        return expires ? 8L * volatileCount : tableArrayBytes();
    }

    /**
     * Read-only, for MEMORY USAGE: the bytes {@link #usedBytes()} counts for {@code key}'s entry (key and value, or the
     * embedded array), or -1 when it is absent; expiry is not checked (Redis's MEMORY USAGE finds the entry the same way).
     */
    public long entryBytes(byte[] key) {
        int i = locate(key, hash(key));
        return i < 0 ? -1 : slotBytes(found, i);
    }

    // ---------------------------------------------------------------- fork-less snapshots

    /**
     * Starts this database's part of a fork-less snapshot: from now on {@code sink} receives every entry as it is at
     * this instant, once, either from {@link Snapshot#step} or, for an entry about to change, move or disappear
     * before the walk reaches it, from the write itself (which then goes ahead). Keys created afterwards are not in
     * the image. The tables the database has now are the snapshot's: they travel with SWAPDB and are still walked
     * after FLUSHDB drops them. At most one snapshot per table at a time.
     */
    public Snapshot beginSnapshot(SnapshotSink sink) {
        Table[] tables = old == null ? new Table[] {cur} : new Table[] {old, cur};
        for (Table t : tables) {
            if (t.sink != null) {
                throw new IllegalStateException("a snapshot is already in progress");
            }
            t.parity ^= SAVED; // every entry is now pending
            t.sink = sink;
        }
        return new Snapshot(tables);
    }

    /**
     * One database's walk of a fork-less snapshot. Confined to the shard thread that owns the database (or the
     * coordinator while the shard is parked).
     *
     * <p>Invariant: an entry of a snapshot's table is pending (its SAVED bit differs from the table's parity)
     * until it has been handed to the sink, and it is handed over exactly once: by the walk, or by whatever would
     * change it first (overwrite, in-place change through {@link #getForWrite}, expiry, deletion), move it (a
     * backward shift after a deletion, a migration to a resized table) or drop its table's contents. Moves of
     * pending entries save them first, so an entry can never slip behind the walk's cursor unsaved; tables made
     * during the snapshot hold only saved entries and new keys, so the walk visits only the tables captured at
     * the start.
     */
    public static final class Snapshot {
        /** Slots whose entries the walk reads ahead of saving them. */
        private static final int WALK_BATCH = 16;
        private final Table[] tables;
        private int table;
        private int index;
        private boolean cancelled;
        /** Where the walk's first pass leaves what it read, so that the reads are not optimised away. */
        private int touched;

        private Snapshot(Table[] tables) {
            this.tables = tables;
        }

        /** Saves the pending entries of up to {@code maxSlots} slots; true when the image is complete. */
        public boolean step(int maxSlots) {
            while (table < tables.length && maxSlots > 0) {
                Table t = tables[table];
                int end = t.refs.length;
                int i = index;
                int[] rs = t.refs;
                while (i < end && maxSlots > 0) {
                    int last = Math.min(end, i + Math.min(maxSlots, WALK_BATCH));
                    // First read the head of every pending entry of the batch: the loads do not depend on each
                    // other, so the processor overlaps their cache misses (the entries lie in the slabs in the
                    // order they were made, not in the table's), where the saves one after the other would wait
                    // for each in turn (decision 0023's prefetch, for the walk).
                    byte[][] slabs = t.heap.arr;
                    int acc = 0;
                    for (int j = i; j < last; j++) {
                        if (pending(t, j)) acc += Slabs.slab(slabs, rs[j])[Slabs.offset(rs[j])];
                    }
                    touched += acc;
                    for (int j = i; j < last; j++) {
                        if (pending(t, j)) save(t, j);
                    }
                    maxSlots -= last - i;
                    i = last;
                }
                index = i;
                if (i >= end) {
                    t.sink = null;
                    table++;
                    index = 0;
                }
            }
            return table >= tables.length;
        }

        /** Whether slot i of t holds an entry the walk has still to save. */
        private static boolean pending(Table t, int i) {
            int r = t.refs[i];
            return r != EMPTY && r != MOVED && (t.ctrl[i] & SAVED) != t.parity;
        }

        /** Abandons the snapshot (a failed or aborted save): writes stop feeding the sink. */
        public void cancel() {
            if (cancelled) return;
            cancelled = true;
            for (Table t : tables) {
                t.sink = null;
            }
        }
    }

    /** Hands slot i of t to its table's snapshot if it is still pending there. */
    private static void saveIfPending(Table t, int i) {
        if (t.sink != null && (t.ctrl[i] & SAVED) != t.parity) {
            save(t, i);
        }
    }

    /** {@link #saveIfPending(Table, int)} for a key, wherever it lies. */
    private void saveIfPending(byte[] key) {
        if (cur.sink == null && (old == null || old.sink == null)) {
            return;
        }
        int i = locate(key, hash(key));
        if (i >= 0) {
            saveIfPending(found, i);
        }
    }

    private static void save(Table t, int i) {
        int r = t.refs[i];
        byte[] e = Slabs.slab(t.heap.arr, r);
        int p = Slabs.offset(r);
        int ks = keyStart(e, p);
        int kl = keyLength(e, p);
        // A value held by reference or an integer's text goes as an object; an embedded string (null) as the bytes
        // that follow the key.
        Object v = (t.ctrl[i] & RAW) != 0 ? t.values[i] : null;
        int field = v == null ? valueField(e, p) : 0;
        if (field >= INT_TEXT) {
            v = SharedIntegers.valueOf(IntSet.parse(e, ks + kl, field - INT_TEXT));
            field = 0;
        }
        t.sink.save(e, ks, kl, v, ks + kl, field, expiry(e, p));
        t.ctrl[i] = (byte) ((t.ctrl[i] & ~SAVED) | t.parity);
    }

    // ---------------------------------------------------------------- internals

    private int lookupLive(byte[] key, long nowMs) {
        return lookupLive(key, hash(key), nowMs);
    }

    /** {@link #lookupLive(byte[], long)} of a key whose hash is {@code h}. */
    private int lookupLive(byte[] key, int h, long nowMs) {
        step();
        int i = locate(key, h);
        if (i < 0) {
            return -1;
        }
        Table t = found;
        if (isExpired(t, i, nowMs)) {
            if (observer.expiryHeld()) return -1; // absent to the command, left in place
            expireSlot(t, i);
            afterRemove();
            return -1;
        }
        return i;
    }

    private static boolean isExpired(Table t, int i, long nowMs) {
        if ((t.ctrl[i] & VOLATILE) == 0) {
            return false;
        }
        return nowMs > expiry(t, i);
    }

    /** Deletes an expired entry and tells the observer; no resize. */
    private void expireSlot(Table t, int i) {
        saveIfPending(t, i);
        byte[] k = keyAt(t, i);
        Object v = valueAt(t, i);
        deleteAt(t, i);
        observer.expired(this, k, v);
        if (freer.lazy(Freer.EXPIRE)) freer.free(v);
    }

    /** Most keys one {@link #prefetch} pass takes. */
    public static final int PREFETCH_MAX = 32;
    /** Hashes of the keys {@link #prefetch} has read the slots of, for {@link #prefetchEntries}. */
    private final int[] prefetched = new int[PREFETCH_MAX];
    /** The collections (values held by reference) of the slots {@link #prefetchEntries} read, for its last pass. */
    private final Object[] prefetchedValues = new Object[PREFETCH_MAX];
    private int prefetchCount;
    /** Where the prefetch passes leave what they read, so that the reads are not optimised away. */
    private int prefetchSink;

    /**
     * First pass of a prefetch over a batch of requests (decision 0023): reads the home slot of {@code key}, then
     * {@link #prefetchEntries} reads the entries of all the keys passed since the last call. The loads of one pass do not
     * depend on each other, so the processor overlaps their cache misses, where the requests' own lookups, one after the
     * other, wait for each in turn. Returns false, reading nothing, once {@link #PREFETCH_MAX} keys are waiting.
     */
    public boolean prefetch(byte[] key) {
        int n = prefetchCount;
        if (n == PREFETCH_MAX) return false;
        Table t = cur;
        int h = hash(key);
        int i = h & t.mask;
        prefetched[n] = h;
        prefetchCount = n + 1;
        prefetchSink += t.refs[i] + t.ctrl[i];
        return true;
    }

    /**
     * Second and last passes of a prefetch: reads the entry in each slot {@link #prefetch} read since the last call,
     * then the data of each collection among them ({@link CollectionValue#touch}).
     */
    public void prefetchEntries() {
        Table t = cur;
        int[] rs = t.refs;
        byte[] cs = t.ctrl;
        Object[] vs = t.values;
        int m = t.mask;
        byte[][] slabs = heap.arr;
        Object[] held = prefetchedValues;
        int acc = 0;
        int n = prefetchCount;
        for (int k = 0; k < n; k++) {
            int i = prefetched[k] & m;
            int r = rs[i];
            if (r != EMPTY && r != MOVED) {
                acc += Slabs.slab(slabs, r)[Slabs.offset(r)];
                if ((cs[i] & RAW) != 0) held[k] = vs[i];
            }
        }
        for (int k = 0; k < n; k++) {
            if (held[k] instanceof CollectionValue c) acc += c.touch();
            held[k] = null;
        }
        prefetchCount = 0;
        prefetchSink += acc;
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
        if (compactionPending()) {
            compact(COMPACT_STEP_BYTES);
        }
    }

    /** Whether a slab is being compacted or waits for it. */
    private boolean compactionPending() {
        return compactSlab >= 0 || heap.nextSparse() >= 0;
    }

    /**
     * Moves the live entries of the slabs {@link Slabs} queued as sparse to its fill slab, about {@code budget} bytes
     * of them (at least one entry); each moved entry's slot is found by its key's hash and its reference. Returns
     * whether sparse slabs remain.
     */
    private boolean compact(int budget) {
        Slabs h = heap;
        while (budget > 0) {
            int idx = compactSlab;
            if (idx < 0) {
                idx = h.nextSparse();
                if (idx < 0) {
                    return false;
                }
                compactSlab = idx;
                compactPos = 4;
            } else if (!h.isQueued(idx)) {
                // Its last live entry moved when the budget ran out: the slab is gone (its index may be reused).
                compactSlab = -1;
                continue;
            }
            byte[] s = h.arr[idx];
            int end = h.endOf(idx);
            int p = compactPos;
            while (p < end && budget > 0) {
                int size = entrySize(s, p);
                if ((s[p] & DEAD) == 0) {
                    relocate(Slabs.ref(idx, p), s, p, size);
                    budget -= size;
                }
                p += size;
            }
            compactPos = p;
            if (p >= end) {
                // Every live entry has moved, which dropped the slab (its index may even be the fill slab's now).
                if (h.arr[idx] == s && h.liveOf(idx) != 0) {
                    throw new IllegalStateException("slab " + idx + " keeps " + h.liveOf(idx) + " live bytes after compaction");
                }
                compactSlab = -1;
            }
        }
        return compactionPending();
    }

    /** Moves the live entry {@code ref} (at {@code s[p]}, {@code size} bytes) to the fill slab. */
    private void relocate(int ref, byte[] s, int p, int size) {
        int h = hash(s, keyStart(s, p), keyLength(s, p));
        Table t = cur;
        int i = t.slotOf(ref, h);
        if (i < 0 && old != null) {
            t = old;
            i = t.slotOf(ref, h);
        }
        if (i < 0) {
            throw new IllegalStateException("live entry " + Integer.toHexString(ref) + " is in no table");
        }
        int n = heap.allocate(size);
        System.arraycopy(s, p, Slabs.slab(heap.arr, n), Slabs.offset(n), size);
        t.refs[i] = n;
        heap.release(ref, size);
    }

    private void migrate(int maxMoves, int maxVisits) {
        Table o = old;
        Table c = cur;
        int idx = rehashIdx;
        int end = o.refs.length;
        while (maxVisits > 0 && maxMoves > 0 && idx < end) {
            int r = o.refs[idx];
            if (r != EMPTY && r != MOVED) {
                saveIfPending(o, idx);
                transfer(o, idx, c);
                o.refs[idx] = MOVED;
                boolean raw = (o.ctrl[idx] & RAW) != 0;
                o.ctrl[idx] = 0;
                if (raw) {
                    o.values[idx] = null;
                    o.rawRemoved();
                }
                o.live--;
                maxMoves--;
            }
            idx++;
            maxVisits--;
        }
        rehashIdx = idx;
        if (idx >= end || o.live == 0) {
            old = null;
            found = null;
            readTable = null;
        }
    }

    /** Copies slot i of {@code from} into a free slot of {@code to} (the entry stays where it is); leaves {@code from} alone. */
    private static void transfer(Table from, int i, Table to) {
        int r = from.refs[i];
        int j = to.freeSlot(entryHash(from, r));
        to.refs[j] = r;
        to.ctrl[j] = (byte) ((from.ctrl[i] & ~SAVED) | to.parity); // saved (or irrelevant) in the table it moves to
        Object v = rawValue(from, i);
        if (v != null) {
            to.ensureValues()[j] = v;
            to.raw++;
        }
        to.live++;
    }

    /**
     * Rare fallback when the new table fills before the frozen one has drained (a shrink followed by
     * a burst of inserts, or a grow whose migration fell behind): move both into one bigger table at
     * once. The new table never holds more than its maximum load, so probing always terminates.
     */
    private void rebuild(int capacity) {
        Table t = new Table(capacity, heap);
        for (Table from : new Table[] {old, cur}) {
            int[] rs = from.refs;
            for (int i = 0; i < rs.length; i++) {
                if (rs[i] != EMPTY && rs[i] != MOVED) {
                    saveIfPending(from, i);
                    transfer(from, i, t);
                }
            }
        }
        cur = t;
        old = null;
        found = null;
        readTable = null;
        rehashIdx = 0;
        expireCursor = 0;
    }

    private void startResize(int capacity) {
        old = cur;
        cur = new Table(capacity, heap);
        rehashIdx = 0;
        expireCursor = 0;
        if (old.live == 0) {
            old = null;
            found = null;
            readTable = null;
        }
    }

    /** {@code text}: the embedded value's bytes ({@code textLen} of them), or null to keep {@code value} by reference. */
    private void insertNew(byte[] key, int h, Object value, byte[] text, int textLen, boolean isInt, long expireAtMs,
            int clock) {
        boolean embed = text != null;
        // Keys still in the frozen table will all land in cur: count them against its load.
        if (size() >= cur.maxLive && cur.refs.length < MAX_CAPACITY) {
            if (old == null) {
                startResize(cur.refs.length << 1);
            } else {
                rebuild(Math.max(cur.refs.length << 1, tableSizeFor((int) Math.min(MAX_CAPACITY, size() * 2 + 2))));
            }
        }
        Table t = cur;
        int i = t.freeSlot(h);
        int r = entry(heap, key, 0, key.length, expireAtMs, clock, text, 0, textLen, isInt);
        t.refs[i] = r;
        t.ctrl[i] = (byte) (fragment(h) | t.parity | (embed ? 0 : RAW) | (expireAtMs > 0 ? VOLATILE : 0));
        dataBytes += entrySize(Slabs.slab(heap.arr, r), Slabs.offset(r));
        if (!embed) {
            t.ensureValues()[i] = value;
            t.raw++;
            dataBytes += MemoryCost.of(value);
        }
        t.live++;
        if (expireAtMs > 0) {
            volatileCount++;
        }
    }

    /** Sets or (with 0) clears the expiry of slot i; an entry gains or loses its expiry field by being rebuilt. */
    private void setExpiry(Table t, int i, long expireAtMs) {
        int r = t.refs[i];
        byte[] e = Slabs.slab(t.heap.arr, r);
        int p = Slabs.offset(r);
        int c = t.ctrl[i];
        boolean had = (c & VOLATILE) != 0;
        if (had && expireAtMs != 0) {
            writeExpiry(e, p, expireAtMs);
            return;
        }
        if (!had && expireAtMs == 0) {
            return;
        }
        int ks = keyStart(e, p);
        int kl = keyLength(e, p);
        int before = entrySize(e, p);
        // The new entry may open a new slab, which leaves e where it is: copy from it, then free it.
        int n = entry(t.heap, e, ks, kl, expireAtMs, access(e, p), e, ks + kl, valueLength(e, p), isIntText(e, p));
        t.refs[i] = n;
        free(t.heap, r);
        t.ctrl[i] = (byte) (had ? c & ~VOLATILE : c | VOLATILE);
        volatileCount += had ? -1 : 1;
        dataBytes += entrySize(Slabs.slab(t.heap.arr, n), Slabs.offset(n)) - before;
    }

    /** Removes slot i of t with accounting; tombstone in the frozen table, backward shift otherwise. */
    private void deleteAt(Table t, int i) {
        dataBytes -= slotBytes(t, i);
        if ((t.ctrl[i] & VOLATILE) != 0) {
            volatileCount--;
        }
        t.live--;
        free(t.heap, t.refs[i]);
        boolean raw = (t.ctrl[i] & RAW) != 0;
        Object[] vs = t.values;
        if (t == old) {
            t.refs[i] = MOVED;
            if (vs != null) vs[i] = null;
            t.ctrl[i] = 0;
            if (raw) t.rawRemoved();
            return;
        }
        int m = t.mask;
        int[] rs = t.refs;
        byte[] cs = t.ctrl;
        int hole = i;
        for (int j = (i + 1) & m; ; j = (j + 1) & m) {
            int r = rs[j];
            if (r == EMPTY) {
                break;
            }
            int home = entryHash(t, r) & m;
            // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
            if (((j - home) & m) >= ((j - hole) & m)) {
                if (t.sink != null && (cs[j] & SAVED) != t.parity) {
                    save(t, j);
                }
                rs[hole] = r;
                cs[hole] = cs[j];
                if (vs != null) vs[hole] = vs[j];
                hole = j;
            }
        }
        rs[hole] = EMPTY;
        cs[hole] = 0;
        if (vs != null) vs[hole] = null;
        if (raw) t.rawRemoved();
    }

    /**
     * Frees the entry {@code r}: marks it dead (compaction skips it) and gives its bytes back to its slab. A snapshot
     * still to save it has done so: every caller saves a pending entry before it changes or drops it.
     */
    private static void free(Slabs h, int r) {
        byte[] s = Slabs.slab(h.arr, r);
        int p = Slabs.offset(r);
        int size = entrySize(s, p);
        s[p] |= DEAD;
        h.release(r, size);
    }

    private void afterRemove() {
        if (old != null && old.live == 0) {
            old = null;
            found = null;
            readTable = null;
        }
        if (old == null) {
            int cap = cur.refs.length;
            if (cap > MIN_CAPACITY && cur.live < cap >>> 3) {
                startResize(Math.max(MIN_CAPACITY, tableSizeFor(cur.live * 2)));
            }
        }
    }

    private static int tableSizeFor(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    /** INFO lru_clock: the access clock keys are stamped with now (Redis's LRU clock, seconds, 24 bits). */
    public static int accessClock(long nowMs) {
        return clock(nowMs);
    }

    /** Access clock for {@code nowMs}: seconds since {@link #CLOCK_BASE_SEC}, modulo 2^CLOCK_BITS. */
    private static int clock(long nowMs) {
        return (int) ((Math.floorDiv(nowMs, 1000L) - CLOCK_BASE_SEC) & CLOCK_MASK);
    }

    /** The access field of a key just created: the clock, or LFU's initial counter. */
    private int fresh(long nowMs) {
        AccessPolicy a = access.get();
        return a.lfu() ? a.pack(nowMs, AccessPolicy.LFU_INIT) : clock(nowMs);
    }

    /**
     * After an access: the clock now, or the LFU counter decayed then maybe incremented. Writes only when the field
     * changes (an LRU clock changes once a second), so most reads leave the entry's cache line clean.
     */
    private void touchEntry(Table t, int i, long nowMs) {
        int r = t.refs[i];
        byte[] e = Slabs.slab(t.heap.arr, r);
        int p = accessAt(e, Slabs.offset(r));
        int was = readAccess(e, p);
        AccessPolicy a = access.get();
        int now = a.lfu() ? a.pack(nowMs, a.increment(a.decayed(was, nowMs))) : clock(nowMs);
        if (now != was) writeAccess(e, p, now);
    }

    // ---------------------------------------------------------------- slot contents

    /** The value of slot i: a fresh copy for an embedded entry, the stored reference otherwise. */
    private static Object valueAt(Table t, int i) {
        if ((t.ctrl[i] & RAW) != 0) {
            return t.values[i];
        }
        int r = t.refs[i];
        byte[] e = Slabs.slab(t.heap.arr, r);
        int p = Slabs.offset(r);
        int vs = keyStart(e, p) + keyLength(e, p);
        int field = valueField(e, p);
        if (field >= INT_TEXT) return SharedIntegers.valueOf(IntSet.parse(e, vs, field - INT_TEXT));
        return Arrays.copyOfRange(e, vs, vs + field);
    }

    /** The value slot i holds by reference, or null for an embedded entry. */
    private static Object rawValue(Table t, int i) {
        return (t.ctrl[i] & RAW) != 0 ? t.values[i] : null;
    }

    /** The key of slot i: a fresh copy. */
    private static byte[] keyAt(Table t, int i) {
        int r = t.refs[i];
        byte[] e = Slabs.slab(t.heap.arr, r);
        int p = Slabs.offset(r);
        int ks = keyStart(e, p);
        return Arrays.copyOfRange(e, ks, ks + keyLength(e, p));
    }

    /** Estimated bytes of slot i's entry and value, as counted in {@link #dataBytes}. */
    private static long slotBytes(Table t, int i) {
        int r = t.refs[i];
        long b = entrySize(Slabs.slab(t.heap.arr, r), Slabs.offset(r));
        return (t.ctrl[i] & RAW) != 0 ? b + MemoryCost.of(t.values[i]) : b;
    }

    private static long expiry(Table t, int i) {
        int r = t.refs[i];
        return expiry(Slabs.slab(t.heap.arr, r), Slabs.offset(r));
    }

    private static int access(Table t, int i) {
        int r = t.refs[i];
        return access(Slabs.slab(t.heap.arr, r), Slabs.offset(r));
    }

    private static void setAccess(Table t, int i, int a) {
        int r = t.refs[i];
        byte[] e = Slabs.slab(t.heap.arr, r);
        writeAccess(e, accessAt(e, Slabs.offset(r)), a);
    }

    /** The full hash of the key of entry {@code r} (not stored: recomputed for moves and SCAN). */
    private static int entryHash(Table t, int r) {
        byte[] e = Slabs.slab(t.heap.arr, r);
        int p = Slabs.offset(r);
        return hash(e, keyStart(e, p), keyLength(e, p));
    }

    // ---------------------------------------------------------------- the entry format

    /**
     * Writes a new entry into {@code h} and returns its reference: the key {@code src[off, off + len)}, its expiry field
     * only when {@code expireAt != 0}, and {@code vLen} bytes of {@code value} from {@code vOff} embedded after the key
     * unless {@code value} is null; {@code isInt}: those bytes are an integer's text.
     */
    private static int entry(Slabs h, byte[] src, int off, int len, long expireAt, int access, byte[] value, int vOff,
            int vLen, boolean isInt) {
        if (len >= 1 << 30) {
            throw new IllegalArgumentException("key of " + len + " bytes: at most 1 GB - 1"); // len << 2 must fit
        }
        if (value == null) vLen = 0;
        boolean vol = expireAt != 0;
        int head = len << 2 | (vol ? HAS_EXPIRY : 0);
        int hs = varintSize(head);
        int vField = isInt && value != null ? INT_TEXT + vLen : vLen;
        int ks = hs + varintSize(vField) + ACCESS_BYTES + (vol ? 8 : 0);
        int ref = h.allocate(Slabs.aligned(ks + len + vLen));
        byte[] e = Slabs.slab(h.arr, ref);
        int p = writeVarint(e, Slabs.offset(ref), head);
        p = writeVarint(e, p, vField);
        writeAccess(e, p, access);
        p += ACCESS_BYTES;
        if (vol) {
            LONGS.set(e, p, expireAt);
            p += 8;
        }
        System.arraycopy(src, off, e, p, len);
        if (vLen > 0) {
            System.arraycopy(value, vOff, e, p + len, vLen);
        }
        return ref;
    }

    private static int writeVarint(byte[] e, int p, int n) {
        while ((n & ~0x7F) != 0) {
            e[p++] = (byte) ((n & 0x7F) | 0x80);
            n >>>= 7;
        }
        e[p++] = (byte) n;
        return p;
    }

    private static int varintSize(int n) {
        return (n & ~0x7F) == 0 ? 1 : (n & ~0x3FFF) == 0 ? 2 : (n & ~0x1FFFFF) == 0 ? 3 : (n & ~0xFFFFFFF) == 0 ? 4 : 5;
    }

    /** The varint at {@code e[p]}. */
    private static int varint(byte[] e, int p) {
        int b = e[p];
        if (b >= 0) {
            return b;
        }
        int n = b & 0x7F;
        for (int s = 7; ; s += 7) {
            b = e[++p];
            n |= (b & 0x7F) << s;
            if (b >= 0) {
                return n;
            }
        }
    }

    /** The offset just past the varint at {@code e[p]}. */
    private static int skipVarint(byte[] e, int p) {
        while (e[p] < 0) {
            p++;
        }
        return p + 1;
    }

    /** Offset of the access field of the entry at {@code e[p]}. */
    private static int accessAt(byte[] e, int p) {
        if ((e[p] | e[p + 1]) >= 0) {
            return p + 2;
        }
        return skipVarint(e, skipVarint(e, p));
    }

    private static int keyLength(byte[] e, int p) {
        int b = e[p];
        return b >= 0 ? b >>> 2 : varint(e, p) >>> 2;
    }

    /** The embedded value's length field: the length, or {@link #INT_TEXT} + the length for an integer's text. */
    private static int valueField(byte[] e, int p) {
        return varint(e, skipVarint(e, p));
    }

    private static int valueLength(byte[] e, int p) {
        int n = valueField(e, p);
        return n >= INT_TEXT ? n - INT_TEXT : n;
    }

    /** Whether the embedded value of the entry at {@code e[p]} is an integer's text. */
    private static boolean isIntText(byte[] e, int p) {
        return valueField(e, p) >= INT_TEXT;
    }

    /** Writes the canonical decimal text of {@code v} at the start of {@code out} (20 bytes); returns its length. */
    static int writeText(byte[] out, long v) {
        int n = IntSet.digits(v);
        int i = n;
        long r = v; // digits taken from a negative value, so that Long.MIN_VALUE needs no special case
        if (r > 0) r = -r;
        do {
            out[--i] = (byte) ('0' - (r % 10));
            r /= 10;
        } while (r != 0);
        if (v < 0) out[0] = '-';
        return n;
    }

    /** Offset of the key bytes of the entry at {@code e[p]}. */
    private static int keyStart(byte[] e, int p) {
        int b = e[p];
        return accessAt(e, p) + ACCESS_BYTES + ((b & HAS_EXPIRY) << 3);
    }

    /** Bytes the entry at {@code e[p]} takes in its slab (dead or alive). */
    private static int entrySize(byte[] e, int p) {
        return Slabs.aligned(keyStart(e, p) + keyLength(e, p) + valueLength(e, p) - p);
    }

    /** An entry's absolute expiry in unix ms, 0 when it has none. */
    private static long expiry(byte[] e, int p) {
        return (e[p] & HAS_EXPIRY) == 0 ? 0 : (long) LONGS.get(e, accessAt(e, p) + ACCESS_BYTES);
    }

    /** Overwrites the expiry field of an entry that has one. */
    private static void writeExpiry(byte[] e, int p, long expireAt) {
        LONGS.set(e, accessAt(e, p) + ACCESS_BYTES, expireAt);
    }

    /** An entry's access field (LRU clock or LFU minutes and counter). */
    private static int access(byte[] e, int p) {
        return readAccess(e, accessAt(e, p));
    }

    private static int readAccess(byte[] e, int p) {
        return (e[p] & 0xFF) | (e[p + 1] & 0xFF) << 8 | (e[p + 2] & 0xFF) << 16;
    }

    private static void writeAccess(byte[] e, int p, int a) {
        e[p] = (byte) a;
        e[p + 1] = (byte) (a >>> 8);
        e[p + 2] = (byte) (a >>> 16);
    }

    /** Whether the entry at {@code e[p]} holds {@code key}. */
    private static boolean keyEquals(byte[] e, int p, byte[] key) {
        int len = key.length;
        int b = e[p];
        if ((b | e[p + 1]) >= 0) {
            int ks = p + 2 + ACCESS_BYTES + ((b & HAS_EXPIRY) << 3);
            return b >>> 2 == len && Arrays.equals(e, ks, ks + len, key, 0, len);
        }
        int ks = keyStart(e, p);
        return keyLength(e, p) == len && Arrays.equals(e, ks, ks + len, key, 0, len);
    }

    /** The bits of a hash a control byte keeps (the high ones: the home slot uses the low ones). */
    private static int fragment(int h) {
        return (h >>> 27) & FRAGMENT;
    }

    /** 32-bit seeded hash of the key bytes, 8 bytes at a time. */
    static int hash(byte[] key) {
        return hash(key, 0, key.length);
    }

    /** {@link #hash(byte[])} of {@code a[off, off + len)}. */
    static int hash(byte[] a, int off, int len) {
        long h = SEED ^ (len * 0x9E3779B97F4A7C15L);
        int i = 0;
        for (; i + 8 <= len; i += 8) {
            long w = (long) LONGS.get(a, off + i);
            h = Long.rotateLeft(h ^ (w * 0x87C37B91114253D5L), 31) * 0x4CF5AD432745937FL;
        }
        if (i < len) {
            long w = 0;
            for (int s = 0; i < len; i++, s += 8) {
                w |= (a[off + i] & 0xFFL) << s;
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
        return cur.refs.length;
    }

    /** One table's parallel arrays. Confined to the owning database's shard thread. */
    private static final class Table {
        /** The entry's reference in {@link #heap}; EMPTY = empty, MOVED = tombstone. */
        final int[] refs;
        /** Where the entries are (the database's slabs when the table was made). */
        final Slabs heap;
        /** Control bytes: hash fragment, VOLATILE, RAW, SAVED; 0 for empty slots and tombstones. */
        final byte[] ctrl;
        /** Values held by reference (RAW entries); null until the table holds one. */
        Object[] values;
        /** The snapshot this table's pending entries go to, or null when none is in progress. */
        SnapshotSink sink;
        /** The value of the SAVED bit that means "saved" (or "not part of the snapshot") in this table. */
        int parity;
        final int mask;
        final int maxLive;
        int live;

        Table(int capacity, Slabs heap) {
            refs = new int[capacity];
            this.heap = heap;
            ctrl = new byte[capacity];
            mask = capacity - 1;
            maxLive = capacity - (capacity >>> 2);
            bytes = 48 + MemoryCost.references(capacity) + MemoryCost.bytes(capacity);
        }

        int find(byte[] key, int h) {
            int[] rs = refs;
            byte[] cs = ctrl;
            byte[][] slabs = heap.arr;
            int m = mask;
            int f = fragment(h);
            for (int i = h & m; ; i = (i + 1) & m) {
                int r = rs[i];
                if (r == EMPTY) {
                    return -1;
                }
                if ((cs[i] & FRAGMENT) == f && r != MOVED && keyEquals(Slabs.slab(slabs, r), Slabs.offset(r), key)) {
                    return i;
                }
            }
        }

        /** The slot holding entry {@code ref}, whose key hashes to {@code h}, or -1. */
        int slotOf(int ref, int h) {
            int[] rs = refs;
            int m = mask;
            for (int i = h & m; ; i = (i + 1) & m) {
                int r = rs[i];
                if (r == ref) {
                    return i;
                }
                if (r == EMPTY) {
                    return -1;
                }
            }
        }

        /** First empty slot from the home of {@code h}; only for the live table, which has no tombstones. */
        int freeSlot(int h) {
            int[] rs = refs;
            int m = mask;
            int i = h & m;
            while (rs[i] != EMPTY) {
                i = (i + 1) & m;
            }
            return i;
        }

        /**
         * Slots holding a RAW entry. When none is left, {@link #values} stays until the cron has seen it unused for
         * {@link #VALUES_IDLE_MS} ({@link #releaseIdleValues}): a queue that empties and fills again next to a large
         * table of strings would otherwise allocate an array of the table's capacity on every refill.
         */
        int raw;
        /** When the cron first saw {@link #values} held with no RAW entry since its last use; 0 while it is in use. */
        long valuesIdleSince;

        void rawRemoved() {
            raw--;
        }

        Object[] ensureValues() {
            Object[] vs = values;
            if (vs == null) {
                vs = values = new Object[refs.length];
                bytes += MemoryCost.references(refs.length);
            }
            valuesIdleSince = 0;
            return vs;
        }

        /** Drops {@link #values} once it has held nothing for {@link #VALUES_IDLE_MS}; true if it went. */
        boolean releaseIdleValues(long nowMs) {
            if (values == null || raw > 0) {
                valuesIdleSince = 0;
                return false;
            }
            if (valuesIdleSince == 0) {
                valuesIdleSince = nowMs;
                return false;
            }
            if (nowMs - valuesIdleSince < VALUES_IDLE_MS) return false;
            values = null;
            valuesIdleSince = 0;
            bytes -= MemoryCost.references(refs.length);
            return true;
        }

        /**
         * Bytes of the arrays: entry references, control bytes, value references once allocated. Kept in a field: the
         * memory check before every write sums it over all databases.
         */
        long bytes;
    }
}
