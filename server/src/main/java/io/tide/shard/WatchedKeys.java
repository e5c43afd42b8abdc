package io.tide.shard;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Confined to its shard thread (or the coordinator while the shard is parked). The keys of this shard that
 * clients WATCH, and the watchers of each: a write to a watched key, its expiry or a flush marks every
 * watcher's transaction dirty, so that its EXEC aborts. Redis's {@code watched_keys}.
 */
public final class WatchedKeys {

    /** One client's watch: the dirty flag its EXEC reads (set from any shard), and its keys. */
    public static final class Watch {
        private final AtomicBoolean dirty = new AtomicBoolean();
        /** The watched keys; touched only by the thread running the client's WATCH, EXEC or UNWATCH. */
        public final ArrayList<BlockedKeys.DbKey> keys = new ArrayList<>();
        /** The shards the keys live on (kept here rather than by every client, which few watch). */
        public final ShardSet shards;

        public Watch(ShardSet shards) {
            this.shards = shards;
        }

        public boolean isDirty() {
            return dirty.get();
        }

        public void markDirty() {
            dirty.set(true);
        }
    }

    private final HashMap<BlockedKeys.DbKey, ArrayList<Watch>> byKey = new HashMap<>();

    public boolean isEmpty() {
        return byKey.isEmpty();
    }

    public void add(Watch w, int db, byte[] key) {
        byKey.computeIfAbsent(new BlockedKeys.DbKey(db, key), k -> new ArrayList<>()).add(w);
    }

    public void remove(Watch w, BlockedKeys.DbKey key) {
        ArrayList<Watch> list = byKey.get(key);
        if (list == null) return;
        list.remove(w);
        if (list.isEmpty()) byKey.remove(key);
    }

    /** A write, expiry or deletion of {@code key}: every watcher's transaction fails. Cheap when nothing is watched. */
    public void touch(int db, byte[] key) {
        if (byKey.isEmpty()) return;
        ArrayList<Watch> list = byKey.get(new BlockedKeys.DbKey(db, key));
        if (list != null) for (Watch w : list) w.markDirty();
    }

    /**
     * FLUSHDB, FLUSHALL, SWAPDB: touches the watched keys of database {@code db} for which {@code affected}
     * holds (Redis touches only keys that exist in the emptied or the swapped-in database).
     */
    public void touchAll(int db, java.util.function.Predicate<byte[]> affected) {
        for (Iterator<Map.Entry<BlockedKeys.DbKey, ArrayList<Watch>>> it = byKey.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<BlockedKeys.DbKey, ArrayList<Watch>> e = it.next();
            if (e.getKey().db() == db && affected.test(e.getKey().key())) {
                for (Watch w : e.getValue()) w.markDirty();
            }
        }
    }
}
