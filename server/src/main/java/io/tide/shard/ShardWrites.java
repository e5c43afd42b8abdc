package io.tide.shard;

import io.tide.journal.Effect;
import io.tide.journal.Journal;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.store.Database;
import io.tide.store.KeyspaceObserver;
import java.nio.charset.StandardCharsets;

/**
 * The write seam of one shard. Confined to the shard's thread (or the coordinator while the shard is parked).
 *
 * <p>Every change to a key of this shard's databases, whatever made it (a command handler, lazy or active expiry,
 * FLUSHDB/FLUSHALL, SWAPDB, the coordinator's cross-shard operations, later eviction), reaches this observer from
 * {@link Database}, which also keeps the memory accounting and feeds a snapshot in progress before the change.
 * Here the rest of the bookkeeping happens, once: the dirty counters behind save points and journalling, WATCH
 * (transactions touching the key fail), client tracking (invalidation), blocked clients (the key may serve them
 * now), and the expiry side (statistics, the {@code expired} event, the DEL that the journal records). A write
 * that changed nothing never calls in, so it touches, invalidates and records nothing, as in Redis.
 *
 * <p>The dispatcher reads {@link #writes()} before and after each command: a command that moved it is journalled.
 * While a command runs, {@link #recorder} (set by the executing context) learns the keys written and the keys
 * expired, so that cross-shard operations can be journalled per shard.
 */
public final class ShardWrites implements KeyspaceObserver {

    private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);

    /** What the executing command context learns while it runs. */
    public interface Recorder {
        /** {@code key} of database {@code db} on {@code shard} was written by the running command. */
        void written(Shard shard, int db, byte[] key);

        /** Expiry deleted {@code key} while the command ran: its DEL goes before the command's own effects. */
        void expired(Shard shard, Effect del);
    }

    private final Shard shard;
    private final Journal journal;
    /** Monotonic count of changes (every {@link #written} call); never reset. */
    private long writes;
    /** Changes since the last successful save (rdb_changes_since_last_save). */
    private long dirty;
    /** The client id of the command running (tracking's NOLOOP), 0 for the server itself. */
    private long origin;
    private Recorder recorder;
    private KeyspaceEvents events;
    private java.util.function.BooleanSupplier expiryHeld = () -> false;

    ShardWrites(Shard shard) {
        this.shard = shard;
        this.journal = new Journal(shard::executeAfterIteration);
    }

    void keyspaceEvents(KeyspaceEvents e) {
        this.events = e;
    }

    void holdExpiryWhile(java.util.function.BooleanSupplier held) {
        this.expiryHeld = held;
    }

    /** While a CLIENT PAUSE lasts, Redis keeps the dataset constant: expired keys stay (see the observer's doc). */
    @Override
    public boolean expiryHeld() {
        return expiryHeld.getAsBoolean();
    }

    /** This shard's journal. */
    public Journal journal() { return journal; }

    public long writes() { return writes; }

    public long dirty() { return dirty; }

    /** A save began from an image taken when {@link #dirty()} was {@code atImage}: keep what came after it. */
    public void saved(long atImage) { dirty = Math.max(0, dirty - atImage); }

    /** Sets who is running commands here now; {@code recorder} null when no command runs. */
    public void running(long clientId, Recorder r) {
        origin = clientId;
        recorder = r;
    }

    @Override
    public void written(Database db, byte[] key) {
        changed(db, key, false);
    }

    /** {@link io.tide.command.CommandContext#touched}: WATCH and tracking only. */
    public void touched(Database db, byte[] key) {
        WatchedKeys w = shard.watched();
        if (!w.isEmpty()) w.touch(db.id(), key);
        KeyspaceEvents ev = events;
        if (ev != null) ev.invalidate(key, origin);
    }

    @Override
    public void retyped(Database db, byte[] key) {
        changed(db, key, true);
    }

    private void changed(Database db, byte[] key, boolean retyped) {
        writes++;
        dirty++;
        WatchedKeys w = shard.watched();
        if (!w.isEmpty()) w.touch(db.id(), key);
        if (retyped) shard.blocking().signalRetyped(db.id(), key);
        else shard.blocking().signal(db.id(), key, db);
        KeyspaceEvents ev = events;
        if (ev != null) ev.invalidate(key, origin);
        Recorder r = recorder;
        if (r != null) r.written(shard, db.id(), key);
    }

    @Override
    public void added(Database db, byte[] key) {
        // The written() that follows the store signals the key, with its new value.
        if (events != null) events.notify(KeyspaceEvents.NEW, "new", key, db.id());
    }

    @Override
    public void removed(Database db, byte[] key) {
        shard.blocking().signal(db.id(), key, db);
    }

    @Override
    public void expired(Database db, byte[] key, Object value) {
        shard.stats().expiredKeys++;
        shard.blocking().signal(db.id(), key, db); // a waiting XREADGROUP hears its stream is gone, as in Redis
        WatchedKeys w = shard.watched();
        if (!w.isEmpty()) w.touch(db.id(), key);
        if (events != null) {
            events.notify(KeyspaceEvents.EXPIRED, "expired", key, db.id());
            events.modified(key);
        }
        journalDel(db, key);
    }

    /**
     * The DEL a deletion the server made on its own (expiry, eviction) is journalled as: before the running command's
     * own effects when one runs, else straight into the journal.
     */
    private void journalDel(Database db, byte[] key) {
        if (!journal.active() && recorder == null) return;
        Effect del = new Effect(db.id(), new byte[][] {DEL, key});
        if (recorder != null) recorder.expired(shard, del);
        else journal.command(del);
    }

    /** Eviction: counted, the {@code evicted} event, and a DEL in the journal (written() does WATCH and tracking). */
    @Override
    public void evicted(Database db, byte[] key) {
        shard.stats().evictedKeys++;
        if (events != null) events.notify(KeyspaceEvents.EVICTED, "evicted", key, db.id());
        journalDel(db, key);
    }

    @Override
    public void fieldsExpired(Database db, byte[] key, boolean keyDeleted) {
        if (events == null) return;
        events.notify(KeyspaceEvents.HASH, "hexpired", key, db.id());
        events.modified(key);
        if (keyDeleted) events.notify(KeyspaceEvents.GENERIC, "del", key, db.id());
    }

    @Override
    public void flushing(Database db) {
        writes++;
        dirty += db.size();
        long now = System.currentTimeMillis();
        // Redis's touchAllWatchedKeysInDb: only watched keys that exist are touched.
        shard.watched().touchAll(db.id(), k -> db.exists(k, now));
        shard.blocking().signalDb(db.id());
        Recorder r = recorder;
        if (r != null) r.written(shard, db.id(), null);
    }

    @Override
    public void swapped(Database a, Database b) {
        writes++;
        dirty++;
        long now = System.currentTimeMillis();
        // A watched key changes if it exists on either side of the swap (touchAllWatchedKeysInDb).
        shard.watched().touchAll(a.id(), k -> a.exists(k, now) || b.exists(k, now));
        shard.watched().touchAll(b.id(), k -> a.exists(k, now) || b.exists(k, now));
        shard.blocking().signalDb(a.id());
        shard.blocking().signalDb(b.id());
        Recorder r = recorder;
        if (r != null) {
            r.written(shard, a.id(), null);
            r.written(shard, b.id(), null);
        }
    }
}
