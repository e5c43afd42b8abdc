package io.tide.store;

import java.util.Arrays;

/**
 * Thread-safe (pure functions over arrays their callers own). The compact encoding of small hashes, Redis's
 * "listpack", and "listpackex" once fields may carry TTLs: one byte array of entries laid end to end, each
 * {@code [field length][field][value length][value]} and, in the TTL form, {@code [expireAt]} (unix ms,
 * 0 = no TTL); lengths and expiries are unsigned LEB128 varints, so an entry of short strings costs two
 * bytes over its payload (three with the TTL column).
 *
 * <p>Entries of the plain form stay in insertion order. The TTL form keeps them as Redis keeps its
 * listpackex: fields with a TTL first, by ascending expiry (a field placed at an expiry goes before those
 * already there with the same one), then fields without a TTL in the order they got there.
 *
 * <p>Every change returns a new array of exactly the needed size (as listpack reallocates); arrays are
 * never modified once returned, so a copy of a hash may share them.
 */
final class HashListpack {

    static final byte[] EMPTY = new byte[0];

    private HashListpack() {}

    // ---------------------------------------------------------------- varints

    static long readVarint(byte[] a, int p) {
        long v = 0;
        for (int shift = 0; ; shift += 7) {
            int b = a[p++];
            v |= (long) (b & 0x7F) << shift;
            if (b >= 0) return v;
        }
    }

    static int varintSize(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    private static int writeVarint(byte[] a, int p, long v) {
        while ((v & ~0x7FL) != 0) {
            a[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        a[p++] = (byte) v;
        return p;
    }

    // ---------------------------------------------------------------- reading entries

    /** Offset of the value length of the entry at {@code p}. */
    private static int valueOffset(byte[] lp, int p) {
        int flen = (int) readVarint(lp, p);
        return p + varintSize(flen) + flen;
    }

    /** Offset just past the value of the entry at {@code p} (its expiry in the TTL form). */
    private static int afterValue(byte[] lp, int p) {
        int vo = valueOffset(lp, p);
        int vlen = (int) readVarint(lp, vo);
        return vo + varintSize(vlen) + vlen;
    }

    /** Offset of the entry after the one at {@code p}; {@code lp.length} after the last. */
    static int next(byte[] lp, boolean ttl, int p) {
        int e = afterValue(lp, p);
        return ttl ? e + varintSize(readVarint(lp, e)) : e;
    }

    static byte[] field(byte[] lp, int p) {
        int flen = (int) readVarint(lp, p);
        int s = p + varintSize(flen);
        return Arrays.copyOfRange(lp, s, s + flen);
    }

    static byte[] value(byte[] lp, int p) {
        int vo = valueOffset(lp, p);
        int vlen = (int) readVarint(lp, vo);
        int s = vo + varintSize(vlen);
        return Arrays.copyOfRange(lp, s, s + vlen);
    }

    /** Length of the value of the entry at {@code p}, without copying it. */
    static int valueLength(byte[] lp, int p) {
        return (int) readVarint(lp, valueOffset(lp, p));
    }

    /** The expiry of the entry at {@code p} in the TTL form; 0 for none. */
    static long expireAt(byte[] lp, int p) {
        return readVarint(lp, afterValue(lp, p));
    }

    /** Offset of the entry holding {@code field}, or -1. */
    static int find(byte[] lp, boolean ttl, byte[] field) {
        int n = field.length;
        for (int p = 0; p < lp.length; p = next(lp, ttl, p)) {
            int flen = (int) readVarint(lp, p);
            if (flen == n) {
                int s = p + varintSize(flen);
                if (Arrays.equals(lp, s, s + n, field, 0, n)) return p;
            }
        }
        return -1;
    }

    // ---------------------------------------------------------------- changes

    private static int entrySize(byte[] field, byte[] value, boolean ttl, long expireAt) {
        return varintSize(field.length) + field.length + varintSize(value.length) + value.length
                + (ttl ? varintSize(expireAt) : 0);
    }

    /** A copy of {@code lp} with an entry inserted at offset {@code p} (an entry boundary or the end). */
    static byte[] insert(byte[] lp, int p, boolean ttl, byte[] field, byte[] value, long expireAt) {
        byte[] out = new byte[lp.length + entrySize(field, value, ttl, expireAt)];
        System.arraycopy(lp, 0, out, 0, p);
        int q = writeVarint(out, p, field.length);
        System.arraycopy(field, 0, out, q, field.length);
        q = writeVarint(out, q + field.length, value.length);
        System.arraycopy(value, 0, out, q, value.length);
        q += value.length;
        if (ttl) q = writeVarint(out, q, expireAt);
        System.arraycopy(lp, p, out, q, lp.length - p);
        return out;
    }

    /** A copy of {@code lp} without the bytes {@code [from, to)} (whole entries). */
    static byte[] cut(byte[] lp, int from, int to) {
        if (from == 0 && to == lp.length) return EMPTY;
        byte[] out = new byte[lp.length - (to - from)];
        System.arraycopy(lp, 0, out, 0, from);
        System.arraycopy(lp, to, out, from, lp.length - to);
        return out;
    }

    /** A copy of {@code lp} with the value of the entry at {@code p} replaced, its expiry and place kept. */
    static byte[] replaceValue(byte[] lp, int p, byte[] value) {
        int vo = valueOffset(lp, p);
        int end = afterValue(lp, p);
        int size = varintSize(value.length) + value.length;
        byte[] out = new byte[lp.length - (end - vo) + size];
        System.arraycopy(lp, 0, out, 0, vo);
        int q = writeVarint(out, vo, value.length);
        System.arraycopy(value, 0, out, q, value.length);
        System.arraycopy(lp, end, out, q + value.length, lp.length - end);
        return out;
    }

    /**
     * Where an entry with {@code expireAt} goes in the TTL form: before the first entry without a TTL or with
     * an expiry at or after it; at the end for an entry without a TTL.
     */
    static int placeFor(byte[] lp, long expireAt) {
        if (expireAt == 0) return lp.length;
        for (int p = 0; p < lp.length; p = next(lp, true, p)) {
            long e = expireAt(lp, p);
            if (e == 0 || e >= expireAt) return p;
        }
        return lp.length;
    }

    /** The plain form {@code lp} with an empty TTL column added (listpack to listpackex). */
    static byte[] withTtlColumn(byte[] lp, int entries) {
        byte[] out = new byte[lp.length + entries];
        int q = 0;
        for (int p = 0; p < lp.length; ) {
            int e = next(lp, false, p);
            System.arraycopy(lp, p, out, q, e - p);
            q += e - p;
            out[q++] = 0;
            p = e;
        }
        return out;
    }

    /**
     * End offset of the leading run of entries of the TTL form that expired by {@code nowMs} (expiry before
     * it), at most {@code max} of them; they are all at the front since entries are ordered by expiry.
     * {@code counted[0]} receives how many.
     */
    static int expiredPrefix(byte[] lp, long nowMs, int max, int[] counted) {
        int p = 0;
        int n = 0;
        while (p < lp.length && n < max) {
            long e = expireAt(lp, p);
            if (e == 0 || e >= nowMs) break;
            p = next(lp, true, p);
            n++;
        }
        counted[0] = n;
        return p;
    }
}
