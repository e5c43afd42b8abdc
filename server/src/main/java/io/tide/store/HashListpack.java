package io.tide.store;

import static io.tide.store.Varints.readUVarint;
import static io.tide.store.Varints.uvarintLength;
import static io.tide.store.Varints.writeUVarint;

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
 * <p>The entries fill the first {@code len} bytes of a buffer that may be longer: {@link HashValue} owns the
 * buffer, grows it with spare room and edits it in place (as listpack reallocs in place); the functions here
 * read entries and write them into room the caller made.
 */
final class HashListpack {

    static final byte[] EMPTY = new byte[0];

    private HashListpack() {}

    // ---------------------------------------------------------------- reading entries

    /** Offset of the value length of the entry at {@code p}. */
    private static int valueOffset(byte[] lp, int p) {
        int flen = (int) readUVarint(lp, p);
        return p + uvarintLength(flen) + flen;
    }

    /** Offset just past the value of the entry at {@code p} (its expiry in the TTL form). */
    private static int afterValue(byte[] lp, int p) {
        int vo = valueOffset(lp, p);
        int vlen = (int) readUVarint(lp, vo);
        return vo + uvarintLength(vlen) + vlen;
    }

    /** Offset of the entry after the one at {@code p}; the used length after the last. */
    static int next(byte[] lp, boolean ttl, int p) {
        int e = afterValue(lp, p);
        return ttl ? e + uvarintLength(readUVarint(lp, e)) : e;
    }

    static byte[] field(byte[] lp, int p) {
        int flen = (int) readUVarint(lp, p);
        int s = p + uvarintLength(flen);
        return Arrays.copyOfRange(lp, s, s + flen);
    }

    static byte[] value(byte[] lp, int p) {
        int vo = valueOffset(lp, p);
        int vlen = (int) readUVarint(lp, vo);
        int s = vo + uvarintLength(vlen);
        return Arrays.copyOfRange(lp, s, s + vlen);
    }

    /** Offset of the bytes of the value of the entry at {@code p} (its length is {@link #valueLength}). */
    static int valueBytesOffset(byte[] lp, int p) {
        int vo = valueOffset(lp, p);
        return vo + uvarintLength((int) readUVarint(lp, vo));
    }

    /** Length of the value of the entry at {@code p}, without copying it. */
    static int valueLength(byte[] lp, int p) {
        return (int) readUVarint(lp, valueOffset(lp, p));
    }

    /** The expiry of the entry at {@code p} in the TTL form; 0 for none. */
    static long expireAt(byte[] lp, int p) {
        return readUVarint(lp, afterValue(lp, p));
    }

    /** Offset of the entry holding {@code field} among the first {@code len} bytes, or -1. */
    static int find(byte[] lp, int len, boolean ttl, byte[] field) {
        int n = field.length;
        long tail = MemberScan.tail(field, 0, n);
        int p = 0;
        while (p < len) {
            int start = p;
            int flen = lp[p];
            if (flen >= 0) {
                p++;
            } else {
                flen = (int) readUVarint(lp, p);
                p += uvarintLength(flen);
            }
            // Fields of a hash often share a prefix and a length: the last bytes tell most of them apart.
            if (flen == n && MemberScan.equalsAt(lp, p, field, tail)) {
                return start;
            }
            p += flen;
            int vlen = lp[p];
            if (vlen >= 0) {
                p += 1 + vlen;
            } else {
                vlen = (int) readUVarint(lp, p);
                p += uvarintLength(vlen) + vlen;
            }
            if (ttl) {
                while (lp[p++] < 0) {
                    // the expiry's varint continues
                }
            }
        }
        return -1;
    }

    // ---------------------------------------------------------------- changes, in place

    static int entrySize(byte[] field, byte[] value, boolean ttl, long expireAt) {
        return uvarintLength(field.length) + field.length + uvarintLength(value.length) + value.length
                + (ttl ? uvarintLength(expireAt) : 0);
    }

    /** Writes an entry at {@code p}, where the caller made {@link #entrySize} bytes of room. */
    static void writeEntry(byte[] lp, int p, boolean ttl, byte[] field, byte[] value, long expireAt) {
        int q = writeUVarint(lp, p, field.length);
        System.arraycopy(field, 0, lp, q, field.length);
        q = writeUVarint(lp, q + field.length, value.length);
        System.arraycopy(value, 0, lp, q, value.length);
        q += value.length;
        if (ttl) writeUVarint(lp, q, expireAt);
    }

    /** Offset of the value length of the entry at {@code p} (where {@link #replaceValue} starts). */
    static int valueStart(byte[] lp, int p) {
        return valueOffset(lp, p);
    }

    /** Offset just past the value of the entry at {@code p}. */
    static int valueEnd(byte[] lp, int p) {
        return afterValue(lp, p);
    }

    /** Writes {@code value} with its length at {@code vo}, where the caller made room for it. */
    static void writeValue(byte[] lp, int vo, byte[] value) {
        int q = writeUVarint(lp, vo, value.length);
        System.arraycopy(value, 0, lp, q, value.length);
    }

    static int valueSize(byte[] value) {
        return uvarintLength(value.length) + value.length;
    }

    /**
     * Where an entry with {@code expireAt} goes in the TTL form: before the first entry without a TTL or with
     * an expiry at or after it; at the end ({@code len}) for an entry without a TTL.
     */
    static int placeFor(byte[] lp, int len, long expireAt) {
        if (expireAt == 0) return len;
        for (int p = 0; p < len; p = next(lp, true, p)) {
            long e = expireAt(lp, p);
            if (e == 0 || e >= expireAt) return p;
        }
        return len;
    }

    /** The plain form's first {@code len} bytes with an empty TTL column added (listpack to listpackex). */
    static byte[] withTtlColumn(byte[] lp, int len, int entries) {
        if (len == 0) return EMPTY;
        byte[] out = new byte[len + entries];
        int q = 0;
        for (int p = 0; p < len; ) {
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
    static int expiredPrefix(byte[] lp, int len, long nowMs, int max, int[] counted) {
        int p = 0;
        int n = 0;
        while (p < len && n < max) {
            long e = expireAt(lp, p);
            if (e == 0 || e >= nowMs) break;
            p = next(lp, true, p);
            n++;
        }
        counted[0] = n;
        return p;
    }
}
