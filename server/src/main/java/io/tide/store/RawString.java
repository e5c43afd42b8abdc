package io.tide.store;

import java.util.Arrays;

/**
 * Confined to the shard thread that owns the value. A string value that APPEND, SETRANGE, SETBIT or BITFIELD change
 * in place, as Redis changes its raw sds strings: {@code buf[0, length)} holds the string, and the bytes after it are
 * zero, room for it to grow.
 *
 * <p>Other string values are {@code byte[]} arrays that are never changed once stored (replies, COPY and the journal
 * may share them), so a write to one builds a whole new array: a SETBIT on a 12 MB bitmap copied 12 MB. The write
 * commands turn a string longer than {@link Database#INLINE_LIMIT} into this kind once (one copy) and from then on
 * change it where it lies. Its array never leaves it: {@link #bytes()} is a copy, and {@link #array()} is for a reader
 * that is done with it before its command returns (a reply written at once, a bit count).
 *
 * <p>Growth follows Redis's sdsMakeRoomFor: a string that must grow gets twice the length it needs, or 1 MB more than
 * that once it is 1 MB long, so a run of appends copies it a logarithmic number of times.
 */
public final class RawString implements Sized {

    /** Bytes of this object: header, array reference, length. */
    static final long OBJECT_BYTES = 16;
    /** Redis's SDS_MAX_PREALLOC: past it a string grows by this much at a time, not by doubling. */
    static final int MAX_PREALLOC = 1024 * 1024;
    /** Longest byte array the JVM allocates reliably. */
    static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

    private byte[] buf;
    private int length;

    /** A copy of {@code text[0, length)} with room for {@code spare} more bytes. */
    public RawString(byte[] text, int length, int spare) {
        this.buf = Arrays.copyOf(text, (int) Math.min((long) length + spare, MAX_ARRAY));
        this.length = length;
    }

    /** A copy of {@code text}, with no room to spare. */
    public static RawString copyOf(byte[] text) {
        return new RawString(text, text.length, 0);
    }

    /** The string {@code fresh}, kept as it is: an array the caller made and shares with nothing. */
    public static RawString adopt(byte[] fresh) {
        return new RawString(fresh);
    }

    private RawString(byte[] fresh) {
        this.buf = fresh;
        this.length = fresh.length;
    }

    public int length() {
        return length;
    }

    /** The array that holds the string in {@code [0, length())}; read it before the command returns, never keep it. */
    public byte[] array() {
        return buf;
    }

    /** The string, in an array of its own. */
    public byte[] bytes() {
        return Arrays.copyOf(buf, length);
    }

    /** An independent copy with the same room (COPY). */
    public RawString copy() {
        return new RawString(buf, length, buf.length - length);
    }

    /** Appends {@code add}; the caller has checked the length limit. */
    public void append(byte[] add) {
        int at = length;
        ensureLength((long) length + add.length);
        System.arraycopy(add, 0, buf, at, add.length);
    }

    /** Writes {@code value} at {@code offset}, growing the string with zero bytes first where it is shorter. */
    public void write(long offset, byte[] value) {
        ensureLength(Math.max(length, offset + value.length));
        System.arraycopy(value, 0, buf, (int) offset, value.length);
    }

    /** Makes the string at least {@code n} bytes long, the new bytes zero. */
    public void ensureLength(long n) {
        if (n <= length) return;
        if (n > MAX_ARRAY) throw new IllegalArgumentException("string too long: " + n);
        if (n > buf.length) {
            long room = n < MAX_PREALLOC ? 2 * n : n + MAX_PREALLOC;
            buf = Arrays.copyOf(buf, (int) Math.min(room, MAX_ARRAY));
        }
        length = (int) n; // the bytes past the old length are zero: growth and shrinking never leave others
    }

    @Override
    public long memoryBytes() {
        return OBJECT_BYTES + MemoryCost.bytes(buf.length);
    }
}
