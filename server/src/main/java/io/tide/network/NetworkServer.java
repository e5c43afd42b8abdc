package io.tide.network;

import io.netty.bootstrap.AbstractBootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
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
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.tide.command.Dispatcher;
import io.tide.command.ServerContext;
import io.tide.config.ConfigRegistry;
import io.tide.protocol.ProtocolLimits;
import io.tide.protocol.RespDecoder;
import io.tide.shard.Shard;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Netty side: the shard event loops (one thread each), the listeners and the per-connection
 * pipeline (RESP decoder, connection handler). Confined to the thread that starts and
 * stops the server, except what {@link Faults} calls: the listeners are guarded by their own lock (never taken on a
 * shard thread), and dropping connections runs on each shard's loop.
 */
public final class NetworkServer {

    /** The transport chosen for {@code io-driver}. */
    public record Driver(String name, IoHandlerFactory factory, Class<? extends ServerChannel> channelClass) {}

    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup shardGroup;
    private final Driver driver;
    /** Guarded by itself: {@link Faults} closes and reopens them from a test's thread. */
    private final List<Channel> listeners = new ArrayList<>();
    private ShardClients[] clients;
    private final Faults faults = new Faults(this);
    /** What {@link #listenAgain} binds again: the bootstrap, the bind addresses and the port bound. */
    private ServerBootstrap bootstrap;
    private String bindAddresses;
    private int boundPort;
    private boolean stopped;

    public NetworkServer(String ioDriver, int shards) {
        this.driver = chooseDriver(ioDriver);
        this.acceptGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("tide-accept", true),
                driver.factory());
        this.shardGroup = new MultiThreadIoEventLoopGroup(shards, new DefaultThreadFactory("tide-shard", true),
                driver.factory());
    }

    /** Picks the transport: {@code auto} is epoll where available, else NIO. */
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
     * Unsafe-based buffers (--sun-misc-unsafe-memory-access=allow) and the epoll transport (--enable-native-access).
     */
    private static void noteMissingFlags(boolean nativeAccess) {
        boolean unsafe = io.netty.util.internal.PlatformDependent.hasUnsafe();
        if ((unsafe && nativeAccess) || !FLAGS_NOTED.compareAndSet(false, true)) return;
        java.util.List<String> gains = new ArrayList<>();
        if (!unsafe) gains.add("--sun-misc-unsafe-memory-access=allow would let Netty use its faster buffers "
                + "(20-45% less CPU per request)");
        if (!nativeAccess) gains.add("--enable-native-access=ALL-UNNAMED would let Tide use the epoll transport "
                + "instead of NIO");
        org.slf4j.LoggerFactory.getLogger(NetworkServer.class).info("Tide runs without some JVM flags: {}",
                String.join("; ", gains));
    }

    public String driverName() {
        return driver.name();
    }

    /** The shard loops, in order; shard i is owned by loop i. */
    public List<EventLoop> loops() {
        List<EventLoop> out = new ArrayList<>();
        for (EventExecutor e : shardGroup) out.add((EventLoop) e);
        return out;
    }

    /**
     * Binds every address of {@code bind} (space separated; a leading '-' marks an address that may
     * fail, '*' means all IPv4 interfaces) on {@code port} (0 = an ephemeral port) and returns the port.
     */
    public int start(ServerContext server, Dispatcher dispatcher, Shard[] shards, ProtocolLimits limits)
            throws InterruptedException {
        ConfigRegistry config = server.config();
        OutputBufferLimit outputLimit = new OutputBufferLimit(config);
        clients = new ShardClients[shards.length];
        for (int i = 0; i < shards.length; i++) clients[i] = new ShardClients();
        ServerBootstrap b = new ServerBootstrap()
                .group(acceptGroup, shardGroup)
                .channel(driver.channelClass())
                .option(ChannelOption.SO_BACKLOG, config.getInt("tcp-backlog"))
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        int keepalive = config.getInt("tcp-keepalive");
                        if (keepalive > 0) {
                            ch.config().setOption(ChannelOption.SO_KEEPALIVE, true);
                            if (driver.name().equals("epoll")) {
                                ch.config().setOption(EpollChannelOption.TCP_KEEPIDLE, keepalive);
                                ch.config().setOption(EpollChannelOption.TCP_KEEPINTVL, Math.max(1, keepalive / 3));
                                ch.config().setOption(EpollChannelOption.TCP_KEEPCNT, 3);
                            }
                        }
                        Shard home = homeOf(shards, ch.eventLoop());
                        ConnectionHandler handler = new ConnectionHandler(server, dispatcher, home, clients[home.id()],
                                outputLimit, faults);
                        ch.pipeline().addLast("resp", new RespDecoder(limits, () -> handler.session() == null
                                || handler.session().authenticated()));
                        ch.pipeline().addLast("client", handler);
                    }
                });
        synchronized (listeners) {
            bootstrap = b;
            bindAddresses = config.get("bind");
            boundPort = bindAll(b, bindAddresses, config.getInt("port"), listeners);
            return boundPort;
        }
    }

    /** The faults a test may inject into this server. */
    public Faults faults() {
        return faults;
    }

    /** Binds the listeners again after {@link #closeListeners} (Faults: refused connections end). */
    void listenAgain() {
        synchronized (listeners) {
            if (stopped || bootstrap == null || !listeners.isEmpty()) return;
            try {
                bindAll(bootstrap, bindAddresses, boundPort, listeners);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while binding port " + boundPort, e);
            } catch (RuntimeException e) {
                throw new IllegalStateException("could not listen on port " + boundPort + " again: " + e, e);
            }
        }
    }

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
    }

    /** Stops listening, closes every connection and stops the loops, waiting up to the given time. */
    public void stop(long timeoutMillis) {
        synchronized (listeners) {
            stopped = true;
            for (Channel ch : listeners) ch.close().awaitUninterruptibly(timeoutMillis);
            listeners.clear();
        }
        acceptGroup.shutdownGracefully(0, timeoutMillis, TimeUnit.MILLISECONDS);
        shardGroup.shutdownGracefully(0, timeoutMillis, TimeUnit.MILLISECONDS);
        acceptGroup.terminationFuture().awaitUninterruptibly(timeoutMillis + 1000);
        shardGroup.terminationFuture().awaitUninterruptibly(timeoutMillis + 1000);
    }
}
