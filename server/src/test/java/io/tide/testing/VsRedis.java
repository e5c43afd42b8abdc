package io.tide.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * Base class of the tests that send the same commands to a real redis-server and to Tide and compare the replies.
 * Each test class gets its own redis-server and two-shard Tide, started once for all its tests (one instance per
 * class); each test gets two fresh raw connections, {@link #r()} to Redis and {@link #t()} to Tide (opened on first
 * use, closed after the test), and a key prefix of its own for {@link #k}. Not thread-safe: JUnit runs a class's
 * tests one at a time, and only the running test's thread may use the connections.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class VsRedis {

    private final String prefixBase;
    private int round;
    private RealRedis redis;
    private Server tide;
    private RawClient r;
    private RawClient t;
    private String prefix;

    /** Keys from {@link #k} are {@code prefixBase + n + ":" + name}, {@code n} counting the tests. */
    protected VsRedis(String prefixBase) {
        this.prefixBase = prefixBase;
    }

    /** For tests that name their keys themselves. */
    protected VsRedis() {
        this("");
    }

    @BeforeAll
    protected final void startServers() throws Exception {
        redis = RealRedis.start();
        tide = TestServers.start(2);
    }

    @AfterAll
    protected final void stopServers() {
        if (tide != null) tide.close();
        if (redis != null) redis.close();
    }

    @BeforeEach
    protected final void nextPrefix() {
        prefix = prefixBase + (round++) + ":";
    }

    @AfterEach
    protected final void closeClients() throws IOException {
        if (r != null) r.close();
        if (t != null) t.close();
        r = null;
        t = null;
    }

    protected final RealRedis redis() {
        return redis;
    }

    protected final Server tide() {
        return tide;
    }

    /** This test's connection to Redis. */
    protected final RawClient r() throws IOException {
        if (r == null) r = new RawClient(redis.port());
        return r;
    }

    /** This test's connection to Tide. */
    protected final RawClient t() throws IOException {
        if (t == null) t = new RawClient(tide.port());
        return t;
    }

    /** Switches both connections to RESP3 when {@code proto} is 3 (the HELLO replies differ: only the switch is checked). */
    protected final void protocol(int proto) throws IOException {
        if (proto == 3) {
            assertThat(r().call("HELLO", "3")).startsWith("%");
            assertThat(t().call("HELLO", "3")).startsWith("%");
        }
    }

    /**
     * Sends {@code args} to both servers and asserts identical raw replies (but for the one difference by design,
     * {@link #byDesign}); returns Redis's reply.
     */
    protected final String same(String... args) throws IOException {
        String expected = r().call(args);
        String actual = t().call(args);
        assertThat(actual).as(String.join(" ", args)).isEqualTo(byDesign(args, expected));
        return expected;
    }

    /**
     * What Tide answers where Redis answers {@code redisReply}: the same, except OBJECT ENCODING of a large sorted set,
     * "btree" where Redis has "skiplist" (decision 0021).
     */
    static String byDesign(String[] args, String redisReply) {
        boolean encoding = args.length >= 2 && args[0].equalsIgnoreCase("OBJECT") && args[1].equalsIgnoreCase("ENCODING");
        return encoding && redisReply.equals("$8\r\nskiplist\r\n") ? "$5\r\nbtree\r\n" : redisReply;
    }

    /** This test's key prefix, unique to each test invocation. */
    protected final String prefix() {
        return prefix;
    }

    /** {@code name} under this test's key prefix. */
    protected final String k(String name) {
        return prefix + name;
    }
}
