package io.tide.store;

import java.util.Arrays;
import java.util.function.BiConsumer;

/**
 * Confined to the shard thread that owns the collection it belongs to. An open-addressing hash map
 * from byte strings to values: the scalable encoding behind hashes ("hashtable"), sets ("hashtable")
 * and the member index of sorted sets ("btree").
 *
 * <p>Linear probing over parallel arrays (keys, values, hashes), capacity a power of two, load at most
 * 3/4 and at least 1/8 (shrinking on removal), deletion by backward shift (no tombstones). Values may
 * be null (sets store none); {@link #indexOf} tells presence apart from a null value. The values array is
 * made by the first non-null value, so a map that holds none (a set's) spends nothing on it.
 *
 * <p>A <em>packed</em> map ({@link #packed}) stores one array per entry instead of a key and a value: the
 * entry's key length (a varint), the key, then whatever its owner keeps after it (a hash's field value). It is
 * looked up by the key alone; {@link #keyAt} returns the whole entry. A hash of short fields and values then
 * costs one array header and one slot reference per field instead of two of each.
 *
 * <p>{@link #scan} keeps SCAN's guarantee (every entry present for the whole scan is returned at least
 * once) across resizes between calls: it walks home buckets ({@code hash & mask}) with Redis's
 * reverse-binary cursor, and a probe run holds the entries of its home bucket contiguously, so growth and
 * shrinking only split or merge buckets the way {@code dictScan} expects.
 *
 * <p>Resizes rehash the whole table at once (not incrementally as the keyspace does): a collection of a
 * million entries pauses its shard for a few milliseconds when it doubles.
 *
 * <p>Memory: {@link #memoryBytes()} counts the arrays, the keys and, with {@link MemoryCost#of}, the values,
 * updated on every change; callers that mutate a stored value in place report it with {@link #adjustBytes}.
 */
public final class ByteMap {

    private static final int MIN_CAPACITY = 8;
    /** Header plus fields of this object. */
    private static final long SHALLOW = 40;

    /** Keys are the leading part of packed entries ({@link #packed}). */
    private final boolean packed;
    private byte[][] keys;
    /** Null while every value is null. */
    private Object[] values;
    private int[] hashes;
    private int mask;
    private int size;
    private long entryBytes;

    public ByteMap() {
        this(0);
    }

    /** A map sized for {@code expected} entries without resizing. */
    public ByteMap(int expected) {
        this(expected, false);
    }

    private ByteMap(int expected, boolean packed) {
        this.packed = packed;
        int cap = MIN_CAPACITY;
        while (cap * 3L / 4 < expected) cap <<= 1;
        allocate(cap);
    }

    /** A packed map (see the class comment) sized for {@code expected} entries; fill it with {@link #putEntry}. */
    public static ByteMap packed(int expected) {
        return new ByteMap(expected, true);
    }

    private void allocate(int cap) {
        keys = new byte[cap][];
        values = null;
        hashes = new int[cap];
        mask = cap - 1;
    }

    // ---------------------------------------------------------------- packed entries

    /** A packed entry: {@code key}'s length as a varint ({@link Varints}), {@code key}, then {@code tail[off, off + len)}. */
    public static byte[] entry(byte[] key, byte[] tail, int off, int len) {
        int at = Varints.uvarintLength(key.length);
        byte[] e = new byte[at + key.length + len];
        Varints.writeUVarint(e, 0, key.length);
        System.arraycopy(key, 0, e, at, key.length);
        System.arraycopy(tail, off, e, at + key.length, len);
        return e;
    }

    /** Where a packed entry's key starts. */
    public static int keyOffset(byte[] entry) {
        return Varints.uvarintLength(keyLength(entry));
    }

    /** The length of a packed entry's key. */
    public static int keyLength(byte[] entry) {
        return (int) Varints.readUVarint(entry, 0);
    }

    /** Where what follows a packed entry's key starts. */
    public static int tailOffset(byte[] entry) {
        int n = keyLength(entry);
        return Varints.uvarintLength(n) + n;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Slots in the table: the bound for {@link #keyAt}/{@link #valueAt} iteration. */
    public int capacity() {
        return keys.length;
    }

    /** The key in slot {@code i}, or null for an empty slot. */
    public byte[] keyAt(int i) {
        return keys[i];
    }

    public Object valueAt(int i) {
        return values == null ? null : values[i];
    }

    /** Replaces the value in an occupied slot (from {@link #indexOf}). */
    public void setValueAt(int i, Object v) {
        Object old = valueAt(i);
        entryBytes += MemoryCost.of(v) - MemoryCost.of(old);
        if (v != null && values == null) values = new Object[keys.length];
        if (values != null) values[i] = v;
    }

    /** Replaces the entry in an occupied slot of a packed map with one of the same key. */
    public void setEntryAt(int i, byte[] entry) {
        entryBytes += MemoryCost.ofKey(entry) - MemoryCost.ofKey(keys[i]);
        keys[i] = entry;
    }

    /** The slot holding {@code key}, or -1. */
    public int indexOf(byte[] key) {
        return indexOf(key, 0, key.length);
    }

    /** The slot holding the key {@code a[off, off + len)}, or -1. */
    public int indexOf(byte[] a, int off, int len) {
        int h = Database.hash(a, off, len);
        int m = mask;
        for (int i = h & m; ; i = (i + 1) & m) {
            byte[] k = keys[i];
            if (k == null) return -1;
            if (hashes[i] == h && keyEquals(k, a, off, len)) return i;
        }
    }

    private boolean keyEquals(byte[] stored, byte[] a, int off, int len) {
        if (!packed) return Arrays.equals(stored, 0, stored.length, a, off, off + len);
        int n = keyLength(stored);
        int at = Varints.uvarintLength(n);
        return Arrays.equals(stored, at, at + n, a, off, off + len);
    }

    public boolean containsKey(byte[] key) {
        return indexOf(key) >= 0;
    }

    /** The value of {@code key}, or null when absent (or stored as null). */
    public Object get(byte[] key) {
        int i = indexOf(key);
        return i < 0 ? null : valueAt(i);
    }

    /**
     * Inserts or overwrites; returns true when {@code key} was new. The key array is kept by reference:
     * callers must not modify it afterwards.
     */
    public boolean put(byte[] key, Object value) {
        return put(key, 0, key.length, key, value);
    }

    /**
     * Inserts or overwrites the packed entry {@code entry} (see {@link #entry}) with {@code value}; returns true when
     * its key was new. The entry is kept by reference.
     */
    public boolean putEntry(byte[] entry, Object value) {
        return put(entry, keyOffset(entry), keyLength(entry), entry, value);
    }

    private boolean put(byte[] a, int off, int len, byte[] stored, Object value) {
        int h = Database.hash(a, off, len);
        int m = mask;
        int i = h & m;
        for (; ; i = (i + 1) & m) {
            byte[] k = keys[i];
            if (k == null) break;
            if (hashes[i] == h && keyEquals(k, a, off, len)) {
                if (packed) setEntryAt(i, stored);
                setValueAt(i, value);
                return false;
            }
        }
        if ((size + 1) * 4L > keys.length * 3L) {
            resize(keys.length << 1);
            insertFresh(stored, h, value);
        } else {
            place(i, stored, h, value); // the empty slot the probe ended at
        }
        size++;
        entryBytes += MemoryCost.ofKey(stored) + MemoryCost.of(value);
        return true;
    }

    /** Removes {@code key}; returns true when it was present. */
    public boolean remove(byte[] key) {
        int i = indexOf(key);
        if (i < 0) return false;
        removeAt(i);
        shrinkIfSparse();
        return true;
    }

    /**
     * Removes the entry in slot {@code i} without resizing. Backward shift may move a later entry into slot
     * {@code i} (or, at the wrap, an entry from the start of the table to the end), so a caller walking slots
     * must look at slot {@code i} again; call {@link #shrinkIfSparse} after the walk.
     */
    public void removeAt(int i) {
        entryBytes -= MemoryCost.ofKey(keys[i]) + MemoryCost.of(valueAt(i));
        size--;
        Object[] vals = values;
        int m = mask;
        int hole = i;
        for (int j = (i + 1) & m; keys[j] != null; j = (j + 1) & m) {
            int home = hashes[j] & m;
            // Move j into the hole unless its home lies cyclically in (hole, j].
            boolean stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
            if (!stays) {
                keys[hole] = keys[j];
                if (vals != null) vals[hole] = vals[j];
                hashes[hole] = hashes[j];
                hole = j;
            }
        }
        keys[hole] = null;
        if (vals != null) vals[hole] = null;
        hashes[hole] = 0;
        if (size == 0) values = null;
    }

    /** Halves the table (repeatedly) while it is under 1/8 full. */
    public void shrinkIfSparse() {
        int cap = keys.length;
        while (cap > MIN_CAPACITY && size * 8L < cap) cap >>>= 1;
        if (cap != keys.length) resize(cap);
    }

    /** Removes everything. */
    public void clear() {
        allocate(MIN_CAPACITY);
        size = 0;
        entryBytes = 0;
    }

    private void resize(int cap) {
        byte[][] ok = keys;
        Object[] ov = values;
        int[] oh = hashes;
        allocate(Math.max(MIN_CAPACITY, cap));
        for (int i = 0; i < ok.length; i++) {
            if (ok[i] != null) insertFresh(ok[i], oh[i], ov == null ? null : ov[i]);
        }
    }

    /** Places an entry known to be absent. */
    private void insertFresh(byte[] key, int h, Object value) {
        int m = mask;
        int i = h & m;
        while (keys[i] != null) i = (i + 1) & m;
        place(i, key, h, value);
    }

    private void place(int i, byte[] key, int h, Object value) {
        keys[i] = key;
        hashes[i] = h;
        if (value != null) {
            if (values == null) values = new Object[keys.length];
            values[i] = value;
        }
    }

    /** A random occupied slot; the map must not be empty. */
    public int randomSlot(java.util.random.RandomGenerator rnd) {
        if (size == 0) throw new IllegalStateException("empty map");
        while (true) {
            int i = rnd.nextInt(keys.length);
            if (keys[i] != null) return i;
        }
    }

    /** Every entry, in slot order. {@code action} must not modify this map. */
    public void forEach(BiConsumer<byte[], Object> action) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != null) action.accept(keys[i], valueAt(i));
        }
    }

    /**
     * One SCAN step: emits the entries of home buckets from {@code cursor} on until at least {@code count}
     * were emitted (or 10*count buckets visited); returns the next cursor, 0 when the scan is complete.
     * {@code out} must not modify this map.
     */
    public long scan(long cursor, int count, BiConsumer<byte[], Object> out) {
        if (size == 0) return 0;
        long v = cursor;
        long emitted = 0;
        long budget = Math.max(1L, count) * 10;
        long m = mask;
        do {
            emitted += emitBucket((int) (v & m), out);
            v = nextCursor(v, m);
        } while (v != 0 && --budget > 0 && emitted < count);
        return v;
    }

    /** Reverse-binary increment of the bits under {@code mask}, as Redis's dictScan (also the keyspace's SCAN). */
    static long nextCursor(long v, long mask) {
        v |= ~mask;
        v = Long.reverse(v);
        v++;
        return Long.reverse(v);
    }

    private int emitBucket(int b, BiConsumer<byte[], Object> out) {
        int n = 0;
        int m = mask;
        for (int i = b; keys[i] != null; i = (i + 1) & m) {
            if ((hashes[i] & m) == b) {
                out.accept(keys[i], valueAt(i));
                n++;
            }
        }
        return n;
    }

    /** Adds {@code delta} bytes for a value changed in place (a stored object that grew or shrank). */
    public void adjustBytes(long delta) {
        entryBytes += delta;
    }

    /** Estimated heap bytes: this object, its arrays, the keys (or entries) and the values. */
    public long memoryBytes() {
        long cap = keys.length;
        long arrays = 2 * 16 + cap * 4 /* keys refs */ + cap * 4 /* hashes */;
        if (values != null) arrays += 16 + cap * 4;
        return SHALLOW + arrays + entryBytes;
    }

    /**
     * A deep copy as far as this class knows: key arrays are shared (they are never modified), values are
     * copied with {@code copyValue}.
     */
    public ByteMap copy(java.util.function.UnaryOperator<Object> copyValue) {
        ByteMap c = new ByteMap(0, packed);
        c.keys = keys.clone();
        if (values != null) {
            c.values = new Object[values.length];
            for (int i = 0; i < values.length; i++) {
                if (keys[i] != null) c.values[i] = copyValue.apply(values[i]);
            }
        }
        c.hashes = hashes.clone();
        c.mask = mask;
        c.size = size;
        c.entryBytes = entryBytes;
        return c;
    }
}
