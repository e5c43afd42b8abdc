package io.tide.persistence.aof;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.persistence.aof.LoadPlan.AofCommand;
import io.tide.persistence.aof.LoadPlan.BaseFormat;
import io.tide.testing.RealRedis;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.params.SetParams;

/** Directories written by a real redis-server 7 load in Tide, and a one-shard Tide directory loads in Redis. */
class AofVsRedisTest {

    /**
     * Waits until redis-server serves commands: it accepts connections before it starts loading, so INFO's loading:0
     * can come before the load (a command then got -LOADING); a command refused while loading is what is waited out.
     */
    private static void awaitLoaded(Jedis j) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            try {
                j.dbSize(); // not allowed while loading
                if (j.info("persistence").contains("loading:0")) return;
            } catch (redis.clients.jedis.exceptions.JedisDataException e) {
                if (!e.getMessage().startsWith("LOADING")) throw e;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("redis-server did not finish loading");
    }

    private static void awaitRewrite(Jedis j) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            String info = j.info("persistence");
            if (info.contains("aof_rewrite_in_progress:0") && info.contains("aof_rewrite_scheduled:0")) return;
            Thread.sleep(20);
        }
        throw new AssertionError("BGREWRITEAOF did not finish");
    }

    @Test
    void redis7Directory_withBaseAndIncr_replaysTheSameCommands() throws Exception {
        try (RealRedis redis = RealRedis.startWith("--appendonly", "yes", "--appenddirname", "d",
                "--appendfsync", "always")) {
            try (Jedis j = new Jedis("127.0.0.1", redis.port())) {
                j.set("before", "rewrite");
                j.rpush("oldlist", "1", "2");
                j.bgrewriteaof();
                awaitRewrite(j);
                j.set("a", "1");
                j.set("e", "v", SetParams.setParams().ex(100));
                j.rpush("l", "x", "y");
                j.hset("h", "f", "v");
                Transaction t = j.multi();
                t.incr("n");
                t.set("b", "2");
                t.exec();
                j.del("missing");
                j.select(3);
                j.set("c", "3");
                j.select(0);
                j.set("z", "last");
            }
            redis.stop();

            LoadPlan plan = AofLoader.load(redis.dir(), "d", "appendonly.aof", false).orElseThrow();
            assertThat(plan.baseFormat()).isEqualTo(BaseFormat.RDB);
            assertThat(plan.baseFile().getFileName().toString()).isEqualTo("appendonly.aof.2.base.rdb");
            assertThat(Files.readAllBytes(plan.baseFile())).startsWith("REDIS".getBytes(StandardCharsets.US_ASCII));
            assertThat(plan.shards()).isEqualTo(1);
            assertThat(plan.files(0)).extracting(p -> p.getFileName().toString())
                    .containsExactly("appendonly.aof.2.incr.aof");
            List<String> got = plan.commandList(0).stream().map(AofCommand::toString).toList();
            assertThat(got).as(got.toString()).hasSize(8);
            assertThat(got.subList(0, 1)).containsExactly("0: SET a 1");
            assertThat(got.get(1)).matches("0: SET e v PXAT \\d{13}");
            assertThat(got.subList(2, 8)).containsExactly("0: RPUSH l x y", "0: HSET h f v", "0: INCR n",
                    "0: SET b 2", "3: SET c 3", "0: SET z last");
        }
    }

    @Test
    void oneShardTideDirectory_loadsInRedis(@TempDir Path dir) throws Exception {
        Path aofDir = Files.createDirectories(dir.resolve("t"));
        AofManifest m = AofManifest.empty("appendonly.aof").withNewIncr(0);
        m.write(aofDir);
        try (AofFsync fsync = new AofFsync(2000);
             AofWriter w = new AofWriter(aofDir.resolve(m.lastIncr(0).name()), AofWriter.FsyncPolicy.ALWAYS,
                     true, fsync, Runnable::run)) {
            w.appendCommand(0, argv("SET", "k", "v"));
            w.appendGroup(1, 1, 2, List.of(argv("SET", "g", "1"), argv("RPUSH", "gl", "a", "b")));
            w.appendCommand(0, argv("INCR", "n"));
        }
        try (RealRedis redis = RealRedis.startWith("--appendonly", "yes", "--appenddirname", "t",
                "--dir", dir.toString());
             Jedis j = new Jedis("127.0.0.1", redis.port())) {
            awaitLoaded(j);
            assertThat(j.get("k")).isEqualTo("v");
            assertThat(j.get("n")).isEqualTo("1");
            j.select(2);
            assertThat(j.get("g")).isEqualTo("1");
            assertThat(j.lrange("gl", 0, -1)).containsExactly("a", "b");
        }
    }

    @Test
    void tornTails_areCutWhereRedisCutsThem(@TempDir Path tmp) throws Exception {
        String good = "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n";
        String[] tails = {
                "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$5\r\nab",                                   // short bulk
                "*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n",            // no EXEC
                "#TS:1700000000\r\n*2\r\n$3\r\nDEL",                                            // torn after #TS
        };
        for (int i = 0; i < tails.length; i++) {
            Path redisDir = Files.createDirectories(tmp.resolve("redis" + i));
            Path tideDir = Files.createDirectories(tmp.resolve("tide" + i));
            for (Path d : List.of(redisDir, tideDir)) {
                Path aof = Files.createDirectories(d.resolve("t"));
                AofManifest m = AofManifest.empty("appendonly.aof").withNewIncr(0);
                m.write(aof);
                Files.writeString(aof.resolve(m.lastIncr(0).name()), good + tails[i], StandardCharsets.ISO_8859_1);
            }
            try (RealRedis redis = RealRedis.startWith("--appendonly", "yes", "--appenddirname", "t",
                    "--aof-load-truncated", "yes", "--dir", redisDir.toString());
                 Jedis j = new Jedis("127.0.0.1", redis.port())) {
                awaitLoaded(j);
                assertThat(j.get("a")).isEqualTo("1");
                assertThat(j.get("b")).isNull();
            }
            LoadPlan plan = AofLoader.load(tideDir, "t", "appendonly.aof", true).orElseThrow();
            assertThat(plan.commands(0)).isEqualTo(1);
            long redisLen = Files.size(redisDir.resolve("t/appendonly.aof.1.incr.aof"));
            long tideLen = Files.size(tideDir.resolve("t/appendonly.aof.1.incr.aof"));
            assertThat(tideLen).as("tail " + i).isEqualTo(redisLen);
        }
    }

    private static byte[][] argv(String... words) {
        byte[][] a = new byte[words.length][];
        for (int i = 0; i < words.length; i++) a[i] = words[i].getBytes(StandardCharsets.UTF_8);
        return a;
    }
}
