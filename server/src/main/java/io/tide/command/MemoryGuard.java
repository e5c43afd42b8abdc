package io.tide.command;

import io.tide.config.ConfigRegistry;
import io.tide.shard.Eviction;
import io.tide.shard.Shard;
import io.tide.shard.ShardSet;
import io.tide.store.AccessPolicy;
import io.tide.store.Database;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Thread-safe: {@code maxmemory} for the whole instance. Before a command that may grow memory, the dispatcher asks
 * {@link #admit} on the client's home shard thread: if used memory (every shard's dataset, read without locks, plus
 * the clients' buffers as last summed) is over the limit, the home shard evicts its own keys by the policy within the
 * tenacity's time budget, and asks the other shards to evict theirs; a command that may grow memory is refused with
 * {@code -OOM} only when no shard has anything left to evict (Redis's EVICT_FAIL). Because every shard evicts its
 * coldest keys while the instance is over, a hot shard uses the headroom of cold ones.
 *
 * <p>With {@code maxmemory 0} an implicit limit protects the JVM: {@value #IMPLICIT_HEAP_SHARE_PERCENT}% of the
 * maximum heap, under which writes get {@code -OOM} as with {@code noeviction} (whatever the policy) instead of
 * running the heap out (docs/decisions/0009).
 */
public final class MemoryGuard {

    /** Share of the maximum heap the dataset may take when no maxmemory is set. */
    static final int IMPLICIT_HEAP_SHARE_PERCENT = 70;
    /** How often the clients' buffer bytes are summed again (they are not kept incrementally). */
    private static final long CLIENTS_REFRESH_NANOS = 100_000_000L;

    private final ConfigRegistry config;
    private final ShardSet shards;
    private final java.util.Map<Long, ClientSession> clients;
    private final AccessPolicy access = new AccessPolicy();
    private final long implicitLimit;
    private volatile long maxmemory;
    private volatile Eviction.Policy policy;
    private volatile int samples;
    private volatile long timeLimitNanos;
    private volatile List<byte[]> protectedPrefixes = List.of();
    private volatile long clientBytes;
    private volatile long clientBytesAt;
    /** Redis's pre_command_oom_state: whether the last check found memory over the limit with nothing to evict. */
    private volatile boolean oom;

    MemoryGuard(ConfigRegistry config, ShardSet shards, java.util.Map<Long, ClientSession> clients) {
        this.config = config;
        this.shards = shards;
        this.clients = clients;
        this.implicitLimit = Runtime.getRuntime().maxMemory() / 100 * IMPLICIT_HEAP_SHARE_PERCENT;
        read();
        for (String p : List.of("maxmemory", "maxmemory-policy", "maxmemory-samples", "maxmemory-eviction-tenacity",
                "lfu-log-factor", "lfu-decay-time", "maxmemory-protect-prefix")) {
            config.onChange(p, v -> read());
        }
        for (Shard s : shards.all()) {
            for (int i = 0; i < s.databases(); i++) s.db(i).setAccessPolicy(access);
        }
    }

    private void read() {
        String name = config.get("maxmemory-policy");
        Eviction.Policy p = switch (name) {
            case "volatile-lru" -> new Eviction.Policy(true, Database.Score.IDLE);
            case "volatile-lfu" -> new Eviction.Policy(true, Database.Score.RARITY);
            case "volatile-random" -> new Eviction.Policy(true, Database.Score.RANDOM);
            case "volatile-ttl" -> new Eviction.Policy(true, Database.Score.EXPIRY);
            case "allkeys-lru" -> new Eviction.Policy(false, Database.Score.IDLE);
            case "allkeys-lfu" -> new Eviction.Policy(false, Database.Score.RARITY);
            case "allkeys-random" -> new Eviction.Policy(false, Database.Score.RANDOM);
            default -> null; // noeviction
        };
        Eviction.Policy before = policy;
        policy = p;
        samples = config.getInt("maxmemory-samples");
        int tenacity = config.getInt("maxmemory-eviction-tenacity");
        // Redis's evictionTimeLimitUs: 50 us per step up to 10, then 15% more per step; 100 = no limit.
        double us = tenacity <= 10 ? 50.0 * tenacity : tenacity < 100 ? 500.0 * Math.pow(1.15, tenacity - 10)
                : Long.MAX_VALUE / 1000.0;
        timeLimitNanos = (long) Math.min(Long.MAX_VALUE / 2, us * 1000);
        List<byte[]> prefixes = new ArrayList<>();
        for (String s : config.get("maxmemory-protect-prefix").trim().split("\\s+")) {
            if (!s.isEmpty()) prefixes.add(s.getBytes(StandardCharsets.UTF_8));
        }
        protectedPrefixes = List.copyOf(prefixes);
        access.set(name.endsWith("-lfu"), config.getInt("lfu-log-factor"), config.getInt("lfu-decay-time"));
        maxmemory = config.getLong("maxmemory");
        if (before != p) {
            for (Shard s : shards.all()) s.executeOnData(() -> { s.eviction().clearPool(); s.eviction().rearm(); });
        }
    }

    /** The limit in force: maxmemory, or the implicit one when it is 0. */
    public long limit() {
        long m = maxmemory;
        return m > 0 ? m : implicitLimit;
    }

    /** Whether the policy is an LFU one (OBJECT FREQ works, OBJECT IDLETIME does not). */
    public boolean lfu() {
        return access.lfu();
    }

    /** Bytes of every shard's databases: keys, values and tables, kept incrementally (read without locks). */
    public long datasetBytes() {
        long sum = 0;
        for (Shard s : shards.all()) {
            for (int i = 0; i < s.databases(); i++) sum += s.db(i).usedBytes();
        }
        return sum;
    }

    /** The clients' query and output buffers, summed at most every 100 ms. */
    public long clientBufferBytes() {
        long now = System.nanoTime();
        if (now - clientBytesAt > CLIENTS_REFRESH_NANOS) {
            long sum = 0;
            for (ClientSession c : clients.values()) {
                ClientConnection conn = c.connection();
                sum += conn.outputBufferBytes() + conn.queryBufferBytes() + conn.queryBufferFree();
            }
            clientBytes = sum;
            clientBytesAt = now;
        }
        return clientBytes;
    }

    /** used_memory: what the limit is compared with. */
    public long used() {
        return datasetBytes() + clientBufferBytes();
    }

    private final java.util.concurrent.atomic.AtomicLong peak = new java.util.concurrent.atomic.AtomicLong();

    /** used_memory_peak: the most {@code used} seen by INFO (given the figure it just computed). */
    public long peak(long used) {
        return peak.accumulateAndGet(used, Math::max);
    }

    /** Redis's pre_command_oom_state as of the last check (scripts refuse denyoom calls while it holds). */
    public boolean oom() {
        return oom;
    }

    private boolean isProtected(byte[] key) {
        for (byte[] p : protectedPrefixes) {
            if (key.length >= p.length && java.util.Arrays.equals(key, 0, p.length, p, 0, p.length)) return true;
        }
        return false;
    }

    /**
     * On {@code home}'s thread, before a command that may grow memory: evicts if over the limit; false when the
     * instance is over it and nothing can be evicted (the command gets {@code -OOM}).
     */
    public boolean admit(Shard home) {
        // The implicit limit is a safety net: checked every 64th command per shard, which costs nothing measurable.
        if (maxmemory <= 0 && !oom && (home.eviction().tick() & 63) != 0) return true;
        long limit = limit();
        if (used() <= limit) {
            oom = false;
            return true;
        }
        Eviction.Policy p = maxmemory > 0 ? policy : null; // the implicit limit never evicts
        if (p != null && home.dataLent()) return true; // a busy script holds the data: evict after it
        boolean ok = p != null && evictOn(home, p, limit);
        oom = !ok;
        return ok;
    }

    /** Evicts on {@code s} (its thread) while over; true if the instance got under, or eviction goes on somewhere. */
    private boolean evictOn(Shard s, Eviction.Policy p, long limit) {
        long deadline = System.nanoTime() + timeLimitNanos;
        long evicted = s.eviction().evict(p, this::isProtected, samples, () -> used() - limit, deadline);
        if (used() <= limit) return true;
        boolean elsewhere = false;
        for (Shard other : shards.all()) {
            if (other == s || !other.eviction().mayHaveCandidates(p)) continue;
            elsewhere = true;
            other.executeOnData(() -> background(other));
        }
        if (evicted > 0) {
            s.eviction().continueLater(() -> background(s)); // Redis's eviction timer proc
            return true;
        }
        return elsewhere;
    }

    /** On {@code s}'s thread: a pass asked by another shard, by the cron or by an unfinished pass. */
    void background(Shard s) {
        Eviction.Policy p = policy;
        long limit = limit();
        if (maxmemory <= 0 || p == null || used() <= limit) return;
        long evicted = s.eviction().evict(p, this::isProtected, samples, () -> used() - limit,
                System.nanoTime() + timeLimitNanos);
        if (evicted > 0 && used() > limit) s.eviction().continueLater(() -> background(s));
    }

    /** For the shard cron: evicts if the instance is over its limit (writes elsewhere, growing client buffers). */
    public void cron(Shard s) {
        if (maxmemory > 0 && used() > maxmemory) background(s);
    }
}
