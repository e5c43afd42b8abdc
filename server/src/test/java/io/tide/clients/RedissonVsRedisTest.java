package io.tide.clients;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.redisson.Redisson;
import org.redisson.api.BatchOptions;
import org.redisson.api.GeoEntry;
import org.redisson.api.GeoUnit;
import org.redisson.api.RBatch;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RBucket;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RFunction;
import org.redisson.api.RClientSideCaching;
import org.redisson.api.RLocalCachedMap;
import org.redisson.api.RLock;
import org.redisson.api.RMap;
import org.redisson.api.RMapCache;
import org.redisson.api.RMapCacheNative;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RScoredSortedSet;
import org.redisson.api.RScript;
import org.redisson.api.RSemaphore;
import org.redisson.api.RStream;
import org.redisson.api.RTopic;
import org.redisson.api.RTransaction;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.api.FunctionMode;
import org.redisson.api.FunctionResult;
import org.redisson.api.TransactionOptions;
import org.redisson.api.geo.GeoSearchArgs;
import org.redisson.api.options.ClientSideCachingOptions;
import org.redisson.api.options.LocalCachedMapOptions;
import org.redisson.api.stream.StreamAddArgs;
import org.redisson.api.stream.StreamCreateGroupArgs;
import org.redisson.api.StreamMessageId;
import org.redisson.api.stream.StreamReadGroupArgs;
import org.redisson.client.codec.LongCodec;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.Protocol;

/**
 * Redisson, a client many Java teams run, against a real redis-server and Tide (one shard, where scripts run inline
 * on the shard thread, and two, where they are coordinated), in RESP2 and RESP3. Each scenario drives Redisson's
 * objects the way an application does (locks, maps with per-entry TTLs, queues, rate limiters, streams: most are
 * Lua scripts of Redisson's own, with pub/sub for wake-ups) and records what the application sees: return values,
 * and the text of any error. Tide must give the same record as Redis. Some scenarios also check the outcome itself
 * (a lock excludes, a blocked take is woken), so that both servers being wrong the same way fails too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedissonVsRedisTest {

    /** One scenario: drives {@code c} on keys that start with {@code p} and adds what it sees to {@code seen}. */
    interface Scenario {
        void run(RedissonClient c, String p, List<Object> seen) throws Exception;
    }

    private RealRedis redis;
    private Server tide1;
    private Server tide2;
    private final Map<String, RedissonClient> clients = new HashMap<>();
    private int round;

    @BeforeAll
    void startServers() throws Exception {
        redis = RealRedis.start();
        tide1 = TestServers.start(1);
        tide2 = TestServers.start(2);
    }

    @AfterAll
    void stopServers() {
        clients.values().forEach(RedissonClient::shutdown);
        if (tide1 != null) tide1.close();
        if (tide2 != null) tide2.close();
        if (redis != null) redis.close();
    }

    private RedissonClient client(int port, int protocol) {
        return clients.computeIfAbsent(port + "/" + protocol, k -> {
            Config config = new Config();
            config.setProtocol(protocol == 3 ? Protocol.RESP3 : Protocol.RESP2);
            config.useSingleServer().setAddress("redis://127.0.0.1:" + port).setTimeout(10_000)
                    .setConnectionMinimumIdleSize(2).setConnectionPoolSize(8)
                    .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(4);
            return Redisson.create(config);
        });
    }

    static List<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (int shards : new int[] {1, 2}) {
            for (int protocol : new int[] {2, 3}) all.add(Arguments.of(shards, protocol));
        }
        return all;
    }

    /** Runs {@code s} on Redis and on Tide with the same key prefix and asserts the same record. */
    private void same(int shards, int protocol, Scenario s) throws Exception {
        String p = "rs" + (round++) + ":";
        List<Object> expected = record(client(redis.port(), protocol), p, s);
        List<Object> actual = record(client((shards == 1 ? tide1 : tide2).port(), protocol), p, s);
        assertThat(expected).as("the scenario saw something on Redis").isNotEmpty();
        assertThat(actual).as("Tide (%d shards, RESP%d) against Redis", shards, protocol)
                .containsExactlyElementsOf(expected);
    }

    private static List<Object> record(RedissonClient c, String p, Scenario s) throws Exception {
        List<Object> seen = new ArrayList<>();
        s.run(c, p, seen);
        return seen;
    }

    /** The text of an error reply, as the application sees it (Redisson adds the channel and command after it). */
    private static String error(Throwable e) {
        while (e.getCause() != null && e.getCause() != e) e = e.getCause();
        String m = String.valueOf(e.getMessage());
        int cut = m.indexOf(". channel:");
        if (cut < 0) cut = m.indexOf(" by node id:");
        return e.getClass().getSimpleName() + ": " + (cut >= 0 ? m.substring(0, cut) : m);
    }

    private interface Call {
        Object call() throws Exception;
    }

    /** The value {@code c} returns, or the text of its error. */
    private static Object outcome(Call c) {
        try {
            return c.call();
        } catch (Exception e) {
            return error(e);
        }
    }

    /** {@code c} on another thread (a client that blocks or holds a lock while this one goes on). */
    private static <T> CompletableFuture<T> async(Call c) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                @SuppressWarnings("unchecked")
                T v = (T) c.call();
                return v;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** A TTL in milliseconds as a coarse bucket: the two servers run a moment apart. */
    private static String ttl(long ms, long max) {
        if (ms < 0) return "ttl " + ms;
        return ms > 0 && ms <= max ? "ttl in (0, " + max + "]" : "ttl out of range: " + ms;
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void buckets(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            RBucket<String> b = c.getBucket(p + "b", StringCodec.INSTANCE);
            seen.add(b.setIfAbsent("1"));
            seen.add(b.setIfAbsent("2"));
            seen.add(b.get());
            seen.add(b.compareAndSet("1", "3"));
            seen.add(b.compareAndSet("1", "4"));
            seen.add(b.getAndSet("5"));
            seen.add(b.setIfExists("6"));
            b.set("7", Duration.ofSeconds(100));
            seen.add(ttl(b.remainTimeToLive(), 100_000));
            seen.add(b.size());
            seen.add(b.getAndExpire(Duration.ofSeconds(50)));
            seen.add(ttl(b.remainTimeToLive(), 50_000));
            seen.add(b.getAndClearExpire());
            seen.add(b.remainTimeToLive());
            seen.add(b.getAndDelete());
            seen.add(b.isExists());
            seen.add(b.setIfAbsent("8", Duration.ofSeconds(10)));
            seen.add(b.setIfExists("9", Duration.ofSeconds(10)));
            seen.add(b.get());
            // Several buckets at once: MSET/MGET over keys of both shards, and MSETNX.
            var buckets = c.getBuckets(StringCodec.INSTANCE);
            buckets.set(Map.of(p + "x", "1", p + "y", "2", p + "z", "3"));
            seen.add(new TreeMap<>(buckets.get(p + "x", p + "y", p + "z", p + "none")));
            seen.add(buckets.trySet(Map.of(p + "x", "9", p + "w", "9")));
            seen.add(buckets.trySet(Map.of(p + "v", "9", p + "w", "9")));
            seen.add(new TreeMap<>(buckets.get(p + "v", p + "w", p + "x")));
            c.getMap(p + "h").put("f", "v");
            seen.add(outcome(() -> c.getBucket(p + "h").getAndSet(1)));
            seen.add(outcome(() -> c.getBucket(p + "h", StringCodec.INSTANCE).get()));
        });
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void atomicNumbersAndIdGenerators(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            var a = c.getAtomicLong(p + "a");
            seen.add(a.incrementAndGet());
            seen.add(a.addAndGet(10));
            seen.add(a.compareAndSet(11, 20));
            seen.add(a.compareAndSet(11, 30));
            seen.add(a.getAndIncrement());
            seen.add(a.getAndDelete());
            seen.add(a.get());
            seen.add(a.setIfLess(10, 5));
            seen.add(a.setIfGreater(0, 7));
            seen.add(a.get());
            var d = c.getAtomicDouble(p + "d");
            seen.add(d.addAndGet(1.5));
            seen.add(d.compareAndSet(1.5, 2.25));
            seen.add(d.getAndAdd(0.25));
            seen.add(d.get());
            var ids = c.getIdGenerator(p + "id");
            seen.add(ids.tryInit(100, 3));
            List<Long> got = new ArrayList<>();
            for (int i = 0; i < 7; i++) got.add(ids.nextId());
            seen.add(got);
            var adder = c.getLongAdder(p + "adder");
            adder.add(5);
            adder.increment();
            seen.add(adder.sum());
            adder.destroy();
            c.<String>getBucket(p + "nan", StringCodec.INSTANCE).set("x");
            seen.add(outcome(() -> c.getAtomicLong(p + "nan").incrementAndGet()));
        });
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void maps(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            RMap<String, String> m = c.getMap(p + "m", StringCodec.INSTANCE);
            seen.add(m.put("a", "1"));
            seen.add(m.put("a", "2"));
            seen.add(m.putIfAbsent("a", "3"));
            seen.add(m.putIfAbsent("b", "4"));
            seen.add(m.fastPut("c", "5"));
            seen.add(m.fastPutIfAbsent("c", "6"));
            seen.add(m.fastPutIfExists("d", "7"));
            seen.add(m.putIfExists("c", "8"));
            seen.add(m.replace("a", "9"));
            seen.add(m.replace("zz", "9"));
            seen.add(m.replace("a", "9", "10"));
            seen.add(m.replace("a", "9", "11"));
            seen.add(m.remove("b", "nope"));
            seen.add(m.remove("b", "4"));
            m.putAll(Map.of("e", "1", "f", "2", "g", "3", "key1", "x", "key2", "y"));
            seen.add(new TreeMap<>(m.readAllMap()));
            seen.add(new TreeMap<>(m.getAll(Set.of("a", "e", "missing"))));
            seen.add(new TreeSet<>(m.keySet("key*")));
            seen.add(new TreeSet<>(m.readAllKeySet()));
            seen.add(new TreeSet<>(m.readAllValues()));
            seen.add(m.containsValue("3"));
            seen.add(m.containsValue("nope"));
            seen.add(m.containsKey("e"));
            seen.add(m.valueSize("key1"));
            seen.add(m.fastRemove("e", "f", "missing"));
            seen.add(m.size());
            seen.add(m.randomKeys(3).size());
            seen.add(m.randomEntries(2).size());
            RMap<String, Long> n = c.getMap(p + "n", StringCodec.INSTANCE);
            seen.add(outcome(() -> c.getMap(p + "n", LongCodec.INSTANCE).addAndGet("x", 5L)));
            seen.add(outcome(() -> c.getMap(p + "n", LongCodec.INSTANCE).addAndGet("x", 7L)));
            seen.add(outcome(() -> c.<String, Double>getMap(p + "n2", StringCodec.INSTANCE).addAndGet("x", 1.5)));
            seen.add(outcome(() -> c.getMap(p + "m", LongCodec.INSTANCE).addAndGet("a", 1L)));
            seen.add(n.isExists());
            var iterated = new TreeMap<String, String>();
            for (var e : c.<String, String>getMap(p + "m", StringCodec.INSTANCE).entrySet("*", 2)) {
                iterated.put(e.getKey(), e.getValue());
            }
            seen.add(iterated);
            seen.add(m.delete());
            seen.add(m.isEmpty());
        });
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void mapCacheWithPerEntryTtls(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            RMapCache<String, String> m = c.getMapCache(p + "mc", StringCodec.INSTANCE);
            seen.add(m.put("a", "1", 100, TimeUnit.SECONDS));
            seen.add(m.put("b", "2"));
            seen.add(m.putIfAbsent("a", "3", 10, TimeUnit.SECONDS));
            seen.add(m.fastPut("c", "4", 10, TimeUnit.SECONDS, 5, TimeUnit.SECONDS));
            seen.add(m.put("short", "5", 150, TimeUnit.MILLISECONDS));
            seen.add(m.get("a"));
            seen.add(ttl(m.remainTimeToLive("a"), 100_000));
            seen.add(m.remainTimeToLive("b"));
            seen.add(m.remainTimeToLive("missing"));
            seen.add(m.size());
            Thread.sleep(300);
            seen.add(m.get("short"));
            seen.add(m.containsKey("short"));
            seen.add(new TreeMap<>(m.readAllMap()));
            seen.add(m.replace("a", "6"));
            seen.add(m.remove("b"));
            seen.add(m.fastPutIfAbsent("b", "7", 1, TimeUnit.MINUTES));
            seen.add(m.expireEntry("b", Duration.ofSeconds(30), Duration.ZERO));
            seen.add(ttl(m.remainTimeToLive("b"), 30_000));
            seen.add(new TreeMap<>(m.getAll(Set.of("a", "b", "c", "short"))));
            m.setMaxSize(2);
            seen.add(m.put("d", "8"));
            seen.add(m.size());
            var set = c.<String>getSetCache(p + "sc", StringCodec.INSTANCE);
            seen.add(set.add("x", 100, TimeUnit.SECONDS));
            seen.add(set.add("x", 100, TimeUnit.SECONDS));
            seen.add(set.add("y", 100, TimeUnit.MILLISECONDS));
            Thread.sleep(200);
            seen.add(set.contains("y"));
            seen.add(new TreeSet<>(set.readAll()));
            seen.add(set.size());
        });
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void locks(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            RLock lock = c.getLock(p + "lock");
            lock.lock();
            lock.lock();
            seen.add(lock.isLocked());
            seen.add(lock.isHeldByCurrentThread());
            seen.add(lock.getHoldCount());
            lock.unlock();
            seen.add(lock.getHoldCount());
            lock.unlock();
            seen.add(lock.isLocked());
            seen.add(lock.tryLock(0, 10, TimeUnit.SECONDS));
            seen.add(ttl(lock.remainTimeToLive(), 10_000));
            // Held by another thread: a try without waiting fails, a waiting one gets it once the holder lets go
            // (Redisson wakes the waiter with a PUBLISH from its unlock script).
            seen.add(CompletableFuture.supplyAsync(() -> lock.tryLock()).get(10, TimeUnit.SECONDS));
            CountDownLatch waiting = new CountDownLatch(1);
            var waiter = async(() -> {
                waiting.countDown();
                boolean got = lock.tryLock(8, 10, TimeUnit.SECONDS);
                if (got) lock.unlock();
                return got;
            });
            waiting.await();
            Thread.sleep(200);
            long released = System.nanoTime();
            lock.unlock();
            seen.add(waiter.get(10, TimeUnit.SECONDS));
            assertThat(System.nanoTime() - released).as("woken by the unlock message, not by polling")
                    .isLessThan(TimeUnit.SECONDS.toNanos(4));
            seen.add(outcome(() -> {
                CompletableFuture.runAsync(() -> c.getLock(p + "other").lock()).get();
                c.getLock(p + "other").unlock();
                return "unlocked";
            }));
            seen.add(c.getLock(p + "other").forceUnlock());
            seen.add(c.getLock(p + "other").isLocked());

            RLock fair = c.getFairLock(p + "fair");
            seen.add(fair.tryLock(0, 10, TimeUnit.SECONDS));
            var fairWaiter = async(() -> {
                boolean got = fair.tryLock(8, 10, TimeUnit.SECONDS);
                if (got) fair.unlock();
                return got;
            });
            Thread.sleep(200);
            fair.unlock();
            seen.add(fairWaiter.get(10, TimeUnit.SECONDS));
            seen.add(fair.isLocked());

            RReadWriteLock rw = c.getReadWriteLock(p + "rw");
            rw.readLock().lock();
            seen.add(CompletableFuture.supplyAsync(() -> {
                boolean got = rw.readLock().tryLock();
                if (got) rw.readLock().unlock();
                return got;
            }).get());
            seen.add(CompletableFuture.supplyAsync(() -> rw.writeLock().tryLock()).get());
            rw.readLock().unlock();
            seen.add(rw.writeLock().tryLock());
            seen.add(CompletableFuture.supplyAsync(() -> rw.readLock().tryLock()).get());
            rw.writeLock().unlock();
            seen.add(rw.writeLock().isLocked());

            var multi = c.getMultiLock(c.getLock(p + "m1"), c.getLock(p + "m2"), c.getLock(p + "m3"));
            seen.add(multi.tryLock(1, 10, TimeUnit.SECONDS));
            seen.add(c.getLock(p + "m2").isLocked());
            multi.unlock();
            seen.add(c.getLock(p + "m3").isLocked());
        });
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void semaphoresAndLatches(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            RSemaphore s = c.getSemaphore(p + "sem");
            seen.add(s.trySetPermits(2));
            seen.add(s.trySetPermits(5));
            seen.add(s.tryAcquire());
            seen.add(s.tryAcquire(2));
            seen.add(s.availablePermits());
            var acquirer = async(() -> s.tryAcquire(2, Duration.ofSeconds(8)));
            Thread.sleep(200);
            s.release();
            seen.add(acquirer.get(10, TimeUnit.SECONDS));
            seen.add(s.drainPermits());
            s.addPermits(3);
            seen.add(s.availablePermits());

            var ps = c.getPermitExpirableSemaphore(p + "psem");
            seen.add(ps.trySetPermits(1));
            String id = ps.acquire(10, TimeUnit.SECONDS);
            seen.add(id != null);
            seen.add(ps.tryAcquire());
            seen.add(ps.availablePermits());
            seen.add(ps.tryRelease(id));
            seen.add(ps.tryRelease(id));
            seen.add(ps.availablePermits());

            RCountDownLatch latch = c.getCountDownLatch(p + "latch");
            seen.add(latch.trySetCount(2));
            CompletableFuture.runAsync(() -> {
                latch.countDown();
                latch.countDown();
            });
            seen.add(latch.await(8, TimeUnit.SECONDS));
            seen.add(latch.getCount());
        });
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void queues(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            var q = c.<String>getQueue(p + "q", StringCodec.INSTANCE);
            seen.add(q.offer("a"));
            seen.add(q.addAll(List.of("b", "c", "d")));
            seen.add(q.peek());
            seen.add(q.poll());
            seen.add(q.poll(2));
            seen.add(q.pollLastAndOfferFirstTo(p + "q2"));
            seen.add(q.readAll());
            var dq = c.<String>getDeque(p + "q2", StringCodec.INSTANCE);
            dq.addFirst("x");
            dq.addLast("y");
            seen.add(dq.readAll());
            seen.add(dq.pollLast());
            seen.add(dq.removeLastOccurrence("d"));
            seen.add(dq.move(org.redisson.api.queue.DequeMoveArgs.pollFirst().addLastTo(p + "q")));

            RBlockingQueue<String> bq = c.getBlockingQueue(p + "bq", StringCodec.INSTANCE);
            var taker = async(() -> bq.take());
            Thread.sleep(200);
            bq.offer("woken");
            seen.add(taker.get(10, TimeUnit.SECONDS));
            // BLPOP over three queues (on two shards, the keys fall on both).
            var any = async(() -> c.<String>getBlockingQueue(p + "any1", StringCodec.INSTANCE)
                        .pollFromAny(8, TimeUnit.SECONDS, p + "any2", p + "any3"));
            Thread.sleep(200);
            c.getQueue(p + "any3", StringCodec.INSTANCE).offer("third");
            seen.add(any.get(10, TimeUnit.SECONDS));
            seen.add(bq.drainTo(new ArrayList<>()));
            bq.addAll(List.of("1", "2", "3"));
            seen.add(bq.pollLastAndOfferFirstTo(p + "bq2", 1, TimeUnit.SECONDS));
            List<String> drained = new ArrayList<>();
            seen.add(bq.drainTo(drained, 1));
            seen.add(drained);
            var bdq = c.<String>getBlockingDeque(p + "bdq", StringCodec.INSTANCE);
            var last = async(() -> bdq.takeLast());
            Thread.sleep(200);
            bdq.addFirst("only");
            seen.add(last.get(10, TimeUnit.SECONDS));

            var bounded = c.<String>getBoundedBlockingQueue(p + "bounded", StringCodec.INSTANCE);
            seen.add(bounded.trySetCapacity(2));
            seen.add(bounded.offer("1"));
            seen.add(bounded.offer("2"));
            seen.add(bounded.offer("3"));
            seen.add(bounded.poll());
            seen.add(bounded.offer("3"));
            seen.add(bounded.remainingCapacity());

            var dest = c.<String>getBlockingQueue(p + "dest", StringCodec.INSTANCE);
            RDelayedQueue<String> delayed = c.getDelayedQueue(dest);
            delayed.offer("later", 300, TimeUnit.MILLISECONDS);
            delayed.offer("sooner", 100, TimeUnit.MILLISECONDS);
            seen.add(delayed.size());
            seen.add(dest.poll(5, TimeUnit.SECONDS));
            seen.add(dest.poll(5, TimeUnit.SECONDS));
            seen.add(delayed.size());
            delayed.destroy();

            var pq = c.<String>getPriorityQueue(p + "pq", StringCodec.INSTANCE);
            seen.add(pq.trySetComparator(java.util.Comparator.<String>naturalOrder()));
            pq.addAll(List.of("m", "c", "x", "a"));
            seen.add(pq.poll());
            seen.add(pq.readAll());
        });
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void sortedSetsSetsAndLists(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            RScoredSortedSet<String> z = c.getScoredSortedSet(p + "z", StringCodec.INSTANCE);
            seen.add(z.add(1.5, "a"));
            seen.add(z.add(2.5, "b"));
            seen.add(z.addAndGetRank(0.5, "c"));
            seen.add(z.addScore("a", 10));
            seen.add(z.addIfGreater(1, "b"));
            seen.add(z.addIfLess(1, "b"));
            seen.add(z.tryAdd(7, "a"));
            seen.add(z.rank("a"));
            seen.add(z.revRank("a"));
            seen.add(z.getScore("b"));
            seen.add(z.getScore(List.of("a", "zz")));
            seen.add(z.valueRange(0, -1));
            seen.add(z.entryRange(0, -1).stream().map(e -> e.getValue() + "=" + e.getScore()).toList());
            seen.add(z.valueRange(1, true, 20, false));
            seen.add(z.count(0, true, 2, true));
            seen.add(z.first());
            seen.add(z.pollFirst());
            seen.add(z.pollLast());
            seen.add(z.addAll(Map.of("p", 1.0, "q", 2.0, "r", 3.0)));
            seen.add(z.removeRangeByScore(2, true, 3, true));
            seen.add(z.readAll());
            seen.add(z.union(p + "z"));
            seen.add(c.getScoredSortedSet(p + "z2", StringCodec.INSTANCE).add(5, "q"));
            seen.add(z.readUnion(p + "z2"));
            var lex = c.getLexSortedSet(p + "lex");
            lex.addAll(List.of("a", "b", "c", "d"));
            seen.add(lex.range("a", true, "c", false));
            seen.add(lex.rangeTail("b", false));
            seen.add(lex.countHead("c", true));

            var s = c.<String>getSet(p + "s", StringCodec.INSTANCE);
            seen.add(s.add("a"));
            seen.add(s.addAll(List.of("b", "c")));
            seen.add(s.contains("a"));
            seen.add(new TreeSet<>(s.readAll()));
            var s2 = c.<String>getSet(p + "s2", StringCodec.INSTANCE);
            s2.addAll(List.of("c", "d"));
            seen.add(new TreeSet<>(s.readUnion(p + "s2")));
            seen.add(new TreeSet<>(s.readIntersection(p + "s2")));
            seen.add(new TreeSet<>(s.readDiff(p + "s2")));
            seen.add(s.move(p + "s2", "a"));
            seen.add(s.removeRandom() != null);
            seen.add(s.size());

            var l = c.<String>getList(p + "l", StringCodec.INSTANCE);
            seen.add(l.addAll(List.of("a", "b", "c", "b")));
            seen.add(l.get(1));
            seen.add(l.set(1, "B"));
            seen.add(l.indexOf("b"));
            seen.add(l.lastIndexOf("b"));
            seen.add(l.indexOf("nope"));
            seen.add(l.subList(1, 3));
            l.fastRemove(0);
            seen.add(l.readAll());
            seen.add(l.remove("b"));
            l.add(1, "ins");
            seen.add(l.readAll());
            seen.add(l.addBefore("ins", "pre"));
            l.trim(0, 1);
            seen.add(l.readAll());
            seen.add(outcome(() -> l.set(10, "x")));

            var mm = c.<String, String>getListMultimap(p + "mm", StringCodec.INSTANCE);
            mm.put("k", "1");
            mm.put("k", "2");
            mm.put("j", "3");
            seen.add(mm.get("k").readAll());
            seen.add(mm.removeAll("k"));
            seen.add(mm.size());
            var sm = c.<String, String>getSetMultimap(p + "sm", StringCodec.INSTANCE);
            sm.put("k", "1");
            sm.put("k", "1");
            seen.add(sm.get("k").size());
            seen.add(new TreeSet<>(sm.keySet()));
        });
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void topics(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            RTopic topic = c.getTopic(p + "t", StringCodec.INSTANCE);
            var got = new LinkedBlockingQueue<String>();
            int id = topic.addListener(String.class, (ch, msg) -> got.add(ch + ":" + msg));
            seen.add(topic.publish("hello"));
            seen.add(got.poll(5, TimeUnit.SECONDS));
            seen.add(topic.countSubscribers());
            var pattern = c.getPatternTopic(p + "t*", StringCodec.INSTANCE);
            int pid = pattern.addListener(String.class, (pat, ch, msg) -> got.add(pat + "|" + ch + ":" + msg));
            seen.add(c.getTopic(p + "t2", StringCodec.INSTANCE).publish("two"));
            seen.add(got.poll(5, TimeUnit.SECONDS));
            topic.removeListener(id);
            pattern.removeListener(pid);
            seen.add(topic.countSubscribers());
            seen.add(topic.publish("nobody"));

            // A client of its own, with a short response timeout: a reliable topic's first blocking read is often not
            // answered by the publishes that follow (with redis-server as with Tide) until Redisson times it out and
            // reads again, after the client's timeout (10 s on the others).
            Config quick = new Config(c.getConfig());
            quick.useSingleServer().setTimeout(2000);
            RedissonClient own = Redisson.create(quick);
            try {
                reliableTopic(own, p, seen);
            } finally {
                own.shutdown();
            }
        });
    }

    private static void reliableTopic(RedissonClient c, String p, List<Object> seen) throws InterruptedException {
        var reliable = c.getReliableTopic(p + "rt", StringCodec.INSTANCE);
        var rgot = new LinkedBlockingQueue<String>();
        String rid = reliable.addListener(String.class, (ch, msg) -> rgot.add(msg));
        // The listener starts reading from the stream's end a moment after addListener returns, and Redisson
        // may hand it a message twice (both seen with redis-server too): publish until one arrives, then
        // check that a later message follows it.
        String first = null;
        for (int i = 0; i < 50 && first == null; i++) {
            reliable.publish("r1");
            first = rgot.poll(100, TimeUnit.MILLISECONDS);
        }
        seen.add(first);
        seen.add(reliable.publish("r2"));
        String next = null;
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); !"r2".equals(next)
                && System.nanoTime() < end; ) {
            next = rgot.poll(100, TimeUnit.MILLISECONDS);
        }
        seen.add(next);
        seen.add(reliable.countListeners());
        reliable.removeListener(rid);
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void streams(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            RStream<String, String> s = c.getStream(p + "x", StringCodec.INSTANCE);
            StreamMessageId first = new StreamMessageId(1, 1);
            s.add(first, StreamAddArgs.entries(Map.of("a", "1")));
            seen.add(first.toString());
            s.add(new StreamMessageId(2, 0), StreamAddArgs.entry("b", "2"));
            s.add(new StreamMessageId(3, 0), StreamAddArgs.entry("c", "3"));
            seen.add(s.size());
            seen.add(outcome(() -> {
                s.add(new StreamMessageId(1, 0), StreamAddArgs.entry("old", "x"));
                return "added";
            }));
            s.createGroup(StreamCreateGroupArgs.name("g").id(StreamMessageId.ALL));
            var read = s.readGroup("g", "alice", StreamReadGroupArgs.neverDelivered().count(2));
            seen.add(read.toString());
            var summary = s.getPendingInfo("g");
            seen.add(summary.getTotal() + " " + summary.getLowestId() + " " + summary.getHighestId()
                    + " " + summary.getConsumerNames());
            seen.add(s.ack("g", first));
            seen.add(s.ack("g", first));
            seen.add(s.listPending(org.redisson.api.stream.StreamPendingRangeArgs.groupName("g")
                    .startId(StreamMessageId.MIN).endId(StreamMessageId.MAX).count(10)).size());
            seen.add(s.range(StreamMessageId.MIN, StreamMessageId.MAX).keySet().toString());
            seen.add(s.trim(org.redisson.api.stream.StreamTrimArgs.maxLen(2).noLimit()));
            seen.add(s.listGroups().stream().map(g -> g.getName() + " " + g.getConsumers() + " " + g.getPending())
                    .toList());
            seen.add(s.listConsumers("g").stream().map(x -> x.getName() + " " + x.getPending()).toList());
            var claimed = s.fastClaim("g", "bob", 0, TimeUnit.MILLISECONDS, new StreamMessageId(2, 0));
            seen.add(claimed.toString());
            var reader = CompletableFuture.supplyAsync(() -> s.readGroup("g", "carol",
                    StreamReadGroupArgs.neverDelivered().count(1).timeout(Duration.ofSeconds(8))).toString());
            Thread.sleep(200);
            s.add(new StreamMessageId(4, 0), StreamAddArgs.entry("d", "4"));
            seen.add(reader.get(10, TimeUnit.SECONDS));
            seen.add(s.removeConsumer("g", "carol"));
            seen.add(s.remove(new StreamMessageId(3, 0), new StreamMessageId(9, 0)));
        });
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void rateLimitersFiltersAndSketches(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            RRateLimiter limiter = c.getRateLimiter(p + "rl");
            seen.add(limiter.trySetRate(RateType.OVERALL, 3, Duration.ofSeconds(10)));
            List<Boolean> tries = new ArrayList<>();
            for (int i = 0; i < 4; i++) tries.add(limiter.tryAcquire());
            seen.add(tries);
            seen.add(limiter.availablePermits());
            seen.add(limiter.getConfig().getRate());
            seen.add(outcome(() -> limiter.tryAcquire(5)));

            var bloom = c.<String>getBloomFilter(p + "bloom", StringCodec.INSTANCE);
            seen.add(bloom.tryInit(1000, 0.01));
            seen.add(bloom.add("a"));
            seen.add(bloom.add("a"));
            seen.add(bloom.contains("a"));
            seen.add(bloom.contains("never-added"));
            seen.add(bloom.getSize() + " " + bloom.getHashIterations());
            seen.add(bloom.count());

            var hll = c.<String>getHyperLogLog(p + "hll", StringCodec.INSTANCE);
            seen.add(hll.addAll(List.of("a", "b", "c", "a")));
            seen.add(hll.count());
            c.<String>getHyperLogLog(p + "hll2", StringCodec.INSTANCE).add("z");
            seen.add(hll.countWith(p + "hll2"));

            var bits = c.getBitSet(p + "bits");
            seen.add(bits.set(7, true));
            seen.add(bits.get(7));
            bits.set(20, 25);
            seen.add(bits.cardinality());
            seen.add(bits.length());
            seen.add(bits.toByteArray().length);
            seen.add(bits.incrementAndGetInteger(64, 3));
            seen.add(bits.getSigned(8, 64));

            var geo = c.<String>getGeo(p + "geo", StringCodec.INSTANCE);
            seen.add(geo.add(new GeoEntry(13.361389, 38.115556, "Palermo"),
                    new GeoEntry(15.087269, 37.502669, "Catania")));
            seen.add(geo.dist("Palermo", "Catania", GeoUnit.KILOMETERS));
            seen.add(geo.hash("Palermo"));
            seen.add(geo.search(GeoSearchArgs.from(15, 37).radius(200, GeoUnit.KILOMETERS)
                    .order(org.redisson.api.GeoOrder.ASC)));
            seen.add(geo.searchWithDistance(GeoSearchArgs.from("Palermo").radius(300, GeoUnit.KILOMETERS)
                    .order(org.redisson.api.GeoOrder.ASC)).toString());
        });
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void keysScriptsFunctionsBatchesAndTransactions(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            for (int i = 0; i < 5; i++) c.getBucket(p + "k" + i, StringCodec.INSTANCE).set("v" + i);
            c.getMap(p + "hash").put("f", "v");
            var keys = c.getKeys();
            seen.add(new TreeSet<>((java.util.Collection<String>) toList(keys.getKeysByPattern(p + "k*"))));
            seen.add(keys.countExists(p + "k0", p + "k1", p + "none"));
            seen.add(keys.getType(p + "hash"));
            seen.add(keys.getType(p + "k0"));
            seen.add(keys.getType(p + "none"));
            seen.add(keys.expire(p + "k0", 100, TimeUnit.SECONDS));
            seen.add(ttl(keys.remainTimeToLive(p + "k0"), 100_000));
            seen.add(keys.remainTimeToLive(p + "k1"));
            seen.add(keys.remainTimeToLive(p + "none"));
            seen.add(keys.clearExpire(p + "k0"));
            seen.add(keys.delete(p + "k1", p + "k2", p + "none"));
            seen.add(keys.unlink(p + "k3"));
            seen.add(keys.deleteByPattern(p + "k*"));
            seen.add(keys.countExists(p + "k0", p + "k4"));
            keys.rename(p + "hash", p + "hash2");
            seen.add(keys.renamenx(p + "hash2", p + "hash3"));
            seen.add(outcome(() -> {
                keys.rename(p + "missing", p + "x");
                return "renamed";
            }));

            RScript script = c.getScript(StringCodec.INSTANCE);
            seen.add(script.eval(RScript.Mode.READ_WRITE,
                    "redis.call('set', KEYS[1], ARGV[1]); return redis.call('get', KEYS[1])",
                    RScript.ReturnType.VALUE, List.of(p + "sk"), "val"));
            String sha = script.scriptLoad("return {KEYS[1], ARGV[1], 3}");
            seen.add(script.scriptExists(sha));
            seen.add(script.evalSha(RScript.Mode.READ_ONLY, sha, RScript.ReturnType.MULTI, List.of(p + "a"),
                    "b"));
            seen.add(outcome(() -> script.eval(RScript.Mode.READ_WRITE, "return redis.call('incr', KEYS[1])",
                    RScript.ReturnType.INTEGER, List.of(p + "sk"))));
            seen.add(outcome(() -> script.eval(RScript.Mode.READ_ONLY, "return redis.call('del', KEYS[1])",
                    RScript.ReturnType.INTEGER, List.of(p + "sk"))));

            RFunction f = c.getFunction(StringCodec.INSTANCE);
            String lib = p.replace(":", "_") + "lib";
            f.loadAndReplace(lib, "redis.register_function('" + lib + "_echo', function(keys, args) "
                    + "return redis.call('set', keys[1], args[1]) end)");
            seen.add(f.call(FunctionMode.WRITE, lib + "_echo", FunctionResult.STRING, List.of(p + "fk"), "fv"));
            seen.add(c.getBucket(p + "fk", StringCodec.INSTANCE).get());
            seen.add(f.list(lib).stream().map(l -> l.getName() + " " + l.getEngine() + " "
                    + l.getFunctions().stream().map(x -> x.getName() + " " + x.getFlags()).toList()).toList());
            f.delete(lib);

            RBatch batch = c.createBatch();
            batch.getBucket(p + "b1", StringCodec.INSTANCE).setAsync("1");
            batch.getAtomicLong(p + "b2").incrementAndGetAsync();
            batch.getMap(p + "b3", StringCodec.INSTANCE).putAsync("f", "v");
            batch.getBucket(p + "b1", StringCodec.INSTANCE).getAsync();
            seen.add(batch.execute().getResponses());
            RBatch atomic = c.createBatch(BatchOptions.defaults()
                    .executionMode(BatchOptions.ExecutionMode.IN_MEMORY_ATOMIC));
            atomic.getBucket(p + "{t}a", StringCodec.INSTANCE).setAsync("1");
            atomic.getAtomicLong(p + "{t}b").addAndGetAsync(5);
            atomic.getBucket(p + "{t}a", StringCodec.INSTANCE).getAsync();
            seen.add(atomic.execute().getResponses());

            RTransaction tx = c.createTransaction(TransactionOptions.defaults());
            tx.getBucket(p + "tx1", StringCodec.INSTANCE).set("a");
            tx.getMap(p + "tx2", StringCodec.INSTANCE).put("f", "v");
            seen.add(tx.getBucket(p + "tx1", StringCodec.INSTANCE).get());
            tx.commit();
            seen.add(c.getBucket(p + "tx1", StringCodec.INSTANCE).get());
            seen.add(c.getMap(p + "tx2", StringCodec.INSTANCE).get("f"));
            RTransaction rolled = c.createTransaction(TransactionOptions.defaults());
            rolled.getBucket(p + "tx1", StringCodec.INSTANCE).set("b");
            rolled.rollback();
            seen.add(c.getBucket(p + "tx1", StringCodec.INSTANCE).get());

            var ts = c.<String, String>getTimeSeries(p + "ts", StringCodec.INSTANCE);
            ts.add(100, "a");
            ts.add(200, "b");
            ts.add(300, "c");
            seen.add(ts.size());
            seen.add(ts.get(200));
            seen.add(ts.range(150, 300));
            seen.add(ts.pollFirst());
            seen.add(ts.last());
        });
    }

    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void cachesNearTheClient(int shards, int protocol) throws Exception {
        same(shards, protocol, (c, p, seen) -> {
            // A local cached map: each instance keeps its own copy and hears of others' writes by pub/sub.
            RLocalCachedMap<String, String> a = c.getLocalCachedMap(LocalCachedMapOptions.<String, String>name(
                    p + "lcm").codec(StringCodec.INSTANCE));
            RLocalCachedMap<String, String> b = c.getLocalCachedMap(LocalCachedMapOptions.<String, String>name(
                    p + "lcm").codec(StringCodec.INSTANCE));
            seen.add(a.put("k", "1"));
            seen.add(b.get("k"));
            a.fastPut("k", "2");
            seen.add(eventually(() -> b.get("k"), "2"));
            a.fastRemove("k");
            seen.add(eventually(() -> b.get("k"), null));
            seen.add(a.size());
            a.destroy();
            b.destroy();
            if (protocol != 3) return;
            // Client-side caching (RESP3 only): CLIENT TRACKING tells the cache that a key changed.
            RClientSideCaching csc = c.getClientSideCaching(ClientSideCachingOptions.defaults());
            try {
                RBucket<String> cached = csc.getBucket(p + "csc", StringCodec.INSTANCE);
                RBucket<String> plain = c.getBucket(p + "csc", StringCodec.INSTANCE);
                plain.set("1");
                seen.add(cached.get());
                plain.set("2");
                seen.add(eventually(cached::get, "2"));
                RMap<String, String> cachedMap = csc.getMap(p + "cscm", StringCodec.INSTANCE);
                c.<String, String>getMap(p + "cscm", StringCodec.INSTANCE).put("f", "1");
                seen.add(cachedMap.get("f"));
                c.<String, String>getMap(p + "cscm", StringCodec.INSTANCE).put("f", "2");
                seen.add(eventually(() -> cachedMap.get("f"), "2"));
            } finally {
                csc.destroy();
            }
        });
    }

    /** The value {@code read} gives once it gives {@code expected} (within 5 s), or the last one it gave. */
    private static Object eventually(Call read, Object expected) throws Exception {
        Object v = read.call();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                !java.util.Objects.equals(v, expected) && System.nanoTime() < end; ) {
            Thread.sleep(20);
            v = read.call();
        }
        return v;
    }

    /**
     * Redisson's map cache on hash field TTLs (HSETEX-era commands: HEXPIRE, HPEXPIRE, HPTTL, HPERSIST), which
     * redis-server 7.0 does not have, so this checks Tide's answers against what Redisson documents.
     */
    @ParameterizedTest(name = "{0} shards, RESP{1}")
    @MethodSource("cases")
    void mapCacheOnHashFieldTtls(int shards, int protocol) throws Exception {
        RedissonClient c = client((shards == 1 ? tide1 : tide2).port(), protocol);
        String p = "rs" + (round++) + ":";
        RMapCacheNative<String, String> m = c.getMapCacheNative(p + "native", StringCodec.INSTANCE);
        assertThat(m.put("a", "1", Duration.ofSeconds(100))).isNull();
        assertThat(m.put("a", "2", Duration.ofSeconds(100))).isEqualTo("1");
        assertThat(m.fastPut("b", "3", Duration.ofMillis(200))).isTrue();
        assertThat(m.putIfAbsent("a", "4", Duration.ofSeconds(10))).isEqualTo("2");
        assertThat(m.fastPutIfAbsent("c", "5", Duration.ofSeconds(10))).isTrue();
        m.put("plain", "6");
        assertThat(m.remainTimeToLive("a")).isBetween(1L, 100_000L);
        assertThat(m.remainTimeToLive("plain")).isEqualTo(-1);
        assertThat(m.remainTimeToLive("missing")).isEqualTo(-2);
        assertThat(m.expireEntry("plain", Duration.ofSeconds(50))).isTrue();
        assertThat(m.remainTimeToLive("plain")).isBetween(1L, 50_000L);
        assertThat(m.expireEntryIfNotSet("plain", Duration.ofSeconds(500))).isFalse();
        assertThat(m.expireEntryIfGreater("plain", Duration.ofSeconds(500))).isTrue();
        assertThat(m.remainTimeToLive("plain")).isBetween(50_001L, 500_000L);
        assertThat(m.expireEntryIfLess("plain", Duration.ofSeconds(5))).isTrue();
        assertThat(m.clearExpire("plain")).isTrue();
        assertThat(m.remainTimeToLive("plain")).isEqualTo(-1);
        assertThat(m.expireEntries(Set.of("a", "c", "missing"), Duration.ofSeconds(30))).isEqualTo(2);
        Thread.sleep(300);
        assertThat(m.get("b")).isNull();
        assertThat(m.containsKey("b")).isFalse();
        assertThat(new TreeMap<>(m.readAllMap())).isEqualTo(Map.of("a", "2", "c", "5", "plain", "6"));
        assertThat(m.size()).isEqualTo(3);
    }

    private static List<String> toList(Iterable<String> it) {
        List<String> all = new ArrayList<>();
        it.forEach(all::add);
        return all;
    }
}
