package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.testing.TestServers;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.SafeEncoder;

/**
 * DUMP in Tide restored into redis-server 7.0.15 and DUMP in Redis restored into Tide, for every type in each of
 * its encodings, with contents compared through ordinary commands; RESTORE's options and errors as Redis has them.
 */
class DumpCommandsVsRedisTest extends VsRedis {

    private Jedis jr;
    private Jedis jt;

    DumpCommandsVsRedisTest() {
        super("dump");
    }

    @BeforeEach
    void open() {
        jr = new Jedis("127.0.0.1", redis().port());
        jt = TestServers.jedis(tide().port(), 2);
    }

    @AfterEach
    void close() {
        jr.close();
        jt.close();
    }

    private static List<String[]> cmds(String... lines) {
        List<String[]> out = new ArrayList<>();
        for (String l : lines) out.add(l.split(" "));
        return out;
    }

    private static String[] many(String cmd, int n, String prefix, boolean pairs) {
        List<String> a = new ArrayList<>(List.of(cmd.split(" ")));
        for (int i = 0; i < n; i++) {
            if (pairs) a.add(cmd.startsWith("ZADD") ? Double.toString(i * 1.25 - 40) : prefix + "f" + i);
            a.add(prefix + i);
        }
        return a.toArray(new String[0]);
    }

    static Stream<Arguments> cases() {
        String big = "v".repeat(120);
        return Stream.of(
                Arguments.of("string", cmds("SET K hello")),
                Arguments.of("int", cmds("SET K -98765")),
                Arguments.of("bigint", cmds("SET K 12345678901234")),
                Arguments.of("lzf string", cmds("SET K " + "abcdefgh".repeat(200))),
                Arguments.of("small list", cmds("RPUSH K a b 1 2 -300 70000")),
                Arguments.of("big list", List.<String[]>of(many("RPUSH K", 400, big, false))),
                Arguments.of("small hash", cmds("HSET K f v n 12 long " + "w".repeat(30))),
                Arguments.of("big hash", List.<String[]>of(many("HSET K", 600, "h", true))),
                Arguments.of("long value hash", cmds("HSET K f " + big)),
                Arguments.of("small intset", cmds("SADD K 1 -5 100000 5000000000")),
                Arguments.of("big intset", List.<String[]>of(many("SADD K", 600, "", false))),
                Arguments.of("small string set", cmds("SADD K a b c 1")),
                Arguments.of("big string set", List.<String[]>of(many("SADD K", 300, "s", false))),
                Arguments.of("small zset", cmds("ZADD K 1 a 2.5 b -inf c inf d 0 e")),
                Arguments.of("big zset", List.<String[]>of(many("ZADD K", 300, "z", true))),
                Arguments.of("stream", cmds("XADD K 1-1 a 1 b 2", "XADD K 1-2 a 3 b 4", "XADD K 2-0 c 5",
                        "XADD K 3-0 a 1 b 2", "XDEL K 1-2", "XGROUP CREATE K g 0", "XGROUP CREATE K h $",
                        "XREADGROUP GROUP g alice COUNT 2 STREAMS K >", "XREADGROUP GROUP g bob COUNT 1 STREAMS K >",
                        "XGROUP CREATECONSUMER K g carol")),
                Arguments.of("empty stream", cmds("XADD K 5-5 f v", "XDEL K 5-5", "XGROUP CREATE K g 0")));
    }

    private void run(Jedis j, List<String[]> setup, String key) {
        for (String[] c : setup) {
            String[] a = c.clone();
            for (int i = 0; i < a.length; i++) if (a[i].equals("K")) a[i] = key;
            j.sendCommand(Protocol.Command.valueOf(a[0]), java.util.Arrays.copyOfRange(a, 1, a.length));
        }
    }

    private static String fmt(Object o) {
        if (o == null) return "nil";
        if (o instanceof byte[] b) return SafeEncoder.encode(b);
        if (o instanceof List<?> l) {
            List<String> s = new ArrayList<>();
            for (Object x : l) s.add(fmt(x));
            return s.toString();
        }
        return o.toString();
    }

    private static String call(Jedis j, String cmd, String... args) {
        return fmt(j.sendCommand(Protocol.Command.valueOf(cmd), args));
    }

    /** The contents of {@code key} through ordinary commands (order-independent where the type is). */
    private static String contents(Jedis j, String key) {
        String type = call(j, "TYPE", key);
        return type + ":" + switch (type) {
            case "string" -> call(j, "GET", key);
            case "list" -> call(j, "LRANGE", key, "0", "-1");
            case "hash" -> sorted(j.sendCommand(Protocol.Command.HGETALL, key), 2);
            case "set" -> sorted(j.sendCommand(Protocol.Command.SMEMBERS, key), 1);
            case "zset" -> call(j, "ZRANGE", key, "0", "-1", "WITHSCORES");
            case "stream" -> {
                StringBuilder sb = new StringBuilder(call(j, "XRANGE", key, "-", "+"));
                sb.append(call(j, "XLEN", key));
                sb.append(call(j, "XINFO", "GROUPS", key));
                for (String g : List.of("g", "h")) {
                    try {
                        sb.append(call(j, "XPENDING", key, g));
                        Object ext = j.sendCommand(Protocol.Command.XPENDING, key, g, "-", "+", "100");
                        for (Object e : (List<?>) ext) {
                            List<?> l = (List<?>) e;
                            sb.append(fmt(l.get(0))).append(fmt(l.get(1))).append(fmt(l.get(3)));
                        }
                        for (Object c : (List<?>) j.sendCommand(Protocol.Command.XINFO, "CONSUMERS", key, g)) {
                            List<?> l = (List<?>) c;
                            sb.append(fmt(l.get(1))).append(fmt(l.get(3)));
                        }
                    } catch (RuntimeException e) {
                        sb.append(e.getMessage().replace(key, "KEY"));
                    }
                }
                yield sb.toString();
            }
            default -> "?";
        };
    }

    private static String sorted(Object reply, int group) {
        List<?> l = (List<?>) reply;
        List<String> items = new ArrayList<>();
        for (int i = 0; i < l.size(); i += group) {
            StringBuilder sb = new StringBuilder();
            for (int k = 0; k < group; k++) sb.append(fmt(l.get(i + k))).append('=');
            items.add(sb.toString());
        }
        items.sort(null);
        return items.toString();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void dump_movesEveryTypeBothWays(String name, List<String[]> setup) {
        String key = k("src");
        run(jr, setup, key);
        run(jt, setup, key);
        String expected = contents(jr, key);
        assertThat(contents(jt, key)).isEqualTo(expected);

        byte[] fromRedis = jr.dump(key);
        assertThat(jt.restore(SafeEncoder.encode(k("fromRedis")), 0, fromRedis)).isEqualTo("OK");
        assertThat(contents(jt, k("fromRedis"))).isEqualTo(expected);

        byte[] fromTide = jt.dump(key);
        assertThat(jr.restore(SafeEncoder.encode(k("fromTide")), 100_000, fromTide)).isEqualTo("OK");
        assertThat(contents(jr, k("fromTide"))).isEqualTo(expected);
        assertThat(jr.pttl(k("fromTide"))).isBetween(1L, 100_000L);
        // Back again: Tide reads what Redis made of Tide's payload.
        assertThat(jt.restore(SafeEncoder.encode(k("roundTrip")), 0, jr.dump(k("fromTide")))).isEqualTo("OK");
        assertThat(contents(jt, k("roundTrip"))).isEqualTo(expected);
        assertThat(call(jt, "OBJECT", "ENCODING", k("roundTrip"))).isEqualTo(call(jt, "OBJECT", "ENCODING", key));
    }

    private String error(Jedis j, String... args) {
        try {
            return "OK:" + fmt(j.sendCommand(Protocol.Command.RESTORE, toBytes(args)));
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }

    private static byte[][] toBytes(String[] a) {
        byte[][] out = new byte[a.length][];
        for (int i = 0; i < a.length; i++) out[i] = a[i].getBytes(StandardCharsets.ISO_8859_1);
        return out;
    }

    @Test
    void restore_optionsAndErrors_matchRedis() {
        jr.set(k("v"), "value");
        String payload = new String(jr.dump(k("v")), StandardCharsets.ISO_8859_1);
        for (Jedis j : List.of(jr, jt)) j.set(k("busy"), "x");
        String[][] cases = {
            {k("busy"), "0", payload},
            {k("n1"), "-1", payload},
            {k("n1"), "abc", payload},
            {k("n1"), "0", "garbage"},
            {k("n1"), "0", payload, "IDLETIME", "-1"},
            {k("n1"), "0", payload, "IDLETIME", "x"},
            {k("n1"), "0", payload, "FREQ", "256"},
            {k("n1"), "0", payload, "FREQ", "-1"},
            {k("n1"), "0", payload, "FREQ", "5", "IDLETIME", "5"},
            {k("n1"), "0", payload, "BOGUS"},
            {k("n1"), "0", payload, "IDLETIME"},
            {k("n2"), "0", payload, "REPLACE", "ABSTTL", "IDLETIME", "100"},
            {k("n3"), "0", payload, "FREQ", "10"},
            {k("busy"), "0", payload, "REPLACE"},
            {k("n4"), "1", payload, "ABSTTL"},
        };
        for (String[] c : cases) assertThat(error(jt, c)).as(String.join(" ", c).replace(payload, "<payload>")).isEqualTo(error(jr, c));
        for (Jedis j : List.of(jr, jt)) {
            assertThat(j.get(k("busy"))).isEqualTo("value");
            assertThat(j.exists(k("n4"))).isFalse();
            assertThat(j.objectIdletime(k("n2"))).isBetween(99L, 102L);
        }
        // A bad payload body with a valid footer.
        byte[] bad = jr.dump(k("v"));
        bad[1] = (byte) 0xC5;
        byte[] fixed = refooter(bad);
        assertThatThrownBy(() -> jt.restore(k("bad"), 0, fixed)).hasMessage("ERR Bad data format");
        assertThatThrownBy(() -> jr.restore(k("bad"), 0, fixed)).hasMessage("ERR Bad data format");
        assertThat(jt.dump(k("missing"))).isNull();
    }

    private static byte[] refooter(byte[] p) {
        byte[] q = p.clone();
        long crc = io.tide.persistence.rdb.Crc64.of(q, 0, q.length - 8);
        for (int i = 0; i < 8; i++) q[q.length - 8 + i] = (byte) (crc >>> (8 * i));
        return q;
    }

    @Test
    void restore_pastTtlDeletesKey_andTtlIsKept() throws IOException {
        jt.set(k("a"), "1");
        byte[] p = jt.dump(k("a"));
        assertThat(jt.restore(k("a"), 0, p, redis.clients.jedis.params.RestoreParams.restoreParams().replace().absTtl()))
                .isEqualTo("OK");
        assertThat(jt.restore(k("b"), 1, p, redis.clients.jedis.params.RestoreParams.restoreParams().absTtl())).isEqualTo("OK");
        assertThat(jt.exists(k("b"))).isFalse();
        assertThat(jt.restore(k("a"), 1000, p, redis.clients.jedis.params.RestoreParams.restoreParams().replace().absTtl()))
                .isEqualTo("OK");
        assertThat(jt.exists(k("a"))).isFalse();
        assertThat(jt.restore(k("c"), 50_000, p)).isEqualTo("OK");
        assertThat(jt.pttl(k("c"))).isBetween(49_000L, 50_000L);
    }
}
