package io.tide.testing;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import io.tide.Server;
import io.tide.Tide;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;

/** Starting embedded servers and connecting real clients to them, for socket tests. Thread-safe. */
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
}
