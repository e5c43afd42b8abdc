package io.netty.buffer;

/**
 * Retained slices whose objects Netty recycles, for Tide's own direct buffers ({@code io.tide.network.LoopBuffers},
 * decision 0034). Netty's pooled buffers already answer {@code retainedSlice} with a recycled
 * {@link PooledSlicedByteBuf}; its factory is package-private, so this one class sits in Netty's package to reach it.
 * The dependency is pinned, and a change to that factory fails Tide's build, not a running server.
 */
public final class RecycledSlices {

    private RecycledSlices() {
    }

    /**
     * A slice of {@code length} bytes of {@code parent} from {@code index}, holding one more reference to it, as
     * {@link ByteBuf#retainedSlice(int, int)} returns. Its release gives that reference back and hands the slice
     * object to the releasing thread's recycler; it must not be touched after.
     */
    public static ByteBuf retainedSlice(AbstractByteBuf parent, int index, int length) {
        return PooledSlicedByteBuf.newInstance(parent, parent, index, length);
    }
}
