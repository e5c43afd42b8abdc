package io.tide.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.Datasets;
import io.tide.testing.RandomCommands;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.ServerProcess;
import io.tide.testing.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Jedis;

/**
 * A differential fuzz of what a restart keeps: seeded random commands (those of {@link RandomCommands}, with the ones
 * whose recorded form is not their text weighed up) go to a tide-server process with an AOF under {@code appendfsync
 * always} (in one variant rewritten halfway) or with only an RDB snapshot taken by SAVE at the end; the process is
 * killed with SIGKILL, and a server started on its directory must hold exactly the data the killed one answered with
 * (every key of databases 0 and 1: type, absolute expiry, content).
 */
class PersistenceFuzzTest {

    /** Per seed; {@code -Dtide.fuzz.commands=N} on the bin/test command line for longer runs. */
    private static final int COMMANDS = Integer.getInteger("tide.fuzz.commands", 2500);
    /** Seeds per case; {@code -Dtide.fuzz.seeds=N}, and {@code -Dtide.fuzz.first=S} to start elsewhere. */
    private static final int SEEDS = Integer.getInteger("tide.fuzz.seeds", 1);
    private static final int FIRST = Integer.getInteger("tide.fuzz.first", 1);

    @ParameterizedTest(name = "{0} shards, {1}")
    @CsvSource({"1, aof", "2, aof", "1, aof-rewrite", "2, aof-rewrite", "1, rdb", "2, rdb"})
    void aRestartKeepsTheDataset_afterRandomCommands(int shards, String mode) throws Exception {
        for (int seed = FIRST; seed < FIRST + SEEDS; seed++) {
            Path dir = Files.createTempDirectory("tide-persistence-fuzz");
            List<String> args = new ArrayList<>(List.of("--dir", dir.toString(), "--save", ""));
            if (mode.startsWith("aof")) args.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
            Map<String, String> db0;
            Map<String, String> db1;
            Random rnd = new Random(shards * 100 + seed * 10 + mode.length());
            List<String> recent = new ArrayList<>();
            int port = RealRedis.freePort();
            List<String> childArgs = new ArrayList<>(List.of("--shards", Integer.toString(shards), "--loglevel",
                    "warning"));
            childArgs.addAll(args);
            Process child = ServerProcess.start(dir, dir.resolve("tide.log"), port, childArgs.toArray(String[]::new));
            try (RawClient t = new RawClient(port);
                 Jedis j = TestServers.jedis(port, 2)) {
                RandomCommands rc = new RandomCommands(rnd);
                List<Supplier<String[]>> gen = rc.withEffects();
                for (int i = 1; i <= COMMANDS; i++) {
                    String[] cmd = gen.get(rnd.nextInt(gen.size())).get();
                    t.call(cmd);
                    recent.add(String.join(" ", cmd));
                    if (recent.size() > 30) recent.remove(0);
                    if (i == COMMANDS / 2 && mode.equals("aof-rewrite")) {
                        // The rewrite's base plus what follows it in the new increment must give the same data.
                        assertThat(j.bgrewriteaof()).contains("rewriting");
                        waitForRewrite(j);
                    }
                }
                for (String[] end : new String[][] {{"DISCARD"}, {"UNWATCH"}}) t.call(end); // an open MULTI
                if (mode.equals("rdb")) assertThat(j.save()).isEqualTo("OK");
                db0 = dumpOf(j, 0);
                db1 = dumpOf(j, 1);
            } finally {
                child.destroyForcibly(); // SIGKILL: no shutdown hook, no final flush
                child.waitFor();
            }
            try (Server again = TestServers.start(shards, args.toArray(String[]::new));
                 Jedis j = TestServers.jedis(again.port(), 2)) {
                String where = "seed " + (shards * 100 + seed * 10 + mode.length()) + ", the last commands: " + recent;
                assertThat(dumpOf(j, 0)).as("database 0 after the restart, %s", where).isEqualTo(db0);
                assertThat(dumpOf(j, 1)).as("database 1 after the restart, %s", where).isEqualTo(db1);
            }
        }
    }

    private static Map<String, String> dumpOf(Jedis j, int db) {
        j.select(db);
        Map<String, String> d = Datasets.dump(j);
        j.select(0);
        return d;
    }

    private static void waitForRewrite(Jedis j) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (true) {
            String info = j.info("persistence");
            if (info.contains("aof_rewrite_in_progress:0") && !info.contains("aof_rewrite_scheduled:1")) return;
            assertThat(System.nanoTime()).as("the AOF rewrite to finish").isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
