package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * INFO's {@code lazyfree_pending_objects} and {@code lazyfreed_objects} after the same deletions on redis-server
 * 7.0.15 and Tide: UNLINK frees in the background (and counts) exactly the values whose free effort exceeds 64, DEL
 * does so under {@code lazyfree-lazy-user-del}, FLUSHALL/FLUSHDB ASYNC count every key, overwrites and expiry under
 * their parameters; small values are freed inline and not counted; CONFIG RESETSTAT zeroes the count. Sets here have
 * more than 128 members: redis-server 7.0 has no listpack sets, so a set of 65..128 strings is a hashtable (counted)
 * there and a listpack (one allocation) in Tide, as in Redis 7.2.
 */
class LazyFreeVsRedisTest extends VsRedis {

    private static final String[] PARAMS = {"lazyfree-lazy-user-del", "lazyfree-lazy-user-flush",
        "lazyfree-lazy-server-del", "lazyfree-lazy-expire", "lazyfree-lazy-eviction", "replica-lazy-flush"};

    LazyFreeVsRedisTest() {
        super("lf");
    }

    @BeforeEach
    void reset() throws IOException {
        same("FLUSHALL", "SYNC");
        same("CONFIG", "RESETSTAT");
    }

    @AfterEach
    void paramsBack() throws IOException {
        for (String p : PARAMS) same("CONFIG", "SET", p, "no");
    }

    /** INFO memory's value of {@code field}. */
    private static long info(RawClient c, String field) throws IOException {
        String info = c.call("INFO", "memory");
        int at = info.indexOf(field + ":");
        assertThat(at).as(field).isNotNegative();
        return Long.parseLong(info.substring(at + field.length() + 1, info.indexOf('\r', at)));
    }

    /** Waits until both freer threads are done, then asserts both count {@code expected} freed objects. */
    private void freed(long expected) throws Exception {
        long deadline = System.currentTimeMillis() + 5000;
        while (System.currentTimeMillis() < deadline
                && (info(t(), "lazyfree_pending_objects") != 0 || info(t(), "lazyfreed_objects") != expected
                    || info(r(), "lazyfree_pending_objects") != 0 || info(r(), "lazyfreed_objects") != expected)) {
            Thread.sleep(10);
        }
        assertThat(info(r(), "lazyfreed_objects")).as("redis").isEqualTo(expected);
        assertThat(info(t(), "lazyfreed_objects")).as("tide").isEqualTo(expected);
        assertThat(info(t(), "lazyfree_pending_objects")).isZero();
    }

    private void add(String cmd, String key, int n, boolean scored) throws IOException {
        List<String> args = new ArrayList<>(List.of(cmd, key));
        for (int i = 0; i < n; i++) {
            if (scored) args.add(Integer.toString(i));
            args.add("member:" + i + (cmd.equals("RPUSH") ? ":some-longer-list-element-text" : ""));
            if (cmd.equals("HSET")) args.add("v" + i);
        }
        same(args.toArray(String[]::new));
    }

    @Test
    void parameters_getAndSet_asRedis() throws IOException {
        for (String p : PARAMS) {
            same("CONFIG", "GET", p);
            same("CONFIG", "SET", p, "yes");
            same("CONFIG", "GET", p);
            same("CONFIG", "SET", p, "maybe");
        }
        same("CONFIG", "GET", "slave-lazy-flush");
    }

    @Test
    void unlink_countsOnlyValuesOfMoreThan64Allocations() throws Exception {
        add("SADD", k("set200"), 200, false);    // hashtable of 200: counted
        add("SADD", k("set64"), 64, false);      // 64 (a hashtable in 7.0, a listpack in Tide): inline
        add("HSET", k("hash65"), 65, false);     // listpack: one allocation
        add("HSET", k("hash600"), 600, false);   // hashtable of 600 (past 512): counted
        add("ZADD", k("zset200"), 200, true);    // skiplist of 200: counted
        add("ZADD", k("zset10"), 10, true);      // listpack
        for (int i = 0; i < 24; i++) add("RPUSH", k("list"), 1000, false); // more than 64 quicklist nodes: counted
        add("RPUSH", k("short"), 1000, false);   // a few nodes
        same("SET", k("string"), "x".repeat(100000));
        same("OBJECT", "ENCODING", k("set200"));
        same("OBJECT", "ENCODING", k("zset200"));
        same("UNLINK", k("set200"), k("set64"), k("hash65"), k("hash600"), k("zset200"), k("zset10"), k("list"),
                k("short"), k("string"), k("absent"));
        freed(4);
        same("DBSIZE");
    }

    @Test
    void del_isLazyOnlyUnderLazyfreeLazyUserDel() throws Exception {
        add("SADD", k("a"), 200, false);
        same("DEL", k("a"));
        freed(0);
        same("CONFIG", "SET", "lazyfree-lazy-user-del", "yes");
        add("SADD", k("b"), 200, false);
        add("SADD", k("small"), 3, false);
        same("DEL", k("b"), k("small"));
        freed(1);
    }

    @Test
    void flushAsync_countsEveryKey_andUserFlushMakesItTheDefault() throws Exception {
        for (int i = 0; i < 30; i++) same("SET", k("s" + i), "v");
        add("SADD", k("big"), 200, false);
        same("FLUSHALL", "ASYNC");
        freed(31);
        for (int i = 0; i < 5; i++) same("SET", k("s" + i), "v");
        same("FLUSHDB", "ASYNC");
        freed(36);
        same("FLUSHALL", "ASYNC"); // nothing left: nothing counted
        for (int i = 0; i < 5; i++) same("SET", k("s" + i), "v");
        same("FLUSHALL"); // synchronous by default
        freed(36);
        same("CONFIG", "SET", "lazyfree-lazy-user-flush", "yes");
        for (int i = 0; i < 7; i++) same("SET", k("s" + i), "v");
        same("FLUSHALL");
        freed(43);
        for (int i = 0; i < 2; i++) same("SET", k("s" + i), "v");
        same("FLUSHDB", "SYNC");
        freed(43);
        same("CONFIG", "RESETSTAT");
        freed(0);
    }

    @Test
    void overwritesAndExpiry_areLazyUnderTheirParameters() throws Exception {
        add("SADD", k("x"), 200, false);
        same("SET", k("x"), "plain"); // lazyfree-lazy-server-del no: inline
        freed(0);
        same("CONFIG", "SET", "lazyfree-lazy-server-del", "yes");
        add("SADD", k("y"), 200, false);
        same("SET", k("y"), "plain");
        add("SADD", k("z"), 200, false);
        same("SET", k("z"), "small-one"); // only the big value replaced is counted
        same("SET", k("z"), "again");
        freed(2);
        same("CONFIG", "SET", "lazyfree-lazy-expire", "yes");
        add("SADD", k("e"), 200, false);
        same("PEXPIRE", k("e"), "1");
        Thread.sleep(20);
        same("EXISTS", k("e")); // expired on access
        freed(3);
    }
}
