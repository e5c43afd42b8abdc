package io.tide.util;

/**
 * CRC16-CCITT (XMODEM), the checksum Redis Cluster uses to map keys to hash slots. Thread-safe.
 */
public final class Crc16 {

    /** The checksum after the byte {@code i} followed by no more (T1), one (T2), two (T3), three (T4) zero bytes. */
    private static final int[] T1 = new int[256];
    private static final int[] T2 = new int[256];
    private static final int[] T3 = new int[256];
    private static final int[] T4 = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int crc = i << 8;
            for (int b = 0; b < 8; b++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            T1[i] = crc & 0xffff;
        }
        for (int i = 0; i < 256; i++) {
            T2[i] = step(T1[i], 0);
            T3[i] = step(T2[i], 0);
            T4[i] = step(T3[i], 0);
        }
    }

    private Crc16() {}

    /** The checksum {@code crc} followed by the byte {@code b}: one byte's step. */
    private static int step(int crc, int b) {
        return ((crc << 8) ^ T1[((crc >>> 8) ^ b) & 0xff]) & 0xffff;
    }

    /**
     * Four bytes per step ("slicing by 4"): the checksum is linear, so after four bytes it is the XOR of each byte's
     * own contribution, the first two XORed with the state's two bytes; four independent table loads, where a byte at a
     * time waits for each load before the next.
     */
    static int of(byte[] bytes, int from, int to) {
        int crc = 0;
        int i = from;
        for (; i + 4 <= to; i += 4) {
            crc = T4[((crc >>> 8) ^ bytes[i]) & 0xff] ^ T3[(crc ^ bytes[i + 1]) & 0xff]
                    ^ T2[bytes[i + 2] & 0xff] ^ T1[bytes[i + 3] & 0xff];
        }
        for (; i < to; i++) crc = step(crc, bytes[i]);
        return crc;
    }

    /** The hash slot (0..16383) of a key, honouring a non-empty {@code {hash tag}} as Redis Cluster does. */
    public static int slot(byte[] key) {
        int open = -1;
        for (int i = 0; i < key.length; i++) {
            if (key[i] == '{') {
                open = i;
                break;
            }
        }
        if (open >= 0) {
            for (int j = open + 1; j < key.length; j++) {
                if (key[j] == '}') {
                    if (j > open + 1) {
                        return of(key, open + 1, j) & 16383;
                    }
                    break;
                }
            }
        }
        return of(key, 0, key.length) & 16383;
    }
}
