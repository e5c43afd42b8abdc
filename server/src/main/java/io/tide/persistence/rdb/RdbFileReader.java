package io.tide.persistence.rdb;

import static io.tide.persistence.rdb.RdbVersion.*;

import io.tide.store.EncodingLimits;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Not thread-safe; confined to the thread loading the file. Reads a whole RDB file of versions 1 to 12 as a
 * stream, handing what it finds to a {@link Visitor}: aux fields, database selections and sizing hints, keys
 * with their values, expiries and LRU/LFU hints, and function libraries.
 *
 * <p>The header's magic and version are checked before any type byte is read (other formats reuse codes
 * above ours). The trailing CRC64 is verified when it is non-zero (version 5 on); a mismatch or a file that
 * ends early is an {@link RdbFormatException}, so a partial load is never reported as success. Module aux
 * data is skipped (its opcode stream is self-describing); a module value or an unknown opcode is refused by
 * name. Keys are reported as stored, expired ones included: the caller decides what to keep. Empty
 * collections, which Redis skips as "empty keys", are skipped.
 */
public final class RdbFileReader {

    private static final long PROGRESS_STEP = 1 << 20;

    /** Receives the contents of a file, in file order. */
    public interface Visitor {
        default void aux(byte[] name, byte[] value) {}

        default void selectDb(int db) {}

        default void resizeDb(long dbSize, long expiresSize) {}

        /** A key; {@code expireAtMs} 0 when none, {@code idleSecs} and {@code freq} -1 when absent. */
        void entry(int db, byte[] key, Object value, long expireAtMs, long idleSecs, int freq);

        default void function(byte[] code) {}

        /** Called about every megabyte and at the end; {@code totalBytes} is -1 when unknown. */
        default void progress(long bytesRead, long totalBytes) {}
    }

    private RdbFileReader() {}

    /** Reads {@code file}; returns its RDB version. */
    public static int read(Path file, EncodingLimits limits, Visitor v) throws IOException {
        long size = Files.size(file);
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, size, file.toString(), limits, v);
        }
    }

    /** Reads an RDB stream of {@code totalBytes} (-1 when unknown); {@code name} appears in errors. */
    public static int read(InputStream stream, long totalBytes, String name, EncodingLimits limits, Visitor v) throws IOException {
        RdbInput in = RdbInput.of(stream, totalBytes, name);
        byte[] header = new byte[HEADER_LENGTH];
        in.readFully(header, 0, HEADER_LENGTH);
        int version = RdbVersion.checkHeader(header);
        int db = 0;
        long expireAt = 0;
        long idle = -1;
        int freq = -1;
        long lastProgress = 0;
        while (true) {
            long at = in.position();
            if (at - lastProgress >= PROGRESS_STEP) {
                v.progress(at, totalBytes);
                lastProgress = at;
            }
            int type = in.readByte();
            switch (type) {
                case OPCODE_EXPIRETIME_MS -> expireAt = in.readMillis();
                case OPCODE_EXPIRETIME -> expireAt = (in.readInt32() & 0xFFFFFFFFL) * 1000;
                case OPCODE_IDLE -> idle = in.readLength();
                case OPCODE_FREQ -> freq = in.readByte();
                case OPCODE_SELECTDB -> {
                    long d = in.readLength();
                    if (d < 0 || d > Integer.MAX_VALUE) throw new RdbFormatException("invalid database number " + d + " in " + name);
                    db = (int) d;
                    v.selectDb(db);
                }
                case OPCODE_RESIZEDB -> v.resizeDb(in.readLength(), in.readLength());
                case OPCODE_AUX -> v.aux(in.readString(), in.readString());
                case OPCODE_MODULE_AUX -> skipModuleAux(in);
                case OPCODE_FUNCTION2 -> v.function(in.readString());
                case OPCODE_FUNCTION_PRE_GA -> throw new RdbFormatException(
                        "pre-GA function format (RDB opcode 246, Redis 7.0 release candidates) is not supported, in " + name);
                case OPCODE_SLOT_INFO -> {
                    if (version < 12) throw new RdbFormatException("unknown RDB opcode 244 at offset " + at + " in " + name);
                    in.readLength(); // slot id
                    in.readLength(); // slot size
                    in.readLength(); // expires slot size
                }
                case OPCODE_EOF -> {
                    long computed = in.crc();
                    if (version >= 5) {
                        long stored = in.readMillis(); // 8 bytes little-endian
                        if (stored != 0 && stored != computed) {
                            throw new RdbFormatException("RDB checksum mismatch in " + name + ": stored "
                                    + Long.toHexString(stored) + ", computed " + Long.toHexString(computed));
                        }
                    }
                    v.progress(in.position(), totalBytes);
                    return version;
                }
                default -> {
                    if (!RdbVersion.isValueType(type)) {
                        throw new RdbFormatException("unknown RDB opcode or type " + type + " at offset " + at + " in " + name);
                    }
                    byte[] key = in.readString();
                    Object value;
                    try {
                        value = RdbDecoder.readValue(in, type, limits);
                    } catch (RdbFormatException e) {
                        if (e.getMessage().startsWith("unexpected end of file")) throw e;
                        throw new RdbFormatException(e.getMessage() + " (key at offset " + at + " in " + name + ")", e);
                    }
                    if (value != null) v.entry(db, key, value, expireAt, idle, freq);
                    expireAt = 0;
                    idle = -1;
                    freq = -1;
                }
            }
        }
    }

    /** Skips MODULE_AUX data: module id, "when" opcode and value, then the module's opcode-tagged fields up to EOF. */
    private static void skipModuleAux(RdbInput in) throws IOException {
        long moduleId = in.readLength();
        long whenOpcode = in.readLength();
        if (whenOpcode != MODULE_OPCODE_UINT) {
            throw new RdbFormatException("cannot skip aux data of module '" + RdbDecoder.moduleName(moduleId)
                    + "' (RDB opcode 247): unknown format");
        }
        in.readLength(); // when
        while (true) {
            long op = in.readLength();
            switch ((int) op) {
                case MODULE_OPCODE_EOF -> {
                    return;
                }
                case MODULE_OPCODE_SINT, MODULE_OPCODE_UINT -> in.readLength();
                case MODULE_OPCODE_FLOAT -> in.skip(4);
                case MODULE_OPCODE_DOUBLE -> in.skip(8);
                case MODULE_OPCODE_STRING -> in.readString();
                default -> throw new RdbFormatException("cannot skip aux data of module '" + RdbDecoder.moduleName(moduleId)
                        + "' (RDB opcode 247): unknown module opcode " + op);
            }
        }
    }
}
