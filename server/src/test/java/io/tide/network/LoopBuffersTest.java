package io.tide.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The event loops' free-listed client buffers: reuse, bounds, growth and the threads that get none. */
class LoopBuffersTest {

    private static final ByteBufAllocator ALLOC = LoopBuffers.INSTANCE;
    private static ResourceLeakDetector.Level level;

    @BeforeAll
    static void noLeakWrappers() {
        // a sampled buffer comes wrapped for leak tracking, which would hide the identity these tests compare
        level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }

    @AfterAll
    static void restore() {
        ResourceLeakDetector.setLevel(level);
    }

    /** Runs {@code body} on a thread of the kind Netty's event loops run on (the lists are per such thread). */
    private static <T> T onLoopThread(Callable<T> body) throws Exception {
        AtomicReference<Object> result = new AtomicReference<>();
        Thread t = new FastThreadLocalThread(() -> {
            try {
                result.set(body.call());
            } catch (Throwable e) {
                result.set(e);
            }
        });
        t.start();
        t.join();
        if (result.get() instanceof Throwable e) throw new AssertionError(e);
        @SuppressWarnings("unchecked") T r = (T) result.get();
        return r;
    }

    @Test
    void aReleasedBufferIsHandedOutAgain_emptyAndWithOneReference() throws Exception {
        onLoopThread(() -> {
            ByteBuf a = ALLOC.ioBuffer(100);
            assertTrue(a.isDirect());
            assertTrue(a.capacity() >= 100);
            a.writeBytes("hello".getBytes(StandardCharsets.US_ASCII));
            a.readByte();
            a.markReaderIndex();
            assertTrue(a.release());
            ByteBuf b = ALLOC.ioBuffer(200);
            assertSame(a, b, "same class (256 bytes): the released buffer comes back");
            assertEquals(1, b.refCnt());
            assertEquals(0, b.readerIndex());
            assertEquals(0, b.writerIndex());
            assertEquals(Integer.MAX_VALUE, b.maxCapacity());
            b.writeBytes("xy".getBytes(StandardCharsets.US_ASCII));
            b.resetReaderIndex();
            assertEquals(0, b.readerIndex(), "the old buffer's mark is gone");
            assertEquals("xy", b.toString(StandardCharsets.US_ASCII));
            ByteBuf c = ALLOC.ioBuffer(1000);
            assertNotSame(b, c, "another class, another buffer");
            b.release();
            c.release();
            return null;
        });
    }

    @Test
    void aGrownBufferKeepsItsBytesAndLeavesTheLists() throws Exception {
        onLoopThread(() -> {
            ByteBuf a = ALLOC.ioBuffer(256);
            byte[] data = new byte[5000];
            for (int i = 0; i < data.length; i++) data[i] = (byte) i;
            a.writeBytes(data);
            assertTrue(a.capacity() >= 5000);
            byte[] back = new byte[data.length];
            a.readBytes(back);
            assertEquals(java.util.Arrays.toString(data), java.util.Arrays.toString(back));
            a.release();
            ByteBuf b = ALLOC.ioBuffer(256);
            assertNotSame(a, b, "a buffer that grew is not handed out again");
            b.release();
            return null;
        });
    }

    @Test
    void aLoopKeepsAtMostItsBudgetIdle() throws Exception {
        int perClass = LoopBuffers.LOOP_BYTES / LoopBuffers.MAX_CLASS;
        onLoopThread(() -> {
            List<ByteBuf> first = new ArrayList<>();
            for (int i = 0; i < perClass * 3; i++) first.add(ALLOC.ioBuffer(LoopBuffers.MAX_CLASS));
            Set<ByteBuf> released = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
            released.addAll(first);
            first.forEach(ByteBuf::release);
            int reused = 0;
            List<ByteBuf> second = new ArrayList<>();
            for (int i = 0; i < perClass * 3; i++) {
                ByteBuf b = ALLOC.ioBuffer(LoopBuffers.MAX_CLASS);
                if (released.contains(b)) reused++;
                second.add(b);
            }
            second.forEach(ByteBuf::release);
            assertEquals(perClass, reused, "only LOOP_BYTES of idle buffers are kept");
            ByteBuf big = ALLOC.ioBuffer(LoopBuffers.MAX_CLASS + 1);
            big.release();
            ByteBuf again = ALLOC.ioBuffer(LoopBuffers.MAX_CLASS + 1);
            assertNotSame(big, again, "past the largest class nothing is kept");
            again.release();
            return null;
        });
    }

    @Test
    void aThreadThatIsNoLoopKeepsNothing() {
        ByteBuf a = ALLOC.ioBuffer(100);
        a.writeByte(1);
        a.release();
        ByteBuf b = ALLOC.ioBuffer(100);
        assertNotSame(a, b);
        b.release();
    }

    /**
     * What Netty's io_uring buffer ring does with each read (decision 0034): the kernel writes past the buffer's
     * writer index, the ring takes a retained slice of those bytes and moves the index on (the buffer stays in the
     * ring for the next read), and releases the buffer once it is used up. Each slice must read its own bytes, from
     * memory as the decoder does, and a released slice's object must come back for the next read.
     */
    @Test
    void aRingReadsSlice_readsItsOwnBytes_andItsObjectIsRecycled() throws Exception {
        onLoopThread(() -> {
            ByteBuf ring = ALLOC.ioBuffer(1024);
            ByteBuf first = kernelRead(ring, "*1\r\n$4\r\nPING\r\n");
            assertEquals(2, ring.refCnt(), "the slice holds a reference to the ring's buffer");
            assertEquals("*1\r\n$4\r\nPING\r\n", first.toString(StandardCharsets.US_ASCII));
            assertEquals(ring.memoryAddress(), first.memoryAddress());
            assertTrue(first.release());
            assertEquals(1, ring.refCnt(), "a slice gives back the one reference it took");

            ByteBuf second = kernelRead(ring, "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
            assertSame(first, second, "the released slice's object serves the next read");
            assertEquals(ring.memoryAddress() + 14, second.memoryAddress(), "after the first read's 14 B");
            assertEquals(0, second.readerIndex());
            assertEquals("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", second.toString(StandardCharsets.US_ASCII));
            byte[] fromMemory = new byte[second.readableBytes()];
            for (int i = 0; i < fromMemory.length; i++) {
                fromMemory[i] = PlatformDependent.getByte(second.memoryAddress() + i);
            }
            assertEquals("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", new String(fromMemory, StandardCharsets.US_ASCII));

            assertFalse(ring.release(), "the ring lets go of its buffer; the slice still holds it");
            assertEquals('*', second.getByte(0), "readable after the ring let go");
            assertTrue(second.release());
            ByteBuf again = ALLOC.ioBuffer(1024);
            assertSame(ring, again, "the last release put the buffer back on the loop's list");
            again.release();
            return null;
        });
    }

    /** The kernel's write of {@code data} at the ring buffer's writer index, then Netty's useBuffer steps. */
    private static ByteBuf kernelRead(ByteBuf ring, String data) {
        byte[] b = data.getBytes(StandardCharsets.US_ASCII);
        int at = ring.writerIndex();
        ring.setBytes(at, b);
        ByteBuf slice = ring.retainedSlice(at, b.length);
        ring.writerIndex(at + b.length);
        return slice;
    }

    @Test
    void aBufferReleasedOnAnotherLoopJoinsThatLoopsList() throws Exception {
        ByteBuf made = onLoopThread(() -> ALLOC.ioBuffer(100));
        Object[] seen = onLoopThread(() -> {
            made.release();
            return new Object[] {ALLOC.ioBuffer(100)};
        });
        assertSame(made, seen[0]);
        ((ByteBuf) seen[0]).release();
    }
}
