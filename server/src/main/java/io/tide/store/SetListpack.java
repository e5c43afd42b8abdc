package io.tide.store;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * Confined to the shard thread that owns the set it belongs to. The compact form of a small set of byte
 * strings (Redis's "listpack" for sets): the members in insertion order, packed into one byte array as
 * {@code [length as a 7-bit varint][bytes]} entries. Lookups scan the entries (sets stay in this form only
 * up to {@code set-max-listpack-entries} members of at most {@code set-max-listpack-value} bytes). The entries
 * fill the first {@link #used} bytes of the array; appends and removals work in place, the array growing by a
 * quarter when full and trimmed when more than half of it is unused, as a hash's listpack ({@link CompactArrays}).
 */
public final class SetListpack {

    /** Header plus fields of this object. */
    private static final long SHALLOW = 24;
    private static final byte[] EMPTY = new byte[0];

    private byte[] buf = EMPTY;
    /** Bytes of {@link #buf} the entries fill. */
    private int used;
    private int size;

    /** {@link CollectionValue#touch}. */
    int touch() {
        return CollectionValue.touchLines(buf);
    }

    public int size() {
        return size;
    }

    public boolean contains(byte[] member) {
        return find(member) >= 0;
    }

    /** Appends {@code member}, which the caller knows is absent. */
    public void append(byte[] member) {
        int len = member.length;
        int need = used + varintSize(len) + len;
        buf = CompactArrays.ensure(buf, need);
        int p = writeVarint(buf, used, len);
        System.arraycopy(member, 0, buf, p, len);
        used = need;
        size++;
    }

    /** Removes {@code member}; false when it was not present. Keeps the order of the others. */
    public boolean remove(byte[] member) {
        int at = find(member);
        if (at < 0) return false;
        cut(at, entryEnd(at));
        return true;
    }

    /** The {@code index}-th member in order. */
    public byte[] get(int index) {
        int p = 0;
        for (int i = 0; i < index; i++) p = entryEnd(p);
        return entryAt(p);
    }

    /** Removes and returns the {@code index}-th member. */
    public byte[] removeAt(int index) {
        int p = 0;
        for (int i = 0; i < index; i++) p = entryEnd(p);
        byte[] m = entryAt(p);
        cut(p, entryEnd(p));
        return m;
    }

    /** Every member in order. */
    public void forEach(Consumer<byte[]> action) {
        for (int p = 0; p < used; p = entryEnd(p)) action.accept(entryAt(p));
    }

    /** The members in order. */
    public byte[][] toArray() {
        byte[][] out = new byte[size][];
        int i = 0;
        for (int p = 0; p < used; p = entryEnd(p)) out[i++] = entryAt(p);
        return out;
    }

    /**
     * Picks {@code count} distinct members uniformly at random (selection sampling, so they come out in list
     * order, as Redis's lpNextRandom walk); when {@code remove} is set they are also deleted in one pass.
     */
    public byte[][] sample(int count, boolean remove, RandomGenerator rnd) {
        byte[][] out = new byte[count][];
        byte[] next = remove ? new byte[used] : null;
        int kept = 0;
        int picked = 0;
        int left = size;
        for (int p = 0; p < used; left--) {
            int end = entryEnd(p);
            if (picked < count && rnd.nextInt(left) < count - picked) {
                out[picked++] = entryAt(p);
            } else if (remove) {
                System.arraycopy(buf, p, next, kept, end - p);
                kept += end - p;
            }
            p = end;
        }
        if (remove) {
            buf = kept == 0 ? EMPTY : Arrays.copyOf(next, kept);
            used = kept;
            size -= count;
        }
        return out;
    }

    /** Whether every member is an integer an intset can hold ({@link IntSet#isInteger}). */
    public boolean allIntegers() {
        for (int p = 0; p < used; p = entryEnd(p)) {
            int len = readVarint(p);
            int start = p + varintSize(len);
            if (!IntSet.isInteger(Arrays.copyOfRange(buf, start, start + len))) return false;
        }
        return true;
    }

    /** Estimated heap bytes: this object and its array. */
    public long memoryBytes() {
        return SHALLOW + MemoryCost.bytes(buf.length);
    }

    public SetListpack copy() {
        SetListpack c = new SetListpack();
        c.buf = used == 0 ? EMPTY : Arrays.copyOf(buf, used);
        c.used = used;
        c.size = size;
        return c;
    }

    // ---------------------------------------------------------------- entries

    /** Offset of the entry equal to {@code member}, or -1. */
    private int find(byte[] member) {
        int n = member.length;
        long tail = MemberScan.tail(member, 0, n);
        byte[] b = buf;
        for (int p = 0, end = used; p < end; ) {
            int len = b[p];
            int start = p + 1;
            if (len < 0) {
                len = readVarint(p);
                start = p + varintSize(len);
            }
            if (len == n && MemberScan.equalsAt(b, start, member, tail)) return p;
            p = start + len;
        }
        return -1;
    }

    /** Removes the entry in {@code [from, to)} in place; trims the array when more than half of it is unused. */
    private void cut(int from, int to) {
        System.arraycopy(buf, to, buf, from, used - to);
        used -= to - from;
        size--;
        buf = used == 0 ? EMPTY : CompactArrays.trim(buf, used);
    }

    private byte[] entryAt(int p) {
        int len = readVarint(p);
        int start = p + varintSize(len);
        return Arrays.copyOfRange(buf, start, start + len);
    }

    private int entryEnd(int p) {
        int len = readVarint(p);
        return p + varintSize(len) + len;
    }

    private int readVarint(int p) {
        int v = 0;
        int shift = 0;
        while (true) {
            int b = buf[p++];
            v |= (b & 0x7f) << shift;
            if (b >= 0) return v;
            shift += 7;
        }
    }

    private static int varintSize(int v) {
        int n = 1;
        while ((v >>>= 7) != 0) n++;
        return n;
    }

    private static int writeVarint(byte[] a, int p, int v) {
        while ((v & ~0x7f) != 0) {
            a[p++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        a[p++] = (byte) v;
        return p;
    }
}
