package io.tide.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.random.RandomGenerator;

/**
 * Confined to the shard thread that owns the set it belongs to. Redis's "intset": distinct 64-bit integers
 * kept sorted in one packed little-endian byte array, each in the smallest width (2, 4 or 8 bytes) that holds
 * every member. Lookups are binary searches; an insert or removal moves the tail of the array (O(n)), and an
 * insert of a value wider than the current width rewrites the array at the new width. The width never
 * shrinks, as in Redis. The array is always exactly {@code size * width} bytes.
 */
public final class IntSet {

    /** Header plus fields of this object. */
    private static final long SHALLOW = 24;
    private static final byte[] EMPTY = new byte[0];

    private static final VarHandle SHORTS = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] data = EMPTY;
    private int width = 2;
    private int size;

    public int size() {
        return size;
    }

    /** Bytes per member: 2, 4 or 8 (Redis's INTSET_ENC_INT16/32/64). */
    public int width() {
        return width;
    }

    /** The {@code i}-th smallest member. */
    public long get(int i) {
        return read(data, width, i);
    }

    public long min() {
        return get(0);
    }

    public long max() {
        return get(size - 1);
    }

    public boolean contains(long v) {
        return widthOf(v) <= width && search(v) >= 0;
    }

    /** Adds {@code v}; false when it was already a member. */
    public boolean add(long v) {
        int w = widthOf(v);
        if (w > width) {
            upgradeAndAdd(v, w);
            return true;
        }
        int i = search(v);
        if (i >= 0) return false;
        int at = -i - 1;
        byte[] next = new byte[(size + 1) * width];
        System.arraycopy(data, 0, next, 0, at * width);
        System.arraycopy(data, at * width, next, (at + 1) * width, (size - at) * width);
        write(next, width, at, v);
        data = next;
        size++;
        return true;
    }

    /** Removes {@code v}; false when it was not a member. */
    public boolean remove(long v) {
        if (widthOf(v) > width) return false;
        int i = search(v);
        if (i < 0) return false;
        removeAt(i);
        return true;
    }

    /** Removes the {@code i}-th smallest member. */
    public void removeAt(int i) {
        byte[] next = size == 1 ? EMPTY : new byte[(size - 1) * width];
        System.arraycopy(data, 0, next, 0, i * width);
        System.arraycopy(data, (i + 1) * width, next, i * width, (size - i - 1) * width);
        data = next;
        size--;
    }

    /** A uniformly random member; the set must not be empty. */
    public long random(RandomGenerator rnd) {
        return get(rnd.nextInt(size));
    }

    /** Estimated heap bytes: this object and its array. */
    public long memoryBytes() {
        return SHALLOW + MemoryCost.bytes(data.length);
    }

    public IntSet copy() {
        IntSet c = new IntSet();
        c.data = data.length == 0 ? EMPTY : data.clone();
        c.width = width;
        c.size = size;
        return c;
    }

    /** Index of {@code v}, or {@code -(insertion point) - 1}. */
    private int search(long v) {
        int lo = 0;
        int hi = size - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long x = read(data, width, mid);
            if (x < v) lo = mid + 1;
            else if (x > v) hi = mid - 1;
            else return mid;
        }
        return -lo - 1;
    }

    /** {@code v} does not fit the current width, so it is smaller or larger than every member. */
    private void upgradeAndAdd(long v, int w) {
        byte[] next = new byte[(size + 1) * w];
        int shift = v < 0 ? 1 : 0;
        for (int i = 0; i < size; i++) write(next, w, i + shift, read(data, width, i));
        write(next, w, v < 0 ? 0 : size, v);
        data = next;
        width = w;
        size++;
    }

    private static int widthOf(long v) {
        if (v == (short) v) return 2;
        if (v == (int) v) return 4;
        return 8;
    }

    private static long read(byte[] a, int w, int i) {
        return switch (w) {
            case 2 -> (short) SHORTS.get(a, i * 2);
            case 4 -> (int) INTS.get(a, i * 4);
            default -> (long) LONGS.get(a, i * 8);
        };
    }

    private static void write(byte[] a, int w, int i, long v) {
        switch (w) {
            case 2 -> SHORTS.set(a, i * 2, (short) v);
            case 4 -> INTS.set(a, i * 4, (int) v);
            default -> LONGS.set(a, i * 8, v);
        }
    }

    // ---------------------------------------------------------------- integer members

    /**
     * Whether {@code s} is the canonical decimal form of a 64-bit integer, by Redis's string2ll rules (no sign
     * other than a leading '-', no leading zeros, no spaces, "-0" rejected): only such members can live in an
     * intset, since the member must read back byte for byte.
     */
    public static boolean isInteger(byte[] s) {
        int n = s.length;
        if (n == 0 || n > 20) return false;
        if (n == 1 && s[0] == '0') return true;
        int i = 0;
        if (s[0] == '-') {
            if (n == 1) return false;
            i = 1;
        }
        if (s[i] < '1' || s[i] > '9') return false;
        long acc = 0; // accumulate negatively to reach Long.MIN_VALUE
        for (; i < n; i++) {
            int d = s[i] - '0';
            if (d < 0 || d > 9) return false;
            if (acc < (Long.MIN_VALUE + d) / 10) return false;
            acc = acc * 10 - d;
        }
        return s[0] == '-' || acc != Long.MIN_VALUE;
    }

    /** The value of a member for which {@link #isInteger} holds. */
    public static long parse(byte[] s) {
        return parse(s, 0, s.length);
    }

    /** The value of the canonical integer text {@code s[off, off + len)} (as {@link #isInteger} accepts). */
    public static long parse(byte[] s, int off, int len) {
        boolean neg = s[off] == '-';
        long acc = 0; // accumulated negatively, to reach Long.MIN_VALUE
        for (int i = neg ? off + 1 : off; i < off + len; i++) acc = acc * 10 - (s[i] - '0');
        return neg ? acc : -acc;
    }

    /** The decimal bytes of {@code v}. */
    public static byte[] toBytes(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }

    /** Number of decimal characters of {@code v}, with its sign (Redis's sdigits10). */
    public static int digits(long v) {
        if (v == Long.MIN_VALUE) return 20;
        int n = v < 0 ? 2 : 1;
        for (long x = Math.abs(v); x >= 10; x /= 10) n++;
        return n;
    }
}
