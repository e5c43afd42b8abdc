package io.tide.persistence.rdb;

import io.tide.util.Lzf;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.Arrays;

/**
 * Not thread-safe; confined to the thread serializing into it (a shard thread filling its snapshot buffer, a
 * DUMP). A growable byte buffer with the RDB format's primitives: lengths, strings (integer-encoded or LZF
 * compressed where Redis would), millisecond times, binary doubles.
 */
public final class RdbOutput {

    private static final int ENC_INT8 = 0;
    private static final int ENC_INT16 = 1;
    private static final int ENC_INT32 = 2;
    private static final int ENC_LZF = 3;

    private byte[] buf;
    private int size;
    private final boolean compress;
    /**
     * Strings that would be compressed are written plain and their places recorded in {@link #spans} instead: another
     * thread compresses them later ({@link #appendCompressed}), off the thread that serializes.
     */
    private final boolean deferCompression;
    /** Per string left for later compression: the offsets of its length header and of its bytes, and its length. */
    private int[] spans = new int[0];
    private int spanInts;
    /** Made on the first compressed string and kept: its hash table is 64 KB. */
    private Lzf.Compressor lzf;
    private byte[] lzfOut = new byte[0];

    /** A buffer whose strings are LZF-compressed when that saves space and {@code compress} (rdbcompression). */
    public RdbOutput(boolean compress) {
        this(256, compress);
    }

    public RdbOutput(int initialCapacity, boolean compress) {
        this(initialCapacity, compress, false);
    }

    /**
     * With {@code deferCompression}, the strings that {@code compress} would have compressed are written plain and
     * listed ({@link #spanInts}, {@link #swapSpans}) for {@link #appendCompressed} to compress on another thread; the
     * bytes it makes are the ones this buffer would have held without the deferral.
     */
    public RdbOutput(int initialCapacity, boolean compress, boolean deferCompression) {
        this.buf = new byte[Math.max(16, initialCapacity)];
        this.compress = compress;
        this.deferCompression = compress && deferCompression;
    }

    /** Bytes written so far. */
    public int size() {
        return size;
    }

    /** A copy of the bytes written. */
    public byte[] toByteArray() {
        return Arrays.copyOf(buf, size);
    }

    /** The backing array; its first {@link #size()} bytes are the content (valid until the next write). */
    public byte[] array() {
        return buf;
    }

    /** Empties the buffer, keeping its capacity. */
    public void reset() {
        size = 0;
        spanInts = 0;
    }

    /**
     * Hands over the backing array (its first {@link #size()} bytes are the content) and goes on, empty, in
     * {@code fresh}: the caller gives the array to another thread without copying it, and may give it back here later.
     */
    public byte[] swap(byte[] fresh) {
        byte[] full = buf;
        buf = fresh;
        size = 0;
        return full;
    }

    /** Ints of {@link #swapSpans}'s array in use: three per string left for later compression. */
    public int spanInts() {
        return spanInts;
    }

    /**
     * With deferred compression: hands over the list of strings left for later compression (its first
     * {@link #spanInts()} ints) and goes on, empty, in {@code fresh}. {@link #swap} leaves the list alone: hand both
     * over together.
     */
    public int[] swapSpans(int[] fresh) {
        int[] full = spans;
        spans = fresh;
        spanInts = 0;
        return full;
    }

    /**
     * Appends {@code src[0, length)}, a deferred buffer's content, with each string its {@code spans} list
     * ({@code spanInts} ints) LZF-compressed where that saves space: the bytes a buffer that compressed as it went
     * would hold. This buffer must compress and not defer.
     */
    public void appendCompressed(byte[] src, int length, int[] spans, int spanInts) {
        if (!compress || deferCompression) throw new IllegalStateException("not a compressing buffer");
        int pos = 0;
        for (int k = 0; k < spanInts; k += 3) {
            int header = spans[k];
            int data = spans[k + 1];
            int len = spans[k + 2];
            write(src, pos, header - pos);
            if (!writeLzf(src, data, len)) write(src, header, data - header + len);
            pos = data + len;
        }
        write(src, pos, length - pos);
    }

    /** Writes the content to {@code ch} (all of it). */
    public void writeTo(WritableByteChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(buf, 0, size);
        while (b.hasRemaining()) ch.write(b);
    }

    public void writeTo(OutputStream out) throws IOException {
        out.write(buf, 0, size);
    }

    private void ensure(int extra) {
        long need = (long) size + extra;
        if (need > buf.length) {
            if (need > Integer.MAX_VALUE - 16) throw new IllegalStateException("RDB buffer over 2 GB");
            buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(need, buf.length * 2L)));
        }
    }

    public void writeByte(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    public void write(byte[] b) {
        write(b, 0, b.length);
    }

    public void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, size, len);
        size += len;
    }

    /** An RDB length: 6, 14, 32 or 64 bits. */
    public void writeLength(long len) {
        if (len >= 0 && len < (1 << 6)) {
            writeByte((int) len);
        } else if (len >= 0 && len < (1 << 14)) {
            writeByte((int) ((len >> 8) | 0x40));
            writeByte((int) (len & 0xff));
        } else if (len >= 0 && len <= 0xffffffffL) {
            writeByte(0x80);
            writeBigEndian(len, 4);
        } else {
            writeByte(0x81);
            writeBigEndian(len, 8);
        }
    }

    private void writeBigEndian(long v, int bytes) {
        ensure(bytes);
        for (int i = bytes - 1; i >= 0; i--) buf[size++] = (byte) (v >>> (8 * i));
    }

    private void writeLittleEndian(long v, int bytes) {
        ensure(bytes);
        for (int i = 0; i < bytes; i++) buf[size++] = (byte) (v >>> (8 * i));
    }

    /** A little-endian 64-bit unix time in milliseconds (rdbSaveMillisecondTime). */
    public void writeMillis(long ms) {
        writeLittleEndian(ms, 8);
    }

    /** A little-endian 32-bit value. */
    public void writeInt32(int v) {
        writeLittleEndian(v, 4);
    }

    /** A binary double, little-endian (ZSET_2 scores). */
    public void writeBinaryDouble(double d) {
        writeLittleEndian(Double.doubleToRawLongBits(d), 8);
    }

    /** A stream ID as its 16 raw big-endian bytes (PEL entries). */
    public void writeStreamIdRaw(long ms, long seq) {
        writeBigEndian(ms, 8);
        writeBigEndian(seq, 8);
    }

    /**
     * A string as Redis's rdbSaveRawString writes it: as an integer encoding when it is the canonical text of a
     * 32-bit integer (at most 11 bytes), LZF-compressed when compression is on, it is over 20 bytes and that
     * saves at least 4 bytes, otherwise plain.
     */
    public void writeString(byte[] s) {
        writeString(s, 0, s.length);
    }

    public void writeString(byte[] s, int off, int len) {
        if (len <= 11 && len > 0) {
            Long v = Listpack.canonicalInteger(s, off, len);
            if (v != null && v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
                writeIntegerEncoded(v);
                return;
            }
        }
        if (compress && len > 20) {
            if (deferCompression) {
                if (spanInts + 3 > spans.length) spans = Arrays.copyOf(spans, Math.max(96, spans.length * 2));
                int header = size;
                writeLength(len);
                spans[spanInts++] = header;
                spans[spanInts++] = size;
                spans[spanInts++] = len;
                write(s, off, len);
                return;
            }
            if (writeLzf(s, off, len)) return;
        }
        writeLength(len);
        write(s, off, len);
    }

    /** A string without any integer or LZF attempt (what Redis writes for binary blobs it knows are not numbers). */
    public void writePlainString(byte[] s) {
        writeLength(s.length);
        write(s);
    }

    /** A string holding the decimal text of {@code v} (rdbSaveLongLongAsStringObject). */
    public void writeIntegerString(long v) {
        if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            writeIntegerEncoded(v);
        } else {
            byte[] s = Long.toString(v).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            writeLength(s.length);
            write(s);
        }
    }

    private void writeIntegerEncoded(long v) {
        if (v >= -(1 << 7) && v <= (1 << 7) - 1) {
            writeByte(0xC0 | ENC_INT8);
            writeLittleEndian(v, 1);
        } else if (v >= -(1 << 15) && v <= (1 << 15) - 1) {
            writeByte(0xC0 | ENC_INT16);
            writeLittleEndian(v, 2);
        } else {
            writeByte(0xC0 | ENC_INT32);
            writeLittleEndian(v, 4);
        }
    }

    private boolean writeLzf(byte[] s, int off, int len) {
        int max = len - 4;
        if (lzf == null) lzf = new Lzf.Compressor();
        if (lzfOut.length < max) lzfOut = new byte[Math.max(max, lzfOut.length * 2)];
        byte[] out = lzfOut;
        int clen = lzf.compress(s, off, len, out, max);
        if (clen == 0) return false;
        writeByte(0xC0 | ENC_LZF);
        writeLength(clen);
        writeLength(len);
        write(out, 0, clen);
        return true;
    }
}
