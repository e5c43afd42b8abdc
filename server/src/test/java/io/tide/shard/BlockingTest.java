package io.tide.shard;

import static io.tide.testing.TestServers.awaitBlocked;
import static io.tide.testing.TestServers.keysOnDifferentShards;
import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * The dispatcher's blocked clients, through list commands: wake-ups across shards, first blocked first
 * served, timeouts, disconnects, held-back pipelines and cross-shard BLMOVE, on one, two and four shards.
 */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2, 4})
class BlockingTest extends ServerPerShardCount {

    private static Jedis jedis() {
        return TestServers.jedis(server.port(), 2);
    }

    @Test
    void blpop_isServedByAPushFromAnotherClient_onAnotherShard() throws Exception {
        String[] k = keysOnDifferentShards(server, "wake");
        try (Jedis admin = jedis(); Jedis pusher = jedis()) {
            Future<List<String>> popped = pool.submit(() -> {
                try (Jedis j = jedis()) {
                    return j.blpop(0, k[1]);
                }
            });
            awaitBlocked(admin, 1);
            assertThat(pusher.rpush(k[1], "v1")).isEqualTo(1);
            assertThat(popped.get(10, TimeUnit.SECONDS)).containsExactly(k[1], "v1");
            assertThat(pusher.exists(k[1])).isFalse();
            awaitBlocked(admin, 0);
        }
    }

    @Test
    void blpop_onSeveralKeysAcrossShards_isServedByAnyOfThem() throws Exception {
        String[] k = keysOnDifferentShards(server, "multi");
        try (Jedis admin = jedis(); Jedis pusher = jedis()) {
            Future<List<String>> popped = pool.submit(() -> {
                try (Jedis j = jedis()) {
                    return j.blpop(0, k[0], k[1]);
                }
            });
            awaitBlocked(admin, 1);
            pusher.rpush(k[1], "x");
            assertThat(popped.get(10, TimeUnit.SECONDS)).containsExactly(k[1], "x");
        }
    }

    @Test
    void waiters_areServedFirstBlockedFirstServed() throws Exception {
        String key = "fifo";
        try (Jedis admin = jedis(); Jedis pusher = jedis()) {
            List<Future<List<String>>> waiters = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                waiters.add(pool.submit(() -> {
                    try (Jedis j = jedis()) {
                        return j.blpop(0, key);
                    }
                }));
                awaitBlocked(admin, i + 1);
            }
            pusher.rpush(key, "first", "second", "third");
            assertThat(waiters.get(0).get(10, TimeUnit.SECONDS)).containsExactly(key, "first");
            assertThat(waiters.get(1).get(10, TimeUnit.SECONDS)).containsExactly(key, "second");
            assertThat(waiters.get(2).get(10, TimeUnit.SECONDS)).containsExactly(key, "third");
        }
    }

    @Test
    void timeout_isFractionalSeconds_andRepliesNull() {
        try (Jedis j = jedis()) {
            long t0 = System.nanoTime();
            assertThat((Object) j.blpop(0.25, "never")).isNull();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(ms).isBetween(240L, 5000L);
        }
    }

    @Test
    void disconnectingABlockedClient_freesIt_andItTakesNothing() throws Exception {
        String key = "gone";
        try (Jedis admin = jedis()) {
            RawClient raw = new RawClient(server.port());
            raw.sendCommand("BLPOP", key, "0");
            awaitBlocked(admin, 1);
            raw.close();
            awaitBlocked(admin, 0);
            admin.rpush(key, "kept");
            assertThat(admin.lrange(key, 0, -1)).containsExactly("kept");
            admin.del(key);
        }
    }

    @Test
    void requestsPipelinedBehindABlockingCommand_waitForItsReply() throws Exception {
        try (Jedis admin = jedis(); RawClient raw = new RawClient(server.port())) {
            admin.del("behind");
            raw.sendCommand("BLPOP", "pipe:empty", "0.3");
            raw.sendCommand("SET", "behind", "1");
            awaitBlocked(admin, 1);
            assertThat(admin.get("behind")).isNull(); // the SET has not run: the client is blocked
            assertThat(raw.readReply()).isEqualTo("*-1\r\n");
            assertThat(raw.readReply()).isEqualTo("+OK\r\n");
            assertThat(admin.get("behind")).isEqualTo("1");
        }
    }

    @Test
    void blmove_acrossShards_movesAtomicallyWhenServed() throws Exception {
        String[] k = keysOnDifferentShards(server, "move");
        try (Jedis admin = jedis(); Jedis pusher = jedis()) {
            Future<String> moved = pool.submit(() -> {
                try (Jedis j = jedis()) {
                    return j.blmove(k[0], k[1], redis.clients.jedis.args.ListDirection.LEFT,
                            redis.clients.jedis.args.ListDirection.RIGHT, 0);
                }
            });
            awaitBlocked(admin, 1);
            pusher.rpush(k[0], "item");
            assertThat(moved.get(10, TimeUnit.SECONDS)).isEqualTo("item");
            assertThat(admin.exists(k[0])).isFalse();
            assertThat(admin.lrange(k[1], 0, -1)).containsExactly("item");
            admin.del(k[1]);
        }
    }

    @Test
    void blmove_chain_wakesTheWaiterOnTheDestination() throws Exception {
        String[] k = keysOnDifferentShards(server, "chain");
        try (Jedis admin = jedis(); Jedis pusher = jedis()) {
            Future<List<String>> last = pool.submit(() -> {
                try (Jedis j = jedis()) {
                    return j.blpop(0, k[1]);
                }
            });
            awaitBlocked(admin, 1);
            Future<String> mover = pool.submit(() -> {
                try (Jedis j = jedis()) {
                    return j.blmove(k[0], k[1], redis.clients.jedis.args.ListDirection.LEFT,
                            redis.clients.jedis.args.ListDirection.RIGHT, 0);
                }
            });
            awaitBlocked(admin, 2);
            pusher.rpush(k[0], "relay");
            assertThat(mover.get(10, TimeUnit.SECONDS)).isEqualTo("relay");
            assertThat(last.get(10, TimeUnit.SECONDS)).containsExactly(k[1], "relay");
            assertThat(admin.exists(k[0], k[1])).isZero();
        }
    }

    @Test
    void manyWaitersAndPushers_everyElementIsDeliveredExactlyOnce() throws Exception {
        int consumers = 8;
        int perProducer = 100;
        int producers = 4;
        String[] keys = {"q:0", "q:1", "q:2", "q:3"};
        Set<String> received = ConcurrentHashMap.newKeySet();
        List<Future<Integer>> cs = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            cs.add(pool.submit(() -> {
                int got = 0;
                try (Jedis j = jedis()) {
                    while (true) {
                        redis.clients.jedis.util.KeyValue<String, String> r = j.blpop(0.5, keys);
                        if (r == null) return got;
                        assertThat(received.add(r.getValue())).as("delivered twice: " + r.getValue()).isTrue();
                        got++;
                    }
                }
            }));
        }
        List<Future<?>> ps = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int id = p;
            ps.add(pool.submit(() -> {
                try (Jedis j = jedis()) {
                    for (int i = 0; i < perProducer; i++) j.rpush(keys[(id + i) % keys.length], id + ":" + i);
                }
            }));
        }
        for (Future<?> f : ps) f.get(30, TimeUnit.SECONDS);
        int total = 0;
        for (Future<Integer> f : cs) total += f.get(30, TimeUnit.SECONDS);
        try (Jedis j = jedis()) {
            long left = 0;
            for (String k : keys) left += j.llen(k);
            assertThat(total + left).isEqualTo(producers * perProducer);
            assertThat(received).hasSize(total);
            j.del(keys);
        }
    }

    @Test
    void blockedClient_showsFlagB_inClientList() throws Exception {
        try (Jedis admin = jedis()) {
            Future<List<String>> f = pool.submit(() -> {
                try (Jedis j = jedis()) {
                    j.clientSetname("waiter");
                    return j.blpop(1, "flag:key");
                }
            });
            awaitBlocked(admin, 1);
            String line = admin.clientList().lines().filter(l -> l.contains("name=waiter")).findFirst().orElseThrow();
            assertThat(line).contains("flags=b");
            assertThat(f.get(10, TimeUnit.SECONDS)).isNull();
        }
    }

    @Test
    void swapdb_wakesClientsBlockedOnKeysThatNowHoldData() throws Exception {
        try (Jedis admin = jedis()) {
            admin.select(1);
            admin.rpush("swapped", "from-db1");
            admin.select(0);
            admin.del("swapped");
            Future<List<String>> popped = pool.submit(() -> {
                try (Jedis j = jedis()) {
                    return j.blpop(0, "swapped");
                }
            });
            awaitBlocked(admin, 1);
            admin.swapDB(0, 1);
            assertThat(popped.get(10, TimeUnit.SECONDS)).containsExactly("swapped", "from-db1");
            admin.swapDB(0, 1);
        }
    }
}
