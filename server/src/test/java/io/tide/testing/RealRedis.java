package io.tide.testing;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real {@code redis-server} child process on a free port, for tests that compare replies with
 * Redis. On CI (CI=true) its absence fails the test; elsewhere the test is skipped. Not thread-safe.
 */
public final class RealRedis implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path dir;
    /** Whether {@link #close} deletes {@link #dir} (not for a directory the caller gave). */
    private final boolean ownsDir;

    private RealRedis(Process process, int port, Path dir) {
        this(process, port, dir, true);
    }

    private RealRedis(Process process, int port, Path dir, boolean ownsDir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
        this.ownsDir = ownsDir;
    }

    public static String binary() {
        for (String p : new String[] {"/usr/bin/redis-server", "/usr/local/bin/redis-server"}) {
            if (new File(p).canExecute()) return p;
        }
        return null;
    }

    /** Starts redis-server with no persistence on a free loopback port. */
    public static RealRedis start() throws IOException, InterruptedException {
        return startWith();
    }

    /**
     * Starts redis-server as {@link #start()} does, with {@code extraArgs} after the defaults (so they override them,
     * e.g. {@code "--appendonly", "yes"}). Its data directory is {@link #dir()}.
     */
    public static RealRedis startWith(String... extraArgs) throws IOException, InterruptedException {
        String bin = binary();
        if (bin == null) {
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException("redis-server is not installed; .ci/run installs it");
            }
            Assumptions.abort("redis-server is not installed");
        }
        int port = freePort();
        Path dir = Files.createTempDirectory("tide-real-redis");
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(bin, "--port",
                Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
                dir.toString(), "--daemonize", "no"));
        command.addAll(java.util.List.of(extraArgs));
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                return new RealRedis(p, port, dir);
            } catch (IOException e) {
                Thread.sleep(20);
            }
        }
        p.destroyForcibly();
        throw new IllegalStateException("redis-server did not start");
    }

    public int port() {
        return port;
    }

    /**
     * Starts redis-server on a free loopback port with {@code --dir dir --dbfilename dbfilename}, so that it loads
     * that file if present and SAVE writes it there; no automatic saves, no AOF. {@link #close} leaves {@code dir}.
     * Fails (rather than skips) when the server does not come up, with the tail of its log, e.g. a load error.
     */
    public static RealRedis startWithFile(Path dir, String dbfilename) throws IOException, InterruptedException {
        String bin = binary();
        if (bin == null) {
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException("redis-server is not installed; .ci/run installs it");
            }
            Assumptions.abort("redis-server is not installed");
        }
        int port = freePort();
        Path log = dir.resolve("redis-" + port + ".log");
        Process p = new ProcessBuilder(bin, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--dbfilename", dbfilename,
                "--daemonize", "no")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline && p.isAlive()) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                // Redis accepts connections while it loads the file and answers -LOADING until it is done.
                if (answersPong(s)) return new RealRedis(p, port, dir, false);
                Thread.sleep(20);
            } catch (IOException e) {
                Thread.sleep(20);
            }
        }
        p.destroyForcibly();
        throw new IllegalStateException("redis-server did not start: " + Files.readString(log));
    }

    private static boolean answersPong(Socket s) throws IOException {
        s.setSoTimeout(10_000);
        s.getOutputStream().write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        java.io.InputStream in = s.getInputStream();
        StringBuilder line = new StringBuilder();
        for (int c; (c = in.read()) != -1 && c != '\n'; ) line.append((char) c);
        return line.toString().startsWith("+PONG");
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The server's {@code --dir}; deleted by {@link #close()}. */
    public Path dir() {
        return dir;
    }

    /** Stops the server (SIGTERM: Redis shuts down cleanly, fsyncing its AOF) and keeps {@link #dir()}. */
    public void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        if (!ownsDir) return;
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }
}
