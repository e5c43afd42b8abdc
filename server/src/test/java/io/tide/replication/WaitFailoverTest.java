package io.tide.replication;

import static io.tide.replication.RedisReplicaOfTideTest.awaitLinkUp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.ServerProcess;
import io.tide.testing.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A write acknowledged by {@code WAIT 1 0} survives a {@code kill -9} of the primary (a tide-server process) and the
 * promotion of its replica (an embedded Tide) with REPLICAOF NO ONE, cycle after cycle.
 */
class WaitFailoverTest {

    static Process launchPrimary(Path dir, int port) throws Exception {
        return ServerProcess.start(dir, dir.resolve("primary.log"), port, "--dir", dir.toString(), "--save", "",
                "--shards", "2", "--repl-diskless-sync-delay", "0");
    }

    @Test
    void writesAcknowledgedByWait_surviveKill9AndPromotion() throws Exception {
        for (int cycle = 0; cycle < 3; cycle++) {
            Path dir = Files.createTempDirectory("tide-failover");
            int port = RealRedis.freePort();
            Process primary = launchPrimary(dir, port);
            try (Server replica = TestServers.start(2, "--replicaof", "127.0.0.1 " + port);
                 Jedis r = TestServers.jedis(replica.port(), 2)) {
                awaitLinkUp(r);
                Map<String, String> acked = new ConcurrentHashMap<>();
                List<Thread> writers = new ArrayList<>();
                for (int w = 0; w < 3; w++) {
                    int id = w;
                    Thread t = new Thread(() -> {
                        try (Jedis j = new Jedis("127.0.0.1", port, 10_000)) {
                            for (int n = 0; ; n++) {
                                String k = "c" + id + ":" + n;
                                j.set(k, "v" + n);
                                if (n % 5 == 4) j.mset(k + "a", "x", k + "b", "y"); // cross-shard too
                                if (j.waitReplicas(1, 0) >= 1) {
                                    acked.put(k, "v" + n);
                                    if (n % 5 == 4) {
                                        acked.put(k + "a", "x");
                                        acked.put(k + "b", "y");
                                    }
                                }
                            }
                        } catch (JedisException e) {
                            // the primary is gone
                        }
                    });
                    t.start();
                    writers.add(t);
                }
                Thread.sleep(700 + cycle * 300);
                primary.destroyForcibly(); // SIGKILL
                primary.waitFor();
                for (Thread t : writers) t.join(20_000);
                assertEquals("OK", r.replicaofNoOne());
                assertTrue(acked.size() > 10, "too few writes acknowledged: " + acked.size());
                for (Map.Entry<String, String> e : acked.entrySet()) {
                    assertEquals(e.getValue(), r.get(e.getKey()), "cycle " + cycle + ": acknowledged " + e.getKey());
                }
                assertEquals("OK", r.set("after-promotion", "1"));
            } finally {
                primary.destroyForcibly();
                primary.waitFor();
            }
        }
    }
}
