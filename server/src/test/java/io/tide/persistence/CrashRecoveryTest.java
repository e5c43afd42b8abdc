package io.tide.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RealRedis;
import io.tide.util.Crc16;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Runs on JUnit's thread, which starts Tide as a child JVM, starts writer threads (each owning one Jedis connection
 * and the record of what it sent and what was acknowledged, read by the test thread only after joining them), kills
 * the child with SIGKILL while they write, restarts it on the same directory and checks every acknowledged write;
 * children are killed in finally and in {@link #killChildren}.
 *
 * <p>The durability claim of DESIGN §4 and decision 0007: under {@code appendfsync always} and {@code everysec} a
 * killed process loses nothing that was acknowledged (the bytes are write(2)n before the reply leaves), and an
 * operation spanning shards comes back whole or not at all. Values are per-writer increasing counters, so a recovered
 * value is decidable: it must be the last acknowledged one or one sent later (in flight at the kill). Each round
 * writes keys of its own and the state recovered by earlier rounds must survive the later kills unchanged.
 *
 * <p>{@code -Dtide.crash.reps=N} (default 2, about 2 minutes in all on 2 cores) rounds per cell, each with another
 * random kill time; {@code -Dtide.crash.seed=S} replays a run's random choices (the seed is in every failure
 * message); {@code -Dtide.crash.kinds=LIST,STREAM} narrows the data types the writers mix and
 * {@code -Dtide.crash.cells=everysec} the write cells. A failed round leaves the directory as the kill left it under
 * {@code server/target/crash-failures/}.
 */
class CrashRecoveryTest {

    private static final int REPS = Integer.getInteger("tide.crash.reps", 2);
    private static final long SEED = Long.getLong("tide.crash.seed", System.nanoTime());
    /** {@code -Dtide.crash.cells=REGEX}: only the write cells whose name ("everysec shards=4") matches. */
    private static final java.util.regex.Pattern CELLS =
            java.util.regex.Pattern.compile(System.getProperty("tide.crash.cells", ""));
    private static final int WRITERS = 4;
    private static final long START_TIMEOUT_MS = 60_000;

    @TempDir
    Path dir;

    private final List<Process> children = new ArrayList<>();
    private Random rnd;
    private String cell;
    private int starts;

    @AfterEach
    void killChildren() throws InterruptedException {
        for (Process p : children) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private void init(TestInfo info) {
        cell = info.getDisplayName();
        rnd = new Random(SEED ^ cell.hashCode());
    }

    // ------------------------------------------------------------------ the matrix

    enum Kind { STRING, LIST, HASH, ZSET, STREAM, CROSS, SCRIPT }

    /**
     * {@code -Dtide.crash.kinds=LIST,STREAM}: the data types each writer mixes (default all); every operation picks
     * one of them at random, so one kill hits all of them at once and the matrix stays small enough for CI.
     */
    private static final List<Kind> KINDS = Arrays.stream(System.getProperty("tide.crash.kinds",
            "STRING,LIST,HASH,ZSET,STREAM,CROSS,SCRIPT").split(",")).map(String::strip).map(Kind::valueOf).toList();

    static Stream<Arguments> cells() {
        List<Arguments> out = new ArrayList<>();
        for (String fsync : List.of("always", "everysec")) {
            for (int shards : new int[] {1, 4}) {
                if (CELLS.matcher(fsync + " shards=" + shards).find()) out.add(Arguments.of(fsync, shards));
            }
        }
        return out.stream();
    }

    /**
     * Writers of every data type (and of key pairs across shards) write as fast as they can for 200-800 ms and the
     * child is killed under them; the restart must hold every acknowledged write. The next round's writers already
     * connect while the child restarts, before it answers PING (the listener opens before the AOF is loaded and its
     * writers attached: a write acknowledged in between must reach the files too; round 0's do so on an empty
     * directory). Each round checks the previous one's keys while its own writers run on other keys.
     */
    @ParameterizedTest(name = "{0} shards={1}")
    @MethodSource("cells")
    void killedWhileWriting_losesNoAcknowledgedWrite(String fsync, int shards, TestInfo info) throws Exception {
        init(info);
        String[] args = {"--appendonly", "yes", "--appendfsync", fsync, "--shards", Integer.toString(shards)};
        Map<String, Object> earlier = new TreeMap<>();
        int port = RealRedis.freePort();
        List<Writer> writers = eagerWriters(0, port, shards);
        Child child = launch(port, args);
        awaitPong(child);
        long acked = 0;
        for (int round = 0; round < REPS; round++) {
            String prefix = "r" + round + ":";
            String nextPrefix = "r" + (round + 1) + ":";
            runAndKill(child, writers, 200 + rnd.nextInt(601));
            kept = keepAtKill(round);
            port = RealRedis.freePort();
            List<Writer> next = round + 1 < REPS ? eagerWriters(round + 1, port, shards) : List.of();
            child = launch(port, args);
            awaitPong(child);
            List<String> problems = new ArrayList<>();
            long loading = 0;
            try (Jedis j = child.jedis()) {
                for (Writer w : writers) {
                    w.feed.verify(j, problems);
                    acked += w.acked;
                    loading += w.loadingReplies;
                }
                checkEarlierRounds(j, earlier, List.of(prefix, nextPrefix), problems);
                earlier = snapshot(j, nextPrefix);
            }
            System.out.printf("[crash] %s round %d: %d -LOADING replies to the first writes%n", cell, round, loading);
            report(child, round, writers, problems);
            writers = next;
        }
        assertThat(acked).as("acknowledged writes").isPositive();
    }

    /** {@link #WRITERS} writers of round {@code round}, started: they connect as soon as {@code port} accepts. */
    private List<Writer> eagerWriters(int round, int port, int shards) {
        List<Writer> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            String prefix = "r" + round + ":" + w + ":";
            List<Feed> feeds = new ArrayList<>();
            for (Kind k : KINDS) feeds.add(feed(k, prefix + k.name().toLowerCase(java.util.Locale.ROOT) + ":", shards));
            Writer writer = new Writer(port, new MixedFeed(feeds), w % 2 == 0, new Random(rnd.nextLong()));
            writer.eager = true;
            writer.thread.start();
            writers.add(writer);
        }
        return writers;
    }

    /** Each operation from one of several feeds, at random. */
    static final class MixedFeed extends Feed {
        final List<Feed> feeds;

        MixedFeed(List<Feed> feeds) {
            this.feeds = feeds;
        }

        @Override
        Op next(Random rnd, boolean pipelined) {
            return feeds.get(rnd.nextInt(feeds.size())).next(rnd, pipelined);
        }

        @Override
        void verify(Jedis j, List<String> problems) {
            for (Feed f : feeds) f.verify(j, problems);
        }
    }

    // ------------------------------------------------------------------ BGREWRITEAOF

    enum RewriteKill { AFTER_REPLY, IN_PROGRESS, AFTER_DONE }

    static Stream<Arguments> rewriteCells() {
        return Stream.of(Arguments.of("always", 0), Arguments.of("everysec", 1));
    }

    /**
     * Writers (strings with DELs) and a fifth that deletes or overwrites keys of a loaded base keep going while
     * BGREWRITEAOF runs; the kill comes right after its reply, while INFO says it is in progress, or right after it
     * finished (the manifest switch and the deletion of the history). Nothing acknowledged is lost, no deleted key
     * comes back.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("rewriteCells")
    void killedDuringBgrewriteaof_losesNothing_andResurrectsNothing(String fsync, int firstKill, TestInfo info)
            throws Exception {
        init(info);
        String[] args = {"--appendonly", "yes", "--appendfsync", fsync, "--shards", "4"};
        Child child = start(args);
        Map<String, Object> earlier = new TreeMap<>();
        int bigKeys = 50_000;
        for (int round = 0; round < REPS; round++) {
            // The kill point cycles with the round: -Dtide.crash.reps=3 or more covers every one under both policies.
            RewriteKill when = RewriteKill.values()[(firstKill + round) % RewriteKill.values().length];
            String prefix = "r" + round + ":";
            try (Jedis j = child.jedis()) {
                populate(j, prefix + "big:", bigKeys);
            }
            List<Writer> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                writers.add(new Writer(child.port, new StringFeed(prefix + w + ":"), w % 2 == 0,
                        new Random(rnd.nextLong())));
            }
            BigFeed big = new BigFeed(prefix + "big:", bigKeys, new Random(rnd.nextLong()));
            writers.add(new Writer(child.port, big, true, new Random(rnd.nextLong())));
            String seen;
            long writeMs = 50 + rnd.nextInt(250);
            try {
                startWriters(writers);
                Thread.sleep(writeMs);
                seen = rewriteThenKill(child, when, writers);
            } finally {
                child.kill();
                joinWriters(writers);
            }
            List<String> listing = listing();
            kept = keepAtKill(round);
            child = start(args);
            List<String> problems = new ArrayList<>();
            try (Jedis j = child.jedis()) {
                for (Writer w : writers) w.feed.verify(j, problems);
                checkEarlierRounds(j, earlier, List.of(prefix), problems);
                earlier = snapshot(j, null);
            }
            System.out.printf("[crash] %s round %d: killed %s (%s); files at the kill %s; after restart %s%n", cell,
                    round, when, seen, listing, listing());
            report(child, round, writers, problems);
        }
    }

    /** BGREWRITEAOF from a connection of its own, then the kill at the chosen point; says what INFO showed. */
    private String rewriteThenKill(Child child, RewriteKill when, List<Writer> writers) throws Exception {
        try (Jedis c = child.jedis()) {
            Object reply = c.sendCommand(Protocol.Command.BGREWRITEAOF);
            String r = new String((byte[]) reply, StandardCharsets.UTF_8);
            assertThat(r).as("BGREWRITEAOF").contains("rewriting");
            if (when == RewriteKill.AFTER_REPLY) {
                killNow(child, writers);
                return "right after the reply";
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            boolean sawRunning = false;
            int polls = 0;
            while (System.nanoTime() < deadline) {
                String info = c.info("persistence");
                polls++;
                boolean running = info.contains("aof_rewrite_in_progress:1");
                if (running) sawRunning = true;
                if (when == RewriteKill.IN_PROGRESS && running) {
                    killNow(child, writers);
                    return "aof_rewrite_in_progress:1 after " + polls + " INFO";
                }
                if (when == RewriteKill.IN_PROGRESS && !running && polls > 1) {
                    throw new AssertionError("the rewrite ended before INFO showed it in progress: the test's base is "
                            + "too small for this machine (" + info + ")");
                }
                if (when == RewriteKill.AFTER_DONE && !running) {
                    Thread.sleep(rnd.nextInt(30));
                    killNow(child, writers);
                    return "after it finished, seen running: " + sawRunning + ", " + polls + " INFO";
                }
            }
            throw new AssertionError("BGREWRITEAOF did not finish within 30 s");
        }
    }

    private List<String> listing() throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(dir)) {
            s.filter(Files::isRegularFile).map(p -> dir.relativize(p) + "(" + size(p) + ")")
                    .filter(n -> !n.startsWith("child-")).sorted().forEach(out::add);
        }
        return out;
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return -1;
        }
    }

    // ------------------------------------------------------------------ BGSAVE

    /**
     * {@code --appendonly no}: a SAVE, then changes, then BGSAVE and a kill while it writes (right after its reply,
     * or once INFO shows it running). The restart loads the last complete dump.rdb: the SAVE's contents exactly while
     * dump.rdb is the SAVE's file, the BGSAVE's exactly if the rename happened before the kill; never a partial file.
     */
    @org.junit.jupiter.api.Test
    void killedDuringBgsave_loadsTheLastCompleteDump(TestInfo info) throws Exception {
        init(info);
        // An RDB file does not depend on the shard count: the rounds alternate 4 and 1 shards.
        Child child = start("--appendonly", "no", "--shards", "4");
        int keys = 40_000;
        for (int round = 0; round < REPS; round++) {
            String[] args = {"--appendonly", "no", "--shards", round % 2 == 0 ? "1" : "4"};
            String gen = "g" + round;
            try (Jedis j = child.jedis()) {
                j.flushAll();
                populate(j, "k:", keys);
                assertThat(j.save()).isEqualTo("OK");
                byte[] saved = Files.readAllBytes(dir.resolve("dump.rdb"));
                // The second state: a third of the keys overwritten, a third deleted, new keys.
                Pipeline p = j.pipelined();
                for (int i = 0; i < keys; i++) {
                    if (i % 3 == 0) p.set("k:" + i, gen + ":" + i);
                    else if (i % 3 == 1) p.del("k:" + i);
                    if (i % 2 == 0) p.set("n:" + i, bigValue(i));
                }
                p.sync();
                Object reply = j.sendCommand(Protocol.Command.BGSAVE);
                assertThat(new String((byte[]) reply, StandardCharsets.UTF_8)).contains("saving started");
                String seen = "right after the reply";
                if (round % 2 == 1) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (System.nanoTime() < deadline && !j.info("persistence").contains("rdb_bgsave_in_progress:1")) {
                        Thread.onSpinWait();
                    }
                    seen = "rdb_bgsave_in_progress:1";
                }
                child.kill();
                List<String> atKill = listing();
                kept = keepAtKill(round);
                boolean replaced = !Arrays.equals(saved, Files.readAllBytes(dir.resolve("dump.rdb")));
                child = start(args);
                List<String> afterStart = listing();
                System.out.printf("[crash] %s round %d: killed %s, dump.rdb replaced: %s; files at the kill %s; "
                        + "after restart %s%n", cell, round, seen, replaced, atKill, afterStart);
                List<String> problems = new ArrayList<>();
                try (Jedis r = child.jedis()) {
                    checkDump(r, keys, replaced ? gen : null, problems);
                }
                report(child, round, List.of(), problems);
            }
        }
    }

    /** The first state (gen null: populate's values only) or the second (gen's), exactly, key by key. */
    private static void checkDump(Jedis j, int keys, String gen, List<String> problems) {
        long expectedSize = keys;
        if (gen != null) {
            for (int i = 0; i < keys; i++) if (i % 3 == 1) expectedSize--;
            expectedSize += (keys + 1) / 2;
        }
        long size = j.dbSize();
        if (size != expectedSize) problems.add("dbsize " + size + ", expected " + expectedSize + " ("
                + (gen == null ? "the SAVE's" : "the BGSAVE's") + " state)");
        for (int from = 0; from < keys; from += 1000) {
            String[] names = new String[Math.min(1000, keys - from)];
            for (int i = 0; i < names.length; i++) names[i] = "k:" + (from + i);
            List<String> got = j.mget(names);
            for (int i = 0; i < names.length; i++) {
                int n = from + i;
                String want = gen == null || n % 3 == 2 ? bigValue(n) : n % 3 == 0 ? gen + ":" + n : null;
                if (!java.util.Objects.equals(want, got.get(i)) && problems.size() < 20) {
                    problems.add(names[i] + " = " + abbrev(got.get(i)) + ", expected " + abbrev(want));
                }
            }
        }
        if (gen == null && j.exists("n:0")) problems.add("n:0 exists: a key of the unfinished BGSAVE");
    }

    // ------------------------------------------------------------------ running and killing

    private void runAndKill(Child child, List<Writer> writers, long writeMs) throws Exception {
        try {
            awaitFirstAcks(writers);
            Thread.sleep(writeMs);
            killNow(child, writers);
        } finally {
            child.kill();
            joinWriters(writers);
        }
    }

    private static void startWriters(List<Writer> writers) throws InterruptedException {
        for (Writer w : writers) w.thread.start();
        awaitFirstAcks(writers);
    }

    private static void awaitFirstAcks(List<Writer> writers) throws InterruptedException {
        // The kill time counts from the first acknowledgement of every writer, so no round kills an idle server.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (Writer w : writers) {
            while (w.ackedVolatile == 0 && w.thread.isAlive() && System.nanoTime() < deadline) Thread.sleep(1);
        }
    }

    private static void killNow(Child child, List<Writer> writers) throws InterruptedException {
        for (Writer w : writers) w.killing = true;
        child.kill();
    }

    private static void joinWriters(List<Writer> writers) throws InterruptedException {
        for (Writer w : writers) {
            w.killing = true;
            w.stop = true;
            w.thread.join(TimeUnit.SECONDS.toMillis(20));
            if (w.thread.isAlive()) {
                w.thread.interrupt();
                throw new AssertionError("writer " + w.thread.getName() + " did not stop after the kill");
            }
        }
    }

    /** The directory as the kill left it, kept under target/crash-failures when the round fails. */
    private Path keepAtKill(int round) throws IOException {
        Path to = Path.of("target", "crash-failures", cell.replaceAll("[^A-Za-z0-9=_-]+", "_"), "round-" + round);
        deleteTree(to);
        Files.createDirectories(to);
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.toList()) {
                Path t = to.resolve(dir.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(t);
                else Files.copy(p, t);
            }
        }
        return to;
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) return;
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(q);
        }
    }

    private Path kept;

    private void report(Child child, int round, List<Writer> writers, List<String> problems) throws IOException {
        List<String> all = new ArrayList<>();
        long acked = 0;
        long sent = 0;
        for (Writer w : writers) {
            if (w.error != null) all.add(w.thread.getName() + " failed before the kill: " + w.error);
            acked += w.acked;
            sent += w.sent;
        }
        all.addAll(problems);
        System.out.printf("[crash] %s round %d: %d writes sent, %d acknowledged, %s%n", cell, round, sent, acked,
                all.isEmpty() ? "all recovered" : all.size() + " problems");
        if (all.isEmpty() && kept != null) {
            deleteTree(kept);
            try (Stream<Path> left = Files.list(kept.getParent())) {
                if (left.findAny().isEmpty()) Files.delete(kept.getParent());
            }
        }
        if (!all.isEmpty()) {
            throw new AssertionError(cell + ", round " + round + " (-Dtide.crash.seed=" + SEED + "; the files as the "
                    + "kill left them: " + kept + "): "
                    + String.join("\n  ", all.subList(0, Math.min(all.size(), 30))) + "\n--- log of the restarted "
                    + "child ---\n" + child.logTail());
        }
    }

    // ------------------------------------------------------------------ the child

    private final class Child {
        final Process process;
        final int port;
        final Path log;

        Child(Process process, int port, Path log) {
            this.process = process;
            this.port = port;
            this.log = log;
        }

        Jedis jedis() {
            return new Jedis("127.0.0.1", port, 10_000);
        }

        /** SIGKILL (Process.destroyForcibly on Linux), checked by the exit status 128 + 9. */
        void kill() throws InterruptedException {
            if (!process.isAlive()) {
                if (process.exitValue() != 137) {
                    throw new AssertionError("the child exited by itself with " + process.exitValue() + "\n" + logTail());
                }
                return;
            }
            process.destroyForcibly();
            if (!process.waitFor(20, TimeUnit.SECONDS)) throw new AssertionError("the child survived SIGKILL");
            assertThat(process.exitValue()).as("exit status of a SIGKILLed child").isEqualTo(128 + 9);
        }

        String logTail() {
            try {
                String s = Files.readString(log, StandardCharsets.UTF_8);
                return s.length() > 6000 ? s.substring(s.length() - 6000) : s;
            } catch (IOException e) {
                return "(no log: " + e + ")";
            }
        }
    }

    /** Starts Tide in the test's directory on a free port; returns once PING answers PONG (not -LOADING). */
    private Child start(String... args) throws Exception {
        Child c = launch(RealRedis.freePort(), args);
        awaitPong(c);
        return c;
    }

    private Child launch(int port, String... args) throws IOException {
        Path log = dir.resolve("child-" + (++starts) + ".log");
        List<String> cmd = io.tide.testing.ServerProcess.command("--port", Integer.toString(port), "--dir",
                dir.toString(), "--save", "");
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        children.add(p);
        return new Child(p, port, log);
    }

    private void awaitPong(Child c) throws InterruptedException {
        Process p = c.process;
        int port = c.port;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        String last = null;
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) throw new AssertionError(cell + ": the child exited with " + p.exitValue() + "\n" + c.logTail());
            try (Jedis j = new Jedis("127.0.0.1", port, 2000)) {
                if ("PONG".equals(j.ping())) return;
            } catch (JedisConnectionException | JedisDataException e) {
                last = e.getMessage();
            }
            Thread.sleep(20);
        }
        throw new AssertionError(cell + ": no PONG within " + START_TIMEOUT_MS + " ms (" + last + ")\n" + c.logTail());
    }

    // ------------------------------------------------------------------ writers

    /** A command (or a MULTI/EXEC of several) and what to do with its reply once acknowledged. */
    record Op(List<String[]> commands, boolean transaction, Consumer<Object> ack) {
        static Op of(Consumer<Object> ack, String... command) {
            return new Op(List.<String[]>of(command), false, ack);
        }
    }

    /** One writer's workload: makes its commands and checks what survived. Confined to the writer's thread until joined. */
    abstract static class Feed {
        /** The next operation; {@code pipelined} writers get no transactions. */
        abstract Op next(Random rnd, boolean pipelined);

        abstract void verify(Jedis j, List<String> problems);
    }

    /** A thread with its own connection, sending its feed as fast as it can, alone or in pipelines of 1 to 16. */
    static final class Writer implements Runnable {
        final int port;
        final Feed feed;
        final boolean pipelined;
        final Random rnd;
        final Thread thread;
        volatile boolean killing;
        volatile boolean stop;
        volatile long ackedVolatile;
        long sent;
        long acked;
        /** Anything but the connection error the kill causes: an error reply, or a connection error before it. */
        volatile Throwable error;
        /** Connects while the child is still starting and resends its first operation until it is acknowledged. */
        boolean eager;

        Writer(int port, Feed feed, boolean pipelined, Random rnd) {
            this.port = port;
            this.feed = feed;
            this.pipelined = pipelined;
            this.rnd = rnd;
            this.thread = new Thread(this, "crash-writer-" + feed.getClass().getSimpleName() + (pipelined ? "-pipelined" : ""));
            thread.setDaemon(true);
        }

        /** The first operation, sent again after a refused connection or -LOADING until it is acknowledged. */
        private Jedis first() throws InterruptedException {
            Op op = feed.next(rnd, true);
            String[] c = op.commands().get(0);
            sent++;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            Jedis j = null;
            while (!stop && System.nanoTime() < deadline) {
                try {
                    if (j == null) j = new Jedis("127.0.0.1", port, 10_000);
                    op.ack().accept(j.sendCommand(Protocol.Command.valueOf(c[0]), Arrays.copyOfRange(c, 1, c.length)));
                    acked++;
                    ackedVolatile = acked;
                    return j;
                } catch (JedisConnectionException e) {
                    if (j != null) j.close();
                    j = null;
                    Thread.sleep(1);
                } catch (JedisDataException e) {
                    if (!e.getMessage().startsWith("LOADING")) throw e;
                    loadingReplies++;
                }
            }
            throw new AssertionError("the first write was not acknowledged within 30 s");
        }

        long loadingReplies;

        @Override
        public void run() {
            try (Jedis j = eager ? first() : new Jedis("127.0.0.1", port, 10_000)) {
                while (!stop) {
                    if (pipelined) {
                        int n = 1 + rnd.nextInt(16);
                        Pipeline p = j.pipelined();
                        List<Op> ops = new ArrayList<>(n);
                        List<Response<Object>> replies = new ArrayList<>(n);
                        for (int i = 0; i < n; i++) {
                            Op op = feed.next(rnd, true);
                            String[] c = op.commands().get(0);
                            ops.add(op);
                            replies.add(p.sendCommand(Protocol.Command.valueOf(c[0]), Arrays.copyOfRange(c, 1, c.length)));
                        }
                        sent += n;
                        p.sync();
                        for (int i = 0; i < n; i++) {
                            ops.get(i).ack().accept(replies.get(i).get());
                        }
                        acked += n;
                    } else {
                        Op op = feed.next(rnd, false);
                        sent++;
                        Object reply;
                        if (op.transaction()) {
                            Transaction t = j.multi();
                            for (String[] c : op.commands()) {
                                t.sendCommand(Protocol.Command.valueOf(c[0]), Arrays.copyOfRange(c, 1, c.length));
                            }
                            reply = t.exec();
                            if (reply == null) throw new AssertionError("EXEC aborted without WATCH");
                        } else {
                            String[] c = op.commands().get(0);
                            reply = j.sendCommand(Protocol.Command.valueOf(c[0]), Arrays.copyOfRange(c, 1, c.length));
                        }
                        op.ack().accept(reply);
                        acked++;
                    }
                    ackedVolatile = acked;
                }
            } catch (JedisConnectionException e) {
                if (!killing) error = e;
            } catch (Throwable t) {
                error = t;
            }
            ackedVolatile = acked;
        }
    }

    private static String str(Object reply) {
        return reply == null ? null : new String((byte[]) reply, StandardCharsets.UTF_8);
    }

    private static long num(Object reply) {
        return reply instanceof Long l ? l : Long.parseLong(str(reply));
    }

    /**
     * One register written by one writer with increasing values {@code v ≡ k (mod m)}: the recovered value must be the
     * last acknowledged one or one sent after it; absent only if none was acknowledged.
     */
    static final class Reg {
        long sent;
        long acked;

        void check(String what, Long got, int mod, int k, List<String> problems) {
            if (got == null) {
                if (acked > 0) problems.add(what + " lost: last acknowledged " + acked + ", last sent " + sent);
            } else if (got < acked || got > sent || got % mod != k) {
                problems.add(what + " = " + got + ": last acknowledged " + acked + ", last sent " + sent);
            }
        }
    }

    /** A counter incremented by 1 by one writer: recovered between the last acknowledged reply and the number sent. */
    static final class Counter {
        long sent;
        long acked;
        String error;

        void ack(String what, long reply, long ordinal) {
            if (reply != ordinal && error == null) error = what + " answered " + reply + " to increment " + ordinal;
            acked = Math.max(acked, reply);
        }

        void check(String what, Long got, List<String> problems) {
            if (error != null) problems.add(error);
            if (got == null) {
                if (acked > 0) problems.add(what + " lost: last acknowledged " + acked + ", sent " + sent);
            } else if (got < acked || got > sent) {
                problems.add(what + " = " + got + ": last acknowledged " + acked + ", sent " + sent);
            }
        }
    }

    private static final int REGS = 8;

    /** SET of 8 keys, INCR of a counter, and SET then DEL of keys that are never written again. */
    static final class StringFeed extends Feed {
        final String prefix;
        final Reg[] regs = new Reg[REGS];
        final Counter counter = new Counter();
        long seq;
        long sets;
        /** Deletable keys: 0 sent nothing, 1 SET sent, 2 SET acknowledged, 3 DEL sent (SET acked or not), 4 DEL acked. */
        final List<int[]> dels = new ArrayList<>();

        StringFeed(String prefix) {
            this.prefix = prefix;
            for (int i = 0; i < REGS; i++) regs[i] = new Reg();
        }

        @Override
        Op next(Random rnd, boolean pipelined) {
            long s = ++seq;
            if (s % 4 == 0) {
                long ordinal = ++counter.sent;
                return Op.of(r -> counter.ack(prefix + "n", num(r), ordinal), "INCR", prefix + "n");
            }
            if (s % 4 == 1) {
                int[] last = dels.isEmpty() ? null : dels.get(dels.size() - 1);
                if (last == null || last[0] >= 3) {
                    int[] d = {1};
                    int id = dels.size();
                    dels.add(d);
                    return Op.of(r -> d[0] = Math.max(d[0], 2), "SET", prefix + "d" + id, "x" + id);
                }
                int[] d = last;
                d[0] = 3;
                return Op.of(r -> d[0] = 4, "DEL", prefix + "d" + (dels.size() - 1));
            }
            long v = ++sets;
            int k = (int) (v % REGS);
            Reg reg = regs[k];
            reg.sent = v;
            return Op.of(r -> reg.acked = Math.max(reg.acked, v), "SET", prefix + k, Long.toString(v));
        }

        @Override
        void verify(Jedis j, List<String> problems) {
            for (int k = 0; k < REGS; k++) {
                String got = j.get(prefix + k);
                regs[k].check(prefix + k, got == null ? null : Long.parseLong(got), REGS, k, problems);
            }
            String n = j.get(prefix + "n");
            counter.check(prefix + "n", n == null ? null : Long.parseLong(n), problems);
            for (int id = 0; id < dels.size(); id++) {
                int state = dels.get(id)[0];
                String key = prefix + "d" + id;
                String got = j.get(key);
                if (got != null && !got.equals("x" + id)) problems.add(key + " = " + got);
                if (state == 4 && got != null) problems.add(key + " came back: its DEL was acknowledged");
                if (state == 2 && got == null) problems.add(key + " lost: its SET was acknowledged, no DEL sent");
            }
        }
    }

    /** RPUSH of increasing numbers to 3 lists: each must hold a prefix of what was sent, at least what was acknowledged. */
    static final class ListFeed extends Feed {
        final String prefix;
        final List<List<Long>> sent = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        final int[] acked = new int[3];
        final List<String> errors = new ArrayList<>();
        long seq;

        ListFeed(String prefix) {
            this.prefix = prefix;
        }

        @Override
        Op next(Random rnd, boolean pipelined) {
            long v = ++seq;
            int k = (int) (v % 3);
            List<Long> l = sent.get(k);
            l.add(v);
            int length = l.size();
            return Op.of(r -> {
                if (num(r) != length && errors.isEmpty()) errors.add(prefix + k + ": RPUSH answered " + num(r) + ", expected " + length);
                acked[k] = Math.max(acked[k], length);
            }, "RPUSH", prefix + k, Long.toString(v));
        }

        @Override
        void verify(Jedis j, List<String> problems) {
            problems.addAll(errors);
            for (int k = 0; k < 3; k++) {
                List<Long> got = j.lrange(prefix + k, 0, -1).stream().map(Long::parseLong).toList();
                List<Long> s = sent.get(k);
                int n = got.size();
                if (n < acked[k] || n > s.size() || !got.equals(s.subList(0, n))) {
                    problems.add(prefix + k + ": " + n + " elements " + abbrev(got.toString()) + "; acknowledged "
                            + acked[k] + " of " + s.size() + " sent " + abbrev(s.toString()));
                }
            }
        }
    }

    /** HSET of 8 fields of one hash and HINCRBY of another. */
    static final class HashFeed extends Feed {
        final String key;
        final Reg[] regs = new Reg[REGS];
        final Counter counter = new Counter();
        long seq;
        long sets;

        HashFeed(String prefix) {
            this.key = prefix + "h";
            for (int i = 0; i < REGS; i++) regs[i] = new Reg();
        }

        @Override
        Op next(Random rnd, boolean pipelined) {
            if (++seq % 4 == 0) {
                long ordinal = ++counter.sent;
                return Op.of(r -> counter.ack(key + ".n", num(r), ordinal), "HINCRBY", key, "n", "1");
            }
            long v = ++sets;
            int k = (int) (v % REGS);
            Reg reg = regs[k];
            reg.sent = v;
            return Op.of(r -> reg.acked = Math.max(reg.acked, v), "HSET", key, "f" + k, Long.toString(v));
        }

        @Override
        void verify(Jedis j, List<String> problems) {
            Map<String, String> got = new HashMap<>(j.hgetAll(key));
            for (int k = 0; k < REGS; k++) {
                String v = got.remove("f" + k);
                regs[k].check(key + ".f" + k, v == null ? null : Long.parseLong(v), REGS, k, problems);
            }
            String n = got.remove("n");
            counter.check(key + ".n", n == null ? null : Long.parseLong(n), problems);
            if (!got.isEmpty()) problems.add(key + " has fields nobody wrote: " + got);
        }
    }

    /** ZADD of 8 members of one sorted set (the score is the value) and ZINCRBY of another member. */
    static final class ZsetFeed extends Feed {
        final String key;
        final Reg[] regs = new Reg[REGS];
        final Counter counter = new Counter();
        long seq;
        long sets;

        ZsetFeed(String prefix) {
            this.key = prefix + "z";
            for (int i = 0; i < REGS; i++) regs[i] = new Reg();
        }

        @Override
        Op next(Random rnd, boolean pipelined) {
            if (++seq % 4 == 0) {
                long ordinal = ++counter.sent;
                return Op.of(r -> counter.ack(key + ".n", (long) Double.parseDouble(str(r)), ordinal), "ZINCRBY",
                        key, "1", "n");
            }
            long v = ++sets;
            int k = (int) (v % REGS);
            Reg reg = regs[k];
            reg.sent = v;
            return Op.of(r -> reg.acked = Math.max(reg.acked, v), "ZADD", key, Long.toString(v), "m" + k);
        }

        @Override
        void verify(Jedis j, List<String> problems) {
            Map<String, Double> got = new HashMap<>();
            j.zrangeWithScores(key, 0, -1).forEach(t -> got.put(t.getElement(), t.getScore()));
            for (int k = 0; k < REGS; k++) {
                Double v = got.remove("m" + k);
                regs[k].check(key + ".m" + k, v == null ? null : v.longValue(), REGS, k, problems);
            }
            Double n = got.remove("n");
            counter.check(key + ".n", n == null ? null : n.longValue(), problems);
            if (!got.isEmpty()) problems.add(key + " has members nobody wrote: " + got);
        }
    }

    /** XADD * to 2 streams: each holds a prefix of what was sent, every acknowledged entry with its id. */
    static final class StreamFeed extends Feed {
        final String prefix;
        final List<List<Long>> sent = List.of(new ArrayList<>(), new ArrayList<>());
        final List<List<String>> ids = List.of(new ArrayList<>(), new ArrayList<>());
        long seq;

        StreamFeed(String prefix) {
            this.prefix = prefix;
        }

        @Override
        Op next(Random rnd, boolean pipelined) {
            long v = ++seq;
            int k = (int) (v % 2);
            sent.get(k).add(v);
            List<String> acked = ids.get(k);
            return Op.of(r -> acked.add(str(r)), "XADD", prefix + "x" + k, "*", "v", Long.toString(v));
        }

        @Override
        void verify(Jedis j, List<String> problems) {
            for (int k = 0; k < 2; k++) {
                String key = prefix + "x" + k;
                @SuppressWarnings("unchecked")
                List<Object> entries = (List<Object>) j.sendCommand(Protocol.Command.XRANGE, key, "-", "+");
                List<Long> values = new ArrayList<>();
                List<String> gotIds = new ArrayList<>();
                for (Object e : entries) {
                    List<?> entry = (List<?>) e;
                    gotIds.add(str(entry.get(0)));
                    List<?> fields = (List<?>) entry.get(1);
                    values.add(Long.parseLong(str(fields.get(1))));
                }
                List<Long> s = sent.get(k);
                List<String> acked = ids.get(k);
                int n = values.size();
                if (n < acked.size() || n > s.size() || !values.equals(s.subList(0, n))
                        || !gotIds.subList(0, Math.min(n, acked.size())).equals(acked.subList(0, Math.min(n, acked.size())))) {
                    problems.add(key + ": " + n + " entries " + abbrev(gotIds.toString()) + " values "
                            + abbrev(values.toString()) + "; acknowledged " + abbrev(acked.toString()) + " of "
                            + s.size() + " sent");
                }
            }
        }
    }

    /**
     * Pairs of keys on two different shards (with 4 shards; hash tags chosen by CRC16 slot as ShardSet routes them),
     * written together by MSET or by MULTI SET SET EXEC with the same value, or ({@code script}) by a script that sets
     * both (inline on the shard thread with one shard, decision 0022; on the coordinator with four): both or neither,
     * always equal.
     */
    static final class CrossFeed extends Feed {
        static final int PAIRS = 6;
        static final String SET_BOTH = "redis.call('SET', KEYS[1], ARGV[1]) redis.call('SET', KEYS[2], ARGV[1]) return 1";
        final String[][] keys = new String[PAIRS][2];
        final Reg[] regs = new Reg[PAIRS];
        final boolean script;
        long seq;

        CrossFeed(String prefix, int shards, boolean script) {
            this.script = script;
            for (int i = 0; i < PAIRS; i++) {
                regs[i] = new Reg();
                // Pair i spans shards (i % 4, (i + 1 + i / 4) % 4): every shard, several distinct pairs.
                int sa = i % 4;
                int sb = (sa + 1 + i / 4) % 4;
                keys[i][0] = "{" + tagOnShard(sa, 4) + "}" + prefix + "p" + i;
                keys[i][1] = "{" + tagOnShard(sb, 4) + "}" + prefix + "p" + i;
                if (shards == 4 && shardOf(keys[i][0], 4) == shardOf(keys[i][1], 4)) throw new AssertionError(Arrays.toString(keys[i]));
            }
        }

        @Override
        Op next(Random rnd, boolean pipelined) {
            long v = ++seq;
            int i = (int) (v % PAIRS);
            Reg reg = regs[i];
            reg.sent = v;
            String value = Long.toString(v);
            Consumer<Object> ack = r -> reg.acked = Math.max(reg.acked, v);
            if (script) return Op.of(ack, "EVAL", SET_BOTH, "2", keys[i][0], keys[i][1], value);
            if (!pipelined && v % 2 == 0) {
                return new Op(List.of(new String[] {"SET", keys[i][0], value}, new String[] {"SET", keys[i][1], value}),
                        true, ack);
            }
            return Op.of(ack, "MSET", keys[i][0], value, keys[i][1], value);
        }

        @Override
        void verify(Jedis j, List<String> problems) {
            for (int i = 0; i < PAIRS; i++) {
                List<String> got = j.mget(keys[i][0], keys[i][1]);
                if (!java.util.Objects.equals(got.get(0), got.get(1))) {
                    problems.add("torn pair " + Arrays.toString(keys[i]) + " = " + got + ": last acknowledged "
                            + regs[i].acked + ", last sent " + regs[i].sent);
                }
                regs[i].check(keys[i][0], got.get(0) == null ? null : Long.parseLong(got.get(0)), PAIRS, i, problems);
            }
        }
    }

    /**
     * Deletes or overwrites keys of the populated base, each key once, in random order: the fork-less snapshot must
     * save the old value of an unsaved entry before it changes and never bring a deleted one back.
     */
    static final class BigFeed extends Feed {
        final String prefix;
        final int keys;
        final int[] order;
        /** Per key: 0 untouched, 1 DEL sent, 2 DEL acked, 3 SET sent, 4 SET acked. */
        final byte[] state;
        int next;

        BigFeed(String prefix, int keys, Random rnd) {
            this.prefix = prefix;
            this.keys = keys;
            this.order = new int[keys];
            this.state = new byte[keys];
            for (int i = 0; i < keys; i++) order[i] = i;
            for (int i = keys - 1; i > 0; i--) {
                int r = rnd.nextInt(i + 1);
                int t = order[i];
                order[i] = order[r];
                order[r] = t;
            }
        }

        @Override
        Op next(Random rnd, boolean pipelined) {
            if (next == keys) return Op.of(r -> { }, "PING");
            int i = order[next++];
            if (rnd.nextBoolean()) {
                state[i] = 1;
                return Op.of(r -> state[i] = 2, "DEL", prefix + i);
            }
            state[i] = 3;
            return Op.of(r -> state[i] = 4, "SET", prefix + i, "new" + i);
        }

        @Override
        void verify(Jedis j, List<String> problems) {
            int touched = 0;
            for (int from = 0; from < keys; from += 1000) {
                String[] names = new String[Math.min(1000, keys - from)];
                for (int i = 0; i < names.length; i++) names[i] = prefix + (from + i);
                List<String> got = j.mget(names);
                for (int i = 0; i < names.length; i++) {
                    int n = from + i;
                    String g = got.get(i);
                    boolean ok = switch (state[n]) {
                        case 0 -> bigValue(n).equals(g);
                        case 1 -> g == null || bigValue(n).equals(g);
                        case 2 -> g == null;
                        case 3 -> bigValue(n).equals(g) || ("new" + n).equals(g);
                        default -> ("new" + n).equals(g);
                    };
                    if (state[n] != 0) touched++;
                    if (!ok && problems.size() < 30) {
                        problems.add(names[i] + " = " + abbrev(g) + " (state " + state[n] + ": 0 untouched, 1 DEL sent,"
                                + " 2 DEL acknowledged, 3 SET sent, 4 SET acknowledged)");
                    }
                }
            }
            System.out.printf("[crash]   %s: %d of %d base keys deleted or overwritten%n", prefix, touched, keys);
        }
    }

    private static Feed feed(Kind kind, String prefix, int shards) {
        return switch (kind) {
            case STRING -> new StringFeed(prefix);
            case LIST -> new ListFeed(prefix);
            case HASH -> new HashFeed(prefix);
            case ZSET -> new ZsetFeed(prefix);
            case STREAM -> new StreamFeed(prefix);
            case CROSS -> new CrossFeed(prefix, shards, false);
            case SCRIPT -> new CrossFeed(prefix, shards, true);
        };
    }

    // ------------------------------------------------------------------ helpers

    static int shardOf(String key, int shards) {
        return (int) ((long) Crc16.slot(key.getBytes(StandardCharsets.UTF_8)) * shards / 16384);
    }

    /** A hash tag whose keys land on {@code shard} of {@code shards}, as io.tide.shard.ShardSet maps slots. */
    static String tagOnShard(int shard, int shards) {
        for (int i = 0; ; i++) {
            String tag = "t" + i;
            if (shardOf("{" + tag + "}", shards) == shard) return tag;
        }
    }

    private static String bigValue(int i) {
        return "v" + i + ":" + "x".repeat(60 + i % 80);
    }

    /** SETs {@code prefix0 .. prefix(n-1)} to {@link #bigValue}, pipelined, all acknowledged before returning. */
    private static void populate(Jedis j, String prefix, int n) {
        Pipeline p = j.pipelined();
        for (int i = 0; i < n; i++) {
            p.set(prefix + i, bigValue(i));
            if (i % 5000 == 4999) p.sync();
        }
        p.sync();
    }

    /** Every key of database 0 with its value, for the rounds after. */
    private static Map<String, Object> snapshot(Jedis j, String skipPrefix) {
        Map<String, Object> out = new TreeMap<>();
        for (String key : j.keys("*")) {
            if (skipPrefix == null || !bare(key).startsWith(skipPrefix)) out.put(key, valueOf(j, key));
        }
        return out;
    }

    /** A key without CrossFeed's leading hash tag. */
    private static String bare(String key) {
        return key.replaceFirst("^\\{[^}]*}", "");
    }

    private static Object valueOf(Jedis j, String key) {
        return switch (j.type(key)) {
            case "string" -> j.get(key);
            case "list" -> j.lrange(key, 0, -1);
            case "hash" -> new TreeMap<>(j.hgetAll(key));
            case "zset" -> deep(j.sendCommand(Protocol.Command.ZRANGE, key, "0", "-1", "WITHSCORES"));
            case "stream" -> deep(j.sendCommand(Protocol.Command.XRANGE, key, "-", "+"));
            case "none" -> "(none)";
            default -> j.type(key);
        };
    }

    /** A reply with its bulk strings as Strings, comparable with equals. */
    private static Object deep(Object reply) {
        if (reply instanceof byte[] b) return new String(b, StandardCharsets.UTF_8);
        if (reply instanceof List<?> l) return l.stream().map(CrashRecoveryTest::deep).toList();
        return reply;
    }

    /** What earlier rounds recovered must be there unchanged; no key of theirs appears that was not. */
    private static void checkEarlierRounds(Jedis j, Map<String, Object> earlier, List<String> current,
                                           List<String> problems) {
        for (Map.Entry<String, Object> e : earlier.entrySet()) {
            Object now = valueOf(j, e.getKey());
            if (!e.getValue().equals(now) && problems.size() < 30) {
                problems.add("recovered earlier, changed since: " + e.getKey() + " = " + abbrev(String.valueOf(now))
                        + ", was " + abbrev(String.valueOf(e.getValue())));
            }
        }
        for (String key : j.keys("*")) {
            String b = bare(key);
            if (current.stream().noneMatch(b::startsWith) && !earlier.containsKey(key)) {
                problems.add("came back from an earlier round: " + key);
            }
        }
    }

    private static String abbrev(String s) {
        return s == null || s.length() <= 300 ? s : s.substring(0, 140) + " ... " + s.substring(s.length() - 140);
    }
}
