package io.tide.persistence.rdb;

/**
 * Thread-safe (stateless). Redis's CRC64 ("Jones" polynomial 0xad93d23594c935a9, reflected, initial value 0,
 * no final xor), the checksum that ends RDB files and DUMP payloads. {@link #update} continues a running
 * checksum, so a file can be checksummed piece by piece as it is written or read.
 */
public final class Crc64 {

    private static final long[] TABLE = new long[256];

    static {
        long poly = 0x95ac9329ac4bc9b5L; // 0xad93d23594c935a9 bit-reversed
        for (int i = 0; i < 256; i++) {
            long crc = i;
            for (int j = 0; j < 8; j++) crc = (crc & 1) != 0 ? (crc >>> 1) ^ poly : crc >>> 1;
            TABLE[i] = crc;
        }
    }

    private Crc64() {}

    /** The checksum {@code crc} continued over {@code b[off, off + len)}. */
    public static long update(long crc, byte[] b, int off, int len) {
        for (int i = off, end = off + len; i < end; i++) crc = TABLE[(int) ((crc ^ b[i]) & 0xff)] ^ (crc >>> 8);
        return crc;
    }

    /** The checksum of {@code b[off, off + len)} from 0. */
    public static long of(byte[] b, int off, int len) {
        return update(0, b, off, len);
    }
}
