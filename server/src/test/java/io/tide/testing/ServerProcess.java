package io.tide.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

/** A tide-server in a process of its own (io.tide.Main on this test JVM's class path), for tests that kill it. */
public final class ServerProcess {
    private ServerProcess() {}

    /** The command line: this JVM's java, the flags the launcher and the jar's manifest give, then {@code args}. */
    public static List<String> command(String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
                "--add-exports", "java.base/jdk.internal.vm=ALL-UNNAMED", // as the jar's manifest: scripts inline
                "-cp", System.getProperty("java.class.path"), "io.tide.Main"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * Starts one on {@code port} in {@code dir} with {@code args}, its output to {@code log}, and returns once it answers
     * PING; if it does not within 60 s it is killed and the error carries its log.
     */
    public static Process start(Path dir, Path log, int port, String... args) throws Exception {
        List<String> cmd = command("--port", Integer.toString(port));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try (Jedis j = new Jedis("127.0.0.1", port, 1000)) {
                if ("PONG".equals(j.ping())) return p;
            } catch (JedisException e) {
                Thread.sleep(50);
            }
        }
        p.destroyForcibly().waitFor();
        throw new AssertionError("tide-server did not start: " + Files.readString(log));
    }
}
