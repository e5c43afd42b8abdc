package io.tide.persistence.rdb;

import io.tide.util.Lzf;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Not thread-safe; confined to the thread loading from it. RDB input over a byte array (DUMP payloads) or a
 * stream (files, replication), with the format's primitives and a running CRC64 of every byte consumed.
 *
 * <p>Lengths read from the data are never trusted: a string or element count longer than the input that
 * remains (when the total is known) is refused, and over a stream of unknown length a string is read in
 * bounded chunks, so a forged length ends in "unexpected end of file", never in an out-of-memory error.
 */
public final class RdbInput {

    static final int ENC_INT8 = 0;
    static final int ENC_INT16 = 1;
    static final int ENC_INT32 = 2;
    static final int ENC_LZF = 3;
    private static final int CHUNK = 1 << 20;

    private final InputStream in;
    private byte[] buf;
    private int pos;
    private int limit;
    /** Stream offset of {@code buf[0]}. */
    private long base;
    /** Total bytes of the input when known, else -1. */
    private final long total;
    private long crc;
    /** Buffer index up to which {@link #crc} is computed. */
    private int crcPos;
    private final String name;

    private RdbInput(InputStream in, byte[] buf, int pos, int limit, long total, String name) {
        this.in = in;
        this.buf = buf;
        this.pos = pos;
        this.crcPos = pos;
        this.limit = limit;
        this.total = total;
        this.base = -pos;
        this.name = name;
    }

    /** Input over {@code b[off, off + len)}. */
    public static RdbInput of(byte[] b, int off, int len) {
        return new RdbInput(null, b, off, off + len, len, "payload");
    }

    public static RdbInput of(byte[] b) {
        return of(b, 0, b.length);
    }

    /** Input over a stream of {@code totalBytes} bytes (-1 when unknown); {@code name} appears in error messages. */
    public static RdbInput of(InputStream in, long totalBytes, String name) {
        return new RdbInput(in, new byte[64 * 1024], 0, 0, totalBytes, name);
    }

    /** Bytes consumed so far. */
    public long position() {
        return base + pos;
    }

    /** Bytes known to remain, or -1 when the total is unknown. */
    public long remaining() {
        return total < 0 ? -1 : total - position();
    }

    public String name() {
        return name;
    }

    /** CRC64 of every byte consumed so far. */
    public long crc() {
        if (crcPos < pos) {
            crc = Crc64.update(crc, buf, crcPos, pos - crcPos);
            crcPos = pos;
        }
        return crc;
    }

    RdbFormatException eof() {
        return new RdbFormatException("unexpected end of file at offset " + position() + " in " + name);
    }

    /** Whether at least one byte can be read without blocking at the end (refills from the stream if needed). */
    private boolean fill() throws IOException {
        if (pos < limit) return true;
        if (in == null) return false;
        crc();
        base += limit;
        pos = 0;
        crcPos = 0;
        limit = 0;
        int n = in.read(buf, 0, buf.length);
        if (n <= 0) return false;
        limit = n;
        return true;
    }

    /** Whether the input is exhausted. */
    public boolean atEnd() throws IOException {
        return !fill();
    }

    public int readByte() throws IOException {
        if (!fill()) throw eof();
        return buf[pos++] & 0xFF;
    }

    public void readFully(byte[] out, int off, int len) throws IOException {
        while (len > 0) {
            if (!fill()) throw eof();
            int n = Math.min(len, limit - pos);
            System.arraycopy(buf, pos, out, off, n);
            pos += n;
            off += n;
            len -= n;
        }
    }

    /** Skips {@code n} bytes. */
    public void skip(long n) throws IOException {
        checkAvailable(n);
        while (n > 0) {
            if (!fill()) throw eof();
            int k = (int) Math.min(n, limit - pos);
            pos += k;
            n -= k;
        }
    }

    /** Refuses a length or count larger than the known remaining input. */
    public void checkAvailable(long n) {
        if (n < 0) throw new RdbFormatException("invalid length " + Long.toUnsignedString(n) + " at offset " + position() + " in " + name);
        long r = remaining();
        if (r >= 0 && n > r) {
            throw new RdbFormatException("unexpected end of file at offset " + position() + " in " + name + ": length " + n
                    + " exceeds the " + r + " bytes left");
        }
    }

    /** {@code n} bytes as a new array, read in bounded chunks when the total input size is unknown. */
    public byte[] readBytes(long n) throws IOException {
        checkAvailable(n);
        if (n > Integer.MAX_VALUE - 16) throw new RdbFormatException("string of " + n + " bytes is too long");
        int len = (int) n;
        if (remaining() >= 0 || len <= CHUNK) {
            byte[] out = new byte[len];
            readFully(out, 0, len);
            return out;
        }
        byte[] out = new byte[CHUNK];
        int have = 0;
        while (have < len) {
            if (have == out.length) out = Arrays.copyOf(out, (int) Math.min(len, out.length * 2L));
            int k = Math.min(out.length - have, len - have);
            readFully(out, have, k);
            have += k;
        }
        return out;
    }

    private long readBigEndian(int bytes) throws IOException {
        long v = 0;
        for (int i = 0; i < bytes; i++) v = (v << 8) | readByte();
        return v;
    }

    private long readLittleEndian(int bytes) throws IOException {
        long v = 0;
        for (int i = 0; i < bytes; i++) v |= (long) readByte() << (8 * i);
        return v;
    }

    /** An RDB length; refuses a string encoding marker here. */
    public long readLength() throws IOException {
        int first = readByte();
        int kind = first >> 6;
        if (kind == 3) {
            throw new RdbFormatException("unexpected string encoding where a length belongs, at offset " + (position() - 1) + " in " + name);
        }
        return lengthTail(first);
    }

    private long lengthTail(int first) throws IOException {
        return switch (first >> 6) {
            case 0 -> first & 0x3F;
            case 1 -> ((first & 0x3F) << 8) | readByte();
            default -> switch (first) {
                case 0x80 -> readBigEndian(4);
                case 0x81 -> readBigEndian(8);
                default -> throw new RdbFormatException("invalid length encoding 0x" + Integer.toHexString(first)
                        + " at offset " + (position() - 1) + " in " + name);
            };
        };
    }

    /** A length that must fit an int and not exceed the remaining input (an element count, a blob size). */
    public int readCount() throws IOException {
        long n = readLength();
        checkAvailable(n);
        if (n > Integer.MAX_VALUE - 16) throw new RdbFormatException("count " + n + " is too large at offset " + position());
        return (int) n;
    }

    public long readMillis() throws IOException {
        return readLittleEndian(8);
    }

    public int readInt32() throws IOException {
        return (int) readLittleEndian(4);
    }

    public double readBinaryDouble() throws IOException {
        return Double.longBitsToDouble(readLittleEndian(8));
    }

    /** A stream ID in its 16 raw big-endian bytes. */
    public long[] readStreamIdRaw() throws IOException {
        return new long[] {readBigEndian(8), readBigEndian(8)};
    }

    /** An RDB string in any encoding, as bytes. */
    public byte[] readString() throws IOException {
        Object v = readStringValue();
        return v instanceof Long l ? Long.toString(l).getBytes(StandardCharsets.US_ASCII) : (byte[]) v;
    }

    /** An RDB string: a {@link Long} for the integer encodings, else its bytes. */
    public Object readStringValue() throws IOException {
        int first = readByte();
        if (first >> 6 != 3) return readBytes(lengthTail(first));
        int enc = first & 0x3F;
        return switch (enc) {
            case ENC_INT8 -> (long) (byte) readByte();
            case ENC_INT16 -> (long) (short) readLittleEndian(2);
            case ENC_INT32 -> (long) (int) readLittleEndian(4);
            case ENC_LZF -> {
                long clen = readLength();
                long ulen = readLength();
                checkAvailable(clen);
                // LZF expands at most about 88 times (a 3-byte reference makes 264 bytes).
                if (ulen > clen * 90 + 64 || ulen > Integer.MAX_VALUE - 16) {
                    throw new RdbFormatException("LZF string claims " + ulen + " bytes from " + clen + " at offset " + position() + " in " + name);
                }
                byte[] c = readBytes(clen);
                byte[] out = Lzf.decompress(c, 0, c.length, (int) ulen);
                if (out == null) throw new RdbFormatException("invalid LZF-compressed string at offset " + position() + " in " + name);
                yield out;
            }
            default -> throw new RdbFormatException("unknown string encoding " + enc + " at offset " + (position() - 1) + " in " + name);
        };
    }

    /** A double in the old ASCII form (ZSET, type 3): a length byte (253 NaN, 254 +inf, 255 -inf) and the text. */
    public double readAsciiDouble() throws IOException {
        int len = readByte();
        return switch (len) {
            case 253 -> Double.NaN;
            case 254 -> Double.POSITIVE_INFINITY;
            case 255 -> Double.NEGATIVE_INFINITY;
            default -> {
                byte[] b = new byte[len];
                readFully(b, 0, len);
                yield parseDouble(new String(b, StandardCharsets.ISO_8859_1));
            }
        };
    }

    /** A double in the text forms Redis writes (%.17g, "inf", "-inf", "nan"). */
    static double parseDouble(String s) {
        String t = s.trim().toLowerCase(java.util.Locale.ROOT);
        switch (t) {
            case "inf", "+inf", "infinity", "+infinity" -> {
                return Double.POSITIVE_INFINITY;
            }
            case "-inf", "-infinity" -> {
                return Double.NEGATIVE_INFINITY;
            }
            case "nan", "-nan" -> {
                return Double.NaN;
            }
            default -> {
                if (t.isEmpty() || t.endsWith("d") || t.endsWith("f")) throw new RdbFormatException("invalid double \"" + s + "\"");
                try {
                    return Double.parseDouble(t);
                } catch (NumberFormatException e) {
                    throw new RdbFormatException("invalid double \"" + s + "\"");
                }
            }
        }
    }
}
