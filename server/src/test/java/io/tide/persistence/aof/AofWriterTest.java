package io.tide.persistence.aof;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.persistence.aof.AofWriter.FsyncPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AofWriterTest {

    @TempDir
    Path dir;

    /** Plays the shard's event loop: the writer's owner thread, which also runs its callbacks. */
    private final ExecutorService loop = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-loop"));
    private final Map<Path, ControlledChannel> channels = new ConcurrentHashMap<>();
    private AofFsync fsync = new AofFsync(2000);

    @AfterEach
    void tearDown() throws Exception {
        channels.values().forEach(c -> c.blockForce = null);
        loop.shutdownNow();
        fsync.close();
    }

    private AofWriter writer(Path file, FsyncPolicy policy, boolean timestamps) throws Exception {
        return on(() -> new AofWriter(file, policy, timestamps, fsync, loop, p -> {
            ControlledChannel c = new ControlledChannel(p);
            channels.put(p, c);
            return c;
        }));
    }

    private <T> T on(Callable<T> task) throws Exception {
        return loop.submit(task).get(10, TimeUnit.SECONDS);
    }

    private void run(ThrowingRunnable task) throws Exception {
        on(() -> {
            task.run();
            return null;
        });
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static byte[][] argv(String... words) {
        byte[][] a = new byte[words.length][];
        for (int i = 0; i < words.length; i++) a[i] = words[i].getBytes(StandardCharsets.UTF_8);
        return a;
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.ISO_8859_1);
    }

    @Test
    void flush_putsEverythingAppendedInTheFile_withSelectWhenTheDbChanges() throws Exception {
        Path file = dir.resolve("a.1.incr.aof");
        AofWriter w = writer(file, FsyncPolicy.NO, false);
        run(() -> {
            w.appendCommand(0, argv("SET", "k", "v"));
            w.appendCommand(0, argv("DEL", "k"));
            w.appendCommand(12, argv("SET", "x", ""));
            w.append("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
        });
        assertThat(read(file)).as("nothing is written before flush").isEmpty();
        run(w::flush);
        String expected = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"
                + "*2\r\n$3\r\nDEL\r\n$1\r\nk\r\n"
                + "*2\r\n$6\r\nSELECT\r\n$2\r\n12\r\n*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$0\r\n\r\n"
                + "*1\r\n$4\r\nPING\r\n";
        assertThat(read(file)).isEqualTo(expected);
        assertThat(on(w::offset)).isEqualTo(expected.length());
        assertThat(channels.get(file).forces).as("appendfsync no never fsyncs").hasValue(0);
        run(w::close);
    }

    @Test
    void appendGroup_writesMarkerThenMultiExec() throws Exception {
        Path file = dir.resolve("g.aof");
        AofWriter w = writer(file, FsyncPolicy.NO, false);
        run(() -> {
            w.appendGroup(42, 3, 1, List.of(argv("DEL", "a"), argv("SET", "b", "1")));
            w.flush();
        });
        assertThat(read(file)).isEqualTo("*2\r\n$6\r\nSELECT\r\n$1\r\n1\r\n#TIDE-GROUP:42:3\r\n"
                + "*1\r\n$5\r\nMULTI\r\n*2\r\n$3\r\nDEL\r\n$1\r\na\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n1\r\n"
                + "*1\r\n$4\r\nEXEC\r\n");
        run(w::close);
    }

    @Test
    void timestamps_annotateOncePerSecond() throws Exception {
        Path file = dir.resolve("t.aof");
        AofWriter w = writer(file, FsyncPolicy.NO, true);
        long before = System.currentTimeMillis() / 1000;
        run(() -> {
            for (int i = 0; i < 100; i++) w.appendCommand(0, argv("INCR", "n"));
            w.flush();
        });
        String text = read(file);
        assertThat(text).startsWith("#TS:");
        long ts = Long.parseLong(text.substring(4, text.indexOf('\r')));
        assertThat(ts).isBetween(before, before + 2);
        assertThat(text.split("#TS:", -1).length - 1).isBetween(1, 2);
        run(w::close);
    }

    @Test
    void always_manyAppendsAndOneFlush_costOneFsync_andCompleteEveryCallback() throws Exception {
        Path file = dir.resolve("a.aof");
        AofWriter w = writer(file, FsyncPolicy.ALWAYS, false);
        LinkedBlockingQueue<Boolean> results = new LinkedBlockingQueue<>();
        run(() -> {
            for (int i = 0; i < 1000; i++) {
                w.appendCommand(0, argv("SET", "k" + i, "v"));
                w.whenDurable(w.offset(), results::add);
            }
            w.flush();
        });
        List<Boolean> got = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            Boolean r = results.poll(5, TimeUnit.SECONDS);
            assertThat(r).as("callback " + i).isNotNull();
            got.add(r);
        }
        assertThat(got).containsOnly(true);
        assertThat(channels.get(file).forces).hasValue(1);
        assertThat(w.durableOffset()).isEqualTo(on(w::offset));
        assertThat(w.failed()).isFalse();
        run(w::close);
    }

    @Test
    void always_callbackDoesNotRunBeforeTheFsync() throws Exception {
        Path file = dir.resolve("a.aof");
        AofWriter w = writer(file, FsyncPolicy.ALWAYS, false);
        ControlledChannel[] ch = new ControlledChannel[1];
        CountDownLatch release = new CountDownLatch(1);
        LinkedBlockingQueue<Boolean> results = new LinkedBlockingQueue<>();
        run(() -> {
            ch[0] = channels.get(file);
            ch[0].blockForce = release;
            w.appendCommand(0, argv("SET", "k", "v"));
            w.whenDurable(w.offset(), results::add);
            w.flush();
        });
        assertThat(results.poll(200, TimeUnit.MILLISECONDS)).isNull();
        release.countDown();
        assertThat(results.poll(5, TimeUnit.SECONDS)).isTrue();
        run(w::close);
    }

    @Test
    void everysec_fsyncsInTheBackground() throws Exception {
        Path file = dir.resolve("e.aof");
        AofWriter w = writer(file, FsyncPolicy.EVERYSEC, false);
        LinkedBlockingQueue<Boolean> results = new LinkedBlockingQueue<>();
        run(() -> {
            w.appendCommand(0, argv("SET", "k", "v"));
            w.whenDurable(w.offset(), results::add);
            w.flush();
        });
        assertThat(read(file)).as("written at flush").contains("SET");
        assertThat(results.poll(3, TimeUnit.SECONDS)).isTrue();
        assertThat(channels.get(file).forces.get()).isGreaterThanOrEqualTo(1);
        int forces = channels.get(file).forces.get();
        Thread.sleep(1300);
        assertThat(channels.get(file).forces).as("nothing new written, nothing fsynced").hasValue(forces);
        run(w::close);
    }

    @Test
    void fsyncTimeout_failsWaiters_setsFailedState_andALaterFsyncRecovers() throws Exception {
        fsync.close();
        fsync = new AofFsync(100);
        Path file = dir.resolve("t.aof");
        AofWriter w = writer(file, FsyncPolicy.ALWAYS, false);
        CountDownLatch release = new CountDownLatch(1);
        LinkedBlockingQueue<Boolean> results = new LinkedBlockingQueue<>();
        run(() -> {
            channels.get(file).blockForce = release;
            for (int i = 0; i < 3; i++) {
                w.appendCommand(0, argv("SET", "k", "v" + i));
                w.whenDurable(w.offset(), results::add);
            }
            w.flush();
        });
        for (int i = 0; i < 3; i++) assertThat(results.poll(3, TimeUnit.SECONDS)).isFalse();
        assertThat(w.failed()).isTrue();
        assertThat(w.lastWriteStatus()).isEqualTo("err");
        assertThat(on(w::lastError)).contains("did not complete within 100 ms");

        fsync.timeoutMillis(10_000);   // the recovery fsync must not time out on a slow machine
        channels.get(file).blockForce = null;
        release.countDown();
        run(() -> {
            w.appendCommand(0, argv("SET", "k", "after"));
            w.whenDurable(w.offset(), results::add);
            w.flush();
        });
        assertThat(results.poll(5, TimeUnit.SECONDS)).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (w.failed() && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat(w.failed()).isFalse();
        assertThat(w.lastWriteStatus()).isEqualTo("ok");
        run(w::close);
    }

    @Test
    void eachWritersFsyncRunsOnItsOwnThread_soAStuckFileDoesNotHoldUpAnotherShards() throws Exception {
        Path stuck = dir.resolve("stuck.aof");
        Path other = dir.resolve("other.aof");
        AofWriter a = writer(stuck, FsyncPolicy.ALWAYS, false);
        AofWriter b = writer(other, FsyncPolicy.ALWAYS, false);
        CountDownLatch release = new CountDownLatch(1);
        LinkedBlockingQueue<Boolean> aDone = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<Boolean> bDone = new LinkedBlockingQueue<>();
        run(() -> {
            channels.get(stuck).blockForce = release;
            a.appendCommand(0, argv("SET", "a", "1"));
            a.whenDurable(a.offset(), aDone::add);
            a.flush();
        });
        Thread.sleep(100);   // a's fsync has started and waits on the latch
        run(() -> {
            b.appendCommand(0, argv("SET", "b", "1"));
            b.whenDurable(b.offset(), bDone::add);
            b.flush();
        });
        // With one thread for both files, b's fsync would wait behind a's until aof-fsync-timeout-ms (2 s) failed it.
        assertThat(bDone.poll(3, TimeUnit.SECONDS)).as("the other file fsynced while the first is stuck").isTrue();
        assertThat(aDone).as("the stuck file's write is not durable yet").isEmpty();
        release.countDown();
        assertThat(aDone.poll(3, TimeUnit.SECONDS)).isTrue();
        run(a::close);
        run(b::close);
    }

    @Test
    void fsyncError_failsWaiters_andRetryRecoversWithoutNewWrites() throws Exception {
        Path file = dir.resolve("f.aof");
        AofWriter w = writer(file, FsyncPolicy.ALWAYS, false);
        LinkedBlockingQueue<Boolean> results = new LinkedBlockingQueue<>();
        run(() -> {
            channels.get(file).failForce = new IOException("Input/output error");
            w.appendCommand(0, argv("SET", "k", "v"));
            w.whenDurable(w.offset(), results::add);
            w.flush();
        });
        assertThat(results.poll(3, TimeUnit.SECONDS)).isFalse();
        assertThat(w.failed()).isTrue();
        channels.get(file).failForce = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        while (w.failed() && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(w.failed()).as("the once-a-second retry succeeded").isFalse();
        run(w::close);
    }

    @Test
    void writeError_keepsBytesBuffered_truncatesThePartialWrite_andRecovers() throws Exception {
        Path file = dir.resolve("w.aof");
        AofWriter w = writer(file, FsyncPolicy.ALWAYS, false);
        LinkedBlockingQueue<Boolean> results = new LinkedBlockingQueue<>();
        run(() -> {
            w.appendCommand(0, argv("SET", "a", "1"));
            w.flush();
        });
        String good = read(file);
        run(() -> {
            ControlledChannel c = channels.get(file);
            c.partialBytes = 5;
            c.failWrite = new IOException("No space left on device");
            w.appendCommand(0, argv("SET", "b", "2"));
            w.whenDurable(w.offset(), results::add);
            w.flush();
        });
        assertThat(results.poll(3, TimeUnit.SECONDS)).isFalse();
        assertThat(w.failed()).isTrue();
        assertThat(on(w::lastError)).isEqualTo("No space left on device");
        assertThat(read(file)).as("the partial record was truncated away").isEqualTo(good);

        channels.get(file).failWrite = null;
        run(() -> {
            w.appendCommand(0, argv("SET", "c", "3"));
            w.whenDurable(w.offset(), results::add);
            w.flush();
        });
        assertThat(results.poll(3, TimeUnit.SECONDS)).isTrue();
        assertThat(w.failed()).isFalse();
        assertThat(read(file)).isEqualTo(good + "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n"
                + "*3\r\n$3\r\nSET\r\n$1\r\nc\r\n$1\r\n3\r\n");
        run(w::close);
    }

    @Test
    void rotate_finishesTheOldFile_andReissuesSelectInTheNewOne() throws Exception {
        Path f1 = dir.resolve("a.1.incr.aof");
        Path f2 = dir.resolve("a.2.incr.aof");
        AofWriter w = writer(f1, FsyncPolicy.EVERYSEC, false);
        LinkedBlockingQueue<Boolean> results = new LinkedBlockingQueue<>();
        run(() -> {
            w.appendCommand(3, argv("SET", "a", "1"));
            w.rotate(f2);
            w.appendCommand(3, argv("SET", "b", "2"));
            w.whenDurable(w.offset(), results::add);
            w.flush();
        });
        assertThat(read(f1)).isEqualTo("*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n");
        assertThat(read(f2)).isEqualTo("*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n");
        assertThat(results.poll(3, TimeUnit.SECONDS)).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (channels.get(f1).isOpen() && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat(channels.get(f1).isOpen()).as("the fsync thread closed the old file").isFalse();
        assertThat(channels.get(f1).forces.get()).isGreaterThanOrEqualTo(1);
        assertThat(on(w::file)).isEqualTo(f2);
        run(w::close);
        assertThat(channels.get(f2).isOpen()).isFalse();
    }

    @Test
    void always_underLoadWithRotations_completesEveryCallbackInOrder_andCoalescesFsyncs() throws Exception {
        List<Path> files = new ArrayList<>();
        files.add(dir.resolve("s.1.incr.aof"));
        AofWriter w = writer(files.getFirst(), FsyncPolicy.ALWAYS, false);
        LinkedBlockingQueue<Long> done = new LinkedBlockingQueue<>();
        int iterations = 400;
        for (int it = 0; it < iterations; it++) {
            int iteration = it;
            run(() -> {
                for (int i = 0; i < 20; i++) {
                    w.appendCommand(iteration % 3, argv("SET", "k" + i, "v" + iteration));
                    long off = w.offset();
                    w.whenDurable(off, ok -> {
                        if (ok && w.durableOffset() >= off) done.add(off);
                        else done.add(-off);
                    });
                }
                w.flush();
                if (iteration % 100 == 99) {
                    Path next = dir.resolve("s." + (files.size() + 1) + ".incr.aof");
                    files.add(next);
                    w.rotate(next);
                }
            });
        }
        long last = 0;
        for (int i = 0; i < iterations * 20; i++) {
            Long off = done.poll(10, TimeUnit.SECONDS);
            assertThat(off).as("callback " + i).isNotNull().isPositive();
            assertThat(off).as("in offset order").isGreaterThan(last);
            last = off;
        }
        long total = 0;
        int forces = 0;
        for (Path f : files) {
            total += Files.size(f);
            forces += channels.get(f).forces.get();
        }
        assertThat(total).isEqualTo(on(w::offset));
        assertThat(forces).as("at most one fsync per flush (plus one per rotation)").isLessThanOrEqualTo(iterations + 4);
        run(w::close);
    }

    @Test
    void reopening_appendsAtTheEnd() throws Exception {
        Path file = dir.resolve("r.aof");
        Files.writeString(file, "*1\r\n$4\r\nPING\r\n");
        AofWriter w = writer(file, FsyncPolicy.NO, false);
        run(() -> {
            w.appendCommand(0, argv("PING"));
            w.close();
        });
        assertThat(read(file)).isEqualTo("*1\r\n$4\r\nPING\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*1\r\n$4\r\nPING\r\n");
        assertThat(channels.get(file).forces).as("close fsyncs").hasValue(1);
    }
}
