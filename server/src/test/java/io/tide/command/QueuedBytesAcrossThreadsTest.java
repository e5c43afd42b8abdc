package io.tide.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * CLIENT LIST's multi-mem is also read by client eviction (shard 0's cron, every client of every shard) while the
 * client's home shard queues commands: the reader gets a figure, never an exception.
 */
class QueuedBytesAcrossThreadsTest {

    @Test
    void queuedBytesReadElsewhereWhileTheHomeThreadQueues() throws Exception {
        ClientSession s = new ClientSession(1, null, null, null, true, 0);
        byte[][] argv = {"SET".getBytes(StandardCharsets.US_ASCII), "k".getBytes(StandardCharsets.US_ASCII),
                "v".getBytes(StandardCharsets.US_ASCII)};
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] reads = new long[1];
        Thread reader = new Thread(() -> {
            try {
                while (!stop.get()) {
                    assertThat(s.queuedBytes()).isNotNegative();
                    reads[0]++;
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "multi-mem-reader");
        reader.start();
        long end = System.nanoTime() + 2_000_000_000L;
        long transactions = 0;
        while (System.nanoTime() < end && failure.get() == null) {
            s.startMulti();
            for (int i = 0; i < 200; i++) s.queue(null, argv);
            assertThat(s.queuedBytes()).isEqualTo(200L * (3 * 8 + 5));
            s.endMulti();
            transactions++;
        }
        stop.set(true);
        reader.join();
        assertThat(failure.get()).as("a read of multi-mem from another thread").isNull();
        assertThat(reads[0]).isPositive();
        assertThat(transactions).isPositive();
    }
}
