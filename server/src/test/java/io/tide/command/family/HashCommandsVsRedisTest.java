package io.tide.command.family;

import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sends the same raw commands to a real redis-server (7.0) and to Tide (two shards) and asserts byte-identical
 * replies in RESP2 and RESP3: reply shapes, errors, listpack order and encodings. Redis 7.4's field expiry and
 * HSCAN NOVALUES are not in 7.0; {@link HashFieldTtlTest} covers them. Hashtable-encoded hashes iterate in
 * an order of their own, so only order-free replies are compared for them.
 */
class HashCommandsVsRedisTest extends VsRedis {

    HashCommandsVsRedisTest() {
        super("h");
    }

    /** Thresholds back to their defaults for the next test. */
    @AfterEach
    void resetThresholds() throws IOException {
        same("CONFIG", "SET", "hash-max-listpack-value", "64");
        same("CONFIG", "SET", "hash-max-listpack-entries", "512");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void basicCommands_repliesAndOrder(int proto) throws IOException {
        protocol(proto);
        String h = k("h");
        same("HSET", h, "a", "1", "b", "2", "c", "3");
        same("HSET", h, "a", "10", "d", "4");
        same("HMSET", h, "e", "5", "b", "20");
        same("HSETNX", h, "a", "x");
        same("HSETNX", h, "z", "26");
        same("HGET", h, "a");
        same("HGET", h, "nope");
        same("HGET", k("missing"), "a");
        same("HMGET", h, "a", "nope", "z");
        same("HMGET", k("missing"), "a", "b");
        same("HLEN", h);
        same("HLEN", k("missing"));
        same("HSTRLEN", h, "a");
        same("HSTRLEN", h, "nope");
        same("HSTRLEN", k("missing"), "a");
        same("HEXISTS", h, "a");
        same("HEXISTS", h, "nope");
        same("HKEYS", h);
        same("HVALS", h);
        same("HGETALL", h);
        same("HGETALL", k("missing"));
        same("HKEYS", k("missing"));
        same("HVALS", k("missing"));
        same("HDEL", h, "a", "nope", "b", "a");
        same("HGETALL", h);
        same("HDEL", k("missing"), "a");
        same("HDEL", h, "c", "d", "e", "z", "never");
        same("EXISTS", h);
        same("HSET", h, "", "");
        same("HGETALL", h);
        same("HSET", h, "bin\r\n\u0000", "v\u0000");
        same("HGET", h, "bin\r\n\u0000");
        same("OBJECT", "ENCODING", h);
        same("TYPE", h);
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void errors_arityAndWrongType(int proto) throws IOException {
        protocol(proto);
        String s = k("s");
        same("SET", s, "x");
        for (String[] c : new String[][] {
            {"HSET", s, "f", "v"}, {"HSETNX", s, "f", "v"}, {"HGET", s, "f"}, {"HMGET", s, "f"}, {"HMSET", s, "f", "v"},
            {"HDEL", s, "f"}, {"HLEN", s}, {"HSTRLEN", s, "f"}, {"HEXISTS", s, "f"}, {"HKEYS", s}, {"HVALS", s},
            {"HGETALL", s}, {"HINCRBY", s, "f", "1"}, {"HINCRBYFLOAT", s, "f", "1"}, {"HRANDFIELD", s},
            {"HRANDFIELD", s, "2"}, {"HSCAN", s, "0"},
        }) {
            same(c);
        }
        String h = k("h");
        same("HSET", h, "f", "v");
        same("HSET", h);
        same("HSET", h, "f");
        same("HSET", h, "f", "v", "g");
        same("HMSET", h, "f", "v", "g");
        same("HSETNX", h, "f");
        same("HGET", h);
        same("HMGET", h);
        same("HDEL", h);
        same("HLEN", h, "x");
        same("HKEYS");
        same("HINCRBY", h, "f");
        same("HRANDFIELD");
        same("HSCAN", h);
        // Parse errors come before the type check where Redis parses first.
        same("HINCRBY", s, "f", "x");
        same("HINCRBYFLOAT", s, "f", "x");
        same("HRANDFIELD", s, "x");
        same("HRANDFIELD", s, "1", "bad");
        same("HSCAN", s, "x");
        same("HSCAN", s, "0", "COUNT", "0");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void hincrby_valuesAndErrors(int proto) throws IOException {
        protocol(proto);
        String h = k("h");
        same("HINCRBY", h, "n", "5");
        same("HINCRBY", h, "n", "-12");
        same("HINCRBY", h, "n", "9223372036854775807");
        same("HSET", h, "max", "9223372036854775807", "min", "-9223372036854775808", "text", "abc", "sp", " 1",
                "float", "1.5", "plus", "+1", "zero", "007");
        same("HINCRBY", h, "max", "1");
        same("HINCRBY", h, "max", "0");
        same("HINCRBY", h, "min", "-1");
        same("HINCRBY", h, "min", "1");
        for (String f : new String[] {"text", "sp", "float", "plus", "zero"}) same("HINCRBY", h, f, "1");
        for (String bad : new String[] {"", "1.0", "abc", "9223372036854775808", " 1", "0x10"}) {
            same("HINCRBY", h, "n", bad);
        }
        same("HGETALL", h);
        same("OBJECT", "ENCODING", h);
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void hincrbyfloat_formattingAndErrors(int proto) throws IOException {
        protocol(proto);
        String h = k("h");
        String[][] cases = {
            {"10.5", "0.1"}, {"5.0e3", "0"}, {"3.0", "0"}, {"0", "-3.0"}, {"1", "-1"}, {"0.1", "0.2"},
            {"1e300", "1e300"}, {"17179869184", "1.5"}, {"9223372036854775807", "1"}, {"0x1p-3", "0"},
            {".5", "5."}, {"-0", "0"}, {"2", "1e-17"}, {"1E2", "1e+2"}, {"inf", "1"}, {"1", "inf"}, {"1", "-inf"},
            {"1", "nan"}, {"1", "abc"}, {"1", ""}, {"1", " 1"}, {"abc", "1"}, {"1e4932", "1e4932"}, {"1", "1e5000"},
        };
        int n = 0;
        for (String[] c : cases) {
            String f = "f" + n++;
            same("HSET", h, f, c[0]);
            same("HINCRBYFLOAT", h, f, c[1]);
            same("HGET", h, f);
        }
        for (int i = 0; i < 25; i++) same("HINCRBYFLOAT", h, "tenth", "0.1");
        Random rnd = new Random(5);
        for (int i = 0; i < 60; i++) {
            same("HINCRBYFLOAT", h, "r" + (i % 7), String.format("%.4f", (rnd.nextDouble() - 0.5) * 1e6));
        }
        same("HINCRBYFLOAT", k("new"), "f", "2.50");
        same("HGETALL", k("new"));
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void encodings_followThresholds_andConfigSet(int proto) throws IOException {
        protocol(proto);
        String h = k("h");
        for (int i = 0; i < 512; i++) same("HSET", h, "f" + i, "v" + i);
        same("OBJECT", "ENCODING", h);
        same("HSET", h, "f513", "x");
        same("OBJECT", "ENCODING", h);
        for (int i = 0; i < 513; i++) r().call("HDEL", h, "f" + i);
        for (int i = 0; i < 513; i++) t().call("HDEL", h, "f" + i);
        same("HLEN", h);
        same("OBJECT", "ENCODING", h); // never converts back
        // A long value, a long field, and a long HINCRBYFLOAT result each convert.
        same("HSET", k("v"), "f", "x".repeat(64));
        same("OBJECT", "ENCODING", k("v"));
        same("HSET", k("v"), "g", "x".repeat(65));
        same("OBJECT", "ENCODING", k("v"));
        same("HSET", k("f"), "y".repeat(65), "1");
        same("OBJECT", "ENCODING", k("f"));
        same("HSET", k("i"), "n", "1e60");
        same("HINCRBYFLOAT", k("i"), "n", "1");
        same("OBJECT", "ENCODING", k("i"));
        // (Redis 7.2+ also converts when more pairs than the threshold are announced: HashCommandsTest.)
        same("CONFIG", "SET", "hash-max-listpack-entries", "2");
        same("HSET", k("two"), "a", "1", "b", "2");
        same("OBJECT", "ENCODING", k("two"));
        same("HSETNX", k("two"), "c", "3");
        same("OBJECT", "ENCODING", k("two"));
        same("CONFIG", "SET", "hash-max-listpack-entries", "0");
        same("HSET", k("zero"), "a", "1");
        same("OBJECT", "ENCODING", k("zero"));
        same("CONFIG", "SET", "hash-max-listpack-entries", "512");
        same("CONFIG", "SET", "hash-max-listpack-value", "3");
        same("HSET", k("short"), "abc", "123");
        same("OBJECT", "ENCODING", k("short"));
        same("HINCRBY", k("short"), "abc", "1000");
        same("OBJECT", "ENCODING", k("short"));
        same("HGETALL", k("short"));
    }

    @Test
    void hashtable_orderFreeReplies() throws IOException {
        String h = k("big");
        for (int i = 0; i < 1000; i++) same("HSET", h, "field:" + i, "value:" + i);
        same("OBJECT", "ENCODING", h);
        same("HLEN", h);
        same("HMGET", h, "field:0", "field:999", "nope");
        // HGET writes from the stored field-and-value array; fields past 127 bytes take a longer length prefix.
        same("HGET", h, "field:0");
        same("HGET", h, "nope");
        same("HSET", h, "field:7", "a longer value than before", "", "", "f".repeat(200), "v".repeat(300));
        same("HGET", h, "field:7");
        same("HGET", h, "");
        same("HGET", h, "f".repeat(200));
        same("HSTRLEN", h, "f".repeat(200));
        same("HEXISTS", h, "f".repeat(199));
        same("HSTRLEN", h, "field:500");
        same("HINCRBY", h, "counter", "3");
        same("HDEL", h, "field:1", "field:2", "nope");
        same("HLEN", h);
        same("HRANDFIELD", h, "0");
        same("HSCAN", h, "0", "MATCH", "nomatch*", "COUNT", "5000");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void hashtable_wholeReplies_fromTheStoredEntries(int proto) throws IOException {
        protocol(proto);
        // One field in the hashtable encoding (its value is past hash-max-listpack-value): one order on both servers.
        String one = k("one");
        same("HSET", one, "f".repeat(200), "v".repeat(100));
        same("OBJECT", "ENCODING", one);
        for (int round = 0; round < 2; round++) {
            same("HGETALL", one);
            same("HKEYS", one);
            same("HVALS", one);
            same("EVAL", "return redis.call('HGETALL', KEYS[1])", "1", one);
            same("EVAL", "return redis.call('HGET', KEYS[1], ARGV[1])", "1", one, "f".repeat(200));
            same("HMGET", one, "f".repeat(200), "nope", "f".repeat(200));
            same("HSET", one, "f".repeat(200), "w".repeat(70)); // a new entry for the same field
        }
        // Many fields: sorted by a script, which also reads them through the script's conversion.
        String h = k("many");
        for (int i = 0; i < 600; i++) same("HSET", h, "field:" + i, "value:" + i);
        same("HSET", h, "", "empty field", "empty value", "");
        String pairs = "local t = redis.call('HGETALL', KEYS[1]); local p = {}; "
                + "for i = 1, #t, 2 do p[#p + 1] = t[i] .. '=' .. t[i + 1] end; table.sort(p); return p";
        same("EVAL", pairs, "1", h);
        same("EVAL", "local t = redis.call(ARGV[1], KEYS[1]); table.sort(t); return t", "1", h, "HKEYS");
        same("EVAL", "local t = redis.call(ARGV[1], KEYS[1]); table.sort(t); return t", "1", h, "HVALS");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void hrandfield_deterministicShapes(int proto) throws IOException {
        protocol(proto);
        String h = k("h");
        same("HSET", h, "a", "1", "b", "2", "c", "3");
        // count >= size returns the whole listpack, in order.
        same("HRANDFIELD", h, "3");
        same("HRANDFIELD", h, "100", "WITHVALUES");
        same("HRANDFIELD", h, "0");
        same("HRANDFIELD", h, "0", "WITHVALUES");
        same("HRANDFIELD", h, "4611686018427387903", "WITHVALUES");
        same("HRANDFIELD", h, "4611686018427387904", "WITHVALUES");
        same("HRANDFIELD", h, "-4611686018427387904", "WITHVALUES");
        same("HRANDFIELD", h, "-9223372036854775808");
        same("HRANDFIELD", h, "9223372036854775808");
        same("HRANDFIELD", h, "1", "WITHVALUES", "x");
        same("HRANDFIELD", h, "1", "withvaluez");
        // One field: every pick is the same, so repeats are deterministic.
        String one = k("one");
        same("HSET", one, "only", "v");
        same("HRANDFIELD", one);
        same("HRANDFIELD", one, "-5");
        same("HRANDFIELD", one, "-3", "WITHVALUES");
        same("HRANDFIELD", one, "1", "WITHVALUES");
        same("HRANDFIELD", one, "-1", "WITHVALUES");
        same("HRANDFIELD", k("missing"));
        same("HRANDFIELD", k("missing"), "5");
        same("HRANDFIELD", k("missing"), "-5", "WITHVALUES");
        // A large one-field hash (hashtable encoding): repeats are deterministic too.
        same("HSET", k("bigone"), "f", "x".repeat(100));
        same("HRANDFIELD", k("bigone"), "-2", "WITHVALUES");
        same("HRANDFIELD", k("bigone"), "3");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void hscan_listpackOptionsAndErrors(int proto) throws IOException {
        protocol(proto);
        String h = k("h");
        same("HSET", h, "apple", "1", "banana", "2", "avocado", "3", "cherry", "4");
        same("HSCAN", h, "0");
        same("HSCAN", h, "0", "MATCH", "a*");
        same("HSCAN", h, "0", "MATCH", "*");
        same("HSCAN", h, "0", "COUNT", "1");
        same("HSCAN", h, "0", "COUNT", "1", "MATCH", "*an*");
        same("HSCAN", h, "12345");
        same("HSCAN", h, "0", "COUNT", "0");
        same("HSCAN", h, "0", "COUNT", "-1");
        same("HSCAN", h, "0", "COUNT", "x");
        same("HSCAN", h, "0", "COUNT");
        same("HSCAN", h, "0", "MATCH");
        same("HSCAN", h, "0", "TYPE", "string");
        same("HSCAN", h, "0", "BOGUS");
        same("HSCAN", h, "-1");
        same("HSCAN", h, "abc");
        same("HSCAN", h, "18446744073709551616");
        same("HSCAN", k("missing"), "0");
        same("HSCAN", k("missing"), "0", "COUNT", "0");
        same("HSCAN", k("missing"), "x");
    }
}
