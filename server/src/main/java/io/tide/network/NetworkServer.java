package io.tide.network;

import io.netty.bootstrap.AbstractBootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MaxMessagesRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringAdaptiveBufferRingAllocator;
import io.netty.channel.uring.IoUringBufferRingConfig;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringIoHandlerConfig;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.tide.command.Dispatcher;
import io.tide.command.ServerContext;
import io.tide.config.ConfigRegistry;
import io.tide.protocol.ProtocolLimits;
import io.tide.shard.Shard;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Netty side: the shard event loops (one thread each), the listeners and the per-connection
 * pipeline (RESP decoder, connection handler; on the TLS port an SslHandler first). Confined to the thread that
 * starts and stops the server, except the TLS listeners, which CONFIG SET tls-port may change from another thread
 * (those methods synchronize on this object), and what {@link Faults} calls: the plain listeners are guarded by
 * their own lock (never taken on a shard thread), and dropping connections runs on each shard's loop.
 */
public final class NetworkServer {

    /** The transport chosen for {@code io-driver}. */
    public record Driver(String name, IoHandlerFactory factory, Class<? extends ServerChannel> channelClass) {}

    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup shardGroup;
    private final Driver driver;
    /** Whether client reads take their buffers from the shard loops' provided-buffer ring (io_uring only). */
    private final boolean bufferRing;
    /** Guarded by itself: {@link Faults} closes and reopens them from a test's thread. */
    private final List<Channel> listeners = new ArrayList<>();
    /** The TLS port's listeners; replaced whole by {@link #listenTls}. */
    private List<Channel> tlsListeners = new ArrayList<>();
    private int tlsListenPort;
    private final ServerTls tls;
    private ShardClients[] clients;
    // What new connections are wired to; set by start before any listener exists.
    private ServerContext server;
    private Dispatcher dispatcher;
    private Shard[] shards;
    private ProtocolLimits limits;
    private OutputBufferLimit outputLimit;
    private final Faults faults = new Faults(this);
    /** What {@link #listenAgain} binds again: the bootstrap, the bind addresses and the port bound. */
    private ServerBootstrap bootstrap;
    private String bindAddresses;
    private int boundPort;
    private boolean stopped;

    public NetworkServer(ConfigRegistry config, String ioDriver, int shards) {
        this.tls = new ServerTls(config);
        this.driver = chooseDriver(ioDriver);
        this.bufferRing = driver.name().equals("io_uring") && config.getBool("io-uring-buffer-ring")
                && IoUring.isRegisterBufferRingSupported();
        this.acceptGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("tide-accept", true),
                driver.factory());
        this.shardGroup = new MultiThreadIoEventLoopGroup(shards, new DefaultThreadFactory("tide-shard", true),
                bufferRing ? withBufferRing() : driver.factory());
    }

    /** The buffer group of the shard loops' receive ring ({@link #withBufferRing}). */
    private static final short RING_GROUP = 1;

    /**
     * The shard loops' io_uring handler with a ring of receive buffers provided to the kernel (decision 0026): each
     * client connection keeps one multishot receive armed, and the kernel takes a buffer from the ring only when data
     * arrives, so a read needs no new submission and an idle connection holds no buffer. The buffers come from
     * {@link #CLIENT_BUFFERS}, sized by Netty's adaptive ring allocator (1 KB to 64 KB, from the recent reads).
     */
    private static IoHandlerFactory withBufferRing() {
        IoUringIoHandlerConfig config = new IoUringIoHandlerConfig();
        config.setBufferRingConfig(IoUringBufferRingConfig.builder()
                .bufferGroupId(RING_GROUP)
                .bufferRingSize((short) 128)
                .batchSize(32)
                .allocator(new IoUringAdaptiveBufferRingAllocator(CLIENT_BUFFERS))
                .build());
        return IoUringIoHandler.newFactory(config);
    }

    /** Picks the transport: {@code auto} is io_uring where available, else epoll, else NIO. */
    static Driver chooseDriver(String name) {
        switch (name) {
            case "epoll" -> {
                Epoll.ensureAvailability();
                return new Driver("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class);
            }
            case "io_uring" -> {
                IoUring.ensureAvailability();
                return new Driver("io_uring", IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class);
            }
            case "nio" -> {
                return new Driver("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class);
            }
            default -> {
                // Without native access for Netty's module, loading epoll's library makes the JDK print a warning
                // (and a future JDK refuses it): an embedding JVM started without the flag gets NIO, quietly.
                boolean nativeAccess = Epoll.class.getModule().isNativeAccessEnabled();
                noteMissingFlags(nativeAccess);
                // io_uring first: it submits the reads and writes of every ready connection in one system call per
                // loop turn (a fifth to two fifths of epoll's syscalls per request, 20-45% less server CPU per
                // request: docs/benchmarks/performance.md); epoll where the kernel has no io_uring or forbids it
                // (io_uring_disabled, seccomp in containers).
                if (nativeAccess && IoUring.isAvailable()) {
                    return new Driver("io_uring", IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class);
                }
                if (nativeAccess && Epoll.isAvailable()) {
                    return new Driver("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class);
                }
                return new Driver("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class);
            }
        }
    }

    private static final java.util.concurrent.atomic.AtomicBoolean FLAGS_NOTED =
            new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * Says once per JVM, in one line, what the JVM flags an embedding host may have left out would gain: Netty's
     * Unsafe-based buffers (--sun-misc-unsafe-memory-access=allow), the epoll transport (--enable-native-access) and
     * scripts inline on a one-shard server (the jdk.internal.vm export, decision 0022).
     */
    private static void noteMissingFlags(boolean nativeAccess) {
        boolean unsafe = io.netty.util.internal.PlatformDependent.hasUnsafe();
        boolean continuations = io.tide.util.Continuations.available();
        if ((unsafe && nativeAccess && continuations) || !FLAGS_NOTED.compareAndSet(false, true)) return;
        java.util.List<String> gains = new ArrayList<>();
        if (!unsafe) gains.add("--sun-misc-unsafe-memory-access=allow would let Netty use its faster buffers "
                + "(20-45% less CPU per request)");
        if (!nativeAccess) gains.add("--enable-native-access=ALL-UNNAMED would let Tide use the io_uring or epoll "
                + "transport instead of NIO");
        if (!continuations) gains.add("--add-exports java.base/jdk.internal.vm=ALL-UNNAMED would let a one-shard server "
                + "run scripts on its shard thread instead of the coordinator's (about a quarter more EVALSHA per second)");
        String line = "Tide runs without some JVM flags: " + String.join("; ", gains);
        if (org.slf4j.LoggerFactory.getILoggerFactory() instanceof org.slf4j.helpers.NOPLoggerFactory) {
            System.err.println("INFO  " + line); // the host has no SLF4J backend (Tide brings none): still say it
        } else {
            org.slf4j.LoggerFactory.getLogger(NetworkServer.class).info("{}", line);
        }
    }

    public String driverName() {
        return driver.name();
    }

    /** Whether client reads take their buffers from the shard loops' provided-buffer ring. */
    public boolean bufferRing() {
        return bufferRing;
    }

    /** The shard loops, in order; shard i is owned by loop i. */
    public List<EventLoop> loops() {
        List<EventLoop> out = new ArrayList<>();
        for (EventExecutor e : shardGroup) out.add((EventLoop) e);
        return out;
    }

    /**
     * Binds every address of {@code bind} (space separated; a leading '-' marks an address that may
     * fail, '*' means all IPv4 interfaces) on {@code port} (0 = an ephemeral port) and, when {@code tls-port} is set,
     * on that port with TLS; returns the plain port. As in Redis, {@code port 0} beside a TLS port means no plain
     * listener (then 0 is returned); without one it means an ephemeral port.
     */
    public int start(ServerContext server, Dispatcher dispatcher, Shard[] shards, ProtocolLimits limits)
            throws InterruptedException {
        ConfigRegistry config = server.config();
        this.server = server;
        this.dispatcher = dispatcher;
        this.shards = shards;
        this.limits = limits;
        this.outputLimit = new OutputBufferLimit(config);
        clients = new ShardClients[shards.length];
        for (int i = 0; i < shards.length; i++) {
            clients[i] = new ShardClients(server, dispatcher, shards[i], outputLimit, faults, limits);
        }
        int port = config.getInt("port");
        int tlsPort = config.getInt("tls-port");
        int bound = 0;
        if (port != 0 || tlsPort == 0) {
            ServerBootstrap b = bootstrap(config).childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    configure(ch, config);
                    addClientHandlers(ch);
                }
            });
            synchronized (listeners) {
                bootstrap = b;
                bindAddresses = config.get("bind");
                bound = bindAll(b, bindAddresses, port, listeners);
                boundPort = bound;
            }
        }
        if (tlsPort != 0) listenTls(tlsPort);
        return bound;
    }

    private ServerBootstrap bootstrap(ConfigRegistry config) {
        ServerBootstrap sb = new ServerBootstrap();
        if (bufferRing) {
            // Read at registration, so a child option and not the channel initializer's (which runs after it).
            sb.childOption(IoUringChannelOption.IO_URING_BUFFER_GROUP_ID, RING_GROUP);
        }
        return sb
                .group(acceptGroup, shardGroup)
                .channel(driver.channelClass())
                .option(ChannelOption.SO_BACKLOG, config.getInt("tcp-backlog"))
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, CLIENT_BUFFERS)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024));
    }

    /**
     * The buffers of client connections: direct buffers each event loop reuses from a bounded free list, otherwise
     * unpooled direct memory freed as each buffer is released ({@link LoopBuffers}, decisions 0018 and 0020).
     * Netty's pooling allocator keeps the chunks a burst made it take (11 MB after a pipelined load of 1M keys, 11 B a
     * key of RSS) for good. {@code -Dio.netty.allocator.type} chooses Netty's default allocator instead, that one.
     * Only Tide's own connections: a host JVM's Netty is unaffected.
     */
    private static final io.netty.buffer.ByteBufAllocator CLIENT_BUFFERS =
            System.getProperty("io.netty.allocator.type") == null
                    ? LoopBuffers.INSTANCE
                    : io.netty.buffer.ByteBufAllocator.DEFAULT;

    /** A new client channel's settings: one receive-buffer allocator for all, and tcp-keepalive. */
    private void configure(SocketChannel ch, ConfigRegistry config) {
        ch.config().setRecvByteBufAllocator(receiveAllocator(ch));
        int keepalive = config.getInt("tcp-keepalive");
        if (keepalive > 0) {
            ch.config().setOption(ChannelOption.SO_KEEPALIVE, true);
            if (driver.name().equals("epoll")) {
                ch.config().setOption(EpollChannelOption.TCP_KEEPIDLE, keepalive);
                ch.config().setOption(EpollChannelOption.TCP_KEEPINTVL, Math.max(1, keepalive / 3));
                ch.config().setOption(EpollChannelOption.TCP_KEEPCNT, 3);
            }
        }
    }

    /**
     * The receive-buffer allocator all client channels share. Netty's channel config makes one of its own per channel
     * (32 B of an idle connection's heap); its state is its settings, and each channel's handle keeps its counts. It
     * reads as many times per read event as the channel's own would (its transport's default, 16 for TCP). With the
     * buffer ring, {@link RingReceiveAllocator}, whose handles keep no size predictor; else Netty's adaptive one.
     */
    private volatile MaxMessagesRecvByteBufAllocator sharedReceive;

    private MaxMessagesRecvByteBufAllocator receiveAllocator(Channel ch) {
        int reads = ch.metadata().defaultMaxMessagesPerRead();
        MaxMessagesRecvByteBufAllocator a = sharedReceive;
        if (a == null || a.maxMessagesPerRead() != reads) {
            a = bufferRing ? new RingReceiveAllocator(reads) : new AdaptiveRecvByteBufAllocator().maxMessagesPerRead(reads);
            sharedReceive = a;
        }
        return a;
    }

    /**
     * The connection handler, the pipeline's one after TLS (it decodes RESP itself, and reads a TLS client's
     * certificate from the pipeline's SslHandler once the connection is active).
     */
    private void addClientHandlers(SocketChannel ch) {
        Shard home = homeOf(shards, ch.eventLoop());
        ch.pipeline().addLast("client", new ConnectionHandler(clients[home.id()]));
    }

    /** The TLS contexts new TLS connections are made with. */
    public ServerTls tls() {
        return tls;
    }

    /**
     * Listens with TLS on {@code port} on the bind addresses (0: stops listening with TLS), then closes the previous
     * TLS listeners; when binding fails they stay. Called at startup and by CONFIG SET tls-port, which Redis allows.
     *
     * @throws IllegalStateException when no context is configured or no address could be bound
     */
    public synchronized void listenTls(int port) throws InterruptedException {
        // A failed CONFIG SET restoring the port that is still open; after closeListeners the port is bound again.
        if (port == tlsListenPort && (port == 0 || !tlsListeners.isEmpty())) return;
        List<Channel> next = new ArrayList<>();
        if (port != 0) {
            if (!tls.configured()) throw new IllegalStateException("TLS is not configured");
            ConfigRegistry config = server.config();
            ServerBootstrap b = bootstrap(config).childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    configure(ch, config);
                    ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
                    ch.pipeline().addLast("tls-accept", new TlsAccept(NetworkServer.this::addClientHandlers,
                            tls.material().sessionCaching()));
                }
            });
            try {
                bindAll(b, config.get("bind"), port, next);
            } catch (InterruptedException | RuntimeException e) {
                for (Channel ch : next) ch.close().awaitUninterruptibly(1000);
                throw e;
            }
        }
        for (Channel ch : tlsListeners) ch.close().awaitUninterruptibly(2000);
        tlsListeners = next;
        tlsListenPort = port;
    }

    /** The faults a test may inject into this server. */
    public Faults faults() {
        return faults;
    }

    /** Binds the listeners again after {@link #closeListeners} (Faults: refused connections end). */
    void listenAgain() {
        int port = boundPort;
        try {
            synchronized (listeners) {
                if (stopped) return;
                if (bootstrap != null && listeners.isEmpty()) bindAgain();
            }
            synchronized (this) {
                port = tlsListenPort;
                if (port != 0) listenTls(port); // binds only when closeListeners closed it
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding port " + port, e);
        } catch (RuntimeException e) {
            throw new IllegalStateException("could not listen on port " + port + " again: " + e, e);
        }
    }

    /**
     * Binds the client port again after {@link #closeListeners}. While it was closed any socket of this machine may
     * have taken the port for a moment (a client connection's ephemeral port, a port probe), so an address in use
     * is tried again for up to {@link #REBIND_PATIENCE_MS}. Called holding {@code listeners}.
     */
    private void bindAgain() throws InterruptedException {
        long deadline = System.currentTimeMillis() + REBIND_PATIENCE_MS;
        while (true) {
            List<Channel> next = new ArrayList<>();
            try {
                bindAll(bootstrap, bindAddresses, boundPort, next);
                listeners.addAll(next);
                return;
            } catch (Exception e) { // Netty rethrows the bind's exception unchecked
                for (Channel ch : next) ch.close().awaitUninterruptibly(1000);
                if (!addressInUse(e) || System.currentTimeMillis() > deadline) throw e;
                Thread.sleep(50);
            }
        }
    }

    /** EADDRINUSE, as NIO (BindException) and the native transports (NativeIoException, errno -98) word it. */
    private static boolean addressInUse(Exception e) {
        return e instanceof java.net.BindException
                || e.getMessage() != null && e.getMessage().contains("Address already in use");
    }

    private static final long REBIND_PATIENCE_MS = 5000;

    /** Closes every client connection on its shard's loop, replies still pending dropped; waits for them. */
    void dropConnections() {
        if (clients == null) return;
        List<io.netty.util.concurrent.Future<?>> done = new ArrayList<>();
        int i = 0;
        for (EventExecutor loop : shardGroup) {
            ShardClients registry = clients[i++];
            try {
                done.add(loop.submit(registry::dropAll));
            } catch (java.util.concurrent.RejectedExecutionException stopping) {
                // the server is stopping: its connections are closing anyway
            }
        }
        for (io.netty.util.concurrent.Future<?> f : done) f.awaitUninterruptibly(5000);
    }

    /**
     * Binds every address of {@code bind} (space separated; a leading '-' marks an address that may fail, '*' means
     * all IPv4 interfaces) on {@code port} (0: a free port, then the same one for the other addresses), adding the
     * channels to {@code listeners}; returns the port.
     */
    public static int bindAll(AbstractBootstrap<?, ?> b, String bind, int port, List<Channel> listeners)
            throws InterruptedException {
        int boundPort = port;
        int before = listeners.size();
        for (String addr : bind.trim().split("\\s+")) {
            if (addr.isEmpty()) continue;
            boolean optional = addr.startsWith("-");
            String host = optional ? addr.substring(1) : addr;
            if (host.equals("*")) host = "0.0.0.0";
            try {
                Channel ch = b.bind(new InetSocketAddress(host, boundPort)).sync().channel();
                listeners.add(ch);
                boundPort = ((InetSocketAddress) ch.localAddress()).getPort();
            } catch (Exception e) {
                if (!optional) throw e;
            }
        }
        if (listeners.size() == before) throw new IllegalStateException("no listening address could be bound");
        return boundPort;
    }

    /** Closes idle clients of one shard and samples their buffer peaks; runs on that shard's thread from its cron. */
    public void shardCron(int shard, int timeoutSeconds, long nowMs) {
        if (clients == null) return;
        clients[shard].closeIdle(timeoutSeconds, nowMs);
        clients[shard].samplePeaks(nowMs);
    }

    private static Shard homeOf(Shard[] shards, EventLoop loop) {
        for (Shard s : shards) {
            if (s.loop() == loop) return s;
        }
        throw new IllegalStateException("channel registered on a loop that is not a shard");
    }

    /** Stops accepting connections (the first step of a shutdown). */
    public void closeListeners(long timeoutMillis) {
        synchronized (listeners) {
            for (Channel ch : listeners) ch.close().awaitUninterruptibly(timeoutMillis);
            listeners.clear();
        }
        closeTlsListeners(timeoutMillis);
    }

    /** Closes the TLS listeners; {@code tlsListenPort} stays, for {@link #listenAgain}. */
    private synchronized void closeTlsListeners(long timeoutMillis) {
        for (Channel ch : tlsListeners) ch.close().awaitUninterruptibly(timeoutMillis);
        tlsListeners = new ArrayList<>();
    }

    /** Stops listening, closes every connection and stops the loops, waiting up to the given time. */
    public void stop(long timeoutMillis) {
        synchronized (listeners) {
            stopped = true;
        }
        closeListeners(timeoutMillis);
        acceptGroup.shutdownGracefully(0, timeoutMillis, TimeUnit.MILLISECONDS);
        shardGroup.shutdownGracefully(0, timeoutMillis, TimeUnit.MILLISECONDS);
        acceptGroup.terminationFuture().awaitUninterruptibly(timeoutMillis + 1000);
        shardGroup.terminationFuture().awaitUninterruptibly(timeoutMillis + 1000);
    }
}
