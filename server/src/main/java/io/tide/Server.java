package io.tide;

import io.netty.channel.EventLoop;
import io.tide.command.CommandTable;
import io.tide.command.Dispatcher;
import io.tide.command.ServerContext;
import io.tide.config.ConfigRegistry;
import io.tide.network.NetworkServer;
import io.tide.protocol.ProtocolLimits;
import io.tide.shard.Shard;
import io.tide.shard.ShardSet;
import io.tide.tls.TlsException;
import io.tide.tls.TlsMaterial;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Tide server: wires configuration, shards, the command table, the dispatcher and the
 * network, and takes them down again. Thread-safe: {@link #close()} may be called from any thread,
 * more than once. Several servers can run in one JVM; they share nothing.
 */
public final class Server implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Server.class);
    /** Most shards supported: the dispatcher tracks the shards a command touches in a 64-bit mask. */
    public static final int MAX_SHARDS = 64;

    static {
        // Netty 4.2 emits JFR events for its allocator's chunks when the JVM has JFR: the first buffer then sets up
        // JFR's event metadata, about 85 ms of a cold start on the thread serving the first connection. Off unless
        // the host chose (-Dio.netty.jfr.enabled=true keeps them); decision 0014.
        if (System.getProperty("io.netty.jfr.enabled") == null) System.setProperty("io.netty.jfr.enabled", "false");
    }

    private final Startup startup;
    private final ServerContext context;
    private final NetworkServer network;
    private final Dispatcher dispatcher;
    /** The admin port's HTTP server, when admin-port is set. */
    private io.tide.admin.AdminServer admin;
    private final ShardSet shards;
    private final int port;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final java.util.concurrent.CountDownLatch terminated = new java.util.concurrent.CountDownLatch(1);

    private Server(ConfigRegistry config, Startup startup) throws InterruptedException {
        this.startup = startup;
        int n = config.getInt("shards");
        if (n == 0) n = Runtime.getRuntime().availableProcessors();
        n = Math.min(n, MAX_SHARDS);
        network = new NetworkServer(config, config.get("io-driver"), n);
        List<EventLoop> loops = network.loops();
        Shard[] shardArray = new Shard[n];
        int databases = config.getInt("databases");
        for (int i = 0; i < n; i++) shardArray[i] = new Shard(i, loops.get(i), databases);
        shards = new ShardSet(shardArray);

        CommandTable table = startup.table();
        table.seal(n);

        try {
            context = new ServerContext(config, table, shards, Version.get(), network.driverName());
        } catch (RuntimeException e) { // e.g. an ACL file that does not load
            network.stop(1000);
            shards.close();
            throw e;
        }
        dispatcher = new Dispatcher(context);

        ProtocolLimits limits = new ProtocolLimits();
        limits.setMaxBulkLength(config.getLong("proto-max-bulk-len"));
        limits.setQueryBufferLimit(config.getLong("client-query-buffer-limit"));
        config.onChange("proto-max-bulk-len", v -> limits.setMaxBulkLength(config.getLong("proto-max-bulk-len")));
        config.onChange("client-query-buffer-limit",
                v -> limits.setQueryBufferLimit(config.getLong("client-query-buffer-limit")));

        try {
            if (TlsMaterial.inUse(config)) {
                try {
                    network.tls().use(TlsMaterial.load(config));
                } catch (TlsException | javax.net.ssl.SSLException e) {
                    throw new IllegalStateException("Failed to configure TLS: " + e.getMessage(), e);
                }
            }
            for (String p : TlsMaterial.PARAMETERS) config.onChange(p, v -> reconfigureTls(config, p));
            config.onChange("tls-port", v -> listenTls(config, Integer.parseInt(v)));
            // Clients may connect from here on: until the dataset is in memory (below) they get -LOADING, never an
            // empty dataset.
            context.persistence().beginLoading(0);
            port = network.start(context, dispatcher, shardArray, limits);
        } catch (InterruptedException | RuntimeException e) {
            network.stop(1000);
            shards.close();
            context.lazyFree().close();
            throw e;
        }
        context.tcpPort(port);
        int adminPort = config.getInt("admin-port");
        if (adminPort > 0) {
            admin = new io.tide.admin.AdminServer(context, dispatcher);
            try {
                admin.start(config.get("bind"), adminPort);
            } catch (InterruptedException | RuntimeException e) {
                admin.close();
                network.stop(1000);
                shards.close();
                context.lazyFree().close();
                throw e;
            }
        }
        context.startJvmWatchers();
        // SHUTDOWN arrives on a shard thread, which cannot wait for its own loop to stop: it calls from a thread
        // of its own.
        context.onShutdownRequest(this::shutdown);
        io.tide.persistence.Persistence persistence = context.persistence();
        for (Shard s : shardArray) {
            s.loop().execute(() -> s.startCron(() -> config.getInt("hz"), () -> config.getInt("active-expire-effort"),
                    () -> {
                        long now = System.currentTimeMillis();
                        network.shardCron(s.id(), config.getInt("timeout"), now);
                        context.migrateSockets(s.id()).closeIdle(now);
                        dispatcher.serveAfterCron(s);
                        persistence.publishDirty(s);
                        if (!s.dataLent()) context.memory().cron(s);
                        if (s.id() == 0) {
                            persistence.cron(now);
                            context.sampleReplicationRates(now);
                        }
                    },
                    System::currentTimeMillis));
        }
        // Clients may connect while the dataset loads: they get -LOADING until it is in memory.
        java.util.function.Consumer<byte[]> function = code -> context.scripting().functions().restore(
                java.util.List.of(code), io.tide.script.FunctionLibraries.RestorePolicy.APPEND);
        config.onChange("appendonly", v -> context.appendOnly().configured(config.getBool("appendonly")));
        context.appendOnly().onFsync(context.replication()::fsynced); // WAITAOF's waiters
        context.replica().tls(network.tls()::material);
        context.replica().bind(dispatcher::replay, context::limits, function,
                () -> context.scripting().functions().flush(), () -> {
                    // The loaded image bypassed the journal: with an AOF, rewrite it from the new dataset (as Redis
                    // restarts its AOF after a full sync).
                    if (!context.appendOnly().enabled()) return;
                    context.appendOnly().datasetReplaced(); // WAITAOF's fsynced offsets wait for that rewrite
                    shards.coordinator().run(shards.all(), () -> {
                        try {
                            if (context.persistence().snapshotRunning()) context.appendOnly().scheduleRewrite();
                            else context.appendOnly().beginRewrite();
                        } catch (java.io.IOException e) {
                            LOG.warn("could not rewrite the AOF after a full sync: {}", e.toString());
                        }
                    }, () -> { });
                }, context::tcpPort);
        persistence.removeTempFiles();
        try {
            if (config.getBool("appendonly")) {
                context.appendOnly().start(context.limits(), function, dispatcher::replay);
            } else {
                persistence.loadRdb(context.limits(), function);
            }
        } catch (java.io.IOException | RuntimeException e) {
            persistence.endLoading();
            stop();
            String what = config.getBool("appendonly") ? "the append only file" : persistence.rdbPath().toString();
            throw new IllegalStateException("could not load " + what + ": " + e.getMessage(), e);
        }
        persistence.endLoading(); // the hold taken before the port opened
        String replicaof = config.get("replicaof").trim();
        if (!replicaof.isEmpty()) {
            String[] hp = replicaof.split("\\s+");
            context.replica().replicaOf(hp[0], Integer.parseInt(hp[1]));
        }
    }

    /**
     * A tls-* parameter changed: while TLS is in use, loads the files again and makes new connections use them; on a
     * bad file the change is refused and the old context stays (Redis's applyTlsCfg).
     */
    private void reconfigureTls(ConfigRegistry config, String param) {
        if (TlsMaterial.inUse(config)) useTls(config, param);
    }

    /**
     * Loads the tls-* files and makes new connections use them; when they do not load, logs why and refuses the
     * CONFIG SET of {@code param} with Redis's text (the old context stays).
     */
    private void useTls(ConfigRegistry config, String param) {
        try {
            network.tls().use(TlsMaterial.load(config));
        } catch (TlsException | javax.net.ssl.SSLException e) {
            LOG.warn("{}", e.getMessage());
            LOG.warn("Failed applying new configuration. Possibly related to new {} setting. Restoring previous "
                    + "settings.", param);
            throw new IllegalStateException(io.tide.command.Errors.TLS_CONFIGURE);
        }
    }

    /** CONFIG SET tls-port: configures TLS if it never was, then opens the new listener and closes the old one. */
    private void listenTls(ConfigRegistry config, int tlsPort) {
        if (tlsPort != 0 && !network.tls().configured()) useTls(config, "tls-port");
        try {
            network.listenTls(tlsPort);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(io.tide.command.Errors.LISTEN_PORT);
        } catch (Exception e) {
            LOG.warn("Failed listening on port {} (tls), aborting: {}", tlsPort, e.toString());
            throw new IllegalStateException(io.tide.command.Errors.LISTEN_PORT);
        }
    }

    /** Starts a server with the given configuration; returns once it accepts connections. */
    public static Server start(ConfigRegistry config) {
        return start(config, Startup.begin());
    }

    /** As {@link #start(ConfigRegistry)}, with the table and class loading begun before the options were parsed. */
    static Server start(ConfigRegistry config, Startup startup) {
        try {
            return new Server(config, startup);
        } catch (InterruptedException e) {
            startup.finish();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting", e);
        } catch (RuntimeException | Error e) {
            startup.finish();
            throw e;
        }
    }

    /** The TCP port actually bound (useful with {@code port 0}); 0 when only the TLS port listens. */
    public int port() {
        return port;
    }

    /** The TLS port (tls-port), 0 when off. */
    public int tlsPort() {
        return context.config().getInt("tls-port");
    }

    public int shardCount() {
        return shards.size();
    }

    public String ioDriver() {
        return network.driverName();
    }

    /** Whether client reads take their buffers from io_uring's provided-buffer ring ({@code io-uring-buffer-ring}). */
    public boolean ioBufferRing() {
        return network.bufferRing();
    }

    /**
     * Faults to inject for testing clients' error handling: drop every connection, delay replies, refuse new
     * connections. None is set unless a caller sets it; unused they cost nothing measurable.
     */
    public io.tide.network.Faults faults() {
        return network.faults();
    }

    public ServerContext context() {
        return context;
    }

    /** The dispatcher every connection's requests go through (the JMH benchmarks drive it without a socket). */
    public Dispatcher dispatcher() {
        return dispatcher;
    }

    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Shuts down as Redis's SHUTDOWN does: saves first when {@code save} is true, or when it is null and save points
     * are configured, then closes. Returns false, leaving the server running, when that save failed.
     */
    public boolean shutdown(Boolean save) {
        return shutdown(save, false);
    }

    /** {@link #shutdown(Boolean)}; with {@code force} the server stops even when the save fails (SHUTDOWN FORCE). */
    public boolean shutdown(Boolean save, boolean force) {
        if (closed.get()) return true;
        io.tide.persistence.Persistence p = context.persistence();
        boolean wanted = save != null ? save : !p.savePoints().isEmpty();
        if (wanted) {
            java.util.concurrent.CompletableFuture<Void> f = new java.util.concurrent.CompletableFuture<>();
            shards.coordinator().run(shards.all(), () -> {
                try {
                    p.cancelBackgroundSave();
                    context.appendOnly().cancelRewrite();
                    p.saveNow();
                    f.complete(null);
                } catch (java.io.IOException | RuntimeException e) {
                    f.completeExceptionally(e);
                }
            }, () -> f.completeExceptionally(new IllegalStateException("the server is stopping")));
            try {
                f.get(Math.max(1, context.config().getInt("shutdown-timeout")), java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                LOG.warn("Error trying to save the DB{}: {}", force ? ", exiting anyway (FORCE)" : ", can't exit",
                        e.getCause() != null ? e.getCause() : e);
                if (!force) return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        stop();
        return true;
    }

    /**
     * Stops listening, closes clients, stops every thread the server started; saves first when save points are
     * configured (SIGTERM and SIGINT come here), and closes even when that save fails.
     */
    @Override
    public void close() {
        if (closed.get()) return;
        if (!shutdown(null)) stop();
    }

    private void stop() {
        if (!closed.compareAndSet(false, true)) return;
        LOG.info("Tide on port {} shutting down", port);
        try {
            // No new connections, then every client's pending replies leave and its connection closes (on its
            // loop, after the commands it already sent), then the AOF is flushed and fsynced, then the loops stop.
            network.closeListeners(2000);
            if (admin != null) admin.close();
            for (io.tide.command.ClientSession c : context.clients()) c.connection().close();
            java.util.List<java.util.concurrent.Future<?>> drained = new java.util.ArrayList<>();
            for (Shard s : shards.all()) {
                try {
                    drained.add(s.loop().submit(() -> { }));
                } catch (java.util.concurrent.RejectedExecutionException ignored) {
                    // already stopping
                }
            }
            for (java.util.concurrent.Future<?> f : drained) {
                try {
                    f.get(2, java.util.concurrent.TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    LOG.warn("a shard did not drain its clients in time");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            context.appendOnly().close();
            context.replica().close();
            context.replication().close();
            shards.close();
            network.stop(2000);
            context.closeMigrateSockets(); // the threads that own them have stopped
            context.lazyFree().close();
            context.stopJvmWatchers();
        } finally {
            startup.finish();
            terminated.countDown();
        }
    }

    /** Blocks until the server has been closed (by {@link #close()} or SHUTDOWN) and has stopped. */
    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }
}
