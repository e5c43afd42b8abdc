package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.tide.protocol.ProtocolLimits;
import io.tide.shard.Shard;
import io.tide.testing.Race;
import java.nio.charset.StandardCharsets;
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
        ConnectionHandler h = new ConnectionHandler(
                new ShardClients(null, null, home, null, null, new ProtocolLimits()));
        var channelField = ConnectionHandler.class.getDeclaredField("channel");
        channelField.setAccessible(true);
        channelField.set(h, ch);
        byte[] reply = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
        long[] flushes = new long[1];
        Race.Outcome o = Race.run(() -> {
            h.buffer().writeBytes(reply);
            h.flush();
            if (++flushes[0] % 1024 == 0) ch.releaseOutbound();
        }, h::outputBufferBytes, 3_000);
        ch.finishAndReleaseAll();
        assertThat(o.failure()).as("a read of the output figures from another thread").isNull();
        assertThat(o.ownerRuns()).isPositive();
        assertThat(o.readerRuns()).isPositive();
    }
}
