package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.TestServers;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.resps.CommandInfo;

/**
 * Sends the same raw list commands to a real redis-server and to Tide (two shards, so LMOVE, RPOPLPUSH and
 * LMPOP across keys run coordinated) and asserts byte-identical replies, in RESP2 and in RESP3. OBJECT ENCODING
 * is left out: redis-server 7.0 always answers "quicklist" for lists, where 7.2+ (and Tide) has listpacks; so
 * are the RANK and LREM count of -2^63, which 7.2 turned into a range error (ListCommandsTest checks them).
 */
class ListCommandsVsRedisTest extends VsRedis {

    ListCommandsVsRedisTest() {
        super("l");
    }

    private static String repeat(char c, int n) {
        return String.valueOf(c).repeat(n);
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void pushAndPop_replyShapesAndErrors(int proto) throws IOException {
        protocol(proto);
        String l = k("l");
        same("LPUSH", l, "a", "b", "c");
        same("RPUSH", l, "1", "-2", "", "x y");
        same("LPUSHX", k("none"), "a");
        same("RPUSHX", k("none"), "a", "b");
        same("LPUSHX", l, "h1", "h2");
        same("RPUSHX", l, "t1");
        same("LRANGE", l, "0", "-1");
        same("LPOP", l);
        same("RPOP", l);
        same("LPOP", l, "2");
        same("RPOP", l, "3");
        same("LPOP", l, "0");
        same("LPOP", l, "-1");
        same("LPOP", l, "x");
        same("LPOP", l, "1", "2");
        same("RPOP", l, "100");
        same("EXISTS", l);
        same("LPOP", k("none"));
        same("RPOP", k("none"));
        same("LPOP", k("none"), "0");
        same("RPOP", k("none"), "2");
        same("LPOP", k("none"), "-1");
        same("LPUSH", l);
        same("LPOP");
        String s = k("s");
        same("SET", s, "v");
        for (String cmd : new String[] {"LPUSH", "RPUSH", "LPUSHX", "RPUSHX"}) same(cmd, s, "a");
        same("LPOP", s);
        same("RPOP", s, "1");
        same("LLEN", s);
        same("LRANGE", s, "0", "-1");
        same("LINDEX", s, "0");
        same("LINDEX", s, "x");
        same("LSET", s, "0", "v");
        same("LSET", s, "x", "v");
        same("LINSERT", s, "before", "a", "b");
        same("LINSERT", s, "sideways", "a", "b");
        same("LREM", s, "0", "a");
        same("LTRIM", s, "0", "1");
        same("LPOS", s, "a");
        same("LPOS", s, "a", "RANK", "0");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void ranges_indexes_andLengths(int proto) throws IOException {
        protocol(proto);
        String l = k("l");
        List<String> args = new ArrayList<>(List.of("RPUSH", l));
        for (int i = 0; i < 12; i++) args.add(i % 3 == 0 ? Integer.toString(i * 1000) : "v" + i);
        same(args.toArray(new String[0]));
        String[] points = {"0", "1", "5", "11", "12", "13", "100", "-1", "-2", "-12", "-13", "-100",
            "9223372036854775807", "-9223372036854775808"};
        for (String a : points) {
            same("LINDEX", l, a);
            for (String b : points) same("LRANGE", l, a, b);
        }
        same("LRANGE", l, "x", "1");
        same("LRANGE", l, "0", "1.5");
        same("LRANGE", k("none"), "x", "1");
        same("LRANGE", k("none"), "0", "-1");
        same("LINDEX", l, "x");
        same("LINDEX", k("none"), "x");
        same("LINDEX", k("none"), "0");
        same("LLEN", l);
        same("LLEN", k("none"));
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void lsetLinsertLremLtrim(int proto) throws IOException {
        protocol(proto);
        String l = k("l");
        same("RPUSH", l, "a", "b", "a", "c", "a", "10", "b");
        same("LSET", l, "0", "A");
        same("LSET", l, "-1", "B");
        same("LSET", l, "7", "x");
        same("LSET", l, "-8", "x");
        same("LSET", l, "1", repeat('z', 9000));
        same("LSET", l, "1", "b");
        same("LSET", k("none"), "0", "x");
        same("LSET", k("none"), "x", "x");
        same("LSET", l, "x", "x");
        same("LINSERT", l, "BEFORE", "a", "pre");
        same("LINSERT", l, "after", "a", "post");
        same("LINSERT", l, "after", "10", "ten");
        same("LINSERT", l, "after", "missing", "x");
        same("LINSERT", l, "middle", "a", "x");
        same("LINSERT", k("none"), "before", "a", "x");
        same("LINSERT", k("none"), "middle", "a", "x");
        same("LRANGE", l, "0", "-1");
        same("LREM", l, "1", "a");
        same("LREM", l, "-1", "b");
        same("LREM", l, "0", "a");
        same("LREM", l, "0", "nothing");
        same("LREM", l, "x", "a");
        same("LREM", l, "9223372036854775807", "pre");
        same("LREM", k("none"), "1", "a");
        same("LRANGE", l, "0", "-1");
        same("RPUSH", l, "1", "2", "3", "4", "5", "6");
        same("LTRIM", l, "1", "-2");
        same("LRANGE", l, "0", "-1");
        same("LTRIM", l, "-3", "100");
        same("LRANGE", l, "0", "-1");
        same("LTRIM", l, "x", "1");
        same("LTRIM", k("none"), "0", "1");
        same("LTRIM", l, "5", "1");
        same("EXISTS", l);
        same("RPUSH", l, "a", "b");
        same("LREM", l, "0", "a");
        same("LREM", l, "0", "b");
        same("EXISTS", l);
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void lpos_optionsAndErrors(int proto) throws IOException {
        protocol(proto);
        String l = k("l");
        same("RPUSH", l, "a", "b", "c", "1", "2", "3", "c", "c", "1", "a");
        String[][] options = {
            {}, {"RANK", "1"}, {"RANK", "2"}, {"RANK", "-1"}, {"RANK", "-2"}, {"RANK", "5"}, {"COUNT", "0"},
            {"COUNT", "1"}, {"COUNT", "2"}, {"RANK", "2", "COUNT", "0"}, {"RANK", "-1", "COUNT", "2"},
            {"MAXLEN", "3"}, {"MAXLEN", "8", "COUNT", "0"}, {"RANK", "-1", "MAXLEN", "2", "COUNT", "0"},
            {"rank", "1", "count", "1", "maxlen", "0"}, {"RANK", "0"}, {"RANK", "x"}, {"COUNT", "-1"},
            {"COUNT", "x"}, {"MAXLEN", "-1"}, {"MAXLEN", "x"}, {"RANK"}, {"COUNT"}, {"FOO", "1"},
            {"RANK", "9223372036854775807"}, {"RANK", "-9223372036854775807"},
            {"COUNT", "1", "COUNT", "2"}, {"RANK", "0", "COUNT", "-1"},
        };
        for (String e : new String[] {"a", "c", "1", "zzz"}) {
            for (String[] o : options) {
                List<String> args = new ArrayList<>(List.of("LPOS", l, e));
                args.addAll(List.of(o));
                same(args.toArray(new String[0]));
                args.set(1, k("none"));
                same(args.toArray(new String[0]));
            }
        }
        same("LPOS", l);
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void lmoveAndRpoplpush(int proto) throws IOException {
        protocol(proto);
        String a = k("a");
        String b = k("b");
        same("RPUSH", a, "1", "2", "3");
        for (String from : new String[] {"LEFT", "RIGHT", "left"}) {
            for (String to : new String[] {"LEFT", "right"}) {
                same("LMOVE", a, b, from, to);
                same("LRANGE", b, "0", "-1");
            }
        }
        same("LMOVE", a, b, "UP", "LEFT");
        same("LMOVE", a, b, "LEFT", "DOWN");
        same("LMOVE", k("none"), b, "LEFT", "LEFT");
        same("RPOPLPUSH", k("none"), b);
        same("RPOPLPUSH", b, b);
        same("LMOVE", b, b, "LEFT", "RIGHT");
        same("LRANGE", b, "0", "-1");
        same("RPOPLPUSH", b, a);
        same("LRANGE", a, "0", "-1");
        same("SET", k("s"), "x");
        same("LMOVE", b, k("s"), "LEFT", "LEFT");
        same("RPOPLPUSH", k("s"), b);
        same("RPOPLPUSH", k("none"), k("s"));
        same("LRANGE", b, "0", "-1");
        // Moving the last element deletes the source.
        same("RPUSH", k("one"), "x");
        same("LMOVE", k("one"), k("two"), "RIGHT", "LEFT");
        same("EXISTS", k("one"));
        same("LMOVE", k("two"), k("two"), "RIGHT", "LEFT");
        same("LRANGE", k("two"), "0", "-1");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void lmpop_shapesAndErrors(int proto) throws IOException {
        protocol(proto);
        String a = k("a");
        String b = k("b");
        same("RPUSH", b, "1", "2", "3", "4");
        same("LMPOP", "2", a, b, "LEFT");
        same("LMPOP", "2", a, b, "RIGHT", "COUNT", "2");
        same("LMPOP", "2", a, b, "right", "count", "10");
        same("LMPOP", "2", a, b, "LEFT");
        same("LMPOP", "1", a, "LEFT", "COUNT", "2");
        same("LMPOP", "0", a, "LEFT");
        same("LMPOP", "-1", a, "LEFT");
        same("LMPOP", "x", a, "LEFT");
        same("LMPOP", "3", a, "LEFT");
        same("LMPOP", "2", a, "LEFT");
        same("LMPOP", "1", a, "UP");
        same("LMPOP", "1", a, "LEFT", "COUNT");
        same("LMPOP", "1", a, "LEFT", "COUNT", "0");
        same("LMPOP", "1", a, "LEFT", "COUNT", "-1");
        same("LMPOP", "1", a, "LEFT", "COUNT", "x");
        same("LMPOP", "1", a, "LEFT", "COUNT", "1", "COUNT", "1");
        same("LMPOP", "1", a, "LEFT", "FOO");
        same("LMPOP", "1", a);
        same("SET", k("s"), "x");
        same("RPUSH", b, "x");
        same("LMPOP", "2", k("s"), b, "LEFT");
        same("LMPOP", "2", b, k("s"), "LEFT");
        same("LMPOP", "2", a, k("s"), "LEFT");
        same("COMMAND", "GETKEYS", "LMPOP", "2", a, b, "LEFT");
        same("COMMAND", "GETKEYS", "BLMPOP", "0", "2", a, b, "LEFT");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void blockingForms_whenTheyNeedNotWait_andTheirErrors(int proto) throws IOException {
        protocol(proto);
        String a = k("a");
        String b = k("b");
        same("RPUSH", b, "1", "2", "3", "4", "5", "6");
        same("BLPOP", a, b, "0");
        same("BRPOP", a, b, "1.5");
        same("BLMOVE", b, a, "LEFT", "RIGHT", "0");
        same("BRPOPLPUSH", b, a, "0");
        same("BLMPOP", "0", "2", a, b, "LEFT");
        same("BLMPOP", "0", "2", k("none"), b, "RIGHT", "COUNT", "5");
        same("LRANGE", a, "0", "-1");
        for (String timeout : new String[] {"x", "-1", "-0.5", "nan", " 1", "1 "}) {
            same("BLPOP", a, timeout);
            same("BRPOP", a, timeout);
            same("BLMOVE", a, b, "LEFT", "LEFT", timeout);
            same("BRPOPLPUSH", a, b, timeout);
            same("BLMPOP", timeout, "1", a, "LEFT");
        }
        // Argument errors come in Redis's order: positions before the timeout, numkeys before everything.
        same("BLMOVE", a, b, "UP", "LEFT", "x");
        same("BLMPOP", "x", "0", a, "LEFT");
        same("BLMPOP", "x", "1", a, "UP");
        same("BLMPOP", "x", "1", a, "LEFT", "COUNT", "0");
        same("BLMPOP", "0", "2", a, "LEFT");
        same("SET", k("s"), "x");
        same("BLPOP", k("none"), k("s"), "0");
        same("BLMPOP", "0", "2", k("none"), k("s"), "LEFT");
        same("BLMOVE", k("s"), a, "LEFT", "LEFT", "0");
        same("BLMOVE", a, k("s"), "LEFT", "LEFT", "0");
        same("BRPOPLPUSH", a, k("s"), "0");
        // Nothing to pop: both wait out a short timeout and answer with the null reply of each command.
        same("BLPOP", k("none"), "0.01");
        same("BRPOP", k("none"), k("none2"), "0.01");
        same("BLMPOP", "0.01", "1", k("none"), "LEFT");
        same("BLMOVE", k("none"), a, "LEFT", "LEFT", "0.01");
        same("BRPOPLPUSH", k("none"), k("s"), "0.01");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void elementsOfEveryEncoding_roundTrip(int proto) throws IOException {
        protocol(proto);
        String l = k("l");
        String[] values = {"0", "127", "128", "-1", "4095", "-4096", "32767", "-32768", "8388607", "-8388608",
            "2147483647", "-2147483648", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
            "-0", "01", "+1", "1.5", "", repeat('x', 63), repeat('x', 64), repeat('y', 4096), repeat('z', 9000),
            repeat('w', 70000)};
        for (String v : values) {
            same("RPUSH", l, v);
            same("LPUSH", l, v);
        }
        same("LRANGE", l, "0", "-1");
        for (String v : values) {
            same("LPOS", l, v, "COUNT", "0");
            same("LINSERT", l, "AFTER", v, "after-" + v.length());
        }
        same("LREM", l, "0", "0");
        same("LREM", l, "-1", "9223372036854775807");
        same("LLEN", l);
        same("LRANGE", l, "0", "-1");
    }

    /** Random sequences of list commands over a few keys, with small and large elements. */
    @Test
    void randomCommands_matchRedis() throws IOException {
        Random rnd = new Random(42);
        String[] keys = {k("x"), k("y"), k("z")};
        for (int i = 0; i < 3000; i++) {
            String key = keys[rnd.nextInt(keys.length)];
            String other = keys[rnd.nextInt(keys.length)];
            String e = element(rnd);
            String[] cmd = switch (rnd.nextInt(16)) {
                case 0 -> new String[] {"LPUSH", key, e, element(rnd)};
                case 1 -> new String[] {"RPUSH", key, e};
                case 2 -> new String[] {"LPOP", key};
                case 3 -> new String[] {"RPOP", key, Integer.toString(rnd.nextInt(4))};
                case 4 -> new String[] {"LINSERT", key, rnd.nextBoolean() ? "BEFORE" : "AFTER", element(rnd), e};
                case 5 -> new String[] {"LSET", key, Integer.toString(rnd.nextInt(10) - 5), e};
                case 6 -> new String[] {"LREM", key, Integer.toString(rnd.nextInt(5) - 2), e};
                case 7 -> new String[] {"LTRIM", key, Integer.toString(rnd.nextInt(6) - 2),
                    Integer.toString(rnd.nextInt(20) - 3)};
                case 8 -> new String[] {"LMOVE", key, other, rnd.nextBoolean() ? "LEFT" : "RIGHT",
                    rnd.nextBoolean() ? "LEFT" : "RIGHT"};
                case 9 -> new String[] {"RPOPLPUSH", key, other};
                case 10 -> new String[] {"LMPOP", "2", key, other, rnd.nextBoolean() ? "LEFT" : "RIGHT", "COUNT",
                    Integer.toString(1 + rnd.nextInt(3))};
                case 11 -> new String[] {"LPOS", key, e, "RANK", Integer.toString(rnd.nextBoolean() ? 1 : -1),
                    "COUNT", Integer.toString(rnd.nextInt(3))};
                case 12 -> new String[] {"LINDEX", key, Integer.toString(rnd.nextInt(12) - 6)};
                case 13 -> new String[] {"RPUSH", key, e, e, element(rnd), element(rnd)};
                case 14 -> new String[] {"BLPOP", key, other, "0.001"};
                default -> new String[] {"LRANGE", key, "0", "-1"};
            };
            same(cmd);
            if (i % 50 == 0) {
                for (String each : keys) same("LRANGE", each, "0", "-1");
            }
        }
    }

    private static String element(Random rnd) {
        return switch (rnd.nextInt(8)) {
            case 0 -> Integer.toString(rnd.nextInt(2000) - 1000);
            case 1 -> Long.toString(rnd.nextLong());
            case 2 -> repeat('L', 8000 + rnd.nextInt(2000));
            default -> "e" + rnd.nextInt(6);
        };
    }

    @Test
    void commandInfo_matchesRedis() {
        String[] names = {"lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop", "llen", "lrange", "lindex", "lset",
            "linsert", "lrem", "ltrim", "lpos", "lmove", "rpoplpush", "lmpop", "blpop", "brpop", "blmove",
            "brpoplpush", "blmpop"};
        try (Jedis jr = TestServers.jedis(redis().port(), 2); Jedis jt = TestServers.jedis(tide().port(), 2)) {
            var expected = jr.commandInfo(names);
            var actual = jt.commandInfo(names);
            for (String n : names) {
                CommandInfo e = expected.get(n);
                CommandInfo a = actual.get(n);
                assertThat(a).as(n).isNotNull();
                assertThat(a.getArity()).as(n + " arity").isEqualTo(e.getArity());
                // Tide follows 7.0 here: BLPOP, BRPOP, BLMOVE and BRPOPLPUSH are noscript (CommandFlagsVsRedisTest).
                assertThat(a.getFlags()).as(n + " flags").containsExactlyInAnyOrderElementsOf(e.getFlags());
                assertThat(a.getFirstKey()).as(n + " first key").isEqualTo(e.getFirstKey());
                assertThat(a.getLastKey()).as(n + " last key").isEqualTo(e.getLastKey());
                assertThat(a.getStep()).as(n + " step").isEqualTo(e.getStep());
                assertThat(a.getAclCategories()).as(n + " categories")
                        .containsExactlyInAnyOrderElementsOf(e.getAclCategories());
            }
        }
    }
}
