package io.tide.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Confined to the shard thread that owns the sorted set. The compact encoding of a sorted set, Redis's
 * "listpack": every (member, score) pair in one byte array, ordered by score then member, each entry laid
 * out as {@code varint(memberLength) member score}, in the first {@link #bytes()} bytes of the array. The score takes
 * 1 to 9 bytes (see {@link #writeScore}): small integers one, other integers and short decimals such as 12.5 the
 * bytes of their integer part, any other double a marker and its 8 bytes.
 * The array keeps a little spare capacity (at most about an eighth of the content, see {@link #grow}) so
 * that an insert or delete shifts the tail in place instead of reallocating on every change; {@link
 * #trimToSize} drops the spare, and {@link #memoryBytes} always counts the whole array. Lookups, inserts and
 * deletes are linear, which is what Redis accepts for sets of at most {@code zset-max-listpack-entries}
 * short members.
 *
 * <p>A score is stored as Redis stores it in a listpack: an integral score as an integer, so negative zero
 * reads back as zero; any other double round-trips exactly.
 */
final class ZSetListpack {

    private static final byte[] EMPTY = new byte[0];
    /** Object header plus fields. */
    static final long SHALLOW = 24;

    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private byte[] buf = EMPTY;
    /** Bytes in use at the start of {@link #buf}. */
    private int len;
    private int count;

    int size() {
        return count;
    }

    /** Bytes of the entries (the listpack's length, without Redis's header). */
    int bytes() {
        return len;
    }

    long memoryBytes() {
        return SHALLOW + MemoryCost.bytes(buf.length);
    }

    ZSetListpack copy() {
        ZSetListpack c = new ZSetListpack();
        c.buf = buf.length == 0 ? EMPTY : buf.clone();
        c.len = len;
        c.count = count;
        return c;
    }

    // ---------------------------------------------------------------- entry layout

    private static int varintSize(int v) {
        int n = 1;
        while ((v >>>= 7) != 0) n++;
        return n;
    }

    private int memberLength(int off) {
        int b0 = buf[off];
        if (b0 >= 0) return b0;
        int v = 0;
        int shift = 0;
        while (true) {
            int b = buf[off++];
            v |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) return v;
            shift += 7;
        }
    }

    private static int memberStart(int off, int len) {
        return off + varintSize(len);
    }

    // ---------------------------------------------------------------- scores
    //
    // A score's first byte h says how it is stored:
    //   h < 0x80   the integer h (0..127), nothing follows;
    //   h = 0xFF   any double: its 8 bytes follow (big-endian IEEE 754);
    //   otherwise  h = 0x80 | (n - 1) << 4 | k: an integer m in the next n bytes (big-endian two's complement,
    //              |m| <= 2^53) and the score is m / 10^k (k = 0..14): exactly the double the decimal m * 10^-k
    //              reads as, since m and 10^k are both exact doubles and a division is correctly rounded.
    // A score is written in the shortest of these that reads back as the same double.

    private static final int RAW_SCORE = 0xFF;
    private static final int MAX_SCALE = 14;
    private static final long EXACT = 1L << 53;
    private static final double[] POW10 = new double[MAX_SCALE + 1];

    static {
        double p = 1;
        for (int k = 0; k <= MAX_SCALE; k++, p *= 10) POW10[k] = p;
    }

    /** Bytes a score takes (see above). */
    static int scoreSize(double score) {
        long h = scoreHeader(score);
        return h < 0 ? 9 : h < 0x80 ? 1 : 1 + (int) ((h >>> 4) & 7) + 1;
    }

    /** The first byte of {@code score}'s form (see above), or -1 when it is stored raw. */
    private static long scoreHeader(double score) {
        int k = scaleOf(score);
        if (k < 0) return -1;
        long m = scaled(score, k);
        if (k == 0 && m >= 0 && m < 0x80) return m;
        return 0x80 | (long) (signedBytes(m) - 1) << 4 | k;
    }

    /** The smallest k with score = m / 10^k for an integer |m| <= 2^53, or -1. */
    private static int scaleOf(double score) {
        if (score == Math.rint(score) && Math.abs(score) <= EXACT) return 0;
        if (Double.isInfinite(score)) return -1;
        for (int k = 1; k <= MAX_SCALE; k++) {
            double m = Math.rint(score * POW10[k]);
            if (Math.abs(m) > EXACT) return -1;
            if (m / POW10[k] == score) return k;
        }
        return -1;
    }

    private static long scaled(double score, int k) {
        return (long) Math.rint(score * POW10[k]);
    }

    /** Bytes of the shortest big-endian two's complement form of {@code m} (1..7 for |m| <= 2^53). */
    private static int signedBytes(long m) {
        int n = 1;
        while (m < -(1L << (8 * n - 1)) || m >= (1L << (8 * n - 1))) n++;
        return n;
    }

    /** Writes {@code score} at {@code p} in {@link #scoreSize} bytes; returns the end. */
    private static int writeScore(byte[] b, int p, double score) {
        long h = scoreHeader(score);
        if (h < 0) {
            b[p] = (byte) RAW_SCORE;
            LONG_BE.set(b, p + 1, Double.doubleToRawLongBits(score));
            return p + 9;
        }
        b[p] = (byte) h;
        if (h < 0x80) return p + 1;
        int n = (int) ((h >>> 4) & 7) + 1;
        long m = scaled(score, (int) (h & 15));
        for (int i = n; i >= 1; i--) {
            b[p + i] = (byte) m;
            m >>= 8;
        }
        return p + 1 + n;
    }

    /** The score stored at {@code p}. */
    private static double readScore(byte[] b, int p) {
        int h = b[p] & 0xFF;
        if (h < 0x80) return h;
        if (h == RAW_SCORE) return Double.longBitsToDouble((long) LONG_BE.get(b, p + 1));
        int n = ((h >>> 4) & 7) + 1;
        long m = b[p + 1]; // sign-extended
        for (int i = 2; i <= n; i++) m = m << 8 | (b[p + i] & 0xFF);
        int k = h & 15;
        return k == 0 ? m : m / POW10[k];
    }

    /** Bytes of the score stored at {@code p}. */
    private static int storedScoreSize(byte[] b, int p) {
        int h = b[p] & 0xFF;
        return h < 0x80 ? 1 : h == RAW_SCORE ? 9 : ((h >>> 4) & 7) + 2;
    }

    /** Offset of the entry after the one at {@code off}. */
    int next(int off) {
        int len = memberLength(off);
        int p = memberStart(off, len) + len;
        return p + storedScoreSize(buf, p);
    }

    /** The first entry's offset, or -1 when empty. */
    int first() {
        return count == 0 ? -1 : 0;
    }

    /** End of the entries: {@link #next} returns this after the last one. */
    int end() {
        return len;
    }

    byte[] member(int off) {
        int len = memberLength(off);
        int s = memberStart(off, len);
        return Arrays.copyOfRange(buf, s, s + len);
    }

    double score(int off) {
        int len = memberLength(off);
        return readScore(buf, memberStart(off, len) + len);
    }

    int memberLengthAt(int off) {
        return memberLength(off);
    }

    /** Unsigned lexicographic comparison of the member at {@code off} with {@code m} (sdscmp). */
    int compareMember(int off, byte[] m) {
        int len = memberLength(off);
        int s = memberStart(off, len);
        return Arrays.compareUnsigned(buf, s, s + len, m, 0, m.length);
    }

    private boolean memberEquals(int off, byte[] m) {
        int len = memberLength(off);
        if (len != m.length) return false;
        int s = memberStart(off, len);
        return Arrays.equals(buf, s, s + len, m, 0, len);
    }

    /** Offsets of all entries, in order (for walking backwards). */
    int[] offsets() {
        int[] out = new int[count];
        int off = 0;
        for (int i = 0; i < count; i++) {
            out[i] = off;
            off = next(off);
        }
        return out;
    }

    /** Offset of the entry at 0-based {@code rank}. */
    int offsetOfRank(int rank) {
        int off = 0;
        for (int i = 0; i < rank; i++) off = next(off);
        return off;
    }

    // ---------------------------------------------------------------- operations

    /** Offset of {@code member}'s entry, or -1. */
    int find(byte[] member) {
        int off = 0;
        for (int i = 0; i < count; i++) {
            if (memberEquals(off, member)) return off;
            off = next(off);
        }
        return -1;
    }

    /** 0-based position of {@code member}, or -1. */
    int rankOf(byte[] member) {
        int off = 0;
        for (int i = 0; i < count; i++) {
            if (memberEquals(off, member)) return i;
            off = next(off);
        }
        return -1;
    }

    /**
     * One pass for ZADD: the offset of {@code member}'s entry when present, else {@code -(at + 1)} where
     * {@code at} is the offset {@link #insert} would insert it at with {@code score}.
     */
    int findOrInsertionPoint(byte[] member, double score) {
        byte[] b = buf;
        int mlen = member.length;
        int at = -1;
        int off = 0;
        for (int i = 0; i < count; i++) {
            int l = memberLength(off);
            int s = memberStart(off, l);
            if (l == mlen && Arrays.equals(b, s, s + l, member, 0, l)) return off;
            int nxt = s + l + storedScoreSize(b, s + l);
            if (at < 0) {
                double sc = readScore(b, s + l);
                if (sc > score || (sc == score && Arrays.compareUnsigned(b, s, s + l, member, 0, mlen) > 0)) {
                    at = off;
                }
            }
            off = nxt;
        }
        return -((at < 0 ? off : at) + 1);
    }

    /** Inserts a member known to be absent at its place in (score, member) order. */
    void insert(byte[] member, double score) {
        int off = 0;
        for (int i = 0; i < count; i++) {
            double s = score(off);
            if (s > score || (s == score && compareMember(off, member) > 0)) break;
            off = next(off);
        }
        insertAt(off, member, score);
    }

    /** Appends an entry that sorts after every other (building from sorted input). */
    void append(byte[] member, double score) {
        insertAt(len, member, score);
    }

    /** Room for {@code extra} more bytes, as when building from sorted input of known size. */
    void reserve(int extra) {
        if (len + extra > buf.length) buf = Arrays.copyOf(buf, len + extra);
    }

    /** Bytes an entry for a member of {@code memberLength} bytes and {@code score} takes. */
    static int entrySize(int memberLength, double score) {
        return varintSize(memberLength) + memberLength + scoreSize(score);
    }

    /** The most bytes an entry for a member of {@code memberLength} bytes takes, whatever its score. */
    static int maxEntrySize(int memberLength) {
        return varintSize(memberLength) + memberLength + 9;
    }

    /** Inserts an entry at {@code at}, an offset {@link #findOrInsertionPoint} returned (decoded). */
    void insertAt(int at, byte[] member, double score) {
        if (score == 0) score = 0.0; // a listpack stores integral scores as integers: -0 becomes 0
        int mlen = member.length;
        int entry = entrySize(mlen, score);
        int need = len + entry;
        byte[] b = buf;
        if (need > b.length) {
            byte[] nb = new byte[grow(need)];
            System.arraycopy(b, 0, nb, 0, at);
            System.arraycopy(b, at, nb, at + entry, len - at);
            b = nb;
            buf = nb;
        } else {
            System.arraycopy(b, at, b, at + entry, len - at);
        }
        int p = at;
        int v = mlen;
        while ((v & ~0x7f) != 0) {
            b[p++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        System.arraycopy(member, 0, b, p, mlen);
        writeScore(b, p + mlen, score);
        len = need;
        count++;
    }

    /**
     * The capacity for {@code need} bytes: an eighth more, rounded up to a multiple of 8 (the array's
     * payload is padded to 8 anyway), so memory per entry stays within about 12% of the content.
     */
    private static int grow(int need) {
        long cap = need + (need >> 3);
        cap = (cap + 7) & ~7L;
        return (int) Math.min(cap, Integer.MAX_VALUE - 8);
    }

    /** Drops the spare capacity (beyond the array's padding to 8 bytes). */
    void trimToSize() {
        int cap = (len + 7) & ~7;
        if (buf.length > cap) buf = len == 0 ? EMPTY : Arrays.copyOf(buf, cap);
    }

    /** Deletes the entry at {@code off}. */
    void deleteAt(int off) {
        deleteRange(off, next(off), 1);
    }

    /** Deletes {@code entries} entries occupying bytes [from, to). */
    void deleteRange(int from, int to, int entries) {
        if (entries == count) {
            buf = EMPTY;
            len = 0;
            count = 0;
            return;
        }
        int nlen = len - (to - from);
        if (buf.length - nlen > (nlen >> 2) + 16) {
            // Too much spare: reallocate with the usual slack.
            byte[] nb = new byte[grow(nlen)];
            System.arraycopy(buf, 0, nb, 0, from);
            System.arraycopy(buf, to, nb, from, len - to);
            buf = nb;
        } else {
            System.arraycopy(buf, to, buf, from, len - to);
        }
        len = nlen;
        count -= entries;
    }

    /** Deletes the entries of 0-based ranks [start, end]. */
    void deleteRanks(int start, int end) {
        int from = offsetOfRank(start);
        int to = from;
        for (int i = start; i <= end; i++) to = next(to);
        deleteRange(from, to, end - start + 1);
    }
}
