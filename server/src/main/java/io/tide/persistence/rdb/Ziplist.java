package io.tide.persistence.rdb;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Thread-safe (stateless). Reads the legacy encodings that old RDB files hold as blobs: ziplists (lists,
 * hashes and sorted sets before Redis 7.0, quicklist 1 nodes), zipmaps (hashes before 2.6) and intsets.
 * Every offset is checked against the blob; anything malformed is an {@link RdbFormatException}.
 *
 * <p>Ziplist: {@code zlbytes} (u32), {@code zltail} (u32), {@code zllen} (u16; 65535 = unknown), entries, 0xFF.
 * An entry is its previous entry's length (1 byte, or 0xFE and 4 bytes), an encoding (strings of 6, 14 or 32
 * bit lengths; integers of 8, 16, 24, 32, 64 bits or the immediates 0..12) and the data.
 */
final class Ziplist {

    private Ziplist() {}

    private static long le(byte[] b, int p, int n) {
        long v = 0;
        for (int i = 0; i < n; i++) v |= (b[p + i] & 0xFFL) << (8 * i);
        return v;
    }

    private static void need(byte[] b, long p, long n, String what) {
        if (p + n > b.length - 1) throw new RdbFormatException(what + " entry runs past its end");
    }

    /** The elements of a ziplist blob, integers as their decimal text. */
    static List<byte[]> elements(byte[] b) {
        if (b.length < 11) throw new RdbFormatException("ziplist too short");
        if (le(b, 0, 4) != b.length) throw new RdbFormatException("ziplist length does not match its bytes");
        if (le(b, 4, 4) >= b.length) throw new RdbFormatException("ziplist tail offset out of range");
        if ((b[b.length - 1] & 0xFF) != 0xFF) throw new RdbFormatException("ziplist without terminator");
        int declared = (int) le(b, 8, 2);
        List<byte[]> out = new ArrayList<>();
        int p = 10;
        int end = b.length - 1;
        int prevLen = 0;
        while (p < end) {
            int start = p;
            int first = b[p] & 0xFF;
            long prev;
            if (first < 254) {
                prev = first;
                p += 1;
            } else if (first == 254) {
                need(b, p, 5, "ziplist");
                prev = le(b, p + 1, 4);
                p += 5;
            } else {
                throw new RdbFormatException("ziplist entry with invalid previous length");
            }
            if (prev != prevLen) throw new RdbFormatException("ziplist entry with a wrong previous length");
            need(b, p, 1, "ziplist");
            int enc = b[p] & 0xFF;
            switch (enc >> 6) {
                case 0 -> {
                    int len = enc & 0x3F;
                    need(b, p + 1, len, "ziplist");
                    out.add(Arrays.copyOfRange(b, p + 1, p + 1 + len));
                    p += 1 + len;
                }
                case 1 -> {
                    need(b, p, 2, "ziplist");
                    int len = ((enc & 0x3F) << 8) | (b[p + 1] & 0xFF);
                    need(b, p + 2, len, "ziplist");
                    out.add(Arrays.copyOfRange(b, p + 2, p + 2 + len));
                    p += 2 + len;
                }
                case 2 -> {
                    need(b, p, 5, "ziplist");
                    long len = (b[p + 1] & 0xFFL) << 24 | (b[p + 2] & 0xFFL) << 16 | (b[p + 3] & 0xFFL) << 8 | (b[p + 4] & 0xFFL);
                    need(b, p + 5L, len, "ziplist");
                    out.add(Arrays.copyOfRange(b, p + 5, p + 5 + (int) len));
                    p += 5 + (int) len;
                }
                default -> {
                    int n;
                    long v;
                    switch (enc) {
                        case 0xC0 -> n = 2;
                        case 0xD0 -> n = 4;
                        case 0xE0 -> n = 8;
                        case 0xF0 -> n = 3;
                        case 0xFE -> n = 1;
                        default -> {
                            if (enc >= 0xF1 && enc <= 0xFD) {
                                n = 0;
                            } else {
                                throw new RdbFormatException("ziplist entry with invalid encoding 0x" + Integer.toHexString(enc));
                            }
                        }
                    }
                    if (n == 0) {
                        v = (enc & 0x0F) - 1;
                    } else {
                        need(b, p + 1, n, "ziplist");
                        v = le(b, p + 1, n);
                        int unused = 64 - 8 * n;
                        v = (v << unused) >> unused;
                    }
                    out.add(Long.toString(v).getBytes(StandardCharsets.US_ASCII));
                    p += 1 + n;
                }
            }
            prevLen = p - start;
        }
        if (declared != 65535 && declared != out.size()) {
            throw new RdbFormatException("ziplist declares " + declared + " entries but holds " + out.size());
        }
        return out;
    }

    /**
     * The keys and values, alternating, of a zipmap blob: a count byte (254+ = unknown), then per pair a key
     * length (1 byte, or 254 and 4 bytes), the key, a value length, a "free" byte, the value and that many free
     * bytes; 0xFF ends it.
     */
    static List<byte[]> zipmap(byte[] b) {
        if (b.length < 2) throw new RdbFormatException("zipmap too short");
        if ((b[b.length - 1] & 0xFF) != 0xFF) throw new RdbFormatException("zipmap without terminator");
        List<byte[]> out = new ArrayList<>();
        int p = 1;
        int end = b.length - 1;
        while (p < end) {
            for (int k = 0; k < 2; k++) {
                if (p >= end) throw new RdbFormatException("zipmap key without value");
                int first = b[p] & 0xFF;
                long len;
                if (first < 254) {
                    len = first;
                    p++;
                } else if (first == 254) {
                    need(b, p, 5, "zipmap");
                    len = le(b, p + 1, 4);
                    p += 5;
                } else {
                    throw new RdbFormatException("zipmap entry with invalid length");
                }
                int free = 0;
                if (k == 1) {
                    need(b, p, 1, "zipmap");
                    free = b[p] & 0xFF;
                    p++;
                }
                need(b, p, len + free, "zipmap");
                out.add(Arrays.copyOfRange(b, p, p + (int) len));
                p += (int) len + free;
            }
        }
        int declared = b[0] & 0xFF;
        if (declared < 254 && declared * 2 != out.size()) throw new RdbFormatException("zipmap count does not match its entries");
        return out;
    }

    /**
     * The members of an intset blob: encoding (u32: 2, 4 or 8 bytes per member), length (u32), then the members
     * little-endian in strictly ascending order.
     */
    static long[] intset(byte[] b) {
        if (b.length < 8) throw new RdbFormatException("intset too short");
        long width = le(b, 0, 4);
        long n = le(b, 4, 4);
        if (width != 2 && width != 4 && width != 8) throw new RdbFormatException("intset with invalid encoding " + width);
        if (8 + width * n != b.length) throw new RdbFormatException("intset length does not match its bytes");
        long[] out = new long[(int) n];
        int w = (int) width;
        int unused = 64 - 8 * w;
        for (int i = 0; i < n; i++) {
            long v = (le(b, 8 + i * w, w) << unused) >> unused;
            if (i > 0 && v <= out[i - 1]) throw new RdbFormatException("intset members out of order");
            out[i] = v;
        }
        return out;
    }
}
