package io.tide.bench;

import io.tide.Server;
import io.tide.Tide;
import io.tide.config.ConfigRegistry;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Start time and footprint of an embedded server (bin/bench-embedded runs it). Runs on the main thread only.
 *
 * <p>{@code cold}: one {@code Tide.start("--port", "0", "--save", "")} in this (fresh) JVM, timed to the first PONG read from a
 * plain socket, and from the JVM's start to that PONG, with the CPU time spent meanwhile (main thread, process); then the idle footprint: heap used after a full GC (before the
 * start and with the server idle), RSS, and the threads the server added, by name. {@code warm N}: N starts and
 * closes in one JVM after a few unmeasured ones, each timed to its first PONG; prints the median and the worst.
 * {@code cold-registry}: as {@code cold}, through {@code Tide.start(ConfigRegistry)} (the JUnit extension's way, without
 * picocli's option parsing). Extra arguments after the mode go to {@code Tide.start} ({@code --name value} pairs).
 */
public final class EmbeddedStartup {

    private EmbeddedStartup() {}

    /** cold-registry: starts with {@code Tide.start(ConfigRegistry)}, as the JUnit extension does (no option parsing). */
    private static boolean registry;

    private static Server start(String[] extra) {
        if (!registry) return Tide.start(startArgs(extra));
        ConfigRegistry config = ConfigRegistry.standard();
        String[] a = startArgs(extra);
        for (int i = 0; i + 1 < a.length; i += 2) config.setInitial(a[i].substring(2), a[i + 1]);
        return Tide.start(config);
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "cold";
        if (mode.equals("cold")) {
            cold(Arrays.copyOfRange(args, 1, args.length));
        } else if (mode.equals("cold-registry")) {
            registry = true;
            cold(Arrays.copyOfRange(args, 1, args.length));
        } else if (mode.equals("warm")) {
            int n = args.length > 1 ? Integer.parseInt(args[1]) : 20;
            warm(n, Arrays.copyOfRange(args, 2, args.length));
        } else {
            System.err.println("usage: EmbeddedStartup cold|warm [N] [tide options]");
            System.exit(2);
        }
    }

    private static String[] startArgs(String[] extra) {
        // No save points: an embedded server writes no dump.rdb unless asked (tide-server's profile sets Redis's).
        List<String> a = new ArrayList<>(List.of("--port", "0", "--save", "", "--dir",
                System.getProperty("java.io.tmpdir")));
        a.addAll(List.of(extra));
        return a.toArray(String[]::new);
    }

    private static void cold(String[] extra) throws Exception {
        long jvmStartMs = ManagementFactory.getRuntimeMXBean().getStartTime();
        Set<String> before = threadNames();
        long heapBefore = heapAfterGc();
        var threads = ManagementFactory.getThreadMXBean();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = threads.getCurrentThreadCpuTime();
        long proc0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        try (Server server = start(extra)) {
            ping(server.port());
            long startToPong = System.nanoTime() - t0;
            long jvmToPong = System.currentTimeMillis() - jvmStartMs;
            long mainCpu = threads.getCurrentThreadCpuTime() - cpu0;
            long procCpu = os.getProcessCpuTime() - proc0;
            Thread.sleep(2000); // idle: the crons have run, nothing else happens
            long heapIdle = heapAfterGc();
            Thread.sleep(500);
            long rss = rssBytes();
            TreeMap<String, Integer> added = new TreeMap<>();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (!before.contains(t.getName()) && t.isAlive()) added.merge(t.getName(), 1, Integer::sum);
            }
            System.out.printf("cold: Tide.start -> first PONG %.1f ms; JVM start -> first PONG %d ms%n",
                    startToPong / 1e6, jvmToPong);
            // CPU time is steadier than wall time on a shared machine: the main thread's, and the whole process's
            // (JIT compiler and GC threads included), over the same span.
            System.out.printf("cpu: Tide.start -> first PONG main thread %.1f ms, process %.1f ms%n", mainCpu / 1e6,
                    procCpu / 1e6);
            System.out.printf("idle: heap used after GC %.1f MB (%.1f MB before the start, +%.1f MB), RSS %.1f MB%n",
                    heapIdle / 1e6, heapBefore / 1e6, (heapIdle - heapBefore) / 1e6, rss / 1e6);
            System.out.printf("threads the server added: %d %s%n", added.values().stream().mapToInt(i -> i).sum(),
                    added.entrySet().stream().map(e -> e.getKey() + (e.getValue() > 1 ? " x" + e.getValue() : ""))
                            .collect(Collectors.joining(", ", "[", "]")));
        }
    }

    private static void warm(int n, String[] extra) throws Exception {
        for (int i = 0; i < 5; i++) {
            try (Server server = Tide.start(startArgs(extra))) {
                ping(server.port());
            }
        }
        long[] ns = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            try (Server server = Tide.start(startArgs(extra))) {
                ping(server.port());
                ns[i] = System.nanoTime() - t0;
            }
        }
        Arrays.sort(ns);
        System.out.printf("warm: Tide.start -> first PONG over %d starts: median %.2f ms, max %.2f ms%n", n,
                ns[n / 2] / 1e6, ns[n - 1] / 1e6);
    }

    /** Connects, sends PING and waits for +PONG. */
    private static void ping(int port) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[7];
            int got = 0;
            while (got < buf.length) {
                int r = in.read(buf, got, buf.length - got);
                if (r < 0) throw new IllegalStateException("connection closed before PONG");
                got += r;
            }
            String reply = new String(buf, StandardCharsets.US_ASCII);
            if (!reply.equals("+PONG\r\n")) throw new IllegalStateException("unexpected reply " + reply);
        }
    }

    private static Set<String> threadNames() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).collect(Collectors.toSet());
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long rssBytes() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
        }
        return -1;
    }
}
