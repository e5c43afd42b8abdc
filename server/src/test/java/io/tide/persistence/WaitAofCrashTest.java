package io.tide.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tide.testing.RealRedis;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;

/**
 * WAITAOF's promise across a kill -9: every write that a WAITAOF 1 0 answered [1, ...] for is in the AOF that a
 * restarted child JVM loads. (A process kill keeps the page cache, so this holds the write(2)-before-reply and the
 * load path to WAITAOF's answer; that the answer waits for a real fsync is WaitAofTest's, under appendfsync no.)
 */
@Timeout(180)
class WaitAofCrashTest {

    private static final ProtocolCommand WAITAOF = () -> SafeEncoder.encode("WAITAOF");

    @TempDir
    Path dir;

    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void killChildren() throws InterruptedException {
        for (Process p : children) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void everyWriteWaitaofAcknowledged_survivesKill9() throws Exception {
        int port = RealRedis.freePort();
        Process child = launch(port, "child-1.log");
        List<String> acknowledged = new ArrayList<>();
        try (Jedis j = new Jedis("127.0.0.1", port, 10_000)) {
            for (int i = 0; i < 200; i++) {
                String key = "k" + i; // several shards
                j.set(key, "v" + i);
                if (i % 10 == 9) j.incr("counter");
                if (i % 20 == 19) {
                    @SuppressWarnings("unchecked")
                    List<Long> r = (List<Long>) j.sendCommand(WAITAOF, "1", "0", "0");
                    assertEquals(1L, r.get(0), "WAITAOF " + r);
                    for (int k = acknowledged.size(); k <= i; k++) acknowledged.add("k" + k);
                }
            }
        }
        child.destroyForcibly();
        child.waitFor(20, TimeUnit.SECONDS);
        assertEquals(137, child.exitValue(), "exit status of a SIGKILLed child");
        int port2 = RealRedis.freePort();
        launch(port2, "child-2.log");
        try (Jedis j = new Jedis("127.0.0.1", port2, 10_000)) {
            for (String k : acknowledged) assertEquals("v" + k.substring(1), j.get(k), k + " after the restart");
            assertEquals("20", j.get("counter"));
        }
    }

    private Process launch(int port, String logName) throws Exception {
        Path log = dir.resolve(logName);
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "io.tide.Main",
                "--port", Integer.toString(port), "--dir", dir.toString(), "--save", "", "--shards", "4",
                "--appendonly", "yes", "--appendfsync", "everysec");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        children.add(p);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) throw new AssertionError("the child exited: " + Files.readString(log, StandardCharsets.UTF_8));
            try (Jedis j = new Jedis("127.0.0.1", port, 2000)) {
                if ("PONG".equals(j.ping())) return p;
            } catch (JedisConnectionException | JedisDataException e) {
                Thread.sleep(50);
            }
        }
        throw new AssertionError("no PONG from the child: " + Files.readString(log, StandardCharsets.UTF_8));
    }
}
