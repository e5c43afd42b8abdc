package io.tide.junit5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.tide.network.Faults;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** The fault hooks as real clients see them: closed connections, timeouts, refused connects. */
@TideServer(lifecycle = TideServer.Lifecycle.PER_METHOD)
class FaultsTest {

    @TidePort
    int port;
    @TideInject
    Faults faults;

    private Jedis jedis(int timeoutMs) {
        return new Jedis(new HostAndPort("127.0.0.1", port), DefaultJedisClientConfig.builder()
                .socketTimeoutMillis(timeoutMs).connectionTimeoutMillis(timeoutMs).build());
    }

    private RedisClient lettuce(Duration timeout) {
        RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(port)
                .withTimeout(timeout).build());
        client.setOptions(ClientOptions.builder().autoReconnect(false).build());
        return client;
    }

    @Test
    void dropConnections_jedisGetsAConnectionError_thenReconnects() {
        try (Jedis j = jedis(5000)) {
            assertThat(j.ping()).isEqualTo("PONG");
            faults.dropConnections();
            assertThatThrownBy(j::ping).isInstanceOf(JedisConnectionException.class);
        }
        try (Jedis again = jedis(5000)) {
            assertThat(again.ping()).isEqualTo("PONG"); // the server still accepts
        }
    }

    @Test
    void dropConnections_lettuceSeesTheConnectionClose() throws Exception {
        RedisClient client = lettuce(Duration.ofSeconds(5));
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            assertThat(c.sync().ping()).isEqualTo("PONG");
            faults.delayReplies(Duration.ofSeconds(2)); // a command in flight when the connection drops
            var pending = c.async().get("k");
            Thread.sleep(100);
            faults.dropConnections();
            assertThatThrownBy(() -> pending.get(5, java.util.concurrent.TimeUnit.SECONDS))
                    .hasCauseInstanceOf(RedisException.class)
                    .hasMessageContaining("Connection");
            long deadline = System.currentTimeMillis() + 5000;
            while (c.isOpen() && System.currentTimeMillis() < deadline) Thread.sleep(10);
            assertThat(c.isOpen()).isFalse();
        } finally {
            client.shutdown();
        }
    }

    @Test
    void delayReplies_jedisTimesOut_andRecoversOnceCleared() {
        faults.delayReplies(Duration.ofMillis(1500));
        assertThatThrownBy(() -> {
            try (Jedis j = jedis(300)) { // Jedis 7 already sends a command while connecting
                j.ping();
            }
        }).isInstanceOf(JedisConnectionException.class).hasRootCauseInstanceOf(SocketTimeoutException.class);
        faults.delayReplies(Duration.ZERO);
        try (Jedis j = jedis(300)) {
            assertThat(j.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void delayReplies_delaysEveryReply_inOrder() {
        try (Jedis j = jedis(5000)) {
            j.ping();
            faults.delayReplies(Duration.ofMillis(300));
            long t0 = System.nanoTime();
            var p = j.pipelined();
            var a = p.incr("n");
            var b = p.incr("n");
            var c = p.incr("n");
            p.sync();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(ms).isBetween(290L, 3000L);
            assertThat(java.util.List.of(a.get(), b.get(), c.get())).containsExactly(1L, 2L, 3L);
        }
    }

    @Test
    void delayReplies_lettuceCommandTimesOut() {
        RedisClient client = lettuce(Duration.ofMillis(300));
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            faults.delayReplies(Duration.ofSeconds(2));
            assertThatThrownBy(() -> c.sync().ping()).isInstanceOf(RedisCommandTimeoutException.class);
        } finally {
            client.shutdown();
        }
    }

    @Test
    void refuseConnections_refusesNewOnes_keepsOpenOnes_andListensAgain() {
        try (Jedis open = jedis(2000)) {
            assertThat(open.ping()).isEqualTo("PONG");
            faults.refuseConnections(true);
            assertThatThrownBy(() -> {
                try (Jedis refused = jedis(2000)) {
                    refused.ping();
                }
            }).isInstanceOf(JedisConnectionException.class).hasMessageStartingWith("Failed to connect");
            assertThatThrownBy(() -> new java.net.Socket("127.0.0.1", port).close())
                    .isInstanceOf(ConnectException.class).hasMessageContaining("refused");
            RedisClient client = lettuce(Duration.ofSeconds(2));
            try {
                assertThatThrownBy(client::connect).isInstanceOf(RedisConnectionException.class);
            } finally {
                client.shutdown();
            }
            assertThat(open.ping()).isEqualTo("PONG");
            faults.refuseConnections(false);
            try (Jedis again = jedis(2000)) {
                assertThat(again.ping()).isEqualTo("PONG");
            }
        }
    }

    /**
     * While the port is closed another socket may take it for a moment (a client's ephemeral port, a port probe):
     * listening again waits for it to go rather than failing at once.
     */
    @Test
    void refuseConnections_listensAgain_onceAPortHolderLetsGo() throws Exception {
        faults.refuseConnections(true);
        java.net.ServerSocket holder = new java.net.ServerSocket();
        holder.setReuseAddress(false);
        holder.bind(new java.net.InetSocketAddress("127.0.0.1", port));
        Thread release = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(300);
                holder.close();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        faults.refuseConnections(false);
        release.join();
        assertThat(faults.refusingConnections()).isFalse();
        try (Jedis again = jedis(2000)) {
            assertThat(again.ping()).isEqualTo("PONG");
        }
    }
}
