package io.tide.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** The admin port over real HTTP: health, readiness, Prometheus metrics that follow the server's state, and auth. */
class AdminServerTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static HttpResponse<String> get(String host, int port, String path, String auth) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path))
                .timeout(Duration.ofSeconds(10));
        if (auth != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(auth.getBytes(StandardCharsets.UTF_8)));
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return get("127.0.0.1", port, path, null);
    }

    /** Sample lines of the exposition as name{labels} -> value. */
    private static Map<String, Double> samples(String body) {
        Map<String, Double> out = new HashMap<>();
        for (String line : body.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) continue;
            int sp = line.lastIndexOf(' ');
            out.put(line.substring(0, sp), Double.parseDouble(line.substring(sp + 1)));
        }
        return out;
    }

    private static Map<String, Double> scrape(int port) throws Exception {
        HttpResponse<String> r = get(port, "/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/plain; version=0.0.4");
        return samples(r.body());
    }

    private static long info(Jedis j, String section, String field) {
        for (String line : j.info(section).split("\r\n")) {
            if (line.startsWith(field + ":")) return Long.parseLong(line.substring(field.length() + 1));
        }
        throw new AssertionError("no " + field);
    }

    @Test
    void metrics_followTheServersState() throws Exception {
        int admin = RealRedis.freePort();
        try (Server tide = TestServers.start(4, "--admin-port", Integer.toString(admin));
             Jedis j = TestServers.jedis(tide.port(), 2)) {
            assertThat(get(admin, "/healthz").body()).isEqualTo("ok\n");
            assertThat(get(admin, "/readyz").statusCode()).isEqualTo(200);
            Map<String, Double> before = scrape(admin);
            for (int i = 0; i < 1000; i++) j.set("k:" + i, "v".repeat(100));
            for (int i = 0; i < 10; i++) j.get("k:" + i);
            j.get("nosuch");
            j.pexpire("k:0", 1);
            Thread.sleep(20);
            j.get("k:0"); // expired on access
            Map<String, Double> after = scrape(admin);
            assertThat(after.get("redis_commands_total{cmd=\"set\"}")
                    - before.getOrDefault("redis_commands_total{cmd=\"set\"}", 0.0)).isEqualTo(1000.0);
            assertThat(after.get("redis_commands_total{cmd=\"get\"}")).isEqualTo(12.0);
            assertThat(after.get("redis_keyspace_hits_total") - before.get("redis_keyspace_hits_total")).isEqualTo(10.0);
            assertThat(after.get("redis_keyspace_misses_total") - before.get("redis_keyspace_misses_total"))
                    .isEqualTo(2.0);
            assertThat(after.get("redis_expired_keys_total")).isEqualTo(1.0);
            assertThat(after.get("redis_db_keys{db=\"db0\"}")).isEqualTo((double) j.dbSize());
            double perShard = 0;
            for (int s = 0; s < 4; s++) perShard += after.get("tide_shard_keys{shard=\"" + s + "\"}");
            assertThat(perShard).isEqualTo(999.0);
            assertThat(after.get("redis_memory_used_bytes")).isGreaterThan(before.get("redis_memory_used_bytes") + 100_000);
            assertThat(after.get("redis_memory_used_bytes")).isEqualTo((double) info(j, "memory", "used_memory"));
            assertThat(after.get("redis_connected_clients")).isEqualTo((double) info(j, "clients", "connected_clients"));
            long processed = info(j, "stats", "total_commands_processed");
            assertThat(scrape(admin).get("redis_commands_processed_total")).isEqualTo((double) processed + 1); // + INFO
            assertThat(after.get("tide_shards")).isEqualTo(4.0);
            // Commands run by the coordinator (INFO runs on every shard), error replies, latency samples.
            assertThatThrownBy(() -> j.sendCommand(() -> "NOSUCHCOMMAND".getBytes(StandardCharsets.US_ASCII)))
                    .hasMessageStartingWith("ERR unknown command");
            for (int i = 0; i < 5; i++) j.mset("a" + i, "1", "b" + i, "2", "c" + i, "3", "d" + i, "4"); // cross-shard
            redis.clients.jedis.Transaction tx = j.multi(); // keys on several shards: EXEC runs on the coordinator
            for (int i = 0; i < 4; i++) tx.set("tx" + i, "v");
            tx.exec();
            Map<String, Double> later = scrape(admin);
            assertThat(later.get("redis_commands_total{cmd=\"set\"}") - after.get("redis_commands_total{cmd=\"set\"}"))
                    .isEqualTo(4.0); // the commands EXEC ran count, as in INFO commandstats
            assertThat(later.get("redis_commands_total{cmd=\"mset\"}")).isEqualTo(5.0);
            assertThat(later.get("redis_commands_total{cmd=\"info\"}")).isEqualTo(3.0);
            assertThat(later.get("redis_errors_total{err=\"ERR\"}")).isEqualTo(1.0);
            assertThat(later.get("redis_latency_percentiles_usec_count{cmd=\"set\"}"))
                    .isEqualTo(later.get("redis_commands_total{cmd=\"set\"}"));
            assertThat(later.get("redis_latency_percentiles_usec{cmd=\"set\",quantile=\"0.99\"}")).isPositive();
            assertThat(after.keySet()).anyMatch(k -> k.startsWith("jvm_memory_used_bytes"));
            assertThat(get(admin, "/nosuch").statusCode()).isEqualTo(404);
            HttpResponse<String> post = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin
                    + "/metrics")).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
        }
    }

    @Test
    void requirepass_guardsEverythingButHealthz() throws Exception {
        int admin = RealRedis.freePort();
        try (Server tide = TestServers.start(1, "--admin-port", Integer.toString(admin), "--requirepass", "s3cret")) {
            assertThat(get(admin, "/healthz").statusCode()).isEqualTo(200);
            for (String path : new String[] {"/metrics", "/readyz", "/backup", "/nosuch"}) {
                HttpResponse<String> r = get(admin, path);
                assertThat(r.statusCode()).as(path).isEqualTo(401);
                assertThat(r.body()).doesNotContain("redis_");
                assertThat(r.headers().firstValue("www-authenticate").orElse("")).startsWith("Basic");
                assertThat(get("127.0.0.1", admin, path, "default:wrong").statusCode()).isEqualTo(401);
                assertThat(get("127.0.0.1", admin, path, "someone:s3cret").statusCode()).isEqualTo(401);
            }
            assertThat(get("127.0.0.1", admin, "/metrics", "default:s3cret").statusCode()).isEqualTo(200);
            assertThat(get("127.0.0.1", admin, "/readyz", ":s3cret").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void servesOnlyTheBoundAddresses() throws Exception {
        int admin = RealRedis.freePort();
        try (Server tide = TestServers.start(1, "--admin-port", Integer.toString(admin), "--bind", "127.0.0.1")) {
            assertThat(get(admin, "/healthz").statusCode()).isEqualTo(200);
            // 127.0.0.2 reaches this machine's loopback too, but nothing listens there.
            assertThatThrownBy(() -> get("127.0.0.2", admin, "/healthz", null)).isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void readyz_explainsWhyAReplicaIsNotReady() throws Exception {
        int admin = RealRedis.freePort();
        int nobody = RealRedis.freePort();
        try (Server tide = TestServers.start(1, "--admin-port", Integer.toString(admin));
             Jedis j = TestServers.jedis(tide.port(), 2)) {
            assertThat(get(admin, "/readyz").statusCode()).isEqualTo(200);
            j.replicaof("127.0.0.1", nobody);
            HttpResponse<String> r = get(admin, "/readyz");
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).isEqualTo("replica: the link to 127.0.0.1:" + nobody + " is down\n");
            assertThat(scrape(admin).get("redis_master_link_up")).isEqualTo(0.0);
            j.replicaofNoOne();
            assertThat(get(admin, "/readyz").statusCode()).isEqualTo(200);
        }
    }

    /** GET /backup streams an RDB image that a real redis-server loads with every key, value and TTL. */
    @Test
    void backup_isAnRdbRedisLoads(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        int admin = RealRedis.freePort();
        try (Server tide = TestServers.start(4, "--admin-port", Integer.toString(admin));
             Jedis j = TestServers.jedis(tide.port(), 2)) {
            for (int i = 0; i < 20_000; i++) j.set("s:" + i, "value-" + i);
            j.rpush("list", "a", "b", "c");
            j.hset("hash", Map.of("f1", "v1", "f2", "v2"));
            j.zadd("zset", 1.5, "m");
            j.sadd("set", "x", "y");
            j.setex("ttl", 1000, "soon");
            j.select(3);
            j.set("in-db-3", "yes");
            HttpResponse<java.nio.file.Path> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin
                    + "/backup")).build(), HttpResponse.BodyHandlers.ofFile(dir.resolve("dump.rdb")));
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("content-type")).hasValue("application/octet-stream");
            assertThat(new String(java.nio.file.Files.readAllBytes(dir.resolve("dump.rdb")), 0, 5,
                    StandardCharsets.US_ASCII)).isEqualTo("REDIS");
            try (RealRedis redis = RealRedis.startWithFile(dir, "dump.rdb");
                 Jedis rj = TestServers.jedis(redis.port(), 2)) {
                assertThat(rj.dbSize()).isEqualTo(20_005L);
                assertThat(rj.get("s:12345")).isEqualTo("value-12345");
                assertThat(rj.lrange("list", 0, -1)).containsExactly("a", "b", "c");
                assertThat(rj.hgetAll("hash")).isEqualTo(Map.of("f1", "v1", "f2", "v2"));
                assertThat(rj.zscore("zset", "m")).isEqualTo(1.5);
                assertThat(rj.smembers("set")).containsExactlyInAnyOrder("x", "y");
                assertThat(rj.ttl("ttl")).isBetween(900L, 1000L);
                rj.select(3);
                assertThat(rj.get("in-db-3")).isEqualTo("yes");
            }
            assertThat(j.info("persistence")).contains("rdb_bgsave_in_progress:0");
        }
    }

    /**
     * A client that reads /backup slowly holds the snapshot's writer back, so chunks queue while the shards go on
     * filling buffers: the image must still hold every key exactly (the chunk buffers are reused once written, never
     * while queued).
     */
    @Test
    void backup_readSlowly_isStillWholeAndExact(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        int admin = RealRedis.freePort();
        int keys = 100_000;
        try (Server tide = TestServers.start(4, "--admin-port", Integer.toString(admin));
             Jedis j = TestServers.jedis(tide.port(), 2)) {
            redis.clients.jedis.Pipeline p = j.pipelined();
            for (int i = 0; i < keys; i++) p.set("k:" + i, i + ":" + "v".repeat(100 + i % 50));
            p.sync();
            HttpResponse<java.io.InputStream> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin
                    + "/backup")).build(), HttpResponse.BodyHandlers.ofInputStream());
            assertThat(r.statusCode()).isEqualTo(200);
            try (java.io.InputStream in = r.body();
                 java.io.OutputStream out = java.nio.file.Files.newOutputStream(dir.resolve("dump.rdb"))) {
                byte[] b = new byte[16 * 1024];
                int reads = 0;
                for (int n; (n = in.read(b)) > 0; ) {
                    out.write(b, 0, n);
                    if (++reads % 8 == 0) Thread.sleep(2);
                }
            }
            try (RealRedis redis = RealRedis.startWithFile(dir, "dump.rdb");
                 Jedis rj = TestServers.jedis(redis.port(), 2)) {
                assertThat(rj.dbSize()).isEqualTo((long) keys);
                redis.clients.jedis.Pipeline rp = rj.pipelined();
                List<redis.clients.jedis.Response<String>> got = new java.util.ArrayList<>(keys);
                for (int i = 0; i < keys; i++) got.add(rp.get("k:" + i));
                rp.sync();
                for (int i = 0; i < keys; i++) {
                    assertThat(got.get(i).get()).as("k:%d", i).isEqualTo(i + ":" + "v".repeat(100 + i % 50));
                }
            }
        }
    }

    @Test
    void off_byDefault() throws Exception {
        int admin = RealRedis.freePort();
        try (Server tide = TestServers.start(1)) {
            assertThatThrownBy(() -> get(admin, "/healthz")).isInstanceOf(ConnectException.class);
        }
    }
}
