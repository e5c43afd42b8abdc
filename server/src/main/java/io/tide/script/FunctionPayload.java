package io.tide.script;

import io.tide.command.CommandException;
import io.tide.persistence.rdb.Crc64;
import io.tide.util.Lzf;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * FUNCTION DUMP / RESTORE's payload, as Redis lays it out: per library the RDB opcode FUNCTION2 (245) and the
 * library code as an RDB string, then the RDB version (2 bytes, little-endian) and a CRC64 (Jones, as Redis's
 * {@code crc64}) of everything before it (8 bytes, little-endian). Reading accepts every RDB string encoding
 * (plain, integer, LZF-compressed; {@link Crc64} and {@link Lzf} are the RDB codec's); writing stores the code uncompressed, which every Redis reads.
 * Thread-safe (stateless).
 */
public final class FunctionPayload {

    /** The RDB version Tide writes: Redis 7.0's, so that any Redis from 7.0 on restores Tide's dumps. */
    static final int WRITE_VERSION = 10;
    /** The newest RDB version Tide reads: Redis 7.4's. */
    static final int READ_VERSION = 12;
    private static final int OPCODE_FUNCTION2 = 245;
    private static final int OPCODE_FUNCTION_PRE_GA = 246;

    private FunctionPayload() {}

    /** Redis's crc64 of {@code b[0..len)}, starting from 0. */
    static long crc64(byte[] b, int len) {
        return Crc64.of(b, 0, len);
    }

    /** The payload for these libraries' codes. */
    public static byte[] dump(List<byte[]> codes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] code : codes) {
            out.write(OPCODE_FUNCTION2);
            writeLength(out, code.length);
            out.writeBytes(code);
        }
        out.write(WRITE_VERSION & 0xff);
        out.write((WRITE_VERSION >> 8) & 0xff);
        byte[] body = out.toByteArray();
        long crc = crc64(body, body.length);
        for (int i = 0; i < 8; i++) out.write((int) (crc >>> (8 * i)) & 0xff);
        return out.toByteArray();
    }

    private static void writeLength(ByteArrayOutputStream out, long len) {
        if (len < (1 << 6)) {
            out.write((int) len);
        } else if (len < (1 << 14)) {
            out.write((int) ((len >> 8) | 0x40));
            out.write((int) (len & 0xff));
        } else if (len <= 0xffffffffL) {
            out.write(0x80);
            for (int i = 3; i >= 0; i--) out.write((int) (len >> (8 * i)) & 0xff);
        } else {
            out.write(0x81);
            for (int i = 7; i >= 0; i--) out.write((int) (len >> (8 * i)) & 0xff);
        }
    }

    /** The library codes in {@code payload}, with FUNCTION RESTORE's errors. */
    public static List<byte[]> parse(byte[] payload) {
        int n = payload.length;
        if (n < 10) throw new CommandException("ERR DUMP payload version or checksum are wrong");
        int version = (payload[n - 10] & 0xff) | (payload[n - 9] & 0xff) << 8;
        long crc = 0;
        for (int i = 0; i < 8; i++) crc |= (payload[n - 8 + i] & 0xffL) << (8 * i);
        if (version > READ_VERSION || crc != crc64(payload, n - 8)) {
            throw new CommandException("ERR DUMP payload version or checksum are wrong");
        }
        Reader r = new Reader(payload);
        List<byte[]> codes = new ArrayList<>();
        while (n - r.pos > 10) {
            int type = r.u8();
            if (type == OPCODE_FUNCTION_PRE_GA) throw new CommandException("ERR Pre-GA function format not supported");
            if (type != OPCODE_FUNCTION2) throw new CommandException("ERR given type is not a function");
            byte[] code = r.string(n - 10);
            if (code == null) throw new CommandException("ERR failed loading the given functions payload");
            codes.add(code);
        }
        return codes;
    }

    /** Reads RDB lengths and strings from a payload. */
    private static final class Reader {
        final byte[] b;
        int pos;

        Reader(byte[] b) {
            this.b = b;
        }

        int u8() {
            return b[pos++] & 0xff;
        }

        /** An RDB length; {@code encoded[0]} is set when it is a special encoding's type instead. */
        long length(boolean[] encoded, int end) {
            if (pos >= end) return -1;
            int first = u8();
            int kind = first >> 6;
            if (kind == 0) return first & 0x3f;
            if (kind == 1) return pos < end ? ((first & 0x3f) << 8) | u8() : -1;
            if (kind == 3) {
                encoded[0] = true;
                return first & 0x3f;
            }
            int bytes = first == 0x80 ? 4 : first == 0x81 ? 8 : -1;
            if (bytes < 0 || pos + bytes > end) return -1;
            long v = 0;
            for (int i = 0; i < bytes; i++) v = (v << 8) | u8();
            return v;
        }

        /** An RDB string ending at or before {@code end}, or null when malformed. */
        byte[] string(int end) {
            boolean[] encoded = new boolean[1];
            long len = length(encoded, end);
            if (len < 0) return null;
            if (!encoded[0]) {
                if (len > end - pos) return null;
                byte[] s = java.util.Arrays.copyOfRange(b, pos, pos + (int) len);
                pos += (int) len;
                return s;
            }
            switch ((int) len) {
                case 0, 1, 2 -> {
                    int size = 1 << len;
                    if (pos + size > end) return null;
                    long v = 0;
                    for (int i = 0; i < size; i++) v |= (long) u8() << (8 * i);
                    v = (v << (64 - 8 * size)) >> (64 - 8 * size); // sign-extend
                    return Long.toString(v).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                }
                case 3 -> {
                    boolean[] e = new boolean[1];
                    long clen = length(e, end);
                    long ulen = length(e, end);
                    if (e[0] || clen < 0 || ulen < 0 || clen > end - pos || ulen > Integer.MAX_VALUE - 8) return null;
                    byte[] out = Lzf.decompress(b, pos, (int) clen, (int) ulen);
                    pos += (int) clen;
                    return out;
                }
                default -> {
                    return null;
                }
            }
        }
    }
}
