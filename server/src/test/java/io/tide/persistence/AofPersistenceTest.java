package io.tide.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

/** The append-only file end to end: writes survive a restart on 1 and 4 shards, under each fsync policy. */
class AofPersistenceTest {

    @TempDir
    Path dir;

    private Server start(int shards, String fsync) {
        List<String> args = new ArrayList<>(List.of("--dir", dir.toString(), "--appendonly", "yes",
                "--appendfsync", fsync));
        return TestServers.start(shards, args.toArray(String[]::new));
    }

    @ParameterizedTest
    @CsvSource({"1,always", "1,everysec", "1,no", "4,always", "4,everysec"})
    void everyType_survivesARestart(int shards, String fsync) throws Exception {
        try (Server s = start(shards, fsync); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.info("persistence")).contains("aof_enabled:1");
            j.set("s", "v");
            j.incr("counter");
            j.incrByFloat("f", 1.5);
            j.setex("ttl", 1000, "x");
            j.expire("s", 5000);
            j.rpush("list", "a", "b", "c");
            j.lpop("list");
            j.hset("hash", Map.of("f1", "v1", "f2", "v2"));
            j.sadd("set", "a", "b", "c");
            j.spop("set");
            j.zadd("z", 1, "a");
            j.zincrby("z", 2, "a");
            j.xadd("stream", redis.clients.jedis.StreamEntryID.NEW_ENTRY, Map.of("f", "v"));
            j.mset("{x}a", "1", "{y}b", "2"); // across shards when there are several
            Transaction t = j.multi();
            t.set("{x}t", "1");
            t.set("{y}t", "2");
            t.exec();
            j.eval("redis.call('set', KEYS[1], 'lua'); redis.call('rpush', KEYS[2], 'e')", 2, "{x}s", "{y}l");
            j.select(3);
            j.set("in3", "three");
            j.select(0);
            j.del("gone");
            j.set("gone", "1");
            j.del("gone");
        }
        try (Server s = start(shards, fsync); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.get("s")).isEqualTo("v");
            assertThat(j.ttl("s")).isBetween(4990L, 5000L);
            assertThat(j.get("counter")).isEqualTo("1");
            assertThat(j.get("f")).isEqualTo("1.5");
            assertThat(j.ttl("ttl")).isBetween(990L, 1000L);
            assertThat(j.lrange("list", 0, -1)).containsExactly("b", "c");
            assertThat(j.hgetAll("hash")).isEqualTo(Map.of("f1", "v1", "f2", "v2"));
            assertThat(j.scard("set")).isEqualTo(2);
            assertThat(j.zscore("z", "a")).isEqualTo(3.0);
            assertThat(j.xlen("stream")).isEqualTo(1);
            assertThat(j.mget("{x}a", "{y}b", "{x}t", "{y}t", "{x}s")).containsExactly("1", "2", "1", "2", "lua");
            assertThat(j.lrange("{y}l", 0, -1)).containsExactly("e");
            assertThat(j.exists("gone")).isFalse();
            j.select(3);
            assertThat(j.get("in3")).isEqualTo("three");
        }
    }

    /** A Redis 7 appendonlydir, copied as it is, loads into 4 shards (its one stream routed key by key). */
    @Test
    void aRedisAppendonlydir_loads() throws Exception {
        try (io.tide.testing.RealRedis real = io.tide.testing.RealRedis.startWith("--appendonly", "yes",
                "--appenddirname", "appendonlydir");
             Jedis r = new Jedis("127.0.0.1", real.port())) {
            r.set("from", "redis");
            r.rpush("l", "1", "2");
            r.hset("h", "f", "v");
            r.set("e", "x", redis.clients.jedis.params.SetParams.setParams().ex(1000));
            for (int i = 0; i < 50; i++) r.incr("n" + (i % 7));
            real.stop();
            try (var files = Files.walk(real.dir().resolve("appendonlydir"))) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    Path to = dir.resolve("appendonlydir").resolve(f.getFileName());
                    Files.createDirectories(to.getParent());
                    Files.copy(f, to);
                }
            }
        }
        for (int round = 0; round < 2; round++) { // then again, from the directory Tide has extended
            try (Server s = start(4, "everysec"); Jedis j = TestServers.jedis(s.port(), 2)) {
                assertThat(j.get("from")).isEqualTo("redis");
                assertThat(j.lrange("l", 0, -1)).containsExactly("1", "2");
                assertThat(j.hget("h", "f")).isEqualTo("v");
                assertThat(j.ttl("e")).isBetween(900L, 1000L);
                assertThat(j.get("n0")).isEqualTo("8");
                if (round == 0) j.set("from", "redis");
            }
        }
    }

    @Test
    void aMultiShardDirectory_refusesAnotherShardCount() throws Exception {
        try (Server s = start(4, "everysec"); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.set("a", "1");
        }
        assertThatThrownBy(() -> start(2, "everysec")).hasMessageContaining("--shards 4");
    }

    @Test
    void aTornTail_isCut_andTheRestLoads() throws Exception {
        try (Server s = start(1, "always"); Jedis j = TestServers.jedis(s.port(), 2)) {
            for (int i = 0; i < 100; i++) j.set("k" + i, "v" + i);
        }
        Path incr;
        try (var files = Files.list(dir.resolve("appendonlydir"))) {
            incr = files.filter(f -> f.toString().endsWith(".incr.aof")).findFirst().orElseThrow();
        }
        Files.write(incr, "*3\r\n$3\r\nSET\r\n$4\r\ntorn".getBytes(), java.nio.file.StandardOpenOption.APPEND);
        try (Server s = start(1, "always"); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.dbSize()).isEqualTo(100);
            assertThat(j.get("k99")).isEqualTo("v99");
            j.set("after", "cut");
        }
        try (Server s = start(1, "always"); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.get("after")).isEqualTo("cut");
        }
    }

    /** BGREWRITEAOF while a client writes: a new base, old files gone, and every write survives a restart. */
    @ParameterizedTest
    @CsvSource({"1,everysec", "4,always"})
    void bgrewriteaof_whileWriting_keepsEverything(int shards, String fsync) throws Exception {
        try (Server s = start(shards, fsync); Jedis j = TestServers.jedis(s.port(), 2)) {
            for (int i = 0; i < 3000; i++) j.set("k" + i, "v" + i);
            for (int i = 0; i < 1000; i++) j.del("k" + i);
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicInteger written = new java.util.concurrent.atomic.AtomicInteger();
            Thread writer = new Thread(() -> {
                try (Jedis w = TestServers.jedis(s.port(), 2)) {
                    for (int i = 0; !stop.get(); i++) {
                        w.rpush("during", Integer.toString(i));
                        written.set(i + 1);
                    }
                }
            });
            writer.start();
            Thread.sleep(50);
            assertThat(j.bgrewriteaof()).isEqualTo("Background append only file rewriting started");
            long deadline = System.currentTimeMillis() + 20_000;
            while (j.info("persistence").contains("aof_rewrite_in_progress:1") && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            Thread.sleep(50);
            stop.set(true);
            writer.join();
            String info = j.info("persistence");
            assertThat(info).contains("aof_last_bgrewrite_status:ok", "aof_rewrites:1");
            try (var files = Files.list(dir.resolve("appendonlydir"))) {
                List<String> names = files.map(f -> f.getFileName().toString()).sorted().toList();
                assertThat(names).anyMatch(n -> n.endsWith(".base.rdb"));
                assertThat(names.stream().filter(n -> n.endsWith(".incr.aof")).count()).isEqualTo(shards);
            }
            assertThat(j.llen("during")).isEqualTo(written.get());
            j.set("after", "rewrite");
        }
        try (Server s = start(shards, fsync); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.dbSize()).isEqualTo(2000 + 2);
            assertThat(j.get("k0")).isNull();
            assertThat(j.get("k2999")).isEqualTo("v2999");
            assertThat(j.get("after")).isEqualTo("rewrite");
            List<String> during = j.lrange("during", 0, -1);
            for (int i = 0; i < during.size(); i++) assertThat(during.get(i)).isEqualTo(Integer.toString(i));
        }
    }

    /** CONFIG SET appendonly yes at run time writes a base of the dataset; a restart with the AOF loads it all. */
    @Test
    void appendonlyTurnedOnAtRunTime_keepsTheDatasetAndLaterWrites() throws Exception {
        try (Server s = TestServers.start(2, "--dir", dir.toString()); Jedis j = TestServers.jedis(s.port(), 2)) {
            for (int i = 0; i < 500; i++) j.set("before" + i, "x");
            j.configSet("appendonly", "yes");
            long deadline = System.currentTimeMillis() + 20_000;
            while (!j.info("persistence").contains("aof_rewrites:1") && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            assertThat(j.info("persistence")).contains("aof_enabled:1", "aof_rewrites:1");
            j.set("after", "on");
        }
        try (Server s = start(2, "everysec"); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.dbSize()).isEqualTo(501);
            assertThat(j.get("after")).isEqualTo("on");
            j.configSet("appendonly", "no");
            long deadline = System.currentTimeMillis() + 5_000;
            while (j.info("persistence").contains("aof_enabled:1") && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            assertThat(j.info("persistence")).contains("aof_enabled:0");
        }
    }

    /** auto-aof-rewrite-percentage and -min-size start a rewrite on their own. */
    @Test
    void autoRewrite_firesOnGrowth() throws Exception {
        try (Server s = start(1, "everysec"); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.configSet("auto-aof-rewrite-min-size", "10000");
            j.configSet("auto-aof-rewrite-percentage", "50");
            for (int i = 0; i < 2000; i++) j.set("k" + (i % 10), "value-" + i);
            long deadline = System.currentTimeMillis() + 20_000;
            while (rewrites(j) == 0 && System.currentTimeMillis() < deadline) Thread.sleep(20);
            assertThat(rewrites(j)).isPositive();
            // the rewritten files hold the same data
            for (int i = 0; i < 10; i++) assertThat(j.get("k" + i)).isEqualTo("value-" + (1990 + i));
        }
        try (Server s = start(1, "everysec"); Jedis j = TestServers.jedis(s.port(), 2)) {
            for (int i = 0; i < 10; i++) assertThat(j.get("k" + i)).isEqualTo("value-" + (1990 + i));
        }
    }

    /** Functions (server-wide state, no key) and RESTORE's relative TTL survive a restart from the AOF. */
    @Test
    void functionsAndRestoredTtls_survive() throws Exception {
        String lib = "#!lua name=mylib\nredis.register_function('hi', function(keys, args) return 'hello' end)";
        try (Server s = start(2, "everysec"); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.functionLoad(lib);
            j.set("src", "payload");
            byte[] dump = j.dump("src");
            j.restore("copy", 100_000, dump);
            j.functionLoad(lib.replace("mylib", "gone").replace("'hi'", "'bye'"));
            j.functionDelete("gone");
        }
        Thread.sleep(1100); // a relative TTL replayed as relative would now read 100 s again
        try (Server s = start(2, "everysec"); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.fcall("hi", List.of(), List.of())).isEqualTo("hello");
            assertThat(j.functionList()).hasSize(1);
            assertThat(j.get("copy")).isEqualTo("payload");
            assertThat(j.pttl("copy")).isBetween(90_000L, 98_950L);
        }
    }

    /** With aof-use-rdb-preamble no the rewritten base is commands, which load back (also into Redis's format rules). */
    @Test
    void commandBase_whenTheRdbPreambleIsOff() throws Exception {
        try (Server s = TestServers.start(2, "--dir", dir.toString(), "--appendonly", "yes",
                "--aof-use-rdb-preamble", "no"); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.set("s", "v");
            j.setex("t", 1000, "x");
            j.rpush("l", "a", "b");
            j.hset("h", "f", "v");
            j.functionLoad("#!lua name=lib\nredis.register_function('f1', function() return 1 end)");
            j.select(2);
            j.set("in2", "y");
            j.bgrewriteaof();
            long deadline = System.currentTimeMillis() + 20_000;
            while (rewrites(j) == 0 && System.currentTimeMillis() < deadline) Thread.sleep(10);
        }
        try (var files = Files.list(dir.resolve("appendonlydir"))) {
            assertThat(files.map(f -> f.getFileName().toString())).anyMatch(n -> n.endsWith(".base.aof"));
        }
        try (Server s = start(2, "everysec"); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.get("s")).isEqualTo("v");
            assertThat(j.ttl("t")).isBetween(900L, 1000L);
            assertThat(j.lrange("l", 0, -1)).containsExactly("a", "b");
            assertThat(j.hget("h", "f")).isEqualTo("v");
            assertThat(j.fcall("f1", List.of(), List.of())).isEqualTo(1L);
            j.select(2);
            assertThat(j.get("in2")).isEqualTo("y");
        }
    }

    /** A file named like the AOF's but in no manifest (a kill during history deletion) goes at startup. */
    @Test
    void orphanFiles_areRemovedAtStartup() throws Exception {
        try (Server s = start(1, "everysec"); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.set("a", "1");
        }
        Path orphan = dir.resolve("appendonlydir").resolve("appendonly.aof.99.incr.aof");
        Files.write(orphan, "*1\r\n$8\r\nFLUSHALL\r\n".getBytes());
        try (Server s = start(1, "everysec"); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.get("a")).isEqualTo("1");
        }
        assertThat(orphan).doesNotExist();
    }

    private static long rewrites(Jedis j) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("aof_rewrites:(\\d+)").matcher(j.info("persistence"));
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }
}
