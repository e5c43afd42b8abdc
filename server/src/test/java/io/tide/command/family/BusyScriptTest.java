package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.tide.command.Errors;
import io.tide.testing.RawClient;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * Scripts that run past {@code busy-reply-threshold}: other clients get -BUSY (raw, Jedis, Lettuce), SCRIPT KILL
 * stops a script that has not written, UNKILLABLE once it has, NOTBUSY when none runs, the allowed commands
 * still run, data is intact and the server serves normally afterwards; on one and four shards.
 */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 4})
class BusyScriptTest extends ServerPerShardCount {

    static final String LOOP = "local i = 0 while true do i = i + 1 end";
    static final String BUSY = "-" + Errors.BUSY_EVAL + "\r\n";

    private RawClient runner;
    private RawClient other;

    @BeforeEach
    void connect() throws IOException {
        runner = new RawClient(server.port());
        other = new RawClient(server.port());
        assertThat(other.call("CONFIG", "SET", "busy-reply-threshold", "100")).isEqualTo("+OK\r\n");
    }

    @AfterEach
    void disconnect() throws IOException {
        other.call("SCRIPT", "KILL"); // a failed test must not leave its script running for the next ones
        runner.close();
        other.close();
    }

    /** Sends the script (with {@code keys}) on {@code runner} without reading its reply, then waits until another client sees -BUSY. */
    static void startBusy(RawClient runner, RawClient probe, String script, String... keys) throws Exception {
        String[] argv = new String[keys.length + 3];
        argv[0] = "EVAL";
        argv[1] = script;
        argv[2] = Integer.toString(keys.length);
        System.arraycopy(keys, 0, argv, 3, keys.length);
        runner.sendCommand(argv);
        long deadline = System.currentTimeMillis() + 10_000;
        while (true) {
            String r = probe.call("PING");
            if (r.equals(BUSY)) return;
            assertThat(r).isEqualTo("+PONG\r\n");
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("script never became busy; its reply: " + runner.readReply());
            }
            Thread.sleep(20);
        }
    }

    @Test
    void loopingScript_pastThreshold_othersGetBusyAndScriptKillEndsIt() throws Exception {
        assertThat(other.call("SET", "busy:keep", "v1")).isEqualTo("+OK\r\n");
        assertThat(other.call("RPUSH", "busy:list", "a", "b")).isEqualTo(":2\r\n");
        startBusy(runner, other, LOOP);
        assertThat(other.call("GET", "busy:keep")).isEqualTo(BUSY);
        assertThat(other.call("SET", "busy:keep", "v2")).isEqualTo(BUSY);
        assertThat(other.call("CONFIG", "GET", "busy-reply-threshold")).isEqualTo(BUSY);
        assertThat(other.call("EVAL", "return 1", "0")).isEqualTo(BUSY);
        assertThat(other.call("SHUTDOWN")).isEqualTo(BUSY);
        assertThat(other.call("FUNCTION", "KILL")).startsWith("-");
        try (RawClient third = new RawClient(server.port())) {
            assertThat(third.call("MGET", "busy:keep", "busy:list")).isEqualTo(BUSY);
            assertThat(third.call("SCRIPT", "KILL")).isEqualTo("+OK\r\n");
        }
        assertThat(runner.readReply()).matches(
                "-ERR Script killed by user with SCRIPT KILL\\.\\.\\. script: [0-9a-f]{40}, on @user_script:1\\.\r\n");
        assertThat(other.call("GET", "busy:keep")).isEqualTo("$2\r\nv1\r\n");
        assertThat(other.call("LRANGE", "busy:list", "0", "-1")).isEqualTo("*2\r\n$1\r\na\r\n$1\r\nb\r\n");
        assertThat(runner.call("EVAL", "return redis.call('incr', KEYS[1])", "1", "busy:n")).isEqualTo(":1\r\n");
        assertThat(other.call("SCRIPT", "KILL")).isEqualTo("-" + Errors.NOTBUSY + "\r\n");
    }

    @Test
    void scriptKill_whenNoScriptRuns_repliesNotBusy() throws Exception {
        assertThat(other.call("SCRIPT", "KILL")).isEqualTo("-NOTBUSY No scripts in execution right now.\r\n");
    }

    @Test
    void scriptKill_afterScriptWrote_repliesUnkillable_andScriptFinishes() throws Exception {
        String script = "redis.call('set', KEYS[1], 'w') local t0 = redis.call('time')"
                + " local start = t0[1] * 1000000 + t0[2]"
                + " while true do local t = redis.call('time')"
                + " if t[1] * 1000000 + t[2] - start > 700000 then break end end"
                + " return redis.call('get', KEYS[1])";
        startBusy(runner, other, script, "busy:w");
        assertThat(other.call("SCRIPT", "KILL")).isEqualTo("-" + Errors.UNKILLABLE + "\r\n");
        assertThat(runner.readReply()).isEqualTo("$1\r\nw\r\n");
        assertThat(other.call("GET", "busy:w")).isEqualTo("$1\r\nw\r\n");
    }

    @Test
    void busy_jedisAndLettuce_getBusyText() throws Exception {
        // Connected before: like Redis, the clients' handshakes (CLIENT SETINFO) get -BUSY too.
        Jedis j2 = TestServers.jedis(server.port(), 2);
        Jedis j3 = TestServers.jedis(server.port(), 3);
        RedisClient client = TestServers.lettuce(server.port(), 2);
        StatefulRedisConnection<String, String> l2 = TestServers.connect(client);
        RedisClient client3 = TestServers.lettuce(server.port(), 3);
        StatefulRedisConnection<String, String> l3 = TestServers.connect(client3);
        try {
            assertThat(j2.ping()).isEqualTo("PONG");
            assertThat(j3.ping()).isEqualTo("PONG");
            startBusy(runner, other, LOOP);
            assertThatThrownBy(() -> j2.get("busy:x")).hasMessage(Errors.BUSY_EVAL);
            assertThatThrownBy(() -> j3.get("busy:x")).hasMessage(Errors.BUSY_EVAL);
            l2.setTimeout(Duration.ofSeconds(5));
            l3.setTimeout(Duration.ofSeconds(5));
            assertThatThrownBy(() -> l2.sync().get("busy:x")).hasMessage(Errors.BUSY_EVAL);
            assertThatThrownBy(() -> l3.sync().set("busy:x", "1")).hasMessage(Errors.BUSY_EVAL);
            assertThat(j2.scriptKill()).isEqualTo("OK");
            assertThat(runner.readReply()).startsWith("-ERR Script killed by user with SCRIPT KILL...");
            assertThat(j3.set("busy:x", "1")).isEqualTo("OK");
            assertThat(l2.sync().get("busy:x")).isEqualTo("1");
            assertThatThrownBy(() -> l3.sync().scriptKill()).hasMessage(Errors.NOTBUSY);
        } finally {
            j2.close();
            j3.close();
            l2.close();
            l3.close();
            client.shutdown();
            client3.shutdown();
        }
    }

    @Test
    void busy_transactionCommandsAllowed_butExecBusy() throws Exception {
        startBusy(runner, other, LOOP);
        assertThat(other.call("MULTI")).isEqualTo("+OK\r\n");
        assertThat(other.call("SET", "busy:t", "1")).isEqualTo(BUSY);
        assertThat(other.call("EXEC")).isEqualTo("-EXECABORT Transaction discarded because of: " + Errors.BUSY_EVAL
                + "\r\n");
        assertThat(other.call("DISCARD")).isEqualTo("-ERR DISCARD without MULTI\r\n");
        assertThat(other.call("MULTI")).isEqualTo("+OK\r\n");
        assertThat(other.call("DISCARD")).isEqualTo("+OK\r\n");
        assertThat(other.call("UNWATCH")).isEqualTo("+OK\r\n");
        assertThat(other.call("SCRIPT", "KILL")).isEqualTo("+OK\r\n");
        assertThat(runner.readReply()).startsWith("-ERR Script killed");
        assertThat(other.call("SET", "busy:t", "1")).isEqualTo("+OK\r\n");
    }

    @Test
    void pcall_cannotCatchKill() throws Exception {
        String script = "while true do pcall(function() local i = 0 while true do i = i + 1 end end) end";
        startBusy(runner, other, script);
        assertThat(other.call("SCRIPT", "KILL")).isEqualTo("+OK\r\n");
        assertThat(runner.readReply()).startsWith("-ERR Script killed by user with SCRIPT KILL...");
        assertThat(other.call("PING")).isEqualTo("+PONG\r\n");
    }

    @Test
    void keyWithTtl_notExpiredByCronWhileBusy_goneAfterKill() throws Exception {
        assertThat(other.call("SET", "busy:ttl", "v", "PX", "150")).isEqualTo("+OK\r\n");
        assertThat(other.call("SET", "busy:stay", "v")).isEqualTo("+OK\r\n");
        long before = expiredKeys();
        startBusy(runner, other, LOOP);
        Thread.sleep(400); // several cron ticks past the key's expiry
        assertThat(other.call("SCRIPT", "KILL")).isEqualTo("+OK\r\n");
        assertThat(runner.readReply()).startsWith("-ERR Script killed");
        // The key expired while the script held the data; nothing touched it meanwhile, now it is gone.
        assertThat(other.call("PTTL", "busy:ttl")).isEqualTo(":-2\r\n");
        assertThat(other.call("GET", "busy:stay")).isEqualTo("$1\r\nv\r\n");
        assertThat(expiredKeys()).isGreaterThanOrEqualTo(before + 1);
    }

    private long expiredKeys() throws IOException {
        String info = other.call("INFO", "stats");
        for (String line : info.split("\r\n")) {
            if (line.startsWith("expired_keys:")) return Long.parseLong(line.substring(13));
        }
        throw new AssertionError("no expired_keys in INFO");
    }

    @Test
    void watch_whileBusy_waitsUntilScriptEnds() throws Exception {
        startBusy(runner, other, LOOP);
        other.sendCommand("WATCH", "busy:watched");
        try (RawClient third = new RawClient(server.port())) {
            Thread.sleep(100);
            assertThat(third.call("SCRIPT", "KILL")).isEqualTo("+OK\r\n");
        }
        assertThat(other.readReply()).isEqualTo("+OK\r\n");
        assertThat(runner.readReply()).startsWith("-ERR Script killed");
        assertThat(other.call("MULTI")).isEqualTo("+OK\r\n");
        assertThat(other.call("SET", "busy:watched", "1")).isEqualTo("+QUEUED\r\n");
        assertThat(other.call("EXEC")).isEqualTo("*1\r\n+OK\r\n");
    }

    @Test
    void busyFunction_functionKillEndsIt_scriptKillRefused() throws Exception {
        String lib = "#!lua name=busylib" + shards + "\nredis.register_function('spin', function(keys, args)"
                + " local i = 0 while true do i = i + 1 end end)";
        assertThat(other.call("FUNCTION", "LOAD", "REPLACE", lib)).isEqualTo("$8\r\nbusylib" + shards + "\r\n");
        runner.sendCommand("FCALL", "spin", "0");
        String busyFunction = "-" + Errors.BUSY_FUNCTION + "\r\n";
        long deadline = System.currentTimeMillis() + 10_000;
        while (!other.call("PING").equals(busyFunction)) {
            if (System.currentTimeMillis() > deadline) throw new AssertionError("function never became busy");
            Thread.sleep(20);
        }
        assertThat(other.call("GET", "busy:f")).isEqualTo(busyFunction);
        assertThat(other.call("SCRIPT", "KILL")).isEqualTo(busyFunction);
        assertThat(other.call("FUNCTION", "KILL")).isEqualTo("+OK\r\n");
        assertThat(runner.readReply()).startsWith("-ERR Script killed by user with SCRIPT KILL...");
        assertThat(other.call("FUNCTION", "KILL")).isEqualTo("-" + Errors.NOTBUSY + "\r\n");
        assertThat(other.call("FUNCTION", "DELETE", "busylib" + shards)).isEqualTo("+OK\r\n");
    }
}
