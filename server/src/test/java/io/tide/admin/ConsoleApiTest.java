package io.tide.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** The console's API over real HTTP: commands in and RESP3 replies out, its figures, and what guards it. */
class ConsoleApiTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static byte[] resp(String... args) {
        return io.tide.testing.RawClient.encode(args);
    }

    private static HttpRequest.Builder request(int port, String path, String auth) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(20));
        if (auth != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(auth.getBytes(StandardCharsets.UTF_8)));
        }
        return b;
    }

    private static HttpRequest command(int port, String auth, int db, String... args) {
        return request(port, "/api/command?db=" + db, auth).header(Console.COMMAND_HEADER, "1")
                .POST(HttpRequest.BodyPublishers.ofByteArray(resp(args))).build();
    }

    private static HttpResponse<String> send(HttpRequest r) throws Exception {
        return HTTP.send(r, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void command_runsAsAClientAndAnswersInResp3() throws Exception {
        int admin = RealRedis.freePort();
        try (Server tide = TestServers.start(2, "--admin-port", Integer.toString(admin));
             Jedis j = TestServers.jedis(tide.port(), 2)) {
            assertThat(send(command(admin, null, 0, "SET", "greeting", "hello world")).body()).isEqualTo("+OK\r\n");
            assertThat(j.get("greeting")).isEqualTo("hello world");
            assertThat(send(command(admin, null, 0, "GET", "greeting")).body()).isEqualTo("$11\r\nhello world\r\n");
            j.hset("h", "f", "v");
            assertThat(send(command(admin, null, 0, "HGETALL", "h")).body()).isEqualTo("%1\r\n$1\r\nf\r\n$1\r\nv\r\n");
            // The database of the request.
            assertThat(send(command(admin, null, 3, "SET", "in3", "x")).body()).isEqualTo("+OK\r\n");
            j.select(3);
            assertThat(j.get("in3")).isEqualTo("x");
            j.select(0);
            assertThat(send(command(admin, null, 99, "GET", "k")).body()).isEqualTo("-ERR DB index is out of range\r\n");
            // Errors are the server's, and the next command works.
            assertThat(send(command(admin, null, 0, "LPUSH", "greeting", "x")).body())
                    .isEqualTo("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
            assertThat(send(command(admin, null, 0, "NOSUCH")).body()).startsWith("-ERR unknown command 'NOSUCH'");
            assertThat(send(command(admin, null, 0, "SUBSCRIBE", "ch")).body())
                    .startsWith("-ERR SUBSCRIBE is not available in the console");
            assertThat(send(command(admin, null, 0, "CLIENT", "REPLY", "OFF")).body())
                    .startsWith("-ERR CLIENT REPLY is not available in the console");
            // Counted as a command, by a client that is gone once it has answered.
            assertThat(j.info("commandstats")).contains("cmdstat_hgetall:calls=1,");
            assertThat(j.clientList()).doesNotContain("name=tide-console");
            // A bad body.
            HttpResponse<String> bad = send(request(admin, "/api/command", null).header(Console.COMMAND_HEADER, "1")
                    .POST(HttpRequest.BodyPublishers.ofString("GET k\r\n")).build());
            assertThat(bad.statusCode()).isEqualTo(400);
        }
    }

    @Test
    void blockingCommand_waitsAndIsAClientMeanwhile() throws Exception {
        int admin = RealRedis.freePort();
        try (Server tide = TestServers.start(2, "--admin-port", Integer.toString(admin));
             Jedis j = TestServers.jedis(tide.port(), 2)) {
            CompletableFuture<HttpResponse<String>> blpop = HTTP.sendAsync(command(admin, null, 0, "BLPOP", "q", "0"),
                    HttpResponse.BodyHandlers.ofString());
            long until = System.currentTimeMillis() + 10_000;
            while (!j.clientList().contains("name=tide-console") && System.currentTimeMillis() < until) Thread.sleep(20);
            assertThat(j.clientList()).contains("name=tide-console").contains("cmd=blpop");
            assertThat(blpop).isNotDone();
            j.rpush("q", "item");
            assertThat(blpop.get(10, TimeUnit.SECONDS).body()).isEqualTo("*2\r\n$1\r\nq\r\n$4\r\nitem\r\n");
            assertThat(j.clientList()).doesNotContain("name=tide-console");
            // CLIENT KILL of a blocked console command answers its request.
            CompletableFuture<HttpResponse<String>> again = HTTP.sendAsync(command(admin, null, 0, "BLPOP", "q", "0"),
                    HttpResponse.BodyHandlers.ofString());
            until = System.currentTimeMillis() + 10_000;
            while (!j.clientList().contains("name=tide-console") && System.currentTimeMillis() < until) Thread.sleep(20);
            assertThat(j.clientKill(new redis.clients.jedis.params.ClientKillParams()
                    .skipMe(redis.clients.jedis.params.ClientKillParams.SkipMe.YES))).isEqualTo(1);
            assertThat(again.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(503);
            assertThat(j.llen("q")).isZero();
            // A browser that goes away cancels its blocked command: a later push is not popped into nowhere.
            byte[] body = resp("BLPOP", "q", "0");
            try (java.net.Socket sock = new java.net.Socket("127.0.0.1", admin)) {
                sock.getOutputStream().write(("POST /api/command HTTP/1.1\r\nHost: 127.0.0.1\r\n" + Console.COMMAND_HEADER
                        + ": 1\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                sock.getOutputStream().write(body);
                until = System.currentTimeMillis() + 10_000;
                while (!j.clientList().contains("name=tide-console") && System.currentTimeMillis() < until) {
                    Thread.sleep(20);
                }
                assertThat(j.clientList()).contains("cmd=blpop");
            }
            until = System.currentTimeMillis() + 10_000;
            while (j.clientList().contains("name=tide-console") && System.currentTimeMillis() < until) Thread.sleep(20);
            assertThat(j.clientList()).doesNotContain("name=tide-console");
            j.rpush("q", "kept");
            assertThat(j.lrange("q", 0, -1)).containsExactly("kept");
        }
    }

    @Test
    void stats_followTheServer() throws Exception {
        int admin = RealRedis.freePort();
        try (Server tide = TestServers.start(2, "--admin-port", Integer.toString(admin));
             Jedis j = TestServers.jedis(tide.port(), 2)) {
            String before = send(request(admin, "/api/stats", null).build()).body();
            for (int i = 0; i < 500; i++) j.set("k" + i, "x".repeat(100));
            HttpResponse<String> r = send(request(admin, "/api/stats", null).build());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
            String after = r.body();
            assertThat(number(after, "keys")).isEqualTo(500);
            assertThat(number(after, "commands") - number(before, "commands")).isGreaterThanOrEqualTo(500);
            assertThat(number(after, "usedMemory")).isGreaterThan(number(before, "usedMemory") + 500 * 100);
            assertThat(after).contains("\"shards\":[{\"id\":0,").contains("{\"id\":1,");
            // The SETs ran on the shards owning their keys: both, though one connection sent them all.
            var executed = java.util.regex.Pattern.compile("\"executed\":(\\d+)").matcher(after);
            long total = 0;
            int busy = 0;
            while (executed.find()) {
                long n = Long.parseLong(executed.group(1));
                total += n;
                if (n > 100) busy++;
            }
            assertThat(busy).isEqualTo(2);
            assertThat(total).isGreaterThanOrEqualTo(500);
            // The latency of the commands since the previous call: 500 SETs, then only what came after.
            assertThat(after).matches(".*\"latency\":\\{\"count\":5\\d\\d,\"p50\":[0-9.]+,\"p99\":.*");
            j.get("k1");
            assertThat(send(request(admin, "/api/stats", null).build()).body()).contains("\"latency\":{\"count\":1,");
        }
    }

    private static long number(String json, String field) {
        var m = java.util.regex.Pattern.compile("\"" + field + "\":(\\d+)").matcher(json);
        assertThat(m.find()).as(field + " in " + json).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void guards_credentialsHeaderAndHost() throws Exception {
        int admin = RealRedis.freePort();
        try (Server tide = TestServers.start(1, "--admin-port", Integer.toString(admin), "--requirepass", "s3cret")) {
            // The static files hold no data: served without credentials, so that the login form can load.
            HttpResponse<String> page = send(request(admin, "/ui/", null).build());
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains("<title>Tide console</title>");
            assertThat(send(request(admin, "/ui/vendor/uPlot.iife.min.js", null).build()).body()).contains("uPlot");
            assertThat(send(request(admin, "/ui/../metrics", null).build()).statusCode()).isIn(400, 404);
            assertThat(send(request(admin, "/ui/nosuch.js", null).build()).statusCode()).isEqualTo(404);
            // The API needs them, and asks without a Basic challenge (the console has its own form).
            HttpResponse<String> anon = send(command(admin, null, 0, "SET", "k", "v"));
            assertThat(anon.statusCode()).isEqualTo(401);
            assertThat(anon.headers().firstValue("www-authenticate")).isEmpty();
            assertThat(send(request(admin, "/api/stats", null).build()).statusCode()).isEqualTo(401);
            assertThat(send(command(admin, "default:wrong", 0, "SET", "k", "v")).statusCode()).isEqualTo(401);
            assertThat(send(command(admin, "default:s3cret", 0, "SET", "k", "v")).body()).isEqualTo("+OK\r\n");
            // Without the console's header, no command (a form on another site cannot add it).
            HttpResponse<String> noHeader = send(request(admin, "/api/command", "default:s3cret")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(resp("FLUSHALL"))).build());
            assertThat(noHeader.statusCode()).isEqualTo(403);
            try (Jedis j = new Jedis(new redis.clients.jedis.HostAndPort("127.0.0.1", tide.port()),
                    redis.clients.jedis.DefaultJedisClientConfig.builder().password("s3cret").build())) {
                assertThat(j.get("k")).isEqualTo("v");
            }
            assertThat(send(request(admin, "/api/command", "default:s3cret").GET().build()).statusCode()).isEqualTo(405);
        }
        admin = RealRedis.freePort();
        try (Server tide = TestServers.start(1, "--admin-port", Integer.toString(admin))) {
            // No password: a request for a name that is not this machine's is refused (DNS rebinding).
            assertThat(withHost(admin, "evil.example:" + admin)).startsWith("HTTP/1.1 403 ");
            assertThat(withHost(admin, "127.0.0.1:" + admin)).isEqualTo("HTTP/1.1 200 OK +PONG\r\n");
            assertThat(withHost(admin, "localhost")).isEqualTo("HTTP/1.1 200 OK +PONG\r\n");
        }
    }

    /** The status line and body of PING sent with a chosen Host header (java.net.http will not set one). */
    private static String withHost(int port, String host) throws Exception {
        byte[] body = resp("PING");
        try (java.net.Socket sock = new java.net.Socket("127.0.0.1", port)) {
            sock.setSoTimeout(10_000);
            String head = "POST /api/command HTTP/1.1\r\nHost: " + host + "\r\n" + Console.COMMAND_HEADER
                    + ": 1\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n";
            sock.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            sock.getOutputStream().write(body);
            String all = new String(sock.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return all.substring(0, all.indexOf("\r\n")) + " " + all.substring(all.indexOf("\r\n\r\n") + 4);
        }
    }
}
