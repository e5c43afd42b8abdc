package io.tide.persistence.rdb;

import static io.tide.persistence.rdb.RdbVersion.*;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Not thread-safe; confined to the thread writing the file (a snapshot's writer). Writes a whole RDB file in
 * pieces, so that a snapshot can stream it: the header, aux fields, pre-serialized chunks of entries (each
 * starting with its own SELECTDB, which loaders accept for the same database more than once), function
 * libraries, and the EOF opcode with the CRC64 of everything before it, kept incrementally as bytes go out.
 */
public final class RdbFileWriter {

    /** Writes the body of a file through the writer it is given. */
    @FunctionalInterface
    public interface Body {
        void write(RdbFileWriter w) throws IOException;
    }

    private final WritableByteChannel out;
    private final RdbOutput small = new RdbOutput(false);
    private long crc;
    private long written;
    private int version = -1;
    private boolean finished;

    public RdbFileWriter(WritableByteChannel out) {
        this.out = out;
    }

    public RdbFileWriter(OutputStream out) {
        this(Channels.newChannel(out));
    }

    /** Bytes written so far. */
    public long written() {
        return written;
    }

    /** The version given to {@link #header}. */
    public int version() {
        return version;
    }

    private void emit(byte[] b, int off, int len) throws IOException {
        if (finished) throw new IllegalStateException("RDB file already finished");
        crc = Crc64.update(crc, b, off, len);
        ByteBuffer bb = ByteBuffer.wrap(b, off, len);
        while (bb.hasRemaining()) out.write(bb);
        written += len;
    }

    private void emitSmall() throws IOException {
        emit(small.array(), 0, small.size());
        small.reset();
    }

    /** "REDIS" and the version in four digits. */
    public RdbFileWriter header(int v) throws IOException {
        if (v < WRITE || v > MAX_READ) throw new IllegalArgumentException("Tide writes RDB versions 10..12, not " + v);
        version = v;
        byte[] h = RdbVersion.header(v);
        emit(h, 0, h.length);
        return this;
    }

    /** An AUX field with a string value (integer-encoded when it is a number, as Redis writes it). */
    public RdbFileWriter aux(String name, String value) throws IOException {
        small.writeByte(OPCODE_AUX);
        small.writeString(name.getBytes(StandardCharsets.UTF_8));
        small.writeString(value.getBytes(StandardCharsets.UTF_8));
        emitSmall();
        return this;
    }

    /** An AUX field with an integer value (rdbSaveAuxFieldStrInt). */
    public RdbFileWriter aux(String name, long value) throws IOException {
        small.writeByte(OPCODE_AUX);
        small.writeString(name.getBytes(StandardCharsets.UTF_8));
        small.writeIntegerString(value);
        emitSmall();
        return this;
    }

    /**
     * The AUX fields Redis 7.0 writes at the start of a file without replication info: {@code redis-ver},
     * {@code redis-bits}, {@code ctime} (unix seconds), {@code used-mem} and {@code aof-base}.
     */
    public RdbFileWriter standardAux(String redisVersion, long ctimeSeconds, long usedMemory, boolean aofBase) throws IOException {
        aux("redis-ver", redisVersion);
        aux("redis-bits", 64);
        aux("ctime", ctimeSeconds);
        aux("used-mem", usedMemory);
        aux("aof-base", aofBase ? 1 : 0);
        return this;
    }

    /** A pre-serialized chunk (SELECTDB, optional RESIZEDB, entries) as {@link RdbEncoder} wrote it. */
    public RdbFileWriter raw(byte[] chunk, int off, int len) throws IOException {
        emit(chunk, off, len);
        return this;
    }

    public RdbFileWriter raw(RdbOutput chunk) throws IOException {
        return raw(chunk.array(), 0, chunk.size());
    }

    /** One FUNCTION2 opcode per library, with its code. */
    public RdbFileWriter functions(List<byte[]> libraryCodes) throws IOException {
        for (byte[] code : libraryCodes) {
            small.writeByte(OPCODE_FUNCTION2);
            small.writeString(code);
            emitSmall();
        }
        return this;
    }

    /** Marks a file that is not RDB (an AOF base in commands) as complete without EOF and checksum. */
    public void markFinished() {
        finished = true;
    }

    /** EOF and the CRC64 of everything written before it (0 when {@code checksum} is off, rdbchecksum no). */
    public long finish(boolean checksum) throws IOException {
        small.writeByte(OPCODE_EOF);
        emitSmall();
        long c = checksum ? crc : 0;
        for (int i = 0; i < 8; i++) small.writeByte((int) (c >>> (8 * i)));
        emitSmall();
        finished = true;
        return written;
    }

    /**
     * Writes a file through {@code body} to {@code temp-<pid>.rdb} in {@code target}'s directory, forces it to
     * disk, renames it over {@code target} and forces the directory, so a crash leaves either the old file or
     * the new one. {@code body} must call {@link #finish}. The temp file is removed on failure.
     */
    public static long writeAtomically(Path target, Body body) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Path temp = dir.resolve("temp-" + ProcessHandle.current().pid() + ".rdb");
        long size;
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            RdbFileWriter w = new RdbFileWriter(ch);
            body.write(w);
            if (!w.finished) throw new IllegalStateException("RDB body did not finish the file");
            size = w.written;
            ch.force(true);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // Some file systems cannot open a directory for fsync; the rename itself has happened.
        }
        return size;
    }
}
