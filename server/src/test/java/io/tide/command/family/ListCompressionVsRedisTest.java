package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * {@code list-compress-depth} over sockets, against redis-server 7.0.15: the parameter itself (CONFIG GET/SET, its
 * errors), every list command on a list whose inner nodes are compressed answering byte for byte as Redis, MEMORY
 * USAGE that drops with compression, and an RDB file of compressed lists that redis-check-rdb accepts and Redis loads.
 */
class ListCompressionVsRedisTest extends VsRedis {

    @TempDir
    Path dir;

    ListCompressionVsRedisTest() {
        super("lc");
    }

    @AfterEach
    void depthBackToZero() throws IOException {
        same("CONFIG", "SET", "list-compress-depth", "0");
    }

    private static String value(int i) {
        return "user:" + (100000 + i) + ":session";
    }

    /** RPUSH of {@code n} typical values in batches of 500. */
    private void fill(String key, int n) throws IOException {
        for (int i = 0; i < n; i += 500) {
            List<String> args = new ArrayList<>(List.of("RPUSH", key));
            for (int k = i; k < Math.min(n, i + 500); k++) args.add(value(k));
            same(args.toArray(String[]::new));
        }
    }

    static long integer(String reply) {
        assertThat(reply).startsWith(":");
        return Long.parseLong(reply.substring(1).trim());
    }

    @Test
    void parameter_getSetAndErrors_asRedis() throws IOException {
        same("CONFIG", "GET", "list-compress-depth");
        same("CONFIG", "SET", "list-compress-depth", "3");
        same("CONFIG", "GET", "list-compress-depth");
        same("CONFIG", "SET", "list-compress-depth", "-1");
        same("CONFIG", "SET", "list-compress-depth", "x");
        same("CONFIG", "SET", "list-compress-depth", "2147483648");
        same("CONFIG", "GET", "list-compress-depth");
    }

    @Test
    void everyListCommand_onCompressedNodes_answersAsRedis() throws IOException {
        same("CONFIG", "SET", "list-compress-depth", "1");
        String l = k("l");
        fill(l, 20000);
        same("OBJECT", "ENCODING", l);
        same("LLEN", l);
        for (int i : new int[] {0, 1, 777, 9999, 10000, 15000, 19998, 19999, -1, -10000}) same("LINDEX", l, "" + i);
        same("LRANGE", l, "9000", "9100");
        same("LRANGE", l, "-12000", "-11900");
        same("LPOS", l, value(12345));
        same("LPOS", l, value(54321));
        same("LPOS", l, value(3), "RANK", "-1");
        same("LSET", l, "10000", "changed");
        same("LSET", l, "10001", "x".repeat(10000)); // a plain node inside a compressed stretch
        same("LINDEX", l, "10000");
        same("LINDEX", l, "10001");
        same("LINSERT", l, "BEFORE", value(5000), "before-5000");
        same("LINSERT", l, "AFTER", value(15000), "after-15000");
        same("LINSERT", l, "AFTER", "absent", "x");
        same("LREM", l, "1", value(7000));
        same("LREM", l, "-2", "changed");
        same("LREM", l, "0", "absent");
        same("LRANGE", l, "4990", "5010");
        same("LRANGE", l, "9995", "10005");
        same("LTRIM", l, "100", "-100");
        same("LLEN", l);
        same("LPOP", l, "5");
        same("RPOP", l, "5");
        String d = k("d");
        same("LMOVE", l, d, "LEFT", "RIGHT");
        same("COPY", l, k("copy"));
        same("LRANGE", k("copy"), "8000", "8010");
        same("LRANGE", l, "0", "-1");
        same("SORT", l, "ALPHA", "LIMIT", "0", "10");
    }

    /** Tide's used_memory_dataset (INFO memory), the incremental figure of every database. */
    private long dataset() throws IOException {
        String info = t().call("INFO", "memory");
        int at = info.indexOf("used_memory_dataset:");
        return Long.parseLong(info.substring(at + 20, info.indexOf('\r', at)));
    }

    @Test
    void memoryUsage_dropsWithCompression_andTheDepthAppliesToNewQuicklists() throws IOException {
        String raw = k("raw");
        long before = dataset();
        fill(raw, 20000);
        long tideRaw = dataset() - before;
        same("CONFIG", "SET", "list-compress-depth", "1");
        String packed = k("packed");
        before = dataset();
        fill(packed, 20000);
        long tidePacked = dataset() - before;
        // The existing list keeps the depth it was created with (a push does not compress it), as in Redis.
        before = dataset();
        fill(raw, 2000); // new nodes, the first ones stay raw though the depth is 1 now
        assertThat(dataset() - before).isGreaterThan(2000 * 20);
        long redisRaw = integer(r().call("MEMORY", "USAGE", raw, "SAMPLES", "0"));
        long redisPacked = integer(r().call("MEMORY", "USAGE", packed, "SAMPLES", "0"));
        assertThat(redisPacked).isLessThan(redisRaw / 2);
        assertThat(tidePacked).isLessThan(tideRaw / 2);
        // Within 25% of what Redis saves (the LZF outputs differ in detail).
        double tideSaved = 1 - (double) tidePacked / tideRaw;
        double redisSaved = 1 - (double) redisPacked / redisRaw;
        System.out.printf("20000 typical values, depth 0 -> 1: Tide %d -> %d bytes, Redis %d -> %d bytes%n",
                tideRaw, tidePacked, redisRaw, redisPacked);
        assertThat(tideSaved).isCloseTo(redisSaved, org.assertj.core.data.Offset.offset(0.25));
        same("OBJECT", "ENCODING", packed);
    }

    @Test
    void rdbOfCompressedLists_passesRedisCheckRdb_andLoadsInRedis() throws Exception {
        try (Server s = TestServers.start(2, "--dir", dir.toString(), "--list-compress-depth", "2");
             Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.configGet("list-compress-depth").get("list-compress-depth")).isEqualTo("2");
            for (int n = 0; n < 3; n++) {
                String[] values = new String[20000];
                for (int i = 0; i < values.length; i++) values[i] = value(i) + ":" + n;
                j.rpush("list" + n, values);
            }
            j.lset("list1", 9000, "y".repeat(20000));
            j.save();
        }
        Path f = dir.resolve("dump.rdb");
        Process p = new ProcessBuilder("redis-check-rdb", f.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains("RDB looks OK");
        try (RealRedis real = RealRedis.startWithFile(dir, "dump.rdb"); Jedis r = new Jedis("127.0.0.1", real.port())) {
            for (int n = 0; n < 3; n++) {
                List<String> got = r.lrange("list" + n, 0, -1);
                assertThat(got).hasSize(20000);
                for (int i = 0; i < 20000; i += 997) {
                    if (n == 1 && i == 9000) continue;
                    assertThat(got.get(i)).isEqualTo(value(i) + ":" + n);
                }
            }
            assertThat(r.lindex("list1", 9000)).isEqualTo("y".repeat(20000));
        }
        // And Tide loads it back, compressing as configured.
        try (Server s = TestServers.start(1, "--dir", dir.toString(), "--list-compress-depth", "1");
             Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.llen("list2")).isEqualTo(20000);
            assertThat(j.lindex("list2", 12345)).isEqualTo(value(12345) + ":2");
            assertThat(Files.size(f)).isPositive();
        }
    }
}
