package io.tide.command.family;

import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sends the same raw commands to a real redis-server and to Tide (two shards, so multi-key commands run
 * coordinated) and asserts byte-identical replies, in RESP2 and in RESP3.
 */
class StringCommandsVsRedisTest extends VsRedis {

    StringCommandsVsRedisTest() {
        super("t");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void incrbyfloat_formatting(int proto) throws IOException {
        protocol(proto);
        String[][] cases = {
            {"10.5", "0.1"}, {"5.0e3", "0"}, {"3.0", "0"}, {"1.5e1", "0"}, {"0", "-3.0"}, {"-5", "2.5"},
            {"1", "-1"}, {"0.1", "0.2"}, {"1e300", "1e300"}, {"-1e-10", "0"}, {"17179869184", "1.5"},
            {"9223372036854775807", "1"}, {"-9223372036854775808", "-0.5"}, {"0.000003814697265625", "0"},
            {"1.7976931348623157e308", "1e308"}, {"1e4932", "0"}, {"1e-4940", "0"}, {"123456789.123456789", "0"},
            {"0x1p-3", "0"}, {"0X10", "0x.8"}, {".5", "5."}, {"+1", "-0"}, {"-0", "0"}, {"2", "1e-17"},
            {"2", "5e-18"}, {"2", "4e-18"}, {"3.14159265358979323846264338327950288", "0"}, {"1e20", "1"},
            {"1E2", "1e+2"}, {"100", "-99.99"}, {"INF", "0"}, {"1", "-inf"}, {"-infinity", "1"},
            {"1", "1e5000"}, {"1", "1e-5000"}, {"1", " 1"}, {"1", "1 "}, {"1", "nan"}, {"1", "1e"}, {"1", "0x"},
            {"1", "abc"}, {"1", ""}, {"1", "1.2.3"}, {"1", "--1"}, {"1", "0x1p"}, {"1", "infinit"},
            {"1", "1e4932"}, {"1e4932", "1e4932"}, {"-1e4932", "-1e4932"}, {" 1", "1"}, {"1,5", "1"},
        };
        int n = 0;
        for (String[] c : cases) {
            String key = k("f" + n++);
            same("SET", key, c[0]);
            same("INCRBYFLOAT", key, c[1]);
            same("GET", key);
        }
        // Growth: repeated additions of large and small values, on one key.
        for (int i = 0; i < 12; i++) same("INCRBYFLOAT", k("grow"), "1e300");
        for (int i = 0; i < 12; i++) same("INCRBYFLOAT", k("grow"), "-7.5e299");
        for (int i = 0; i < 30; i++) same("INCRBYFLOAT", k("tenth"), "0.1");
        for (int i = 0; i < 30; i++) same("INCRBYFLOAT", k("neg"), "-0.3");
        for (int i = 0; i < 20; i++) same("INCRBYFLOAT", k("tiny"), "1.1e-15");
        // Deterministic random values in assorted notations.
        Random rnd = new Random(7);
        for (int i = 0; i < 150; i++) {
            String value = randomNumber(rnd);
            String incr = randomNumber(rnd);
            String key = k("r" + i);
            same("SET", key, value);
            same("INCRBYFLOAT", key, incr);
        }
        same("INCRBYFLOAT", k("arity"));
        same("INCRBYFLOAT", k("a"), "1", "2");
    }

    /**
     * Counters, which Tide keeps in their entries as text (decision 0029): INCR and its kin across text lengths, the
     * shared-integer bound, signs and both ends of the range, with their expiry kept; what GET, STRLEN, OBJECT, DUMP
     * and the string commands then see; and strings that only look like numbers.
     */
    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void counters_acrossLengthsAndEncodings(int proto) throws IOException {
        protocol(proto);
        String c = k("c");
        same("SET", c, "9990", "EX", "1000");
        for (int i = 0; i < 15; i++) {
            same("INCR", c);
            same("GET", c);
            same("OBJECT", "ENCODING", c);
            same("OBJECT", "REFCOUNT", c);
        }
        same("TTL", c);
        same("INCRBY", c, "-20010");
        same("GET", c);
        same("STRLEN", c);
        for (String by : new String[] {"99999999", "-1", "7", "-123456789012", "9223372036854000000"}) {
            same("INCRBY", c, by);
            same("GET", c);
            same("DUMP", c);
        }
        same("INCRBY", c, "9223372036854775807"); // overflow: an error, the value unchanged
        same("GET", c);
        same("SET", c, "-9223372036854775807");
        same("DECR", c);
        same("DECR", c);
        same("GET", c);
        same("DECRBY", c, "-9223372036854775807");
        same("GET", c);
        same("TTL", c);
        // Strings that look like numbers, and numbers turned into strings.
        String[] texts = {"007", "+5", "-0", " 1", "1 ", "12345678901234567890", "-9223372036854775809", "00", "0"};
        for (int i = 0; i < texts.length; i++) {
            String key = k("t" + i);
            same("SET", key, texts[i]);
            same("OBJECT", "ENCODING", key);
            same("INCR", key);
            same("GET", key);
        }
        // Every way a string is stored decides "int" the same way, the lowest integer's text included.
        same("SET", k("min"), "-9223372036854775808");
        same("OBJECT", "ENCODING", k("min"));
        same("MSET", k("m1"), "12345678901", k("m2"), "x12", k("m3"), "-9223372036854775808");
        same("GETSET", k("m2"), "777");
        same("APPEND", k("m4"), "4242");
        for (String key : new String[] {"m1", "m2", "m3", "m4"}) {
            same("OBJECT", "ENCODING", k(key));
            same("GET", k(key));
        }
        String f = k("f");
        same("INCR", f);
        same("INCRBYFLOAT", f, "10");
        same("GET", f);
        same("OBJECT", "ENCODING", f);
        same("INCR", f);
        same("OBJECT", "ENCODING", f);
        same("APPEND", f, "0");
        same("OBJECT", "ENCODING", f);
        same("INCR", f);
        same("OBJECT", "ENCODING", f);
        same("GET", f);
        same("SETRANGE", f, "0", "9");
        same("GETRANGE", f, "0", "-1");
        same("INCR", f);
        same("GETDEL", f);
        same("INCRBY", f, "-5");
        same("GETEX", f, "PX", "100000");
        same("INCR", f);
        same("TTL", f);
    }

    private static String randomNumber(Random rnd) {
        return switch (rnd.nextInt(6)) {
            case 0 -> Long.toString(rnd.nextLong() >> rnd.nextInt(64));
            case 1 -> Double.toString((rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(40) - 20));
            case 2 -> (rnd.nextBoolean() ? "-" : "") + rnd.nextInt(1000) + "." + rnd.nextInt(1_000_000);
            case 3 -> (rnd.nextInt(9) + 1) + "." + rnd.nextInt(100) + "e" + (rnd.nextInt(700) - 350);
            case 4 -> String.format("%.3f", rnd.nextGaussian() * 1000);
            default -> Double.toString(rnd.nextDouble());
        };
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void lcs_options(int proto) throws IOException {
        protocol(proto);
        same("SET", k("a"), "ohmytext");
        same("SET", k("b"), "mynewtext");
        String[][] opts = {
            {}, {"LEN"}, {"IDX"}, {"IDX", "WITHMATCHLEN"}, {"IDX", "MINMATCHLEN", "4"},
            {"IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"}, {"WITHMATCHLEN", "IDX", "MINMATCHLEN", "-3"},
            {"LEN", "MINMATCHLEN", "2"}, {"IDX", "LEN"}, {"FOO"}, {"MINMATCHLEN"}, {"MINMATCHLEN", "x"},
            {"WITHMATCHLEN"}, {"idx", "withmatchlen", "minmatchlen", "0"},
        };
        for (String[] o : opts) {
            same(concat(new String[] {"LCS", k("a"), k("b")}, o));
            same(concat(new String[] {"LCS", k("b"), k("a")}, o));
            same(concat(new String[] {"LCS", k("a"), k("missing")}, o));
        }
        Random rnd = new Random(11);
        for (int i = 0; i < 25; i++) {
            String x = randomText(rnd, rnd.nextInt(30));
            String y = randomText(rnd, rnd.nextInt(30));
            same("SET", k("x" + i), x);
            same("SET", k("y" + i), y);
            same("LCS", k("x" + i), k("y" + i));
            same("LCS", k("x" + i), k("y" + i), "IDX", "WITHMATCHLEN");
            same("LCS", k("x" + i), k("y" + i), "IDX", "MINMATCHLEN", "2");
        }
        same("SET", k("n1"), "12345");
        same("SET", k("n2"), "2340");
        same("LCS", k("n1"), k("n2"), "IDX", "WITHMATCHLEN");
        String big = "a".repeat(12_000);
        same("SET", k("big1"), big);
        same("SET", k("big2"), big);
        same("LCS", k("big1"), k("big2"), "LEN");
        same("LCS", k("a"));
    }

    private static String randomText(Random rnd, int len) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i++) sb.append((char) ('a' + rnd.nextInt(4)));
        return sb.toString();
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = new String[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void setGetexAndRanges(int proto) throws IOException {
        protocol(proto);
        same("SET", k("s"), "v", "GET");
        same("SET", k("s"), "w", "GET");
        same("SET", k("s2"), "v", "NX", "GET");
        same("SET", k("s2"), "x", "NX", "GET");
        same("SET", k("s3"), "v", "XX", "GET");
        same("SET", k("s3"), "v", "XX");
        same("SET", k("s3"), "v", "NX");
        same("SET", k("s2"), "v", "XX", "KEEPTTL", "GET");
        same("SET", k("s2"), "v", "EX", "10", "EX", "20");
        same("SET", k("s2"), "v", "PXAT", "99999999999999");
        same("SETNX", k("s2"), "v");
        same("SETNX", k("s4"), "v");
        same("GETSET", k("s4"), "w");
        same("GETSET", k("s5"), "w");
        same("GETDEL", k("s5"));
        same("GETDEL", k("s5"));
        same("GET", k("s5"));
        same("MGET", k("s"), k("nope"), k("s4"), k("s2"));
        same("MSET", k("m1"), "1", k("m2"), "2", k("m3"), "3");
        same("MSETNX", k("m1"), "1", k("m9"), "9");
        same("MSETNX", k("m8"), "1", k("m9"), "9");
        same("MGET", k("m1"), k("m2"), k("m3"), k("m8"), k("m9"));

        same("GETEX", k("nope"));
        same("GETEX", k("nope"), "EX", "0");
        same("GETEX", k("s"));
        same("GETEX", k("s"), "EX", "100");
        same("GETEX", k("s"), "PX", "100000");
        same("GETEX", k("s"), "EXAT", "99999999999");
        same("GETEX", k("s"), "PXAT", "99999999999999");
        same("GETEX", k("s"), "PERSIST");
        same("GETEX", k("s"), "persist", "persist");
        same("GETEX", k("s"), "EX", "1", "EX", "2");
        same("GETEX", k("s"), "PXAT", "1");
        same("GET", k("s"));
        same("GETEX", k("s4"), "EXAT", "1");
        same("GET", k("s4"));

        same("SETRANGE", k("pad"), "5", "abc");
        same("GET", k("pad"));
        same("SETRANGE", k("pad"), "0", "xy");
        same("SETRANGE", k("pad"), "10", "z");
        same("GET", k("pad"));
        same("SETRANGE", k("pad"), "3", "");
        same("SETRANGE", k("pad2"), "3", "");
        same("GET", k("pad2"));
        same("SETRANGE", k("pad3"), "0", "x");
        same("SET", k("num"), "12345");
        same("SETRANGE", k("num"), "2", "9");
        same("INCR", k("num"));
        same("APPEND", k("num"), "6");
        same("STRLEN", k("num"));
        same("STRLEN", k("nope"));
        same("APPEND", k("ap"), "x");
        same("APPEND", k("ap"), "");
        same("SET", k("neg"), "-42");
        same("STRLEN", k("neg"));
        same("GETRANGE", k("neg"), "0", "1");

        same("SET", k("r"), "0123456789");
        same("SET", k("e"), "");
        for (int start = -13; start <= 13; start++) {
            for (int end = -13; end <= 13; end++) {
                same("GETRANGE", k("r"), Integer.toString(start), Integer.toString(end));
            }
        }
        for (String[] ends : new String[][] {
            {"0", "-1"}, {"-1", "0"}, {"0", "0"}, {"9223372036854775807", "9223372036854775807"},
            {"-9223372036854775808", "9223372036854775807"}, {"-9223372036854775808", "-9223372036854775808"},
            {"5", "-9223372036854775808"},
        }) {
            same("GETRANGE", k("r"), ends[0], ends[1]);
            same("GETRANGE", k("e"), ends[0], ends[1]);
            same("GETRANGE", k("nope"), ends[0], ends[1]);
            same("SUBSTR", k("r"), ends[0], ends[1]);
        }
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void errorTexts(int proto) throws IOException {
        protocol(proto);
        List<String[]> cmds = new ArrayList<>();
        // wrong arity
        for (String c : new String[] {"GET", "SET", "SETNX", "SETEX", "PSETEX", "GETSET", "GETDEL", "GETEX", "MGET",
                "MSET", "MSETNX", "APPEND", "STRLEN", "INCR", "DECR", "INCRBY", "DECRBY", "INCRBYFLOAT", "GETRANGE",
                "SETRANGE", "SUBSTR", "LCS"}) {
            cmds.add(new String[] {c});
        }
        cmds.add(new String[] {"GET", "a", "b"});
        cmds.add(new String[] {"SET", "a"});
        cmds.add(new String[] {"SETEX", "a", "1"});
        cmds.add(new String[] {"GETRANGE", "a", "1"});
        cmds.add(new String[] {"MSET", k("a"), "1", k("b")});
        cmds.add(new String[] {"MSETNX", k("a"), "1", k("b")});
        cmds.add(new String[] {"MSET", k("a")});
        // syntax
        for (String[] o : new String[][] {
            {"NX", "XX"}, {"XX", "NX"}, {"EX", "1", "PX", "1"}, {"PX", "1", "EX", "1"}, {"EX", "1", "KEEPTTL"},
            {"KEEPTTL", "EX", "1"}, {"EXAT", "1", "EX", "1"}, {"PXAT", "1", "EXAT", "1"}, {"EX"}, {"PX"},
            {"PERSIST"}, {"BAD"}, {"EX", "x", "BAD"}, {"GET", "GET", "NX", "XX"},
        }) {
            cmds.add(concat(new String[] {"SET", k("syn"), "v"}, o));
        }
        // invalid expire / not integer
        for (String[] o : new String[][] {
            {"EX", "0"}, {"EX", "-1"}, {"PX", "0"}, {"EXAT", "0"}, {"PXAT", "-1"}, {"EX", "9223372036854776"},
            {"EX", "9223372036854775"}, {"PX", "9223372036854775807"}, {"PX", "9223372036854775000"},
            {"EX", "1.5"}, {"EX", "abc"}, {"PX", "99999999999999999999"}, {"EX", " 1"},
        }) {
            cmds.add(concat(new String[] {"SET", k("exp"), "v"}, o));
        }
        cmds.add(new String[] {"SETEX", k("exp"), "0", "v"});
        cmds.add(new String[] {"SETEX", k("exp"), "-5", "v"});
        cmds.add(new String[] {"SETEX", k("exp"), "x", "v"});
        cmds.add(new String[] {"SETEX", k("exp"), "9223372036854776", "v"});
        cmds.add(new String[] {"PSETEX", k("exp"), "0", "v"});
        cmds.add(new String[] {"PSETEX", k("exp"), "9223372036854775807", "v"});
        cmds.add(new String[] {"SET", k("gx"), "v"});
        for (String[] o : new String[][] {
            {"EX", "0"}, {"PX", "-1"}, {"EXAT", "0"}, {"PXAT", "0"}, {"EX", "9223372036854776"}, {"EX", "x"},
            {"KEEPTTL"}, {"NX"}, {"XX"}, {"GET"}, {"EX", "1", "PERSIST"}, {"PERSIST", "PX", "1"}, {"EX"},
        }) {
            cmds.add(concat(new String[] {"GETEX", k("gx")}, o));
        }
        // counters
        cmds.add(new String[] {"SET", k("str"), "abc"});
        cmds.add(new String[] {"INCR", k("str")});
        cmds.add(new String[] {"DECR", k("str")});
        cmds.add(new String[] {"INCRBY", k("c"), "x"});
        cmds.add(new String[] {"INCRBY", k("c"), "1.0"});
        cmds.add(new String[] {"INCRBY", k("c"), "99999999999999999999"});
        cmds.add(new String[] {"DECRBY", k("c"), "-9223372036854775808"});
        cmds.add(new String[] {"DECRBY", k("c"), "9223372036854775807"});
        cmds.add(new String[] {"DECRBY", k("c"), "2"});
        cmds.add(new String[] {"INCRBY", k("c"), "-9223372036854775807"});
        cmds.add(new String[] {"SET", k("max"), "9223372036854775807"});
        cmds.add(new String[] {"INCR", k("max")});
        cmds.add(new String[] {"INCRBY", k("max"), "-1"});
        cmds.add(new String[] {"SET", k("min"), "-9223372036854775808"});
        cmds.add(new String[] {"DECR", k("min")});
        cmds.add(new String[] {"INCRBY", k("min"), "9223372036854775807"});
        cmds.add(new String[] {"INCRBYFLOAT", k("str"), "1"});
        cmds.add(new String[] {"INCRBYFLOAT", k("c"), "x"});
        cmds.add(new String[] {"INCRBYFLOAT", k("c"), "inf"});
        // ranges
        cmds.add(new String[] {"SETRANGE", k("sr"), "-1", "x"});
        cmds.add(new String[] {"SETRANGE", k("sr"), "x", "x"});
        cmds.add(new String[] {"SETRANGE", k("sr"), "536870912", "x"});
        cmds.add(new String[] {"SETRANGE", k("sr"), "536870912", ""});
        cmds.add(new String[] {"SET", k("sr"), "abc"});
        cmds.add(new String[] {"SETRANGE", k("sr"), "536870910", "xyz"});
        cmds.add(new String[] {"SETRANGE", k("sr"), "536870912", ""});
        cmds.add(new String[] {"GETRANGE", k("sr"), "a", "1"});
        cmds.add(new String[] {"GETRANGE", k("sr"), "1", "b"});
        cmds.add(new String[] {"GETRANGE", k("sr"), "99999999999999999999", "1"});
        cmds.add(new String[] {"SUBSTR", k("sr"), "x", "1"});
        for (String[] c : cmds) same(c);
    }
}
