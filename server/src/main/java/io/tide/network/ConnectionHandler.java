package io.tide.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.tide.command.ClientConnection;
import io.tide.command.ClientSession;
import io.tide.command.Dispatcher;
import io.tide.command.Errors;
import io.tide.command.ServerContext;
import io.tide.protocol.BulkArrayEncoder;
import io.tide.protocol.ProtocolError;
import io.tide.protocol.Reply;
import io.tide.protocol.RespDecoder;
import io.tide.protocol.RespWriter;
import io.netty.channel.unix.UnixChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: feeds decoded requests to the dispatcher and gathers replies into an output
 * buffer that is flushed once per read batch. Confined to the channel's event loop (its client's home
 * shard), except {@link #close()} and the address getters.
 *
 * <p>A buffer that reaches {@link BulkArrayEncoder#CHUNK} bytes is handed to the channel unflushed and a
 * new one started, so replies of any size and any number of pending replies cost time linear in their
 * bytes (one growing buffer would be reallocated and copied every few megabytes, quadratic in what a
 * client leaves unread). Unflushed buffers reach the socket only at {@link #flush()}, which keeps the
 * rule that replies wait for the journal.
 *
 * <p>While the channel is not writable (its outbound buffer is over the high-water mark: the client
 * reads slower than it asks), further full 64 KiB buffers wait in a backlog of heap arrays behind it and
 * move to the channel as it drains. Direct memory is native: a client that leaves a gigabyte unread would
 * otherwise take a gigabyte of it, which a pooling allocator keeps for good and malloc may keep too;
 * heap arrays are collected and the heap shrinks again. The smaller buffer of a flush goes to the channel
 * when no backlog is waiting (a flooded subscriber's messages): client-output-buffer-limit bounds those.
 *
 * <p>An idle connection holds no buffer: the output buffer is released at each flush, the decoder's cumulation
 * once it is consumed, and the backlog's queue once it drains; the peer's address string is made when first asked
 * for. What few connections need (the backlog, held requests, close hooks) is in {@link Rare}, made on first use.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter
        implements ClientConnection, RespWriter.Output, java.util.function.BooleanSupplier {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandler.class);

    /**
     * The connections of this one's home shard and what they share (the server, the dispatcher, the home shard, the
     * limits), read through it rather than kept here: each reference a handler holds costs every idle connection.
     */
    private final ShardClients registry;
    /** This connection's place in {@link #registry}, or -1. */
    int clientsSlot = -1;
    /** What few connections need (a backlog, held requests, a close hook), made on first use; see {@link Rare}. */
    private Rare rare;
    private Channel channel;
    private ClientSession session;
    private ByteBuf out;
    /**
     * Bytes of the last buffer this connection flushed: the next one starts at that size (at least 256 B, at most
     * {@link #FLUSH_START_MAX}), so that a pipeline's replies fit the buffer they start in instead of growing it
     * through Netty's unpooled memory, and a connection that gets one small message at a time keeps small buffers.
     */
    private int lastFlushBytes;
    private static final int FLUSH_START_MAX = 16 * 1024;
    /** Whether buffers were handed to the channel since the last flush. */
    private boolean unflushed;
    private boolean pausedByDispatcher;
    /** The peer's address as CLIENT LIST and MONITOR show it, formatted on first use (the local one each time). */
    private String remote;
    /** Decodes this connection's reads: the pipeline's only other handler would cost a context per connection. */
    private final RespDecoder decoder;
    /**
     * Query-buffer figures as of the end of the last read (CLIENT LIST reads them from other threads). Written by the
     * home shard at every read and flush, read elsewhere: opaque access ({@link #QUERY_BYTES} and the others), without
     * the fence of a volatile write. Ints, as the buffers they measure: a query buffer's figures saturate at 2 GiB.
     */
    private int queryBytes;
    private int queryFree;
    /** Peak reply-buffer bytes at a flush, in the five-second window that started at {@link #peakWindowMs}. */
    private int replyPeak;
    private static final java.lang.invoke.VarHandle QUERY_BYTES =
            io.tide.util.VarHandles.field(java.lang.invoke.MethodHandles.lookup(), "queryBytes", int.class);
    private static final java.lang.invoke.VarHandle QUERY_FREE =
            io.tide.util.VarHandles.field(java.lang.invoke.MethodHandles.lookup(), "queryFree", int.class);
    private static final java.lang.invoke.VarHandle REPLY_PEAK =
            io.tide.util.VarHandles.field(java.lang.invoke.MethodHandles.lookup(), "replyPeak", int.class);
    private int lastWindowPeak;
    /** The low 32 bits of the window's start in epoch milliseconds: only differences of it are used. */
    private int peakWindowMs;

    /**
     * A connection's state that few connections ever have, kept out of every idle connection's handler: the reply
     * backlog of a client that reads slower than it asks, the requests a delay fault holds, the soft output limit's
     * clock and the hooks to run on close. Made on first use by the home shard; {@link #outputBufferBytes} and
     * {@link #pendingWrites} read it from other threads as they read the handler's own fields, without a fence.
     */
    private static final class Rare {
        /** Requests held by {@link Faults#delayReplies}, oldest first, with the time each may run; null when none. */
        java.util.ArrayDeque<Held> held;
        boolean heldDrainScheduled;
        /** When the output first went over the soft limit (ms), or 0. */
        long overSoftSinceMs;
        /** Reply bytes behind the channel's full outbound buffer, oldest first; null while empty. */
        java.util.ArrayDeque<byte[]> backlog;
        long backlogBytes;
        /** How many of the backlog's first arrays a flush has released to the socket (the rest await the next). */
        int backlogReleased;
        /** QUIT came while replies waited in the backlog: the channel closes once they have all been written. */
        boolean closeWhenSent;
        Runnable closeHook;
    }

    private Rare rare() {
        Rare r = rare;
        if (r == null) rare = r = new Rare();
        return r;
    }

    ConnectionHandler(ShardClients registry) {
        this.decoder = new RespDecoder(registry.limits, this, registry.decoding);
        this.registry = registry;
    }

    /** A request (argv or protocol error) held by the delay fault until {@code dueNanos}. */
    private record Held(Object msg, long dueNanos) {}

    ClientSession session() {
        return session;
    }

    /**
     * The decoder's test of this connection, without an object of its own per connection (an idle connection's
     * memory): whether it may send commands of unlimited size, which it may once authenticated or before it is set up.
     */
    @Override
    public boolean getAsBoolean() {
        return session == null || session.authenticated();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        channel.remoteAddress(); // Netty keeps both from now on, so a closed channel still tells them
        channel.localAddress();
        ServerContext server = registry.server;
        boolean needsAuth = server.authRequired();
        session = new ClientSession(server.nextClientId(), this, registry.home, !needsAuth, System.currentTimeMillis());
        io.netty.handler.ssl.SslHandler tls = ctx.pipeline().get(io.netty.handler.ssl.SslHandler.class);
        String tlsPeerName = tls == null ? null : TlsAccept.commonName(tls.engine().getSession());
        if (tlsPeerName != null) {
            session.tlsPeerName(tlsPeerName);
            signInByCertificate(tlsPeerName);
        }
        if (server.acl().defaultUser().nopass() && server.config().getBool("protected-mode")
                && !isLocal(channel.remoteAddress())) {
            refuse(ctx, Errors.PROTECTED_MODE); // as Redis: counted as rejected, not as received
            return;
        }
        server.connectionsReceived().incrementAndGet();
        session.logLargeReplies();
        if (server.clients().size() >= server.config().getInt("maxclients")) {
            refuse(ctx, "ERR max number of clients reached");
            return;
        }
        server.clients().add(session);
        registry.add(this);
        ctx.fireChannelActive();
    }

    /**
     * {@code tls-auth-clients-user CN} (Redis 8's): a client whose verified certificate names an ACL user that exists
     * and is on starts authenticated as that user; any other client authenticates as usual.
     */
    private void signInByCertificate(String tlsPeerName) {
        if (!registry.server.config().get("tls-auth-clients-user").equalsIgnoreCase("CN")) return;
        io.tide.acl.AclUser u = registry.server.acl().user(tlsPeerName);
        if (u == null || !u.enabled()) return;
        session.user(u.name());
        session.authenticated(true);
    }

    /** Answers a connection that may not be served with {@code error}, then closes it (nothing it sends is read). */
    private void refuse(ChannelHandlerContext ctx, String error) {
        registry.server.rejectedConnections().incrementAndGet();
        session.markClosed();
        refused = true;
        ByteBuf b = ctx.alloc().buffer();
        RespWriter.write(b, Reply.error(error), 2);
        ctx.writeAndFlush(b).addListener(f -> shutdownThenClose(ctx.channel()));
    }

    /** Set when the connection was refused: what it sends is discarded until it closes. */
    private boolean refused;

    /**
     * Half-closes, then closes a little later: the peer reads what was sent and an orderly end of stream, while what
     * it still sends is drained instead of being answered with a TCP reset that could destroy the reply in flight.
     */
    private static void shutdownThenClose(Channel ch) {
        afterWritesClosingWithin2s(ch, () -> {
            if (ch instanceof io.netty.channel.socket.DuplexChannel duplex) duplex.shutdownOutput();
            else ch.close();
        });
    }

    /**
     * {@link #afterWrites}, with the channel closed within 2 s whatever happens: a peer that stops reading never lets
     * the last write complete.
     */
    private static void afterWritesClosingWithin2s(Channel ch, Runnable then) {
        var deadline = ch.eventLoop().schedule(() -> ch.close(), 2, java.util.concurrent.TimeUnit.SECONDS);
        ch.closeFuture().addListener(f -> deadline.cancel(false));
        afterWrites(ch, then);
    }

    /**
     * Runs {@code then} once everything written to {@code ch} so far has reached the socket. With epoll a flush writes
     * at once, but io_uring only queues the write for the loop's next submission, and a shutdown or close issued
     * meanwhile would overtake it (the peer saw the end of the stream without the error reply before it).
     */
    private static void afterWrites(Channel ch, Runnable then) {
        ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> then.run());
    }

    /**
     * Protected mode's test: a loopback address (127.0.0.0/8, ::1; an IPv4-mapped one arrives as IPv4) or a Unix
     * socket. Redis 7.0 accepts 127.0.0.1 and ::1 only; the rest of 127/8 is this host's loopback as well.
     */
    static boolean isLocal(java.net.SocketAddress a) {
        if (a instanceof InetSocketAddress i) return i.getAddress() != null && i.getAddress().isLoopbackAddress();
        return true;
    }

    /**
     * One read: its bytes are decoded into the loop's request list, the whole batch is prefetched (decision 0023) and
     * starts a run of the command clock (decision 0024), then each request is handled in order; the run ends with the
     * read.
     */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            io.netty.util.ReferenceCountUtil.release(msg);
            return;
        }
        if (refused) {
            in.release(); // nothing a refused connection sends is read
            return;
        }
        java.util.ArrayList<Object> requests = RequestLists.take();
        try {
            decoder.read(ctx.alloc(), in, requests);
            if (!requests.isEmpty()) {
                if (Dispatcher.PREFETCH) registry.dispatcher.prefetch(session, requests);
                registry.home.clock().beginRun();
                for (int i = 0, n = requests.size(); i < n; i++) request(ctx, requests.get(i));
            }
        } finally {
            registry.home.clock().endRun();
            RequestLists.give(requests);
        }
    }

    private void request(ChannelHandlerContext ctx, Object msg) {
        long delay = registry.faults.delayNanos();
        if (delay != 0 || (rare != null && rare.held != null)) {
            hold(ctx, msg, delay); // behind the requests held before it, even once the delay is over
            return;
        }
        handle(ctx, msg);
    }

    private void handle(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof byte[][] argv) {
            if (argv.length > 0) registry.dispatcher.dispatch(session, argv);
        } else if (msg instanceof ProtocolError err) {
            registry.dispatcher.protocolError(session, err.message(), () -> closeAfterProtocolError(ctx));
        }
    }

    /** Queues a request for {@code delayNanos} (Faults#delayReplies). */
    private void hold(ChannelHandlerContext ctx, Object msg, long delayNanos) {
        Rare r = rare();
        if (r.held == null) r.held = new java.util.ArrayDeque<>();
        r.held.add(new Held(msg, System.nanoTime() + delayNanos));
        if (!r.heldDrainScheduled) {
            r.heldDrainScheduled = true;
            ctx.executor().schedule(() -> runHeld(ctx), delayNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    /** Runs the held requests whose time has come, in order, and replies; schedules itself for the rest. */
    private void runHeld(ChannelHandlerContext ctx) {
        Rare r = rare;
        r.heldDrainScheduled = false;
        long now = System.nanoTime();
        while (r.held != null && !r.held.isEmpty() && r.held.peek().dueNanos() - now <= 0) {
            handle(ctx, r.held.poll().msg());
        }
        if (r.held != null && r.held.isEmpty()) r.held = null;
        if (r.held != null) {
            r.heldDrainScheduled = true;
            ctx.executor().schedule(() -> runHeld(ctx), r.held.peek().dueNanos() - now,
                    java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        flush();
    }

    /** Closes the connection now, replies not yet sent and held requests dropped (Faults#dropConnections). */
    void drop() {
        if (rare != null) rare.held = null;
        if (session != null) session.markClosed();
        closeDroppingOutput();
    }

    /** Closes the channel with the output not yet written released unsent (the session is already marked closed). */
    private void closeDroppingOutput() {
        if (out != null) {
            out.release();
            out = null;
        }
        clearBacklog();
        if (channel != null) channel.close();
    }

    /** Sends what is due, then half-closes (the decoder discards the rest of the request). */
    private void closeAfterProtocolError(ChannelHandlerContext ctx) {
        session.markClosed();
        flushBeforeClose();
        shutdownThenClose(ctx.channel());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        registry.home.stats().netInputBytes += decoder.takeBytesReceived();
        registry.home.stats().readsProcessed++;
        int q = saturated(decoder.queryBufferBytes());
        QUERY_BYTES.setOpaque(this, q);
        if (q > inputPeak) inputPeak = q;
        QUERY_FREE.setOpaque(this, saturated(decoder.queryBufferFree()));
        flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        drainBacklog();
        updateAutoRead();
        ctx.fireChannelWritabilityChanged();
    }

    /** Back-pressure: no requests are read from a client that does not read its replies. */
    private void updateAutoRead() {
        channel.config().setAutoRead(channel.isWritable() && backlogEmpty() && !pausedByDispatcher);
    }

    /** Moves released backlog arrays to the channel while it is writable. */
    private void drainBacklog() {
        Rare r = rare;
        if (r == null) return;
        boolean wrote = false;
        while (r.backlogReleased > 0 && channel.isWritable()) {
            byte[] chunk = r.backlog.poll();
            r.backlogReleased--;
            r.backlogBytes -= chunk.length;
            channel.write(Unpooled.wrappedBuffer(chunk), channel.voidPromise());
            wrote = true;
        }
        if (r.backlog != null && r.backlog.isEmpty()) r.backlog = null; // its array grew with the backlog: let it go
        if (wrote) channel.flush();
        if (r.closeWhenSent && r.backlog == null) {
            r.closeWhenSent = false;
            afterWritesClosingWithin2s(channel, channel::close);
        }
    }

    private boolean backlogEmpty() {
        Rare r = rare;
        return r == null || r.backlog == null;
    }

    /** Whether every array in the backlog has been released to the socket (so is it when there is none). */
    private boolean backlogAllReleased() {
        Rare r = rare;
        return r == null || r.backlogReleased == (r.backlog == null ? 0 : r.backlog.size());
    }

    private void addToBacklog(byte[] chunk) {
        Rare r = rare();
        if (r.backlog == null) r.backlog = new java.util.ArrayDeque<>();
        r.backlog.add(chunk);
        r.backlogBytes += chunk.length;
    }

    private void clearBacklog() {
        Rare r = rare;
        if (r == null) return;
        r.backlog = null;
        r.backlogBytes = 0;
        r.backlogReleased = 0;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (session != null) {
            session.markClosed();
            registry.server.clients().remove(session);
        }
        registry.remove(this);
        decoder.release();
        if (out != null) {
            out.release();
            out = null;
        }
        clearBacklog();
        Rare r = rare;
        if (r != null) {
            r.held = null;
            Runnable hook = r.closeHook;
            r.closeHook = null;
            if (hook != null) hook.run();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Runnable shutdown = () -> registry.server.requestShutdown();
        if (io.tide.util.OutOfMemory.handle(cause, "connection " + remoteAddress(), shutdown)) {
            ctx.close();
            return;
        }
        // A peer's reset or a TLS handshake it botched is the peer's business; anything else is a fault of ours that
        // cost a client its connection, and is worth a line in the log with where it came from.
        if (cause instanceof java.io.IOException || cause instanceof io.netty.handler.codec.DecoderException) {
            LOG.debug("connection {} error: {}", remoteAddress(), cause.toString());
        } else {
            LOG.warn("connection {} closed after an unexpected error", remoteAddress(), cause);
        }
        ctx.close();
    }

    // ClientConnection

    @Override
    public long write(Reply reply, int protocolVersion) {
        long before = registry.home.stats().netOutputBytes + (out == null ? 0 : out.readableBytes());
        RespWriter.write(this, reply, protocolVersion);
        long written = registry.home.stats().netOutputBytes + (out == null ? 0 : out.readableBytes()) - before;
        OutputBufferLimit.Limits limits = session != null && session.inPubSubMode() ? registry.outputLimit.pubsub()
                : registry.outputLimit.normal();
        if (!limits.none()) enforce(limits);
        return written;
    }

    // RespWriter.Output

    @Override
    public ByteBuf buffer() {
        if (out == null) out = channel.alloc().ioBuffer(Math.max(256, Math.min(lastFlushBytes, FLUSH_START_MAX)));
        return out;
    }

    @Override
    public void appended() {
        ByteBuf b = out;
        if (b == null || b.readableBytes() < BulkArrayEncoder.CHUNK) return;
        out = null;
        handOn(b);
    }

    @Override
    public void appendOwned(byte[] chunk) {
        if (backlogEmpty() && channel.isWritable()) {
            buffer().writeBytes(chunk);
            appended();
            return;
        }
        ByteBuf b = out;
        out = null;
        if (b != null) handOn(b);
        if (!channel.isActive()) return;
        registry.home.stats().netOutputBytes += chunk.length;
        addToBacklog(chunk);
    }

    /** Hands a full buffer to the channel unflushed, or to the backlog once the channel is full. */
    private void handOn(ByteBuf b) {
        if (!b.isReadable() || !channel.isActive()) {
            b.release();
            return;
        }
        registry.home.stats().netOutputBytes += b.readableBytes();
        if (backlogEmpty() && channel.isWritable()) {
            channel.write(b, channel.voidPromise());
            unflushed = true;
        } else {
            byte[] copy = ByteBufUtil.getBytes(b);
            b.release();
            addToBacklog(copy);
        }
    }

    /**
     * client-output-buffer-limit for normal and pubsub clients, as Redis checks it when replies are added: over
     * the hard limit, or over the soft limit for longer than its seconds, the client is closed.
     */
    private void enforce(OutputBufferLimit.Limits limits) {
        long used = outputBufferBytes();
        boolean over = limits.hard() > 0 && used >= limits.hard();
        if (!over && limits.soft() > 0 && used >= limits.soft()) {
            long now = System.currentTimeMillis();
            Rare r = rare();
            if (r.overSoftSinceMs == 0) {
                r.overSoftSinceMs = now;
            } else {
                over = now - r.overSoftSinceMs >= limits.softSeconds() * 1000;
            }
        } else if (!over && rare != null) {
            rare.overSoftSinceMs = 0;
        }
        if (over && session != null && !session.isClosed()) {
            LOG.warn("Client id={} addr={} closed for overcoming of output buffer limits ({} bytes).", session.id(),
                    remoteAddress(), used);
            session.markClosed();
            closeDroppingOutput();
        }
    }

    /**
     * Writes the pending replies to the socket. With an AOF, what the replies acknowledge must be in the file first:
     * if the shard's journal holds unwritten records, the replies wait for the journal's flush at the end of this
     * loop iteration (one write(2) for every connection of the iteration). Under appendfsync always, replies to
     * writes wait for their fsync in the reply queue anyway, so nothing is held here.
     */
    @Override
    public void flush() {
        if (out == null && !unflushed && backlogAllReleased()) return;
        io.tide.journal.Journal journal = registry.home.writes().journal();
        if (journal.active() && !journal.syncsReplies() && journal.pending()) {
            if (!flushHeld) {
                flushHeld = true;
                journal.afterNextFlush(this::flushHeld);
            }
            return;
        }
        flushNow();
    }

    private boolean flushHeld;

    /** The journal's flush came: the replies held for it go out. */
    private void flushHeld() {
        flushHeld = false;
        flushNow();
    }

    /** Closing: the journal first (the replies acknowledge what it holds), then the replies, now. */
    private void flushBeforeClose() {
        io.tide.journal.Journal journal = registry.home.writes().journal();
        if (journal.active()) journal.flush();
        flushNow();
    }

    private void flushNow() {
        ByteBuf b = out;
        out = null;
        notePeak(b == null ? 0 : b.readableBytes());
        if (b != null) lastFlushBytes = b.readableBytes();
        boolean handedOn = unflushed;
        unflushed = false;
        if (b != null && (!b.isReadable() || !channel.isActive())) {
            b.release();
            b = null;
        }
        // A flush with an empty backlog writes to the channel even over its high-water mark (a subscriber that stopped
        // reading while publishers go on; the limit counts those bytes in the outbound buffer): copying them to the
        // heap instead did no better in bin/bench-memory subscriber (docs/decisions/0009-memory-limits.md, section 5).
        if (!backlogEmpty()) {
            if (b != null) handOn(b);
            rare.backlogReleased = rare.backlog.size();
            if (handedOn) channel.flush();
            drainBacklog();
            updateAutoRead();
        } else if (b != null) {
            registry.home.stats().netOutputBytes += b.readableBytes();
            channel.writeAndFlush(b, channel.voidPromise());
        } else if (handedOn && channel.isActive()) {
            channel.flush();
        } else {
            return;
        }
        registry.home.stats().writesProcessed++;
    }

    @Override
    public void close() {
        Channel ch = channel;
        if (ch == null) return;
        onLoop(ch, () -> {
            flushBeforeClose();
            ch.close();
        });
    }

    /** Runs {@code r} on {@code ch}'s event loop: now when called there, else queued to it. */
    private static void onLoop(Channel ch, Runnable r) {
        if (ch.eventLoop().inEventLoop()) r.run();
        else ch.eventLoop().execute(r);
    }

    /**
     * QUIT's close: the replies due are flushed and the channel closes once they have reached the socket. With io_uring
     * a close issued at once would overtake the queued write, and a connection with a multishot receive armed (decision
     * 0026) lost its last replies that way.
     */
    @Override
    public void closeAfterReplies() {
        Channel ch = channel;
        if (ch == null) return;
        onLoop(ch, () -> {
            flushBeforeClose();
            if (backlogEmpty()) afterWritesClosingWithin2s(ch, ch::close);
            else rare.closeWhenSent = true; // the backlog's bytes go first: drainBacklog closes once it is empty
        });
    }

    @Override
    public void writeRaw(byte[] bytes, java.util.function.Consumer<Boolean> written) {
        Channel ch = channel;
        ch.eventLoop().execute(() -> {
            if (!ch.isActive()) {
                written.accept(false);
                return;
            }
            flushNow();
            // A replica's stream and image: INFO total_net_repl_output_bytes, not total_net_output_bytes (as Redis 7).
            ch.writeAndFlush(Unpooled.wrappedBuffer(bytes)).addListener(f -> written.accept(f.isSuccess()));
        });
    }

    @Override
    public void onClose(Runnable r) {
        if (channel == null || !channel.isActive()) {
            r.run();
            return;
        }
        Rare h = rare();
        Runnable before = h.closeHook;
        h.closeHook = before == null ? r : () -> {
            before.run();
            r.run();
        };
    }

    @Override
    public void pauseReading(boolean paused) {
        pausedByDispatcher = paused;
        updateAutoRead();
    }

    /** Any thread: Netty caches the channel's addresses, and a racing first call formats the same text twice. */
    @Override
    public String remoteAddress() {
        String r = remote;
        if (r == null) {
            Channel ch = channel;
            if (ch == null) return "?:0";
            remote = r = format(ch.remoteAddress());
        }
        return r;
    }

    @Override
    public String localAddress() {
        Channel ch = channel;
        return ch == null ? "?:0" : format(ch.localAddress());
    }

    @Override
    public long outputBufferBytes() {
        // Read from other threads too (used_memory's client buffers, client eviction): the home shard may drop the
        // buffer between two reads of the field, so it is read once.
        ByteBuf b = out;
        Rare r = rare;
        long pending = (b == null ? 0 : b.readableBytes()) + (r == null ? 0 : r.backlogBytes);
        var cob = channel.unsafe().outboundBuffer();
        return pending + (cob == null ? 0 : cob.totalPendingWriteBytes());
    }

    @Override
    public long replyBufferBytes() {
        ByteBuf b = out;
        return b == null ? 0 : b.readableBytes();
    }

    @Override
    public long pendingWrites() {
        var cob = channel.unsafe().outboundBuffer();
        Rare r = rare;
        java.util.ArrayDeque<byte[]> queued = r == null ? null : r.backlog;
        return (queued == null ? 0 : queued.size()) + (cob == null ? 0 : cob.size());
    }

    /** Redis resets the reply-buffer peak every five seconds; the figure shown is the last window's or this one's. */
    private void notePeak(int bytes) {
        int now = (int) System.currentTimeMillis();
        int since = now - peakWindowMs; // at the first flush any value; a negative one (or a wrap) starts a window too
        if (since >= 5000 || since < 0) {
            lastWindowPeak = since >= 0 && since < 10_000 ? replyPeakNow : 0;
            replyPeakNow = 0;
            peakWindowMs = now;
        }
        if (bytes > replyPeakNow) replyPeakNow = bytes;
        REPLY_PEAK.setOpaque(this, Math.max(replyPeakNow, lastWindowPeak));
    }

    private int replyPeakNow;
    /** The largest query buffer since {@link #sampleBufferPeaks} last ran; the home shard's. */
    private int inputPeak;

    /**
     * On the home shard's cron, once a second (Redis's clientsCronTrackExpansiveClients): records this client's
     * largest query buffer since the last call, and its output now, into its shard's recent peaks.
     */
    void sampleBufferPeaks(long nowSec) {
        io.tide.shard.ShardStats st = registry.home.stats();
        st.clientInputPeak.record(nowSec, Math.max(inputPeak, queryBytes)); // the home shard's own field
        st.clientOutputPeak.record(nowSec, Math.max(replyPeakNow, outputBufferBytes()));
        inputPeak = 0;
    }

    @Override
    public long queryBufferBytes() {
        return (int) QUERY_BYTES.getOpaque(this);
    }

    @Override
    public long queryBufferFree() {
        return (int) QUERY_FREE.getOpaque(this);
    }

    @Override
    public long replyBufferSize() {
        ByteBuf b = out;
        return b == null ? 0 : b.capacity();
    }

    @Override
    public long replyBufferPeak() {
        return (int) REPLY_PEAK.getOpaque(this);
    }

    @Override
    public int fd() {
        // The descriptor keeps its number once closed; the channel is published with the session (ClientTable).
        return channel instanceof UnixChannel u && u.fd() != null ? u.fd().intValue() : -1;
    }

    @Override
    public boolean reading() {
        return channel.config().isAutoRead();
    }

    /** A query buffer's figure as the int it is kept in, saturated: only a query-buffer limit over 2gb lets one pass. */
    private static int saturated(long bytes) {
        return (int) Math.min(bytes, Integer.MAX_VALUE);
    }

    private static String format(SocketAddress a) {
        if (a instanceof InetSocketAddress i) {
            String host = i.getAddress() != null ? i.getAddress().getHostAddress() : i.getHostString();
            return host + ":" + i.getPort();
        }
        return String.valueOf(a);
    }
}
