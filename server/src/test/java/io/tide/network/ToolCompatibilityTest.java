package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Redis's own tools work against Tide unchanged: redis-cli (interactive commands and --pipe) and redis-benchmark. */
class ToolCompatibilityTest {

    private static Server server;

    @BeforeAll
    static void start() {
        for (String tool : new String[] {"redis-cli", "redis-benchmark"}) {
            boolean present = new File("/usr/bin/" + tool).canExecute();
            if (!present && "true".equals(System.getenv("CI"))) {
                throw new IllegalStateException(tool + " is not installed; .ci/run installs redis-tools");
            }
            Assumptions.assumeTrue(present, tool + " is not installed");
        }
        server = TestServers.start(2);
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    private static String run(byte[] stdin, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        if (stdin != null) p.getOutputStream().write(stdin);
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(out, StandardCharsets.UTF_8)).isZero();
        return new String(out, StandardCharsets.UTF_8);
    }

    @Test
    void redisCli_pipeLoadsEveryKey() throws Exception {
        StringBuilder in = new StringBuilder();
        for (int i = 0; i < 5000; i++) {
            String k = "pipe:" + i;
            in.append("*3\r\n$3\r\nSET\r\n$").append(k.length()).append("\r\n").append(k).append("\r\n$1\r\nv\r\n");
        }
        String out = run(in.toString().getBytes(StandardCharsets.US_ASCII),
                "redis-cli", "-p", Integer.toString(server.port()), "--pipe");
        assertThat(out).contains("errors: 0, replies: 5000");
        assertThat(run(null, "redis-cli", "-p", Integer.toString(server.port()), "EXISTS", "pipe:0", "pipe:4999"))
                .isEqualTo("2\n");
    }

    @Test
    void redisCli_commandsAndRespVersions() throws Exception {
        String port = Integer.toString(server.port());
        assertThat(run(null, "redis-cli", "-p", port, "SET", "cli", "hello")).isEqualTo("OK\n");
        assertThat(run(null, "redis-cli", "-p", port, "GET", "cli")).isEqualTo("hello\n");
        assertThat(run(null, "redis-cli", "-3", "-p", port, "GET", "cli")).isEqualTo("hello\n");
        assertThat(run(null, "redis-cli", "-p", port, "INFO", "server")).contains("redis_version:").contains("tcp_port:" + port);
        assertThat(run(null, "redis-cli", "-p", port, "NOSUCH")).startsWith("ERR unknown command 'NOSUCH'");
    }

    @Test
    void redisBenchmark_runsItsStringTests() throws Exception {
        List<String> cmd = new ArrayList<>(List.of("redis-benchmark", "-p", Integer.toString(server.port()),
                "-n", "2000", "-c", "5", "-r", "1000", "-P", "4", "-t", "ping,set,get,incr,mset", "-q"));
        String out = run(null, cmd.toArray(new String[0]));
        for (String test : new String[] {"PING_INLINE", "PING_MBULK", "SET", "GET", "INCR", "MSET (10 keys)"}) {
            assertThat(out).contains(test + ": ");
        }
        assertThat(out).doesNotContain("ERR ").doesNotContain("error");
    }
}
