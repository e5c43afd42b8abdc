package io.tide.command.family;

import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sends the same raw bitmap commands to a real redis-server and to Tide (two shards, so BITOP runs
 * coordinated) and asserts byte-identical replies, in RESP2 and RESP3. Redis 7.2 moved BITCOUNT's and
 * BITPOS's argument checks before the key lookup; those orderings are left to {@code BitCommandsTest}, as the
 * installed redis-server is 7.0.
 */
class BitCommandsVsRedisTest extends VsRedis {

    BitCommandsVsRedisTest() {
        super("b");
    }

    /** Fills {@code key} with {@code len} random bytes (through BITFIELD, so binary values stay exact). */
    private void randomBytes(String key, int len, Random rnd) throws IOException {
        same("DEL", key);
        for (int i = 0; i < len; i++) {
            int b = switch (rnd.nextInt(4)) {
                case 0 -> 0;
                case 1 -> 0xff;
                default -> rnd.nextInt(256);
            };
            same("BITFIELD", key, "SET", "u8", "#" + i, Integer.toString(b));
        }
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void setbitGetbit_repliesAndErrors(int proto) throws IOException {
        protocol(proto);
        String key = k("sb");
        same("SETBIT", key, "7", "1");
        same("SETBIT", key, "7", "1");
        same("SETBIT", key, "7", "0");
        same("SETBIT", key, "100", "1");
        same("GET", key);
        same("STRLEN", key);
        same("SET", k("emb"), "ab"); // an unchanged bit still leaves the value raw
        same("SETBIT", k("emb"), "1", "1");
        same("OBJECT", "ENCODING", k("emb"));
        same("GET", k("emb"));
        same("OBJECT", "ENCODING", key);
        same("GETBIT", key, "100");
        same("GETBIT", key, "99");
        same("GETBIT", key, "100000");
        same("GETBIT", k("missing"), "3");
        for (String bad : new String[] {"-1", "abc", "", "1.5", "4294967296", "99999999999999999999", " 1", "+1"}) {
            same("SETBIT", key, bad, "1");
            same("GETBIT", key, bad);
        }
        same("SETBIT", key, "4294967295", "x");
        for (String bad : new String[] {"2", "-1", "x", "", "01", "1 "}) same("SETBIT", key, "1", bad);
        same("EXISTS", k("never"));
        same("SETBIT", k("never"), "-5", "1");
        same("EXISTS", k("never"));
        // Integer-encoded and short values become raw strings after a bit write, even an unchanged one.
        same("SET", k("int"), "42");
        same("SETBIT", k("int"), "2", "1");
        same("GET", k("int"));
        same("OBJECT", "ENCODING", k("int"));
        same("SET", k("int2"), "12");
        same("GETBIT", k("int2"), "2");
        same("SETBIT", k("int2"), "2", "1");
        same("OBJECT", "ENCODING", k("int2"));
        same("SET", k("emb"), "abc");
        same("SETBIT", k("emb"), "1", "1");
        same("OBJECT", "ENCODING", k("emb"));
        same("GET", k("emb"));
        // TTL survives SETBIT.
        same("SET", k("ttl"), "x", "EX", "1000");
        same("SETBIT", k("ttl"), "100", "1");
        same("TTL", k("ttl"));
        same("SETBIT", k("a"));
        same("GETBIT", k("a"), "1", "2");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void bitcount_rangesMatchRedis(int proto) throws IOException {
        protocol(proto);
        Random rnd = new Random(11 + proto);
        String key = k("bc");
        for (int len : new int[] {0, 1, 2, 3, 7, 9, 17, 40}) {
            randomBytes(key, len, rnd);
            if (len > 0) same("BITCOUNT", key);
            for (int i = 0; i < 60; i++) {
                String s = Integer.toString(rnd.nextInt(len * 8 + 20) - (len * 8 + 20) / 2);
                String e = Integer.toString(rnd.nextInt(len * 8 + 20) - (len * 8 + 20) / 2);
                if (len == 0) continue;
                same("BITCOUNT", key, s, e);
                same("BITCOUNT", key, s, e, "BIT");
                same("BITCOUNT", key, s, e, "byte");
            }
        }
        same("SET", k("str"), "foobar");
        same("BITCOUNT", k("str"));
        same("BITCOUNT", k("str"), "1", "1");
        same("BITCOUNT", k("str"), "5", "30", "BIT");
        same("BITCOUNT", k("str"), "-1", "-2");
        same("BITCOUNT", k("str"), "0", "-1", "BiT");
        same("SET", k("num"), "-1234567");
        same("BITCOUNT", k("num"));
        same("BITCOUNT", k("num"), "1", "-2", "bit");
        same("BITCOUNT", k("missing"));
        same("BITCOUNT", k("missing"), "0", "-1");
        // Argument errors on an existing string (7.0 and 7.4 agree there).
        same("BITCOUNT", k("str"), "0");
        same("BITCOUNT", k("str"), "0", "1", "bits");
        same("BITCOUNT", k("str"), "a", "1");
        same("BITCOUNT", k("str"), "0", "b");
        same("BITCOUNT", k("str"), "0", "1", "BIT", "x");
        same("BITCOUNT");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void bitpos_rangesMatchRedis(int proto) throws IOException {
        protocol(proto);
        Random rnd = new Random(5 + proto);
        String key = k("bp");
        for (int len : new int[] {1, 2, 3, 5, 8, 13, 33}) {
            randomBytes(key, len, rnd);
            same("BITPOS", key, "0");
            same("BITPOS", key, "1");
            for (int i = 0; i < 50; i++) {
                int span = len * 8 + 20;
                String s = Integer.toString(rnd.nextInt(span) - span / 2);
                String e = Integer.toString(rnd.nextInt(span) - span / 2);
                String bit = rnd.nextBoolean() ? "1" : "0";
                same("BITPOS", key, bit, s);
                same("BITPOS", key, bit, s, e);
                same("BITPOS", key, bit, s, e, "BIT");
                same("BITPOS", key, bit, s, e, "BYTE");
            }
        }
        // All ones and all zeros: the not-found rules, with and without an explicit end.
        same("SET", k("ones"), "\u007f");
        same("BITFIELD", k("ones"), "SET", "u8", "0", "255", "SET", "u8", "8", "255", "SET", "u8", "16", "255");
        same("BITPOS", k("ones"), "0");
        same("BITPOS", k("ones"), "0", "1");
        same("BITPOS", k("ones"), "0", "0", "-1");
        same("BITPOS", k("ones"), "0", "2", "-1", "BYTE");
        same("BITPOS", k("ones"), "0", "3", "23", "BIT");
        same("BITPOS", k("ones"), "0", "3");
        same("BITPOS", k("ones"), "1", "2", "1");
        same("SETBIT", k("zeros"), "23", "0");
        same("BITPOS", k("zeros"), "1");
        same("BITPOS", k("zeros"), "0");
        same("BITPOS", k("zeros"), "1", "0", "-1", "BIT");
        same("BITPOS", k("zeros"), "0", "5", "7", "BIT");
        same("BITPOS", k("missing"), "1");
        same("BITPOS", k("missing"), "0");
        same("BITPOS", k("missing"), "0", "5", "7", "BIT");
        same("SET", k("num"), "12345");
        same("BITPOS", k("num"), "1", "1");
        same("BITPOS", k("num"), "0", "3", "20", "BIT");
        // Errors on an existing string.
        same("BITPOS", k("num"), "2");
        same("BITPOS", k("num"), "-1");
        same("BITPOS", k("num"), "x");
        same("BITPOS", k("num"), "1", "x");
        same("BITPOS", k("num"), "1", "0", "x");
        same("BITPOS", k("num"), "1", "0", "1", "bits");
        same("BITPOS", k("num"), "1", "0", "1", "BIT", "extra");
        same("BITPOS", k("num"));
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void bitop_operationsAndErrors(int proto) throws IOException {
        protocol(proto);
        Random rnd = new Random(3 + proto);
        // {tag}s spread the keys over both shards, so BITOP coordinates them.
        String a = "{a}" + k("a");
        String b = "{b}" + k("b");
        String c = "{c}" + k("c");
        String d = "{d}" + k("d");
        for (int round = 0; round < 6; round++) {
            randomBytes(a, rnd.nextInt(12), rnd);
            randomBytes(b, rnd.nextInt(40), rnd);
            randomBytes(c, rnd.nextInt(3), rnd);
            for (String op : new String[] {"AND", "or", "Xor"}) {
                same("BITOP", op, d, a, b, c);
                same("GET", d);
                same("BITOP", op, d, b);
                same("GET", d);
                same("BITOP", op, d, a, k("missing"), b);
                same("GET", d);
            }
            same("BITOP", "NOT", d, b);
            same("GET", d);
            same("BITOP", "NOT", d, d);
            same("GET", d);
        }
        same("SET", a, "12");
        same("SET", b, "foobar");
        same("BITOP", "AND", d, a, b);
        same("GET", d);
        same("OBJECT", "ENCODING", d);
        // A result of nothing deletes the destination.
        same("SET", d, "x", "EX", "100");
        same("BITOP", "OR", d, k("missing1"), k("missing2"));
        same("EXISTS", d);
        // The destination's TTL is cleared.
        same("SET", d, "x", "EX", "100");
        same("BITOP", "OR", d, a);
        same("TTL", d);
        // Errors.
        same("BITOP", "NOT", d, a, b);
        same("BITOP", "NAND", d, a);
        same("BITOP", "ANDX", d, a);
        same("BITOP", "AND", d);
        same("BITOP", "NOT", d);
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void bitfield_randomOperationsMatchRedis(int proto) throws IOException {
        protocol(proto);
        Random rnd = new Random(17 + proto);
        String key = k("bf");
        String[] overflows = {"WRAP", "SAT", "FAIL"};
        for (int i = 0; i < 500; i++) {
            List<String> cmd = new ArrayList<>(List.of("BITFIELD", key));
            int ops = 1 + rnd.nextInt(3);
            for (int j = 0; j < ops; j++) {
                if (rnd.nextInt(4) == 0) {
                    cmd.add("OVERFLOW");
                    cmd.add(overflows[rnd.nextInt(3)]);
                }
                boolean signed = rnd.nextBoolean();
                int bits = 1 + rnd.nextInt(signed ? 64 : 63);
                String type = (signed ? "i" : "u") + bits;
                String offset = rnd.nextInt(3) == 0 ? "#" + rnd.nextInt(4) : Integer.toString(rnd.nextInt(80));
                switch (rnd.nextInt(3)) {
                    case 0 -> cmd.addAll(List.of("GET", type, offset));
                    case 1 -> cmd.addAll(List.of("SET", type, offset, Long.toString(randomValue(rnd, bits))));
                    default -> cmd.addAll(List.of("INCRBY", type, offset, Long.toString(randomValue(rnd, bits))));
                }
            }
            same(cmd.toArray(new String[0]));
            if (i % 50 == 0) same("GET", key);
        }
        same("GET", key);
        String[] ro = {"BITFIELD_RO", key, "GET", "i64", "0", "GET", "u63", "#1", "GET", "i5", "3000"};
        same(ro);
        same("BITFIELD_RO", key);
        same("BITFIELD_RO", k("missing"), "GET", "u8", "0");
        same("BITFIELD", k("missing2"), "GET", "u8", "0");
        same("EXISTS", k("missing2"));
        // FAIL still creates the key, grown to the farthest write, as Redis's lookup does.
        same("BITFIELD", k("fail"), "OVERFLOW", "FAIL", "SET", "u8", "16", "999");
        same("GET", k("fail"));
        same("OBJECT", "ENCODING", k("fail"));
        same("SET", k("num"), "100");
        same("BITFIELD", k("num"), "GET", "u8", "0", "INCRBY", "u8", "0", "1");
        same("GET", k("num"));
        same("SET", k("emb"), "hello");
        same("BITFIELD", k("emb"), "INCRBY", "u8", "0", "0");
        same("OBJECT", "ENCODING", k("emb"));
    }

    private static long randomValue(Random rnd, int bits) {
        return switch (rnd.nextInt(6)) {
            case 0 -> rnd.nextLong();
            case 1 -> rnd.nextInt(5) - 2;
            case 2 -> bits >= 63 ? Long.MAX_VALUE - rnd.nextInt(3) : (1L << bits) - 1 + rnd.nextInt(3) - 1;
            case 3 -> bits >= 63 ? Long.MIN_VALUE + rnd.nextInt(3) : -(1L << (bits - 1)) + rnd.nextInt(3) - 1;
            default -> rnd.nextLong() >> rnd.nextInt(64);
        };
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void bitfield_errorTexts(int proto) throws IOException {
        protocol(proto);
        String key = k("e");
        same("SET", key, "x");
        String[][] cases = {
            {"GET", "u64", "0"}, {"GET", "i65", "0"}, {"GET", "i0", "0"}, {"GET", "u0", "0"}, {"GET", "U8", "0"},
            {"GET", "x8", "0"}, {"GET", "", "0"}, {"GET", "i", "0"}, {"GET", "i-1", "0"}, {"GET", "i08", "0"},
            {"GET", "u8", "-1"}, {"GET", "u8", "#-1"}, {"GET", "u8", "x"}, {"GET", "u8", "##1"},
            {"GET", "u8", "4294967296"}, {"GET", "u8", "#536870912"}, {"GET", "u8"},
            {"SET", "u8", "0"}, {"SET", "u8", "0", "x"}, {"INCRBY", "i8", "0", "1.5"},
            {"OVERFLOW", "NONE", "GET", "u8", "0"}, {"OVERFLOW"}, {"FOO", "u8", "0"},
            {"GET", "u8", "0", "GET"}, {"SET", "u8", "0", "1", "OVERFLOW", "SAT", "BAR"},
            {"GET", "u8", "0", "SET", "u64", "0", "1"},
        };
        for (String[] c : cases) {
            List<String> cmd = new ArrayList<>(List.of("BITFIELD", key));
            cmd.addAll(List.of(c));
            same(cmd.toArray(new String[0]));
            cmd.set(0, "BITFIELD_RO");
            same(cmd.toArray(new String[0]));
        }
        same("BITFIELD_RO", key, "SET", "u8", "0", "1");
        same("BITFIELD_RO", key, "GET", "u8", "0", "INCRBY", "u8", "0", "1");
        same("BITFIELD_RO", key, "OVERFLOW", "SAT");
        same("GET", key);
        same("BITFIELD");
    }
}
