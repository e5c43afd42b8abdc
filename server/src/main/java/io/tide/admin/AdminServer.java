package io.tide.admin;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.tide.command.ServerContext;
import io.tide.network.NetworkServer;
import io.tide.persistence.Persistence;
import io.tide.replication.Replica;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin port ({@code admin-port}, off by default), on the same {@code bind} addresses as the RESP port: {@code GET
 * /healthz} (the process answers), {@code GET /readyz} (503 with the reason while loading, with progress and an
 * estimate of the time left, or while a replica is not in sync), {@code GET /metrics} (Prometheus text exposition,
 * see {@link Metrics}), {@code GET /backup} (a consistent RDB image of the whole server, streamed), and the web
 * console under {@code /ui/} with its API under {@code /api/} ({@link Console}). When connections must authenticate
 * (requirepass, or a default user with a password), everything but /healthz and the console's static files needs HTTP
 * basic credentials of an ACL user that is on (user empty means {@code default}); others get 401 and no data.
 *
 * <p>Thread-safe. One event-loop thread ({@code tide-admin}) runs the HTTP codec; scrapes and the console's /api/stats
 * run on one worker thread ({@code tide-admin-scrape}), since they wait for every shard's figures. Nothing here runs
 * on a shard thread except the reading of that shard's own figures and the console's commands.
 */
public final class AdminServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
    /** How long a scrape waits for the shards (a busy script holds its shard). */
    private static final long SCRAPE_TIMEOUT_MS = 5000;
    /** The largest request body: a console command with its arguments (a value edited in the browser). */
    static final int MAX_REQUEST_BYTES = 1024 * 1024;

    private final ServerContext server;
    private final Metrics metrics;
    private final Console console;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("tide-admin", true),
            NioIoHandler.newFactory());
    private final ExecutorService scrapes = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "tide-admin-scrape");
        t.setDaemon(true);
        return t;
    });
    private final List<Channel> listeners = new ArrayList<>();
    private int port;

    public AdminServer(ServerContext server, io.tide.command.Dispatcher dispatcher) {
        this.server = server;
        this.metrics = new Metrics(server);
        this.console = new Console(server, dispatcher, metrics);
    }

    /** Binds {@code bind}'s addresses on {@code admin-port} and returns the port (0 asks for a free one). */
    public int start(String bind, int requestedPort) throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(4096, 8192, 8192));
                        ch.pipeline().addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES));
                        ch.pipeline().addLast(new Handler());
                    }
                });
        port = NetworkServer.bindAll(b, bind, requestedPort, listeners);
        LOG.info("Admin port {} (/healthz /readyz /metrics /backup /ui/)", port);
        return port;
    }

    public int port() {
        return port;
    }

    @Override
    public void close() {
        for (Channel ch : listeners) ch.close().awaitUninterruptibly(1000);
        group.shutdownGracefully(0, 1000, TimeUnit.MILLISECONDS).awaitUninterruptibly(2000);
        scrapes.shutdownNow();
    }

    /**
     * The ACL user whose HTTP basic credentials the request carries (user empty means {@code default}, as for AUTH with
     * a password alone), or null without valid ones; {@code default} when connections need no authentication.
     */
    private String authorizedUser(FullHttpRequest req) {
        if (!server.authRequired()) return "default";
        String h = req.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (h == null || !h.regionMatches(true, 0, "Basic ", 0, 6)) return null;
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(h.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) return null;
        String user = colon == 0 ? "default" : decoded.substring(0, colon);
        return server.acl().authenticate(user, decoded.substring(colon + 1)) != null ? user : null;
    }

    /** /readyz's reason for not being ready, or null when ready. */
    private String notReady() {
        Persistence p = server.persistence();
        if (p.loading()) {
            long total = p.loadingTotalBytes();
            long loaded = p.loadingLoadedBytes();
            long elapsed = Math.max(1, System.currentTimeMillis() / 1000 - p.loadingStartSeconds());
            String progress = total > 0 ? String.format(java.util.Locale.ROOT, " %.1f%% of %d bytes, about %d s left",
                    100.0 * loaded / total, total, loaded == 0 ? 1 : (total - loaded) * elapsed / loaded) : "";
            return "loading the dataset" + progress;
        }
        Replica r = server.replica();
        if (r.active()) {
            if (r.syncing()) return "replica: full sync from " + r.host() + ":" + r.port() + " in progress";
            if (!r.linkUp()) return "replica: the link to " + r.host() + ":" + r.port() + " is down";
        }
        return null;
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            if (!req.decoderResult().isSuccess()) {
                send(ctx, req, HttpResponseStatus.BAD_REQUEST, "bad request\n");
                return;
            }
            String path = req.uri();
            int q = path.indexOf('?');
            if (q >= 0) path = path.substring(0, q);
            boolean post = req.method().equals(HttpMethod.POST);
            if (post != path.equals("/api/command")
                    || !post && !req.method().equals(HttpMethod.GET) && !req.method().equals(HttpMethod.HEAD)) {
                send(ctx, req, HttpResponseStatus.METHOD_NOT_ALLOWED,
                        path.equals("/api/command") ? "POST /api/command only\n" : "only GET and HEAD\n");
                return;
            }
            if (path.equals("/healthz")) {
                send(ctx, req, HttpResponseStatus.OK, "ok\n");
                return;
            }
            if (path.equals("/ui") || path.equals("/")) {
                FullHttpResponse res = plain(HttpResponseStatus.FOUND, "/ui/\n");
                res.headers().set(HttpHeaderNames.LOCATION, "/ui/");
                write(ctx, req, res);
                return;
            }
            if (path.startsWith("/ui/")) {
                Console.Static f = console.file(path);
                if (f == null) {
                    send(ctx, req, HttpResponseStatus.NOT_FOUND, "not found\n");
                    return;
                }
                FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        Unpooled.wrappedBuffer(f.body()));
                res.headers().set(HttpHeaderNames.CONTENT_TYPE, f.contentType());
                res.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
                write(ctx, req, res);
                return;
            }
            String user = authorizedUser(req);
            if (user == null) {
                FullHttpResponse res = plain(HttpResponseStatus.UNAUTHORIZED, "authentication required\n");
                // The console's own login form asks for the password: no browser dialog for its API calls.
                if (!path.startsWith("/api/")) {
                    res.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Basic realm=\"tide\", charset=\"UTF-8\"");
                }
                write(ctx, req, res);
                return;
            }
            switch (path) {
                case "/readyz" -> {
                    String why = notReady();
                    if (why == null) send(ctx, req, HttpResponseStatus.OK, "ready\n");
                    else send(ctx, req, HttpResponseStatus.SERVICE_UNAVAILABLE, why + "\n");
                }
                case "/metrics" -> {
                    req.retain();
                    scrapes.execute(() -> {
                        try {
                            scrape(ctx, req);
                        } finally {
                            req.release();
                        }
                    });
                }
                case "/backup" -> backup(ctx, req);
                case "/api/stats", "/api/command" -> api(ctx, req, path, user);
                default -> send(ctx, req, HttpResponseStatus.NOT_FOUND, "not found\n");
            }
        }

        /**
         * The console's API: the same credentials as every endpoint, and {@link Console#refusedHost}; commands run as
         * the signed-in ACL {@code user}.
         */
        private void api(ChannelHandlerContext ctx, FullHttpRequest req, String path, String user) {
            String refused = console.refusedHost(req);
            if (refused != null) {
                send(ctx, req, HttpResponseStatus.FORBIDDEN, refused);
                return;
            }
            if (path.equals("/api/stats")) {
                req.retain();
                scrapes.execute(() -> {
                    try {
                        String json = console.stats(SCRAPE_TIMEOUT_MS);
                        FullHttpResponse res = plain(HttpResponseStatus.OK, json);
                        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
                        write(ctx, req, res);
                    } catch (java.io.IOException | RuntimeException e) {
                        send(ctx, req, HttpResponseStatus.SERVICE_UNAVAILABLE, "stats failed: " + e.getMessage() + "\n");
                    } finally {
                        req.release();
                    }
                });
                return;
            }
            if (req.headers().get(Console.COMMAND_HEADER) == null) {
                send(ctx, req, HttpResponseStatus.FORBIDDEN, "a command needs the " + Console.COMMAND_HEADER
                        + " header\n");
                return;
            }
            int db;
            try {
                db = Integer.parseInt(new io.netty.handler.codec.http.QueryStringDecoder(req.uri()).parameters()
                        .getOrDefault("db", List.of("0")).get(0));
            } catch (NumberFormatException e) {
                send(ctx, req, HttpResponseStatus.BAD_REQUEST, "db must be a number\n");
                return;
            }
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            console.command(ctx, req, db, user, reply -> {
                FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        Unpooled.wrappedBuffer(reply));
                res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
                write(ctx, keepAlive, false, res);
            }, (status, reason) -> write(ctx, keepAlive, false, plain(status, reason)));
        }

        private void scrape(ChannelHandlerContext ctx, FullHttpRequest req) {
            ByteBuf body = Unpooled.buffer(64 * 1024);
            try (ByteBufOutputStream out = new ByteBufOutputStream(body)) {
                metrics.write(out, SCRAPE_TIMEOUT_MS);
            } catch (java.io.IOException | RuntimeException e) {
                body.release();
                LOG.warn("metrics scrape failed: {}", e.toString());
                send(ctx, req, HttpResponseStatus.SERVICE_UNAVAILABLE, "scrape failed: " + e.getMessage() + "\n");
                return;
            }
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, metrics.contentType());
            write(ctx, req, res);
        }

        /**
         * GET /backup: a consistent RDB image of the whole server, from the fork-less snapshot (its instant is taken
         * with every shard parked, as for a disk-less full sync), streamed as a chunked response at the client's pace.
         * 503 while another save, AOF rewrite or full sync's image runs (one snapshot at a time).
         */
        private void backup(ChannelHandlerContext ctx, FullHttpRequest req) {
            if (req.method().equals(HttpMethod.HEAD)) {
                send(ctx, req, HttpResponseStatus.METHOD_NOT_ALLOWED, "GET /backup\n");
                return;
            }
            HttpChannel out = new HttpChannel(ctx.channel());
            server.shards().coordinator().run(server.shards().all(), () -> {
                CompletableFuture<Long> done = server.persistence().beginReplicationSnapshot(out);
                if (done == null) {
                    send(ctx, req, HttpResponseStatus.SERVICE_UNAVAILABLE, "a save, rewrite or sync is in progress\n");
                    return;
                }
                LOG.info("Backup to {} started", ctx.channel().remoteAddress());
                done.whenComplete((size, err) -> {
                    if (err != null) {
                        LOG.warn("Backup to {} failed: {}", ctx.channel().remoteAddress(), err.toString());
                        ctx.channel().close(); // the client sees a chunked body cut short, not a whole file
                        return;
                    }
                    out.begin();
                    ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT).addListener(ChannelFutureListener.CLOSE);
                    LOG.info("Backup to {} done ({} bytes)", ctx.channel().remoteAddress(), size);
                });
            }, () -> send(ctx, req, HttpResponseStatus.SERVICE_UNAVAILABLE, "the server is stopping\n"));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /**
     * The snapshot writer's target for /backup: the response headers before the first bytes, then each write as a
     * chunk; the writer waits while the socket is not writable (the client's pace bounds the memory used), and fails
     * once the client is gone (which abandons the snapshot).
     */
    private static final class HttpChannel implements WritableByteChannel {
        private final Channel ch;
        private boolean begun;

        HttpChannel(Channel ch) {
            this.ch = ch;
        }

        /** The response's head, once. */
        synchronized void begin() {
            if (begun) return;
            begun = true;
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
            head.headers().set(HttpHeaderNames.CONTENT_DISPOSITION, "attachment; filename=\"dump.rdb\"");
            HttpUtil.setTransferEncodingChunked(head, true);
            ch.write(head);
        }

        @Override
        public int write(ByteBuffer src) throws java.io.IOException {
            begin();
            while (ch.isActive() && !ch.isWritable()) LockSupport.parkNanos(1_000_000);
            if (!ch.isActive()) throw new java.io.IOException("the backup's client went away");
            int n = src.remaining();
            ByteBuf chunk = Unpooled.buffer(n);
            chunk.writeBytes(src);
            ch.writeAndFlush(new DefaultHttpContent(chunk));
            return n;
        }

        @Override
        public boolean isOpen() {
            return ch.isActive();
        }

        @Override
        public void close() {}
    }

    private static FullHttpResponse plain(HttpResponseStatus status, String text) {
        ByteBuf body = Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        return res;
    }

    private static void send(ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus status, String text) {
        write(ctx, req, plain(status, text));
    }

    private static void write(ChannelHandlerContext ctx, FullHttpRequest req, FullHttpResponse res) {
        write(ctx, HttpUtil.isKeepAlive(req), req.method().equals(HttpMethod.HEAD), res);
    }

    /** Writes a response (from any thread); {@code keepAlive} as the request asked, {@code head}: headers only. */
    private static void write(ChannelHandlerContext ctx, boolean keepAlive, boolean head, FullHttpResponse res) {
        HttpUtil.setContentLength(res, res.content().readableBytes());
        if (head) res.content().clear();
        if (keepAlive) res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        var f = ctx.writeAndFlush(res);
        if (!keepAlive) f.addListener(ChannelFutureListener.CLOSE);
    }
}
