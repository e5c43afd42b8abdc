package io.tide.persistence.rdb;

import io.tide.store.EncodingLimits;
import java.io.IOException;

/**
 * Thread-safe (stateless). DUMP / RESTORE payloads as Redis lays them out: the value's RDB type byte and
 * payload, the RDB version (2 bytes, little-endian: {@link RdbVersion#WRITE}, or 12 for a hash with field
 * TTLs) and a CRC64 of everything before it (8 bytes, little-endian).
 */
public final class Dump {

    private static final int FOOTER = 10;

    private Dump() {}

    /** The DUMP payload of {@code value}, strings LZF-compressed where that saves space (rdbcompression yes). */
    public static byte[] serialize(Object value) {
        return serialize(value, true);
    }

    public static byte[] serialize(Object value, boolean compress) {
        int version = RdbEncoder.needsVersion12(value) ? RdbVersion.WRITE_FIELD_TTLS : RdbVersion.WRITE;
        RdbOutput out = new RdbOutput(compress);
        RdbEncoder.writeValue(out, value, version);
        out.writeByte(version & 0xff);
        out.writeByte((version >> 8) & 0xff);
        long crc = Crc64.of(out.array(), 0, out.size());
        for (int i = 0; i < 8; i++) out.writeByte((int) (crc >>> (8 * i)) & 0xff);
        return out.toByteArray();
    }

    /** Whether the payload's footer holds a version Tide reads (1..12) and a matching checksum. */
    public static boolean verify(byte[] payload) {
        int n = payload.length;
        if (n < FOOTER) return false;
        int version = (payload[n - 10] & 0xff) | (payload[n - 9] & 0xff) << 8;
        if (version < RdbVersion.MIN_READ || version > RdbVersion.MAX_READ) return false;
        long crc = 0;
        for (int i = 0; i < 8; i++) crc |= (payload[n - 8 + i] & 0xffL) << (8 * i);
        return crc == Crc64.of(payload, 0, n - 8);
    }

    /**
     * The value in a payload that {@link #verify} accepts; {@link RdbFormatException} when the payload's footer
     * is wrong (message "DUMP payload version or checksum are wrong") or its data cannot be read.
     */
    public static Object deserialize(byte[] payload, EncodingLimits limits) {
        if (!verify(payload)) throw new RdbFormatException("DUMP payload version or checksum are wrong");
        RdbInput in = RdbInput.of(payload, 0, payload.length - FOOTER);
        try {
            int type = in.readByte();
            if (!RdbVersion.isValueType(type)) throw new RdbFormatException("bad data format: type " + type);
            Object v = RdbDecoder.readValue(in, type, limits);
            if (v == null) throw new RdbFormatException("bad data format: empty value");
            return v;
        } catch (IOException e) {
            throw new RdbFormatException("bad data format", e);
        }
    }
}
