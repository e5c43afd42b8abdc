package io.tide.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import io.tide.testing.VsRedis;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * INFO's fields beside Redis 7.0's: the sections and the fields both have, in the same order, and each of the figures
 * Redis's tools read moving when the state they describe changes (a partial request, a big reply, a client blocked
 * with a timeout, the active expiry at work, an AOF command that fails on replay, a MIGRATE connection).
 */
class InfoFiguresTest extends VsRedis {

    /** Section name to its field names, in order, from a whole INFO text. */
    private static Map<String, List<String>> fields(String info) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        List<String> current = null;
        for (String line : info.split("\r\n")) {
            if (line.startsWith("# ")) {
                current = new ArrayList<>();
                out.put(line.substring(2), current);
            } else if (current != null && line.contains(":")) {
                current.add(line.substring(0, line.indexOf(':')));
            }
        }
        return out;
    }

    private static long stat(Jedis j, String section, String name) {
        return Long.parseLong(value(j.info(section), name));
    }

    private static String value(String info, String name) {
        for (String l : info.split("\r\n")) {
            if (l.startsWith(name + ":")) return l.substring(name.length() + 1);
        }
        throw new AssertionError("no " + name + " in " + info);
    }

    /** Polls the figure (5 s at most) until it satisfies {@code ok}; returns the last value read. */
    private static long awaitStat(Jedis j, String section, String name, LongPredicate ok) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 5000;
        long v;
        while (!ok.test(v = stat(j, section, name)) && System.currentTimeMillis() < deadline) Thread.sleep(50);
        return v;
    }

    private Jedis tideJedis() {
        return TestServers.jedis(tide().port(), 2);
    }

    @Test
    void sectionsAndSharedFields_comeInRedisOrder() {
        String redisInfo;
        String tideInfo;
        try (Jedis r = new Jedis("127.0.0.1", redis().port()); Jedis t = tideJedis()) {
            redisInfo = r.info("everything");
            tideInfo = t.info("everything");
            assertThat(new ArrayList<>(fields(t.info()).keySet())).isEqualTo(new ArrayList<>(fields(r.info()).keySet()));
        }
        Map<String, List<String>> redis = fields(redisInfo);
        Map<String, List<String>> tide = fields(tideInfo);
        List<String> tideSections = new ArrayList<>(tide.keySet());
        tideSections.remove("Tide");
        assertThat(tideSections).isEqualTo(new ArrayList<>(redis.keySet()));
        for (Map.Entry<String, List<String>> e : redis.entrySet()) {
            if (e.getKey().equals("Commandstats") || e.getKey().equals("Latencystats")) continue; // per command
            List<String> shared = new ArrayList<>(tide.get(e.getKey()));
            shared.retainAll(e.getValue());
            List<String> redisShared = new ArrayList<>(e.getValue());
            redisShared.retainAll(shared);
            assertThat(shared).as("the fields of # %s that both have", e.getKey()).isEqualTo(redisShared);
        }
        // The fields Redis's tools read, all Redis 7.0's, all here.
        List<String> wanted = List.of("lru_clock", "multiplexing_api", "client_recent_max_input_buffer",
                "client_recent_max_output_buffer", "clients_in_timeout_table", "mem_replication_backlog",
                "instantaneous_input_repl_kbps", "instantaneous_output_repl_kbps", "expired_stale_perc",
                "expired_time_cap_reached_count", "expire_cycle_cpu_milliseconds", "migrate_cached_sockets",
                "unexpected_error_replies", "total_reads_processed", "total_writes_processed", "cluster_enabled", "io_threads_active");
        List<String> redisAll = redis.values().stream().flatMap(List::stream).toList();
        List<String> tideAll = tide.values().stream().flatMap(List::stream).toList();
        assertThat(redisAll).containsAll(wanted);
        assertThat(tideAll).containsAll(wanted);
        assertThat(value(tideInfo, "multiplexing_api")).isEqualTo(value(tideInfo, "tide_io_driver"));
        assertThat(value(tideInfo, "io_threads_active")).isEqualTo("1"); // two shards, two event loops doing I/O
    }

    /** docs/observability.md names every field of INFO everything (those named after a command, db or shard aside). */
    @Test
    void everyField_isDocumented() throws Exception {
        String docs = Files.readString(Path.of("..", "docs", "observability.md"));
        String info;
        try (Jedis t = tideJedis()) {
            t.set("documented", "v");
            t.ping();
            info = t.info("everything");
        }
        List<String> missing = new ArrayList<>();
        fields(info).forEach((section, names) -> {
            assertThat(docs).contains("| " + section + " |");
            for (String n : names) {
                if (n.matches("(cmdstat|errorstat|latency_percentiles_usec)_.*|db\\d+|shard\\d+|slave\\d+")) continue;
                if (!docs.contains("`" + n + "`")) missing.add(n);
            }
        });
        assertThat(missing).as("INFO fields docs/observability.md does not name").isEmpty();
    }

    @Test
    void readsAndWrites_countEachRoundTrip() {
        try (Jedis a = tideJedis(); Jedis b = tideJedis()) {
            long reads = stat(a, "stats", "total_reads_processed");
            long writes = stat(a, "stats", "total_writes_processed");
            for (int i = 0; i < 20; i++) b.ping();
            // b's 20 round trips and a's INFO (whose own write comes after it is read)
            assertThat(stat(a, "stats", "total_reads_processed") - reads).isGreaterThanOrEqualTo(21);
            assertThat(stat(a, "stats", "total_writes_processed") - writes).isGreaterThanOrEqualTo(20);
        }
    }

    /** On Redis and on Tide: a request that has not all arrived, then replies that a client does not read. */
    @Test
    void recentMaxBuffers_seeAPartialRequestAndUnreadReplies() throws Exception {
        for (int port : new int[] {redis().port(), tide().port()}) {
            try (Jedis j = new Jedis("127.0.0.1", port); RawClient raw = new RawClient(port)) {
                raw.send("*3\r\n$3\r\nSET\r\n$7\r\nbig:key\r\n$300000\r\n".getBytes(StandardCharsets.US_ASCII));
                raw.send(new byte[200_000]);
                assertThat(awaitStat(j, "clients", "client_recent_max_input_buffer", v -> v >= 200_000))
                        .as("input, port %d", port).isGreaterThanOrEqualTo(200_000);
                raw.send(new byte[100_000]);
                raw.send("\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(raw.readReply()).isEqualTo("+OK\r\n");
                byte[] gets = RawClient.encode("GET", "big:key");
                for (int i = 0; i < 100; i++) raw.send(gets); // 30 MB of replies, unread
                assertThat(awaitStat(j, "clients", "client_recent_max_output_buffer", v -> v >= 300_000))
                        .as("output, port %d", port).isGreaterThanOrEqualTo(300_000);
            }
        }
    }

    @Test
    void clientsInTimeoutTable_countsTheBlockedWithATimeout() throws Exception {
        try (Jedis j = tideJedis(); Jedis forever = tideJedis(); Jedis timed = tideJedis()) {
            assertThat(stat(j, "clients", "clients_in_timeout_table")).isZero();
            // Threads of their own: the common pool may have one thread on a small machine.
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
            CompletableFuture<?> f1 = CompletableFuture.runAsync(() -> forever.blpop(0, "timeout:a"), pool);
            TestServers.awaitBlocked(j, 1);
            assertThat(stat(j, "clients", "clients_in_timeout_table")).isZero();
            CompletableFuture<?> f2 = CompletableFuture.runAsync(() -> timed.blpop(30, "timeout:b"), pool);
            TestServers.awaitBlocked(j, 2);
            assertThat(stat(j, "clients", "clients_in_timeout_table")).isEqualTo(1);
            j.rpush("timeout:b", "x");
            f2.get();
            assertThat(stat(j, "clients", "clients_in_timeout_table")).isZero();
            j.rpush("timeout:a", "x");
            f1.get();
            pool.shutdown();
        }
    }

    @Test
    void activeExpiry_figuresMove() throws Exception {
        try (Jedis j = tideJedis()) {
            long expired0 = stat(j, "stats", "expired_keys");
            long capped0 = stat(j, "stats", "expired_time_cap_reached_count");
            // A 2.5 ms budget a cycle (hz 100) for 200000 keys that expire at once: the cycles hit their time cap.
            // One instant for all (PXAT), after the load: with a relative TTL a slow load let them expire a few at a
            // time, and no cycle reached its cap (seen once in a loaded CI run).
            j.configSet("hz", "100");
            try {
                long at = System.currentTimeMillis() + 2000;
                Pipeline p = j.pipelined();
                for (int i = 0; i < 200_000; i++) {
                    p.set("stale:" + i, "v", redis.clients.jedis.params.SetParams.setParams().pxAt(at));
                }
                p.sync();
                long expired = awaitStat(j, "stats", "expired_keys", v -> v - expired0 >= 200_000);
                assertThat(expired - expired0).isGreaterThanOrEqualTo(200_000);
                String stats = j.info("stats");
                assertThat(Double.parseDouble(value(stats, "expired_stale_perc"))).isPositive();
                assertThat(Long.parseLong(value(stats, "expired_time_cap_reached_count"))).isGreaterThan(capped0);
                assertThat(Long.parseLong(value(stats, "expire_cycle_cpu_milliseconds"))).isPositive();
            } finally {
                j.configSet("hz", "10");
            }
        }
    }

    @Test
    void migrateCachedSockets_countsTheOpenConnection() {
        try (Server target = TestServers.start(1); Jedis j = tideJedis()) {
            assertThat(stat(j, "stats", "migrate_cached_sockets")).isZero();
            j.set("migrating", "v");
            assertThat(j.migrate("127.0.0.1", target.port(), "migrating", 0, 5000)).isEqualTo("OK");
            assertThat(stat(j, "stats", "migrate_cached_sockets")).isEqualTo(1);
        }
    }

    @Test
    void unexpectedErrorReplies_countsAnAofCommandThatFailsOnReplay(@TempDir Path dir) throws Exception {
        String[] args = {"--dir", dir.toString(), "--appendonly", "yes"};
        try (Server s = TestServers.start(1, args); Jedis j = TestServers.jedis(s.port(), 2)) {
            j.set("word", "abc");
            assertThat(stat(j, "stats", "unexpected_error_replies")).isZero();
        }
        Path incr;
        try (var files = Files.list(dir.resolve("appendonlydir"))) {
            incr = files.filter(f -> f.toString().endsWith(".incr.aof")).findFirst().orElseThrow();
        }
        Files.write(incr, RawClient.encode("INCR", "word"), java.nio.file.StandardOpenOption.APPEND);
        try (Server s = TestServers.start(1, args); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(j.get("word")).isEqualTo("abc");
            assertThat(stat(j, "stats", "unexpected_error_replies")).isEqualTo(1);
            assertThat(stat(j, "stats", "total_error_replies")).isZero(); // no client was answered with it
            j.configResetStat();
            assertThat(stat(j, "stats", "unexpected_error_replies")).isZero();
        }
    }

    @Test
    void lruClock_isTheAccessClockInSeconds() throws Exception {
        try (Jedis j = tideJedis()) {
            long before = stat(j, "server", "lru_clock");
            Thread.sleep(2100);
            long after = stat(j, "server", "lru_clock");
            assertThat(after - before).isBetween(2L, 3L);
            assertThat(after).isLessThan(1L << 24);
        }
    }
}
