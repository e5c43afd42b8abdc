package io.tide.persistence.aof;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real file channel whose fsyncs are counted and can be made to block, and whose writes can be made to fail
 * (after writing part of the buffer), for the writer's tests. Thread-safe as FileChannel is.
 */
final class ControlledChannel extends FileChannel {

    final FileChannel real;
    final AtomicInteger forces = new AtomicInteger();
    volatile CountDownLatch blockForce;
    volatile IOException failForce;
    /** When set, the next write writes at most {@code partialBytes} bytes and then throws this. */
    volatile IOException failWrite;
    volatile int partialBytes;

    ControlledChannel(Path file) throws IOException {
        this.real = AofWriter.openForAppend(file);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        IOException f = failWrite;
        if (f != null) {
            if (partialBytes > 0 && src.remaining() > partialBytes) {
                ByteBuffer part = src.duplicate();
                part.limit(part.position() + partialBytes);
                int n = real.write(part);
                src.position(src.position() + n);
                partialBytes = 0;
                return n;   // the next call throws
            }
            throw f;
        }
        return real.write(src);
    }

    @Override
    public void force(boolean metaData) throws IOException {
        CountDownLatch latch = blockForce;
        if (latch != null) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
        }
        if (failForce != null) throw failForce;
        real.force(metaData);
        forces.incrementAndGet();
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return real.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return real.read(dsts, offset, length);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        return real.write(srcs, offset, length);
    }

    @Override
    public long position() throws IOException {
        return real.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        real.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return real.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        real.truncate(size);
        return this;
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return real.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        return real.transferFrom(src, position, count);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return real.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        return real.write(src, position);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return real.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return real.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return real.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        real.close();
    }
}
