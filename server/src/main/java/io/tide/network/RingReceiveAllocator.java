package io.tide.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * The receive-buffer allocator of client channels that read from io_uring's provided-buffer ring (decision 0026),
 * shared by all of them. There the ring picks each read's buffer and its size, so a channel's handle only counts the
 * reads and bytes of one read event to tell the transport whether to go on. Netty's adaptive handle also keeps a size
 * predictor per channel: 112 B of every connection's heap, idle or not, where this handle takes 32
 * (docs/benchmarks/memory.md, "Idle connections"). Its continue rule is Netty's: auto-read on, the last read filled
 * what it was offered, fewer reads than the limit, and some bytes read.
 *
 * <p>A read the transport makes outside the ring (Netty falls back to one when the ring has no free buffer) gets a
 * buffer of {@link #FALLBACK_BYTES}.
 */
final class RingReceiveAllocator implements MaxMessagesRecvByteBufAllocator {

    static final int FALLBACK_BYTES = 16 * 1024;
    private volatile int maxMessagesPerRead;

    RingReceiveAllocator(int maxMessagesPerRead) {
        maxMessagesPerRead(maxMessagesPerRead);
    }

    @Override
    public int maxMessagesPerRead() {
        return maxMessagesPerRead;
    }

    @Override
    public MaxMessagesRecvByteBufAllocator maxMessagesPerRead(int maxMessagesPerRead) {
        if (maxMessagesPerRead <= 0) throw new IllegalArgumentException("maxMessagesPerRead: " + maxMessagesPerRead);
        this.maxMessagesPerRead = maxMessagesPerRead;
        return this;
    }

    @Override
    public Handle newHandle() {
        return new Handle();
    }

    /** One channel's counts for the read event in progress; used on its event loop only. */
    final class Handle implements RecvByteBufAllocator.ExtendedHandle {
        private ChannelConfig config;
        private int messages;
        private int bytes;
        private int attempted;
        private int last;

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            return alloc.ioBuffer(FALLBACK_BYTES);
        }

        @Override
        public int guess() {
            return FALLBACK_BYTES;
        }

        @Override
        public void reset(ChannelConfig config) {
            this.config = config;
            messages = 0;
            bytes = 0;
        }

        @Override
        public void incMessagesRead(int numMessages) {
            messages += numMessages;
        }

        @Override
        public void lastBytesRead(int bytes) {
            last = bytes;
            if (bytes > 0) this.bytes += bytes;
        }

        @Override
        public int lastBytesRead() {
            return last;
        }

        @Override
        public int attemptedBytesRead() {
            return attempted;
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            attempted = bytes;
        }

        @Override
        public boolean continueReading() {
            return continueReading(attempted == last);
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return continueReading(maybeMoreDataSupplier.get());
        }

        private boolean continueReading(boolean maybeMore) {
            // bytes != 0, not > 0: a sum past Integer.MAX_VALUE wraps negative and still means some were read
            return config.isAutoRead() && maybeMore && messages < maxMessagesPerRead && bytes != 0;
        }

        @Override
        public void readComplete() {
        }
    }
}
