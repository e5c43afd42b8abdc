package io.tide.store;

import java.nio.charset.StandardCharsets;

/**
 * Immutable, so thread-safe. A stream entry ID: milliseconds and sequence number, both unsigned 64-bit
 * numbers kept in {@code long}s, ordered as Redis orders them (milliseconds first, unsigned).
 */
public record StreamId(long ms, long seq) implements Comparable<StreamId> {

    public static final StreamId ZERO = new StreamId(0, 0);
    /** {@code 18446744073709551615-18446744073709551615}, the largest ID. */
    public static final StreamId MAX = new StreamId(-1L, -1L);

    @Override
    public int compareTo(StreamId o) {
        int c = Long.compareUnsigned(ms, o.ms);
        return c != 0 ? c : Long.compareUnsigned(seq, o.seq);
    }

    public boolean isZero() {
        return ms == 0 && seq == 0;
    }

    /** The next ID, or null after the largest one (Redis's streamIncrID failing). */
    public StreamId next() {
        if (seq != -1L) return new StreamId(ms, seq + 1);
        if (ms != -1L) return new StreamId(ms + 1, 0);
        return null;
    }

    /** The previous ID, or null before {@code 0-0} (Redis's streamDecrID failing). */
    public StreamId prev() {
        if (seq != 0) return new StreamId(ms, seq - 1);
        if (ms != 0) return new StreamId(ms - 1, -1L);
        return null;
    }

    @Override
    public String toString() {
        return Long.toUnsignedString(ms) + "-" + Long.toUnsignedString(seq);
    }

    /** The {@code <ms>-<seq>} text as bytes, for replies. */
    public byte[] toBytes() {
        return toString().getBytes(StandardCharsets.US_ASCII);
    }
}
