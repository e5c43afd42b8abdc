package io.tide.persistence.rdb;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Thread-safe (stateless; its {@link Builder} and {@link Reader} are confined to their user). Redis's listpack
 * as stored inside RDB values: a 4-byte total length and a 2-byte element count (little-endian; 65535 when
 * the count does not fit), the entries, and an 0xFF terminator. An entry is an encoding byte with length or
 * value bits, the data, and a back length of 1 to 5 bytes (7 bits each, the last byte holding the lowest bits).
 * Elements that are the canonical text of a 64-bit integer are stored as integers, as Redis does.
 */
public final class Listpack {

    static final int HEADER = 6;
    private static final int EOF = 0xFF;

    private Listpack() {}

    /** The value of {@code s[off, off+len)} when it is the canonical text of a 64-bit integer (Redis's string2ll), else null. */
    public static Long canonicalInteger(byte[] s, int off, int len) {
        if (len == 0 || len > 20) return null;
        if (len == 1 && s[off] == '0') return 0L;
        int i = off;
        int end = off + len;
        boolean neg = s[i] == '-';
        if (neg && ++i == end) return null;
        if (s[i] < '1' || s[i] > '9') return null;
        long acc = 0; // negative accumulation reaches Long.MIN_VALUE
        for (; i < end; i++) {
            int d = s[i] - '0';
            if (d < 0 || d > 9) return null;
            if (acc < (Long.MIN_VALUE + d) / 10) return null;
            acc = acc * 10 - d;
        }
        if (neg) return acc;
        return acc == Long.MIN_VALUE ? null : -acc;
    }

    static Long canonicalInteger(byte[] s) {
        return canonicalInteger(s, 0, s.length);
    }

    /** Not thread-safe; confined to its user. Builds a listpack blob entry by entry. */
    public static final class Builder {
        private byte[] buf = new byte[64];
        private int size = HEADER;
        private int count;

        private void ensure(long extra) {
            long need = size + extra + 1;
            if (need > Integer.MAX_VALUE - 16) throw new IllegalStateException("listpack over 2 GB");
            if (need > buf.length) buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(need, buf.length * 2L)));
        }

        /** Appends a string element (stored as an integer when it is one). */
        public Builder add(byte[] e) {
            Long v = canonicalInteger(e);
            if (v != null) return add(v);
            int n = e.length;
            ensure(n + 10L);
            int p = size;
            if (n < 64) {
                buf[p++] = (byte) (0x80 | n);
            } else if (n < 4096) {
                buf[p++] = (byte) (0xE0 | (n >>> 8));
                buf[p++] = (byte) n;
            } else {
                buf[p++] = (byte) 0xF0;
                for (int i = 0; i < 4; i++) buf[p++] = (byte) (n >>> (8 * i));
            }
            System.arraycopy(e, 0, buf, p, n);
            p += n;
            finishEntry(p);
            return this;
        }

        /** Appends an integer element. */
        public Builder add(long v) {
            ensure(16);
            int p = size;
            if (v >= 0 && v <= 127) {
                buf[p++] = (byte) v;
            } else if (v >= -4096 && v <= 4095) {
                int u = (int) v & 0x1FFF;
                buf[p++] = (byte) (0xC0 | (u >>> 8));
                buf[p++] = (byte) u;
            } else {
                int n = v >= -32768 && v <= 32767 ? 2 : v >= -8388608 && v <= 8388607 ? 3
                        : v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? 4 : 8;
                buf[p++] = (byte) (n == 2 ? 0xF1 : n == 3 ? 0xF2 : n == 4 ? 0xF3 : 0xF4);
                for (int i = 0; i < n; i++) buf[p++] = (byte) (v >>> (8 * i));
            }
            finishEntry(p);
            return this;
        }

        /** Appends {@code n} complete entries already in listpack form ({@code b[from, to)}). */
        public Builder addEntries(byte[] b, int from, int to, int n) {
            ensure(to - from);
            System.arraycopy(b, from, buf, size, to - from);
            size += to - from;
            count += n;
            return this;
        }

        private void finishEntry(int p) {
            int l = p - size;
            int bl = backLength(l);
            for (int k = 0; k < bl; k++) {
                buf[p + bl - 1 - k] = (byte) (((l >>> (7 * k)) & 127) | (k < bl - 1 ? 128 : 0));
            }
            size = p + bl;
            count++;
        }

        public int count() {
            return count;
        }

        /** The finished blob. */
        public byte[] build() {
            ensure(1);
            buf[size] = (byte) EOF;
            int total = size + 1;
            for (int i = 0; i < 4; i++) buf[i] = (byte) (total >>> (8 * i));
            int c = Math.min(count, 65535);
            buf[4] = (byte) c;
            buf[5] = (byte) (c >>> 8);
            return Arrays.copyOf(buf, total);
        }
    }

    static int backLength(long l) {
        if (l <= 127) return 1;
        if (l < 16383) return 2;
        if (l < 2097151) return 3;
        if (l < 268435455) return 4;
        return 5;
    }

    /**
     * Not thread-safe; confined to its user. Reads the elements of a listpack blob in order, validating every
     * entry against the blob's bounds ({@link RdbFormatException} when anything is off).
     */
    public static final class Reader {
        private final byte[] b;
        private final int end; // position of the terminator
        private final int declaredCount;
        private int pos = HEADER;
        private int read;
        // The current entry, decoded by peek().
        private boolean isInt;
        private long intValue;
        private int strOff;
        private int strLen;
        private int next = -1;

        public Reader(byte[] blob) {
            this.b = blob;
            if (blob.length < HEADER + 1) throw new RdbFormatException("listpack too short");
            long total = (blob[0] & 0xFFL) | (blob[1] & 0xFFL) << 8 | (blob[2] & 0xFFL) << 16 | (blob[3] & 0xFFL) << 24;
            if (total != blob.length) throw new RdbFormatException("listpack length " + total + " does not match its " + blob.length + " bytes");
            if ((blob[blob.length - 1] & 0xFF) != EOF) throw new RdbFormatException("listpack without terminator");
            this.end = blob.length - 1;
            this.declaredCount = (blob[4] & 0xFF) | (blob[5] & 0xFF) << 8;
        }

        /** Whether another element follows; at the end, checks the declared count. */
        public boolean hasNext() {
            if (pos < end) return true;
            if (declaredCount != 65535 && declaredCount != read) {
                throw new RdbFormatException("listpack declares " + declaredCount + " elements but holds " + read);
            }
            return false;
        }

        private void need(long n) {
            if (pos + n > end) throw new RdbFormatException("listpack entry runs past its end");
        }

        private void decode() {
            if (next >= 0) return;
            if (pos >= end) throw new RdbFormatException("listpack has fewer elements than expected");
            int p = pos;
            int e = b[p] & 0xFF;
            int encLen;
            if (e < 0x80) {
                isInt = true;
                intValue = e;
                encLen = 1;
            } else if (e < 0xC0) {
                isInt = false;
                strLen = e & 0x3F;
                strOff = p + 1;
                encLen = 1 + strLen;
            } else if (e < 0xE0) {
                need(2);
                isInt = true;
                int u = ((e & 0x1F) << 8) | (b[p + 1] & 0xFF);
                intValue = (u << 19) >> 19;
                encLen = 2;
            } else if (e < 0xF0) {
                need(2);
                isInt = false;
                strLen = ((e & 0x0F) << 8) | (b[p + 1] & 0xFF);
                strOff = p + 2;
                encLen = 2 + strLen;
            } else if (e == 0xF0) {
                need(5);
                isInt = false;
                long l = (b[p + 1] & 0xFFL) | (b[p + 2] & 0xFFL) << 8 | (b[p + 3] & 0xFFL) << 16 | (b[p + 4] & 0xFFL) << 24;
                if (l > end - p) throw new RdbFormatException("listpack entry runs past its end");
                strLen = (int) l;
                strOff = p + 5;
                encLen = 5 + strLen;
            } else if (e >= 0xF1 && e <= 0xF4) {
                int n = e == 0xF1 ? 2 : e == 0xF2 ? 3 : e == 0xF3 ? 4 : 8;
                need(1 + n);
                long v = 0;
                for (int i = 0; i < n; i++) v |= (b[p + 1 + i] & 0xFFL) << (8 * i);
                int unused = 64 - 8 * n;
                isInt = true;
                intValue = (v << unused) >> unused;
                encLen = 1 + n;
            } else {
                throw new RdbFormatException("listpack entry with invalid encoding 0x" + Integer.toHexString(e));
            }
            int bl = backLength(encLen);
            need((long) encLen + bl);
            // The back length must encode encLen.
            long l = 0;
            for (int k = 0; k < bl; k++) l = (l << 7) | (b[p + encLen + k] & 127);
            if (l != encLen) throw new RdbFormatException("listpack entry with a wrong back length");
            next = p + encLen + bl;
        }

        private void advance() {
            pos = next;
            next = -1;
            read++;
        }

        /** Whether the next element is stored as an integer. */
        public boolean nextIsInteger() {
            decode();
            return isInt;
        }

        /** The next element's bytes (an integer's decimal text). */
        public byte[] nextBytes() {
            decode();
            byte[] out = isInt ? Long.toString(intValue).getBytes(StandardCharsets.US_ASCII)
                    : Arrays.copyOfRange(b, strOff, strOff + strLen);
            advance();
            return out;
        }

        /** The next element as an integer (a string element must hold a canonical integer). */
        public long nextLong() {
            decode();
            long v;
            if (isInt) {
                v = intValue;
            } else {
                Long l = canonicalInteger(b, strOff, strLen);
                if (l == null) throw new RdbFormatException("listpack element is not an integer where one is required");
                v = l;
            }
            advance();
            return v;
        }

        /** The next element as a double (a zset score: an integer, or text strtod reads). */
        public double nextDouble() {
            decode();
            double d;
            if (isInt) {
                d = intValue;
            } else {
                d = RdbInput.parseDouble(new String(b, strOff, strLen, StandardCharsets.ISO_8859_1));
            }
            advance();
            return d;
        }

        /** Elements read so far. */
        public int readCount() {
            return read;
        }
    }
}
