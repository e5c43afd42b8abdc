package io.tide.replication;

import static io.tide.replication.RedisReplicaOfTideTest.await;
import static io.tide.replication.RedisReplicaOfTideTest.awaitLinkUp;
import static io.tide.replication.RedisReplicaOfTideTest.field;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisSentinelPool;

/**
 * Redis Sentinel 7 (redis-server --sentinel) manages Tide: a Tide primary with two Tide replicas; the primary stops;
 * Sentinel promotes a replica (REPLICAOF NO ONE), points the other at it, and a Jedis Sentinel pool follows; no
 * write acknowledged with WAIT 1 is lost.
 */
class SentinelFailoverTest {

    /** {@code f} on a new connection to {@code port}; null when the connection fails. */
    private static Object fresh(int port, java.util.function.Function<Jedis, Object> f) {
        try (Jedis j = TestServers.jedis(port, 2)) {
            return f.apply(j);
        } catch (redis.clients.jedis.exceptions.JedisConnectionException e) {
            return null;
        }
    }

    @Test
    void sentinelPromotesATideReplica_andClientsFollow() throws Exception {
        String bin = RealRedis.binary();
        if (bin == null) Assumptions.abort("redis-server is not installed");
        Path dir = Files.createTempDirectory("tide-sentinel");
        Server primary = TestServers.start(2, "--repl-diskless-sync-delay", "0");
        Process sentinel = null;
        try (Server a = TestServers.start(2, "--repl-diskless-sync-delay", "0", "--replicaof", "127.0.0.1 " + primary.port());
             Server b = TestServers.start(2, "--repl-diskless-sync-delay", "0", "--replicaof", "127.0.0.1 " + primary.port());
             Jedis ja = TestServers.jedis(a.port(), 2);
             Jedis jb = TestServers.jedis(b.port(), 2)) {
            awaitLinkUp(ja);
            awaitLinkUp(jb);
            int sport = RealRedis.freePort();
            Files.writeString(dir.resolve("sentinel.conf"), String.join("\n",
                    "port " + sport, "bind 127.0.0.1", "dir " + dir,
                    "sentinel monitor mymaster 127.0.0.1 " + primary.port() + " 1",
                    // 3 s, not 1: three in-process servers on a loaded 2-core CI machine can miss a second of PINGs,
                    // and a second failover (of the promoted replica) would move the primary under the test.
                    "sentinel down-after-milliseconds mymaster 3000",
                    "sentinel failover-timeout mymaster 5000", ""));
            sentinel = new ProcessBuilder(bin, dir.resolve("sentinel.conf").toString(), "--sentinel")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("sentinel.log").toFile()).start();
            Process s = sentinel;
            await("sentinel to see both replicas", 20_000, () -> {
                try (Jedis sj = new Jedis("127.0.0.1", sport, 1000)) {
                    List<Map<String, String>> reps = sj.sentinelReplicas("mymaster");
                    return reps.size() == 2 && reps.stream().allMatch(r -> r.get("flags").equals("slave"));
                } catch (Exception e) {
                    return false;
                }
            });
            Map<String, String> acked = new ConcurrentHashMap<>();
            try (JedisSentinelPool pool = new JedisSentinelPool("mymaster", Set.of("127.0.0.1:" + sport))) {
                try (Jedis w = pool.getResource()) {
                    for (int i = 0; i < 200; i++) {
                        w.set("k" + i, "v" + i);
                        if (w.waitReplicas(1, 0) >= 1) acked.put("k" + i, "v" + i);
                    }
                }
                int oldPort = primary.port();
                primary.close(); // the primary is gone (its port refuses connections)
                await("the failover", 30_000, () -> {
                    try (Jedis sj = new Jedis("127.0.0.1", sport, 1000)) {
                        int p = Integer.parseInt(sj.sentinelGetMasterAddrByName("mymaster").get(1));
                        return p == a.port() || p == b.port();
                    } catch (Exception e) {
                        return false;
                    }
                });
                boolean isA;
                try (Jedis sj = new Jedis("127.0.0.1", sport, 1000)) {
                    isA = Integer.parseInt(sj.sentinelGetMasterAddrByName("mymaster").get(1)) == a.port();
                }
                // Sentinel's CLIENT KILL TYPE normal closes client connections of the servers it reconfigures: every
                // check below opens its own.
                int promotedPort = isA ? a.port() : b.port();
                int otherPort = isA ? b.port() : a.port();
                await("the promotion", 10_000, () -> "master".equals(fresh(promotedPort, j -> j.role().get(0))));
                assertEquals(200, acked.size());
                // Sentinel points the other replica at the new primary.
                await("the other replica to follow the new primary", 30_000, () -> Boolean.TRUE.equals(fresh(otherPort,
                        j -> Integer.toString(promotedPort).equals(field(j, "replication", "master_port"))
                                && "up".equals(field(j, "replication", "master_link_status")))));
                Jedis promoted = TestServers.jedis(promotedPort, 2);
                Jedis other = TestServers.jedis(otherPort, 2);
                for (Map.Entry<String, String> e : acked.entrySet()) assertEquals(e.getValue(), promoted.get(e.getKey()));
                // The pool follows the switch.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (true) {
                    try (Jedis w = pool.getResource()) {
                        w.set("after", "failover");
                        assertEquals(1, w.waitReplicas(1, 5000));
                        break;
                    } catch (redis.clients.jedis.exceptions.JedisException e) {
                        if (System.nanoTime() > deadline) throw e;
                        Thread.sleep(100);
                    }
                }
                assertEquals("failover", promoted.get("after"));
                await("the write on the other replica", 5000, () -> "failover".equals(fresh(otherPort, j -> j.get("after"))));
                promoted.close();
                other.close();
                // The old primary comes back on its port: Sentinel makes it a replica of the new one.
                Path oldDir = Files.createTempDirectory("tide-old-primary");
                try (Server rejoined = io.tide.Tide.start(new String[] {"--port", Integer.toString(oldPort), "--shards",
                        "2", "--dir", oldDir.toString(), "--loglevel", "warning"})) {
                    // Sentinel converts it once it has seen it up again (its INFO period, 10 s), then it syncs.
                    try {
                        await("the old primary to rejoin as a replica", 60_000, () -> Boolean.TRUE.equals(fresh(oldPort,
                                j -> Integer.toString(promotedPort).equals(field(j, "replication", "master_port"))
                                        && "up".equals(field(j, "replication", "master_link_status")))));
                    } catch (AssertionError e) {
                        throw new AssertionError(e.getMessage() + "; its INFO replication: "
                                + fresh(oldPort, j -> j.info("replication")) + "; sentinel log: "
                                + Files.readString(dir.resolve("sentinel.log")), e);
                    }
                    assertEquals("failover", fresh(oldPort, j -> j.get("after")));
                }
            }
            assertTrue(s.isAlive());
        } finally {
            primary.close();
            if (sentinel != null) {
                sentinel.destroy();
                if (!sentinel.waitFor(5, TimeUnit.SECONDS)) sentinel.destroyForcibly().waitFor();
            }
        }
    }

    @Test
    void threeSentinels_failOverASigkilledTidePrimary_withoutLosingWaitAcknowledgedWrites() throws Exception {
        String bin = RealRedis.binary();
        if (bin == null) Assumptions.abort("redis-server is not installed");
        Path dir = Files.createTempDirectory("tide-sentinels");
        int primaryPort = RealRedis.freePort();
        Process primary = WaitFailoverTest.launchPrimary(dir, primaryPort);
        List<Process> sentinels = new java.util.ArrayList<>();
        try (Server a = TestServers.start(2, "--repl-diskless-sync-delay", "0", "--replicaof", "127.0.0.1 " + primaryPort);
             Server b = TestServers.start(2, "--repl-diskless-sync-delay", "0", "--replicaof", "127.0.0.1 " + primaryPort);
             Jedis ja = TestServers.jedis(a.port(), 2);
             Jedis jb = TestServers.jedis(b.port(), 2)) {
            awaitLinkUp(ja);
            awaitLinkUp(jb);
            Set<String> addrs = new java.util.HashSet<>();
            for (int i = 0; i < 3; i++) {
                int sport = RealRedis.freePort();
                Path sd = Files.createDirectories(dir.resolve("s" + i));
                Files.writeString(sd.resolve("sentinel.conf"), String.join("\n",
                        "port " + sport, "bind 127.0.0.1", "dir " + sd,
                        "sentinel monitor mymaster 127.0.0.1 " + primaryPort + " 2",
                        "sentinel down-after-milliseconds mymaster 1000",
                        "sentinel failover-timeout mymaster 5000", ""));
                sentinels.add(new ProcessBuilder(bin, sd.resolve("sentinel.conf").toString(), "--sentinel")
                        .redirectErrorStream(true).redirectOutput(sd.resolve("sentinel.log").toFile()).start());
                addrs.add("127.0.0.1:" + sport);
            }
            int firstSentinel = Integer.parseInt(addrs.iterator().next().split(":")[1]);
            // The sentinels find each other through the __sentinel__:hello channel on the Tide servers.
            await("the sentinels to know the replicas and each other", 30_000, () -> {
                try (Jedis sj = new Jedis("127.0.0.1", firstSentinel, 1000)) {
                    return sj.sentinelReplicas("mymaster").size() == 2 && sj.sentinelSentinels("mymaster").size() == 2;
                } catch (Exception e) {
                    return false;
                }
            });
            Map<String, String> acked = new ConcurrentHashMap<>();
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            try (JedisSentinelPool pool = new JedisSentinelPool("mymaster", addrs)) {
                Thread writer = new Thread(() -> {
                    for (int n = 0; n < 100_000; n++) {
                        try (Jedis w = pool.getResource()) {
                            w.set("w" + n, "v" + n);
                            if (w.waitReplicas(1, 0) >= 1) acked.put("w" + n, "v" + n);
                            if (stop.get()) return;
                        } catch (redis.clients.jedis.exceptions.JedisException e) {
                            try {
                                Thread.sleep(50); // the primary is gone: the pool moves on after the failover
                            } catch (InterruptedException ie) {
                                return;
                            }
                        }
                    }
                });
                writer.start();
                Thread.sleep(500);
                primary.destroyForcibly(); // SIGKILL
                primary.waitFor();
                await("the failover", 30_000, () -> {
                    try (Jedis sj = new Jedis("127.0.0.1", firstSentinel, 1000)) {
                        int p = Integer.parseInt(sj.sentinelGetMasterAddrByName("mymaster").get(1));
                        return p == a.port() || p == b.port();
                    } catch (Exception e) {
                        return false;
                    }
                });
                int before = acked.size();
                await("writes through the pool to the new primary", 30_000, () -> acked.size() > before + 20);
                stop.set(true);
                writer.join(10_000);
                int promotedPort;
                try (Jedis sj = new Jedis("127.0.0.1", firstSentinel, 1000)) {
                    promotedPort = Integer.parseInt(sj.sentinelGetMasterAddrByName("mymaster").get(1));
                }
                for (Map.Entry<String, String> e : acked.entrySet()) {
                    assertEquals(e.getValue(), fresh(promotedPort, j -> j.get(e.getKey())), "acknowledged " + e.getKey());
                }
            }
        } finally {
            primary.destroyForcibly();
            for (Process p : sentinels) {
                p.destroy();
                if (!p.waitFor(5, TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
            }
        }
    }
}
