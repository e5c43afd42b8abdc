package io.tide.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/** COMMANDLOG (Valkey 8.1's three logs) through a socket, and the percentile rule INFO latencystats uses. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CommandLogTest {

    private Server server;

    @BeforeAll
    void start() {
        server = TestServers.start(2);
    }

    @AfterAll
    void stop() {
        if (server != null) server.close();
    }

    private static Object cmdlog(Jedis j, String... args) {
        return j.sendCommand(() -> "COMMANDLOG".getBytes(StandardCharsets.US_ASCII), args);
    }

    @SuppressWarnings("unchecked")
    private static List<Object> entry(Jedis j, String type) {
        List<Object> all = (List<Object>) cmdlog(j, "GET", "-1", type);
        assertThat(all).hasSize(1);
        return (List<Object>) all.get(0);
    }

    @Test
    @SuppressWarnings("unchecked")
    void largeRequestAndReply_loggedWithTheirSizes() {
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            j.configSet("commandlog-request-larger-than", "1024");
            j.configSet("commandlog-reply-larger-than", "1024");
            cmdlog(j, "RESET", "large-request");
            cmdlog(j, "RESET", "large-reply");
            String value = "A".repeat(1024);
            j.set("cl:big", value);
            j.set("cl:small", "x");
            j.get("cl:small");
            assertThat(j.get("cl:big")).isEqualTo(value);
            // *3\r\n $3\r\nSET\r\n $6\r\ncl:big\r\n $1024\r\n<1024>\r\n
            List<Object> req = entry(j, "large-request");
            assertThat(req.get(2)).isEqualTo(4L + 9 + 12 + 1024 + 9L);
            assertThat(((List<Object>) req.get(3)).stream().map(b -> new String((byte[]) b)).toList().subList(0, 2))
                    .containsExactly("SET", "cl:big");
            List<Object> reply = entry(j, "large-reply");
            assertThat(reply.get(2)).isEqualTo(7L + 1024 + 2); // $1024\r\n<1024>\r\n
            assertThat(((List<Object>) reply.get(3)).stream().map(b -> new String((byte[]) b)).toList())
                    .containsExactly("GET", "cl:big");
            assertThat(cmdlog(j, "LEN", "large-reply")).isEqualTo(1L);
            j.configSet("commandlog-reply-larger-than", "-1");
            j.get("cl:big");
            assertThat(cmdlog(j, "LEN", "large-reply")).isEqualTo(1L);
            j.configSet("commandlog-request-larger-than", "1048576");
            j.configSet("commandlog-reply-larger-than", "1048576");
        }
    }

    @Test
    void largeRequest_atTheThresholdIsLogged_andOneByteUnderIsNot() {
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            String value = "A".repeat(1024);
            long size = 4 + 9 + 13 + 1033; // *3\r\n $3\r\nSET\r\n $7\r\ncl:edge\r\n $1024\r\n<1024>\r\n
            j.configSet("commandlog-request-larger-than", String.valueOf(size + 1));
            cmdlog(j, "RESET", "large-request");
            j.set("cl:edge", value);
            assertThat(cmdlog(j, "LEN", "large-request")).isEqualTo(0L);
            j.configSet("commandlog-request-larger-than", String.valueOf(size));
            cmdlog(j, "RESET", "large-request");
            j.set("cl:edge", value);
            assertThat(cmdlog(j, "LEN", "large-request")).isEqualTo(1L);
            assertThat(entry(j, "large-request").get(2)).isEqualTo(size);
            j.configSet("commandlog-request-larger-than", "1048576");
        }
    }

    @Test
    void slowType_isTheSlowlog_andErrorsAsValkey() {
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            j.configSet("slowlog-log-slower-than", "0");
            assertThat(j.configGet("commandlog-execution-slower-than")).containsEntry(
                    "commandlog-execution-slower-than", "0");
            j.slowlogReset();
            j.ping();
            assertThat(cmdlog(j, "LEN", "slow")).isEqualTo(2L); // SLOWLOG RESET, PING
            assertThat(j.slowlogLen()).isEqualTo(3L); // and COMMANDLOG LEN
            cmdlog(j, "RESET", "slow");
            j.configSet("commandlog-execution-slower-than", "10000");
            assertThat(j.slowlogLen()).isEqualTo(1L); // COMMANDLOG RESET was itself logged
            assertThatThrownBy(() -> cmdlog(j, "LEN", "fast"))
                    .hasMessage("ERR type should be one of the following: slow, large-request, large-reply");
            assertThatThrownBy(() -> cmdlog(j, "GET", "-2", "slow"))
                    .hasMessage("ERR count should be greater than or equal to -1");
            assertThatThrownBy(() -> cmdlog(j, "GET", "1"))
                    .hasMessage("ERR wrong number of arguments for 'commandlog|get' command");
        }
    }

    @Test
    void percentile_roundsTheCountAsRedisCHdrHistogram() {
        // 160 samples: p99 wants sample 158.4 -> Redis rounds to the 158th (Java's HdrHistogram would take the 159th).
        Histogram h = LatencyHistograms.create();
        for (int i = 1; i <= 160; i++) LatencyHistograms.record(h, i <= 158 ? 10 : 1000);
        assertThat(LatencyHistograms.valueAtPercentile(h, 99) / 1000).isEqualTo(10);
        assertThat(LatencyHistograms.percentilesLine(h, new double[] {50, 99.9}))
                .isEqualTo("p50=10.047,p99.9=1003.519");
    }

    @Test
    void trim_keepsRedisLimitsAndRedacts() {
        byte[][] argv = new byte[40][];
        argv[0] = "HELLO".getBytes();
        argv[1] = "3".getBytes();
        argv[2] = "AUTH".getBytes();
        argv[3] = "u".getBytes();
        argv[4] = "p".getBytes();
        for (int i = 5; i < 40; i++) argv[i] = "z".repeat(130).getBytes();
        byte[][] t = CommandLog.trim("hello", argv);
        assertThat(t.length).isEqualTo(32);
        assertThat(new String(t[3])).isEqualTo("(redacted)");
        assertThat(new String(t[4])).isEqualTo("(redacted)");
        assertThat(new String(t[5])).isEqualTo("z".repeat(128) + "... (2 more bytes)");
        assertThat(new String(t[31])).isEqualTo("... (9 more arguments)");
        assertThat(Protocol.Command.SLOWLOG).isNotNull();
    }
}
