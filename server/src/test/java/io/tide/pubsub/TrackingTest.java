package io.tide.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/** Client tracking through Lettuce (RESP3 push listener) and Jedis, on one and two shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class TrackingTest extends ServerPerShardCount {

    /** Expiry tests wait on the cron: run it 50 times a second. */
    @BeforeEach
    void fastCron() {
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            j.configSet("hz", "50");
        }
    }

    private static int round;

    /** Invalidated keys as Lettuce's push listener reports them ("*" for a flush). */
    private static final class Invalidations {
        final List<String> keys = Collections.synchronizedList(new ArrayList<>());
        volatile CountDownLatch latch = new CountDownLatch(1);

        void attach(StatefulRedisConnection<String, String> c) {
            c.addListener(m -> {
                if (!m.getType().equals("invalidate")) return;
                Object payload = m.getContent(ByteBuffer::duplicate).get(1);
                if (payload instanceof List<?> l) {
                    for (Object o : l) keys.add(StandardCharsets.UTF_8.decode((ByteBuffer) o).toString());
                } else {
                    keys.add("*");
                }
                latch.countDown();
            });
        }

        void await(int n) throws InterruptedException {
            long deadline = System.currentTimeMillis() + 10_000;
            while (keys.size() < n && System.currentTimeMillis() < deadline) Thread.sleep(5);
            assertThat(keys).hasSizeGreaterThanOrEqualTo(n);
        }
    }

    @Test
    void lettuceResp3_readKeyChangedElsewhere_getsInvalidatePush() throws Exception {
        String k = "t" + (round++);
        RedisClient client = TestServers.lettuce(server.port(), 3);
        try (StatefulRedisConnection<String, String> c = client.connect();
             StatefulRedisConnection<String, String> w = client.connect()) {
            Invalidations inv = new Invalidations();
            inv.attach(c);
            c.sync().clientTracking(TrackingArgs.Builder.enabled());
            c.sync().get(k);
            w.sync().set(k, "v");
            inv.await(1);
            assertThat(inv.keys).containsExactly(k);
            w.sync().set(k, "again"); // not read since: no second message
            c.sync().get(k + "x");
            w.sync().set(k + "x", "v");
            inv.await(2);
            assertThat(inv.keys).containsExactly(k, k + "x");
            w.sync().flushall();
            inv.await(3);
            assertThat(inv.keys).containsExactly(k, k + "x", "*");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void lettuceResp3_bcastPrefix_getsEveryMatchingWrite_andExpiry() throws Exception {
        String p = "b" + (round++) + ":";
        RedisClient client = TestServers.lettuce(server.port(), 3);
        try (StatefulRedisConnection<String, String> c = client.connect();
             StatefulRedisConnection<String, String> w = client.connect()) {
            Invalidations inv = new Invalidations();
            inv.attach(c);
            c.sync().clientTracking(TrackingArgs.Builder.enabled().bcast().prefixes(p));
            w.sync().set(p + "1", "v");
            w.sync().set("other" + p, "v");
            w.sync().psetex(p + "2", 20, "v"); // its write, then its expiry
            inv.await(3);
            assertThat(inv.keys).containsExactly(p + "1", p + "2", p + "2");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void jedis_trackingInfoGetredirAndClientList() {
        try (Jedis target = TestServers.jedis(server.port(), 2); Jedis j = TestServers.jedis(server.port(), 2)) {
            long id = target.clientId();
            assertThat(j.sendCommand(() -> "CLIENT".getBytes(), "GETREDIR")).isEqualTo(-1L);
            j.sendCommand(() -> "CLIENT".getBytes(), "TRACKING", "ON", "REDIRECT", Long.toString(id), "BCAST");
            assertThat(j.sendCommand(() -> "CLIENT".getBytes(), "GETREDIR")).isEqualTo(id);
            String mine = j.clientList().lines().filter(l -> l.startsWith("id=" + j.clientId() + " ")).findFirst()
                    .orElseThrow();
            assertThat(mine).contains(" flags=tB ").contains(" redir=" + id + " ");
            assertThatThrownBy(() -> j.sendCommand(() -> "CLIENT".getBytes(), "CACHING", "YES"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR CLIENT CACHING can be called only when");
            j.sendCommand(() -> "CLIENT".getBytes(), "TRACKING", "OFF");
            assertThat(j.sendCommand(() -> "CLIENT".getBytes(), "GETREDIR")).isEqualTo(-1L);
        }
    }

    @Test
    void disconnect_orReset_stopsTracking() throws Exception {
        try (Jedis j = TestServers.jedis(server.port(), 3)) {
            j.sendCommand(() -> "CLIENT".getBytes(), "TRACKING", "ON");
            assertThat(j.clientList()).contains(" flags=t ");
            j.sendCommand(() -> "RESET".getBytes());
            assertThat(j.sendCommand(() -> "CLIENT".getBytes(), "GETREDIR")).isEqualTo(-1L);
        }
        long deadline = System.currentTimeMillis() + 5000; // other tests' connections close asynchronously
        while (server.context().tracking().active() && System.currentTimeMillis() < deadline) Thread.sleep(10);
        assertThat(server.context().tracking().active()).isFalse();
    }
}
