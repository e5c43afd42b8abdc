package io.tide.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Confined to the shard thread that owns the sorted set. The compact encoding of a sorted set, Redis's
 * "listpack": every (member, score) pair in one byte array, ordered by score then member, each entry laid
 * out as {@code varint(memberLength) scoreHead member scoreRest}, in the first {@link #bytes()} bytes of the array.
 * The score takes 1 to 9 bytes (see {@link #writeScore}): small integers one, other integers their significant bytes,
 * any other double its bytes up to the last non-zero one (12.5, 0x4029000000000000, takes three). Its first byte sits
 * before the member, so an entry's length comes from two loads at known places, not from a chain of them.
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

    /** {@link CollectionValue#touch}. */
    int touch() {
        return CollectionValue.touchLines(buf);
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

    /** Where the member of the entry at {@code off} begins; its score's first byte is just before. */
    private static int memberStart(int off, int len) {
        return off + varintSize(len) + 1;
    }

    // ---------------------------------------------------------------- scores
    //
    // A score's first byte h (before the member) says how the rest (after it) is stored:
    //   h < 0x80          the integer h (0..127), nothing follows;
    //   h = 0x80 + n - 1  (n = 1..7) an integral score m, |m| <= 2^53, in the next n bytes (big-endian two's
    //                     complement);
    //   h = 0x90 + n      (n = 1..8) any other score: the first n bytes of its 8 (big-endian IEEE 754), the rest
    //                     being zero (12.5 is 0x4029000000000000: two bytes).
    // Each reads back as the same double with a few loads and shifts (no division, no parsing: a small set's scores
    // are read on every insert), in the fewest bytes of these forms.

    private static final long EXACT = 1L << 53;

    /** Bytes a score takes (see above). */
    static int scoreSize(double score) {
        if (isSmallIntegral(score)) {
            long m = (long) score;
            return m >= 0 && m < 0x80 ? 1 : 1 + signedBytes(m);
        }
        return 1 + leadingBytes(Double.doubleToRawLongBits(score));
    }

    private static boolean isSmallIntegral(double score) {
        return score == Math.rint(score) && Math.abs(score) <= EXACT;
    }

    /** Bytes of the shortest big-endian two's complement form of {@code m} (1..7 for |m| <= 2^53). */
    private static int signedBytes(long m) {
        int n = 1;
        while (m < -(1L << (8 * n - 1)) || m >= (1L << (8 * n - 1))) n++;
        return n;
    }

    /** Bytes of {@code bits} up to its last non-zero one (1..8; a non-zero double). */
    private static int leadingBytes(long bits) {
        return 8 - (Long.numberOfTrailingZeros(bits) >>> 3);
    }

    /**
     * Writes {@code score}: its first byte at {@code head}, the rest ({@link #scoreSize} - 1 bytes) from {@code rest}.
     */
    private static void writeScore(byte[] b, int head, int rest, double score) {
        if (isSmallIntegral(score)) {
            long m = (long) score;
            if (m >= 0 && m < 0x80) {
                b[head] = (byte) m;
                return;
            }
            int n = signedBytes(m);
            b[head] = (byte) (0x80 + n - 1);
            for (int i = n - 1; i >= 0; i--, m >>= 8) b[rest + i] = (byte) m;
            return;
        }
        long bits = Double.doubleToRawLongBits(score);
        int n = leadingBytes(bits);
        b[head] = (byte) (0x90 + n);
        for (int i = 0; i < n; i++) b[rest + i] = (byte) (bits >>> (56 - 8 * i));
    }

    /**
     * The score whose first byte is at {@code head} and the rest from {@code rest}: one 8-byte load whatever its
     * length, the bytes past the score cut off by a shift or a mask (the array keeps {@link #TAIL} bytes after the last
     * entry, so the load stays inside it).
     */
    private static double readScore(byte[] b, int head, int rest) {
        int h = b[head] & 0xFF;
        if (h < 0x80) return h;
        long w = (long) LONG_BE.get(b, rest);
        if (h < 0x90) return w >> (64 - 8 * (h - 0x7F)); // sign-extending
        return Double.longBitsToDouble(w & (-1L << (64 - 8 * (h - 0x90))));
    }

    /** Bytes the array keeps after the last entry: a score is read with one 8-byte load. */
    private static final int TAIL = 8;

    /** Bytes of a stored score by its first byte (a lookup: the forms of neighbouring scores vary). */
    private static final byte[] SCORE_SIZE = new byte[256];

    static {
        for (int h = 0; h < 256; h++) SCORE_SIZE[h] = (byte) (h < 0x80 ? 1 : h < 0x90 ? h - 0x7E : h - 0x8F);
    }

    /** Bytes of the score whose first byte is at {@code head}. */
    private static int storedScoreSize(byte[] b, int head) {
        return SCORE_SIZE[b[head] & 0xFF];
    }

    /** Offset of the entry after the one at {@code off}. */
    int next(int off) {
        int len = memberLength(off);
        int s = memberStart(off, len);
        return s + len + storedScoreSize(buf, s - 1) - 1;
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
        int s = memberStart(off, len);
        return readScore(buf, s - 1, s + len);
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

    private boolean memberEquals(int off, byte[] m, long mTail) {
        int len = memberLength(off);
        return len == m.length && MemberScan.equalsAt(buf, memberStart(off, len), m, mTail);
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
        long tail = MemberScan.tail(member, 0, member.length);
        int off = 0;
        for (int i = 0; i < count; i++) {
            if (memberEquals(off, member, tail)) return off;
            off = next(off);
        }
        return -1;
    }

    /** 0-based position of {@code member}, or -1. */
    int rankOf(byte[] member) {
        long tail = MemberScan.tail(member, 0, member.length);
        int off = 0;
        for (int i = 0; i < count; i++) {
            if (memberEquals(off, member, tail)) return i;
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
        long tail = MemberScan.tail(member, 0, mlen);
        int at = -1;
        int off = 0;
        for (int i = 0; i < count; i++) {
            int l = memberLength(off);
            int s = memberStart(off, l);
            if (l == mlen && MemberScan.equalsAt(b, s, member, tail)) return off;
            int nxt = s + l + storedScoreSize(b, s - 1) - 1;
            if (at < 0) {
                double sc = readScore(b, s - 1, s + l);
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
        if (len + extra + TAIL > buf.length) buf = Arrays.copyOf(buf, len + extra + TAIL);
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
        if (need + TAIL > b.length) {
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
        System.arraycopy(member, 0, b, p + 1, mlen);
        writeScore(b, p, p + 1 + mlen, score);
        len = need;
        count++;
    }

    /**
     * The capacity for {@code need} bytes: an eighth more, rounded up to a multiple of 8 (the array's
     * payload is padded to 8 anyway), so memory per entry stays within about 12% of the content.
     */
    private static int grow(int need) {
        long cap = need + Math.max(need >> 3, TAIL);
        cap = (cap + 7) & ~7L;
        return (int) Math.min(cap, Integer.MAX_VALUE - 8);
    }

    /** Drops the spare capacity (beyond the {@link #TAIL} and the array's padding to 8 bytes). */
    void trimToSize() {
        int cap = (len + TAIL + 7) & ~7;
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
