package io.tide.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MONITOR against redis-server and Tide (two shards): the lines a monitor receives for a scripted session,
 * identical once the timestamp and the client's port are masked.
 */
class MonitorVsRedisTest {

    private static RealRedis redis;
    private static Server tide;

    @BeforeAll
    static void startServers() throws Exception {
        redis = RealRedis.start();
        tide = TestServers.start(2);
    }

    @AfterAll
    static void stopServers() {
        if (tide != null) tide.close();
        if (redis != null) redis.close();
    }

    private static List<String> lines(int port, int proto) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient m = new RawClient(port); RawClient c = new RawClient(port)) {
            if (proto == 3) m.call("HELLO", "3");
            out.add(m.call("MONITOR"));
            m.sendCommand("MONITOR"); // a second MONITOR is ignored without a reply
            out.add(c.call("SET", "mk", "a b\n\u0001\"\\"));
            c.call("GET", "mk");
            c.call("SELECT", "2");
            c.call("LPUSH", "ml", "x");
            c.call("SELECT", "0");
            c.call("NOSUCHCOMMAND", "x");
            c.call("GET");
            c.call("AUTH", "secret");
            c.call("CONFIG", "GET", "maxmemory");
            c.call("INCR", "mk");
            c.call("MSET", "m1", "1", "{m1}2", "2");
            c.call("MULTI");
            c.call("SET", "mx", "1");
            c.call("INCR", "mx");
            c.call("EXEC");
            c.call("EVAL", "redis.call('set', KEYS[1], 'v'); return redis.call('get', KEYS[1])", "1", "me");
            c.call("ECHO", "end");
            while (true) {
                String line = m.readReply();
                out.add(line.replaceAll("^\\+\\d+\\.\\d{6} \\[(\\d+) (127\\.0\\.0\\.1:\\d+|lua)\\]", "+TS [$1 ADDR]")
                        + (line.contains(" lua]") ? " (lua)" : ""));
                if (line.contains("\"end\"")) break;
            }
        }
        return out;
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void monitorLines_matchRedis_modTimestampAndPort(int proto) throws Exception {
        List<String> expected = lines(redis.port(), proto);
        List<String> actual = lines(tide.port(), proto);
        assertThat(String.join("\n", actual)).isEqualTo(String.join("\n", expected));
        assertThat(actual).anyMatch(l -> l.startsWith("+TS [2 ADDR] \"LPUSH\""));
    }

    /**
     * A MONITOR pipelined behind a command on another shard (Tide: a hop still in flight when MONITOR registers):
     * no line may overtake the replies owed to the monitor, as on Redis, where they are sent first. MONITOR inside
     * EXEC is refused.
     */
    private static List<String> monitorAfterHop(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient m = new RawClient(port); RawClient c = new RawClient(port)) {
            m.call("SET", "{own-a}x", "1");
            m.call("MULTI");
            m.call("GET", "{own-a}x");
            m.call("MONITOR");
            out.add(m.call("EXEC"));
            StringBuilder gets = new StringBuilder(); // on both shards: some of them hop
            for (int i = 0; i < 4; i++) gets.append("*2\r\n$3\r\nGET\r\n$8\r\n{own-").append(i).append("}y\r\n");
            m.send((gets + "*1\r\n$7\r\nMONITOR\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!c.call("CLIENT", "LIST").contains(" flags=O ") && System.nanoTime() < deadline) Thread.sleep(1);
            for (int i = 0; i < 50; i++) c.call("SET", "{own-c}z" + (i % 4), "v"); // lines, from every shard
            c.call("ECHO", "end");
            List<String> lines = new ArrayList<>();
            while (true) {
                String r = m.readReply();
                if (r.startsWith("$") || r.equals("+OK\r\n")) out.add(r); // the replies, in the order they came
                else if (r.contains(" \"GET\" \"{own-")) {
                    // Tide shows it (the hop ran after MONITOR registered), but never before the replies owed.
                    if (!out.contains("+OK\r\n")) out.add("a GET's line before the replies");
                }
                else out.add("line");
                lines.add(r);
                if (r.endsWith(" \"ECHO\" \"end\"\r\n")) break;
            }
        }
        return out;
    }

    @org.junit.jupiter.api.Test
    void monitorBehindAHop_getsItsRepliesBeforeAnyLine_andMonitorInsideExecIsRefused() throws Exception {
        List<String> expected = monitorAfterHop(redis.port());
        assertThat(expected.get(0)).contains("MONITOR isn't allowed for DENY BLOCKING client");
        assertThat(monitorAfterHop(tide.port())).containsExactlyElementsOf(expected);
    }

    /**
     * Whether a monitor that reads nothing survives a flood of commands under {@code limits}: a socket with a 4 KiB
     * receive buffer, 10 MB of lines, then CLIENT LIST shows whether a client flagged O is left.
     */
    private static boolean slowMonitorSurvives(int port, String limits) throws Exception {
        try (RawClient c = new RawClient(port); java.net.Socket m = new java.net.Socket()) {
            String before = c.call("CONFIG", "GET", "client-output-buffer-limit");
            c.call("CONFIG", "SET", "client-output-buffer-limit", limits);
            try {
                m.setReceiveBufferSize(4096);
                m.connect(new java.net.InetSocketAddress("127.0.0.1", port));
                m.getOutputStream().write("MONITOR\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (!c.call("CLIENT", "LIST").contains(" flags=O ") && System.nanoTime() < deadline) Thread.sleep(1);
                String value = "x".repeat(1000);
                StringBuilder batch = new StringBuilder();
                for (int i = 0; i < 100; i++) batch.append("*3\r\n$3\r\nSET\r\n$4\r\nslow\r\n$1000\r\n").append(value).append("\r\n");
                byte[] bytes = batch.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                for (int b = 0; b < 100; b++) {
                    c.send(bytes);
                    for (int i = 0; i < 100; i++) c.readReply();
                }
                Thread.sleep(300);
                return c.call("CLIENT", "LIST").contains(" flags=O ");
            } finally {
                String old = before.split("\r\n")[4];
                c.call("CONFIG", "SET", "client-output-buffer-limit", old);
            }
        }
    }

    /**
     * A MONITOR client is a normal client to client-output-buffer-limit (Redis's getClientType counts it so, though it
     * is flagged a replica): closed by the normal class's limit, not by the pubsub class's.
     */
    @org.junit.jupiter.api.Test
    void slowMonitor_isLimitedByTheNormalClass_notPubsub() throws Exception {
        String normalOnly = "normal 256kb 0 0 pubsub 0 0 0";
        String pubsubOnly = "normal 0 0 0 pubsub 256kb 0 0";
        assertThat(slowMonitorSurvives(redis.port(), normalOnly)).isFalse();
        assertThat(slowMonitorSurvives(redis.port(), pubsubOnly)).isTrue();
        assertThat(slowMonitorSurvives(tide.port(), normalOnly)).isFalse();
        assertThat(slowMonitorSurvives(tide.port(), pubsubOnly)).isTrue();
    }
}
