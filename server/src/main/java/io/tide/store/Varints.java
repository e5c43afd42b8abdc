package io.tide.store;

/**
 * Unsigned LEB128 varints (stream nodes' lengths and deltas, listpack hashes' lengths, packed map entries' key
 * lengths): 7 bits a byte, low bits first, the high bit set on every byte but the last.
 */
final class Varints {

    private Varints() {}

    /** Bytes that {@code v} takes. */
    static int uvarintLength(long v) {
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    /** Writes {@code v} at {@code b[p]}; returns the position after it. */
    static int writeUVarint(byte[] b, int p, long v) {
        while ((v & ~0x7FL) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    /** The varint at {@code b[p]}. */
    static long readUVarint(byte[] b, int p) {
        long v = 0;
        int shift = 0;
        while (true) {
            byte x = b[p++];
            v |= (long) (x & 0x7F) << shift;
            if (x >= 0) return v;
            shift += 7;
        }
    }
}
