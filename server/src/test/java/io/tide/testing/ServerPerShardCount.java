package io.tide.testing;

import io.tide.Server;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import redis.clients.jedis.Jedis;

/**
 * Base for socket tests run once per shard count: a subclass annotated
 * {@code @ParameterizedClass(name = "shards={0}")} and {@code @ValueSource(ints = {...})} gets a fresh embedded
 * server with that many shards (no extra options) in {@link #server} for each invocation, closed after it, and a
 * thread pool ({@link #pool}) for clients that must wait in the background (blocking commands).
 *
 * <p>{@link #server} is static and shared by all subclasses, so subclasses must not run concurrently with each
 * other (the suite runs test classes one at a time). Classes that need server options or more lifecycle keep
 * their own.
 */
public abstract class ServerPerShardCount {

    /** The server for the current invocation; null between invocations. */
    protected static Server server;

    /** Runs background clients (a BLPOP that waits while the test pushes); threads start only when used. */
    protected static ExecutorService pool;

    /** This invocation's shard count. */
    @Parameter
    protected int shards;

    @BeforeParameterizedClassInvocation
    protected static void startServer(int shards) {
        server = TestServers.start(shards);
        pool = Executors.newCachedThreadPool();
    }

    @AfterParameterizedClassInvocation
    protected static void stopServer() {
        if (pool != null) pool.shutdownNow();
        pool = null;
        if (server != null) server.close();
        server = null;
    }

    /** A new Jedis connection to {@link #server} speaking RESP2 ({@code proto} 2) or RESP3 (3). */
    protected static Jedis jedis(int proto) {
        return TestServers.jedis(server.port(), proto);
    }
}
