package io.tide;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** tide-server as a child process: its exit codes, messages, startup log and SIGTERM shutdown. */
class MainProcessTest {

    @TempDir
    Path dir;

    private Process launch(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "io.tide.Main"));
        cmd.addAll(List.of(args));
        // Run in the test's directory: the standalone profile has save points, so SIGTERM writes a dump.rdb there.
        return new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile())
                .start();
    }

    private String output() throws IOException {
        return Files.readString(dir.resolve("out.log"), StandardCharsets.UTF_8);
    }

    private int finish(Process p) throws InterruptedException {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("tide-server did not exit");
        }
        return p.exitValue();
    }

    @Test
    void unknownOption_exitsWith2_andOneLineReason() throws Exception {
        assertThat(finish(launch("--bogus", "1"))).isEqualTo(2);
        assertThat(output().strip()).isEqualTo("tide: unknown option '--bogus'");
    }

    @Test
    void unknownProfile_exitsWith2() throws Exception {
        assertThat(finish(launch("--profile", "bogus"))).isEqualTo(2);
        assertThat(output().strip()).isEqualTo("tide: unknown --profile 'bogus' (supported: standalone)");
    }

    @Test
    void helpAndVersion_exit0() throws Exception {
        assertThat(finish(launch("--help"))).isZero();
        assertThat(output()).contains("--shards").contains("--io-driver").contains("Default: 6379");
        assertThat(finish(launch("--version"))).isZero();
        assertThat(output()).startsWith("Tide server v=");
    }

    @Test
    void checkConfig_validatesAFile() throws Exception {
        Path conf = dir.resolve("tide.conf");
        Files.writeString(conf, "port 7001\nshards 2\n");
        assertThat(finish(launch("--check-config", conf.toString()))).isZero();
        Files.writeString(conf, "port 7001\nnosuchdirective 1\n");
        assertThat(finish(launch("--check-config", conf.toString()))).isEqualTo(2);
        assertThat(output()).contains("unknown option 'nosuchdirective'");
    }

    @Test
    void sigterm_stopsTheServerCleanly_andTheLogSaysWhatStarted() throws Exception {
        int port = RealRedis.freePort();
        Path pid = dir.resolve("tide.pid");
        Process p = launch("--port", Integer.toString(port), "--shards", "2", "--pidfile", pid.toString());
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String pong = null;
            // Until the dataset is loaded the server answers -LOADING, as Redis does, from the moment its port opens.
            while ((pong == null || pong.startsWith("-LOADING")) && System.nanoTime() < deadline) {
                try (RawClient c = new RawClient(port)) {
                    pong = c.call("PING");
                } catch (IOException e) {
                    Thread.sleep(50);
                }
            }
            assertThat(pong).isEqualTo("+PONG\r\n");
            // Main writes the pidfile once the server has started, which may be just after the first PONG.
            while (!Files.exists(pid) && System.nanoTime() < deadline) Thread.sleep(20);
            assertThat(Files.readString(pid).strip()).isEqualTo(Long.toString(p.pid()));
            p.destroy(); // SIGTERM
            assertThat(finish(p)).isZero();
        } finally {
            p.destroyForcibly();
        }
        String log = output();
        assertThat(log).contains("started: port=" + port).contains("shards=2").contains("io-driver=")
                .contains("pid=" + p.pid()).contains("profile=standalone").contains("Tide stopped");
        assertThat(Files.exists(pid)).isFalse();
    }
}
