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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: {@code maxmemory} for the whole instance. Before a command that may grow memory, the dispatcher asks
 * {@link #admit} on the client's home shard thread: if used memory (every shard's dataset, read without locks, plus
 * the clients' buffers as last summed) is over the limit, the home shard evicts its own keys by the policy within the
 * tenacity's time budget, and asks the other shards to evict theirs; a command that may grow memory is refused with
 * {@code -OOM} only when no shard has anything left to evict (Redis's EVICT_FAIL). Because every shard evicts its
 * coldest keys while the instance is over, a hot shard uses the headroom of cold ones.
 *
 * <p>With {@code maxmemory 0} an implicit limit protects the JVM: {@value #IMPLICIT_HEAP_SHARE_PERCENT}% of the
 * maximum heap, compared with used memory plus the slabs' holes ({@link #slackBytes}), over which writes get {@code -OOM}
 * as with {@code noeviction} (whatever the policy) instead of running the heap out (docs/decisions/0009 and 0018).
 */
public final class MemoryGuard {

    private static final Logger LOG = LoggerFactory.getLogger("tide");

    /** Share of the maximum heap the dataset may take when no maxmemory is set. */
    static final int IMPLICIT_HEAP_SHARE_PERCENT = 70;
    /** How often the clients' buffer bytes are summed again (they are not kept incrementally). */
    private static final long CLIENTS_REFRESH_NANOS = 100_000_000L;

    private final ConfigRegistry config;
    private final ShardSet shards;
    private final ClientTable clients;
    /** What every database keys its access fields by, published before CONFIG SET replies. */
    private volatile AccessPolicy access = AccessPolicy.LRU;
    private final long implicitLimit;
    private volatile long maxmemory;
    private volatile Eviction.Policy policy;
    private volatile int samples;
    private volatile long timeLimitNanos;
    private volatile List<byte[]> protectedPrefixes = List.of();
    private volatile long clientBytes;
    private volatile long clientBytesAt;
    /** maxmemory-clients: a percentage of maxmemory, or -1 when it is {@link #clientsBytes}. */
    private volatile int clientsPercent = -1;
    private volatile long clientsBytes;
    private final java.util.concurrent.atomic.AtomicLong evictedClients = new java.util.concurrent.atomic.AtomicLong();
    /** Whether this server is now a replica (set once the replication side exists); see {@link #ignoring}. */
    private volatile java.util.function.BooleanSupplier replica = () -> false;
    /** Redis's pre_command_oom_state: whether the last check found memory over the limit with nothing to evict. */
    private volatile boolean oom;

    MemoryGuard(ConfigRegistry config, ShardSet shards, ClientTable clients) {
        this.config = config;
        this.shards = shards;
        this.clients = clients;
        this.implicitLimit = Runtime.getRuntime().maxMemory() / 100 * IMPLICIT_HEAP_SHARE_PERCENT;
        read();
        for (String p : List.of("maxmemory", "maxmemory-policy", "maxmemory-samples", "maxmemory-eviction-tenacity",
                "lfu-log-factor", "lfu-decay-time", "maxmemory-protect-prefix", "maxmemory-clients")) {
            config.onChange(p, v -> read());
        }
        for (Shard s : shards.all()) {
            for (int i = 0; i < s.databases(); i++) s.db(i).followAccessPolicy(this::accessPolicy); // before the loops run
        }
    }

    /** Tells the guard how to know whether the server is a replica (for replica-ignore-maxmemory). */
    public void replicaCheck(java.util.function.BooleanSupplier isReplica) {
        this.replica = isReplica;
    }

    /**
     * Redis's isSafeToPerformEvictions on a replica: with replica-ignore-maxmemory yes (the default) a replica neither
     * evicts nor refuses writes for memory; its dataset follows the primary's, DELs included.
     */
    private boolean ignoring() {
        return replica.getAsBoolean() && config.getBool("replica-ignore-maxmemory");
    }

    /** The access policy every database keys by. */
    private AccessPolicy accessPolicy() {
        return access;
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
        AccessPolicy a = new AccessPolicy(name.endsWith("-lfu"), config.getInt("lfu-log-factor"),
                config.getInt("lfu-decay-time"));
        access = a;
        maxmemory = config.getLong("maxmemory");
        String clients = config.get("maxmemory-clients"); // canonical: bytes, or N%
        clientsPercent = clients.endsWith("%") ? Integer.parseInt(clients.substring(0, clients.length() - 1)) : -1;
        clientsBytes = clientsPercent >= 0 ? 0 : Long.parseLong(clients);
        if (before != p) {
            for (Shard s : shards.all()) s.executeOnData(() -> { s.eviction().clearPool(); s.eviction().rearm(); });
        }
    }

    /**
     * The limit in force: maxmemory, or the implicit one when it is 0 or bigger (a maxmemory the heap cannot hold is
     * capped at what it can, where the policy still evicts).
     */
    public long limit() {
        long m = maxmemory;
        return m > 0 ? Math.min(m, implicitLimit) : implicitLimit;
    }

    /** Whether the policy is an LFU one (OBJECT FREQ works, OBJECT IDLETIME does not). */
    public boolean lfu() {
        return access.lfu();
    }

    /** Bytes of every shard's databases: keys, values and tables, kept incrementally (read without locks). */
    public long datasetBytes() {
        long sum = 0;
        for (Shard s : shards.all()) sum += s.usedBytes();
        return sum;
    }

    /** Heap the databases' slabs take beyond the dataset's bytes (holes, free tails); see {@link Shard#slackBytes}. */
    public long slackBytes() {
        long sum = 0;
        for (Shard s : shards.all()) sum += s.slackBytes();
        return sum;
    }

    /** The clients' unparsed input and pending output, summed at most every 100 ms. */
    public long clientBufferBytes() {
        long now = System.nanoTime();
        if (now - clientBytesAt > CLIENTS_REFRESH_NANOS) {
            long sum = 0;
            for (ClientSession c : clients) {
                ClientConnection conn = c.connection();
                // Unparsed input and pending output; the unfilled part of a query buffer's allocation is left out (Netty
                // grows and drops it between reads).
                sum += conn.outputBufferBytes() + conn.queryBufferBytes();
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
        if (maxmemory > 0 && ignoring()) {
            oom = false;
            return true;
        }
        long limit = limit();
        // The implicit limit guards the heap, which holds the slabs' holes too (used_memory, as Redis's, leaves an
        // allocator's fragmentation out, and so does eviction: evicting does not shrink the holes at once).
        if (used() + (maxmemory > 0 ? 0 : slackBytes()) <= limit) {
            oom = false;
            return true;
        }
        Eviction.Policy p = maxmemory > 0 ? policy : null; // the implicit limit never evicts
        if (p != null && home.dataLent()) return true; // a busy script holds the data: evict after it
        boolean ok = p != null && evictOn(home, p, limit);
        oom = !ok;
        return ok;
    }

    /**
     * Evicts while over the limit, each shard its share of the excess in proportion to its dataset (so that every
     * shard gives up its coldest keys, which approximates one LRU/LFU order across shards): {@code s} (this thread)
     * synchronously, the others on their own threads. True if the instance got under, or eviction goes on somewhere
     * (Redis's EVICT_RUNNING); false when nothing is left to evict anywhere (EVICT_FAIL).
     */
    private boolean evictOn(Shard s, Eviction.Policy p, long limit) {
        long over = used() - limit;
        // Other shards write and evict on their own threads, so used memory moves under this check: read it once here,
        // and answer -OOM below only when eviction found nothing, never because a later read crossed the limit again.
        if (over <= 0) return true;
        long total = Math.max(1, datasetBytes());
        boolean elsewhere = false;
        for (Shard other : shards.all()) {
            if (other == s || !other.eviction().mayHaveCandidates(p)) continue;
            if (share(over, other.usedBytes(), total) <= 0) continue;
            elsewhere = true;
            // One request in flight per shard: a burst of writes over the limit does not flood its task queue.
            if (other.eviction().ask()) {
                other.executeOnData(() -> {
                    other.eviction().answered();
                    background(other, currentShare(other));
                });
            }
        }
        long own = share(over, s.usedBytes(), total);
        long evicted = own > 0 ? evictShare(s, p, own, System.nanoTime() + timeLimitNanos) : 0;
        if (!elsewhere && used() > limit && evicted >= 0) {
            // No other shard can help: this one evicts what is left of the excess.
            evicted = Math.max(evicted, 0) + Math.max(0, evictShare(s, p, used() - limit,
                    System.nanoTime() + timeLimitNanos));
        }
        if (evicted > 0) {
            if (used() > limit) s.eviction().continueLater(() -> background(s, currentShare(s))); // Redis's timer proc
            return true;
        }
        return elsewhere || used() <= limit;
    }

    /** {@code s}'s share of what the instance is over its limit by now (0 when it is not over). */
    private long currentShare(Shard s) {
        return share(used() - limit(), s.usedBytes(), Math.max(1, datasetBytes()));
    }

    /** {@code over} split by a shard's part of the dataset (at least a little, so a small shard still helps). */
    private static long share(long over, long shardBytes, long total) {
        if (over <= 0 || shardBytes <= 0) return 0;
        return Math.max(1024, (long) ((double) over * shardBytes / total));
    }

    /** On {@code s}'s thread: evicts until its own dataset shrank by {@code bytes}; keys evicted, -1 if none could be. */
    private long evictShare(Shard s, Eviction.Policy p, long bytes, long deadlineNanos) {
        long start = s.usedBytes();
        long t0 = System.nanoTime();
        long n = s.eviction().evict(p, this::isProtected, samples, () -> bytes - (start - s.usedBytes()), deadlineNanos);
        io.tide.metrics.LatencyMonitor lm = latency;
        if (lm != null) lm.sampleIfNeeded("eviction-cycle", (System.nanoTime() - t0) / 1_000_000);
        return n;
    }

    /** Where eviction passes are sampled (Redis's eviction-cycle latency event). */
    private volatile io.tide.metrics.LatencyMonitor latency;

    public void latencyMonitor(io.tide.metrics.LatencyMonitor m) {
        this.latency = m;
    }

    /** On {@code s}'s thread: its share of a pass (asked by another shard, by the cron, or by an unfinished pass). */
    void background(Shard s, long bytes) {
        Eviction.Policy p = policy;
        if (maxmemory <= 0 || p == null || bytes <= 0 || used() <= limit() || ignoring()) return;
        long evicted = evictShare(s, p, bytes, System.nanoTime() + timeLimitNanos);
        if (evicted > 0 && used() > limit()) {
            s.eviction().continueLater(() -> background(s, currentShare(s)));
        }
    }

    /** For the shard cron: evicts if the instance is over its limit (writes elsewhere, growing client buffers). */
    public void cron(Shard s) {
        if (maxmemory > 0) background(s, currentShare(s));
        if (s.id() == 0) evictClients();
    }

    // ---------------------------------------------------------------- client eviction

    /** maxmemory-clients in bytes (a percentage resolved against maxmemory); 0 when client eviction is off. */
    public long clientsLimit() {
        int pct = clientsPercent;
        return pct >= 0 ? maxmemory / 100 * pct : clientsBytes;
    }

    /** INFO stats evicted_clients: connections closed by client eviction. */
    public long evictedClients() {
        return evictedClients.get();
    }

    /**
     * CLIENT LIST's {@code tot-mem}: the client's query buffer (filled and allocated), the arguments of its running
     * command, its queued MULTI commands, its reply buffer and its pending output.
     */
    public static long totalMemory(ClientSession s) {
        ClientConnection conn = s.connection();
        long obl = conn.replyBufferBytes();
        return conn.queryBufferBytes() + conn.queryBufferFree() + s.argvBytes() + s.queuedBytes()
                + Math.max(conn.replyBufferSize(), obl) + conn.outputBufferBytes() - obl;
    }

    /**
     * Redis's client eviction, from shard 0's cron (every 1/hz s): while all clients together use more than
     * maxmemory-clients, closes the one using the most, skipping clients with CLIENT NO-EVICT on.
     */
    void evictClients() {
        long limit = clientsLimit();
        if (limit <= 0) return;
        long total = 0;
        List<ClientSession> candidates = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        for (ClientSession c : clients) {
            long m = totalMemory(c);
            total += m;
            if (!c.noEvict()) {
                candidates.add(c);
                sizes.add(m);
            }
        }
        if (total <= limit) return;
        Integer[] order = new Integer[candidates.size()];
        for (int i = 0; i < order.length; i++) order[i] = i;
        java.util.Arrays.sort(order, (a, b) -> Long.compare(sizes.get(b), sizes.get(a)));
        for (int i = 0; i < order.length && total > limit; i++) {
            ClientSession c = candidates.get(order[i]);
            long m = sizes.get(order[i]);
            if (m == 0) break;
            LOG.info("Evicting client: id={} addr={} tot-mem={}", c.id(), c.connection().remoteAddress(), m);
            c.connection().close();
            total -= m;
            evictedClients.incrementAndGet();
        }
    }
}
