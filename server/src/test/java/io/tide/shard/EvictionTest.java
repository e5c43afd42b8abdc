package io.tide.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisDataException;

/** Each maxmemory policy evicts only what it should, through real sockets, with one and two shards. */
class EvictionTest {

    static final String VALUE = "v".repeat(1000);

    static long info(Jedis j, String section, String field) {
        for (String line : j.info(section).split("\r\n")) {
            if (line.startsWith(field + ":")) return Long.parseLong(line.substring(field.length() + 1));
        }
        throw new AssertionError(field + " not in INFO " + section);
    }

    /**
     * Writes {@code n} keys {@code prefix + i} of 1000 bytes (with a TTL of {@code ttl} s plus i ms when > 0), pipelined
     * 100 at a time (so the pipeline's own buffers stay small next to the limits used here); throws the first error.
     */
    static void fill(Jedis j, String prefix, int from, int n, int ttlSeconds) {
        for (int at = from; at < from + n; at += 100) {
            Pipeline p = j.pipelined();
            for (int i = at; i < Math.min(from + n, at + 100); i++) {
                if (ttlSeconds > 0) p.psetex(prefix + i, ttlSeconds * 1000L + i, VALUE);
                else p.set(prefix + i, VALUE);
            }
            for (Object o : p.syncAndReturnAll()) {
                if (o instanceof JedisDataException e) throw e;
            }
        }
    }

    static void limit(Jedis j, String policy, String maxmemory) {
        j.configSet("maxmemory-policy", policy);
        j.configSet("maxmemory", maxmemory);
    }

    @ParameterizedTest(name = "shards={0}")
    @ValueSource(ints = {1, 2})
    void allkeysLru_keepsTheHotSetWhileColdKeysGo(int shards) throws Exception {
        try (Server s = TestServers.start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            long base = info(j, "memory", "used_memory");
            fill(j, "cold:", 0, 2000, 0);
            fill(j, "hot:", 0, 500, 0);
            long full = info(j, "memory", "used_memory");
            Thread.sleep(1200); // the access clock counts seconds, as Redis's LRU clock does
            Pipeline p = j.pipelined();
            for (int i = 0; i < 500; i++) p.get("hot:" + i);
            p.sync();
            // Room for what is there (and the pipeline's buffers); then 1500 new keys must push out as many old ones.
            limit(j, "allkeys-lru", Long.toString(full + 200_000));
            fill(j, "new:", 0, 1500, 0);
            long hotLeft = 0;
            for (int i = 0; i < 500; i++) if (j.exists("hot:" + i)) hotLeft++;
            assertThat(info(j, "stats", "evicted_keys")).isGreaterThan(1200);
            assertThat(hotLeft).as("hot keys resident (random eviction would keep about 310)").isGreaterThanOrEqualTo(450);
            assertThat(info(j, "memory", "used_memory")).isLessThanOrEqualTo(full + 400_000).isGreaterThan(base);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"})
    void volatilePolicies_neverTouchKeysWithoutTtl(String policy) {
        try (Server s = TestServers.start(2); Jedis j = TestServers.jedis(s.port(), 2)) {
            fill(j, "keep:", 0, 300, 0);
            long base = info(j, "memory", "used_memory");
            limit(j, policy, Long.toString(base + 1_000_000));
            fill(j, "ttl:", 0, 2000, 3600);
            for (int i = 0; i < 300; i++) assertThat(j.exists("keep:" + i)).as("keep:%d", i).isTrue();
            assertThat(info(j, "stats", "evicted_keys")).isGreaterThan(1000);
            // Only keys without a TTL are left to evict: writes are refused once the TTL keys are gone.
            assertThatThrownBy(() -> fill(j, "more:", 0, 2000, 0)).isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("OOM command not allowed when used memory > 'maxmemory'.");
            for (int i = 0; i < 300; i++) assertThat(j.exists("keep:" + i)).isTrue();
            assertThat(j.get("keep:7")).isEqualTo(VALUE);
            assertThat(j.del("keep:7")).isEqualTo(1);
        }
    }

    /**
     * Several clients writing keys with a TTL on two shards that evict concurrently: used memory moves under each
     * shard's check, and no write may get -OOM while keys with a TTL remain to evict (a check that read it again after
     * another shard's eviction had brought it under once answered -OOM).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"volatile-lru", "volatile-random"})
    void volatilePolicy_concurrentWritersOnTwoShards_neverGetOom(String policy) throws Exception {
        try (Server s = TestServers.start(2); Jedis j = TestServers.jedis(s.port(), 2)) {
            fill(j, "keep:", 0, 200, 0);
            limit(j, policy, Long.toString(info(j, "memory", "used_memory") + 400_000));
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                String prefix = "w" + w + ":";
                writers.add(Thread.ofPlatform().start(() -> {
                    try (Jedis c = TestServers.jedis(s.port(), 2)) {
                        for (int round = 0; round < 3; round++) fill(c, prefix, 0, 1500, 3600);
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }));
            }
            for (Thread t : writers) t.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(errors).isEmpty();
            assertThat(info(j, "stats", "evicted_keys")).isGreaterThan(1000);
            for (int i = 0; i < 200; i++) assertThat(j.exists("keep:" + i)).as("keep:%d", i).isTrue();
        }
    }

    /**
     * A volatile policy with few keys that have a TTL among many that have none: each write over the limit finds a TTL
     * key to evict while one is left (a sample that met only keys without TTL once answered -OOM), and -OOM only then.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"volatile-lru", "volatile-random"})
    void volatilePolicy_findsTheFewKeysWithATtl(String policy) {
        try (Server s = TestServers.start(1); Jedis j = TestServers.jedis(s.port(), 2)) {
            fill(j, "plain:", 0, 20_000, 0);
            fill(j, "ttl:", 0, 20, 3600);
            limit(j, policy, Long.toString(info(j, "memory", "used_memory") - 10_000));
            int written = 0;
            try {
                for (; written < 100; written++) j.set("more:" + written, VALUE);
            } catch (JedisDataException e) {
                assertThat(e.getMessage()).startsWith("OOM command not allowed");
            }
            assertThat(j.info("keyspace")).as("after %d writes", written).contains("db0:keys=", ",expires=0,");
            assertThat(info(j, "stats", "evicted_keys")).isEqualTo(20);
            assertThat(written).isGreaterThan(5);
        }
    }

    @Test
    void volatileTtl_evictsTheNearestExpiryFirst() {
        try (Server s = TestServers.start(1); Jedis j = TestServers.jedis(s.port(), 2)) {
            long base = info(j, "memory", "used_memory");
            limit(j, "volatile-ttl", Long.toString(base + 1_000_000));
            // TTLs grow with i: 1000 s + i ms.
            fill(j, "t:", 0, 2000, 1000);
            List<Integer> gone = new ArrayList<>();
            for (int i = 0; i < 2000; i++) if (!j.exists("t:" + i)) gone.add(i);
            assertThat(gone.size()).isGreaterThan(500);
            // Sampled, so not exact (as Redis's tests allow): most evicted keys had the nearer expiries.
            long early = gone.stream().filter(i -> i < 1200).count();
            assertThat(early).isGreaterThanOrEqualTo((long) (gone.size() * 0.75)); // random: 0.6
        }
    }

    @Test
    void allkeysLfu_keepsFrequentlyReadKeys() {
        try (Server s = TestServers.start(1); Jedis j = TestServers.jedis(s.port(), 2)) {
            limit(j, "allkeys-lfu", "0");
            fill(j, "freq:", 0, 200, 0);
            Pipeline p = j.pipelined();
            for (int round = 0; round < 50; round++) for (int i = 0; i < 200; i++) p.get("freq:" + i);
            p.sync();
            assertThat(j.objectFreq("freq:1")).isGreaterThan(5);
            long base = info(j, "memory", "used_memory");
            limit(j, "allkeys-lfu", Long.toString(base + 300_000));
            fill(j, "once:", 0, 3000, 0);
            long left = 0;
            for (int i = 0; i < 200; i++) if (j.exists("freq:" + i)) left++;
            assertThat(left).isGreaterThanOrEqualTo(180);
            assertThat(info(j, "stats", "evicted_keys")).isGreaterThan(2000);
        }
    }

    /**
     * A policy switch holds for the very next command, even one read from the same socket in the same batch and run
     * on another shard: keys a pipelined SET creates right after CONFIG SET allkeys-lfu start at LFU_INIT_VAL (5);
     * keyed by the old LRU policy their field reads as a counter of 0.
     */
    @ParameterizedTest(name = "{0} shards")
    @ValueSource(ints = {1, 2})
    void aPolicySwitchHoldsForTheNextPipelinedCommand(int shards) throws Exception {
        try (Server s = TestServers.start(shards); io.tide.testing.RawClient c = new io.tide.testing.RawClient(s.port())) {
            for (int i = 0; i < 200; i++) {
                java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream();
                batch.writeBytes(io.tide.testing.RawClient.encode("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"));
                batch.writeBytes(io.tide.testing.RawClient.encode("SET", "k" + i, "v"));
                batch.writeBytes(io.tide.testing.RawClient.encode("OBJECT", "FREQ", "k" + i));
                c.send(batch.toByteArray());
                List<String> replies = List.of(c.readReply(), c.readReply(), c.readReply());
                assertThat(replies).as("round " + i).containsExactly("+OK\r\n", "+OK\r\n", ":5\r\n");
                // Not in the batch: a keyless command may run before an earlier one that hopped to another shard.
                assertThat(c.call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")).isEqualTo("+OK\r\n");
            }
        }
    }

    @Test
    void protectedPrefixesAreNeverEvicted() {
        try (Server s = TestServers.start(2); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.configSet("maxmemory-protect-prefix", "lock: session:");
            fill(j, "lock:", 0, 200, 0);
            fill(j, "session:", 0, 200, 0);
            long base = info(j, "memory", "used_memory");
            limit(j, "allkeys-random", Long.toString(base + 1_000_000));
            fill(j, "cache:", 0, 3000, 0);
            for (int i = 0; i < 200; i++) {
                assertThat(j.exists("lock:" + i)).isTrue();
                assertThat(j.exists("session:" + i)).isTrue();
            }
            assertThat(info(j, "stats", "evicted_keys")).isGreaterThan(1800);
            // Only protected keys left over the limit: noeviction's behaviour.
            j.configSet("maxmemory", Long.toString(base - 100_000));
            // With two shards, a shard learns the other has nothing left once the other's pass ran: a few writes
            // may pass meanwhile (each asks the other shard again), then writes are refused.
            assertThatThrownBy(() -> {
                for (int i = 0; i < 50; i++) {
                    j.set("lock:new" + i, "x");
                    Thread.sleep(10);
                }
            }).isInstanceOf(JedisDataException.class).hasMessageStartingWith("OOM ");
            assertThat(j.get("lock:3")).isEqualTo(VALUE);
        }
    }

    @Test
    void evictionsAreNotifiedAndCounted() throws Exception {
        try (Server s = TestServers.start(1); Jedis j = TestServers.jedis(s.port(), 2);
             Jedis sub = TestServers.jedis(s.port(), 2)) {
            j.configSet("notify-keyspace-events", "Ee");
            List<String> evicted = new CopyOnWriteArrayList<>();
            JedisPubSub listener = new JedisPubSub() {
                @Override
                public void onMessage(String channel, String message) {
                    evicted.add(message);
                }
            };
            Thread t = new Thread(() -> sub.subscribe(listener, "__keyevent@0__:evicted"));
            t.start();
            while (listener.getSubscribedChannels() == 0) Thread.sleep(10);
            long base = info(j, "memory", "used_memory");
            limit(j, "allkeys-lru", Long.toString(base + 500_000));
            fill(j, "e:", 0, 1000, 0);
            settle(j);
            long count = info(j, "stats", "evicted_keys");
            assertThat(count).isGreaterThan(400);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (evicted.size() < count && System.nanoTime() < deadline) Thread.sleep(10);
            assertThat(evicted).hasSize((int) count);
            for (String k : evicted) assertThat(j.exists(k)).as(k).isFalse();
            j.configResetStat();
            assertThat(info(j, "stats", "evicted_keys")).isZero();
            listener.unsubscribe();
            t.join(5000);
        }
    }

    /** Evictions reach the AOF as DELs: a restart from it has exactly the keys that were left. */
    @Test
    void evictionsAreJournalled() throws Exception {
        Path dir = Files.createTempDirectory("tide-evict");
        Set<String> before;
        try (Server s = TestServers.start(2, "--dir", dir.toString(), "--appendonly", "yes");
             Jedis j = TestServers.jedis(s.port(), 2)) {
            long base = info(j, "memory", "used_memory");
            limit(j, "allkeys-lru", Long.toString(base + 1_000_000));
            fill(j, "j:", 0, 2000, 0);
            assertThat(info(j, "stats", "evicted_keys")).isGreaterThan(900);
            settle(j);
            before = new HashSet<>(j.keys("*"));
        }
        try (Server s = TestServers.start(2, "--dir", dir.toString(), "--appendonly", "yes");
             Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(new HashSet<>(j.keys("*"))).isEqualTo(before);
        }
    }

    @Test
    void noeviction_refusesWritesButServesReadsAndDeletes() {
        try (Server s = TestServers.start(2); Jedis j = TestServers.jedis(s.port(), 2)) {
            fill(j, "n:", 0, 100, 0);
            long base = info(j, "memory", "used_memory");
            limit(j, "noeviction", Long.toString(base + 500_000));
            assertThatThrownBy(() -> fill(j, "m:", 0, 1000, 0)).isInstanceOf(JedisDataException.class)
                    .hasMessage("OOM command not allowed when used memory > 'maxmemory'.");
            assertThat(info(j, "stats", "evicted_keys")).isZero();
            assertThat(j.get("n:1")).isEqualTo(VALUE);
            // The dataset goes over by at most one command's worth (client buffers come and go besides).
            assertThat(info(j, "memory", "used_memory_dataset")).isLessThan(info(j, "memory", "maxmemory") + 5_000);
            for (int i = 0; i < 100; i++) j.del("n:" + i);
            assertThat(j.set("m:0", VALUE)).isEqualTo("OK");
        }
    }

    /** Waits until eviction has stopped (other shards finish their shares on their own threads). */
    static void settle(Jedis j) throws InterruptedException {
        long last = -1;
        for (int i = 0; i < 100; i++) {
            long now = info(j, "stats", "evicted_keys");
            if (now == last) return;
            last = now;
            Thread.sleep(100);
        }
    }
}
