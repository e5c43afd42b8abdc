package io.tide.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * On a multi-shard server a script whose declared keys live on its client's home shard runs inline there, without the
 * coordinator; one that reaches another shard's key (undeclared) moves to the coordinator in its middle, which parks
 * that shard too (decision 0022, amended 2026-12-07). Observed from outside: the coordinator's operation count,
 * single-shard readers of keys such scripts write on another shard, and the AOF after a restart.
 */
class ShardInlineScriptTest {

    private static Server server;

    @BeforeAll
    static void start() {
        server = TestServers.start(2);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void scriptWithItsKeysOnOneShard_runsThereWithoutTheCoordinator() {
        String k0 = TestServers.keyOn(server, 0, "own:", 0);
        String counter = TestServers.keyOn(server, 0, "own:", 1);
        String setGet = "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('GET', KEYS[1])";
        try (Jedis h0 = TestServers.homedOn(server, 0); Jedis h1 = TestServers.homedOn(server, 1)) {
            h0.functionLoadReplace("#!lua name=inl\nredis.register_function('inl_incr',"
                    + " function(keys) return redis.call('INCR', keys[1]) end)");
            long before = TestServers.coordinatorOperations(h0);
            for (int i = 0; i < 20; i++) assertThat(h0.eval(setGet, 1, k0, "v" + i)).isEqualTo("v" + i);
            for (int i = 1; i <= 5; i++) assertThat(h0.fcall("inl_incr", List.of(counter), List.of())).isEqualTo((long) i);
            assertThat(h0.eval("return redis.call('GET', '" + k0 + "')")).isEqualTo("v19"); // no keys: inline too
            assertThat(TestServers.coordinatorOperations(h0)).as("inline on shard 0").isEqualTo(before);
            // The same script from a client of shard 1 is sent to shard 0 and runs inline there.
            for (int i = 0; i < 4; i++) assertThat(h1.eval(setGet, 1, k0, "w" + i)).isEqualTo("w" + i);
            assertThat(h1.fcall("inl_incr", List.of(counter), List.of())).isEqualTo(6L);
            assertThat(TestServers.coordinatorOperations(h0)).as("inline on shard 0, sent there").isEqualTo(before);
            // Declared keys on both shards: the coordinator runs it.
            String k1 = TestServers.keyOn(server, 1, "own:", 0);
            assertThat(h1.eval("return redis.call('GET', KEYS[1])", 2, k0, k1)).isEqualTo("w3");
            assertThat(TestServers.coordinatorOperations(h0)).isEqualTo(before + 1);
        }
    }

    @Test
    void undeclaredKeyOfAnotherShard_movesTheScriptToTheCoordinator_inTheMiddle() {
        String k0 = TestServers.keyOn(server, 0, "mv:", 0);
        String k1 = TestServers.keyOn(server, 1, "mv:", 0);
        String script = "local a = redis.call('INCR', KEYS[1]) local b = redis.call('INCRBY', ARGV[1], 10)"
                + " return {a, b, redis.call('GET', KEYS[1])}";
        try (Jedis h0 = TestServers.homedOn(server, 0)) {
            long before = TestServers.coordinatorOperations(h0);
            assertThat(h0.eval(script, 1, k0, k1)).isEqualTo(List.of(1L, 10L, "1"));
            assertThat(TestServers.coordinatorOperations(h0)).as("moved once").isEqualTo(before + 1);
            // Having reached another shard, it starts on the coordinator from then on: one operation again.
            assertThat(h0.eval(script, 1, k0, k1)).isEqualTo(List.of(2L, 20L, "2"));
            assertThat(TestServers.coordinatorOperations(h0)).isEqualTo(before + 2);
            // Remembered by the script, not the call: a run that would stay on shard 0 starts on the coordinator too.
            String sometimes = "redis.call('INCR', KEYS[1]) if ARGV[1] ~= '' then redis.call('INCR', ARGV[1]) end"
                    + " return redis.call('GET', KEYS[1])";
            String k0b = TestServers.keyOn(server, 0, "mv:", 1);
            String k1b = TestServers.keyOn(server, 1, "mv:", 1);
            long was = TestServers.coordinatorOperations(h0);
            assertThat(h0.eval(sometimes, 1, k0b, "")).isEqualTo("1");
            assertThat(TestServers.coordinatorOperations(h0)).as("stays inline").isEqualTo(was);
            assertThat(h0.eval(sometimes, 1, k0b, k1b)).isEqualTo("2");
            assertThat(h0.eval(sometimes, 1, k0b, "")).isEqualTo("3");
            assertThat(TestServers.coordinatorOperations(h0)).as("moved, then started there").isEqualTo(was + 2);
            assertThat(h0.get(k1b)).isEqualTo("1");
            // By SHA the same script, known to cross, starts on the coordinator (looked up before it starts).
            String sha = h0.scriptLoad(script);
            long bySha = TestServers.coordinatorOperations(h0);
            assertThat(h0.evalsha(sha, 1, k0, k1)).isEqualTo(List.of(3L, 30L, "3"));
            assertThat(TestServers.coordinatorOperations(h0)).isEqualTo(bySha + 1);
            // A function: moves once, then starts on the coordinator.
            h0.functionLoadReplace("#!lua name=mv\nredis.register_function('mv_cross', function(keys, args)"
                    + " redis.call('INCR', keys[1]) return redis.call('INCRBY', args[1], 10) end)");
            long loaded = TestServers.coordinatorOperations(h0); // FUNCTION LOAD parks every shard: one operation
            assertThat(h0.fcall("mv_cross", List.of(k0), List.of(k1))).isEqualTo(40L);
            assertThat(h0.fcall("mv_cross", List.of(k0), List.of(k1))).isEqualTo(50L);
            assertThat(TestServers.coordinatorOperations(h0)).isEqualTo(loaded + 2);
            assertThat(h0.get(k0)).isEqualTo("5");
            // A read-only script's undeclared read of another shard moves it just the same.
            long ro = TestServers.coordinatorOperations(h0);
            assertThat(h0.evalReadonly("return redis.call('GET', ARGV[1])", List.of(k0), List.of(k1))).isEqualTo("50");
            assertThat(TestServers.coordinatorOperations(h0)).isEqualTo(ro + 1);
            // Sent to the shard of its key by a client of the other shard, it moves from there just the same.
            try (Jedis h1 = TestServers.homedOn(server, 1)) {
                long sent = TestServers.coordinatorOperations(h0);
                String fromOne = "redis.call('INCR', KEYS[1]) return redis.call('INCRBY', ARGV[1], 100)";
                assertThat(h1.eval(fromOne, 1, k0, k1)).isEqualTo(150L);
                assertThat(h1.eval(fromOne, 1, k0, k1)).isEqualTo(250L);
                assertThat(TestServers.coordinatorOperations(h0)).isEqualTo(sent + 2);
                assertThat(h0.get(k0)).isEqualTo("7");
            }
            // A call that needs every shard (DBSIZE) too.
            assertThat(h0.eval("redis.call('SET', KEYS[1], 'x') return redis.call('DBSIZE')", 1, k0))
                    .isEqualTo(h0.dbSize());
            // From a coroutine the script cannot move: that call fails with an error naming why, the rest stands.
            String inCoroutine = "redis.call('SET', KEYS[1], 'c') local co = coroutine.create(function()"
                    + " return redis.pcall('GET', ARGV[1]).err end) local ok, err = coroutine.resume(co) return err";
            Object err = h0.eval(inCoroutine, 1, k0, k1);
            assertThat(err.toString()).contains("another shard from a coroutine");
            assertThat(h0.get(k0)).isEqualTo("c");
        }
    }

    /** A script that crossed before begins inline, finds it must not, and starts over on the coordinator: MONITOR shows it once. */
    @Test
    void scriptStartedOverOnTheCoordinator_isShownOnceByMonitor() throws Exception {
        String k0 = TestServers.keyOn(server, 0, "mon:", 0);
        String k1 = TestServers.keyOn(server, 1, "mon:", 0);
        String script = "redis.call('SET', KEYS[1], 'a') return redis.call('SET', ARGV[1], 'b')";
        try (Jedis h0 = TestServers.homedOn(server, 0); io.tide.testing.RawClient monitor = new io.tide.testing.RawClient(server.port())) {
            h0.eval(script, 1, k0, k1); // moves in its middle, and is remembered
            assertThat(monitor.call("MONITOR")).isEqualTo("+OK\r\n");
            h0.eval(script, 1, k0, k1);
            h0.echo("end-of-test");
            List<String> lines = new ArrayList<>();
            String line;
            while (!(line = monitor.readReply()).contains("end-of-test")) lines.add(line);
            assertThat(lines).filteredOn(l -> l.contains("\"EVAL\"")).hasSize(1);
            assertThat(lines).filteredOn(l -> l.contains("lua]") && l.contains("\"SET\"")).hasSize(2);
        }
    }

    @Test
    void movedScriptsWritesOnBothShards_areInTheAppendOnlyFile() throws Exception {
        Path dir = Files.createTempDirectory("tide-inline-aof");
        Server s = TestServers.start(2, "--dir", dir.toString(), "--appendonly", "yes", "--appendfsync", "always");
        String k0 = TestServers.keyOn(s, 0, "aof:", 0);
        String k1 = TestServers.keyOn(s, 1, "aof:", 0);
        try (Jedis h0 = TestServers.homedOn(s, 0)) {
            for (int i = 0; i < 3; i++) {
                h0.eval("redis.call('RPUSH', KEYS[1], ARGV[2]) return redis.call('RPUSH', ARGV[1], ARGV[2])", 1, k0, k1,
                        "e" + i);
            }
        } finally {
            s.close();
        }
        Server again = TestServers.start(2, "--dir", dir.toString(), "--appendonly", "yes");
        try (Jedis j = TestServers.jedis(again.port(), 2)) {
            assertThat(j.lrange(k0, 0, -1)).containsExactly("e0", "e1", "e2");
            assertThat(j.lrange(k1, 0, -1)).containsExactly("e0", "e1", "e2");
        } finally {
            again.close();
        }
    }

    /**
     * Scripts (a new one each time, so that each moves in its middle), run inline on the shard of their declared key,
     * at home or sent there by a client of the other shard, write that key, then two undeclared keys of the
     * other shard, one after the other; readers on that other shard (MGET of the two, inline there) must never see one
     * written without the other. Meanwhile coordinated scripts, cross-shard MSETs and FUNCTION LOADs run, so that every
     * path that waits for the Lua engine or parks shards meets the inline ones. Nothing may hang.
     */
    @Test
    void scriptsMovingAcrossShards_areAtomicForSingleShardReaders_andNeverDeadlock() throws Exception {
        String[] own = {TestServers.keyOn(server, 0, "at:own:", 0), TestServers.keyOn(server, 1, "at:own:", 0)};
        String[][] pair = {
            {TestServers.keyOn(server, 1, "at:p:", 0), TestServers.keyOn(server, 1, "at:p:", 1)}, // written by shard 0's clients
            {TestServers.keyOn(server, 0, "at:p:", 0), TestServers.keyOn(server, 0, "at:p:", 1)}, // written by shard 1's clients
        };
        String crossing = "redis.call('INCR', KEYS[1]) redis.call('INCR', ARGV[1])"
                + " for i = 1, 50 do redis.call('GET', KEYS[1]) end return redis.call('INCR', ARGV[2])";
        try (Jedis setup = TestServers.jedis(server.port(), 2)) {
            for (String[] p : pair) setup.del(p[0], p[1]);
            setup.del(own[0], own[1]);
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong torn = new AtomicLong();
        long[] runs = new long[2];
        ExecutorService pool = Executors.newFixedThreadPool(10);
        List<Future<?>> tasks = new ArrayList<>();
        try {
            for (int side = 0; side < 2; side++) {
                int s = side;
                for (int w = 0; w < 2; w++) {
                    int homeShard = w == 0 ? s : 1 - s; // one writer inline at home, one sent from the other shard
                    tasks.add(pool.submit(() -> {
                        try (Jedis j = TestServers.homedOn(server, homeShard)) {
                            long n = 0;
                            while (!stop.get()) {
                                // A new script each time: one that crossed before would start on the coordinator.
                                j.eval(crossing + " -- " + s + ":" + n, 1, own[s], pair[s][0], pair[s][1]);
                                n++;
                            }
                            synchronized (runs) {
                                runs[s] += n;
                            }
                        }
                        return null;
                    }));
                }
                tasks.add(pool.submit(() -> { // reads the pair on its own shard: inline there, one instant
                    try (Jedis j = TestServers.homedOn(server, 1 - s)) {
                        while (!stop.get()) {
                            List<String> v = j.mget(pair[s][0], pair[s][1]);
                            if (v.get(0) == null ? v.get(1) != null : !v.get(0).equals(v.get(1))) torn.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            tasks.add(pool.submit(() -> { // coordinated: declared keys on both shards
                try (Jedis j = TestServers.jedis(server.port(), 2)) {
                    while (!stop.get()) {
                        j.eval("return redis.call('GET', KEYS[1]) or redis.call('GET', KEYS[2])", 2, own[0], own[1]);
                        j.mset("at:m:" + own[0], "1", "at:m:" + own[1], "1");
                    }
                }
                return null;
            }));
            tasks.add(pool.submit(() -> { // library loads (every shard parked) and calls of it from either shard
                try (Jedis j = TestServers.jedis(server.port(), 2)) {
                    int i = 0;
                    while (!stop.get()) {
                        j.functionLoadReplace("#!lua name=at\nredis.register_function('at_get', function(keys, args)"
                                + " redis.call('GET', keys[1]) return redis.call('GET', args[1]) end) -- " + i++);
                        j.fcall("at_get", List.of(own[i % 2]), List.of(own[(i + 1) % 2]));
                    }
                }
                return null;
            }));
            Thread.sleep(3000);
        } finally {
            stop.set(true);
            pool.shutdown();
        }
        assertThat(pool.awaitTermination(20, TimeUnit.SECONDS)).as("every client finished: nothing hung").isTrue();
        for (Future<?> f : tasks) f.get();
        assertThat(torn.get()).as("reads that saw one key of a script's pair written without the other").isZero();
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            for (int s = 0; s < 2; s++) {
                assertThat(runs[s]).as("scripts from shard " + s).isPositive();
                assertThat(j.get(pair[s][0])).isEqualTo(Long.toString(runs[s]));
                assertThat(j.get(pair[s][1])).isEqualTo(Long.toString(runs[s]));
                assertThat(j.get(own[s])).isEqualTo(Long.toString(runs[s]));
            }
        }
    }

    /** As on one shard: past the threshold the script moves to the coordinator, the server answers -BUSY as Redis does. */
    @Test
    void busyInlineScript_movesAndTheServerAnswersBusy_andScriptKillFromAnotherShardStopsIt() throws Exception {
        String k0 = TestServers.keyOn(server, 0, "busy:", 0);
        String k1 = TestServers.keyOn(server, 1, "busy:", 0);
        String spin = "redis.call('GET', KEYS[1]) while true do end";
        try (Jedis setup = TestServers.jedis(server.port(), 2)) {
            setup.configSet("busy-reply-threshold", "100");
            setup.set(k1, "free");
        }
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Jedis runner = TestServers.homedOn(server, 0); Jedis same = TestServers.homedOn(server, 0); Jedis other = TestServers.homedOn(server, 1)) {
            for (Jedis from : List.of(runner, other)) { // inline at home, then sent from shard 1
                Future<Object> script = pool.submit(() -> from.eval(spin, 1, k0));
                Thread.sleep(400);
                assertThatThrownBy(() -> same.get(k0)).isInstanceOf(JedisDataException.class)
                        .hasMessageStartingWith("BUSY");
                Jedis killer = from == other ? same : other;
                assertThatThrownBy(() -> killer.get(k1)).isInstanceOf(JedisDataException.class)
                        .hasMessageStartingWith("BUSY");
                assertThat(killer.scriptKill()).isEqualTo("OK");
                assertThatThrownBy(() -> script.get(10, TimeUnit.SECONDS)).hasMessageContaining("Script killed");
                assertThat(same.get(k0)).isNull();
                assertThat(other.get(k1)).isEqualTo("free");
            }
        } finally {
            pool.shutdownNow();
            try (Jedis setup = TestServers.jedis(server.port(), 2)) {
                try {
                    setup.scriptKill(); // if an assertion above failed while it ran
                } catch (JedisDataException notBusy) {
                    // NOTBUSY: it ended
                }
                setup.configSet("busy-reply-threshold", "5000");
            }
        }
    }
}
