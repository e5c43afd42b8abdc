package io.tide.persistence;

import io.tide.config.ConfigRegistry;
import io.tide.persistence.rdb.RdbFileReader;
import io.tide.shard.Shard;
import io.tide.shard.ShardSet;
import io.tide.store.Database;
import io.tide.store.EncodingLimits;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's RDB persistence: SAVE, BGSAVE, the {@code save} points, LASTSAVE, loading at startup and the state
 * INFO persistence reports. Thread-safe: the state is volatile or atomic; {@link #saveNow} and
 * {@link #beginBackgroundSave} run on the coordinator with every shard parked (the commands that call them are
 * ALL_SHARDS), and each shard publishes its dirty counter from its own cron.
 */
public final class Persistence {

    private static final Logger LOG = LoggerFactory.getLogger(Persistence.class);
    /** Entries posted to a shard in one task while loading. */
    private static final int LOAD_BATCH = 1024;

    private final ConfigRegistry config;
    private final ShardSet shards;
    private final String version;
    private final Supplier<List<byte[]>> functions;
    private final AtomicLongArray dirty;
    private volatile RdbSnapshot current;
    private volatile long lastSaveMs = System.currentTimeMillis();
    private volatile long lastBgsaveMs;
    private volatile boolean lastBgsaveOk = true;
    private volatile long lastBgsaveSeconds = -1;
    private volatile long saves;
    private volatile boolean bgsaveScheduled;
    private volatile long lastSaveAttemptMs;
    // Loading state for INFO.
    private volatile boolean loading;
    /** Nesting of {@link #beginLoading}; the starting thread's only. */
    private int loadingDepth;
    private volatile long loadingStartMs;
    private volatile long loadingTotalBytes;
    private volatile long loadingLoadedBytes;
    private volatile long loadingLoadedKeys;

    public Persistence(ConfigRegistry config, ShardSet shards, String version, Supplier<List<byte[]>> functions) {
        this.config = config;
        this.shards = shards;
        this.version = version;
        this.functions = functions;
        this.dirty = new AtomicLongArray(shards.size());
    }

    /** The RDB file: {@code dir}/{@code dbfilename}. */
    public Path rdbPath() {
        return Path.of(config.get("dir")).resolve(config.get("dbfilename"));
    }

    // ---------------------------------------------------------------- saving

    /** SAVE: on the coordinator with every shard parked. Throws on failure. */
    public void saveNow() throws IOException {
        long t0 = System.currentTimeMillis();
        RdbSnapshot s = snapshot();
        try {
            s.saveNow(forcedVersion());
        } catch (IOException | RuntimeException e) {
            LOG.warn("Failed saving the DB: {}", e.toString());
            lastBgsaveOk = false;
            throw e;
        }
        for (Shard sh : shards.all()) sh.writes().saved(s.dirtyAtImage[sh.id()]);
        saved(t0);
        lastBgsaveOk = true;
        LOG.info("DB saved on disk ({} ms)", System.currentTimeMillis() - t0);
    }

    /**
     * BGSAVE: on the coordinator with every shard parked. Returns false when a save is already in progress. The
     * image is taken now; the shards write it out while they serve.
     */
    public boolean beginBackgroundSave() {
        if (current != null) return false;
        AppendOnly aof = appendOnly;
        if (aof != null && aof.rewriting()) { // one snapshot at a time: right after the rewrite
            bgsaveScheduled = true;
            return true;
        }
        bgsaveScheduled = false;
        lastSaveAttemptMs = System.currentTimeMillis();
        RdbSnapshot s = snapshot();
        s.begin(forcedVersion());
        current = s;
        lastBgsaveMs = s.startedMs;
        LOG.info("Background saving started");
        s.start();
        s.done().whenComplete((size, err) -> {
            if (err == null) {
                for (Shard sh : shards.all()) {
                    long at = s.dirtyAtImage[sh.id()];
                    sh.loop().execute(() -> sh.writes().saved(at));
                }
                saved(s.startedMs);
                lastBgsaveOk = true;
                LOG.info("Background saving terminated with success ({} bytes)", size);
            } else if (!s.aborted) {
                lastBgsaveOk = false;
                LOG.warn("Background saving error: {}", err.toString());
            }
            lastBgsaveSeconds = (System.currentTimeMillis() - s.startedMs + 500) / 1000;
            current = null;
        });
        return true;
    }

    /**
     * A replication full sync's image, on the coordinator with every shard parked: with {@code out} the image streams
     * into it (disk-less sync), without one it is a BGSAVE into {@code dbfilename} (Redis's disk-based sync, which
     * counts as a save). Either way it is the background save in progress meanwhile, as Redis's child is. Returns
     * null, starting nothing, when a save or an AOF rewrite runs (the caller tries again once it ends).
     */
    public CompletableFuture<Long> beginReplicationSnapshot(java.nio.channels.WritableByteChannel out) {
        AppendOnly aof = appendOnly;
        if (current != null || (aof != null && aof.rewriting())) return null;
        if (out == null) {
            beginBackgroundSave();
            RdbSnapshot s = current;
            return s == null ? null : s.done();
        }
        RdbSnapshot s = snapshot(rdbPath(), false);
        s.stream = out;
        s.begin(forcedVersion());
        current = s;
        LOG.info("Starting BGSAVE for SYNC with target: replicas sockets");
        s.start();
        s.done().whenComplete((size, err) -> {
            if (err != null && !s.aborted) LOG.warn("Disk-less sync image failed: {}", err.toString());
            current = null;
        });
        return s.done();
    }

    /**
     * A replica's full sync: loads the primary's image from {@code file} into the (just flushed) shards, clients
     * getting -LOADING meanwhile, as at startup.
     */
    public void loadReplicaImage(Path file, EncodingLimits limits, Consumer<byte[]> function) throws IOException {
        loadRdb(file, limits, function);
    }

    /**
     * A replica's full sync read straight from the primary's socket ({@code repl-diskless-load}): {@code in} ends
     * where the image does. With {@code into} null the entries go into the shards' (just emptied) databases, clients
     * getting -LOADING; otherwise into {@code into[shard][db]}, databases no client sees, while the old dataset keeps
     * serving (swapdb; INFO's async_loading is 1 meanwhile). {@code function} gets the image's functions.
     */
    public void loadReplicaImage(InputStream in, long totalBytes, EncodingLimits limits, Consumer<byte[]> function,
                                 Database[][] into) throws IOException {
        String name = "the replication stream";
        loadImage(v -> RdbFileReader.read(in, totalBytes, name, limits, v), totalBytes, name, function, into);
    }

    /** Work that may fail with an IOException, for {@link #whileLoading}. */
    @FunctionalInterface
    public interface LoadingWork {
        void run() throws IOException;
    }

    /**
     * Runs {@code work} with clients on -LOADING throughout (a load inside it nests): a replica's failed socket load
     * empties what it posted before any client can read the half dataset.
     */
    public void whileLoading(long totalBytes, LoadingWork work) throws IOException {
        beginLoading(Math.max(0, totalBytes));
        try {
            work.run();
        } finally {
            endLoading();
        }
    }

    private volatile boolean asyncLoading;

    /** INFO's async_loading: a swapdb full sync is loading beside the dataset that serves. */
    public boolean asyncLoading() {
        return asyncLoading;
    }

    /** Reads an image (a file, a socket) into a visitor. */
    @FunctionalInterface
    private interface ImageReader {
        void read(RdbFileReader.Visitor v) throws IOException;
    }

    /** Whether a snapshot (a save, a replication image or an AOF rewrite) is running: a new one must wait. */
    public boolean snapshotRunning() {
        AppendOnly aof = appendOnly;
        return current != null || (aof != null && aof.rewriting());
    }

    /** Abandons a background save in progress: on the coordinator with every shard parked (SHUTDOWN, SAVE). */
    public void cancelBackgroundSave() {
        RdbSnapshot s = current;
        if (s != null) s.cancelParked();
    }

    /** The current background save's completion (null when none runs). */
    public CompletableFuture<Long> backgroundSave() {
        RdbSnapshot s = current;
        return s == null ? null : s.done();
    }

    /** BGSAVE SCHEDULE while a save runs: one more right after it. */
    public void scheduleBackgroundSave() {
        bgsaveScheduled = true;
    }

    private RdbSnapshot snapshot() {
        return snapshot(rdbPath(), false);
    }

    /** A snapshot of every shard into {@code target}; {@code aofBase} marks an AOF base (its aof-base aux field). */
    RdbSnapshot snapshot(Path target, boolean aofBase) {
        long used = 0;
        for (Shard sh : shards.all()) used += sh.usedBytes();
        RdbSnapshot s = new RdbSnapshot(shards.all(), target, config.getBool("rdbcompression"),
                config.getBool("rdbchecksum"), functions.get(), version, used, aofBase);
        if (aofBase) {
            s.incrementalFsync = config.getBool("aof-rewrite-incremental-fsync");
            s.commands = !config.getBool("aof-use-rdb-preamble");
        }
        return s;
    }

    /** The AOF, whose rewrites share the snapshot machinery (one snapshot at a time). */
    private volatile AppendOnly appendOnly;

    /** The append-only file (on or off), or null before it is wired. */
    public AppendOnly appendOnly() {
        return appendOnly;
    }

    void appendOnly(AppendOnly a) {
        appendOnly = a;
    }

    private int forcedVersion() {
        String v = config.get("rdb-version");
        return v.equals("auto") ? 0 : Integer.parseInt(v);
    }

    private void saved(long startedMs) {
        lastSaveMs = startedMs;
        saves++;
    }

    /** Called by each shard's cron: its changes since the last save, for the save points and INFO. */
    public void publishDirty(Shard s) {
        dirty.set(s.id(), s.writes().dirty());
    }

    /** Changes since the last successful save, summed over the shards (as their crons last published them). */
    public long changesSinceLastSave() {
        long n = 0;
        for (int i = 0; i < dirty.length(); i++) n += dirty.get(i);
        return n;
    }

    /**
     * Called about ten times a second (from shard 0's cron): the save points, Redis's serverCron rule. After a
     * failed background save the next try waits 5 seconds (CONFIG_BGSAVE_RETRY_DELAY).
     */
    public void cron(long nowMs) {
        AppendOnly aof = appendOnly;
        if (aof != null) aof.cron();
        if (current != null || (aof != null && aof.rewriting())) return;
        if (bgsaveScheduled) {
            requestBackgroundSave();
            return;
        }
        List<long[]> points = savePoints();
        if (points.isEmpty()) return;
        long changes = changesSinceLastSave();
        for (long[] p : points) {
            if (changes >= p[1] && nowMs - lastSaveMs > p[0] * 1000
                    && (lastBgsaveOk || nowMs - lastSaveAttemptMs > 5000)) {
                LOG.info("{} changes in {} seconds. Saving...", p[1], p[0]);
                requestBackgroundSave();
                return;
            }
        }
    }

    private void requestBackgroundSave() {
        lastSaveAttemptMs = System.currentTimeMillis();
        shards.coordinator().run(shards.all(), this::beginBackgroundSave, () -> { });
    }

    /** The {@code save} parameter as (seconds, changes) pairs. */
    public List<long[]> savePoints() {
        String[] w = config.get("save").trim().split("\\s+");
        List<long[]> out = new ArrayList<>();
        for (int i = 0; i + 1 < w.length; i += 2) out.add(new long[] {Long.parseLong(w[i]), Long.parseLong(w[i + 1])});
        return out;
    }

    /**
     * Whether writes are refused (stop-writes-on-bgsave-error): save points are set and the last background save
     * failed. Redis answers -MISCONF then.
     */
    public boolean writesRefused() {
        return !lastBgsaveOk && config.getBool("stop-writes-on-bgsave-error") && !config.get("save").isEmpty();
    }

    // ---------------------------------------------------------------- loading

    /**
     * Loads the RDB file into the (empty) shards, if it exists: each entry is stored by the shard that owns it, in
     * batches posted to its loop, so the shards insert in parallel while this thread parses. Expired keys are
     * skipped, as a Redis primary does. Throws with a clear message on an unreadable or corrupt file.
     */
    /**
     * At startup, before loading: deletes the temp files of saves and AOF rewrites a killed process left behind
     * ({@code temp-*.rdb} in {@code dir} and in the AOF directory); they are never loaded.
     */
    public void removeTempFiles() {
        Path dir = Path.of(config.get("dir"));
        for (Path d : new Path[] {dir, dir.resolve(config.get("appenddirname"))}) {
            if (!Files.isDirectory(d)) continue;
            try (var files = Files.newDirectoryStream(d, "temp-*.rdb")) {
                for (Path f : files) {
                    Files.deleteIfExists(f);
                    LOG.info("Removed {}, left by an interrupted save", f);
                }
            } catch (IOException e) {
                LOG.warn("could not clean temp files in {}: {}", d, e.toString());
            }
        }
    }

    public void loadRdb(EncodingLimits limits, Consumer<byte[]> function) throws IOException {
        Path file = rdbPath();
        if (!Files.exists(file)) return;
        loadRdb(file, limits, function);
    }

    /** {@link #loadRdb(EncodingLimits, Consumer)} from {@code file} (also an AOF's RDB base). */
    void loadRdb(Path file, EncodingLimits limits, Consumer<byte[]> function) throws IOException {
        loadImage(v -> RdbFileReader.read(file, limits, v), Files.size(file), file.toString(), function, null);
    }

    private void loadImage(ImageReader reader, long totalBytes, String file, Consumer<byte[]> function,
                           Database[][] into) throws IOException {
        long t0 = System.currentTimeMillis();
        if (into == null) beginLoading(Math.max(0, totalBytes));
        else asyncLoading = true;
        int n = shards.size();
        List<List<Object[]>> batches = new ArrayList<>();
        for (int i = 0; i < n; i++) batches.add(new ArrayList<>(LOAD_BATCH));
        List<CompletableFuture<?>> pending = new ArrayList<>();
        long now = System.currentTimeMillis();
        long[] keys = {0};
        long[] expired = {0};
        int[] currentDb = {0};
        try {
            reader.read(new RdbFileReader.Visitor() {
                @Override
                public void selectDb(int db) {
                    currentDb[0] = db;
                }

                @Override
                public void resizeDb(long dbSize, long expiresSize) {
                    int db = currentDb[0];
                    if (db >= config.getInt("databases")) return;
                    long perShard = dbSize / n + dbSize / n / 8 + 16; // keys spread evenly over the slots
                    for (Shard s : shards.all()) {
                        s.loop().execute(() -> (into == null ? s.db(db) : into[s.id()][db]).reserve(perShard));
                    }
                }

                @Override
                public void entry(int db, byte[] key, Object value, long expireAtMs, long idleSecs, int freq) {
                    if (expireAtMs != 0 && expireAtMs < now) {
                        expired[0]++;
                        return;
                    }
                    if (db >= config.getInt("databases")) {
                        throw new IllegalStateException("the RDB file holds database " + db + " but databases is "
                                + config.getInt("databases"));
                    }
                    Shard s = shards.shardOf(key);
                    List<Object[]> b = batches.get(s.id());
                    b.add(new Object[] {db, key, value, expireAtMs});
                    keys[0]++;
                    if (b.size() >= LOAD_BATCH) {
                        pending.add(post(s, List.copyOf(b), into));
                        b.clear();
                    }
                }

                @Override
                public void function(byte[] code) {
                    function.accept(code);
                }

                @Override
                public void progress(long bytesRead, long totalBytes) {
                    loadingLoadedBytes = bytesRead;
                    loadingLoadedKeys = keys[0];
                    pending.removeIf(CompletableFuture::isDone);
                }
            });
            for (int i = 0; i < n; i++) {
                if (!batches.get(i).isEmpty()) pending.add(post(shards.get(i), List.copyOf(batches.get(i)), into));
            }
            CompletableFuture.allOf(pending.toArray(new CompletableFuture[0])).get(10, TimeUnit.MINUTES);
            // What was loaded is what is on disk: nothing to save yet.
            List<CompletableFuture<?>> reset = new ArrayList<>();
            for (Shard s : shards.all()) reset.add(CompletableFuture.runAsync(() -> s.writes().saved(s.writes().dirty()), s.loop()));
            CompletableFuture.allOf(reset.toArray(new CompletableFuture[0])).get(1, TimeUnit.MINUTES);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IOException("loading " + file + " failed: " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while loading " + file, e);
        } finally {
            if (into == null) endLoading();
            else asyncLoading = false;
        }
        lastSaveMs = System.currentTimeMillis();
        lastLoadKeysLoaded = keys[0];
        lastLoadKeysExpired = expired[0];
        LOG.info("DB loaded from disk: {} keys in {} ms ({})", keys[0], System.currentTimeMillis() - t0, file);
    }

    /**
     * Clients get -LOADING and the shards' crons leave the data alone until the matching {@link #endLoading}. Calls
     * nest (on the starting thread): the AOF's start holds the state from before its base loads until its writers
     * are attached, so no write is accepted between the base and the incremental files, or before the journal has
     * its sinks (such a write would be acknowledged and never reach the AOF); and the server holds it from before its
     * port opens until the dataset is loaded, so that no client sees the empty dataset before the load begins.
     */
    public void beginLoading(long totalBytes) {
        loadingTotalBytes = totalBytes;
        loadingLoadedBytes = 0;
        if (loadingDepth++ > 0) return;
        loadingStartMs = System.currentTimeMillis();
        loading = true;
        for (Shard s : shards.all()) s.loading(true);
    }

    void loadedBytes(long n) {
        loadingLoadedBytes = n;
    }

    public void endLoading() {
        if (--loadingDepth > 0) return;
        for (Shard s : shards.all()) s.loading(false);
        loading = false;
    }

    private static CompletableFuture<?> post(Shard s, List<Object[]> batch, Database[][] into) {
        return CompletableFuture.runAsync(() -> {
            long now = System.currentTimeMillis();
            for (Object[] e : batch) {
                Database d = into == null ? s.db((Integer) e[0]) : into[s.id()][(Integer) e[0]];
                d.put((byte[]) e[1], e[2], (Long) e[3], now);
            }
        }, s.loop());
    }

    // ---------------------------------------------------------------- INFO

    private volatile long lastLoadKeysLoaded;
    private volatile long lastLoadKeysExpired;

    public boolean loading() { return loading; }
    /** INFO rdb_last_load_keys_loaded / _expired: keys the last RDB load kept, and those it skipped as expired. */
    public long lastLoadKeysLoaded() { return lastLoadKeysLoaded; }
    public long lastLoadKeysExpired() { return lastLoadKeysExpired; }
    public long loadingStartSeconds() { return loadingStartMs / 1000; }
    public long loadingTotalBytes() { return loadingTotalBytes; }
    public long loadingLoadedBytes() { return loadingLoadedBytes; }
    public long loadingLoadedKeys() { return loadingLoadedKeys; }
    public boolean bgsaveInProgress() { return current != null; }
    public long lastSaveSeconds() { return lastSaveMs / 1000; }
    public boolean lastBgsaveOk() { return lastBgsaveOk; }
    public long lastBgsaveSeconds() { return lastBgsaveSeconds; }
    public long currentBgsaveSeconds() {
        RdbSnapshot s = current;
        return s == null ? -1 : (System.currentTimeMillis() - s.startedMs) / 1000;
    }
    public long saves() { return saves; }
    public boolean bgsaveScheduled() { return bgsaveScheduled; }
}
