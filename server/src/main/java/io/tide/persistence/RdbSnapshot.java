package io.tide.persistence;

import io.tide.persistence.rdb.RdbEncoder;
import io.tide.persistence.rdb.RdbFileWriter;
import io.tide.persistence.rdb.RdbOutput;
import io.tide.persistence.rdb.RdbVersion;
import io.tide.shard.Shard;
import io.tide.store.Database;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One fork-less snapshot of the whole dataset into an RDB file. Thread-safe where stated: {@link #begin} on the
 * coordinator with every shard parked; each shard's part runs on that shard's thread; one writer thread owns the
 * file.
 *
 * <p>How it stays a point-in-time image without a fork or a copy. {@link #begin} runs while the coordinator has
 * every shard parked, so no operation is half done on any shard: it starts {@link Database#beginSnapshot} on every
 * database of every shard at that one instant (cross-shard operations are wholly before or wholly after it). From
 * then on each shard walks its own tables a slice at a time between its other work ({@link Part#walk}), and any
 * write that reaches an entry the walk has not saved yet saves it first (the store does this on the write seam), so
 * every entry is written exactly as it was at the instant. Each shard serializes into its own chunk buffer (each
 * chunk begins with SELECTDB, which RDB allows to repeat) and hands full chunks to the writer thread, which streams
 * them into a temp file behind the header and aux fields, then adds the functions, EOF and the CRC64, fsyncs, and
 * renames over the target. The extra memory is the queued chunks ({@link #MAX_QUEUED} at most, after which the
 * walks wait for the disk) plus the values that writes had to save early.
 */
final class RdbSnapshot {

    /** Chunk size at which a shard hands its buffer to the writer. */
    private static final int CHUNK = 256 * 1024;
    /**
     * Serialized bytes queued for the writer beyond which the walks pause. The writer, which compresses, is often the
     * slower side: each queued buffer is live heap that young collections copy (at 32 MB, pauses of 15-30 ms).
     */
    private static final long MAX_QUEUED = 4L * 1024 * 1024;
    /** Time a walk slice may take before the shard serves its clients again. */
    private static final long SLICE_NANOS = 500_000;
    /**
     * While a few clients wait on each reply (commands ran in the last {@link #LIGHT_WINDOW} ns, but no more than
     * {@link #LIGHT_COMMANDS} since the last slice, in the whole server), slices are this long and the next one waits
     * {@link #LIGHT_GAP} ns: such a client sends its next request as soon as it reads a reply, and would otherwise find
     * a slice running on nearly every request, with the shard thread never sleeping to leave the client a core (one
     * connection's GETs fell from about 20,000/s to 3,000-6,000/s during a save; see docs/benchmarks/performance.md).
     * An idle server, and one with more requests between slices than that, walks in {@link #SLICE_NANOS} slices back
     * to back: a loaded server reads its sockets between slices anyway, and shorter slices with pauses cost it
     * throughput and made the save take longer.
     */
    private static final long LIGHT_SLICE = 50_000;
    private static final long LIGHT_GAP = 50_000;
    private static final long LIGHT_WINDOW = 10_000_000;
    private static final long LIGHT_COMMANDS = 8;
    /** Capacity of a chunk buffer: a chunk plus the entry that took it past {@link #CHUNK}, most of the time. */
    private static final int BUFFER = CHUNK + 4096;
    /**
     * A part of the image on its way to the writer: {@code bytes[0, length)}, whose strings listed in
     * {@code spans[0, spanInts)} the writer compresses (see {@link RdbOutput#appendCompressed}).
     */
    private record Chunk(byte[] bytes, int length, int[] spans, int spanInts) {}
    private static final int[] NO_SPANS = new int[0];
    private static final Chunk SHARD_DONE = new Chunk(new byte[0], 0, NO_SPANS, 0);

    private final Shard[] shards;
    private final Path target;
    private final boolean compress;
    private final boolean checksum;
    private final List<byte[]> functions;
    private final String redisVersion;
    private final long usedMemory;
    private final boolean aofBase;
    /**
     * Write the image as commands instead of RDB (an AOF base with {@code aof-use-rdb-preamble no}): SELECT, then per
     * entry SET (with PXAT) for a string and RESTORE ... ABSTTL for any other value, functions as FUNCTION LOAD.
     */
    boolean commands;
    /** Fsync every {@link #INCREMENTAL_FSYNC} bytes while writing (Redis's rdb-save/aof-rewrite-incremental-fsync). */
    boolean incrementalFsync = true;
    private static final long INCREMENTAL_FSYNC = 4L * 1024 * 1024;
    private final LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    /**
     * Chunk buffers the writer has written, for the shards to fill again: the image's bytes are handed over without a
     * copy and without a new array per chunk (at most {@link #MAX_QUEUED} of them exist, as before).
     */
    private final ConcurrentLinkedQueue<byte[]> freeBuffers = new ConcurrentLinkedQueue<>();
    /** The chunks' lists of strings to compress, written, for the shards to fill again. */
    private final ConcurrentLinkedQueue<int[]> freeSpans = new ConcurrentLinkedQueue<>();
    private final AtomicLong queued = new AtomicLong();
    private final AtomicInteger shardsLeft;
    private final CompletableFuture<Long> done = new CompletableFuture<>();
    private volatile boolean failed;
    /** Set when the server abandoned the snapshot (SHUTDOWN, SAVE): not a failure of the save itself. */
    volatile boolean aborted;
    private Part[] parts;
    private int version;
    /** Set by {@link #start}: full chunks go to the writer thread (SAVE drains them itself). */
    private volatile boolean streaming;
    /** Per shard id: its dirty counter at the instant of the image. */
    final long[] dirtyAtImage;
    /** Per database: keys and keys with an expiry at the instant (RESIZEDB hints for the loader). */
    private long[] dbKeys = new long[0];
    private long[] dbExpires = new long[0];
    final long startedMs = System.currentTimeMillis();

    RdbSnapshot(Shard[] shards, Path target, boolean compress, boolean checksum, List<byte[]> functions,
                String redisVersion, long usedMemory, boolean aofBase) {
        this.shards = shards;
        this.target = target;
        this.compress = compress;
        this.checksum = checksum;
        this.functions = functions;
        this.redisVersion = redisVersion;
        this.usedMemory = usedMemory;
        this.aofBase = aofBase;
        this.shardsLeft = new AtomicInteger(shards.length);
        this.dirtyAtImage = new long[shards.length];
    }

    /** Completes with the file's size once it is durable under its name, or exceptionally. */
    CompletableFuture<Long> done() {
        return done;
    }

    /**
     * The instant of the image: on the coordinator with every shard parked. {@code forcedVersion} 0 picks the
     * oldest RDB version that holds the data (10, or 12 when a hash has field TTLs).
     */
    void begin(int forcedVersion) {
        begin(forcedVersion, true);
    }

    /**
     * {@code writerThread}: a writer thread ({@link #start}) will write the image, and compresses its strings, so the
     * shards leave that to it; SAVE compresses as it goes (it writes on the coordinator, with the shards parked).
     */
    private void begin(int forcedVersion, boolean writerThread) {
        boolean fieldTtls = false;
        for (Shard s : shards) {
            for (int i = 0; i < s.databases(); i++) fieldTtls |= s.db(i).mayHaveFieldTtls();
        }
        version = forcedVersion != 0 ? forcedVersion : fieldTtls ? RdbVersion.WRITE_FIELD_TTLS : RdbVersion.WRITE;
        parts = new Part[shards.length];
        int dbs = shards.length == 0 ? 0 : shards[0].databases();
        dbKeys = new long[dbs];
        dbExpires = new long[dbs];
        for (Shard s : shards) {
            for (int i = 0; i < dbs; i++) {
                dbKeys[i] += s.db(i).size();
                dbExpires[i] += s.db(i).volatileCount();
            }
        }
        for (int k = 0; k < shards.length; k++) {
            Shard s = shards[k];
            Part p = new Part(s, writerThread);
            parts[k] = p;
            dirtyAtImage[s.id()] = s.writes().dirty();
            for (int i = 0; i < s.databases(); i++) {
                int db = i;
                p.walks[i] = s.db(i).beginSnapshot(new io.tide.store.SnapshotSink() {
                    @Override
                    public void save(byte[] key, Object value, long expireAt) {
                        p.save(db, key, value, expireAt);
                    }

                    @Override
                    public void save(byte[] slab, int keyOff, int keyLen, Object value, int valueOff, int valueLen,
                                     long expireAt) {
                        // commands (KeyStates) keep what they get: those take the interface's copies
                        if (commands) io.tide.store.SnapshotSink.super.save(slab, keyOff, keyLen, value, valueOff,
                                valueLen, expireAt);
                        else p.saveInPlace(db, slab, keyOff, keyLen, value, valueOff, valueLen, expireAt);
                    }
                });
            }
        }
    }

    /** After {@link #begin}, off the coordinator: starts the writer and the shards' walks. */
    void start() {
        streaming = true;
        Thread.ofPlatform().name("tide-rdb-writer").daemon(true).start(this::write);
        for (Part p : parts) p.shard.executeOnData(p::walk);
    }

    /**
     * SAVE: the whole image at once, on the coordinator with every shard parked (the clients wait, as they do for
     * Redis's SAVE). Returns the file's size.
     */
    long saveNow(int forcedVersion) throws IOException {
        begin(forcedVersion, false);
        try {
            return RdbFileWriter.writeAtomically(target, w -> {
                if (!commands) writeHead(w);
                for (Part p : parts) {
                    for (Database.Snapshot walk : p.walks) {
                        while (!walk.step(4096)) {
                            if (p.out.size() >= CHUNK) p.drainTo(w);
                        }
                        if (p.out.size() >= CHUNK) p.drainTo(w);
                    }
                    p.drainTo(w);
                }
                finishFile(w);
            });
        } finally {
            for (Part p : parts) p.cancel();
        }
    }

    /** Abandons the snapshot: shards stop feeding it and the writer removes its temp file. */
    void cancel() {
        aborted = true;
        failed = true;
        for (Part p : parts) p.shard.executeOnData(p::cancel);
        queue.add(SHARD_DONE);
    }

    /** {@link #cancel} with every shard parked, so that a new snapshot may begin at once. */
    void cancelParked() {
        aborted = true;
        failed = true;
        for (Part p : parts) p.cancel();
        queue.add(SHARD_DONE);
    }

    /** After the entries: the functions and, for RDB, EOF and the checksum. Returns the file's size. */
    private long finishFile(RdbFileWriter w) throws IOException {
        if (!commands) {
            w.functions(functions);
            return w.finish(checksum);
        }
        RdbOutput tail = new RdbOutput(false);
        for (byte[] code : functions) {
            putCommand(tail, new byte[][] {bytes("FUNCTION"), bytes("LOAD"), bytes("REPLACE"), code});
        }
        w.raw(tail);
        w.markFinished();
        return w.written();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** RESP: {@code *n} then each argument as a bulk string. */
    private static void putCommand(RdbOutput out, byte[][] argv) {
        out.write(bytes("*" + argv.length + "\r\n"));
        for (byte[] a : argv) {
            out.write(bytes("$" + a.length + "\r\n"));
            out.write(a);
            out.write(bytes("\r\n"));
        }
    }

    private void writeHead(RdbFileWriter w) throws IOException {
        w.header(version);
        w.standardAux(redisVersion, System.currentTimeMillis() / 1000, usedMemory, aofBase);
        // Each database's size up front, as Redis's RESIZEDB, so a loader sizes its tables once (the entries follow
        // in chunks, each with its own SELECTDB).
        RdbOutput hints = new RdbOutput(false);
        for (int i = 0; i < dbKeys.length; i++) {
            if (dbKeys[i] == 0) continue;
            RdbEncoder.writeSelectDb(hints, i);
            RdbEncoder.writeResizeDb(hints, dbKeys[i], dbExpires[i]);
        }
        if (hints.size() > 0) w.raw(hints);
    }

    /**
     * Set for a replication full sync: the image goes to this channel (the replicas' sockets) instead of a file, with
     * no fsync or rename. Its {@code write} must be done with the bytes when it returns (it copies what it keeps): the
     * chunk buffers are filled again afterwards.
     */
    java.nio.channels.WritableByteChannel stream;

    /** The writer thread: streams the chunks into the temp file (or {@link #stream}) and finishes it. */
    private void write() {
        if (stream != null) {
            writeStream();
            return;
        }
        Path dir = target.toAbsolutePath().getParent();
        Path temp = dir.resolve("temp-" + ProcessHandle.current().pid() + "-" + Thread.currentThread().threadId() + ".rdb");
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            RdbFileWriter w = new RdbFileWriter(ch);
            if (!commands) writeHead(w);
            long[] forcedAt = {0};
            drainChunks(w, () -> {
                if (incrementalFsync && w.written() - forcedAt[0] >= INCREMENTAL_FSYNC) {
                    ch.force(false);
                    forcedAt[0] = w.written();
                }
            });
            long size = finishFile(w);
            ch.force(true);
            ch.close();
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (java.nio.file.AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            } catch (IOException ignored) {
                // some file systems cannot fsync a directory; the rename has happened
            }
            done.complete(size);
        } catch (IOException | RuntimeException | InterruptedException e) {
            failed = true;
            for (Part p : parts) p.shard.executeOnData(p::cancel);
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // best effort
            }
            done.completeExceptionally(e);
        }
    }

    /** Work after each chunk written (an incremental fsync). */
    private interface AfterChunk {
        void run() throws IOException;
    }

    /**
     * Writes the shards' chunks as they arrive until every shard is done, compressing the strings they left to it
     * (the LZF attempts were half of a shard thread's time in a save of random 100-byte values); {@code after} runs
     * after each chunk.
     */
    private void drainChunks(RdbFileWriter w, AfterChunk after) throws IOException, InterruptedException {
        RdbOutput packed = compress ? new RdbOutput(BUFFER + BUFFER / 4, true) : null;
        int left = shards.length;
        while (left > 0) {
            Chunk chunk = queue.take();
            if (failed) throw new IOException("snapshot cancelled");
            if (chunk == SHARD_DONE) {
                left--;
                continue;
            }
            queued.addAndGet(-chunk.length());
            if (chunk.spanInts() > 0) {
                packed.reset();
                packed.appendCompressed(chunk.bytes(), chunk.length(), chunk.spans(), chunk.spanInts());
                w.raw(packed.array(), 0, packed.size());
            } else {
                w.raw(chunk.bytes(), 0, chunk.length());
            }
            if (chunk.spans() != NO_SPANS) freeSpans.add(chunk.spans());
            // Only buffers of the usual size go back: one grown for a large value is dropped.
            if (chunk.bytes().length == BUFFER) freeBuffers.add(chunk.bytes());
            after.run();
        }
    }

    /** {@link #write} for a replication stream: the same bytes, into {@link #stream}. */
    private void writeStream() {
        try {
            RdbFileWriter w = new RdbFileWriter(stream);
            writeHead(w);
            drainChunks(w, () -> { });
            done.complete(finishFile(w));
        } catch (IOException | RuntimeException | InterruptedException e) {
            failed = true;
            for (Part p : parts) p.shard.executeOnData(p::cancel);
            done.completeExceptionally(e);
        }
    }

    /** One shard's side of the snapshot. Confined to that shard's thread (or the coordinator while it is parked). */
    private final class Part {
        final Shard shard;
        final Database.Snapshot[] walks;
        final RdbOutput out;
        int chunkDb = -1;
        int nextDb;
        /** The server's command count at the start of the last slice (-1 before the first), and when it last changed. */
        long commandsSeen = -1;
        long commandsChangedAt = System.nanoTime() - LIGHT_WINDOW;
        boolean cancelled;

        Part(Shard shard, boolean deferCompression) {
            this.shard = shard;
            this.out = new RdbOutput(BUFFER, compress, deferCompression);
            this.walks = new Database.Snapshot[shard.databases()];
        }

        /** An RDB entry read where the database keeps it (see {@link io.tide.store.SnapshotSink}). */
        void saveInPlace(int db, byte[] slab, int keyOff, int keyLen, Object value, int valueOff, int valueLen,
                         long expireAt) {
            selectDb(db);
            RdbEncoder.writeEntry(out, slab, keyOff, keyLen, value, valueOff, valueLen, expireAt, version);
            handOverIfFull();
        }

        /** An entry of the image, from the walk or from a write that reached it first. */
        void save(int db, byte[] key, Object value, long expireAt) {
            if (commands) {
                if (chunkDb != db) {
                    putCommand(out, new byte[][] {bytes("SELECT"), bytes(Integer.toString(db))});
                    chunkDb = db;
                }
                for (byte[][] c : io.tide.journal.KeyStates.ofValue(key, value, expireAt)) putCommand(out, c);
                handOverIfFull();
                return;
            }
            selectDb(db);
            RdbEncoder.writeEntry(out, key, value, expireAt, version);
            handOverIfFull();
        }

        /** An RDB SELECTDB opcode unless this chunk's entries are already in {@code db}. */
        private void selectDb(int db) {
            if (chunkDb != db) {
                RdbEncoder.writeSelectDb(out, db);
                chunkDb = db;
            }
        }

        private void handOverIfFull() {
            if (out.size() >= CHUNK && streaming && !cancelled) handOver();
        }

        private void handOver() {
            int length = out.size();
            int spanInts = out.spanInts();
            int[] freshSpans = spanInts == 0 ? null : freeSpans.poll();
            int[] spans = spanInts == 0 ? NO_SPANS : out.swapSpans(freshSpans != null ? freshSpans : new int[0]);
            byte[] fresh = freeBuffers.poll();
            byte[] full = out.swap(fresh != null ? fresh : new byte[BUFFER]);
            chunkDb = -1;
            queued.addAndGet(length);
            queue.add(new Chunk(full, length, spans, spanInts));
        }

        void drainTo(RdbFileWriter w) throws IOException {
            w.raw(out);
            out.reset();
            chunkDb = -1;
        }

        /** One slice of the walk; re-posts itself until this shard's image is complete. */
        void walk() {
            if (cancelled || failed) return;
            if (queued.get() > MAX_QUEUED) { // the disk is behind: let it catch up
                shard.scheduleOnData(this::walk, 1_000_000);
                return;
            }
            long now = System.nanoTime();
            long commands = 0;
            for (Shard s : shards) commands += s.stats().commandsProcessed; // another shard's figure may lag: a hint
            long since = commandsSeen < 0 ? 0 : commands - commandsSeen;
            commandsSeen = commands;
            if (since != 0) commandsChangedAt = now;
            boolean light = now - commandsChangedAt < LIGHT_WINDOW && since <= LIGHT_COMMANDS;
            long until = now + (light ? LIGHT_SLICE : SLICE_NANOS);
            while (nextDb < walks.length) {
                if (walks[nextDb].step(256)) {
                    nextDb++;
                } else if (System.nanoTime() > until) {
                    // Scheduled, not executed: a task posted from a task runs in the same batch, and Netty runs
                    // a batch for up to a second before it looks at the sockets again. A scheduled task waits
                    // for the next loop iteration, so each slice lets the shard serve its clients first.
                    shard.scheduleOnData(this::walk, light ? LIGHT_GAP : 0);
                    return;
                }
            }
            if (out.size() > 0) handOver();
            cancelled = true; // done: writes no longer feed this part (every walk has finished, so none do)
            queue.add(SHARD_DONE);
            shardsLeft.decrementAndGet();
        }

        void cancel() {
            cancelled = true;
            for (Database.Snapshot walk : walks) {
                if (walk != null) walk.cancel();
            }
        }
    }
}
