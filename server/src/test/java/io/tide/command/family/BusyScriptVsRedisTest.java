package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The same busy-script session against redis-server 7.0.15 ({@code lua-time-limit 100}) and Tide (two shards):
 * byte-identical -BUSY, SCRIPT KILL, the killed script's error line, NOTBUSY, UNKILLABLE, SHUTDOWN without
 * NOSAVE refused and SHUTDOWN NOSAVE stopping the server while a script is busy.
 */
class BusyScriptVsRedisTest {

    private static final String LOOP = "local i = 0 while true do i = i + 1 end";
    private static final String WRITE_THEN_WAIT = "redis.call('set', KEYS[1], 'w') local t0 = redis.call('time')"
            + " local start = t0[1] * 1000000 + t0[2]"
            + " while true do local t = redis.call('time')"
            + " if t[1] * 1000000 + t[2] - start > 600000 then break end end return 'done'";

    /** Runs the session on one server and returns every reply, in order. */
    private static List<String> session(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient runner = new RawClient(port); RawClient other = new RawClient(port)) {
            out.add(other.call("CONFIG", "SET", "lua-time-limit", "100"));
            out.add(other.call("SET", "k", "v"));
            out.add(other.call("SCRIPT", "KILL"));
            BusyScriptTest.startBusy(runner, other, LOOP);
            out.add(other.call("GET", "k"));
            out.add(other.call("MULTI"));
            out.add(other.call("SET", "k", "x"));
            out.add(other.call("EXEC"));
            out.add(other.call("DISCARD"));
            out.add(other.call("SHUTDOWN"));
            out.add(other.call("SHUTDOWN", "SAVE"));
            out.add(other.call("CONFIG", "GET", "lua-time-limit"));
            out.add(other.call("SCRIPT", "KILL"));
            out.add(runner.readReply());
            out.add(other.call("SCRIPT", "KILL"));
            out.add(other.call("GET", "k"));
            BusyScriptTest.startBusy(runner, other, WRITE_THEN_WAIT, "w");
            out.add(other.call("SCRIPT", "KILL"));
            out.add(runner.readReply());
            out.add(other.call("GET", "w"));
            out.add(other.call("CONFIG", "GET", "busy-reply-threshold"));
        }
        return out;
    }

    @Test
    void busySession_matchesRedis() throws Exception {
        try (RealRedis redis = RealRedis.start()) {
            Server tide = TestServers.start(2);
            try {
                List<String> expected = session(redis.port());
                List<String> actual = session(tide.port());
                assertThat(actual).isEqualTo(expected);
                assertThat(expected.get(3)).startsWith("-BUSY ");
            } finally {
                tide.close();
            }
        }
    }

    @Test
    void shutdownNosave_whileBusy_stopsServer() throws Exception {
        for (int shards : new int[] {1, 4}) {
            Server tide = TestServers.start(shards);
            try (RawClient runner = new RawClient(tide.port()); RawClient other = new RawClient(tide.port())) {
                assertThat(other.call("CONFIG", "SET", "busy-reply-threshold", "100")).isEqualTo("+OK\r\n");
                BusyScriptTest.startBusy(runner, other, "redis.call('set', 'x', '1') " + LOOP);
                assertThat(other.call("SCRIPT", "KILL")).startsWith("-UNKILLABLE ");
                other.sendCommand("SHUTDOWN", "NOSAVE");
                tide.awaitTermination();
                assertThat(tide.isClosed()).isTrue();
                assertThatThrownBy(() -> new RawClient(tide.port()).call("PING")).isInstanceOf(IOException.class);
            } finally {
                tide.close();
            }
        }
    }

    private static final String LIB = "#!lua name=busylib\nredis.register_function('spin', function(keys, args)"
            + " local i = 0 while true do i = i + 1 end end)\nredis.register_function('noop', function() return 1 end)";

    /** Sends {@code argv} on {@code runner} without reading its reply, then waits until {@code probe} gets -BUSY. */
    private static void startBusy(RawClient runner, RawClient probe, String... argv) throws Exception {
        runner.sendCommand(argv);
        long deadline = System.currentTimeMillis() + 10_000;
        while (!probe.call("PING").startsWith("-BUSY ")) {
            if (System.currentTimeMillis() > deadline) throw new AssertionError("never busy: " + runner.readReply());
            Thread.sleep(20);
        }
    }

    /** FUNCTION STATS with its running time replaced by N, after checking it is at least the busy threshold. */
    private static String stats(RawClient c) throws IOException {
        String r = c.call("FUNCTION", "STATS");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("duration_ms\r\n:(\\d+)\r\n").matcher(r);
        if (!m.find()) return r;
        assertThat(Long.parseLong(m.group(1))).isGreaterThanOrEqualTo(100);
        return r.replace(m.group(), "duration_ms\r\n:N\r\n");
    }

    /** FUNCTION STATS and FUNCTION KILL / SCRIPT KILL across the two kinds of busy script, in RESP2 and RESP3. */
    private static List<String> functionSession(int port, int proto) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient runner = new RawClient(port); RawClient other = new RawClient(port)) {
            if (proto == 3) other.call("HELLO", "3");
            out.add(other.call("CONFIG", "SET", "lua-time-limit", "100"));
            out.add(other.call("FUNCTION", "FLUSH"));
            out.add(stats(other));
            out.add(other.call("FUNCTION", "KILL"));
            out.add(other.call("FUNCTION", "LOAD", LIB));
            out.add(stats(other));
            startBusy(runner, other, "FCALL", "spin", "1", "somekey", "arg1", "arg2");
            out.add(stats(other));
            out.add(other.call("SCRIPT", "KILL"));
            out.add(other.call("FCALL", "noop", "0"));
            out.add(other.call("FUNCTION", "KILL"));
            out.add(runner.readReply());
            out.add(stats(other));
            out.add(other.call("FUNCTION", "KILL"));
            startBusy(runner, other, "EVAL", LOOP, "0");
            out.add(stats(other));
            out.add(other.call("FUNCTION", "KILL"));
            out.add(other.call("SCRIPT", "KILL"));
            out.add(runner.readReply());
            out.add(other.call("SCRIPT", "KILL"));
            out.add(other.call("FUNCTION", "DELETE", "busylib"));
            out.add(stats(other));
        }
        return out;
    }

    @Test
    void busyFunctionSession_statsAndKill_matchRedis() throws Exception {
        try (RealRedis redis = RealRedis.start()) {
            Server tide = TestServers.start(2);
            try {
                for (int proto : new int[] {2, 3}) {
                    List<String> expected = functionSession(redis.port(), proto);
                    List<String> actual = functionSession(tide.port(), proto);
                    assertThat(actual).isEqualTo(expected);
                    assertThat(expected.get(6)).contains("spin").contains("somekey");
                }
            } finally {
                tide.close();
            }
        }
    }
}
