package io.tide.persistence.aof;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One shard's incremental AOF stream. Confined to its owner's thread (the shard's event loop): every public method
 * but {@link #failed()}, {@link #lastWriteStatus()} and {@link #durableOffset()} must be called there; the
 * {@link AofFsync} threads touch only the volatile and atomic fields marked "shared" below.
 *
 * <p>Records are encoded into one reusable buffer ({@link #appendCommand} writes RESP straight into it, with a
 * {@code SELECT} when the database changes and a {@code #TS:} annotation when {@code aof-timestamp-enabled} and the
 * second changed). {@link #flush()}, called by the owner once per event-loop iteration, write(2)s the buffer, so a
 * killed process loses nothing flushed; then, with {@code appendfsync always}, it asks its fsync thread for one
 * fsync that covers everything flushed so far (group commit: many appends and one flush cost one fsync).
 * {@link #whenDurable} runs a callback on the owner's executor once an fsync covering an offset has completed, or
 * with {@code ok = false} when the fsync failed or did not finish within {@code aof-fsync-timeout-ms}.
 *
 * <p>Offsets are logical: bytes appended through this writer since it was created, across {@link #rotate}s.
 *
 * <p>Failed state ({@link #failed()}, INFO's {@code aof_last_write_status:err}): set by a write(2) error (the bytes
 * stay buffered and the next flush retries them; the writer first truncates a partial write away) and by an fsync
 * error or timeout; either fails every callback still waiting. A write error clears on the next flush that writes everything; an fsync error clears when an
 * fsync started after it succeeds (the fsync thread retries about once a second, even with no new writes).
 */
public final class AofWriter implements AutoCloseable {

    /** {@code appendfsync}. */
    public enum FsyncPolicy {
        ALWAYS, EVERYSEC, NO;

        /** From the CONFIG value ({@code always}, {@code everysec}, {@code no}). */
        public static FsyncPolicy of(String configValue) {
            return valueOf(configValue.toUpperCase(Locale.ROOT));
        }
    }

    /** Told whether the bytes up to an offset are durable; runs on the owner's executor. */
    @FunctionalInterface
    public interface DurableCallback {
        void done(boolean ok);
    }

    /** Opens a file for appending; the production opener is {@link #openForAppend}, tests pass their own. */
    @FunctionalInterface
    interface ChannelOpener {
        FileChannel open(Path file) throws IOException;
    }

    private static final Logger log = LoggerFactory.getLogger(AofWriter.class);
    private static final byte[] MULTI = "*1\r\n$5\r\nMULTI\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EXEC = "*1\r\n$4\r\nEXEC\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SELECT = "*2\r\n$6\r\nSELECT\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TS = "#TS:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GROUP = "#TIDE-GROUP:".getBytes(StandardCharsets.US_ASCII);

    /** One open file of the stream. Its channel is forced and closed by the fsync thread once retired. */
    static final class Segment {
        final Path path;
        final FileChannel channel;
        /** The logical offset of the file's end when it was opened, and the file's size then. */
        final long startOffset;
        final long startSize;
        /** Shared: the logical offset up to which bytes have been write(2)n into this file. */
        volatile long written;

        Segment(Path path, FileChannel channel, long startOffset, long startSize) {
            this.path = path;
            this.channel = channel;
            this.startOffset = startOffset;
            this.startSize = startSize;
            this.written = startOffset;
        }
    }

    private final AofFsync fsync;
    private final Executor owner;
    private final ChannelOpener opener;
    private FsyncPolicy policy;
    private boolean timestamps;

    // Owner only: the buffer of appended, not yet written bytes.
    private byte[] buf = new byte[64 * 1024];
    private int len;
    private ByteBuffer view = ByteBuffer.wrap(buf);
    private long appended;
    private int selectedDb = -1;
    private long lastTimestamp;
    private boolean writeFailed;
    private String writeError;
    private int seenFailEpoch;
    // Owner only: callbacks waiting for durability, a ring in offset order.
    private long[] waitOffsets = new long[16];
    private DurableCallback[] waitCallbacks = new DurableCallback[16];
    private int waitHead;
    private int waitSize;

    // Shared with the fsync threads.
    volatile Segment current;
    final ConcurrentLinkedQueue<Segment> retiring = new ConcurrentLinkedQueue<>();
    final AtomicBoolean queued = new AtomicBoolean();
    /** This writer's fsync thread ({@link AofFsync#register}). */
    volatile Thread syncer;
    private final AtomicLong durable = new AtomicLong();
    /** The offset covered by the last completed fsync (under {@code no} too: only real fsyncs count, for WAITAOF). */
    private final AtomicLong fsynced = new AtomicLong();
    private final AtomicLong requested = new AtomicLong();
    private final AtomicLong pendingSince = new AtomicLong();
    private final AtomicInteger failEpoch = new AtomicInteger();
    private final AtomicBoolean drainPosted = new AtomicBoolean();
    private final Runnable drainTask = this::drainDurable;
    private volatile boolean fsyncFailed;
    private volatile long fsyncFailedAt;
    private volatile String fsyncError;
    private volatile boolean writeFailedShared;
    private volatile boolean closed;
    private volatile FsyncPolicy sharedPolicy;

    /**
     * Opens (creating it if needed) {@code file} to append to, on the owner's thread.
     *
     * @param owner runs the {@link #whenDurable} callbacks: the shard's event loop
     */
    /** The latency monitor write(2)s and always-fsyncs are sampled into (Redis's aof-write, aof-fsync-always). */
    private volatile io.tide.metrics.LatencyMonitor latency;

    /** Sets the latency monitor; returns this writer. */
    public AofWriter latency(io.tide.metrics.LatencyMonitor m) {
        this.latency = m;
        return this;
    }

    public AofWriter(Path file, FsyncPolicy policy, boolean timestamps, AofFsync fsync, Executor owner)
            throws IOException {
        this(file, policy, timestamps, fsync, owner, AofWriter::openForAppend);
    }

    AofWriter(Path file, FsyncPolicy policy, boolean timestamps, AofFsync fsync, Executor owner,
              ChannelOpener opener) throws IOException {
        this.fsync = fsync;
        this.owner = owner;
        this.opener = opener;
        this.policy = policy;
        this.sharedPolicy = policy;
        this.timestamps = timestamps;
        this.current = open(file, 0);
        fsync.register(this);
    }

    static FileChannel openForAppend(Path file) throws IOException {
        return FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.CREATE);
    }

    private Segment open(Path file, long offset) throws IOException {
        FileChannel ch = opener.open(file);
        long size = ch.size();
        ch.position(size);
        return new Segment(file, ch, offset, size);
    }

    // ---------------------------------------------------------------- appending (owner thread)

    /** Appends an already RESP-encoded record verbatim; it does not change the database later records assume. */
    public void append(byte[] record) {
        put(record);
    }

    /** Appends an already RESP-encoded record that applies to {@code db}, preceded by a SELECT if needed. */
    public void append(int db, byte[] record) {
        annotateTime();
        select(db);
        put(record);
    }

    /** Appends one command (name first) that applies to {@code db}, encoded as RESP. */
    public void appendCommand(int db, byte[][] argv) {
        annotateTime();
        select(db);
        putCommand(argv);
    }

    /**
     * Appends this shard's part of an operation spanning {@code parts} shards, with the server-wide sequence number
     * {@code seq}: {@code #TIDE-GROUP:<seq>:<parts>}, then MULTI, the commands, EXEC. Recovery keeps a group only if
     * every part of it is complete.
     */
    public void appendGroup(long seq, int parts, int db, List<byte[][]> commands) {
        annotateTime();
        select(db);
        put(GROUP);
        putLong(seq);
        putByte((byte) ':');
        putLong(parts);
        putCrlf();
        put(MULTI);
        for (byte[][] argv : commands) putCommand(argv);
        put(EXEC);
    }

    /**
     * Appends a transaction whose commands may apply to different databases: MULTI, each command after the SELECT
     * it needs, EXEC; with {@code seq > 0} preceded by the group marker of a part of a cross-shard operation (the
     * SELECT of the first command goes before the marker, so the marker stays right before MULTI).
     */
    public void appendTransaction(long seq, int parts, int[] dbs, List<byte[][]> commands) {
        annotateTime();
        select(dbs[0]);
        if (seq > 0) {
            put(GROUP);
            putLong(seq);
            putByte((byte) ':');
            putLong(parts);
            putCrlf();
        }
        put(MULTI);
        for (int i = 0; i < commands.size(); i++) {
            select(dbs[i]);
            putCommand(commands.get(i));
        }
        put(EXEC);
    }

    /** Length of the buffer array (its allocation, whatever it holds now). */
    public int capacity() {
        return buf.length;
    }

    /** Bytes appended and not yet written to the file. */
    public int buffered() {
        return len;
    }

    /** Bytes appended so far (flushed or not); the offset to pass to {@link #whenDurable} after appending. */
    public long offset() {
        return appended;
    }

    /** Bytes in the current file, buffered ones included (for auto-aof-rewrite). */
    public long fileSize() {
        Segment s = current;
        return s.startSize + appended - s.startOffset;
    }

    /** The file being appended to. */
    public Path file() {
        return current.path;
    }

    /** {@code appendfsync} from now on. */
    public void policy(FsyncPolicy policy) {
        this.policy = policy;
        this.sharedPolicy = policy;
    }

    public FsyncPolicy policy() {
        return policy;
    }

    /** {@code aof-timestamp-enabled} from now on. */
    public void timestamps(boolean enabled) {
        this.timestamps = enabled;
        if (!enabled) lastTimestamp = 0;
    }

    private void annotateTime() {
        if (!timestamps) return;
        long now = System.currentTimeMillis() / 1000;
        if (now <= lastTimestamp) return;
        lastTimestamp = now;
        put(TS);
        putLong(now);
        putCrlf();
    }

    private void select(int db) {
        if (db == selectedDb) return;
        selectedDb = db;
        put(SELECT);
        int digits = digits(db);
        putByte((byte) '$');
        putLong(digits);
        putCrlf();
        putLong(db);
        putCrlf();
    }

    private void putCommand(byte[][] argv) {
        putByte((byte) '*');
        putLong(argv.length);
        putCrlf();
        for (byte[] arg : argv) {
            putByte((byte) '$');
            putLong(arg.length);
            putCrlf();
            put(arg);
            putCrlf();
        }
    }

    private void ensure(int more) {
        if (len + more <= buf.length) return;
        int cap = buf.length;
        while (cap < len + more) cap = Math.multiplyExact(cap, 2);
        buf = java.util.Arrays.copyOf(buf, cap);
        view = ByteBuffer.wrap(buf);
    }

    private void put(byte[] bytes) {
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, len, bytes.length);
        len += bytes.length;
        appended += bytes.length;
    }

    private void putByte(byte b) {
        ensure(1);
        buf[len++] = b;
        appended++;
    }

    private void putCrlf() {
        ensure(2);
        buf[len++] = '\r';
        buf[len++] = '\n';
        appended += 2;
    }

    private void putLong(long v) {
        if (v < 0) {
            putByte((byte) '-');
            if (v == Long.MIN_VALUE) {
                put("9223372036854775808".getBytes(StandardCharsets.US_ASCII));
                return;
            }
            v = -v;
        }
        int n = digits(v);
        ensure(n);
        for (int i = len + n - 1; i >= len; i--) {
            buf[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        len += n;
        appended += n;
    }

    private static int digits(long v) {
        int n = 1;
        while (v >= 10) {
            v /= 10;
            n++;
        }
        return n;
    }

    // ---------------------------------------------------------------- flushing (owner thread)

    /**
     * Writes everything appended to the file (so that a kill -9 afterwards loses nothing), then under
     * {@code always} requests an fsync covering it. A write error sets the failed state; the bytes stay buffered
     * and the next flush retries them.
     */
    public void flush() {
        if (len == 0) return;
        Segment seg = current;
        int done = 0;
        long started = System.nanoTime();
        try {
            view.clear().limit(len);
            while (view.hasRemaining()) {
                int before = view.position();
                seg.channel.write(view);
                done = view.position();
                if (done == before) throw new IOException("write(2) wrote nothing");
            }
        } catch (IOException e) {
            writeFailed(seg, done, e);
            return;
        }
        len = 0;
        seg.written = appended;
        io.tide.metrics.LatencyMonitor lm = latency;
        if (lm != null) lm.sampleIfNeeded("aof-write", (System.nanoTime() - started) / 1_000_000);
        if (writeFailed) {
            log.warn("AOF write error looks solved, writing to {} again", seg.path);
            writeFailed = false;
            writeFailedShared = false;
            writeError = null;
        }
        switch (policy) {
            case ALWAYS -> requestSync();
            case NO -> {
                durable.accumulateAndGet(appended, Math::max);
                if (waitSize > 0) postDrain();
            }
            case EVERYSEC -> { }
        }
    }

    private void writeFailed(Segment seg, int done, IOException e) {
        long fileEnd = seg.startSize + (seg.written - seg.startOffset);
        if (done > 0) {
            try {
                seg.channel.truncate(fileEnd);   // as Redis: no half record in the file
                seg.channel.position(fileEnd);
            } catch (IOException te) {
                // The partial bytes stay in the file: keep only the rest buffered.
                System.arraycopy(buf, done, buf, 0, len - done);
                len -= done;
                seg.written += done;
            }
        }
        if (!writeFailed) {
            log.warn("Error writing to the AOF file {}: {}", seg.path, e.toString());
        }
        writeFailed = true;
        writeFailedShared = true;
        writeError = e.getMessage() == null ? e.toString() : e.getMessage();
        failEpoch.incrementAndGet();   // every waiter fails: a client must not wait on a full disk
        postDrain();
    }

    /** Asks the fsync thread for an fsync covering everything written so far. Thread-safe. */
    void requestSync() {
        requested.accumulateAndGet(current.written, Math::max);
        pendingSince.compareAndSet(0, System.nanoTime());
        fsync.enqueue(this);
    }

    /**
     * Runs {@code callback} on the owner's executor once the bytes up to {@code offset} are durable: covered by a
     * completed fsync (under {@code no}: written), or with {@code false} when the fsync fails or times out, or the
     * write fails. Offsets should be passed in increasing order (callbacks complete in that order).
     */
    public void whenDurable(long offset, DurableCallback callback) {
        if (waitSize == waitOffsets.length) {
            long[] o = new long[waitSize * 2];
            DurableCallback[] c = new DurableCallback[waitSize * 2];
            for (int i = 0; i < waitSize; i++) {
                o[i] = waitOffsets[(waitHead + i) % waitOffsets.length];
                c[i] = waitCallbacks[(waitHead + i) % waitOffsets.length];
            }
            waitOffsets = o;
            waitCallbacks = c;
            waitHead = 0;
        }
        int tail = (waitHead + waitSize) % waitOffsets.length;
        waitOffsets[tail] = offset;
        waitCallbacks[tail] = callback;
        waitSize++;
        if (offset <= durable.get()) postDrain();
    }

    /** Completes the callbacks whose offsets are durable, and fails the rest after a failure. Owner thread. */
    private void drainDurable() {
        drainPosted.set(false);
        long d = durable.get();
        int epoch = failEpoch.get();
        boolean fail = epoch != seenFailEpoch;
        seenFailEpoch = epoch;
        while (waitSize > 0) {
            long off = waitOffsets[waitHead];
            if (off > d && !fail) break;
            complete(off <= d);
        }
    }

    private void complete(boolean ok) {
        DurableCallback cb = waitCallbacks[waitHead];
        waitCallbacks[waitHead] = null;
        waitHead = (waitHead + 1) % waitOffsets.length;
        waitSize--;
        try {
            cb.done(ok);
        } catch (RuntimeException e) {
            log.error("AOF durability callback failed", e);
        }
    }

    private void postDrain() {
        if (drainPosted.compareAndSet(false, true)) owner.execute(drainTask);
    }

    /** Whether writes should be refused: the last write(2) or fsync failed (or timed out). Thread-safe. */
    public boolean failed() {
        return writeFailedShared || fsyncFailed;
    }

    /** INFO's {@code aof_last_write_status}: {@code ok} or {@code err}. Thread-safe. */
    public String lastWriteStatus() {
        return failed() ? "err" : "ok";
    }

    /** Why the writer is failed, or null. Owner thread. */
    public String lastError() {
        return writeFailed ? writeError : fsyncFailed ? fsyncError : null;
    }

    /** The offset up to which an fsync has completed (under {@code no}: written). Thread-safe. */
    public long durableOffset() {
        return durable.get();
    }

    /**
     * The offset covered by the last completed fsync of this writer's files, whatever the policy: under {@code no}
     * flushing does not move it, only the fsyncs Tide itself runs (a rotation's, the close's). What WAITAOF counts,
     * as Redis's fsynced_reploff. Thread-safe.
     */
    public long fsyncedOffset() {
        return fsynced.get();
    }

    /** Asks for an fsync of everything written so far unless one already covers it (WAITAOF under everysec). Thread-safe. */
    public void syncSoon() {
        if (!closed && current.written > fsynced.get()) requestSync();
    }

    // ---------------------------------------------------------------- rotation and close (owner thread)

    /**
     * Switches to a new incremental file (for a rewrite): flushes into the old one, which the fsync thread then
     * fsyncs and closes, and re-issues SELECT and #TS in the new one. If the new file cannot be opened the writer
     * keeps the old one and the exception propagates.
     */
    public void rotate(Path newIncrFile) throws IOException {
        flush();
        Segment old = current;
        Segment next = open(newIncrFile, old.written);   // bytes a write error left buffered go to the new file
        retiring.add(old);
        current = next;
        selectedDb = -1;
        lastTimestamp = 0;
        requestSync();
    }

    /** Flushes, fsyncs and closes, on the owner thread; callbacks still waiting run with the outcome. */
    @Override
    public void close() throws IOException {
        if (closed) return;
        flush();
        closed = true;
        fsync.unregister(this);
        IOException err = null;
        for (Segment s; (s = retiring.poll()) != null; ) {
            err = forceAndClose(s, err);
        }
        Segment cur = current;
        long w = cur.written;
        err = forceAndClose(cur, err);
        if (err == null && len == 0) {
            durable.accumulateAndGet(w, Math::max);
            fsynced.accumulateAndGet(w, Math::max);
        } else {
            failEpoch.incrementAndGet();
        }
        drainDurable();
        if (err != null) throw err;
        if (len > 0) throw new AofException("AOF file " + cur.path + " closed with " + len + " bytes not written: "
                + writeError);
    }

    private static IOException forceAndClose(Segment s, IOException err) {
        try {
            s.channel.force(false);
        } catch (IOException e) {
            if (err == null) err = e;
        }
        try {
            s.channel.close();
        } catch (IOException e) {
            if (err == null) err = e;
        }
        return err;
    }

    // ---------------------------------------------------------------- fsync side (AofFsync threads)

    boolean closed() {
        return closed;
    }

    FsyncPolicy sharedPolicy() {
        return sharedPolicy;
    }

    /** Whether bytes written are not yet covered by an fsync, or an fsync error awaits a retry. Thread-safe. */
    boolean needsSync() {
        return current.written > durable.get() || fsyncFailed || !retiring.isEmpty();
    }

    /** Fsyncs the retired files and the current one; on the fsync thread. */
    void syncOnFsyncThread() {
        long started = System.nanoTime();
        Segment cur = current;
        long w = cur.written;
        boolean curDone = false;
        IOException err = null;
        for (Segment s; (s = retiring.poll()) != null; ) {
            err = forceAndClose(s, err);
            if (s == cur) curDone = true;
        }
        if (!curDone) {
            try {
                long t0 = System.nanoTime();
                cur.channel.force(false);
                io.tide.metrics.LatencyMonitor lm = latency;
                if (lm != null && sharedPolicy == FsyncPolicy.ALWAYS) {
                    lm.sampleIfNeeded("aof-fsync-always", (System.nanoTime() - t0) / 1_000_000);
                }
            } catch (ClosedChannelException e) {
                if (!closed) err = e;
            } catch (IOException e) {
                err = e;
            }
        }
        if (closed) return;
        if (err == null) {
            fsynced(w, started);
        } else {
            fsyncFailed("fsync of " + cur.path + " failed: " + err);
        }
    }

    private void fsynced(long w, long started) {
        fsynced.accumulateAndGet(w, Math::max);
        durable.accumulateAndGet(w, Math::max);
        if (fsyncFailed && started - fsyncFailedAt > 0) {
            fsyncFailed = false;
            fsyncError = null;
            log.warn("AOF fsync of {} succeeded again", current.path);
        }
        if (w >= requested.get()) {
            pendingSince.set(0);
            if (requested.get() > w) pendingSince.compareAndSet(0, System.nanoTime());
        }
        postDrain();
    }

    private void fsyncFailed(String why) {
        fsyncFailedAt = System.nanoTime();
        fsyncError = why;
        fsyncFailed = true;
        pendingSince.set(0);
        failEpoch.incrementAndGet();
        log.warn("{}; writes waiting for it fail and the AOF is in error until an fsync succeeds", why);
        postDrain();
    }

    /** Declares a timeout if the oldest fsync asked for has waited longer than {@code timeoutNanos}. */
    void checkTimeout(long now, long timeoutNanos, long timeoutMillis) {
        long since = pendingSince.get();
        if (since == 0 || now - since <= timeoutNanos || durable.get() >= requested.get()) return;
        if (!pendingSince.compareAndSet(since, 0)) return;
        fsyncFailed("fsync of " + current.path + " did not complete within " + timeoutMillis + " ms"
                + " (aof-fsync-timeout-ms)");
    }
}
