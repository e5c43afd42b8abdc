package io.tide.replication;

import static io.tide.replication.RedisReplicaOfTideTest.assertSameData;
import static io.tide.replication.RedisReplicaOfTideTest.await;
import static io.tide.replication.RedisReplicaOfTideTest.awaitLinkUp;
import static io.tide.replication.RedisReplicaOfTideTest.field;
import static io.tide.replication.RedisReplicaOfTideTest.mixedWrites;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/** Tide as a replica: of a real redis-server 7 (disk-less and disk-based full sync) and of another Tide. */
class TideReplicaTest {

    /** Waits until the replica's applied offset equals the primary's, after the primary expired its short keys. */
    private static void awaitApplied(Jedis primary, Jedis replica) throws InterruptedException {
        RedisReplicaOfTideTest.expireShortKeys(primary); // expired: the DELs are streamed
        await("the replica to apply the stream", 20_000, () -> {
            String off = field(primary, "replication", "master_repl_offset");
            return off != null && off.equals(field(replica, "replication", "master_repl_offset"));
        });
    }

    @ParameterizedTest(name = "diskless={0}")
    @ValueSource(strings = {"yes", "no"})
    void tideReplicaOfRedis_followsEveryWrite_andIsReadOnly(String diskless) throws Exception {
        try (RealRedis redis = RealRedis.startWith("--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0");
             Jedis p = TestServers.jedis(redis.port(), 2)) {
            for (int round = 0; round < 3; round++) mixedWrites(p, round);
            try (Server tide = TestServers.start(4, "--replicaof", "127.0.0.1 " + redis.port());
                 Jedis t = TestServers.jedis(tide.port(), 2)) {
                awaitLinkUp(t);
                for (int round = 3; round < 8; round++) mixedWrites(p, round);
                awaitApplied(p, t);
                assertEquals(1, p.waitReplicas(1, 10_000)); // Tide's REPLCONF ACKs count
                assertSameData(p, t);
                JedisDataException e = assertThrows(JedisDataException.class, () -> t.set("k", "v"));
                assertEquals("READONLY You can't write against a read only replica.", e.getMessage());
                e = assertThrows(JedisDataException.class, () -> t.eval("return redis.call('set','k','v')", 0));
                assertTrue(e.getMessage().startsWith("READONLY You can't write against a read only replica. script: "),
                        e.getMessage());
                assertEquals(null, t.eval("return redis.call('get','nosuch')", 0)); // reads are fine
                assertEquals("slave", field(t, "replication", "role"));
                assertEquals(field(p, "replication", "master_replid"), field(t, "replication", "master_replid"));
                List<Object> role = t.role();
                assertEquals(List.of("slave", "127.0.0.1", (long) redis.port(), "connected"), role.subList(0, 4));
                assertEquals("OK", t.replicaofNoOne());
                assertEquals("OK", t.set("k", "v")); // a primary now
                assertEquals("master", field(t, "replication", "role"));
            }
        }
    }

    /** replica-lazy-flush: the replica's old keys go to the lazy-free thread before the image loads (counted there). */
    @ParameterizedTest(name = "replica-lazy-flush={0}")
    @ValueSource(strings = {"yes", "no"})
    void fullSync_emptiesTheOldDataset_lazilyUnderReplicaLazyFlush(String lazy) throws Exception {
        try (Server primary = TestServers.start(1, "--repl-diskless-sync-delay", "0");
             Server replica = TestServers.start(2, "--replica-lazy-flush", lazy);
             Jedis p = TestServers.jedis(primary.port(), 2);
             Jedis r = TestServers.jedis(replica.port(), 2)) {
            p.set("from-primary", "1");
            for (int i = 0; i < 500; i++) r.set("old:" + i, "v");
            long before = Long.parseLong(field(r, "memory", "lazyfreed_objects"));
            assertEquals("OK", r.replicaof("127.0.0.1", primary.port()));
            awaitLinkUp(r);
            assertEquals(1L, r.dbSize());
            assertEquals("1", r.get("from-primary"));
            await("the lazy free", 5000, () -> Long.parseLong(field(r, "memory", "lazyfreed_objects")) > before
                    || lazy.equals("no"));
            long freed = Long.parseLong(field(r, "memory", "lazyfreed_objects")) - before;
            assertEquals(lazy.equals("yes") ? 500L : 0L, freed);
        }
    }

    /** INFO total_net_repl_output/input_bytes count the stream on both sides; total_net_output_bytes leaves it out. */
    @Test
    void theReplicationThreadStartsWithTheFirstReplica() throws Exception {
        try (Server primary = TestServers.start(1, "--repl-diskless-sync-delay", "0");
             Jedis p = TestServers.jedis(primary.port(), 2)) {
            Primary replication = primary.context().replication();
            for (int i = 0; i < 100; i++) p.set("before" + i, "v" + i);
            assertFalse(replication.threadStarted(), "writes without a replica need no replication thread");
            try (Server replica = TestServers.start(2, "--replicaof", "127.0.0.1 " + primary.port());
                 Jedis r = TestServers.jedis(replica.port(), 2)) {
                awaitLinkUp(r);
                assertTrue(replication.threadStarted());
                p.set("after", "v");
                awaitApplied(p, r);
                assertEquals("v99", r.get("before99"));
                assertEquals("v", r.get("after"));
            }
        }
    }

    @Test
    void replicationBytes_areCountedApartFromClientTraffic() throws Exception {
        try (Server primary = TestServers.start(1, "--repl-diskless-sync-delay", "0");
             Server replica = TestServers.start(2, "--replicaof", "127.0.0.1 " + primary.port());
             Jedis p = TestServers.jedis(primary.port(), 2);
             Jedis r = TestServers.jedis(replica.port(), 2)) {
            awaitLinkUp(r);
            long out0 = Long.parseLong(field(p, "stats", "total_net_repl_output_bytes"));
            long in0 = Long.parseLong(field(r, "stats", "total_net_repl_input_bytes"));
            long clientOut0 = Long.parseLong(field(p, "stats", "total_net_output_bytes"));
            String value = "v".repeat(1000);
            for (int i = 0; i < 1000; i++) p.set("k" + i, value);
            awaitApplied(p, r);
            assertTrue(Long.parseLong(field(p, "stats", "total_net_repl_output_bytes")) - out0 > 1_000_000);
            assertTrue(Long.parseLong(field(r, "stats", "total_net_repl_input_bytes")) - in0 > 1_000_000);
            long clientOut = Long.parseLong(field(p, "stats", "total_net_output_bytes")) - clientOut0;
            assertTrue(clientOut < 100_000, "client output " + clientOut); // 1000 +OK replies and a few INFOs
        }
    }

    /**
     * INFO instantaneous_output_repl_kbps (the primary's) and instantaneous_input_repl_kbps (the replica's) follow a
     * stream in flight, and are 0.00 once it stops; mem_replication_backlog is the backlog the replica made active.
     */
    @Test
    void replicationRates_andBacklogMemory_followTheStream() throws Exception {
        try (Server primary = TestServers.start(1, "--repl-diskless-sync-delay", "0");
             Jedis p = TestServers.jedis(primary.port(), 2)) {
            assertEquals("0", field(p, "memory", "mem_replication_backlog"));
            try (Server replica = TestServers.start(2, "--replicaof", "127.0.0.1 " + primary.port());
                 Jedis r = TestServers.jedis(replica.port(), 2)) {
                awaitLinkUp(r);
                assertEquals(field(p, "replication", "repl_backlog_size"), field(p, "memory", "mem_replication_backlog"));
                String value = "v".repeat(1000);
                long until = System.currentTimeMillis() + 1000;
                while (System.currentTimeMillis() < until) {
                    var pipe = p.pipelined();
                    for (int i = 0; i < 100; i++) pipe.set("rate" + i, value);
                    pipe.sync();
                }
                double out = Double.parseDouble(field(p, "stats", "instantaneous_output_repl_kbps"));
                double in = Double.parseDouble(field(r, "stats", "instantaneous_input_repl_kbps"));
                assertTrue(out > 10 && in > 10, "output " + out + " kB/s, input " + in + " kB/s");
                await("the rates to fall to zero", 10_000,
                        () -> field(p, "stats", "instantaneous_output_repl_kbps").equals("0.00"));
            }
        }
    }

    /**
     * replica-ignore-maxmemory yes (Redis's default): a replica over its maxmemory keeps every key its primary has
     * (its shard cron evicts nothing); with no it evicts by its own policy, as Redis's does.
     */
    @Test
    void replicaOverMaxmemory_evictsNothingUnlessReplicaIgnoreMaxmemoryIsOff() throws Exception {
        try (Server primary = TestServers.start(1, "--repl-diskless-sync-delay", "0");
             Server replica = TestServers.start(2, "--replicaof", "127.0.0.1 " + primary.port(),
                     "--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru", "--hz", "100");
             Jedis p = TestServers.jedis(primary.port(), 2);
             Jedis r = TestServers.jedis(replica.port(), 2)) {
            awaitLinkUp(r);
            String value = "v".repeat(200);
            for (int i = 0; i < 20_000; i++) p.set("k:" + i, value); // about 5 MB on the replica
            awaitApplied(p, r);
            Thread.sleep(300); // many cron passes at hz 100
            assertEquals("yes", r.configGet("replica-ignore-maxmemory").get("replica-ignore-maxmemory"));
            assertEquals(20_000L, r.dbSize());
            assertEquals("0", field(r, "stats", "evicted_keys"));
            assertTrue(Long.parseLong(field(r, "memory", "used_memory")) > 2 << 20);
            r.configSet("replica-ignore-maxmemory", "no");
            await("the replica to evict", 10_000, () -> Long.parseLong(field(r, "stats", "evicted_keys")) > 0);
            assertTrue(r.dbSize() < 20_000L);
            assertEquals(20_000L, p.dbSize());
        }
    }

    @Test
    void replica_keepsExpiredKeysUntilThePrimarysDel_butReadsMissThem() throws Exception {
        try (Server primary = TestServers.start(1, "--repl-diskless-sync-delay", "0", "--hz", "1");
             Server replica = TestServers.start(2, "--replicaof", "127.0.0.1 " + primary.port());
             Jedis p = TestServers.jedis(primary.port(), 2);
             Jedis r = TestServers.jedis(replica.port(), 2)) {
            awaitLinkUp(r);
            p.psetex("soon", 100, "v");
            awaitApplied(p, r);
            assertEquals(1, p.waitReplicas(1, 5000));
            // The primary's active cycle runs once a second (hz 1) and nobody reads the key there: its DEL waits.
            Thread.sleep(200);
            assertEquals(null, r.get("soon")); // logically expired on the replica
            assertEquals(1L, r.dbSize()); // yet kept until the primary's DEL
            p.get("soon"); // the primary expires it now and streams the DEL
            await("the primary's DEL", 5000, () -> r.dbSize() == 0);
        }
    }

    @Test
    void replicaWithAof_restartsWithTheSyncedDataset() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("tide-replica-aof");
        try (Server primary = TestServers.start(4, "--repl-diskless-sync-delay", "0");
             Jedis p = TestServers.jedis(primary.port(), 2)) {
            for (int round = 0; round < 3; round++) mixedWrites(p, round);
            try (Server replica = TestServers.start(2, "--dir", dir.toString(), "--appendonly", "yes",
                    "--replicaof", "127.0.0.1 " + primary.port());
                 Jedis r = TestServers.jedis(replica.port(), 2)) {
                awaitLinkUp(r);
                // The image bypassed the journal: the AOF is rewritten from the loaded dataset.
                await("the AOF rewrite after the sync", 10_000,
                        () -> "1".equals(field(r, "persistence", "aof_rewrites"))
                                && "0".equals(field(r, "persistence", "aof_rewrite_in_progress")));
                for (int round = 3; round < 5; round++) mixedWrites(p, round);
                awaitApplied(p, r);
            }
            try (Server restarted = TestServers.start(2, "--dir", dir.toString(), "--appendonly", "yes");
                 Jedis r = TestServers.jedis(restarted.port(), 2)) {
                assertSameData(p, r);
            }
        }
    }

    @Test
    void replicaWithoutItsPrimary_answersMasterdownAsRedisWhenStaleDataIsOff() throws Exception {
        int nobody = RealRedis.freePort();
        String redisError;
        String redisDownSince;
        try (RealRedis redis = RealRedis.startWith("--replicaof", "127.0.0.1", Integer.toString(nobody),
                "--replica-serve-stale-data", "no");
             Jedis rj = TestServers.jedis(redis.port(), 2)) {
            redisError = assertThrows(JedisDataException.class, () -> rj.get("k")).getMessage();
            redisDownSince = field(rj, "replication", "master_link_down_since_seconds");
        }
        try (Server tide = TestServers.start(2, "--replicaof", "127.0.0.1 " + nobody,
                "--replica-serve-stale-data", "no");
             Jedis t = TestServers.jedis(tide.port(), 2)) {
            assertEquals(redisError, assertThrows(JedisDataException.class, () -> t.get("k")).getMessage());
            assertEquals("down", field(t, "replication", "master_link_status")); // INFO is flagged stale
            assertEquals(redisDownSince, field(t, "replication", "master_link_down_since_seconds"));
            t.configSet("replica-serve-stale-data", "yes");
            assertEquals(null, t.get("k"));
        }
    }

    @Test
    void replicationCommandErrors_asRedis() throws Exception {
        int nobody = RealRedis.freePort();
        List<java.util.function.Function<Jedis, Object>> calls = List.of(
                j -> j.waitReplicas(0, 0),
                j -> j.replicaof("127.0.0.1", 70000),
                j -> j.sendCommand(redis.clients.jedis.Protocol.Command.REPLICAOF, "127.0.0.1", "abc"),
                j -> j.replicaof("127.0.0.1", nobody),
                j -> j.sendCommand((redis.clients.jedis.commands.ProtocolCommand) () -> "REPLCONF".getBytes(), "foo", "bar"),
                j -> j.sendCommand((redis.clients.jedis.commands.ProtocolCommand) () -> "REPLCONF".getBytes(), "ack"));
        List<String> redisAnswers = new java.util.ArrayList<>();
        try (RealRedis redis = RealRedis.startWith("--replicaof", "127.0.0.1", Integer.toString(nobody));
             Jedis rj = TestServers.jedis(redis.port(), 2)) {
            for (var c : calls) redisAnswers.add(answer(rj, c));
        }
        try (Server tide = TestServers.start(2, "--replicaof", "127.0.0.1 " + nobody);
             Jedis t = TestServers.jedis(tide.port(), 2)) {
            for (int i = 0; i < calls.size(); i++) assertEquals(redisAnswers.get(i), answer(t, calls.get(i)), "call " + i);
        }
    }

    private static String answer(Jedis j, java.util.function.Function<Jedis, Object> call) {
        try {
            Object r = call.apply(j);
            return r instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : String.valueOf(r);
        } catch (JedisDataException e) {
            return "-" + e.getMessage();
        }
    }

    @Test
    void multiShardTideReplica_appliesCrossShardWritesWhole() throws Exception {
        try (Server primary = TestServers.start(4, "--repl-diskless-sync-delay", "0");
             Server replica = TestServers.start(4);
             Jedis p = TestServers.jedis(primary.port(), 2);
             Jedis r = TestServers.jedis(replica.port(), 2)) {
            String[] keys = new String[8];
            for (int i = 0; i < keys.length; i++) keys[i] = "whole" + i; // spread over the 4 shards
            r.replicaof("127.0.0.1", primary.port());
            awaitLinkUp(r);
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicReference<String> torn = new java.util.concurrent.atomic.AtomicReference<>();
            Thread observer = new Thread(() -> {
                try (Jedis o = TestServers.jedis(replica.port(), 2)) {
                    while (!stop.get() && torn.get() == null) {
                        List<String> v = o.mget(keys);
                        if (v.stream().distinct().count() > 1) torn.set(v.toString());
                    }
                }
            });
            observer.start();
            for (int n = 0; n < 2000; n++) {
                String[] kv = new String[keys.length * 2];
                for (int i = 0; i < keys.length; i++) {
                    kv[2 * i] = keys[i];
                    kv[2 * i + 1] = Integer.toString(n);
                }
                p.mset(kv);
            }
            awaitApplied(p, r);
            stop.set(true);
            observer.join();
            assertEquals(null, torn.get(), "the replica showed half of a cross-shard MSET");
            assertEquals("1999", r.get(keys[7]));
        }
    }

    private static void signal(long pid, String sig) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start().waitFor());
    }

    @Test
    void promotedTideReplica_continuesTheOtherReplicasPartially_psync2() throws Exception {
        try (Server primary = TestServers.start(4, "--repl-diskless-sync-delay", "0");
             Server a = TestServers.start(2, "--repl-diskless-sync-delay", "0");
             Jedis p = TestServers.jedis(primary.port(), 2);
             Jedis ja = TestServers.jedis(a.port(), 2)) {
            ja.replicaof("127.0.0.1", primary.port());
            awaitLinkUp(ja);
            try (RealRedis b = RealRedis.startWith("--replicaof", "127.0.0.1", Integer.toString(primary.port()));
                 Jedis jb = TestServers.jedis(b.port(), 2)) {
                awaitLinkUp(jb);
                for (int round = 0; round < 4; round++) mixedWrites(p, round);
                awaitApplied(p, ja);
                assertEquals(2, p.waitReplicas(2, 10_000));
                RedisReplicaOfTideTest.awaitCaughtUp(p, jb);
                String oldId = field(p, "replication", "master_replid");
                // B falls behind: only A gets the last writes before the primary goes.
                long bPid = Long.parseLong(field(jb, "server", "process_id"));
                signal(bPid, "STOP");
                try {
                    for (int round = 4; round < 6; round++) mixedWrites(p, round);
                    awaitApplied(p, ja);
                    assertEquals(1, p.waitReplicas(1, 10_000));
                    // The failover: the primary goes, A is promoted.
                    primary.close();
                    assertEquals("OK", ja.replicaofNoOne());
                } finally {
                    signal(bPid, "CONT");
                }
                assertEquals(oldId, field(ja, "replication", "master_replid2"));
                // B (a real Redis) follows A, which holds what B missed in its backlog: a partial resync.
                jb.replicaof("127.0.0.1", a.port());
                awaitLinkUp(jb);
                await("B's partial resync with A", 10_000, () -> "1".equals(field(ja, "stats", "sync_partial_ok")));
                assertEquals("0", field(ja, "stats", "sync_full"));
                for (int round = 6; round < 8; round++) mixedWrites(ja, round);
                assertEquals(1, ja.waitReplicas(1, 10_000));
                RedisReplicaOfTideTest.awaitCaughtUp(ja, jb);
                assertSameData(ja, jb);
            }
        }
    }

    @Test
    void chainedReplication_redisFollowsATideReplicaOfTide() throws Exception {
        try (Server primary = TestServers.start(4, "--repl-diskless-sync-delay", "0");
             Server middle = TestServers.start(2, "--repl-diskless-sync-delay", "0");
             Jedis p = TestServers.jedis(primary.port(), 2);
             Jedis m = TestServers.jedis(middle.port(), 2)) {
            for (int round = 0; round < 2; round++) mixedWrites(p, round);
            m.replicaof("127.0.0.1", primary.port());
            awaitLinkUp(m);
            try (RealRedis leaf = RealRedis.startWith("--replicaof", "127.0.0.1", Integer.toString(middle.port()));
                 Jedis l = TestServers.jedis(leaf.port(), 2)) {
                awaitLinkUp(l);
                for (int round = 2; round < 5; round++) mixedWrites(p, round);
                awaitApplied(p, m);
                assertEquals(1, p.waitReplicas(1, 10_000));
                // The leaf follows the middle's mirror of the primary's stream: same replid, same offsets.
                RedisReplicaOfTideTest.awaitCaughtUp(p, l);
                assertEquals(field(p, "replication", "master_replid"), field(l, "replication", "master_replid"));
                assertSameData(p, l);
                // The leaf's link to the middle is cut: it continues from the middle's backlog.
                m.clientKill(new redis.clients.jedis.params.ClientKillParams().type(redis.clients.jedis.args.ClientType.REPLICA));
                mixedWrites(p, 5);
                await("the leaf's partial resync", 10_000, () -> "1".equals(field(m, "stats", "sync_partial_ok")));
                awaitApplied(p, m);
                RedisReplicaOfTideTest.awaitCaughtUp(p, l);
                assertSameData(p, l);
            }
        }
    }

    @Test
    void tideReplicaOfTide_followsAndContinuesPartiallyAfterALinkCut() throws Exception {
        try (Server primary = TestServers.start(4, "--repl-diskless-sync-delay", "0");
             Server replica = TestServers.start(2);
             Jedis p = TestServers.jedis(primary.port(), 2);
             Jedis r = TestServers.jedis(replica.port(), 2)) {
            for (int round = 0; round < 2; round++) mixedWrites(p, round);
            assertEquals("OK", r.replicaof("127.0.0.1", primary.port()));
            assertEquals("OK Already connected to specified master", r.replicaof("127.0.0.1", primary.port()));
            awaitLinkUp(r);
            for (int round = 2; round < 6; round++) mixedWrites(p, round);
            awaitApplied(p, r);
            assertEquals(1, p.waitReplicas(1, 10_000));
            assertSameData(p, r);
            p.clientKill(new redis.clients.jedis.params.ClientKillParams().type(redis.clients.jedis.args.ClientType.REPLICA));
            for (int round = 6; round < 8; round++) mixedWrites(p, round);
            await("the partial resync", 10_000, () -> "1".equals(field(p, "stats", "sync_partial_ok")));
            assertEquals("1", field(p, "stats", "sync_full"));
            awaitApplied(p, r);
            assertEquals(1, p.waitReplicas(1, 10_000));
            assertSameData(p, r);
            assertTrue(field(p, "replication", "slave0").contains("state=online"));
        }
    }
}
