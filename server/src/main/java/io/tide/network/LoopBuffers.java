package io.tide.network;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.RecycledSlices;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.PlatformDependent;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The buffers of client connections: direct buffers that each event loop hands out again (decision 0020). A read or a
 * flush takes a buffer (Netty's wrapper and its memory) from its loop's free list, and its release puts it back, so a
 * request in steady state costs no native allocation, no cleaner and no garbage. A loop keeps at most
 * {@link #LOOP_BYTES} idle, in power-of-two classes from {@link #MIN_CLASS} to {@link #MAX_CLASS}; a class's list
 * empty, a new buffer of that class is made; past {@code MAX_CLASS}, and on a thread that is no event loop, buffers
 * are Netty's unpooled direct ones, freed as they are released (decision 0018's rule: a burst leaves nothing behind
 * beyond the loops' lists). A buffer that grows moves to Netty's unpooled memory and leaves the lists.
 */
final class LoopBuffers extends AbstractByteBufAllocator {

    static final int MIN_CLASS = 256;
    static final int MAX_CLASS = 64 * 1024;
    /** Idle bytes a loop keeps at most across its classes. */
    static final int LOOP_BYTES = 1024 * 1024;
    private static final int CLASSES = Integer.numberOfTrailingZeros(MAX_CLASS) - Integer.numberOfTrailingZeros(MIN_CLASS) + 1;

    static final ByteBufAllocator INSTANCE = PlatformDependent.hasUnsafe() ? new LoopBuffers() : UnpooledByteBufAllocator.DEFAULT;

    private static final Lists NONE = new Lists();

    /**
     * Whether {@link Listed#retainedSlice} hands out recycled slices (decision 0034);
     * {@code -Dtide.recycledSlices=false} turns it off, to measure against.
     */
    static final boolean RECYCLED_SLICES = !"false".equals(System.getProperty("tide.recycledSlices"));

    private final FastThreadLocal<Lists> lists = new FastThreadLocal<>() {
        @Override
        protected Lists initialValue() {
            return Thread.currentThread() instanceof FastThreadLocalThread ? new Lists() : NONE;
        }
    };

    private LoopBuffers() {
        super(true);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        if (initialCapacity <= MAX_CLASS) {
            int size = Math.max(MIN_CLASS, Integer.highestOneBit(initialCapacity - 1) << 1); // a request of 0 or 1 byte: 0, so MIN_CLASS
            if (size <= maxCapacity) {
                Lists l = lists.get();
                if (l != NONE) {
                    Listed b = l.take(size);
                    if (b == null) return new Listed(this, ByteBuffer.allocateDirect(size), maxCapacity);
                    b.reuse(maxCapacity);
                    return b;
                }
            }
        }
        return new UnpooledUnsafeDirectByteBuf(this, initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    /** A loop's free lists, one stack per class; touched only by its thread. */
    private static final class Lists {
        /** Per class, made on its first release: room for LOOP_BYTES of that class. */
        private final Listed[][] stacks = new Listed[CLASSES][];
        private final int[] counts = new int[CLASSES];
        private int idleBytes;

        Listed take(int size) {
            int c = classOf(size);
            int n = counts[c];
            if (n == 0) return null;
            Listed b = stacks[c][--n];
            stacks[c][n] = null;
            counts[c] = n;
            idleBytes -= size;
            return b;
        }

        boolean put(Listed b, int size) {
            if (idleBytes + size > LOOP_BYTES) return false;
            int c = classOf(size);
            if (stacks[c] == null) stacks[c] = new Listed[LOOP_BYTES / size];
            stacks[c][counts[c]++] = b;
            idleBytes += size;
            return true;
        }

        private static int classOf(int size) {
            return Integer.numberOfTrailingZeros(size) - Integer.numberOfTrailingZeros(MIN_CLASS);
        }
    }

    /**
     * A buffer on free-listed memory of a class's size. Released, the whole buffer (Netty's wrapper with the memory)
     * goes back to the releasing loop's list, to be handed out again; a growth moves it to Netty's unpooled memory
     * and frees the listed memory, and the buffer then ends as any unpooled one.
     */
    private static final class Listed extends UnpooledUnsafeDirectByteBuf {
        private final LoopBuffers owner;
        /** The free-listed memory while this buffer still uses it; null once a growth replaced it. */
        private ByteBuffer listed;

        Listed(LoopBuffers owner, ByteBuffer b, int maxCapacity) {
            // Netty's "do not free" constructor: neither deallocate nor a growth frees b; both are handled here.
            super(owner, false, b.order(ByteOrder.BIG_ENDIAN), maxCapacity);
            this.owner = owner;
            this.listed = b;
            setIndex(0, 0);
        }

        /** Makes a listed buffer new again: one reference, empty, no marks. */
        void reuse(int maxCapacity) {
            resetRefCnt();
            maxCapacity(maxCapacity);
            setIndex(0, 0);
            markReaderIndex();
            markWriterIndex();
        }

        @Override
        public ByteBuf capacity(int newCapacity) {
            ByteBuffer before = listed;
            int old = capacity();
            super.capacity(newCapacity);
            if (before != null && capacity() != old) {
                listed = null;
                PlatformDependent.freeDirectBuffer(before);
            }
            return this;
        }

        /**
         * A recycled slice (decision 0034): each read from the io_uring buffer ring is a retained slice of a ring
         * buffer, and Netty's own slice object was the one allocation of a {@code -P 1} request in steady state.
         */
        @Override
        public ByteBuf retainedSlice(int index, int length) {
            return RECYCLED_SLICES
                    ? RecycledSlices.retainedSlice(this, index, length)
                    : super.retainedSlice(index, length);
        }

        @Override
        protected void deallocate() {
            ByteBuffer b = listed;
            if (b != null) {
                Lists l = owner.lists.get();
                if (l != NONE && l.put(this, b.capacity())) return;
                listed = null;
            }
            super.deallocate();
            if (b != null) PlatformDependent.freeDirectBuffer(b);
        }
    }
}
