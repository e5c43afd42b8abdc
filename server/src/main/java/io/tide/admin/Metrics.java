package io.tide.admin;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.tide.command.CommandFigures;
import io.tide.command.CommandSpec;
import io.tide.command.MemoryGuard;
import io.tide.command.ServerContext;
import io.tide.command.ShardSnapshot;
import io.tide.shard.Shard;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The Prometheus exposition of {@code GET /metrics}, through the Prometheus Java client: callback metrics over one
 * {@link Snapshot} gathered per scrape. Names follow the Redis exporter's where a counterpart exists
 * ({@code redis_commands_processed_total}, {@code redis_connected_clients}, {@code redis_db_keys}, ...), Tide's own
 * figures are {@code tide_*}, the JVM's come from the client's JVM instrumentation ({@code jvm_*}). See
 * docs/observability.md.
 *
 * <p>Thread-safe: one scrape at a time ({@link #write} is synchronized). Each shard's figures (its statistics, its
 * databases, its share of every command's statistics) are read on the shard's own thread, so they are a consistent
 * view of that shard; no shard is parked for another.
 */
final class Metrics {

    /** What one scrape reports: the shards' figures and the coordinator's share of the command statistics. */
    private record Snapshot(List<ShardSnapshot> shards, List<CommandSpec> commands, CommandFigures coordinator) {}

    private final ServerContext server;
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final List<CommandSpec> commands;
    private Snapshot snap;

    Metrics(ServerContext server) {
        this.server = server;
        this.commands = server.table().allWithSubcommands();
        register();
        JvmMetrics.builder().register(registry);
    }

    /** Gathers a snapshot (waiting up to {@code timeoutMs} for every shard) and writes the text exposition. */
    synchronized void write(OutputStream out, long timeoutMs) throws IOException {
        snap = gather(timeoutMs);
        writer.write(out, registry.scrape());
    }

    /** Every command's latency samples merged at the previous {@link #consoleStats} (null before the first). */
    private org.HdrHistogram.Histogram lastLatency;

    /**
     * The console's figures ({@code GET /api/stats}) as one JSON object: the counters and gauges its charts need, each
     * shard's, and the latency percentiles of every command served since the previous call (the difference of the
     * merged histograms; all samples after CONFIG RESETSTAT). Each shard's {@code commands} are those its connections
     * sent (INFO's count), {@code executed} those that ran on its thread (its load). Same snapshot as a scrape.
     */
    synchronized String consoleStats(long timeoutMs) throws IOException {
        snap = gather(timeoutMs);
        MemoryGuard memory = server.memory();
        StringBuilder sb = new StringBuilder(512);
        sb.append("{\"time\":").append(System.currentTimeMillis());
        sb.append(",\"commands\":").append(sum(f -> f.stats().commandsProcessed));
        sb.append(",\"netInput\":").append(sum(f -> f.stats().netInputBytes));
        sb.append(",\"netOutput\":").append(sum(f -> f.stats().netOutputBytes));
        sb.append(",\"usedMemory\":").append(memory.used());
        sb.append(",\"rss\":").append((long) rssBytes());
        sb.append(",\"maxmemory\":").append(server.config().getLong("maxmemory"));
        sb.append(",\"clients\":").append(server.clients().size());
        sb.append(",\"keys\":").append(sum(ShardSnapshot::allKeys));
        sb.append(",\"shards\":[");
        for (ShardSnapshot f : snap.shards()) {
            if (f.id() > 0) sb.append(',');
            sb.append("{\"id\":").append(f.id()).append(",\"commands\":").append(f.stats().commandsProcessed)
                    .append(",\"executed\":").append(f.stats().commandsExecuted).append(",\"keys\":")
                    .append(f.allKeys()).append(",\"usedMemory\":").append(f.usedBytes()).append(",\"pendingTasks\":")
                    .append(f.pendingTasks()).append('}');
        }
        sb.append("],\"latency\":");
        List<org.HdrHistogram.Histogram> parts = new ArrayList<>();
        for (CommandFigures f : allCommandFigures()) for (org.HdrHistogram.Histogram h : f.latency()) parts.add(h);
        org.HdrHistogram.Histogram now = io.tide.metrics.LatencyHistograms.merge(parts);
        org.HdrHistogram.Histogram interval = now;
        if (now != null && lastLatency != null && lastLatency.getTotalCount() <= now.getTotalCount()) {
            interval = now.copy();
            try {
                interval.subtract(lastLatency);
            } catch (RuntimeException e) { // a counter went down (CONFIG RESETSTAT between the calls)
                interval = now;
            }
        }
        lastLatency = now;
        if (interval == null || interval.getTotalCount() == 0) {
            sb.append("{\"count\":0}");
        } else {
            sb.append("{\"count\":").append(interval.getTotalCount());
            String[] names = {"p50", "p99", "p999", "max"};
            double[] ps = {50, 99, 99.9, 100};
            for (int i = 0; i < ps.length; i++) {
                sb.append(",\"").append(names[i]).append("\":")
                        .append(io.tide.metrics.LatencyHistograms.valueAtPercentile(interval, ps[i]) / 1000.0);
            }
            sb.append('}');
        }
        return sb.append('}').toString();
    }

    /** The content type of {@link #write}'s output. */
    String contentType() {
        return writer.getContentType();
    }

    private Snapshot gather(long timeoutMs) throws IOException {
        Shard[] all = server.shards().all();
        List<CompletableFuture<ShardSnapshot>> futures = new ArrayList<>();
        for (Shard s : all) {
            CompletableFuture<ShardSnapshot> f = new CompletableFuture<>();
            s.executeOnData(() -> {
                try {
                    f.complete(ShardSnapshot.of(s, commands, true, System.currentTimeMillis()));
                } catch (RuntimeException e) {
                    f.completeExceptionally(e);
                }
            });
            futures.add(f);
        }
        CompletableFuture<CommandFigures> coord = new CompletableFuture<>();
        int coordinatorSlot = all.length; // CommandSpec keeps the coordinator's statistics after the shards'
        server.shards().coordinator().run(new Shard[0],
                () -> coord.complete(CommandFigures.of(commands, coordinatorSlot, true)),
                () -> coord.completeExceptionally(new IOException("the server is stopping")));
        List<ShardSnapshot> out = new ArrayList<>();
        CommandFigures coordinator;
        try {
            for (CompletableFuture<ShardSnapshot> f : futures) out.add(f.get(timeoutMs, TimeUnit.MILLISECONDS));
            coordinator = coord.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException("a shard did not answer within " + timeoutMs + " ms (a busy script?)");
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        return new Snapshot(out, commands, coordinator);
    }

    private interface ShardSum {
        long of(ShardSnapshot f);
    }

    private long sum(ShardSum what) {
        long t = 0;
        for (ShardSnapshot f : snap.shards()) t += what.of(f);
        return t;
    }

    private void counter(String name, String help, ShardSum what) {
        CounterWithCallback.builder().name(name).help(help).callback(cb -> cb.call(sum(what))).register(registry);
    }

    private void counter(String name, String help, java.util.function.LongSupplier value) {
        CounterWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsLong())).register(registry);
    }

    private void gauge(String name, String help, java.util.function.DoubleSupplier value) {
        GaugeWithCallback.builder().name(name).help(help).callback(cb -> cb.call(value.getAsDouble())).register(registry);
    }

    private void labelled(String name, String help, String[] labels, Consumer<GaugeWithCallback.Callback> cb) {
        GaugeWithCallback.builder().name(name).help(help).labelNames(labels).callback(cb).register(registry);
    }

    private void register() {
        ServerContext s = server;
        MemoryGuard memory = s.memory();
        gauge("redis_up", "1 while the server answers scrapes.", () -> 1);
        gauge("redis_uptime_in_seconds", "Seconds since the server started.", () -> s.uptimeMillis() / 1000);
        gauge("redis_connected_clients", "Client connections (replicas included, as INFO connected_clients).",
                () -> s.clients().size());
        gauge("redis_blocked_clients", "Clients blocked in BLPOP-like commands, WAIT or a pause.",
                () -> s.clients().stream().filter(io.tide.command.ClientSession::isBlocked).count());
        gauge("redis_config_maxclients", "The maxclients setting.", () -> s.config().getLong("maxclients"));
        counter("redis_connections_received_total", "Connections accepted.", () -> s.connectionsReceived().get());
        counter("redis_rejected_connections_total", "Connections refused (maxclients).",
                () -> s.rejectedConnections().get());
        counter("redis_commands_processed_total", "Commands processed (INFO total_commands_processed).",
                f -> f.stats().commandsProcessed);
        counter("redis_net_input_bytes_total", "Bytes read from clients.", f -> f.stats().netInputBytes);
        counter("redis_net_output_bytes_total", "Bytes written to clients.", f -> f.stats().netOutputBytes);
        counter("redis_expired_keys_total", "Keys deleted because their TTL passed.", f -> f.stats().expiredKeys);
        counter("redis_evicted_keys_total", "Keys evicted for maxmemory.", f -> f.stats().evictedKeys);
        counter("redis_evicted_clients_total", "Clients closed by maxmemory-clients.", memory::evictedClients);
        counter("redis_keyspace_hits_total", "Key lookups that found the key.", f -> f.stats().keyspaceHits);
        counter("redis_keyspace_misses_total", "Key lookups that did not.", f -> f.stats().keyspaceMisses);
        gauge("redis_memory_used_bytes", "INFO used_memory: dataset and client buffers, kept incrementally.",
                () -> memory.used());
        gauge("redis_memory_used_dataset_bytes", "INFO used_memory_dataset.", () -> memory.datasetBytes());
        gauge("redis_memory_used_rss_bytes", "Resident set size of the process.", Metrics::rssBytes);
        gauge("redis_memory_max_bytes", "The maxmemory setting (0: none).", () -> s.config().getLong("maxmemory"));
        gauge("redis_loading_dump_file", "1 while a dataset is loading.", () -> s.persistence().loading() ? 1 : 0);
        gauge("redis_rdb_bgsave_in_progress", "1 while a snapshot is written.",
                () -> s.persistence().bgsaveInProgress() ? 1 : 0);
        gauge("redis_rdb_last_bgsave_status", "1 if the last background save succeeded.",
                () -> s.persistence().lastBgsaveOk() ? 1 : 0);
        gauge("redis_rdb_last_save_timestamp_seconds", "Unix time of the last successful save.",
                () -> s.persistence().lastSaveSeconds());
        gauge("redis_aof_enabled", "1 when appendonly is on.", () -> s.appendOnly().enabled() ? 1 : 0);
        gauge("redis_aof_rewrite_in_progress", "1 while the AOF is rewritten.",
                () -> s.appendOnly().rewriting() ? 1 : 0);
        gauge("redis_connected_slaves", "Replicas connected to this server.",
                () -> s.replication().info().replicas().size());
        gauge("redis_master_repl_offset", "The replication offset (INFO master_repl_offset).",
                () -> s.replica().active() ? s.replica().offset() : s.replication().info().offset());
        gauge("redis_master_link_up", "On a replica: 1 while its link to the primary is up.",
                () -> s.replica().active() && s.replica().linkUp() ? 1 : 0);
        labelled("redis_db_keys", "Keys per database (expired ones not yet reclaimed included, as DBSIZE).",
                new String[] {"db"}, cb -> perDb(cb, false));
        labelled("redis_db_keys_expiring", "Keys with a TTL per database.", new String[] {"db"}, cb -> perDb(cb, true));
        CounterWithCallback.builder().name("redis_commands_total").help("Calls per command (INFO commandstats calls).")
                .labelNames("cmd").callback(cb -> perCommand((v, c) -> cb.call(v, c), 0)).register(registry);
        CounterWithCallback.builder().name("redis_commands_duration_seconds_total")
                .help("Time spent executing each command (INFO commandstats usec).").labelNames("cmd")
                .callback(cb -> perCommand((v, c) -> cb.call(v / 1e6, c), 1)).register(registry);
        CounterWithCallback.builder().name("redis_commands_rejected_calls_total")
                .help("Calls refused before running (INFO commandstats rejected_calls).").labelNames("cmd")
                .callback(cb -> perCommand((v, c) -> cb.call(v, c), 2)).register(registry);
        CounterWithCallback.builder().name("redis_commands_failed_calls_total")
                .help("Calls that ran and failed (INFO commandstats failed_calls).").labelNames("cmd")
                .callback(cb -> perCommand((v, c) -> cb.call(v, c), 3)).register(registry);
        CounterWithCallback.builder().name("redis_errors_total")
                .help("Error replies by code (INFO errorstats), the first word of the error.").labelNames("err")
                .callback(cb -> {
                    java.util.TreeMap<String, Long> codes = new java.util.TreeMap<>();
                    for (ShardSnapshot f : snap.shards()) f.errors().forEach((k, v) -> codes.merge(k, v, Long::sum));
                    codes.forEach((k, v) -> cb.call(v, k));
                }).register(registry);
        io.prometheus.metrics.core.metrics.SummaryWithCallback.builder().name("redis_latency_percentiles_usec")
                .help("Per-command latency (latency-tracking, INFO latencystats): the percentiles of "
                        + "latency-tracking-info-percentiles in microseconds, the count of samples and their sum.")
                .labelNames("cmd").callback(cb -> perCommandLatency(cb)).register(registry);
        String[] shard = {"shard"};
        CounterWithCallback.builder().name("tide_shard_commands_processed_total").help("Commands processed per shard.")
                .labelNames(shard).callback(cb -> {
                    for (ShardSnapshot f : snap.shards()) cb.call(f.stats().commandsProcessed, Integer.toString(f.id()));
                }).register(registry);
        CounterWithCallback.builder().name("tide_shard_commands_executed_total")
                .help("Commands run on each shard's thread alone (its load), whichever shard their connection has.")
                .labelNames(shard).callback(cb -> {
                    for (ShardSnapshot f : snap.shards()) cb.call(f.stats().commandsExecuted, Integer.toString(f.id()));
                }).register(registry);
        labelled("tide_shard_used_memory_bytes", "Each shard's dataset bytes.", shard, cb -> {
            for (ShardSnapshot f : snap.shards()) cb.call(f.usedBytes(), Integer.toString(f.id()));
        });
        labelled("tide_shard_keys", "Keys per shard, all databases.", shard, cb -> {
            for (ShardSnapshot f : snap.shards()) cb.call(f.allKeys(), Integer.toString(f.id()));
        });
        labelled("tide_shard_pending_tasks", "Tasks queued on each shard's event loop at the scrape.", shard, cb -> {
            for (ShardSnapshot f : snap.shards()) cb.call(f.pendingTasks(), Integer.toString(f.id()));
        });
        gauge("tide_shards", "Shards (event-loop threads owning a part of the keyspace).", () -> s.shards().size());
        counter("tide_coordinator_operations_total", "Multi-shard operations the coordinator ran (INFO tide).",
                () -> s.shards().coordinator().operations());
        CounterWithCallback.builder().name("tide_coordinator_seconds_total")
                .help("Time the coordinator's batches held shards parked (INFO tide_coordinator_usec).")
                .callback(cb -> cb.call(s.shards().coordinator().parkedMicros() / 1e6)).register(registry);
    }

    private void perDb(GaugeWithCallback.Callback cb, boolean expiring) {
        List<ShardSnapshot> all = snap.shards();
        int dbs = all.get(0).keys().length;
        for (int i = 0; i < dbs; i++) {
            long n = 0;
            for (ShardSnapshot f : all) n += expiring ? f.expires()[i] : f.keys()[i];
            if (n > 0 || i == 0) cb.call(n, "db" + i); // db0 always, the others once they hold keys (as INFO)
        }
    }

    private interface CommandValue {
        void call(double value, String cmd);
    }

    /** The command statistics of every thread: the shards' and the coordinator's. */
    private List<CommandFigures> allCommandFigures() {
        List<CommandFigures> all = new ArrayList<>();
        for (ShardSnapshot f : snap.shards()) all.add(f.commandFigures());
        all.add(snap.coordinator());
        return all;
    }

    /** Each command with any call, refusal or failure: figure 0 calls, 1 micros, 2 rejected, 3 failed. */
    private void perCommand(CommandValue cb, int figure) {
        List<CommandSpec> cmds = snap.commands();
        List<CommandFigures> all = allCommandFigures();
        for (int c = 0; c < cmds.size(); c++) {
            long[] t = CommandFigures.total(all, c);
            if (t[0] == 0 && t[2] == 0 && t[3] == 0) continue;
            cb.call(t[figure], cmds.get(c).fullName());
        }
    }

    /** Each command with latency samples: merged over every thread, quantiles as INFO latencystats computes them. */
    private void perCommandLatency(io.prometheus.metrics.core.metrics.SummaryWithCallback.Callback cb) {
        List<CommandSpec> cmds = snap.commands();
        List<CommandFigures> all = allCommandFigures();
        double[] percentiles = server.observability().percentiles();
        for (int c = 0; c < cmds.size(); c++) {
            List<org.HdrHistogram.Histogram> parts = new ArrayList<>();
            long micros = 0;
            for (CommandFigures f : all) {
                parts.add(f.latency()[c]);
                micros += f.micros()[c];
            }
            org.HdrHistogram.Histogram h = io.tide.metrics.LatencyHistograms.merge(parts);
            if (h == null) continue;
            List<io.prometheus.metrics.model.snapshots.Quantile> qs = new ArrayList<>();
            for (double p : percentiles) {
                qs.add(new io.prometheus.metrics.model.snapshots.Quantile(p / 100,
                        io.tide.metrics.LatencyHistograms.valueAtPercentile(h, p) / 1000.0));
            }
            cb.call(h.getTotalCount(), micros, io.prometheus.metrics.model.snapshots.Quantiles.of(qs),
                    cmds.get(c).fullName());
        }
    }

    private static double rssBytes() {
        long b = io.tide.util.ProcSelf.rssBytes();
        return b < 0 ? Double.NaN : b;
    }
}
