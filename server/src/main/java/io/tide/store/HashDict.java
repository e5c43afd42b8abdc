package io.tide.store;

import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.random.RandomGenerator;

/**
 * Confined to the shard thread that owns the hash. The scalable encoding of hashes, Redis's "hashtable": a
 * {@link ByteMap} from field to value. A field without a TTL maps to its value ({@code byte[]}); a field
 * with one maps to a {@link Volatile} holding the value and the expiry, which also sits in an index ordered
 * by expiry, so the next field to expire is found in O(log n).
 *
 * <p>Value arrays are never modified once stored (updates store new arrays); field arrays are kept by
 * reference, as {@link ByteMap} does.
 */
final class HashDict {

    /** Estimated bytes of the expiry index: the TreeSet and its TreeMap, then one tree node per entry. */
    private static final long INDEX_SHALLOW = 64;
    private static final long INDEX_NODE = 40;

    private final ByteMap map;
    /** Fields with a TTL, by expiry then field bytes; null until the first TTL. */
    private TreeSet<Volatile> index;

    HashDict(int expected) {
        map = new ByteMap(expected);
    }

    private HashDict(ByteMap map) {
        this.map = map;
    }

    /** Confined as its hash. A field's value and expiry: the map's value for a field with a TTL. */
    static final class Volatile implements Sized, Comparable<Volatile> {
        final byte[] field;
        byte[] value;
        long expireAt;

        Volatile(byte[] field, byte[] value, long expireAt) {
            this.field = field;
            this.value = value;
            this.expireAt = expireAt;
        }

        @Override
        public long memoryBytes() {
            return 32 + MemoryCost.bytes(value.length);
        }

        @Override
        public int compareTo(Volatile o) {
            int c = Long.compare(expireAt, o.expireAt);
            return c != 0 ? c : java.util.Arrays.compare(field, o.field);
        }
    }

    private static byte[] valueOf(Object stored) {
        return stored instanceof Volatile v ? v.value : (byte[]) stored;
    }

    private TreeSet<Volatile> index() {
        if (index == null) index = new TreeSet<>();
        return index;
    }

    int size() {
        return map.size();
    }

    byte[] get(byte[] field) {
        int i = map.indexOf(field);
        return i < 0 ? null : valueOf(map.valueAt(i));
    }

    /** {@link HashValue#NO_FIELD}, 0 for a field without a TTL, or its expiry. */
    long expireAt(byte[] field) {
        int i = map.indexOf(field);
        if (i < 0) return HashValue.NO_FIELD;
        return map.valueAt(i) instanceof Volatile v ? v.expireAt : 0;
    }

    /** Sets a field; an existing field loses its TTL unless {@code keepTtl}. True when the field is new. */
    boolean put(byte[] field, byte[] value, boolean keepTtl) {
        int i = map.indexOf(field);
        if (i < 0) {
            map.put(field, value);
            return true;
        }
        if (map.valueAt(i) instanceof Volatile v) {
            if (keepTtl) {
                map.adjustBytes(MemoryCost.bytes(value.length) - MemoryCost.bytes(v.value.length));
                v.value = value;
                return false;
            }
            index.remove(v);
        }
        map.setValueAt(i, value);
        return false;
    }

    /** Adds a field known to be absent (conversion from the compact form). */
    void add(byte[] field, byte[] value, long expireAt) {
        if (expireAt == 0) {
            map.put(field, value);
        } else {
            Volatile v = new Volatile(field, value, expireAt);
            map.put(field, v);
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
            Volatile v = new Volatile(map.keyAt(i), (byte[]) map.valueAt(i), expireAt);
            map.setValueAt(i, v);
            index().add(v);
        }
    }

    /** Removes the TTL of an existing field that has one. */
    void persist(byte[] field) {
        int i = map.indexOf(field);
        Volatile v = (Volatile) map.valueAt(i);
        index.remove(v);
        map.setValueAt(i, v.value);
    }

    /** The earliest expiry of any field, 0 when none has a TTL. */
    long nextExpireAt() {
        return index == null || index.isEmpty() ? 0 : index.first().expireAt;
    }

    /** Removes up to {@code max} fields whose expiry is before {@code nowMs}, earliest first; returns how many. */
    int expire(long nowMs, int max) {
        int n = 0;
        while (n < max && index != null && !index.isEmpty() && index.first().expireAt < nowMs) {
            Volatile v = index.pollFirst();
            map.removeAt(map.indexOf(v.field));
            n++;
        }
        if (n > 0) map.shrinkIfSparse();
        return n;
    }

    /** Every field and value, in table order. */
    void forEach(BiConsumer<byte[], byte[]> action) {
        map.forEach((f, v) -> action.accept(f, valueOf(v)));
    }

    /** Every field with its value and expiry (0 for none), in table order. */
    void forEachWithExpiry(HashValue.FieldVisitor action) {
        map.forEach((f, v) -> {
            if (v instanceof Volatile vol) action.visit(f, vol.value, vol.expireAt);
            else action.visit(f, (byte[]) v, 0);
        });
    }

    /** One HSCAN step over the table; see {@link ByteMap#scan}. */
    long scan(long cursor, int count, BiConsumer<byte[], byte[]> out) {
        return map.scan(cursor, count, (f, v) -> out.accept(f, valueOf(v)));
    }

    int slots() {
        return map.capacity();
    }

    int randomSlot(RandomGenerator rnd) {
        return map.randomSlot(rnd);
    }

    /** The field in slot {@code i}, or null for an empty slot. */
    byte[] fieldAt(int i) {
        return map.keyAt(i);
    }

    byte[] valueAt(int i) {
        return valueOf(map.valueAt(i));
    }

    long memoryBytes() {
        long m = map.memoryBytes();
        if (index != null) m += INDEX_SHALLOW + INDEX_NODE * index.size();
        return m;
    }

    HashDict copy() {
        HashDict c = new HashDict(map.copy(v -> v instanceof Volatile x
                ? new Volatile(x.field, x.value, x.expireAt) : v));
        if (index != null) {
            TreeSet<Volatile> idx = c.index();
            for (int i = 0; i < c.map.capacity(); i++) {
                if (c.map.keyAt(i) != null && c.map.valueAt(i) instanceof Volatile v) idx.add(v);
            }
        }
        return c;
    }
}
