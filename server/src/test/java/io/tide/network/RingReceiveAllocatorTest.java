package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/**
 * The receive handle of channels that read from the buffer ring: it goes on reading on Netty's rule (auto-read on,
 * the last read filled what it was offered, fewer reads than the limit, some bytes read), and a read outside the ring
 * gets a buffer of its fallback size. The ring path itself runs in {@link BufferRingSocketTest}.
 */
class RingReceiveAllocatorTest {

    private final ChannelConfig config = new EmbeddedChannel().config();

    private static void read(RingReceiveAllocator.Handle h, int offered, int got) {
        h.attemptedBytesRead(offered);
        h.lastBytesRead(got);
        h.incMessagesRead(1);
    }

    @Test
    void goesOn_whileReadsFillWhatTheyWereOffered_upToTheLimit() {
        RingReceiveAllocator.Handle h = new RingReceiveAllocator(3).newHandle();
        h.reset(config);
        read(h, 4096, 4096);
        assertThat(h.continueReading()).isTrue();
        read(h, 4096, 4096);
        assertThat(h.continueReading()).isTrue();
        read(h, 4096, 4096);
        assertThat(h.continueReading()).as("three reads, the limit").isFalse();

        h.reset(config);
        assertThat(h.lastBytesRead()).isEqualTo(4096);
        read(h, 4096, 4096);
        assertThat(h.continueReading()).as("the count starts again at reset").isTrue();
    }

    @Test
    void stops_afterAShortRead_anEmptyOne_orWithAutoReadOff() {
        RingReceiveAllocator.Handle h = new RingReceiveAllocator(16).newHandle();
        h.reset(config);
        read(h, 4096, 100);
        assertThat(h.continueReading()).as("a short read: the socket is drained").isFalse();
        assertThat(h.continueReading(() -> true)).as("unless the transport says there may be more").isTrue();

        h.reset(config);
        read(h, 4096, 0);
        assertThat(h.continueReading(() -> true)).as("no bytes read in this event").isFalse();

        h.reset(config);
        read(h, 4096, 4096);
        config.setAutoRead(false);
        try {
            assertThat(h.continueReading()).isFalse();
        } finally {
            config.setAutoRead(true);
        }
    }

    @Test
    void aReadOutsideTheRing_getsTheFallbackSize() {
        RingReceiveAllocator a = new RingReceiveAllocator(16);
        RingReceiveAllocator.Handle h = a.newHandle();
        ByteBuf b = h.allocate(UnpooledByteBufAllocator.DEFAULT);
        try {
            assertThat(b.writableBytes()).isEqualTo(RingReceiveAllocator.FALLBACK_BYTES);
            assertThat(h.guess()).isEqualTo(RingReceiveAllocator.FALLBACK_BYTES);
        } finally {
            b.release();
        }
        assertThat(a.maxMessagesPerRead(8).maxMessagesPerRead()).isEqualTo(8);
    }
}
