package io.tide.store;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Thread-safe (stateless). The packed entry format of list nodes: each element takes exactly as many bytes as
 * in a Redis listpack, so that a node's size, and with it every encoding decision that depends on
 * {@code list-max-listpack-size}, is what Redis computes.
 *
 * <p>An entry is an encoding byte (with any length or value bits), the element's data, then a "back length"
 * holding the size of the first two parts, readable from its last byte backwards, so that nodes can be walked
 * in both directions. Elements whose text is a canonical 64-bit integer are stored as binary integers of 1 to
 * 9 bytes, other elements as a 1, 2 or 5 byte length plus their bytes:
 * <pre>
 *   0xxxxxxx                 integer 0..127
 *   10llllll data            string of up to 63 bytes
 *   110vvvvv v               13-bit signed integer
 *   1110llll l data          string of up to 4095 bytes
 *   11110000 l l l l data    longer string (32-bit little-endian length)
 *   11110001..11110100 v...  16, 24, 32 or 64-bit little-endian signed integer
 * </pre>
 * A back length of 1 to 5 bytes keeps 7 bits per byte; its last byte carries the lowest bits, and every byte but
 * its first has the top bit set.
 */
final class ListPack {

    /** Bytes a Redis listpack adds to its entries: a 6-byte header and an end marker. */
    static final int OVERHEAD = 7;

    private static final int STR32 = 0xF0;
    private static final int INT16 = 0xF1;
    private static final int INT24 = 0xF2;
    private static final int INT32 = 0xF3;
    private static final int INT64 = 0xF4;

    private ListPack() {}

    // ---------------------------------------------------------------- integers

    /** Whether {@code e} is the canonical text of a 64-bit integer (no sign on zero, no leading zeros or spaces). */
    static boolean isInteger(byte[] e) {
        int n = e.length;
        if (n == 0 || n > 20) return false;
        if (n == 1 && e[0] == '0') return true;
        int i = e[0] == '-' ? 1 : 0;
        if (i == n || e[i] < '1' || e[i] > '9') return false;
        long acc = 0; // accumulated negatively, so that Long.MIN_VALUE fits
        for (; i < n; i++) {
            int d = e[i] - '0';
            if (d < 0 || d > 9) return false;
            if (acc < (Long.MIN_VALUE + d) / 10) return false;
            acc = acc * 10 - d;
        }
        return e[0] == '-' || acc != Long.MIN_VALUE;
    }

    /** The value of an element for which {@link #isInteger} holds. */
    static long integer(byte[] e) {
        boolean neg = e[0] == '-';
        long acc = 0;
        for (int i = neg ? 1 : 0; i < e.length; i++) acc = acc * 10 - (e[i] - '0');
        return neg ? acc : -acc;
    }

    // ---------------------------------------------------------------- sizes

    /** Bytes of the encoding and data of an integer entry. */
    private static int intLength(long v) {
        if (v >= 0 && v <= 127) return 1;
        if (v >= -4096 && v <= 4095) return 2;
        if (v >= -32768 && v <= 32767) return 3;
        if (v >= -8388608 && v <= 8388607) return 4;
        if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) return 5;
        return 9;
    }

    /** Bytes of the encoding and data of a string entry of {@code n} bytes. */
    private static long stringLength(long n) {
        if (n < 64) return 1 + n;
        if (n < 4096) return 2 + n;
        return 5 + n;
    }

    /** Bytes of the back length that follows an entry whose encoding and data take {@code l} bytes. */
    static int backLength(long l) {
        if (l <= 127) return 1;
        if (l < 16383) return 2;
        if (l < 2097151) return 3;
        if (l < 268435455) return 4;
        return 5;
    }

    /** Bytes the entry for {@code e} takes. */
    static int entrySize(byte[] e) {
        long l = isInteger(e) ? intLength(integer(e)) : stringLength(e.length);
        return (int) (l + backLength(l));
    }

    /** Bytes the entry for a string element of {@code n} bytes (never an integer) takes, as a long. */
    static long stringEntrySize(long n) {
        long l = stringLength(n);
        return l + backLength(l);
    }

    // ---------------------------------------------------------------- writing

    /** Writes the entry for {@code e} at {@code pos}, which must have {@link #entrySize} bytes free; returns its end. */
    static int write(byte[] buf, int pos, byte[] e) {
        int p = pos;
        if (isInteger(e)) {
            long v = integer(e);
            int l = intLength(v);
            switch (l) {
                case 1 -> buf[p++] = (byte) v;
                case 2 -> {
                    int u = (int) v & 0x1FFF;
                    buf[p++] = (byte) (0xC0 | (u >>> 8));
                    buf[p++] = (byte) u;
                }
                default -> {
                    buf[p++] = (byte) (l == 3 ? INT16 : l == 4 ? INT24 : l == 5 ? INT32 : INT64);
                    for (int i = 0; i < l - 1; i++) buf[p++] = (byte) (v >>> (8 * i));
                }
            }
        } else {
            int n = e.length;
            if (n < 64) {
                buf[p++] = (byte) (0x80 | n);
            } else if (n < 4096) {
                buf[p++] = (byte) (0xE0 | (n >>> 8));
                buf[p++] = (byte) n;
            } else {
                buf[p++] = (byte) STR32;
                for (int i = 0; i < 4; i++) buf[p++] = (byte) (n >>> (8 * i));
            }
            System.arraycopy(e, 0, buf, p, n);
            p += n;
        }
        int l = p - pos;
        int bl = backLength(l);
        for (int k = 0; k < bl; k++) {
            buf[p + bl - 1 - k] = (byte) (((l >>> (7 * k)) & 127) | (k < bl - 1 ? 128 : 0));
        }
        return p + bl;
    }

    // ---------------------------------------------------------------- reading

    /** Bytes of the encoding and data of the entry at {@code pos}. */
    private static int encodedLength(byte[] buf, int pos) {
        int b = buf[pos] & 0xFF;
        if (b < 0x80) return 1;
        if (b < 0xC0) return 1 + (b & 0x3F);
        if (b < 0xE0) return 2;
        if (b < 0xF0) return 2 + (((b & 0x0F) << 8) | (buf[pos + 1] & 0xFF));
        return switch (b) {
            case STR32 -> 5 + le32(buf, pos + 1);
            case INT16 -> 3;
            case INT24 -> 4;
            case INT32 -> 5;
            default -> 9;
        };
    }

    private static int le32(byte[] buf, int p) {
        return (buf[p] & 0xFF) | (buf[p + 1] & 0xFF) << 8 | (buf[p + 2] & 0xFF) << 16 | (buf[p + 3] & 0xFF) << 24;
    }

    /** Total bytes of the entry at {@code pos}. */
    static int sizeAt(byte[] buf, int pos) {
        int l = encodedLength(buf, pos);
        return l + backLength(l);
    }

    /** Start of the entry that ends at {@code end}. */
    static int startBefore(byte[] buf, int end) {
        int q = end - 1;
        int l = 0;
        int shift = 0;
        while (true) {
            int b = buf[q] & 0xFF;
            l |= (b & 127) << shift;
            if ((b & 128) == 0) break;
            shift += 7;
            q--;
        }
        return end - backLength(l) - l;
    }

    private static boolean isIntegerAt(byte[] buf, int pos) {
        int b = buf[pos] & 0xFF;
        return b < 0x80 || (b >= 0xC0 && b < 0xE0) || (b >= INT16 && b <= INT64);
    }

    private static long integerAt(byte[] buf, int pos) {
        int b = buf[pos] & 0xFF;
        if (b < 0x80) return b;
        if (b < 0xE0) {
            int u = ((b & 0x1F) << 8) | (buf[pos + 1] & 0xFF);
            return (u << 19) >> 19; // sign-extend 13 bits
        }
        int n = b == INT16 ? 2 : b == INT24 ? 3 : b == INT32 ? 4 : 8;
        long v = 0;
        for (int i = 0; i < n; i++) v |= (buf[pos + 1 + i] & 0xFFL) << (8 * i);
        int unused = 64 - 8 * n;
        return (v << unused) >> unused;
    }

    /** Offset of a string entry's data, given its encoding byte. */
    private static int dataOffset(int b) {
        return b < 0xC0 ? 1 : b < 0xF0 ? 2 : 5;
    }

    /**
     * Where the text of the string entry at {@code pos} lies in {@code buf}: its offset in the high 32 bits, its length
     * in the low ones; -1 for an entry stored as an integer (which has no text to point at).
     */
    static long textSpan(byte[] buf, int pos) {
        if (isIntegerAt(buf, pos)) return -1;
        int off = dataOffset(buf[pos] & 0xFF);
        return ((long) (pos + off) << 32) | (encodedLength(buf, pos) - off);
    }

    /** The element stored at {@code pos}, as a new array. */
    static byte[] read(byte[] buf, int pos) {
        if (isIntegerAt(buf, pos)) {
            return Long.toString(integerAt(buf, pos)).getBytes(StandardCharsets.US_ASCII);
        }
        int l = encodedLength(buf, pos);
        int off = dataOffset(buf[pos] & 0xFF);
        return Arrays.copyOfRange(buf, pos + off, pos + l);
    }

    /** Length in bytes of the element stored at {@code pos} (of its text, for an integer). */
    static int elementLength(byte[] buf, int pos) {
        if (isIntegerAt(buf, pos)) {
            long v = integerAt(buf, pos);
            return Long.toString(v).length();
        }
        return encodedLength(buf, pos) - dataOffset(buf[pos] & 0xFF);
    }

    /** Whether the entry at {@code pos} holds {@code e}: a {@link Probe} made once per searched element. */
    static boolean matches(byte[] buf, int pos, Probe e) {
        if (isIntegerAt(buf, pos)) return e.isInteger && integerAt(buf, pos) == e.value;
        if (e.isInteger) return false;
        int l = encodedLength(buf, pos);
        int off = dataOffset(buf[pos] & 0xFF);
        int n = l - off;
        byte[] b = e.bytes;
        return n == b.length && Arrays.equals(buf, pos + off, pos + l, b, 0, n);
    }

    /** Immutable, so thread-safe. An element prepared for repeated comparisons with entries. */
    static final class Probe {
        final byte[] bytes;
        final boolean isInteger;
        final long value;

        Probe(byte[] e) {
            bytes = e;
            isInteger = ListPack.isInteger(e);
            value = isInteger ? integer(e) : 0;
        }
    }
}
