package io.tide.command.family;

import static io.tide.testing.TestServers.awaitBlocked;
import static io.tide.testing.TestServers.keysOnDifferentShards;
import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ZPopArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.tide.testing.RawClient;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.SortedSetOption;
import redis.clients.jedis.resps.Tuple;

/**
 * BZPOPMIN, BZPOPMAX and BZMPOP blocking: woken by ZADD from another client (also on another shard), first
 * blocked first served, fractional timeouts, disconnects, and the reply shapes in RESP2 and RESP3.
 */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class ZSetBlockingTest extends ServerPerShardCount {

    private static Jedis jedis() {
        return TestServers.jedis(server.port(), 2);
    }

    @Test
    void bzpopmin_isServedByZaddFromAnotherClient_onAnotherShard() throws Exception {
        String[] k = keysOnDifferentShards(server, "bz-wake");
        try (Jedis admin = jedis(); Jedis writer = jedis()) {
            Future<redis.clients.jedis.util.KeyValue<String, Tuple>> popped = pool.submit(() -> {
                try (Jedis j = jedis()) {
                    return j.bzpopmin(0, k[0], k[1]);
                }
            });
            awaitBlocked(admin, 1);
            writer.zadd(k[1], 2.5, "late");
            writer.zadd(k[1], 1.5, "early");
            var kv = popped.get(10, TimeUnit.SECONDS);
            assertThat(kv.getKey()).isEqualTo(k[1]);
            assertThat(kv.getValue().getElement()).isIn("late", "early");
            assertThat(writer.zcard(k[1])).isEqualTo(1);
            awaitBlocked(admin, 0);
        }
    }

    @Test
    void bzpopmax_popsTheHighestOfWhatArrives() throws Exception {
        try (Jedis admin = jedis(); Jedis writer = jedis()) {
            Future<redis.clients.jedis.util.KeyValue<String, Tuple>> popped = pool.submit(() -> {
                try (Jedis j = jedis()) {
                    return j.bzpopmax(0, "bz-max");
                }
            });
            awaitBlocked(admin, 1);
            java.util.Map<String, Double> m = new java.util.LinkedHashMap<>();
            m.put("a", 1.0);
            m.put("z", 26.0);
            m.put("m", 13.0);
            writer.zadd("bz-max", m);
            var kv = popped.get(10, TimeUnit.SECONDS);
            assertThat(kv.getValue().getElement()).isEqualTo("z");
            assertThat(kv.getValue().getScore()).isEqualTo(26.0);
            assertThat(writer.zrange("bz-max", 0, -1)).containsExactly("a", "m");
        }
    }

    @Test
    void waiters_areServedFirstBlockedFirstServed() throws Exception {
        try (Jedis admin = jedis(); Jedis writer = jedis()) {
            List<Future<redis.clients.jedis.util.KeyValue<String, Tuple>>> waiters = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                waiters.add(pool.submit(() -> {
                    try (Jedis j = jedis()) {
                        return j.bzpopmin(0, "bz-fifo");
                    }
                }));
                awaitBlocked(admin, i + 1);
            }
            java.util.Map<String, Double> m = new java.util.LinkedHashMap<>();
            m.put("first", 1.0);
            m.put("second", 2.0);
            m.put("third", 3.0);
            writer.zadd("bz-fifo", m);
            assertThat(waiters.get(0).get(10, TimeUnit.SECONDS).getValue().getElement()).isEqualTo("first");
            assertThat(waiters.get(1).get(10, TimeUnit.SECONDS).getValue().getElement()).isEqualTo("second");
            assertThat(waiters.get(2).get(10, TimeUnit.SECONDS).getValue().getElement()).isEqualTo("third");
            assertThat(writer.exists("bz-fifo")).isFalse();
        }
    }

    @Test
    void bzmpop_servesCountFromTheKeyThatFills() throws Exception {
        String[] k = keysOnDifferentShards(server, "bzm");
        try (Jedis admin = jedis(); Jedis writer = jedis()) {
            Future<redis.clients.jedis.util.KeyValue<String, List<Tuple>>> popped = pool.submit(() -> {
                try (Jedis j = jedis()) {
                    return j.bzmpop(0, SortedSetOption.MAX, 2, k[0], k[1]);
                }
            });
            awaitBlocked(admin, 1);
            java.util.Map<String, Double> m = new java.util.LinkedHashMap<>();
            m.put("x", 1.0);
            m.put("y", 2.0);
            m.put("z", 3.0);
            writer.zadd(k[0], m);
            var kv = popped.get(10, TimeUnit.SECONDS);
            assertThat(kv.getKey()).isEqualTo(k[0]);
            assertThat(kv.getValue()).extracting(Tuple::getElement).containsExactly("z", "y");
            assertThat(writer.zrange(k[0], 0, -1)).containsExactly("x");
        }
    }

    @Test
    void timeout_isFractionalSeconds_andRepliesNullArray() throws Exception {
        try (Jedis j = jedis()) {
            long t0 = System.nanoTime();
            assertThat(j.bzpopmin(0.25, "bz-never")).isNull();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(ms).isBetween(240L, 5000L);
            assertThat(j.bzmpop(0.1, SortedSetOption.MIN, "bz-never")).isNull();
        }
        try (RawClient raw = new RawClient(server.port())) {
            assertThat(raw.call("BZPOPMAX", "bz-never", "0.05")).isEqualTo("*-1\r\n");
            assertThat(raw.call("HELLO", "3")).startsWith("%");
            assertThat(raw.call("BZMPOP", "0.05", "1", "bz-never", "MIN")).isEqualTo("_\r\n");
        }
    }

    @Test
    void resp3Reply_hasDoubleScore_andRespTwoBulk() throws Exception {
        try (Jedis admin = jedis(); Jedis writer = jedis(); RawClient r3 = new RawClient(server.port());
             RawClient r2 = new RawClient(server.port())) {
            assertThat(r3.call("HELLO", "3")).startsWith("%");
            r3.sendCommand("BZPOPMIN", "bz-r3", "0");
            r2.sendCommand("BZPOPMAX", "bz-r2", "0");
            awaitBlocked(admin, 2);
            writer.zadd("bz-r3", 1.5, "m");
            writer.zadd("bz-r2", 2.5, "n");
            assertThat(r3.readReply()).isEqualTo("*3\r\n$5\r\nbz-r3\r\n$1\r\nm\r\n,1.5\r\n");
            assertThat(r2.readReply()).isEqualTo("*3\r\n$5\r\nbz-r2\r\n$1\r\nn\r\n$3\r\n2.5\r\n");
        }
        RedisClient client = TestServers.lettuce(server.port(), 3);
        try (StatefulRedisConnection<String, String> c = client.connect(); Jedis writer = jedis()) {
            writer.zadd("bz-lettuce", 4.0, "v");
            KeyValue<String, ScoredValue<String>> kv = c.sync().bzpopmin(1, "bz-lettuce");
            assertThat(kv.getValue().getScore()).isEqualTo(4.0);
            writer.zadd("bz-lettuce", 5.0, "w");
            var mp = c.sync().bzmpop(1, ZPopArgs.Builder.min(), "bz-lettuce");
            assertThat(mp.getValue().getValue()).isEqualTo("w");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void disconnect_freesTheWaiter() throws Exception {
        try (Jedis admin = jedis(); Jedis writer = jedis()) {
            RawClient raw = new RawClient(server.port());
            raw.sendCommand("BZPOPMIN", "bz-gone", "0");
            awaitBlocked(admin, 1);
            raw.close();
            awaitBlocked(admin, 0);
            writer.zadd("bz-gone", 1, "kept");
            assertThat(writer.zcard("bz-gone")).isEqualTo(1);
        }
    }

    @Test
    void errors_comeBeforeBlocking() {
        try (RawClient raw = new RawClient(server.port()); Jedis j = jedis()) {
            j.set("bz-str", "x");
            assertThat(raw.call("BZPOPMIN", "bz-none", "bz-str", "0"))
                    .isEqualTo("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
            assertThat(raw.call("BZPOPMIN", "bz-none", "-1")).isEqualTo("-ERR timeout is negative\r\n");
            assertThat(raw.call("BZMPOP", "x", "0", "bz-none", "MIN"))
                    .isEqualTo("-ERR numkeys should be greater than 0\r\n");
            assertThat(raw.call("BZMPOP", "x", "1", "bz-none", "MIN"))
                    .isEqualTo("-ERR timeout is not a float or out of range\r\n");
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
