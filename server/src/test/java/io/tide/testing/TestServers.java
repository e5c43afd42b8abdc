package io.tide.testing;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import io.tide.Server;
import io.tide.Tide;
import io.tide.shard.Shard;
import io.tide.shard.ShardSet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;

/**
 * Starting embedded servers, connecting real clients to them and looking inside them (shards, blocked clients),
 * for socket tests. Thread-safe: it keeps no state of its own.
 */
public final class TestServers {

    static {
        // Lettuce's own epoll/io_uring transports reject Netty 4.2's IO event loops; use NIO (the pom sets
        // the same for Maven runs; this covers IDE runs as long as Lettuce is loaded after this class).
        System.setProperty("io.lettuce.core.epoll", "false");
        System.setProperty("io.lettuce.core.iouring", "false");
    }

    private TestServers() {}

    /** An embedded server on an ephemeral port with {@code shards} shards plus any extra options. */
    public static Server start(int shards, String... extra) {
        List<String> args = new ArrayList<>(List.of("--port", "0", "--shards", Integer.toString(shards),
                "--loglevel", "warning"));
        if (!Arrays.asList(extra).contains("--dir")) {
            // A directory of its own, so that no test loads (or leaves) a dump.rdb another test sees.
            try {
                java.nio.file.Path d = java.nio.file.Files.createTempDirectory("tide-test");
                d.toFile().deleteOnExit();
                args.addAll(List.of("--dir", d.toString()));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        args.addAll(Arrays.asList(extra));
        return Tide.start(args.toArray(new String[0]));
    }

    /** A Jedis connection speaking RESP2 (protocol 2) or RESP3 (3). */
    public static Jedis jedis(int port, int protocol) {
        var cfg = DefaultJedisClientConfig.builder()
                .protocol(protocol == 3 ? RedisProtocol.RESP3 : RedisProtocol.RESP2)
                .timeoutMillis(10_000)
                .build();
        return new Jedis(new HostAndPort("127.0.0.1", port), cfg);
    }

    /** A Lettuce client pinned to RESP2 or RESP3; close the client when done. */
    public static RedisClient lettuce(int port, int protocol) {
        RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(port)
                .withTimeout(Duration.ofSeconds(10)).build());
        client.setOptions(ClientOptions.builder()
                .protocolVersion(protocol == 3 ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2)
                .build());
        return client;
    }

    public static StatefulRedisConnection<String, String> connect(RedisClient client) {
        return client.connect();
    }

    /** Runs {@code task} on the thread of the shard that owns {@code key}, as only that thread may touch its data. */
    public static <T> T onShard(Server server, String key, Callable<T> task) throws Exception {
        Shard s = server.context().shards().shardOf(utf8(key));
        return s.loop().submit(task).get();
    }

    /** Two keys, {@code prefix:a} and {@code prefix:bN}, on different shards when the server has several. */
    public static String[] keysOnDifferentShards(Server server, String prefix) {
        ShardSet set = server.context().shards();
        String a = prefix + ":a";
        for (int i = 0; ; i++) {
            String b = prefix + ":b" + i;
            if (set.size() == 1 || set.shardOf(utf8(a)) != set.shardOf(utf8(b))) return new String[] {a, b};
        }
    }

    /** The {@code n}th key named {@code prefix} followed by a number that lives on shard {@code shard} of {@code server}. */
    public static String keyOn(Server server, int shard, String prefix, int n) {
        ShardSet set = server.context().shards();
        for (int i = 0, found = 0; ; i++) {
            String k = prefix + i;
            if (set.shardOf(utf8(k)).id() == shard && found++ == n) return k;
        }
    }

    /** A RESP2 connection whose home (the shard loop that reads it) is {@code shard}; the others opened are closed. */
    public static Jedis homedOn(Server server, int shard) {
        List<Jedis> others = new ArrayList<>();
        try {
            while (true) {
                Jedis j = jedis(server.port(), 2);
                if (server.context().clients().get(j.clientId()).home().id() == shard) return j;
                others.add(j);
            }
        } finally {
            others.forEach(Jedis::close);
        }
    }

    /** INFO tide's {@code tide_coordinator_operations}, through {@code j}. */
    public static long coordinatorOperations(Jedis j) {
        for (String line : j.info("tide").split("\r\n")) {
            if (line.startsWith("tide_coordinator_operations:")) return Long.parseLong(line.substring(28));
        }
        throw new AssertionError("no tide_coordinator_operations in INFO tide");
    }

    /** The server's {@code blocked_clients}, from INFO through {@code j}. */
    private static long blockedClients(Jedis j) {
        for (String line : j.info("clients").split("\r\n")) {
            if (line.startsWith("blocked_clients:")) return Long.parseLong(line.substring(16));
        }
        throw new AssertionError("no blocked_clients in INFO");
    }

    /** Waits (10 s at most) until the server counts exactly {@code n} blocked clients. */
    public static void awaitBlocked(Jedis j, long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (blockedClients(j) != n) {
            if (System.nanoTime() > deadline) throw new AssertionError("blocked_clients never reached " + n);
            Thread.sleep(5);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
