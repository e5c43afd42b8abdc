package io.tide.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/** SAVE, BGSAVE, save points and loading at startup, through real sockets with Jedis, on 1 and 4 shards. */
class RdbPersistenceTest {

    @TempDir
    Path dir;

    private Server start(int shards, String... extra) {
        List<String> args = new ArrayList<>(List.of("--dir", dir.toString()));
        args.addAll(List.of(extra));
        return TestServers.start(shards, args.toArray(String[]::new));
    }

    private static void fill(Jedis j) {
        j.set("s", "hello");
        j.set("n", "12345");
        j.set("big", "x".repeat(5000));
        j.setex("ttl", 1000, "v");
        j.rpush("list", "a", "b", "c");
        for (int i = 0; i < 300; i++) j.rpush("biglist", "e" + i);
        j.hset("hash", Map.of("f1", "v1", "f2", "v2"));
        for (int i = 0; i < 600; i++) j.hset("bighash", "f" + i, "v" + i);
        j.sadd("ints", "1", "2", "3");
        j.sadd("set", "a", "b");
        for (int i = 0; i < 600; i++) j.sadd("bigset", "m" + i);
        j.zadd("z", 1.5, "a");
        j.zadd("z", 2, "b");
        for (int i = 0; i < 300; i++) j.zadd("bigz", i, "m" + i);
        j.xadd("stream", redis.clients.jedis.StreamEntryID.NEW_ENTRY, Map.of("f", "v"));
        j.xgroupCreate("stream", "g", new redis.clients.jedis.StreamEntryID(0, 0), false);
        j.select(5);
        j.set("in5", "five");
        j.select(0);
    }

    private static void check(Jedis j) {
        assertThat(j.get("s")).isEqualTo("hello");
        assertThat(j.get("n")).isEqualTo("12345");
        assertThat(j.get("big")).hasSize(5000);
        assertThat(j.ttl("ttl")).isBetween(990L, 1000L);
        assertThat(j.lrange("list", 0, -1)).containsExactly("a", "b", "c");
        assertThat(j.llen("biglist")).isEqualTo(300);
        assertThat(j.lindex("biglist", 299)).isEqualTo("e299");
        assertThat(j.hgetAll("hash")).isEqualTo(Map.of("f1", "v1", "f2", "v2"));
        assertThat(j.hlen("bighash")).isEqualTo(600);
        assertThat(j.hget("bighash", "f599")).isEqualTo("v599");
        assertThat(j.smembers("ints")).containsExactlyInAnyOrder("1", "2", "3");
        assertThat(j.objectEncoding("ints")).isEqualTo("intset");
        assertThat(j.smembers("set")).containsExactlyInAnyOrder("a", "b");
        assertThat(j.scard("bigset")).isEqualTo(600);
        assertThat(j.zscore("z", "a")).isEqualTo(1.5);
        assertThat(j.zcard("bigz")).isEqualTo(300);
        assertThat(j.xlen("stream")).isEqualTo(1);
        assertThat(j.xinfoGroups("stream")).hasSize(1);
        j.select(5);
        assertThat(j.get("in5")).isEqualTo("five");
        j.select(0);
    }

    @org.junit.jupiter.api.Test
    void clientsConnectingWhileTheDumpLoads_getLoading_neverAPartOfTheDataset() throws Exception {
        int keys = 200_000;
        try (Server s = start(2); Jedis j = TestServers.jedis(s.port(), 2)) {
            redis.clients.jedis.Pipeline p = j.pipelined();
            for (int i = 0; i < keys; i++) p.set("k:" + i, "v" + i);
            p.sync();
            assertThat(j.save()).isEqualTo("OK");
        }
        int port = io.tide.testing.RealRedis.freePort();
        List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        // Connects again and again from before the server listens until it answers with every key.
        Thread prober = Thread.ofPlatform().start(() -> {
            while (!stop.get()) {
                try (Jedis c = new Jedis("127.0.0.1", port, 2000)) {
                    long n = c.dbSize();
                    seen.add(Long.toString(n));
                    if (n == keys) return;
                } catch (redis.clients.jedis.exceptions.JedisDataException e) {
                    seen.add(e.getMessage());
                } catch (redis.clients.jedis.exceptions.JedisConnectionException e) {
                    Thread.onSpinWait(); // not listening yet
                }
            }
        });
        try (Server s = start(2, "--port", Integer.toString(port))) {
            prober.join(20_000);
        } finally {
            stop.set(true);
            prober.join();
        }
        assertThat(seen).isNotEmpty().last().isEqualTo(Integer.toString(keys));
        assertThat(seen).allMatch(r -> r.equals(Integer.toString(keys)) || r.startsWith("LOADING"), "DBSIZE replies");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void save_thenRestart_loadsEveryType(int shards) throws Exception {
        try (Server s = start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            fill(j);
            long before = j.lastsave();
            assertThat(j.save()).isEqualTo("OK");
            assertThat(j.lastsave()).isGreaterThanOrEqualTo(before);
            assertThat(j.info("persistence")).contains("rdb_changes_since_last_save:0");
        }
        assertThat(dir.resolve("dump.rdb")).exists();
        try (Server s = start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            check(j);
            assertThat(j.dbSize()).isEqualTo(14);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void bgsave_thenRestart_loadsEveryType(int shards) throws Exception {
        try (Server s = start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            fill(j);
            assertThat(j.bgsave()).isEqualTo("Background saving started");
            awaitBgsave(j);
            assertThat(j.info("persistence")).contains("rdb_last_bgsave_status:ok");
        }
        try (Server s = start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            check(j);
        }
    }

    /**
     * The image is one instant: while a writer keeps overwriting keys with a new generation (and a cross-shard MSET
     * writes pairs), each key in the file has a whole value of one generation, the generations are those of one
     * point in the writer's sequence, each cross-shard pair agrees, and the table resizes under the walk (keys are
     * added while it runs).
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void bgsave_whileWritersOverwrite_isOneInstant(int shards) throws Exception {
        int keys = 50_000;
        try (Server s = start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            for (int i = 0; i < keys; i += 500) {
                String[] kv = new String[1000];
                for (int k = 0; k < 500; k++) {
                    kv[2 * k] = "k" + (i + k);
                    kv[2 * k + 1] = value(0, i + k);
                }
                j.mset(kv);
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> error = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                try (Jedis w = TestServers.jedis(s.port(), 2)) {
                    for (int gen = 1; !stop.get(); gen++) {
                        // A pass is one pipelined batch, so many passes happen while the shards walk their tables.
                        redis.clients.jedis.Pipeline p = w.pipelined();
                        for (int i = 0; i < keys; i += 499) p.set("k" + i, value(gen, i));
                        p.mset("{a}pair", "g" + gen, "{b}pair", "g" + gen);
                        p.set("grow" + gen, "x");
                        p.sync();
                    }
                } catch (Throwable t) {
                    error.set(t);
                }
            });
            writer.start();
            Thread.sleep(100);
            j.bgsave();
            awaitBgsave(j);
            stop.set(true);
            writer.join();
            assertThat(error.get()).isNull();
        }
        try (Server s = start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            for (int i = 0; i < keys; i++) {
                String v = j.get("k" + i);
                assertThat(v).as("k%d", i).isNotNull();
                String[] parts = v.split(":", -1);
                assertThat(parts).hasSize(3);
                assertThat(parts[1]).isEqualTo(Integer.toString(i));
                assertThat(v).isEqualTo(value(Integer.parseInt(parts[0]), i));
            }
            assertThat(j.get("{a}pair")).isEqualTo(j.get("{b}pair"));
            // One writer wrote the keys in this order, pass after pass: an image of one instant holds a prefix of
            // its writes, so along the order the generations never rise and span at most two passes.
            int previous = Integer.MAX_VALUE;
            int lowest = Integer.MAX_VALUE;
            int highest = 0;
            for (int i = 0; i < keys; i += 499) {
                int gen = Integer.parseInt(j.get("k" + i).split(":", -1)[0]);
                assertThat(gen).as("generation of k%d after a key of generation %d", i, previous)
                        .isLessThanOrEqualTo(previous);
                previous = gen;
                lowest = Math.min(lowest, gen);
                highest = Math.max(highest, gen);
            }
            assertThat(highest - lowest).isLessThanOrEqualTo(1);
            assertThat(highest).as("the writer ran during the save").isGreaterThan(0);
        }
    }

    /**
     * Strings past 1 KB changed where they lie (store.RawString: arrays with room to grow after the string) are saved
     * as the strings alone, and load back as they were.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void stringsChangedInPlace_saveAndLoadAsTheirText(int shards) throws Exception {
        Map<String, String> before = new HashMap<>();
        try (Server s = start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            for (int i = 0; i < 200; i++) {
                String key = "r" + i;
                switch (i % 4) {
                    case 0 -> { for (int a = 0; a < 10 + i; a++) j.append(key, "a" + a + "-".repeat(100)); }
                    case 1 -> { j.setrange(key, 1500 + i, "x"); j.setrange(key, 3, "in place"); }
                    case 2 -> { j.setbit(key, 20_000 + i, true); j.setbit(key, 5, true); }
                    default -> {
                        j.set(key, "s".repeat(2000));
                        j.sendCommand(redis.clients.jedis.Protocol.Command.BITFIELD, key, "SET", "u8", "#" + (3000 + i), "65");
                        j.append(key, "end");
                    }
                }
                before.put(key, j.get(key));
            }
            j.bgsave();
            awaitBgsave(j);
        }
        try (Server s = start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            for (Map.Entry<String, String> e : before.entrySet()) {
                assertThat(j.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
            }
        }
    }

    private static String value(int gen, int i) {
        return gen + ":" + i + ":" + "p".repeat(i % 50);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void savePoint_firesAfterEnoughChanges(int shards) throws Exception {
        try (Server s = start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.configSet("save", "1 3");
            long before = j.lastsave();
            for (int i = 0; i < 5; i++) j.set("key" + i, "v");
            long deadline = System.currentTimeMillis() + 10_000;
            while (j.lastsave() == before && System.currentTimeMillis() < deadline) Thread.sleep(50);
            assertThat(j.lastsave()).isGreaterThan(before);
            assertThat(dir.resolve("dump.rdb")).exists();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void shutdownSave_writesTheFile_andNosaveDoesNot(int shards) throws Exception {
        Server s = start(shards, "--save", "3600 1");
        try (Jedis j = TestServers.jedis(s.port(), 2)) {
            j.set("a", "1");
            j.sendCommand(redis.clients.jedis.Protocol.Command.SHUTDOWN, "NOSAVE");
        } catch (Exception expected) {
            // the connection closes
        }
        s.awaitTermination();
        assertThat(dir.resolve("dump.rdb")).doesNotExist();
        s = start(shards);
        try (Jedis j = TestServers.jedis(s.port(), 2)) {
            j.set("b", "2");
            j.sendCommand(redis.clients.jedis.Protocol.Command.SHUTDOWN, "SAVE");
        } catch (Exception expected) {
            // the connection closes
        }
        s.awaitTermination();
        try (Server t = start(shards); Jedis j = TestServers.jedis(t.port(), 2)) {
            assertThat(j.get("b")).isEqualTo("2");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void closeWithSavePoints_saves(int shards) throws Exception {
        try (Server s = start(shards, "--save", "3600 1"); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.set("a", "1");
        }
        try (Server s = start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.get("a")).isEqualTo("1");
        }
    }

    @org.junit.jupiter.api.Test
    void corruptFile_isAStartupFailure_truncatedToo() throws Exception {
        try (Server s = start(1); Jedis j = TestServers.jedis(s.port(), 2)) {
            fill(j);
            j.save();
        }
        Path f = dir.resolve("dump.rdb");
        byte[] b = Files.readAllBytes(f);
        byte[] flipped = b.clone();
        flipped[b.length / 2] ^= 0x40;
        Files.write(f, flipped);
        assertThatThrownBy(() -> start(1)).hasMessageContaining("dump.rdb");
        Files.write(f, java.util.Arrays.copyOf(b, b.length - 20));
        assertThatThrownBy(() -> start(1)).hasMessageContaining("dump.rdb");
    }

    @org.junit.jupiter.api.Test
    void bgsaveTwice_answersInProgress() throws Exception {
        try (Server s = start(1); Jedis j = TestServers.jedis(s.port(), 2)) {
            for (int i = 0; i < 200_000; i += 1000) {
                String[] kv = new String[2000];
                for (int k = 0; k < 1000; k++) {
                    kv[2 * k] = "k" + (i + k);
                    kv[2 * k + 1] = "v".repeat(100);
                }
                j.mset(kv);
            }
            j.bgsave();
            try {
                j.bgsave();
            } catch (redis.clients.jedis.exceptions.JedisDataException e) {
                assertThat(e.getMessage()).isEqualTo("ERR Background save already in progress");
            }
            awaitBgsave(j);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void flushall_withSavePoints_writesTheEmptyDataset(int shards) throws Exception {
        try (Server s = start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.set("a", "1");
            j.save();
            j.configSet("save", "3600 1");
            j.flushAll();
            assertThat(j.info("persistence")).contains("rdb_saves:2", "rdb_changes_since_last_save:0");
            j.configSet("save", ""); // so that closing saves nothing: the file must already be the empty one
        }
        try (Server s = start(shards); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.dbSize()).isZero();
        }
    }

    /** A file Tide's BGSAVE wrote (chunks of 4 shards, RESIZEDB hints up front) passes redis-check-rdb and loads in Redis. */
    @org.junit.jupiter.api.Test
    void bgsaveFile_passesRedisCheckRdb_andLoadsInRedis() throws Exception {
        try (Server s = start(4); Jedis j = TestServers.jedis(s.port(), 2)) {
            fill(j);
            for (int i = 0; i < 5000; i++) j.set("many" + i, "v" + i);
            j.bgsave();
            awaitBgsave(j);
        }
        Path f = dir.resolve("dump.rdb");
        if (!Files.isExecutable(Path.of("/usr/bin/redis-check-rdb")) && !"true".equals(System.getenv("CI"))) {
            org.junit.jupiter.api.Assumptions.abort("redis-check-rdb is not installed (redis-tools)");
        }
        Process p = new ProcessBuilder("/usr/bin/redis-check-rdb", f.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains("RDB looks OK");
        try (io.tide.testing.RealRedis real = io.tide.testing.RealRedis.startWithFile(dir, "dump.rdb");
             Jedis r = new Jedis("127.0.0.1", real.port())) {
            check(r);
            assertThat(r.dbSize()).isEqualTo(14 + 5000);
            assertThat(r.get("many4999")).isEqualTo("v4999");
        }
    }

    @org.junit.jupiter.api.Test
    void bgsave_compressesLongStrings_underRdbcompression_andRedisReadsThem() throws Exception {
        // The shards write strings plain and the writer thread compresses them: a writer that skipped that would still
        // make a valid file, only a larger one.
        Path f = dir.resolve("dump.rdb");
        long compressed;
        try (Server s = start(2); Jedis j = TestServers.jedis(s.port(), 2)) {
            for (int i = 0; i < 2000; i++) j.set("z" + i, "compressible:".repeat(80) + i); // 1,044-1,047 bytes each
            j.bgsave();
            awaitBgsave(j);
            compressed = Files.size(f);
            j.configSet("rdbcompression", "no");
            j.bgsave();
            awaitBgsave(j);
            assertThat(Files.size(f)).isGreaterThan(2000L * 1044);
            j.configSet("rdbcompression", "yes");
            j.bgsave();
            awaitBgsave(j);
            assertThat(Files.size(f)).isEqualTo(compressed);
        }
        assertThat(compressed).isLessThan(2000L * 1044 / 10);
        try (io.tide.testing.RealRedis real = io.tide.testing.RealRedis.startWithFile(dir, "dump.rdb");
             Jedis r = new Jedis("127.0.0.1", real.port())) {
            assertThat(r.dbSize()).isEqualTo(2000);
            assertThat(r.get("z1999")).isEqualTo("compressible:".repeat(80) + 1999);
            assertThat(r.get("z7")).isEqualTo("compressible:".repeat(80) + 7);
        }
    }

    @org.junit.jupiter.api.Test
    void tempFilesOfAnInterruptedSave_areRemovedAtStartup_neverLoaded() throws Exception {
        Path temp = dir.resolve("temp-12345-67.rdb");
        Files.write(temp, "REDIS0010 half a file".getBytes());
        try (Server s = start(1); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.dbSize()).isZero();
        }
        assertThat(temp).doesNotExist();
    }

    static void awaitBgsave(Jedis j) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (j.info("persistence").contains("rdb_bgsave_in_progress:1") && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertThat(j.info("persistence")).contains("rdb_bgsave_in_progress:0");
    }
}
