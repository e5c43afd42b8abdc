package io.tide;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * tide-server as a child JVM with the launcher's collector flags (G1, a 32 MB young generation,
 * {@code -XX:+ExplicitGCInvokesConcurrent}) and a 1 GB heap: after 150 MB of values were written (so promoted to the
 * old generation) and flushed, the heap governor sees an old generation far above what the server holds and asks for a
 * concurrent cycle, which gives the dead bytes back; without the governor G1 would start one only near 45% of the
 * heap.
 */
class HeapGovernorProcessTest {

    @TempDir
    Path dir;

    @Test
    void flushedBytesInTheOldGeneration_areReclaimedByACycleTheGovernorAsksFor() throws Exception {
        int port = RealRedis.freePort();
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-XX:+UseCompactObjectHeaders", "-XX:+UseG1GC", "-Xmn32m", "-XX:+ExplicitGCInvokesConcurrent",
                "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "io.tide.Main",
                "--port", Integer.toString(port), "--save", ""));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("out.log").toFile()).start();
        try (RawClient c = connect(port)) {
            assertThat(info(c, "tide_heap_governor_cycles")).isZero();
            String value = "x".repeat(1000);
            for (int i = 0; i < 150_000; i += 500) {
                for (int j = 0; j < 500; j++) c.sendCommand("SET", "key:" + (i + j), value);
                for (int j = 0; j < 500; j++) assertThat(c.readReply()).isEqualTo("+OK\r\n");
            }
            long full = info(c, "tide_heap_used");
            assertThat(full).isGreaterThan(150_000_000L);
            assertThat(c.call("FLUSHALL")).isEqualTo("+OK\r\n");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long cycles = 0;
            long used = full;
            while (System.nanoTime() < deadline && (cycles == 0 || used > full / 3)) {
                Thread.sleep(200);
                c.call("PING"); // some allocation, so that young collections (and the mixed ones) happen
                cycles = info(c, "tide_heap_governor_cycles");
                used = info(c, "tide_heap_used");
            }
            assertThat(cycles).as("cycles the governor asked for").isPositive();
            assertThat(used).as("heap in use after the cycle, of %d before the flush", full).isLessThan(full / 3);
        } finally {
            p.destroy();
            if (!p.waitFor(20, TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
        }
    }

    private static RawClient connect(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                RawClient c = new RawClient(port);
                if (c.call("PING").equals("+PONG\r\n")) return c;
                c.close();
            } catch (IOException e) {
                if (System.nanoTime() > deadline) throw e;
            }
            Thread.sleep(50);
        }
    }

    private static long info(RawClient c, String field) throws IOException {
        for (String line : c.call("INFO", "memory").split("\r\n")) {
            if (line.startsWith(field + ":")) return Long.parseLong(line.substring(field.length() + 1));
        }
        throw new AssertionError(field + " not in INFO memory");
    }
}
