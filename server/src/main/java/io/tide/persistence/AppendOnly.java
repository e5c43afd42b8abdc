package io.tide.persistence;

import io.tide.config.ConfigRegistry;
import io.tide.journal.Effect;
import io.tide.journal.JournalSink;
import io.tide.persistence.aof.AofFsync;
import io.tide.persistence.aof.AofLoader;
import io.tide.persistence.aof.AofManifest;
import io.tide.persistence.aof.AofWriter;
import io.tide.persistence.aof.LoadPlan;
import io.tide.shard.Shard;
import io.tide.shard.ShardSet;
import io.tide.store.EncodingLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's append-only file: loading it at startup and one {@link AofWriter} per shard fed by that shard's
 * journal. Thread-safe: set up on the starting thread before clients can write, then each shard's part is confined
 * to that shard's thread (or the coordinator while it is parked); the state INFO reads is volatile.
 *
 * <p>Each shard's journal sink appends its records to the shard's writer. The writer is flushed (write(2)) before any
 * reply leaves the shard: by the connection before it writes to its socket, by a shard before it posts hop replies
 * home, by the coordinator before it posts the replies of an operation it ran; so a killed process loses nothing that
 * was acknowledged, under every fsync policy. Under {@code appendfsync always} the dispatcher also holds each write's
 * reply until {@link AofWriter#whenDurable} says its bytes are fsynced; the fsyncs of everything flushed meanwhile
 * are coalesced (group commit). See docs/decisions/0007 for the files, 0008 for the journal.
 */
public final class AppendOnly {

    private static final Logger LOG = LoggerFactory.getLogger(AppendOnly.class);
    /** Commands a shard replays in one task before it lets its loop answer -LOADING again. */
    private static final int REPLAY_SLICE = 20_000;

    /** Runs one journalled command on {@code shard} (null: through the coordinator's routing); returns an error or null. */
    public interface Replayer {
        String replay(Shard shard, int db, byte[][] argv);
    }

    private final ConfigRegistry config;
    private final ShardSet shards;
    private final Persistence persistence;
    private volatile AofFsync fsync;
    private volatile Sink[] sinks;
    private volatile boolean enabled;
    private volatile String lastWriteStatus = "ok";
    /** The manifest on disk now; changed on the coordinator (rewrite start) and by a rewrite's completion. */
    private volatile AofManifest manifest;
    private volatile RdbSnapshot rewrite;
    private volatile boolean rewriteScheduled;
    private volatile boolean lastRewriteOk = true;
    private volatile long lastRewriteSeconds = -1;
    private volatile long rewrites;
    /** Size of the AOF right after the last rewrite (or start), for auto-aof-rewrite-percentage. */
    private volatile long baseSize;
    /**
     * Datasets the files do not hold yet (the AOF just turned on, a replica's full sync loaded): each increments
     * {@code baseNeeded}; a rewrite begun after it that succeeds sets {@code baseCovered} to the count it saw. Until they
     * are equal nothing counts as fsynced for WAITAOF (as Redis's fsynced_reploff is -1 during the initial rewrite).
     */
    private final java.util.concurrent.atomic.AtomicLong baseNeeded = new java.util.concurrent.atomic.AtomicLong();
    private volatile long baseCovered;
    private volatile Runnable fsyncListener = () -> { };

    /** Where the AOF writers sample aof-write and aof-fsync-always (null: nowhere). */
    private volatile io.tide.metrics.LatencyMonitor latency;

    /** Sets the latency monitor the AOF writers opened from now on sample into. */
    public void latencyMonitor(io.tide.metrics.LatencyMonitor m) {
        this.latency = m;
    }

    public AppendOnly(ConfigRegistry config, ShardSet shards, Persistence persistence) {
        this.config = config;
        this.shards = shards;
        this.persistence = persistence;
        persistence.appendOnly(this);
        config.onChange("appendfsync", v -> {
            AofWriter.FsyncPolicy p = AofWriter.FsyncPolicy.of(config.get("appendfsync"));
            eachWriter(w -> w.policy(p));
        });
        config.onChange("aof-timestamp-enabled", v -> {
            boolean on = config.getBool("aof-timestamp-enabled");
            eachWriter(w -> w.timestamps(on));
        });
        config.onChange("aof-fsync-timeout-ms", v -> {
            AofFsync f = fsync;
            if (f != null) f.timeoutMillis(config.getLong("aof-fsync-timeout-ms"));
        });
    }

    /** Runs {@code change} on every open writer, each on its shard's thread. */
    private void eachWriter(Consumer<AofWriter> change) {
        Sink[] all = sinks;
        if (all == null) return;
        for (Sink sink : all) {
            if (sink != null) sink.shard.loop().execute(() -> change.accept(sink.writer));
        }
    }

    public boolean enabled() {
        return enabled;
    }

    // ---------------------------------------------------------------- what WAITAOF counts

    /**
     * Where every shard's writer stands: the offsets its appended bytes reached, and which writers ({@code generation},
     * replaced when the AOF is turned off and on).
     */
    public record Marks(Object generation, long[] offsets) {}

    /**
     * The writers' offsets now (null with the AOF off), with every shard parked or on the only shard, after the journals
     * were flushed: once {@link #fsynced} says so, everything recorded before this call is on disk.
     */
    public Marks marks() {
        Sink[] all = sinks;
        if (!enabled || all == null) return null;
        long[] o = new long[all.length];
        for (int k = 0; k < all.length; k++) o[k] = all[k].writer.offset();
        return new Marks(all, o);
    }

    /**
     * Whether what was recorded before {@code m} was taken is covered by completed fsyncs (Redis's
     * {@code fsynced_reploff >= offset}): the AOF is on, its base holds every dataset it must, and each writer's last
     * fsync reached its mark. Marks of older writers (or none: the AOF was off) are covered by the base of the rewrite
     * that turned it on. Thread-safe.
     */
    public boolean fsynced(Marks m) {
        Sink[] all = sinks;
        if (!enabled || all == null || baseCovered != baseNeeded.get()) return false;
        if (m == null || m.generation() != all) return true;
        for (int k = 0; k < all.length; k++) {
            if (all[k].writer.fsyncedOffset() < m.offsets()[k]) return false;
        }
        return true;
    }

    /** Asks every writer for an fsync of what it wrote (WAITAOF waiting under everysec). Thread-safe. */
    public void syncSoon() {
        Sink[] all = sinks;
        if (!enabled || all == null) return;
        for (Sink sink : all) sink.writer.syncSoon();
    }

    /** {@code listener} runs (on the fsync thread, must not block) after each fsync. */
    public void onFsync(Runnable listener) {
        fsyncListener = listener;
    }

    /**
     * A replica's full sync replaced the dataset without the journal: nothing counts as fsynced until a rewrite begun
     * from now on holds it. Called before that rewrite is begun or scheduled.
     */
    public void datasetReplaced() {
        baseNeeded.incrementAndGet();
    }

    private Path dir() {
        return Path.of(config.get("dir")).resolve(config.get("appenddirname"));
    }

    /**
     * At startup with {@code appendonly yes}: loads the AOF (its base, then every shard's incremental files), then
     * opens the writers and attaches them to the journals. A missing AOF is an empty start (as Redis, the RDB file is
     * not read then); an unusable one throws with the file and offset.
     */
    public void start(EncodingLimits limits, Consumer<byte[]> function, Replayer replayer) throws IOException {
        // The network is up already: -LOADING until the writers are attached, or a write accepted meanwhile (on an
        // empty start, after the replay, during the rewrite of a foreign directory) would never reach the files.
        persistence.beginLoading(0);
        try {
            load(limits, function, replayer);
        } finally {
            persistence.endLoading();
        }
    }

    private void load(EncodingLimits limits, Consumer<byte[]> function, Replayer replayer) throws IOException {
        Optional<LoadPlan> loaded = AofLoader.load(Path.of(config.get("dir")), config.get("appenddirname"),
                config.get("appendfilename"), config.getBool("aof-load-truncated"));
        AofManifest m;
        boolean foreign = false;
        if (loaded.isPresent()) {
            LoadPlan plan = loaded.get();
            replay(plan, limits, function, replayer);
            m = plan.manifest();
            // One stream holding every shard's keys (Redis's, or a one-shard Tide's) cannot take per-shard files
            // beside it: it is rewritten into a base of this server's own, then each shard starts its own file.
            foreign = plan.shards() != shards.size();
        } else {
            Files.createDirectories(dir());
            m = AofManifest.empty(config.get("appendfilename"));
        }
        if (foreign) {
            m = rewriteAtStartup(m);
        } else {
            boolean changed = false;
            for (int k = 0; k < shards.size(); k++) {
                if (m.lastIncr(k) == null) {
                    m = m.withNewIncr(k);
                    changed = true;
                }
            }
            if (changed) m.write(dir());
        }
        manifest = m;
        AofManifest opened0 = m;
        removeOrphans(m);
        fsync = new AofFsync(config.getLong("aof-fsync-timeout-ms"));
        sinks = new Sink[shards.size()];
        AofWriter.FsyncPolicy policy = AofWriter.FsyncPolicy.of(config.get("appendfsync"));
        boolean ts = config.getBool("aof-timestamp-enabled");
        List<CompletableFuture<?>> opened = new ArrayList<>();
        for (int k = 0; k < shards.size(); k++) {
            Shard s = shards.get(k);
            Path file = dir().resolve(opened0.lastIncr(k).name());
            int id = k;
            opened.add(CompletableFuture.runAsync(() -> {
                try {
                    Sink sink = new Sink(s, new AofWriter(file, policy, ts, fsync, s.loop()).latency(latency));
                    sinks[id] = sink;
                    s.writes().journal().addSink(sink);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, s.loop()));
        }
        await(opened, "opening the AOF files");
        baseSize = currentSize();
        enabled = true;
        LOG.info("Append only file enabled: {} ({} shard streams, appendfsync {})", dir(), shards.size(), policy);
    }

    /**
     * Replays the plan: the base, then each shard's stream. When the streams are this server's own (one per shard),
     * each shard replays its own on its thread, all in parallel; a single stream (Redis's, or a one-shard Tide's) on a
     * server with more shards is replayed in order through the coordinator, which routes each key to its shard.
     */
    private void replay(LoadPlan plan, EncodingLimits limits, Consumer<byte[]> function, Replayer replayer)
            throws IOException {
        long t0 = System.currentTimeMillis();
        if (plan.baseFile() != null) {
            if (plan.baseFormat() == LoadPlan.BaseFormat.RDB) {
                persistence.loadRdb(plan.baseFile(), limits, function);
            } else {
                replayRouted(plan.replayBase(), replayer);
            }
        }
        int streams = plan.shards();
        if (streams > 1 && streams != shards.size()) {
            throw new IOException("the AOF in " + plan.aofDir() + " was written by " + streams + " shards; start with "
                    + "--shards " + streams);
        }
        long total = 0;
        for (int k = 0; k < streams; k++) total += plan.bytes(k);
        persistence.beginLoading(total);
        long commands = 0;
        try {
            if (streams == shards.size()) {
                List<CompletableFuture<?>> done = new ArrayList<>();
                for (int k = 0; k < streams; k++) {
                    CompletableFuture<Void> f = new CompletableFuture<>();
                    LoadPlan.Replay r = plan.replay(k);
                    Shard s = shards.get(k);
                    s.loop().execute(() -> replaySlice(s, r, replayer, f));
                    done.add(f);
                    commands += plan.commands(k);
                }
                await(done, "replaying the AOF");
            } else {
                for (int k = 0; k < streams; k++) {
                    replayRouted(plan.replay(k), replayer);
                    commands += plan.commands(k);
                }
            }
        } finally {
            persistence.endLoading();
        }
        for (LoadPlan.Cut c : plan.cuts()) LOG.warn("AOF {} was cut at offset {} ({} bytes dropped): {}", c.file(),
                c.offset(), c.bytesDropped(), c.reason());
        LOG.info("DB loaded from append only file: {} commands in {} ms", commands, System.currentTimeMillis() - t0);
    }

    /**
     * CONFIG SET appendonly (from the thread that ran it; the change happens on the coordinator, every shard parked):
     * on, writers on fresh incremental files and a rewrite whose base holds the dataset as it is now (if that rewrite
     * fails the AOF is turned off again, as Redis does); off, every writer flushed, fsynced and detached. Turning it
     * on first makes sure the AOF directory exists, on the caller's thread, so that a directory that cannot be made
     * fails the CONFIG SET (which then rolls back) with Redis's text.
     *
     * @throws IllegalStateException {@code Unable to turn on AOF. Check server logs.} when the directory is not there
     *         and cannot be made
     */
    public void configured(boolean on) {
        if (on) {
            try {
                Files.createDirectories(dir());
            } catch (IOException | RuntimeException e) {
                LOG.warn("Can't open or create append-only dir {}: {}", dir(), e.toString());
                throw new IllegalStateException("Unable to turn on AOF. Check server logs.");
            }
        }
        shards.coordinator().run(shards.all(), () -> {
            try {
                if (on && !enabled) {
                    baseNeeded.incrementAndGet();
                    openWriters(freshIncr());
                    firstRewrite = true;
                    beginRewrite();
                } else if (!on && enabled) {
                    detachWriters();
                }
            } catch (IOException | RuntimeException e) {
                LOG.warn("Could not turn the append only file {}: {}", on ? "on" : "off", e.toString());
                if (on && enabled) detachWriters();
            }
        }, () -> { });
    }

    /** The manifest on disk (or a new one) plus a new incremental file per shard, written. */
    private AofManifest freshIncr() throws IOException {
        Files.createDirectories(dir());
        Path mf = dir().resolve(AofManifest.manifestName(config.get("appendfilename")));
        AofManifest m = Files.exists(mf) ? AofManifest.read(dir(), config.get("appendfilename"))
                : AofManifest.empty(config.get("appendfilename"));
        for (int k = 0; k < shards.size(); k++) m = m.withNewIncr(k);
        m.write(dir());
        manifest = m;
        return m;
    }

    /** With every shard parked (or before clients can write): one writer per shard on {@code m}'s last files. */
    private void openWriters(AofManifest m) throws IOException {
        if (fsync == null) {
            fsync = new AofFsync(config.getLong("aof-fsync-timeout-ms"));
            fsync.onFsync(() -> fsyncListener.run());
        }
        AofWriter.FsyncPolicy policy = AofWriter.FsyncPolicy.of(config.get("appendfsync"));
        boolean ts = config.getBool("aof-timestamp-enabled");
        sinks = new Sink[shards.size()];
        for (int k = 0; k < shards.size(); k++) {
            Shard s = shards.get(k);
            sinks[k] = new Sink(s, new AofWriter(dir().resolve(m.lastIncr(k).name()), policy, ts, fsync, s.loop())
                    .latency(latency));
            s.writes().journal().addSink(sinks[k]);
        }
        enabled = true;
    }

    /** With every shard parked: flushes, fsyncs, closes and detaches every writer. */
    private void detachWriters() {
        enabled = false;
        for (Sink sink : sinks) {
            if (sink == null) continue;
            sink.shard.writes().journal().removeSink(sink);
            try {
                sink.writer.close();
            } catch (IOException e) {
                LOG.warn("closing {}: {}", sink.writer.file(), e.toString());
            }
        }
        LOG.info("Append only file disabled");
    }

    /** The rewrite that gives a directory just turned on its first base: if it fails, the AOF goes off again. */
    private volatile boolean firstRewrite;

    /**
     * The synchronous rewrite of a loaded directory whose streams are not this server's (nothing writes yet): a new
     * RDB base from the loaded dataset and a fresh incremental file per shard; the old files go once the new manifest
     * is durable.
     */
    private AofManifest rewriteAtStartup(AofManifest m) throws IOException {
        for (int k = 0; k < shards.size(); k++) m = m.withNewIncr(k);
        AofManifest withBase = m.withNewBase(config.getBool("aof-use-rdb-preamble"));
        Path base = dir().resolve(withBase.base().name());
        CompletableFuture<Void> f = new CompletableFuture<>();
        shards.coordinator().run(shards.all(), () -> {
            try {
                persistence.snapshot(base, true).saveNow(0);
                f.complete(null);
            } catch (IOException | RuntimeException e) {
                f.completeExceptionally(e);
            }
        }, () -> f.completeExceptionally(new IOException("the server is stopping")));
        await(List.of(f), "rewriting the loaded AOF");
        AofManifest done = withBase.withRewrittenIncrAsHistory();
        done.write(dir());
        LOG.info("Rewrote the loaded append only file for {} shards ({})", shards.size(), base);
        return done.deleteHistory(dir());
    }

    // ---------------------------------------------------------------- BGREWRITEAOF

    /** Whether a rewrite is running. */
    public boolean rewriting() {
        return rewrite != null;
    }

    /** BGREWRITEAOF while a BGSAVE runs: right after it. */
    public void scheduleRewrite() {
        rewriteScheduled = true;
    }

    public boolean rewriteScheduled() {
        return rewriteScheduled;
    }

    /**
     * BGREWRITEAOF, on the coordinator with every shard parked. At this instant every shard's writer moves to a new
     * incremental file (listed in a manifest written before anything goes into it) and a fork-less snapshot of the
     * dataset begins, written as the new RDB base while the shards serve. Once the base is durable, a manifest naming
     * it and only the new incremental files replaces the old one, and the old files are deleted. A failed rewrite
     * leaves the old base and every incremental file listed, so nothing is lost. Returns false when one is running.
     */
    public boolean beginRewrite() throws IOException {
        if (rewrite != null) return false;
        rewriteScheduled = false;
        AofManifest m;
        if (enabled) {
            m = manifest;
        } else { // appendonly no: as Redis, the directory gets a base (and empty incremental files) all the same
            Files.createDirectories(dir());
            Path mf = dir().resolve(AofManifest.manifestName(config.get("appendfilename")));
            m = Files.exists(mf) ? AofManifest.read(dir(), config.get("appendfilename"))
                    : AofManifest.empty(config.get("appendfilename"));
        }
        for (int k = 0; k < shards.size(); k++) m = m.withNewIncr(k);
        if (!enabled) {
            for (int k = 0; k < shards.size(); k++) {
                Path p = dir().resolve(m.lastIncr(k).name());
                if (!Files.exists(p)) Files.createFile(p);
            }
        }
        m.write(dir());
        manifest = m;
        if (enabled) {
            for (int k = 0; k < shards.size(); k++) sinks[k].writer.rotate(dir().resolve(m.lastIncr(k).name()));
        }
        AofManifest withBase = m.withNewBase(config.getBool("aof-use-rdb-preamble"));
        RdbSnapshot s = persistence.snapshot(dir().resolve(withBase.base().name()), true);
        long covers = baseNeeded.get();
        s.begin(0);
        rewrite = s;
        LOG.info("Background append only file rewriting started");
        s.start();
        s.done().whenComplete((size, err) -> {
            try {
                if (err != null) throw err instanceof IOException io ? io : new IOException(err);
                AofManifest done = withBase.withRewrittenIncrAsHistory();
                done.write(dir());
                manifest = done.deleteHistory(dir());
                lastRewriteOk = true;
                rewrites++;
                baseSize = currentSize();
                if (covers > baseCovered) baseCovered = covers;
                fsyncListener.run();
                LOG.info("Background AOF rewrite finished successfully ({} bytes base)", size);
            } catch (IOException e) {
                if (!s.aborted) {
                    lastRewriteOk = false;
                    LOG.warn("Background AOF rewrite failed: {}", e.toString());
                }
                if (firstRewrite && enabled) shards.coordinator().run(shards.all(), this::detachWriters, () -> { });
                try {
                    Files.deleteIfExists(dir().resolve(withBase.base().name()));
                } catch (IOException ignored) {
                    // best effort
                }
            } finally {
                firstRewrite = false;
                lastRewriteSeconds = (System.currentTimeMillis() - s.startedMs + 500) / 1000;
                rewrite = null;
            }
        });
        return true;
    }

    /** The running rewrite's completion, or null. */
    public CompletableFuture<Long> rewriteDone() {
        RdbSnapshot s = rewrite;
        return s == null ? null : s.done();
    }

    /** Abandons a running rewrite (SHUTDOWN), with every shard parked. */
    public void cancelRewrite() {
        RdbSnapshot s = rewrite;
        if (s != null) s.cancelParked();
    }

    /** From the persistence cron: a scheduled rewrite, and auto-aof-rewrite-percentage / -min-size. */
    void cron() {
        if (!enabled || rewrite != null || persistence.bgsaveInProgress()) return;
        boolean due = rewriteScheduled;
        long pct = config.getLong("auto-aof-rewrite-percentage");
        if (!due && pct > 0) {
            long size = currentSize();
            long base = Math.max(1, baseSize);
            due = size > config.getLong("auto-aof-rewrite-min-size") && (size - base) * 100 / base >= pct;
            if (due) LOG.info("Starting automatic rewriting of AOF on {}% growth", (size - base) * 100 / base);
        }
        if (!due) return;
        rewriteScheduled = false;
        shards.coordinator().run(shards.all(), () -> {
            try {
                beginRewrite();
            } catch (IOException e) {
                lastRewriteOk = false;
                LOG.warn("Background AOF rewrite failed to start: {}", e.toString());
            }
        }, () -> { });
    }

    /**
     * Bytes of the writers' buffers (MEMORY STATS's aof.buffer, as Redis counts its aof_buf's allocation); 0 when the
     * AOF is off. Read with every shard parked, or racily (a figure for display).
     */
    public long bufferBytes() {
        Sink[] all = sinks;
        if (!enabled || all == null) return 0;
        long n = 0;
        for (Sink sink : all) {
            if (sink != null) n += io.tide.store.MemoryCost.bytes(sink.writer.capacity());
        }
        return n;
    }

    /** The files' size on disk now: the base and every incremental file of the manifest. */
    public long currentSize() {
        AofManifest m = manifest;
        if (m == null) return 0;
        long n = 0;
        try {
            if (m.base() != null) n += Files.size(dir().resolve(m.base().name()));
            for (AofManifest.AofFile f : m.incr()) {
                Path p = dir().resolve(f.name());
                if (Files.exists(p)) n += Files.size(p);
            }
        } catch (IOException e) {
            return n;
        }
        return n;
    }

    public boolean lastRewriteOk() { return lastRewriteOk; }
    public long lastRewriteSeconds() { return lastRewriteSeconds; }
    public long currentRewriteSeconds() {
        RdbSnapshot s = rewrite;
        return s == null ? -1 : (System.currentTimeMillis() - s.startedMs) / 1000;
    }
    public long rewrites() { return rewrites; }
    public long baseSize() { return baseSize; }

    /**
     * Deletes AOF files of this directory that the (durable) manifest no longer names: a process killed while it
     * deleted a rewrite's history leaves some behind, and nothing would ever read them.
     */
    private void removeOrphans(AofManifest m) {
        java.util.Set<String> named = new java.util.HashSet<>();
        if (m.base() != null) named.add(m.base().name());
        for (AofManifest.AofFile f : m.history()) named.add(f.name());
        for (AofManifest.AofFile f : m.incr()) named.add(f.name());
        String prefix = config.get("appendfilename") + ".";
        try (var files = Files.newDirectoryStream(dir())) {
            for (Path f : files) {
                String n = f.getFileName().toString();
                boolean ours = n.startsWith(prefix) && (n.endsWith(".incr.aof") || n.endsWith(".base.aof")
                        || n.endsWith(".base.rdb"));
                if (ours && !named.contains(n)) {
                    Files.deleteIfExists(f);
                    LOG.info("Removed {}: no manifest names it (left by an interrupted rewrite)", f);
                }
            }
        } catch (IOException e) {
            LOG.warn("could not look for orphan AOF files in {}: {}", dir(), e.toString());
        }
    }

    /** One slice of a shard's replay on its own thread; re-posts itself so the loop answers -LOADING between. */
    private static void replaySlice(Shard s, LoadPlan.Replay r, Replayer replayer, CompletableFuture<Void> f) {
        try {
            for (int n = 0; n < REPLAY_SLICE; n++) {
                if (!r.next()) {
                    r.close();
                    touchAll(s); // the replay's clock read 0: the keys were stored now
                    f.complete(null);
                    return;
                }
                check(replayer.replay(s, r.db(), r.argv()), r);
            }
            s.loop().execute(() -> replaySlice(s, r, replayer, f));
        } catch (IOException | RuntimeException e) {
            f.completeExceptionally(e);
        }
    }

    private static void touchAll(Shard s) {
        long now = System.currentTimeMillis();
        for (int i = 0; i < s.databases(); i++) s.db(i).touchAll(now);
    }

    /** Replays one stream in order through the coordinator, every shard parked, a slice at a time. */
    private void replayRouted(LoadPlan.Replay r, Replayer replayer) throws IOException {
        boolean[] more = {true};
        while (more[0]) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            shards.coordinator().run(shards.all(), () -> {
                try {
                    for (int n = 0; n < REPLAY_SLICE; n++) {
                        if (!r.next()) {
                            r.close();
                            more[0] = false;
                            for (Shard s : shards.all()) touchAll(s);
                            break;
                        }
                        check(replayer.replay(null, r.db(), r.argv()), r);
                    }
                    f.complete(null);
                } catch (IOException | RuntimeException e) {
                    f.completeExceptionally(e);
                }
            }, () -> f.completeExceptionally(new IOException("the server is stopping")));
            await(List.of(f), "replaying the AOF");
        }
    }

    /** Redis aborts loading on a command it does not know; other errors of a replayed command are logged. */
    private static void check(String error, LoadPlan.Replay r) {
        if (error == null) return;
        if (error.startsWith("ERR unknown command")) {
            throw new IllegalStateException("Unknown command '" + new String(r.argv()[0],
                    java.nio.charset.StandardCharsets.UTF_8) + "' reading the append only file " + r.file());
        }
        LOG.warn("replaying {} from {} answered: {}", new String(r.argv()[0], java.nio.charset.StandardCharsets.UTF_8),
                r.file(), error);
    }

    private static void await(List<CompletableFuture<?>> fs, String what) throws IOException {
        try {
            CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get(30, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable c = e.getCause();
            throw new IOException(what + " failed: " + (c.getMessage() != null ? c.getMessage() : c), c);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException(what + " timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while " + what, e);
        }
    }

    /** At shutdown, before the shard loops stop: flushes, fsyncs and closes every writer. */
    public void close() {
        AofFsync f = fsync;
        if (!enabled) {
            if (f != null) f.close();
            return;
        }
        enabled = false;
        List<CompletableFuture<?>> closed = new ArrayList<>();
        for (Sink sink : sinks) {
            if (sink == null) continue;
            closed.add(CompletableFuture.runAsync(() -> {
                sink.shard.writes().journal().removeSink(sink);
                try {
                    sink.writer.close();
                } catch (IOException e) {
                    LOG.warn("closing {}: {}", sink.writer.file(), e.toString());
                }
            }, sink.shard.loop()));
        }
        try {
            await(closed, "closing the AOF");
        } catch (IOException e) {
            LOG.warn(e.getMessage());
        }
        fsync.close();
    }

    // ---------------------------------------------------------------- INFO

    /** Whether writes are refused because some shard's writer cannot write or fsync (-MISCONF). */
    public String refusal() {
        if (!enabled) return null;
        for (Sink s : sinks) {
            if (s != null && s.writer.failed()) return s.writer.lastError();
        }
        return null;
    }

    /** "ok" or "err" for INFO's aof_last_write_status: err while some shard's writer is failed. */
    public String lastWriteStatus() {
        if (!enabled) return lastWriteStatus;
        for (Sink s : sinks) if (s != null && s.writer.failed()) return "err";
        return "ok";
    }

    /** The writer of one shard: its journal's sink. Confined to that shard's thread (or the parked coordinator). */
    private static final class Sink implements JournalSink {
        final Shard shard;
        final AofWriter writer;
        private boolean flushScheduled;
        private final Runnable flushTask = this::flushFromLoop;

        Sink(Shard shard, AofWriter writer) {
            this.shard = shard;
            this.writer = writer;
        }

        @Override
        public void command(Effect e) {
            writer.appendCommand(e.db(), e.argv());
            scheduleFlush();
        }

        @Override
        public void transaction(long groupSeq, int parts, List<Effect> effects) {
            int[] dbs = new int[effects.size()];
            List<byte[][]> cmds = new ArrayList<>(effects.size());
            for (int i = 0; i < dbs.length; i++) {
                dbs[i] = effects.get(i).db();
                cmds.add(effects.get(i).argv());
            }
            writer.appendTransaction(groupSeq, parts, dbs, cmds);
            scheduleFlush();
        }

        /** The loop flushes at the end of the iteration anyway, for records no reply is waiting on (expiry). */
        private void scheduleFlush() {
            if (flushScheduled) return;
            flushScheduled = true;
            shard.executeAfterIteration(flushTask);
        }

        private void flushFromLoop() {
            flushScheduled = false;
            writer.flush();
        }

        @Override
        public void flush() {
            writer.flush();
        }

        @Override
        public boolean pending() {
            return writer.buffered() > 0;
        }

        @Override
        public boolean syncsReplies() {
            return writer.policy() == AofWriter.FsyncPolicy.ALWAYS;
        }

        @Override
        public boolean keepsArguments() {
            return false; // appendCommand and appendTransaction encode the arrays into the writer's buffer
        }

        @Override
        public void whenDurable(Consumer<Boolean> done) {
            writer.whenDurable(writer.offset(), done::accept);
        }

        @Override
        public String failure() {
            return writer.failed() ? writer.lastError() : null;
        }
    }
}
