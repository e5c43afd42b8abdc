package io.tide.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.Datasets;
import io.tide.testing.RandomCommands;
import io.tide.testing.RawClient;
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
 * whose recorded form is not their text weighed up) go to a server with an AOF (and, in the second half, an AOF
 * rewrite in the middle) or with only an RDB snapshot taken by SAVE; the server restarts from its directory and must
 * hold exactly the data it held before (every key of databases 0 and 1: type, absolute expiry, content).
 */
class PersistenceFuzzTest {

    private static final int COMMANDS = 1500;

    @ParameterizedTest(name = "{0} shards, {1}")
    @CsvSource({"1, aof", "2, aof", "1, aof-rewrite", "2, aof-rewrite", "1, rdb", "2, rdb"})
    void aRestartKeepsTheDataset_afterRandomCommands(int shards, String mode) throws Exception {
        for (int seed = 1; seed <= 2; seed++) {
            Path dir = Files.createTempDirectory("tide-persistence-fuzz");
            List<String> args = new ArrayList<>(List.of("--dir", dir.toString(), "--save", ""));
            if (mode.startsWith("aof")) args.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
            Map<String, String> db0;
            Map<String, String> db1;
            Random rnd = new Random(shards * 100 + seed * 10 + mode.length());
            List<String> recent = new ArrayList<>();
            try (Server tide = TestServers.start(shards, args.toArray(String[]::new));
                 RawClient t = new RawClient(tide.port());
                 Jedis j = TestServers.jedis(tide.port(), 2)) {
                RandomCommands rc = new RandomCommands(rnd);
                List<Supplier<String[]>> gen = new ArrayList<>(rc.commands());
                List<Supplier<String[]>> effects = rc.effects();
                for (int w = 0; w < 3; w++) gen.addAll(effects);
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
