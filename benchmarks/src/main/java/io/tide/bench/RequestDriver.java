package io.tide.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.tide.Server;
import io.tide.command.ClientConnection;
import io.tide.command.ClientSession;
import io.tide.command.Dispatcher;
import io.tide.protocol.ProtocolLimits;
import io.tide.protocol.Reply;
import io.tide.protocol.RespDecoder;
import io.tide.protocol.RespWriter;
import io.tide.shard.Shard;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives a real, running {@link Server}'s request path without a socket: a batch of RESP bytes is decoded by the real
 * {@link RespDecoder}, each request dispatched by the server's {@link Dispatcher} for a real {@link ClientSession} on
 * its home shard's event loop, and the replies encoded by {@link RespWriter} into one reused output buffer, as the
 * connection handler does between a read and its flush. What a socket adds (the read and write system calls, Netty's
 * channel pipeline) is left out. The calling thread posts one task per batch to the home shard's loop and waits until
 * every reply of the batch was written (replies of hops arrive later, on the home loop, from the owner shard).
 *
 * <p>Thread-safety: {@link #run} is called by one benchmark thread; everything else runs on the home shard's thread.
 */
final class RequestDriver implements ClientConnection, RespWriter.Output {

    private final Server server;
    private final Shard home;
    private final ClientSession session;
    private final RespDecoder decoder = new RespDecoder(new ProtocolLimits(), () -> true);
    private final Dispatcher dispatcher;
    private final List<Object> decoded = new ArrayList<>(64);
    private final Runnable batchTask = this::runBatch;
    private final ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(64 * 1024);
    /** The requests of one batch; its reader index is reset before each. */
    private ByteBuf requests;
    private int expected;
    private int written;
    private volatile boolean done;
    /** A checksum of the replies' bytes, so nothing is optimised away and a wrong reply size shows. */
    private long replyBytes;

    RequestDriver(Server server, int homeShard) {
        this.server = server;
        this.home = server.context().shards().get(homeShard);
        this.dispatcher = server.dispatcher();
        this.session = new ClientSession(server.context().nextClientId(), this, home, true,
                System.currentTimeMillis());
        session.logLargeReplies();
    }

    /** The RESP bytes of {@code argv} as a client sends them (a multibulk request). */
    static byte[] request(String... argv) {
        StringBuilder sb = new StringBuilder().append('*').append(argv.length).append("\r\n");
        for (String a : argv) sb.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n")
                .append(a).append("\r\n");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A direct buffer holding the concatenated requests (a pipelined read). */
    static ByteBuf batch(List<byte[]> requests) {
        int n = 0;
        for (byte[] r : requests) n += r.length;
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(n);
        for (byte[] r : requests) b.writeBytes(r);
        return b;
    }

    /** Sends the batch and waits for its {@code replies}; returns the bytes of replies written. */
    long run(ByteBuf batch, int replies) {
        requests = batch;
        expected = replies;
        done = false;
        home.loop().execute(batchTask);
        while (!done) Thread.onSpinWait();
        long r = replyBytes;
        replyBytes = 0;
        return r;
    }

    /** Runs {@code requests} once, on the calling thread's view (for setup: loads keys), and waits. */
    void runOnce(ByteBuf batch, int replies) {
        run(batch, replies);
        batch.readerIndex(0);
    }

    private void runBatch() {
        written = 0;
        ByteBuf in = requests;
        in.readerIndex(0);
        decoder.parse(in, decoded);
        for (int i = 0; i < decoded.size(); i++) {
            dispatcher.dispatch(session, (byte[][]) decoded.get(i));
        }
        decoded.clear();
        flush();
    }

    // ClientConnection

    @Override
    public long write(Reply reply, int protocolVersion) {
        int before = out.writerIndex();
        RespWriter.write(this, reply, protocolVersion);
        written++;
        return out.writerIndex() - before;
    }

    @Override
    public void flush() {
        replyBytes += out.readableBytes();
        out.clear();
        if (written >= expected) {
            written = 0;
            done = true;
        }
    }

    // RespWriter.Output

    @Override
    public ByteBuf buffer() {
        return out;
    }

    @Override
    public void appended() {
        if (out.readableBytes() >= 32 * 1024) {
            replyBytes += out.readableBytes();
            out.clear();
        }
    }

    /** Ends the session and frees the output buffer; after the last batch. */
    void release() {
        session.markClosed();
        out.release();
    }

    @Override public void close() { }

    @Override public void pauseReading(boolean paused) { }
    @Override public String remoteAddress() { return "127.0.0.1:1"; }
    @Override public String localAddress() { return "127.0.0.1:6379"; }
    @Override public long outputBufferBytes() { return out.readableBytes(); }
    @Override public long replyBufferBytes() { return out.readableBytes(); }
    @Override public long pendingWrites() { return 0; }
    @Override public long queryBufferBytes() { return 0; }
    @Override public long queryBufferFree() { return 0; }
    @Override public long replyBufferSize() { return out.capacity(); }
    @Override public long replyBufferPeak() { return out.capacity(); }
    @Override public int fd() { return -1; }
    @Override public boolean reading() { return true; }

    @Override
    public void writeRaw(byte[] bytes, java.util.function.Consumer<Boolean> written) {
        written.accept(false);
    }

    @Override
    public void onClose(Runnable r) { }
}
