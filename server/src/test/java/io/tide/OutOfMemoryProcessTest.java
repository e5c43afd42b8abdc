package io.tide;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.util.OutOfMemory;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * tide-server as a child JVM with a 64 MB heap and no maxmemory: the implicit limit refuses writes with -OOM before the
 * heap runs out while reads, PING and DEL go on; an allocation that cannot be refused early (a bulk bigger than the
 * free heap, read by the decoder) ends the process with exit code 3 and a log line instead of leaving it half-dead;
 * SIGTERM still stops a full server cleanly.
 */
class OutOfMemoryProcessTest {

    private static final String OOM = "-OOM command not allowed when used memory > 'maxmemory'.\r\n";

    @TempDir
    Path dir;

    private Process launch(int port) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:+UseCompactObjectHeaders", "-XX:+UseG1GC", "-Xmn32m",
                "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "io.tide.Main",
                "--port", Integer.toString(port), "--save", ""));
        return new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("out.log").toFile()).start();
    }

    private static void awaitPing(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try (RawClient c = new RawClient(port)) {
                String r = c.call("PING");
                if (!r.startsWith("-LOADING")) { // the server answers -LOADING until its (empty) dataset is loaded
                    assertThat(r).isEqualTo("+PONG\r\n");
                    return;
                }
                Thread.sleep(20);
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        throw new AssertionError("tide-server did not answer");
    }

    /** Writes 1000-byte values, 100 per pipeline, until the first -OOM; returns the keys written. */
    private static int fill(RawClient c) throws IOException {
        String value = "x".repeat(1000);
        int written = 0;
        for (int i = 0; i < 1_000_000; i += 100) {
            for (int j = 0; j < 100; j++) c.sendCommand("SET", "key:" + (i + j), value);
            boolean refused = false;
            for (int j = 0; j < 100; j++) {
                String r = c.readReply();
                if (r.equals(OOM)) {
                    refused = true;
                } else {
                    assertThat(r).isEqualTo("+OK\r\n");
                    written++;
                }
            }
            if (refused) return written;
        }
        throw new AssertionError("never refused");
    }

    private static int finish(Process p) throws InterruptedException {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("tide-server did not exit");
        }
        return p.exitValue();
    }

    @Test
    void fullHeap_refusesWritesKeepsServing_thenAnUnrefusableAllocationExits3() throws Exception {
        int port = RealRedis.freePort();
        Process p = launch(port);
        try {
            awaitPing(port);
            try (RawClient c = new RawClient(port)) {
                c.timeout(60_000);
                int keys = fill(c);
                assertThat(keys).isGreaterThan(20_000); // about 45 MB of 1000-byte values
                assertThat(c.call("SET", "one-more", "v")).isEqualTo(OOM);
                assertThat(c.call("PING")).isEqualTo("+PONG\r\n");
                assertThat(c.call("GET", "key:7")).isEqualTo("$1000\r\n" + "x".repeat(1000) + "\r\n");
                assertThat(c.call("DEL", "key:8")).isEqualTo(":1\r\n");
                assertThat(c.call("DBSIZE")).isEqualTo(":" + (keys - 1) + "\r\n");
            }
            // A 48 MB bulk: the decoder grows its array fourfold past 1 MiB, and the heap has no room for it.
            try (Socket s = new Socket("127.0.0.1", port)) {
                OutputStream out = s.getOutputStream();
                int len = 48 << 20;
                out.write(("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$" + len + "\r\n").getBytes(StandardCharsets.US_ASCII));
                byte[] chunk = new byte[1 << 20];
                try {
                    for (int sent = 0; sent < len; sent += chunk.length) out.write(chunk);
                } catch (IOException closed) {
                    // the process went away mid-write
                }
            }
            assertThat(finish(p)).isEqualTo(OutOfMemory.EXIT_CODE);
        } finally {
            p.destroyForcibly();
        }
        assertThat(Files.readString(dir.resolve("out.log"))).contains("Out of memory in connection")
                .contains("java.lang.OutOfMemoryError").contains("exiting with code 3");
    }

    @Test
    void fullHeap_sigtermStillStopsIt() throws Exception {
        int port = RealRedis.freePort();
        Process p = launch(port);
        try {
            awaitPing(port);
            try (RawClient c = new RawClient(port)) {
                c.timeout(60_000);
                fill(c);
            }
            p.destroy(); // SIGTERM
            assertThat(finish(p)).isZero();
        } finally {
            p.destroyForcibly();
        }
        assertThat(Files.readString(dir.resolve("out.log"))).contains("Tide stopped");
    }
}
