package io.tide.store;

import java.util.Arrays;

/**
 * Confined to the shard thread that owns the sorted set. The compact encoding of a sorted set, Redis's
 * "listpack": every (member, score) pair in one byte array, ordered by score then member, each entry laid
 * out as {@code varint(memberLength) member score(8 bytes)}. The array is always exactly as long as its
 * content (as a listpack is reallocated on every change), so lookups, inserts and deletes are linear, which
 * is what Redis accepts for sets of at most {@code zset-max-listpack-entries} short members.
 *
 * <p>A score is stored as Redis stores it in a listpack: an integral score as an integer, so negative zero
 * reads back as zero; any other double round-trips exactly.
 */
final class ZSetListpack {

    private static final byte[] EMPTY = new byte[0];
    /** Object header plus fields. */
    static final long SHALLOW = 24;

    private byte[] buf = EMPTY;
    private int count;

    int size() {
        return count;
    }

    /** Bytes of the entries (the listpack's length, without Redis's header). */
    int bytes() {
        return buf.length;
    }

    long memoryBytes() {
        return SHALLOW + MemoryCost.bytes(buf.length);
    }

    ZSetListpack copy() {
        ZSetListpack c = new ZSetListpack();
        c.buf = buf.length == 0 ? EMPTY : buf.clone();
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
        int v = 0;
        int shift = 0;
        while (true) {
            int b = buf[off++];
            v |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) return v;
            shift += 7;
        }
    }

    private int memberStart(int off, int len) {
        return off + varintSize(len);
    }

    /** Offset of the entry after the one at {@code off}. */
    int next(int off) {
        int len = memberLength(off);
        return memberStart(off, len) + len + 8;
    }

    /** The first entry's offset, or -1 when empty. */
    int first() {
        return count == 0 ? -1 : 0;
    }

    /** End of the entries: {@link #next} returns this after the last one. */
    int end() {
        return buf.length;
    }

    byte[] member(int off) {
        int len = memberLength(off);
        int s = memberStart(off, len);
        return Arrays.copyOfRange(buf, s, s + len);
    }

    double score(int off) {
        int len = memberLength(off);
        int p = memberStart(off, len) + len;
        long bits = 0;
        for (int i = 0; i < 8; i++) bits = (bits << 8) | (buf[p + i] & 0xff);
        return Double.longBitsToDouble(bits);
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
        insertAt(buf.length, member, score);
    }

    private void insertAt(int at, byte[] member, double score) {
        if (score == 0) score = 0.0; // a listpack stores integral scores as integers: -0 becomes 0
        int len = member.length;
        int entry = varintSize(len) + len + 8;
        byte[] nb = new byte[buf.length + entry];
        System.arraycopy(buf, 0, nb, 0, at);
        System.arraycopy(buf, at, nb, at + entry, buf.length - at);
        int p = at;
        int v = len;
        while ((v & ~0x7f) != 0) {
            nb[p++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        nb[p++] = (byte) v;
        System.arraycopy(member, 0, nb, p, len);
        p += len;
        long bits = Double.doubleToRawLongBits(score);
        for (int i = 7; i >= 0; i--) {
            nb[p + i] = (byte) bits;
            bits >>>= 8;
        }
        buf = nb;
        count++;
    }

    /** Deletes the entry at {@code off}. */
    void deleteAt(int off) {
        deleteRange(off, next(off), 1);
    }

    /** Deletes {@code entries} entries occupying bytes [from, to). */
    void deleteRange(int from, int to, int entries) {
        if (entries == count) {
            buf = EMPTY;
            count = 0;
            return;
        }
        byte[] nb = new byte[buf.length - (to - from)];
        System.arraycopy(buf, 0, nb, 0, from);
        System.arraycopy(buf, to, nb, from, buf.length - to);
        buf = nb;
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
