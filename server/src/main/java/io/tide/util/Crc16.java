package io.tide.util;

/**
 * CRC16-CCITT (XMODEM), the checksum Redis Cluster uses to map keys to hash slots. Thread-safe.
 */
public final class Crc16 {

    private static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int crc = i << 8;
            for (int b = 0; b < 8; b++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            TABLE[i] = crc & 0xffff;
        }
    }

    private Crc16() {}

    static int of(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xff]) & 0xffff;
        }
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
