package io.tide.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * One client's commands take effect in the order it sent them, as seen by other clients, even when a pipeline's
 * commands run on different shards (as Redis runs a client's commands one after the other). Observed from outside:
 * a writer pipelines {@code SET first i} then {@code SET second i} (or {@code PUBLISH}) with the two on different
 * shards, and other clients, reading {@code second} before {@code first}, must never find {@code first} behind.
 * Both orders of the two shards are run, so that in one of them the first key is off the writer's home shard and
 * the second on it (the case a home shard could run ahead).
 */
class CrossShardOrderTest {

    private static final int ROUNDS = 20_000;
    /** Rounds of the two-writes case: its readers run as long as the writer does. */
    private static final int WRITE_ROUNDS = 100_000;
    private static final int CHUNK = 1_000;
    private static Server server;

    @BeforeAll
    static void start() {
        server = TestServers.start(2);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void readersNeverSeeASecondWriteWithoutTheFirst() throws Exception {
        String[] keys = TestServers.keysOnDifferentShards(server, "order:");
        for (int[] pair : new int[][] {{0, 1}, {1, 0}}) {
            String first = keys[pair[0]];
            String second = keys[pair[1]];
            try (Jedis setup = TestServers.jedis(server.port(), 2)) {
                setup.mset(first, "0", second, "0");
            }
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try (Jedis w = TestServers.jedis(server.port(), 2)) {
                    for (int from = 1; from <= WRITE_ROUNDS; from += CHUNK) {
                        Pipeline p = w.pipelined();
                        for (int i = from; i < from + CHUNK; i++) {
                            p.set(first, Integer.toString(i));
                            p.set(second, Integer.toString(i));
                        }
                        p.sync();
                    }
                } catch (Throwable t) {
                    failure.set(t);
                } finally {
                    done.set(true);
                }
            });
            List<String> seen = new ArrayList<>();
            long reads = 0;
            try (Jedis one = TestServers.jedis(server.port(), 2); Jedis piped = TestServers.jedis(server.port(), 3)) {
                while (!done.get() && seen.size() < 5) {
                    long s = Long.parseLong(one.get(second)); // one request at a time
                    long f = Long.parseLong(one.get(first));
                    if (f < s) seen.add("one at a time: " + second + "=" + s + " then " + first + "=" + f);
                    Pipeline p = piped.pipelined(); // both in one pipeline
                    Response<String> ps = p.get(second);
                    Response<String> pf = p.get(first);
                    p.sync();
                    if (Long.parseLong(pf.get()) < Long.parseLong(ps.get())) {
                        seen.add("pipelined: " + second + "=" + ps.get() + " then " + first + "=" + pf.get());
                    }
                    reads++;
                }
            }
            writer.join();
            assertThat(failure.get()).isNull();
            assertThat(seen).as("%s then %s, %d reads", first, second, reads).isEmpty();
            assertThat(reads).isPositive();
        }
    }

    /**
     * Lettuce's asynchronous API pipelines by itself (each command is written as it is issued, without waiting): an
     * application that sets two keys one after the other this way, over RESP3, must be seen in that order too.
     */
    @Test
    void lettuceAsyncWritesAreSeenInOrder() throws Exception {
        String[] keys = TestServers.keysOnDifferentShards(server, "lettuce-order:");
        io.lettuce.core.RedisClient client = TestServers.lettuce(server.port(), 3);
        try (var writer = client.connect(); var reader = client.connect(); var other = client.connect()) {
            // Three connections opened in turn: the writer's home is one shard, and both orders of keys are run.
            for (int[] pair : new int[][] {{0, 1}, {1, 0}}) {
                String first = keys[pair[0]];
                String second = keys[pair[1]];
                writer.sync().mset(java.util.Map.of(first, "0", second, "0"));
                var async = writer.async();
                AtomicReference<io.lettuce.core.RedisFuture<String>> last = new AtomicReference<>();
                Thread writing = Thread.ofPlatform().start(() -> {
                    for (int i = 1; i <= WRITE_ROUNDS; i++) {
                        async.set(first, Integer.toString(i));
                        last.set(async.set(second, Integer.toString(i)));
                        if (i % CHUNK == 0) last.get().toCompletableFuture().join(); // bounded in flight
                    }
                });
                List<String> seen = new ArrayList<>();
                long reads = 0;
                while (writing.isAlive() && seen.size() < 5) {
                    for (var conn : List.of(reader, other)) {
                        long s = Long.parseLong(conn.sync().get(second));
                        long f = Long.parseLong(conn.sync().get(first));
                        if (f < s) seen.add(second + "=" + s + " then " + first + "=" + f);
                    }
                    reads++;
                }
                writing.join();
                last.get().get(30, TimeUnit.SECONDS);
                assertThat(seen).as("%s then %s, %d reads", first, second, reads).isEmpty();
                assertThat(reads).isPositive();
            }
        } finally {
            client.shutdown();
        }
    }

    @Test
    void aSubscriberSeesTheWriteItsMessageFollows() throws Exception {
        String[] keys = TestServers.keysOnDifferentShards(server, "published:");
        try (Jedis w = TestServers.jedis(server.port(), 2)) { // one writer (one home shard): one key is off it
            for (String key : keys) publishAfterEachWrite(w, key);
        }
    }

    private void publishAfterEachWrite(Jedis w, String key) throws Exception {
        try (Jedis setup = TestServers.jedis(server.port(), 2)) {
            setup.set(key, "0");
        }
        String channel = "order-" + key;
        // Connections take home shards in turn, and each watcher opens three: the two watchers' subscribers are on
        // different shards, and each watcher's two readers are too, so every shard delivers and every shard reads.
        try (Watcher one = new Watcher(key, channel); Watcher other = new Watcher(key, channel)) {
            for (int from = 1; from <= ROUNDS; from += CHUNK) {
                // The subscribers are idle when each pipeline starts, so they read its first messages at once.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while ((one.received.get() < from - 1 || other.received.get() < from - 1)
                        && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                Pipeline p = w.pipelined();
                for (int i = from; i < from + CHUNK; i++) {
                    p.set(key, Integer.toString(i));
                    p.publish(channel, Integer.toString(i));
                }
                p.sync();
            }
            for (Watcher watcher : List.of(one, other)) {
                watcher.listening.join(30_000);
                assertThat(watcher.listening.isAlive()).isFalse();
                assertThat(watcher.received.get()).isEqualTo(ROUNDS);
                assertThat(watcher.behind.get()).as("messages that arrived before their write: %s", watcher.example.get())
                        .isZero();
            }
        }
    }

    /** A subscriber that, on each message, reads the key through two readers and counts values behind the message. */
    private static final class Watcher extends JedisPubSub implements AutoCloseable {
        final Jedis readerA = TestServers.jedis(server.port(), 2);
        final Jedis readerB = TestServers.jedis(server.port(), 2);
        final Jedis sub = TestServers.jedis(server.port(), 2);
        final String key;
        final AtomicLong received = new AtomicLong();
        final AtomicLong behind = new AtomicLong();
        final AtomicReference<String> example = new AtomicReference<>();
        final CountDownLatch subscribed = new CountDownLatch(1);
        final Thread listening;

        Watcher(String key, String channel) throws InterruptedException {
            this.key = key;
            listening = Thread.ofPlatform().start(() -> sub.subscribe(this, channel));
            assertThat(subscribed.await(10, TimeUnit.SECONDS)).isTrue();
        }

        @Override
        public void onSubscribe(String ch, int n) {
            subscribed.countDown();
        }

        @Override
        public void onMessage(String ch, String message) {
            long sent = Long.parseLong(message);
            long stored = Math.min(Long.parseLong(readerA.get(key)), Long.parseLong(readerB.get(key)));
            if (stored < sent) {
                behind.incrementAndGet();
                example.compareAndSet(null, "message " + sent + ", " + key + "=" + stored);
            }
            received.incrementAndGet();
            if (sent == ROUNDS) unsubscribe();
        }

        @Override
        public void close() {
            if (isSubscribed()) unsubscribe();
            sub.close();
            readerA.close();
            readerB.close();
        }
    }
}
