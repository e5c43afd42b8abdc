package io.tide.command;

import io.tide.shard.Shard;
import io.tide.shard.ShardSet;
import io.tide.store.Database;

/**
 * What a handler sees while it runs: the databases that own its keys, the client, the time.
 * Confined to the thread executing the command: a shard thread, or the coordinator while the
 * shards it needs are parked (then {@link #db(byte[])} reaches any shard, safely).
 */
public final class CommandContext {

    private final ServerContext server;
    private final ShardSet shards;
    private Shard shard;
    private boolean coordinated;
    private ClientSession client;
    private int dbIndex;
    private long now;
    private boolean noTouch;

    CommandContext(ServerContext server) {
        this.server = server;
        this.shards = server.shards();
    }

    CommandContext reset(Shard executing, boolean coordinated, ClientSession client, int dbIndex, long nowMs,
                         boolean noTouch) {
        this.shard = executing;
        this.coordinated = coordinated;
        this.client = client;
        this.dbIndex = dbIndex;
        this.now = nowMs;
        this.noTouch = noTouch;
        return this;
    }

    public ServerContext server() { return server; }
    public ShardSet shards() { return shards; }
    /** The client that sent the command. Keyed handlers may run off its home thread: read, never mutate. */
    public ClientSession client() { return client; }
    public int dbIndex() { return dbIndex; }
    /** The command's clock (unix ms), fixed for the whole command as Redis does. */
    public long now() { return now; }
    /** CLIENT NO-TOUCH: reads must not refresh the access clock. */
    public boolean noTouch() { return noTouch; }
    /** True when the command runs with several shards parked (multi-shard or ALL_SHARDS commands). */
    public boolean coordinated() { return coordinated; }

    /** The selected database on the shard that owns {@code key}. */
    public Database db(byte[] key) {
        return db(key, dbIndex);
    }

    /** Database {@code index} on the shard that owns {@code key}. */
    public Database db(byte[] key, int index) {
        return shardOf(key).db(index);
    }

    /** The shard owning {@code key} (for its statistics). */
    public Shard shardOf(byte[] key) {
        return coordinated ? shards.shardOf(key) : shard;
    }

    /**
     * Reads a key for a read command: lazy expiry, access clock (unless NO-TOUCH) and the
     * keyspace hit/miss counters.
     */
    public Object read(byte[] key) {
        Shard s = shardOf(key);
        Database d = s.db(dbIndex);
        Object v = noTouch ? d.peek(key, now) : d.get(key, now);
        if (v == null) s.stats().keyspaceMisses++;
        else s.stats().keyspaceHits++;
        return v;
    }

    /** Reads a key for a write command (lazy expiry; no hit/miss counting, as Redis's lookupKeyWrite). */
    public Object readForWrite(byte[] key) {
        return db(key).get(key, now);
    }

    /** Every shard's copy of database {@code index}: only for ALL_SHARDS commands (or with one shard). */
    public Database[] allDbs(int index) {
        Shard[] all = shards.all();
        Database[] out = new Database[all.length];
        for (int i = 0; i < all.length; i++) out[i] = all[i].db(index);
        return out;
    }
}
