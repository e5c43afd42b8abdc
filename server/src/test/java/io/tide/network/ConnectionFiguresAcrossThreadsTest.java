package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.tide.protocol.ProtocolLimits;
import io.tide.shard.Shard;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A connection's output figures are read from other threads (used_memory's client buffers, summed by whichever shard
 * checks maxmemory; client eviction from shard 0's cron) while its home shard writes and flushes. A reader must get a
 * figure, never an exception: one thrown there closed the connection of the client whose command was being checked.
 */
class ConnectionFiguresAcrossThreadsTest {

    @Test
    void outputBufferBytesReadElsewhereWhileTheHomeThreadWritesAndFlushes() throws Exception {
        EmbeddedChannel ch = new EmbeddedChannel();
        Shard home = new Shard(0, ch.eventLoop(), 1);
        ConnectionHandler h = new ConnectionHandler(null, null, home, null, null, null, null, new ProtocolLimits());
        var channelField = ConnectionHandler.class.getDeclaredField("channel");
        channelField.setAccessible(true);
        channelField.set(h, ch);

        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] reads = new long[1];
        Thread reader = new Thread(() -> {
            try {
                while (!stop.get()) {
                    h.outputBufferBytes();
                    reads[0]++;
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "figures-reader");
        reader.start();
        byte[] reply = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
        long end = System.nanoTime() + 3_000_000_000L;
        int flushes = 0;
        while (System.nanoTime() < end && failure.get() == null) {
            h.buffer().writeBytes(reply);
            h.flush();
            if (++flushes % 1024 == 0) ch.releaseOutbound();
        }
        stop.set(true);
        reader.join();
        ch.finishAndReleaseAll();
        assertThat(failure.get()).as("a read of the output figures from another thread").isNull();
        assertThat(reads[0]).isPositive();
        assertThat(flushes).isPositive();
    }
}
