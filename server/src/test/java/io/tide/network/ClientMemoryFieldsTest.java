package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** CLIENT LIST / CLIENT INFO's buffer and memory fields, against a real redis-server where the figures are defined the same. */
class ClientMemoryFieldsTest {

    private static RealRedis redis;
    private static Server tide;

    @BeforeAll
    static void start() throws Exception {
        redis = RealRedis.start();
        tide = TestServers.start(2);
    }

    @AfterAll
    static void stop() {
        if (tide != null) tide.close();
        if (redis != null) redis.close();
    }

    /** The fields of a CLIENT LIST/INFO line, in order. */
    static Map<String, String> fields(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String f : line.trim().split(" ")) {
            int eq = f.indexOf('=');
            m.put(f.substring(0, eq), f.substring(eq + 1));
        }
        return m;
    }

    /** The body of a bulk-string reply in raw RESP2 text. */
    static String body(String raw) {
        return raw.substring(raw.indexOf("\r\n") + 2, raw.length() - 2);
    }

    static Map<String, String> lineOf(RawClient admin, long id) throws Exception {
        for (String line : body(admin.call("CLIENT", "LIST")).split("\n")) {
            if (line.startsWith("id=" + id + " ")) return fields(line);
        }
        throw new AssertionError("no client " + id);
    }

    static long id(RawClient c) throws Exception {
        return Long.parseLong(c.call("CLIENT", "ID").substring(1).trim());
    }

    @Test
    void fieldsAreRedisFieldsInRedisOrder() throws Exception {
        try (RawClient r = new RawClient(redis.port()); RawClient t = new RawClient(tide.port())) {
            Map<String, String> rf = fields(body(r.call("CLIENT", "INFO")));
            Map<String, String> tf = fields(body(t.call("CLIENT", "INFO")));
            List<String> tideNames = tf.keySet().stream().filter(k -> !k.startsWith("lib-")).toList(); // 7.2's fields
            assertThat(tideNames).containsExactlyElementsOf(rf.keySet());
            for (String k : List.of("argv-mem", "multi", "multi-mem", "obl", "oll", "omem")) {
                assertThat(tf.get(k)).as(k).isEqualTo(rf.get(k));
            }
        }
    }

    @Test
    void queuedCommandsAreCountedAsRedisCountsThem() throws Exception {
        for (int port : new int[] {redis.port(), tide.port()}) {
            try (RawClient tx = new RawClient(port); RawClient admin = new RawClient(port)) {
                long id = id(tx);
                tx.call("MULTI");
                tx.call("SET", "a", "b");
                tx.call("SET", "abc", "defgh");
                Map<String, String> f = lineOf(admin, id);
                assertThat(f.get("flags")).as("port %d", port).isEqualTo("x");
                assertThat(f.get("multi")).isEqualTo("2");
                assertThat(f.get("multi-mem")).isEqualTo("64");
                assertThat(f.get("argv-mem")).isEqualTo("0");
                tx.call("DISCARD");
                f = lineOf(admin, id);
                assertThat(f.get("multi")).isEqualTo("-1");
                assertThat(f.get("multi-mem")).isEqualTo("0");
            }
        }
    }

    @Test
    void aPartialRequestIsInTheQueryBufferWhichShrinksAfterIt() throws Exception {
        try (RawClient big = new RawClient(tide.port()); RawClient admin = new RawClient(tide.port())) {
            long id = id(big);
            big.send("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$1000000\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] part = new byte[300_000];
            Arrays.fill(part, (byte) 'q');
            big.send(part);
            long qbuf = 0;
            for (int i = 0; i < 100 && qbuf < part.length; i++) {
                qbuf = Long.parseLong(lineOf(admin, id).get("qbuf"));
                if (qbuf < part.length) Thread.sleep(20);
            }
            assertThat(qbuf).isEqualTo(part.length);
            Map<String, String> f = lineOf(admin, id);
            assertThat(Long.parseLong(f.get("qbuf-free"))).isEqualTo(1_000_000 - part.length);
            assertThat(Long.parseLong(f.get("tot-mem"))).isGreaterThanOrEqualTo(1_000_000);
            big.send(new byte[700_000]);
            big.send("\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(big.readReply()).isEqualTo("+OK\r\n");
            f = lineOf(admin, id);
            assertThat(f.get("qbuf")).isEqualTo("0");
            assertThat(Long.parseLong(f.get("qbuf-free"))).isLessThan(64 * 1024);
            assertThat(Long.parseLong(f.get("tot-mem"))).isLessThan(128 * 1024);
        }
    }

    @Test
    void unreadRepliesAreOutputMemory() throws Exception {
        try (RawClient setup = new RawClient(tide.port()); RawClient lazy = new RawClient(tide.port());
             RawClient admin = new RawClient(tide.port())) {
            setup.call("SET", "v", "x".repeat(100_000));
            long id = id(lazy);
            lazy.send("*2\r\n$3\r\nGET\r\n$1\r\nv\r\n".repeat(300).getBytes(StandardCharsets.US_ASCII));
            long omem = 0;
            for (int i = 0; i < 100 && omem < 20_000_000; i++) {
                omem = Long.parseLong(lineOf(admin, id).get("omem"));
                if (omem < 20_000_000) Thread.sleep(20);
            }
            Map<String, String> f = lineOf(admin, id);
            // 300 replies of 100 KB and their headers ($100000 and two CRLFs), less what the socket buffers took, plus
            // at most the unfilled part of one 64 KiB encoder buffer.
            assertThat(Long.parseLong(f.get("omem"))).isGreaterThan(20_000_000)
                    .isLessThanOrEqualTo(300L * (100_000 + 11) + 64 * 1024);
            assertThat(Long.parseLong(f.get("oll"))).isPositive();
            assertThat(Long.parseLong(f.get("tot-mem"))).isGreaterThanOrEqualTo(Long.parseLong(f.get("omem")));
            assertThat(f.get("events")).contains("w");
            assertThat(Long.parseLong(f.get("rbp"))).isPositive();
        }
    }
}
