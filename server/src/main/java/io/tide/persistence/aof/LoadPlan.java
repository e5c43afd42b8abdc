package io.tide.persistence.aof;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What startup should load from an AOF directory, after {@link AofLoader} has checked every file and cut torn
 * tails and incomplete cross-shard groups: the base file (RDB for the RDB loader, or commands) and, per shard, the
 * incremental files to replay. Thread-safe: immutable; each {@link Replay} opens its own readers, so shards can
 * replay at the same time on their own threads.
 *
 * <p>Replay hands out commands with the database they apply to: the loader consumes SELECT (each file starts in
 * database 0, as Redis's loader does), MULTI and EXEC (a transaction is in the plan only if complete) and the '#'
 * annotations.
 */
public final class LoadPlan {

    /** What the base file holds. */
    public enum BaseFormat { RDB, AOF }

    /** Something {@link AofLoader} cut away; {@code shard} is -1 for the base file. */
    public record Cut(int shard, Path file, long offset, long bytesDropped, String reason) {}

    /** One command to replay and the database it applies to. */
    public record AofCommand(int db, byte[][] argv) {
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder().append(db).append(':');
            for (byte[] a : argv) sb.append(' ').append(new String(a, StandardCharsets.UTF_8));
            return sb.toString();
        }
    }

    /** Receives replayed commands in order. */
    @FunctionalInterface
    public interface CommandSink {
        void command(int db, byte[][] argv) throws IOException;
    }

    /** A file to replay and how many of its bytes. */
    record Segment(Path file, long length) {}

    private static final int BUFFER = 1 << 20;

    private final Path aofDir;
    private final AofManifest manifest;
    private final Path baseFile;
    private final BaseFormat baseFormat;
    private final Segment baseSegment;
    private final long baseCommands;
    private final List<List<Segment>> streams;
    private final long[] commands;
    private final List<Cut> cuts;

    LoadPlan(Path aofDir, AofManifest manifest, Path baseFile, BaseFormat baseFormat, Segment baseSegment,
             long baseCommands, List<List<Segment>> streams, long[] commands, List<Cut> cuts) {
        this.aofDir = aofDir;
        this.manifest = manifest;
        this.baseFile = baseFile;
        this.baseFormat = baseFormat;
        this.baseSegment = baseSegment;
        this.baseCommands = baseCommands;
        this.streams = List.copyOf(streams);
        this.commands = commands.clone();
        this.cuts = List.copyOf(cuts);
    }

    /** The AOF directory ({@code dir/appenddirname}). */
    public Path aofDir() {
        return aofDir;
    }

    /** The manifest read; its {@link AofManifest#lastIncr} per shard is the file to keep appending to. */
    public AofManifest manifest() {
        return manifest;
    }

    /** The base file, or null when there is none. */
    public Path baseFile() {
        return baseFile;
    }

    /** The base file's format (by its content: RDB starts with "REDIS"), or null when there is none. */
    public BaseFormat baseFormat() {
        return baseFormat;
    }

    /** Commands in an AOF-format base (0 for RDB or none). */
    public long baseCommands() {
        return baseCommands;
    }

    /** Number of incremental streams: shards 0 .. shards()-1 (a Redis directory has one). */
    public int shards() {
        return streams.size();
    }

    /** The incremental files of {@code shard}, in replay order. */
    public List<Path> files(int shard) {
        List<Path> out = new ArrayList<>();
        for (Segment s : streams.get(shard)) out.add(s.file());
        return out;
    }

    /** Commands {@code shard} replays (SELECT, MULTI and EXEC not counted). */
    public long commands(int shard) {
        return commands[shard];
    }

    /** Bytes of {@code shard}'s incremental files that are replayed (after cuts). */
    public long bytes(int shard) {
        long n = 0;
        for (Segment s : streams.get(shard)) n += s.length();
        return n;
    }

    /** What was cut, in the order it was decided (torn tails first, then incomplete groups). */
    public List<Cut> cuts() {
        return cuts;
    }

    /** Streams {@code shard}'s commands; the caller closes it. */
    public Replay replay(int shard) {
        return new Replay(streams.get(shard));
    }

    /** Streams the commands of an AOF-format base file (none for RDB or no base); the caller closes it. */
    public Replay replayBase() {
        return new Replay(baseSegment == null ? List.of() : List.of(baseSegment));
    }

    /** Replays {@code shard} into {@code sink}. */
    public void replay(int shard, CommandSink sink) throws IOException {
        try (Replay r = replay(shard)) {
            while (r.next()) sink.command(r.db(), r.argv());
        }
    }

    /** {@code shard}'s commands in memory; for small AOFs and tests (use {@link #replay(int)} for large ones). */
    public List<AofCommand> commandList(int shard) throws IOException {
        List<AofCommand> out = new ArrayList<>();
        replay(shard, (db, argv) -> out.add(new AofCommand(db, argv)));
        return out;
    }

    /** An iterator over the commands of some files. Confined to one thread. */
    public static final class Replay implements AutoCloseable {
        private final List<Segment> segments;
        private int next;
        private AofFileReader reader;
        private int db;
        private byte[][] argv;

        Replay(List<Segment> segments) {
            this.segments = segments;
        }

        /** Advances to the next command; false at the end. */
        public boolean next() throws IOException {
            while (true) {
                if (reader == null) {
                    if (next == segments.size()) return false;
                    Segment s = segments.get(next++);
                    reader = new AofFileReader(s.file(), s.length(), true, BUFFER);
                    db = 0;
                }
                int kind = reader.next();
                switch (kind) {
                    case AofFileReader.COMMAND -> {
                        switch (reader.name) {
                            case AofFileReader.SELECT -> db = selectedDb(reader);
                            case AofFileReader.MULTI, AofFileReader.EXEC -> { }
                            default -> {
                                argv = reader.argv;
                                return true;
                            }
                        }
                    }
                    case AofFileReader.ANNOTATION -> { }
                    case AofFileReader.END -> {
                        reader.close();
                        reader = null;
                    }
                    default -> throw new AofException("The append only file " + reader.path()
                            + " changed while it was loaded (torn at offset " + reader.start + ")");
                }
            }
        }

        private static int selectedDb(AofFileReader r) throws AofException {
            byte[][] a = r.argv;
            if (a.length != 2 || a[1].length == 0 || a[1].length > 9) throw r.corrupt(r.start, "invalid SELECT");
            int n = 0;
            for (byte b : a[1]) {
                if (b < '0' || b > '9') throw r.corrupt(r.start, "invalid SELECT");
                n = n * 10 + (b - '0');
            }
            return n;
        }

        /** The database the current command applies to. */
        public int db() {
            return db;
        }

        /** The current command, name first. */
        public byte[][] argv() {
            return argv;
        }

        /** The file the current command comes from. */
        public Path file() {
            return reader == null ? null : reader.path();
        }

        @Override
        public void close() throws IOException {
            if (reader != null) reader.close();
            reader = null;
            next = segments.size();
        }
    }
}
