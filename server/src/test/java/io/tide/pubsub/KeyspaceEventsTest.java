package io.tide.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;

/** Keyspace notifications through Lettuce (RESP2 and RESP3) and Jedis, on one and two shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class KeyspaceEventsTest extends ServerPerShardCount {

    /** Expiry tests wait on the cron: run it 50 times a second. */
    @BeforeEach
    void fastCron() {
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            j.configSet("hz", "50");
        }
    }

    private static int round;

    @AfterEach
    void off() {
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            j.configSet("notify-keyspace-events", "");
        }
    }

    /** Subscribes with Lettuce to {@code pattern} and collects "channel=message" until {@code n} arrived. */
    private static List<String> collect(int proto, String pattern, int n, Runnable action) throws Exception {
        RedisClient client = TestServers.lettuce(server.port(), proto);
        try (StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub()) {
            List<String> got = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch latch = new CountDownLatch(n);
            sub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String p, String channel, String message) {
                    got.add(channel + "=" + message);
                    latch.countDown();
                }
            });
            sub.sync().psubscribe(pattern);
            action.run();
            assertThat(latch.await(10, TimeUnit.SECONDS)).as("events " + got).isTrue();
            return got;
        } finally {
            client.shutdown();
        }
    }

    @Test
    void writes_publishKeyspaceAndKeyevent_resp2AndResp3() throws Exception {
        for (int proto : new int[] {2, 3}) {
            String k = "w" + (round++);
            try (Jedis j = TestServers.jedis(server.port(), 2)) {
                j.configSet("notify-keyspace-events", "KE$g");
                List<String> got = collect(proto, "__key*__:*", 4, () -> {
                    j.set(k, "v");
                    j.del(k);
                });
                assertThat(got).containsExactly("__keyspace@0__:" + k + "=set", "__keyevent@0__:set=" + k,
                        "__keyspace@0__:" + k + "=del", "__keyevent@0__:del=" + k);
            }
        }
    }

    @Test
    void activeExpiry_publishesExpired_withoutTheKeyBeingRead() throws Exception {
        String k = "x" + (round++);
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            j.configSet("notify-keyspace-events", "Ex");
            List<String> got = collect(3, "__keyevent@*__:expired", 1, () -> j.psetex(k, 30, "v"));
            assertThat(got).containsExactly("__keyevent@0__:expired=" + k);
        }
    }

    @Test
    void otherDatabase_publishesOnItsChannels() throws Exception {
        String k = "d" + (round++);
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            j.configSet("notify-keyspace-events", "KA");
            List<String> got = collect(2, "__keyspace@3__:*", 1, () -> {
                j.select(3);
                j.lpush(k, "a");
            });
            assertThat(got).containsExactly("__keyspace@3__:" + k + "=lpush");
        }
    }

    @Test
    void hashFieldExpiry_publishesHexpired() throws Exception {
        String k = "h" + (round++);
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            j.configSet("notify-keyspace-events", "Ehg");
            List<String> got = collect(2, "__keyevent@0__:*", 4, () -> {
                j.hset(k, "f", "v");
                j.sendCommand(() -> "HPEXPIRE".getBytes(), k, "20", "FIELDS", "1", "f");
                try {
                    Thread.sleep(60);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
                j.hget(k, "f");
            });
            assertThat(got).containsExactly("__keyevent@0__:hset=" + k, "__keyevent@0__:hexpire=" + k,
                    "__keyevent@0__:hexpired=" + k, "__keyevent@0__:del=" + k);
        }
    }

    @Test
    void hgetdelHgetexHsetex_publishRedis80Events() throws Exception {
        String k = "h" + (round++);
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            j.configSet("notify-keyspace-events", "Ehg");
            List<String> got = collect(3, "__keyevent@0__:*", 6, () -> {
                j.sendCommand(() -> "HSETEX".getBytes(), k, "EX", "100", "FIELDS", "2", "a", "1", "b", "2");
                j.sendCommand(() -> "HGETEX".getBytes(), k, "PERSIST", "FIELDS", "1", "a");
                j.sendCommand(() -> "HGETEX".getBytes(), k, "FIELDS", "1", "a");
                j.sendCommand(() -> "HGETDEL".getBytes(), k, "FIELDS", "1", "zz");
                j.sendCommand(() -> "HGETEX".getBytes(), k, "EX", "0", "FIELDS", "1", "a");
                j.sendCommand(() -> "HSETEX".getBytes(), k, "FNX", "FIELDS", "1", "b", "x");
                j.sendCommand(() -> "HGETDEL".getBytes(), k, "FIELDS", "1", "b");
            });
            assertThat(got).containsExactly("__keyevent@0__:hset=" + k, "__keyevent@0__:hexpire=" + k,
                    "__keyevent@0__:hpersist=" + k, "__keyevent@0__:hdel=" + k, "__keyevent@0__:hdel=" + k,
                    "__keyevent@0__:del=" + k);
        }
    }

    @Test
    void jedisSubscriber_receivesKeyMissEvents() throws Exception {
        String k = "m" + (round++);
        try (Jedis j = TestServers.jedis(server.port(), 2); Jedis s = TestServers.jedis(server.port(), 2)) {
            j.configSet("notify-keyspace-events", "Em");
            CountDownLatch latch = new CountDownLatch(1);
            List<String> got = Collections.synchronizedList(new ArrayList<>());
            JedisPubSub l = new JedisPubSub() {
                @Override
                public void onMessage(String channel, String message) {
                    got.add(channel + "=" + message);
                    latch.countDown();
                }

                @Override
                public void onSubscribe(String channel, int count) {
                    j.get(k);
                }
            };
            Thread t = new Thread(() -> s.subscribe(l, "__keyevent@0__:keymiss"));
            t.start();
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
            l.unsubscribe();
            t.join(5000);
            assertThat(got).containsExactly("__keyevent@0__:keymiss=" + k);
        }
    }
}
