package io.tide.admin;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.tide.command.ClientConnection;
import io.tide.command.ClientSession;
import io.tide.command.Dispatcher;
import io.tide.command.ServerContext;
import io.tide.journal.Journal;
import io.tide.protocol.Reply;
import io.tide.protocol.RespWriter;
import io.tide.shard.Shard;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The web console of the admin port: its static files under {@code /ui/} (built into the jar: our page, script and
 * style, and uPlot from its WebJar) and its API under {@code /api/}: {@code GET /api/stats} (the figures its charts
 * draw, {@link Metrics#consoleStats}) and {@code POST /api/command} (one command, sent as a RESP array of bulk strings,
 * answered with its RESP3 reply). Everything else the console shows (keys, values, SLOWLOG, LATENCY, CLIENT LIST) it
 * reads with commands, as any client would.
 *
 * <p>Each command runs as a client of its own: a {@link ClientSession} on a shard (round robin), authenticated by the
 * HTTP request's credentials, named {@code tide-console}, in CLIENT LIST while it runs, closed once it has answered
 * (or when the browser goes away: a blocked command is then cancelled). So the console sees exactly what a client sees,
 * and the commands that need a connection that lasts (MULTI, SELECT, SUBSCRIBE, MONITOR, ...) are refused.
 *
 * <p>Thread-safe. The static files need no credentials (they hold no data); the API does, as every admin endpoint.
 * Without {@code requirepass} the API answers only requests addressed to an IP address, {@code localhost} or this
 * machine's name (a web page elsewhere cannot reach it through a DNS name it rebinds to this machine), and a command
 * must carry the {@code X-Tide-Console} header, which no other site's page can send without a CORS preflight the admin
 * port never grants.
 */
final class Console {

    /** Where the console's own files are on the class path. */
    private static final String UI = "io/tide/admin/ui/";
    /** The header every command request carries (a cross-site page cannot add it without a preflight). */
    static final String COMMAND_HEADER = "X-Tide-Console";
    /** Commands that need a connection that outlives one request, or that would leave the request unanswered. */
    private static final Set<String> REFUSED = Set.of("subscribe", "psubscribe", "ssubscribe", "unsubscribe",
            "punsubscribe", "sunsubscribe", "monitor", "multi", "exec", "discard", "watch", "unwatch", "select",
            "hello", "reset", "quit", "auth", "sync", "psync", "replconf");

    private final ServerContext server;
    private final Dispatcher dispatcher;
    private final Metrics metrics;
    private final AtomicInteger nextHome = new AtomicInteger();
    private final Map<String, byte[]> files = new ConcurrentHashMap<>();
    /** The class-path folder of the uPlot WebJar's {@code dist/} files. */
    private final String uplot;
    private final Set<String> localNames;

    Console(ServerContext server, Dispatcher dispatcher, Metrics metrics) {
        this.server = server;
        this.dispatcher = dispatcher;
        this.metrics = metrics;
        this.uplot = "META-INF/resources/webjars/uplot/" + webJarVersion("org.webjars.npm", "uplot") + "/dist/";
        Set<String> names = new java.util.HashSet<>();
        names.add("localhost");
        try {
            InetAddress me = InetAddress.getLocalHost();
            names.add(me.getHostName().toLowerCase(Locale.ROOT));
            names.add(me.getCanonicalHostName().toLowerCase(Locale.ROOT));
        } catch (IOException e) {
            // no name of our own: addresses and localhost only
        }
        this.localNames = Set.copyOf(names);
    }

    private static String webJarVersion(String group, String artifact) {
        String path = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = Console.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) throw new IllegalStateException("the console's " + artifact + " is missing from the jar");
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + path, e);
        }
    }

    /** A static file of the console, or null when {@code path} (under /ui/) names none. */
    Static file(String path) {
        String name = path.equals("/ui/") ? "index.html" : path.substring("/ui/".length());
        if (name.isEmpty() || name.contains("..") || name.contains("//") || name.startsWith("/")) return null;
        String resource = name.startsWith("vendor/") ? uplot + name.substring("vendor/".length()) : UI + name;
        byte[] body = files.computeIfAbsent(resource, Console::load);
        if (body.length == 0) return null;
        return new Static(body, contentType(name));
    }

    record Static(byte[] body, String contentType) {}

    private static byte[] load(String resource) {
        try (InputStream in = Console.class.getClassLoader().getResourceAsStream(resource)) {
            return in == null ? new byte[0] : in.readAllBytes();
        } catch (IOException e) {
            return new byte[0];
        }
    }

    private static String contentType(String name) {
        if (name.endsWith(".html")) return "text/html; charset=utf-8";
        if (name.endsWith(".js")) return "text/javascript; charset=utf-8";
        if (name.endsWith(".css")) return "text/css; charset=utf-8";
        return "application/octet-stream";
    }

    /**
     * Why the API refuses a request without requirepass (it was addressed to a name that is not this machine's), or
     * null when it may go on.
     */
    String refusedHost(FullHttpRequest req) {
        if (server.authRequired()) return null; // credentials guard it
        String host = req.headers().get(HttpHeaderNames.HOST);
        if (host == null) return null; // HTTP/1.0 tools; a browser always sends Host
        host = host.trim().toLowerCase(Locale.ROOT);
        if (host.startsWith("[")) return null; // an IPv6 literal
        int colon = host.lastIndexOf(':');
        if (colon >= 0) host = host.substring(0, colon);
        if (host.matches("[0-9.]+") || localNames.contains(host)) return null;
        return "the console's API answers requests to this machine's addresses or names, or with requirepass set; '"
                + host + "' is neither\n";
    }

    /** GET /api/stats. Runs on a thread that may wait for the shards. */
    String stats(long timeoutMs) throws IOException {
        return metrics.consoleStats(timeoutMs);
    }

    /**
     * POST /api/command?db=N: parses the body (a RESP array of bulk strings), runs the command as a client of its own
     * and calls {@code answer} once with the RESP3 reply (or {@code failed} with a status and a reason).
     */
    void command(ChannelHandlerContext ctx, FullHttpRequest req, int db, String user, Consumer<byte[]> answer,
                 Failure failed) {
        byte[][] argv;
        try {
            argv = parseArgv(req.content());
        } catch (IllegalArgumentException e) {
            failed.fail(HttpResponseStatus.BAD_REQUEST, e.getMessage() + "\n");
            return;
        }
        if (db < 0 || db >= server.config().getInt("databases")) {
            answer.accept(RespWriter.encode(Reply.error(io.tide.command.Errors.DB_INDEX_OUT_OF_RANGE), 3));
            return;
        }
        String name = new String(argv[0], StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
        boolean clientReply = name.equals("client") && argv.length > 1
                && new String(argv[1], StandardCharsets.UTF_8).equalsIgnoreCase("reply");
        if (REFUSED.contains(name) || clientReply) {
            answer.accept(RespWriter.encode(Reply.error("ERR " + (clientReply ? "CLIENT REPLY" : name.toUpperCase(
                    Locale.ROOT)) + " is not available in the console: each command runs on a connection of its own"),
                    3));
            return;
        }
        Shard[] shards = server.shards().all();
        Shard home = shards[Math.floorMod(nextHome.getAndIncrement(), shards.length)];
        Client client = new Client(ctx, home, answer, failed);
        ClientSession session = new ClientSession(server.nextClientId(), client, home, true,
                System.currentTimeMillis());
        client.session = session;
        session.name("tide-console");
        session.user(user); // the signed-in ACL user's permissions apply
        session.protocol(3);
        session.selectDb(db);
        session.logLargeReplies();
        server.clients().add(session);
        ctx.channel().closeFuture().addListener(f -> home.loop().execute(client::abandon));
        home.loop().execute(() -> {
            dispatcher.dispatch(session, argv);
            client.flush();
        });
    }

    interface Failure {
        void fail(HttpResponseStatus status, String reason);
    }

    /** A request body as RESP: {@code *N} then N bulk strings, nothing after. */
    static byte[][] parseArgv(ByteBuf in) {
        int n = (int) header(in, '*');
        if (n < 1 || n > 1024 * 1024) throw new IllegalArgumentException("expected a RESP array of 1 or more bulk strings");
        List<byte[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long len = header(in, '$');
            if (len < 0 || len > in.readableBytes() - 2) throw new IllegalArgumentException("bad bulk string length");
            byte[] b = new byte[(int) len];
            in.readBytes(b);
            if (in.readByte() != '\r' || in.readByte() != '\n') throw new IllegalArgumentException("bulk string not ended by CRLF");
            out.add(b);
        }
        if (in.isReadable()) throw new IllegalArgumentException("bytes after the command");
        return out.toArray(new byte[0][]);
    }

    /** Reads {@code <type><decimal>\r\n}. */
    private static long header(ByteBuf in, char type) {
        if (!in.isReadable() || in.readByte() != type) throw new IllegalArgumentException("expected '" + type + "'");
        long v = 0;
        int digits = 0;
        while (true) {
            if (!in.isReadable()) throw new IllegalArgumentException("truncated request");
            byte b = in.readByte();
            if (b == '\r') break;
            if (b < '0' || b > '9' || ++digits > 12) throw new IllegalArgumentException("bad length");
            v = v * 10 + (b - '0');
        }
        if (!in.isReadable() || in.readByte() != '\n' || digits == 0) throw new IllegalArgumentException("bad length");
        return v;
    }

    /**
     * The connection of one console command. Confined to its home shard's thread, except {@link #close()} and the
     * address getters. The reply is kept when written and sent at {@link #flush()}, after the journal has written
     * what it acknowledges (as a socket client's replies wait).
     */
    private final class Client implements ClientConnection {
        private final ChannelHandlerContext ctx;
        private final Shard home;
        private final Consumer<byte[]> answer;
        private final Failure failed;
        ClientSession session;
        private byte[] reply;
        private boolean done;
        private Runnable closeHooks;
        private boolean flushHeld;

        Client(ChannelHandlerContext ctx, Shard home, Consumer<byte[]> answer, Failure failed) {
            this.ctx = ctx;
            this.home = home;
            this.answer = answer;
            this.failed = failed;
        }

        @Override
        public long write(Reply r, int protocolVersion) {
            if (reply != null || done) return 0; // one reply per request (a push after it has nowhere to go)
            reply = RespWriter.encode(r, protocolVersion);
            return reply.length;
        }

        @Override
        public void flush() {
            if (reply == null || done || flushHeld) return;
            Journal journal = home.writes().journal();
            if (journal.active() && !journal.syncsReplies() && journal.pending()) {
                flushHeld = true;
                journal.afterNextFlush(() -> {
                    flushHeld = false;
                    flush();
                });
                return;
            }
            end();
            answer.accept(reply);
        }

        /** The browser went away first. */
        void abandon() {
            end();
        }

        private void end() {
            if (done) return;
            done = true;
            session.markClosed();
            server.clients().remove(session);
            Runnable hooks = closeHooks;
            closeHooks = null;
            if (hooks != null) hooks.run();
        }

        @Override
        public void close() {
            home.loop().execute(() -> {
                if (done) return;
                if (reply != null) {
                    flush();
                    return;
                }
                end();
                failed.fail(HttpResponseStatus.SERVICE_UNAVAILABLE, "the server closed the command's connection\n");
            });
        }

        @Override
        public void pauseReading(boolean paused) {}

        @Override
        public String remoteAddress() {
            return address(ctx.channel().remoteAddress());
        }

        @Override
        public String localAddress() {
            return address(ctx.channel().localAddress());
        }

        private static String address(SocketAddress a) {
            if (a instanceof InetSocketAddress i) return i.getAddress().getHostAddress() + ":" + i.getPort();
            return String.valueOf(a);
        }

        @Override
        public long outputBufferBytes() {
            return reply != null && !done ? reply.length : 0;
        }

        @Override
        public long replyBufferBytes() {
            return outputBufferBytes();
        }

        @Override
        public long pendingWrites() {
            return 0;
        }

        @Override
        public long queryBufferBytes() {
            return 0;
        }

        @Override
        public long queryBufferFree() {
            return 0;
        }

        @Override
        public long replyBufferSize() {
            return outputBufferBytes();
        }

        @Override
        public long replyBufferPeak() {
            return outputBufferBytes();
        }

        @Override
        public int fd() {
            return -1;
        }

        @Override
        public boolean reading() {
            return false;
        }

        @Override
        public void writeRaw(byte[] bytes, Consumer<Boolean> written) {
            written.accept(false); // never a replica: SYNC and PSYNC are refused
        }

        @Override
        public void onClose(Runnable r) {
            if (done) {
                r.run();
                return;
            }
            Runnable before = closeHooks;
            closeHooks = before == null ? r : () -> {
                before.run();
                r.run();
            };
        }
    }
}
