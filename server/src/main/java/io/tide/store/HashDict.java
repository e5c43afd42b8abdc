package io.tide.store;

import java.util.Arrays;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.random.RandomGenerator;

/**
 * Confined to the shard thread that owns the hash. The scalable encoding of hashes, Redis's "hashtable": a
 * packed {@link ByteMap} whose entries hold a field and its value in one array ({@link ByteMap#entry}). A field
 * without a TTL has no map value; a field with one maps to a {@link Volatile} holding its expiry, which also sits
 * in an index ordered by expiry, so the next field to expire is found in O(log n).
 *
 * <p>Entries are never modified once stored: a new value stores a new entry. Reads copy the field or value out,
 * except {@link #entry}, which gives a reply the stored array to write from.
 */
final class HashDict {

    /** Estimated bytes of the expiry index: the TreeSet and its TreeMap, then one tree node per entry. */
    private static final long INDEX_SHALLOW = 64;
    private static final long INDEX_NODE = 40;

    private final ByteMap map;
    /** Fields with a TTL, by expiry then field bytes; null until the first TTL. */
    private TreeSet<Volatile> index;

    HashDict(int expected) {
        map = ByteMap.packed(expected);
    }

    private HashDict(ByteMap map) {
        this.map = map;
    }

    /** Confined as its hash. A field's expiry, and its entry (updated when the value changes). */
    static final class Volatile implements Sized, Comparable<Volatile> {
        byte[] entry;
        long expireAt;

        Volatile(byte[] entry, long expireAt) {
            this.entry = entry;
            this.expireAt = expireAt;
        }

        @Override
        public long memoryBytes() {
            return 24; // the entry is counted as the map's
        }

        @Override
        public int compareTo(Volatile o) {
            int c = Long.compare(expireAt, o.expireAt);
            if (c != 0) return c;
            int a = ByteMap.keyOffset(entry);
            int b = ByteMap.keyOffset(o.entry);
            return java.util.Arrays.compare(entry, a, a + ByteMap.keyLength(entry),
                    o.entry, b, b + ByteMap.keyLength(o.entry));
        }
    }

    private static byte[] entry(byte[] field, byte[] value) {
        return ByteMap.entry(field, value, 0, value.length);
    }

    private static byte[] fieldOf(byte[] entry) {
        int at = ByteMap.keyOffset(entry);
        return Arrays.copyOfRange(entry, at, at + ByteMap.keyLength(entry));
    }

    private static byte[] valueOf(byte[] entry) {
        return Arrays.copyOfRange(entry, ByteMap.tailOffset(entry), entry.length);
    }

    private TreeSet<Volatile> index() {
        if (index == null) index = new TreeSet<>();
        return index;
    }

    int size() {
        return map.size();
    }

    byte[] get(byte[] field) {
        byte[] e = entry(field);
        return e == null ? null : valueOf(e);
    }

    /** The stored entry of {@code field} (its value from {@link ByteMap#tailOffset}), or null; never modify it. */
    byte[] entry(byte[] field) {
        int i = map.indexOf(field);
        return i < 0 ? null : map.keyAt(i);
    }

    /** {@link HashValue#NO_FIELD}, 0 for a field without a TTL, or its expiry. */
    long expireAt(byte[] field) {
        int i = map.indexOf(field);
        if (i < 0) return HashValue.NO_FIELD;
        return map.valueAt(i) instanceof Volatile v ? v.expireAt : 0;
    }

    /** Sets a field; an existing field loses its TTL unless {@code keepTtl}. True when the field is new. */
    boolean put(byte[] field, byte[] value, boolean keepTtl) {
        byte[] e = entry(field, value);
        int i = map.indexOf(field);
        if (i < 0) {
            map.putEntry(e, null);
            return true;
        }
        map.setEntryAt(i, e);
        if (map.valueAt(i) instanceof Volatile v) {
            if (keepTtl) {
                v.entry = e; // the same field: its place in the index does not change
                return false;
            }
            index.remove(v);
            map.setValueAt(i, null);
        }
        return false;
    }

    /** Adds a field known to be absent (conversion from the compact form). */
    void add(byte[] field, byte[] value, long expireAt) {
        byte[] e = entry(field, value);
        if (expireAt == 0) {
            map.putEntry(e, null);
        } else {
            Volatile v = new Volatile(e, expireAt);
            map.putEntry(e, v);
            index().add(v);
        }
    }

    boolean remove(byte[] field) {
        int i = map.indexOf(field);
        if (i < 0) return false;
        if (map.valueAt(i) instanceof Volatile v) index.remove(v);
        map.removeAt(i);
        map.shrinkIfSparse();
        return true;
    }

    /** Gives an existing field the expiry {@code expireAt} (> 0). */
    void setExpireAt(byte[] field, long expireAt) {
        int i = map.indexOf(field);
        if (map.valueAt(i) instanceof Volatile v) {
            index.remove(v);
            v.expireAt = expireAt;
            index.add(v);
        } else {
            Volatile v = new Volatile(map.keyAt(i), expireAt);
            map.setValueAt(i, v);
            index().add(v);
        }
    }

    /** Removes the TTL of an existing field that has one. */
    void persist(byte[] field) {
        int i = map.indexOf(field);
        index.remove((Volatile) map.valueAt(i));
        map.setValueAt(i, null);
    }

    /** The earliest expiry of any field, 0 when none has a TTL. */
    long nextExpireAt() {
        return index == null || index.isEmpty() ? 0 : index.first().expireAt;
    }

    /** Removes up to {@code max} fields whose expiry is before {@code nowMs}, earliest first; returns how many. */
    int expire(long nowMs, int max) {
        int n = 0;
        while (n < max && index != null && !index.isEmpty() && index.first().expireAt < nowMs) {
            byte[] e = index.pollFirst().entry;
            int at = ByteMap.keyOffset(e);
            map.removeAt(map.indexOf(e, at, ByteMap.keyLength(e)));
            n++;
        }
        if (n > 0) map.shrinkIfSparse();
        return n;
    }

    /** Every field and value as parts of the stored entries, in table order. */
    void forEachSlice(HashValue.SliceVisitor action) {
        map.forEach((e, v) -> {
            int at = ByteMap.keyOffset(e);
            int len = ByteMap.keyLength(e);
            action.visit(e, at, len, e, at + len, e.length - at - len);
        });
    }

    /** Every field with its value and expiry (0 for none), in table order. */
    void forEachWithExpiry(HashValue.FieldVisitor action) {
        map.forEach((e, v) -> action.visit(fieldOf(e), valueOf(e), v instanceof Volatile vol ? vol.expireAt : 0));
    }

    /** One HSCAN step over the table; see {@link ByteMap#scan}. */
    long scan(long cursor, int count, BiConsumer<byte[], byte[]> out) {
        return map.scan(cursor, count, (e, v) -> out.accept(fieldOf(e), valueOf(e)));
    }

    int slots() {
        return map.capacity();
    }

    int randomSlot(RandomGenerator rnd) {
        return map.randomSlot(rnd);
    }

    /** The field in slot {@code i}, or null for an empty slot. */
    byte[] fieldAt(int i) {
        byte[] e = map.keyAt(i);
        return e == null ? null : fieldOf(e);
    }

    byte[] valueAt(int i) {
        return valueOf(map.keyAt(i));
    }

    long memoryBytes() {
        long m = map.memoryBytes();
        if (index != null) m += INDEX_SHALLOW + INDEX_NODE * index.size();
        return m;
    }

    HashDict copy() {
        HashDict c = new HashDict(map.copy(v -> v instanceof Volatile x ? new Volatile(x.entry, x.expireAt) : v));
        if (index != null) {
            TreeSet<Volatile> idx = c.index();
            for (int i = 0; i < c.map.capacity(); i++) {
                if (c.map.keyAt(i) != null && c.map.valueAt(i) instanceof Volatile v) idx.add(v);
            }
        }
        return c;
    }
}
