package io.tide.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.Race;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * CLIENT LIST's multi-mem is also read by client eviction (shard 0's cron, every client of every shard) while the
 * client's home shard queues commands: the reader gets a figure, never an exception.
 */
class QueuedBytesAcrossThreadsTest {

    @Test
    void queuedBytesReadElsewhereWhileTheHomeThreadQueues() throws Exception {
        ClientSession s = new ClientSession(1, null, null, true, 0);
        byte[][] argv = {"SET".getBytes(StandardCharsets.US_ASCII), "k".getBytes(StandardCharsets.US_ASCII),
                "v".getBytes(StandardCharsets.US_ASCII)};
        Race.Outcome o = Race.run(() -> {
            s.startMulti();
            for (int i = 0; i < 200; i++) s.queue(null, argv);
            assertThat(s.queuedBytes()).isEqualTo(200L * (3 * 8 + 5));
            s.endMulti();
        }, () -> assertThat(s.queuedBytes()).isNotNegative(), 2_000);
        assertThat(o.failure()).as("a read of multi-mem from another thread").isNull();
        assertThat(o.ownerRuns()).isPositive();
        assertThat(o.readerRuns()).isPositive();
    }
}
