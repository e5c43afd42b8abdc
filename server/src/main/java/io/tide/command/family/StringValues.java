package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.Errors;
import io.tide.store.Database;
import io.tide.store.IntSet;
import io.tide.store.RawString;
import io.tide.store.SharedIntegers;

/**
 * Thread-safe (pure functions). How a string value lives in the keyspace: a {@code byte[]}, a {@link Long} when its
 * text is a canonical 64-bit integer (Redis's "int" encoding), shared for small values through {@link SharedIntegers},
 * or a {@link RawString} that the bit and range writes change in place. Stored {@code byte[]} arrays are never
 * mutated: replies, snapshots and COPY share them; a {@code RawString}'s array never leaves it except through
 * {@link #array}, for a reader done with it before its command returns.
 */
public final class StringValues {

    private StringValues() {}

    /** True if {@code v} is a string value (either representation). */
    public static boolean isString(Object v) {
        return v instanceof byte[] || v instanceof Long || v instanceof RawString;
    }

    /** The bytes of a string value; {@code WRONGTYPE} for any other value; {@code v} must not be null. */
    public static byte[] bytes(Object v) {
        if (v instanceof byte[] b) return b;
        if (v instanceof Long l) return Args.bytes(l);
        if (v instanceof RawString r) return r.bytes();
        throw Errors.wrongType();
    }

    /**
     * An array whose first {@link #length} bytes are the string value {@code v}, without a copy where it can: for a
     * reader that is done with it before its command returns (never for a reply or anything kept). WRONGTYPE for other
     * values; {@code v} must not be null.
     */
    public static byte[] array(Object v) {
        if (v instanceof RawString r) return r.array();
        return bytes(v);
    }

    /** Like {@link #bytes(Object)} but null for a missing key (null). */
    public static byte[] bytesOrNull(Object v) {
        return v == null ? null : bytes(v);
    }

    /** Throws {@code WRONGTYPE} unless {@code v} is null or a string value. */
    public static void requireStringOrNull(Object v) {
        if (v != null && !isString(v)) throw Errors.wrongType();
    }

    /** The length in bytes of a string value (without building the text of an integer). */
    public static long length(Object v) {
        if (v instanceof byte[] b) return b.length;
        if (v instanceof Long l) return digits(l);
        if (v instanceof RawString r) return r.length();
        throw Errors.wrongType();
    }

    /**
     * Stores the string {@code value} under {@code key} as the keyspace keeps it (Redis's tryObjectEncoding): an integer
     * when its text is a canonical 64-bit integer (unboxed, decision 0029), else the bytes.
     */
    public static void put(Database db, byte[] key, byte[] value, long expireAtMs, long nowMs) {
        if (IntSet.isInteger(value)) {
            db.putInteger(key, IntSet.parse(value), expireAtMs, nowMs);
        } else {
            db.put(key, value, expireAtMs, nowMs);
        }
    }

    /**
     * Stores the result of a bit or range write (SETBIT, BITFIELD, SETRANGE), built in an array of the command's own:
     * raw, as Redis leaves such a result, and, once longer than {@link Database#INLINE_LIMIT}, as a {@link RawString}
     * that the next write changes in place (the array becomes the string's, without a copy).
     */
    public static void putWritten(Database db, byte[] key, byte[] built, long expireAtMs, long nowMs) {
        if (built.length > Database.INLINE_LIMIT) db.put(key, RawString.adopt(built), expireAtMs, nowMs);
        else db.putRaw(key, built, expireAtMs, nowMs);
    }

    /** The integer a string value holds, or null if its text is not a canonical 64-bit integer. */
    public static Long longOrNull(Object v) {
        if (v instanceof Long l) return l;
        if (v instanceof byte[] b) return Args.parseLongOrNull(b);
        if (v instanceof RawString r) return Args.parseLongOrNull(r.bytes());
        throw Errors.wrongType();
    }

    /** Number of characters in the decimal text of {@code v}. */
    static int digits(long v) {
        if (v == Long.MIN_VALUE) return 20;
        int n = 1;
        if (v < 0) {
            n++;
            v = -v;
        }
        while (v >= 10) {
            v /= 10;
            n++;
        }
        return n;
    }
}
