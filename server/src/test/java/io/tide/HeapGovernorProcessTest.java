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
 * heap. And when only some of the values die (no region empties), it drives the mixed collections that free them
 * even though the idle server allocates nothing. Under Shenandoah it steers the soft maximum instead.
 */
class HeapGovernorProcessTest {

    @TempDir
    Path dir;

    @Test
    void flushedBytesInTheOldGeneration_areReclaimedByACycleTheGovernorAsksFor() throws Exception {
        Process p = launch();
        try (RawClient c = connect(port)) {
            assertThat(info(c, "tide_heap_governor_cycles")).isZero();
            long full = fill(c);
            assertThat(c.call("FLUSHALL")).isEqualTo("+OK\r\n");
            awaitReclaimed(c, full, full / 3);
        } finally {
            stop(p);
        }
    }

    /**
     * Three keys in four deleted: no old region is empty, so only mixed collections give the bytes back, and they ride on
     * young collections, which an idle server does not have; the governor drives them.
     */
    @Test
    void mostlyDeletedValues_areReclaimedWhileTheServerIsIdle() throws Exception {
        Process p = launch();
        try (RawClient c = connect(port)) {
            long full = fill(c);
            for (int i = 0; i < KEYS; i += 1000) {
                for (int j = 0; j < 1000; j++) if (j % 4 != 0) c.sendCommand("DEL", "key:" + (i + j));
                for (int j = 0; j < 750; j++) assertThat(c.readReply()).isEqualTo(":1\r\n");
            }
            awaitReclaimed(c, full, full * 6 / 10);
            assertThat(c.call("DBSIZE")).isEqualTo(":" + KEYS / 4 + "\r\n");
        } finally {
            stop(p);
        }
    }

    /**
     * One ZADD of 1M members: its 2M arguments (30 MB) stay live until it runs, so young collections promote them, and
     * the scores then die in the old generation among the members the set keeps. The server is idle afterwards: no
     * young collection comes to run the mixed ones. The dead arguments (about 45 MB) stay under the busy bar (a quarter
     * over what the server holds plus 32 MB, which the governor had before the idle bar) and over the idle one (an
     * eighth plus 16 MB), so the governor asks for a cycle and drives the mixed collections.
     */
    @Test
    void argumentsOfOneLargeCommand_areReclaimedOnceTheServerIsIdle() throws Exception {
        Process p = launch();
        try (RawClient c = connect(port)) {
            int members = 1_000_000;
            String[] zadd = new String[2 + 2 * members];
            zadd[0] = "ZADD";
            zadd[1] = "big";
            for (int i = 0; i < members; i++) {
                zadd[2 + 2 * i] = i + ".5";
                zadd[3 + 2 * i] = String.format("element:%06d", i);
            }
            c.timeout(60_000);
            assertThat(c.call(zadd)).isEqualTo(":" + members + "\r\n");
            long held = info(c, "used_memory");
            long full = info(c, "tide_heap_used");
            // 66-70 MB held (a 32-byte array per member, 25 B of member map, 12.7 B of leaf); 120 MB in use here
            // without the idle bar (no cycle is asked for then), 98-108 MB with it: G1's mixed collections stop with up
            // to G1HeapWastePercent (5%) of the committed heap still garbage, and the heap committed 190-370 MB in runs
            // of this ZADD, so the bound leaves a few MB of the waste beyond the idle bar's headroom.
            awaitReclaimed(c, full, held + held / 4 + (32 << 20));
        } finally {
            stop(p);
        }
    }

    /**
     * With the launcher's periodic collection, the governor turns it off once the committed heap holds no more than the
     * heap needs (here after the flushed bytes were reclaimed; the heap the JVM started with counts as room to give
     * back until then): at least one switch. Without the steering the count stays 0. (During the fill the governor's
     * own cycles kept the committed heap near the need, so it is not asserted that the collection came on again.)
     */
    @Test
    void periodicCollection_isTurnedOffOnceTheHeapHoldsNoMoreThanItNeeds() throws Exception {
        Process p = launch("-XX:G1PeriodicGCInterval=1000");
        try (RawClient c = connect(port)) {
            long full = fill(c);
            assertThat(c.call("FLUSHALL")).isEqualTo("+OK\r\n");
            awaitReclaimed(c, full, full / 3);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long switches = 0;
            while (System.nanoTime() < deadline && switches < 1) {
                Thread.sleep(200);
                switches = info(c, "tide_heap_governor_periodic_switches");
            }
            assertThat(switches).as("periodic collection switched off").isPositive();
        } finally {
            stop(p);
        }
    }

    /**
     * Under Shenandoah the governor keeps SoftMaxHeapSize near what the server holds (decision 0027). After a FLUSHALL
     * the idle server allocates nothing, so Shenandoah would start no cycle (its soft maximum is the 1 GB heap, and its
     * periodic cycle comes every 5 minutes by default); with the soft maximum lowered under the heap in use, it starts one
     * and the flushed bytes go.
     */
    @Test
    void shenandoah_flushedBytesAreReclaimedOnceTheSoftMaximumFollowsTheData() throws Exception {
        Process p = launchWith(List.of("-XX:+UseShenandoahGC", "-XX:+ExplicitGCInvokesConcurrent"));
        try (RawClient c = connect(port)) {
            long full = fill(c);
            long softMax = info(c, "tide_heap_soft_max");
            assertThat(softMax).as("soft maximum with the data").isBetween(info(c, "used_memory"), 1L << 30);
            assertThat(c.call("FLUSHALL")).isEqualTo("+OK\r\n");
            // The bound is half: the heap in use after the flush's cycle was 47-52 MB here and 69 MB once on CI's
            // machine, where a third (66 MB) failed; the governor's bar after a flush (a quarter over the heap in use
            // at start plus 32 MB, about 98 MB here) asks for no second cycle under it. Without a cycle all 197 MB stay.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long used = full;
            while (System.nanoTime() < deadline && used > full / 2) {
                Thread.sleep(200);
                used = info(c, "tide_heap_used");
            }
            assertThat(used).as("heap in use after the flush, of %d before", full).isLessThan(full / 2);
            long after = softMax;
            while (System.nanoTime() < deadline && after >= softMax / 2) {
                Thread.sleep(200);
                after = info(c, "tide_heap_soft_max");
            }
            assertThat(after).as("soft maximum without the data, of %d with it", softMax).isLessThan(softMax / 2);
        } finally {
            stop(p);
        }
    }

    /**
     * Shenandoah makes System.gc() concurrent by default, so that alone does not say the JVM is the server's own: without
     * the flag on the command line (a JVM that embeds Tide) the governor leaves the host's collector alone.
     */
    @Test
    void shenandoah_withoutTheLaunchersFlag_noGovernor() throws Exception {
        Process p = launchWith(List.of("-XX:+UseShenandoahGC"));
        try (RawClient c = connect(port)) {
            assertThat(c.call("INFO", "memory")).contains("tide_heap_used:").doesNotContain("tide_heap_governor");
        } finally {
            stop(p);
        }
    }

    private static final int KEYS = 150_000;
    private int port;

    private Process launch(String... jvmFlags) throws Exception {
        List<String> flags = new ArrayList<>(List.of("-XX:+UseG1GC", "-Xmn32m", "-XX:+ExplicitGCInvokesConcurrent"));
        flags.addAll(List.of(jvmFlags));
        return launchWith(flags);
    }

    private Process launchWith(List<String> gcFlags) throws Exception {
        port = RealRedis.freePort();
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g", "-XX:+UseCompactObjectHeaders"));
        cmd.addAll(gcFlags);
        cmd.addAll(List.of(
                "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "io.tide.Main",
                "--port", Integer.toString(port), "--save", ""));
        return new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("out.log").toFile()).start();
    }

    private static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
    }

    /**
     * Writes KEYS values of 1100 bytes (165 MB: promoted to the old generation); returns the heap in use then. Over
     * the 1 KB a key's entry embeds, each value is an array of its own, which only a marking cycle finds dead; embedded
     * values would be freed by the slabs' compaction and their emptied slabs reclaimed by the next young collection
     * (decision 0018), with no cycle to ask for.
     */
    private static long fill(RawClient c) throws IOException {
        String value = "x".repeat(1100);
        for (int i = 0; i < KEYS; i += 500) {
            for (int j = 0; j < 500; j++) c.sendCommand("SET", "key:" + (i + j), value);
            for (int j = 0; j < 500; j++) assertThat(c.readReply()).isEqualTo("+OK\r\n");
        }
        long full = info(c, "tide_heap_used");
        assertThat(full).isGreaterThan(150_000_000L);
        return full;
    }

    /** Waits (idle but for INFO every 200 ms) until the heap in use is under {@code bound}, with a cycle asked for. */
    private static void awaitReclaimed(RawClient c, long full, long bound) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long cycles = 0;
        long used = full;
        while (System.nanoTime() < deadline && (cycles == 0 || used > bound)) {
            Thread.sleep(200);
            cycles = info(c, "tide_heap_governor_cycles");
            used = info(c, "tide_heap_used");
        }
        assertThat(cycles).as("cycles the governor asked for").isPositive();
        assertThat(used).as("heap in use after the cycle, of %d before", full).isLessThan(bound);
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
