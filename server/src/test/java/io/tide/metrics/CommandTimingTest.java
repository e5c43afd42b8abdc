package io.tide.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;

/**
 * The commands of one read share the shard's clock (decision 0024): each starts where the one before it ended, and the
 * wall-clock time each runs at is derived from the read's start. A slow command in a pipeline must neither lend its
 * time to the next command's duration nor leave the next one running at a stale time (keys expiring from the wrong
 * instant). One write from Jedis's pipeline is one read on the server.
 */
class CommandTimingTest {

    private static Object call(Jedis j, String... args) {
        return j.sendCommand(() -> args[0].getBytes(StandardCharsets.US_ASCII),
                java.util.Arrays.copyOfRange(args, 1, args.length));
    }

    /** SLOWLOG GET's entries as command name to duration in microseconds. */
    @SuppressWarnings("unchecked")
    private static Map<String, Long> slowlog(Jedis j) {
        Map<String, Long> out = new java.util.HashMap<>();
        for (Object e : (List<Object>) call(j, "SLOWLOG", "GET", "-1")) {
            List<Object> entry = (List<Object>) e;
            List<Object> args = (List<Object>) entry.get(3);
            out.put(new String((byte[]) args.get(0), StandardCharsets.UTF_8).toLowerCase(), (Long) entry.get(2));
        }
        return out;
    }

    @ParameterizedTest(name = "{0} shard(s)")
    @ValueSource(ints = {1, 2})
    void aSlowCommand_keepsItsTimeToItself_andTheNextRunsAtTheTimeAfterIt(int shards) {
        try (Server server = TestServers.start(shards, "--enable-debug-command", "yes");
             Jedis j = new Jedis("127.0.0.1", server.port())) {
            j.configSet("slowlog-log-slower-than", "0");
            call(j, "SLOWLOG", "RESET");
            j.set("ct:before", "x"); // the connection's first read is over
            call(j, "SLOWLOG", "RESET");
            Pipeline p = j.pipelined();
            p.sendCommand(() -> "DEBUG".getBytes(StandardCharsets.US_ASCII), "SLEEP", "0.2");
            p.sendCommand(Protocol.Command.SET, "ct:k", "v", "PX", "150");
            Response<Long> pttl = p.pttl("ct:k");
            p.sendCommand(Protocol.Command.ECHO, "after");
            p.sync();
            // Expiry is counted from when SET ran, after the sleep: a time taken when the read began would have the key
            // expire 50 ms before it was written.
            assertThat(pttl.get()).isBetween(1L, 150L);
            assertThat(j.get("ct:k")).isEqualTo("v");

            Map<String, Long> log = slowlog(j);
            assertThat(log.get("debug")).isGreaterThanOrEqualTo(200_000L);
            assertThat(log.get("set")).isLessThan(100_000L);
            assertThat(log.get("pttl")).isLessThan(100_000L);
            assertThat(log.get("echo")).isLessThan(100_000L);
        }
    }
}
