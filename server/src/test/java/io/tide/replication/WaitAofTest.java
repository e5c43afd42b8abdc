package io.tide.replication;

import static io.tide.replication.RedisReplicaOfTideTest.await;
import static io.tide.replication.RedisReplicaOfTideTest.awaitLinkUp;
import static io.tide.replication.RedisReplicaOfTideTest.field;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;

/**
 * WAITAOF as Redis 7.2 has it (the installed redis-server is 7.0, which has no WAITAOF: its cases follow Redis 7.2's
 * tests/unit/wait.tcl): the local AOF's fsync under each appendfsync, the errors, Tide replicas' FACK, and a Redis 7.0
 * replica, which sends no FACK and so never counts.
 */
@org.junit.jupiter.api.Timeout(120)
class WaitAofTest {

    private static final ProtocolCommand WAITAOF = () -> SafeEncoder.encode("WAITAOF");

    /** WAITAOF's reply as [local, replicas]. */
    @SuppressWarnings("unchecked")
    static List<Long> waitAof(Jedis j, long local, long replicas, long timeoutMs) {
        return (List<Long>) j.sendCommand(WAITAOF, Long.toString(local), Long.toString(replicas),
                Long.toString(timeoutMs));
    }

    private static String error(Jedis j, String... args) {
        return assertThrows(JedisDataException.class, () -> j.sendCommand(WAITAOF, args)).getMessage();
    }

    private static Server withAof(int shards, String fsync, String... extra) throws Exception {
        String[] args = new String[extra.length + 6];
        args[0] = "--dir";
        args[1] = Files.createTempDirectory("tide-waitaof").toString();
        args[2] = "--appendonly";
        args[3] = "yes";
        args[4] = "--appendfsync";
        args[5] = fsync;
        System.arraycopy(extra, 0, args, 6, extra.length);
        return TestServers.start(shards, args);
    }

    @ParameterizedTest(name = "appendfsync={0}")
    @ValueSource(strings = {"everysec", "always"})
    void local_isCountedOnceTheWritesAreFsynced(String fsync) throws Exception {
        try (Server s = withAof(4, fsync); Jedis j = TestServers.jedis(s.port(), 2)) {
            for (int i = 0; i < 50; i++) j.set("k" + i, "v" + i); // on several shards
            long t0 = System.nanoTime();
            assertEquals(List.of(1L, 0L), waitAof(j, 1, 0, 5000));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(ms < 1000, "WAITAOF took " + ms + " ms");
            assertEquals(List.of(1L, 0L), waitAof(j, 0, 0, 0)); // nothing to wait for: counts at once
        }
    }

    /** Redis's "WAITAOF local copy before fsync": under appendfsync no nothing is fsynced, so it times out. */
    @Test
    void local_underAppendfsyncNo_timesOutWithZero() throws Exception {
        try (Server s = withAof(2, "no"); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.incr("foo");
            assertEquals(List.of(0L, 0L), waitAof(j, 1, 0, 50));
            // A rewrite rotates the files and fsyncs them: then everything before it is on disk.
            j.bgrewriteaof();
            await("the rewrite", 10_000, () -> "0".equals(field(j, "persistence", "aof_rewrite_in_progress")));
            assertEquals(List.of(1L, 0L), waitAof(j, 1, 0, 5000));
        }
    }

    @Test
    void errors_areRedisTexts() throws Exception {
        try (Server s = TestServers.start(2); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.incr("foo");
            assertEquals("ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.",
                    error(j, "1", "0", "0"));
            assertEquals(List.of(0L, 0L), waitAof(j, 0, 0, 0)); // numlocal 0 is fine without an AOF
            assertEquals("ERR value is out of range, value must between 0 and 1", error(j, "2", "0", "0"));
            assertEquals("ERR value is not an integer or out of range", error(j, "x", "0", "0"));
            assertEquals("ERR value is out of range, must be positive", error(j, "0", "-1", "0"));
            assertEquals("ERR timeout is negative", error(j, "0", "0", "-1"));
            assertEquals("ERR timeout is not an integer or out of range", error(j, "0", "0", "x"));
            assertEquals("ERR wrong number of arguments for 'waitaof' command", error(j, "0", "0"));
        }
    }

    @Test
    void insideMulti_answersAtOnce() throws Exception {
        try (Server s = withAof(2, "no"); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.incr("foo");
            j.sendCommand(redis.clients.jedis.Protocol.Command.MULTI);
            assertEquals("QUEUED", SafeEncoder.encode((byte[]) j.sendCommand(WAITAOF, "1", "1", "0")));
            List<?> exec = (List<?>) j.sendCommand(redis.clients.jedis.Protocol.Command.EXEC);
            assertEquals(List.of(List.of(0L, 0L)), exec); // under no: not fsynced, and no blocking in MULTI
        }
    }

    /** Redis's "WAITAOF local wait and then stop aof": the blocked client gets the error. */
    @Test
    void aofTurnedOffWhileWaiting_answersTheError() throws Exception {
        try (Server s = withAof(1, "no"); Jedis j = TestServers.jedis(s.port(), 2);
             Jedis admin = TestServers.jedis(s.port(), 2)) {
            j.incr("foo");
            CompletableFuture<String> r = CompletableFuture.supplyAsync(() -> {
                try {
                    return waitAof(j, 1, 0, 0).toString();
                } catch (JedisDataException e) {
                    return e.getMessage();
                }
            });
            Thread.sleep(300);
            assertTrue(!r.isDone(), "WAITAOF answered under appendfsync no: " + (r.isDone() ? r.join() : ""));
            admin.configSet("appendonly", "no");
            assertEquals("ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.",
                    r.get(5, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest(name = "replica appendfsync={0}")
    @ValueSource(strings = {"everysec", "always"})
    void tideReplicaWithAof_acknowledgesItsFsyncs(String fsync) throws Exception {
        try (Server primary = withAof(2, "always", "--repl-diskless-sync-delay", "0");
             Server replica = withAof(2, fsync, "--replicaof", "127.0.0.1 " + primary.port());
             Jedis p = TestServers.jedis(primary.port(), 2);
             Jedis r = TestServers.jedis(replica.port(), 2)) {
            awaitLinkUp(r);
            for (int i = 0; i < 20; i++) p.set("k" + i, "v");
            List<Long> got = waitAof(p, 1, 1, 5000);
            assertEquals(List.of(1L, 1L), got);
            assertEquals("ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas "
                    + "are just local and are not propagated.", error(r, "0", "0", "0"));
            // A replica under appendfsync no never fsyncs the stream itself (Redis's "replica copy before fsync").
            r.configSet("appendfsync", "no");
            Thread.sleep(1500); // the fsync a previous policy may still run
            p.incr("foo");
            assertEquals(List.of(1L, 0L), waitAof(p, 1, 1, 200));
        }
    }

    @Test
    void tideReplicaWithoutAof_neverCounts() throws Exception {
        try (Server primary = TestServers.start(1, "--repl-diskless-sync-delay", "0");
             Server replica = TestServers.start(1, "--replicaof", "127.0.0.1 " + primary.port());
             Jedis p = TestServers.jedis(primary.port(), 2);
             Jedis r = TestServers.jedis(replica.port(), 2)) {
            awaitLinkUp(r);
            p.set("k", "v");
            assertEquals(1, p.waitReplicas(1, 5000));
            assertEquals(List.of(0L, 0L), waitAof(p, 0, 1, 200));
        }
    }

    @Test
    void redis70Replica_sendsNoFack_andNeverCounts() throws Exception {
        try (Server tide = withAof(2, "always", "--repl-diskless-sync-delay", "0");
             Jedis t = TestServers.jedis(tide.port(), 2);
             RealRedis redis = RealRedis.startWith("--replicaof", "127.0.0.1", Integer.toString(tide.port()),
                     "--appendonly", "yes", "--appendfsync", "always");
             Jedis rj = TestServers.jedis(redis.port(), 2)) {
            awaitLinkUp(rj);
            t.set("k", "v");
            assertEquals(1, t.waitReplicas(1, 5000)); // online and acknowledging, without FACK
            long t0 = System.nanoTime();
            assertEquals(List.of(1L, 0L), waitAof(t, 1, 1, 100));
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) >= 90, "WAITAOF did not wait");
            assertEquals("v", rj.get("k"));
        }
    }

    /** Redis's "WAITAOF on demoted master gets unblocked with an error". */
    @Test
    void demotedWhileWaiting_isUnblockedWithAnError() throws Exception {
        try (Server other = TestServers.start(1, "--repl-diskless-sync-delay", "0");
             Server s = withAof(1, "always", "--repl-diskless-sync-delay", "0");
             Jedis j = TestServers.jedis(s.port(), 2);
             Jedis admin = TestServers.jedis(s.port(), 2)) {
            j.incr("foo");
            CompletableFuture<String> r = CompletableFuture.supplyAsync(() -> {
                try {
                    return waitAof(j, 0, 1, 0).toString();
                } catch (JedisDataException e) {
                    return e.getMessage();
                }
            });
            Thread.sleep(300);
            assertTrue(!r.isDone());
            admin.replicaof("127.0.0.1", other.port());
            assertEquals("UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)",
                    r.get(5, TimeUnit.SECONDS));
        }
    }
}
