package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sends the same raw commands to a real redis-server and to Tide (two shards, so multi-key commands run
 * coordinated) and asserts byte-identical replies, in RESP2 and in RESP3. The local redis-server is 7.0, which
 * has no listpack sets (it keeps small sets of strings in a hashtable, in hash order): replies whose order
 * Redis leaves unspecified are compared sorted, and encodings only where 7.0 and 7.4 agree (intset, and
 * hashtable past the thresholds).
 */
class SetCommandsVsRedisTest extends VsRedis {

    SetCommandsVsRedisTest() {
        super("s");
    }

    /** Like {@link #same} for a flat array or set of bulk strings whose order Redis leaves unspecified. */
    private void sameSorted(String... args) throws IOException {
        String expected = r().call(args);
        String actual = t().call(args);
        assertThat(sorted(actual)).as(String.join(" ", args)).isEqualTo(sorted(expected));
    }

    /** The reply with its elements sorted (header kept); any other reply unchanged. */
    private static String sorted(String reply) {
        if (!(reply.startsWith("*") || reply.startsWith("~"))) return reply;
        String[] lines = reply.split("\r\n", -1);
        List<String> items = new ArrayList<>();
        for (int i = 1; i + 1 < lines.length; i += 2) items.add(lines[i] + "\r\n" + lines[i + 1]);
        Collections.sort(items);
        return lines[0] + "\r\n" + String.join("\r\n", items);
    }

    private static String[] cmd(String name, String key, String... rest) {
        String[] out = new String[rest.length + 2];
        out[0] = name;
        out[1] = key;
        System.arraycopy(rest, 0, out, 2, rest.length);
        return out;
    }

    private static String[] numbers(int from, int to) {
        String[] out = new String[to - from];
        for (int i = from; i < to; i++) out[i - from] = Integer.toString(i * 7 - 300);
        return out;
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void intsets_replyInSortedOrder_everywhere(int proto) throws IOException {
        protocol(proto);
        same(cmd("SADD", k("a"), "30", "-5", "10", "9223372036854775807", "-9223372036854775808", "0", "10"));
        same(cmd("SADD", k("b"), "10", "0", "7", "-5", "40000", "-70000"));
        same("OBJECT", "ENCODING", k("a"));
        same("SMEMBERS", k("a"));
        same("SINTER", k("a"), k("b"));
        same("SUNION", k("a"), k("b"));
        same("SDIFF", k("a"), k("b"));
        same("SDIFF", k("b"), k("a"), k("missing"));
        same("SSCAN", k("a"), "0");
        same("SSCAN", k("a"), "12345", "COUNT", "1");
        same("SSCAN", k("a"), "0", "MATCH", "*0");
        same("SRANDMEMBER", k("a"), "100");
        same("SINTERSTORE", k("d1"), k("a"), k("b"));
        same("OBJECT", "ENCODING", k("d1"));
        same("SMEMBERS", k("d1"));
        same("SUNIONSTORE", k("d2"), k("a"), k("b"));
        same("OBJECT", "ENCODING", k("d2"));
        same("SMEMBERS", k("d2"));
        same("SDIFFSTORE", k("d3"), k("a"), k("b"));
        same("SMEMBERS", k("d3"));
        same("SPOP", k("d3"), "10");
        same("EXISTS", k("d3"));
        same("SMOVE", k("a"), k("new"), "30");
        same("OBJECT", "ENCODING", k("new"));
        same("SREM", k("b"), "40000", "1", "-70000");
        same("SMEMBERS", k("b"));
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void encodingThresholds_whereRedis70And74Agree(int proto) throws IOException {
        protocol(proto);
        same(cmd("SADD", k("i"), numbers(0, 512)));
        same("OBJECT", "ENCODING", k("i"));
        same("SADD", k("i"), "100000");
        same("OBJECT", "ENCODING", k("i"));
        same("SCARD", k("i"));
        same(cmd("SADD", k("h"), numbers(0, 513)));
        same("OBJECT", "ENCODING", k("h"));
        String[] strings = new String[200];
        for (int i = 0; i < strings.length; i++) strings[i] = "member:" + i;
        same(cmd("SADD", k("s"), strings));
        same("OBJECT", "ENCODING", k("s"));
        same("SREM", k("s"), "member:1", "member:2", "nope");
        same("OBJECT", "ENCODING", k("s"));
        sameSorted("SMEMBERS", k("s"));
        // Results that are all integers are stored as intsets; big unions as hashtables.
        same("SINTERSTORE", k("x"), k("h"), k("i"));
        same("OBJECT", "ENCODING", k("x"));
        same("SUNIONSTORE", k("y"), k("h"), k("i"));
        same("OBJECT", "ENCODING", k("y"));
        same("SCARD", k("y"));
        same("CONFIG", "SET", "set-max-intset-entries", "3");
        same("SADD", k("c"), "1", "2", "3");
        same("OBJECT", "ENCODING", k("c"));
        same("SADD", k("c"), "4");
        same("OBJECT", "ENCODING", k("c"));
        same("CONFIG", "SET", "set-max-intset-entries", "512");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void stringSets_sameMembers_sortedComparison(int proto) throws IOException {
        protocol(proto);
        same("SADD", k("a"), "x", "y", "z", "1", "2", "");
        same("SADD", k("b"), "y", "2", "w", "");
        same("SADD", k("c"), "y", "q", "");
        sameSorted("SMEMBERS", k("a"));
        sameSorted("SINTER", k("a"), k("b"), k("c"));
        sameSorted("SINTER", k("a"), k("a"));
        sameSorted("SUNION", k("a"), k("b"), k("missing"), k("c"));
        sameSorted("SDIFF", k("a"), k("b"));
        same("SDIFF", k("a"), k("c"), k("a"));
        same("SDIFF", k("missing"), k("a"));
        same("SINTER", k("a"), k("missing"));
        same("SINTERCARD", "3", k("a"), k("b"), k("c"));
        same("SINTERCARD", "2", k("a"), k("b"), "LIMIT", "2");
        same("SINTERCARD", "2", k("a"), k("b"), "LIMIT", "0");
        same("SINTERCARD", "2", k("a"), k("missing"));
        same("SISMEMBER", k("a"), "");
        same("SISMEMBER", k("a"), "02");
        same("SMISMEMBER", k("a"), "x", "nope", "2", "");
        same("SMISMEMBER", k("missing"), "x", "y");
        same("SCARD", k("a"));
        same("SCARD", k("missing"));
        same("SINTERSTORE", k("d"), k("a"), k("b"));
        sameSorted("SMEMBERS", k("d"));
        same("SDIFFSTORE", k("d"), k("a"), k("a"));
        same("EXISTS", k("d"));
        same("SUNIONSTORE", k("d"), k("missing"));
        same("EXISTS", k("d"));
        same("SMOVE", k("a"), k("b"), "x");
        same("SMOVE", k("a"), k("b"), "x");
        same("SMOVE", k("a"), k("a"), "y");
        same("SMOVE", k("a"), k("a"), "nope");
        same("SMOVE", k("missing"), k("a"), "y");
        same("SREM", k("c"), "y", "q", "", "more");
        same("EXISTS", k("c"));
        same("SPOP", k("c"));
        same("SPOP", k("c"), "2");
        same("SPOP", k("a"), "0");
        same("SRANDMEMBER", k("c"));
        same("SRANDMEMBER", k("c"), "3");
        same("SRANDMEMBER", k("a"), "0");
        same("SSCAN", k("missing"), "0");
        same("SSCAN", k("missing"), "0", "COUNT", "0");
        same("SREM", k("missing"), "a");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void errors_byteIdentical(int proto) throws IOException {
        protocol(proto);
        same("SET", k("str"), "v");
        same("SADD", k("set"), "a", "1");
        for (String[] c : new String[][] {
            {"SADD", k("str"), "a"}, {"SREM", k("str"), "a"}, {"SCARD", k("str")}, {"SISMEMBER", k("str"), "a"},
            {"SMISMEMBER", k("str"), "a"}, {"SMEMBERS", k("str")}, {"SPOP", k("str")}, {"SPOP", k("str"), "1"},
            {"SRANDMEMBER", k("str")}, {"SRANDMEMBER", k("str"), "-1"}, {"SMOVE", k("str"), k("set"), "a"},
            {"SMOVE", k("set"), k("str"), "a"}, {"SINTER", k("missing"), k("str")}, {"SINTER", k("set"), k("str")},
            {"SINTERCARD", "2", k("set"), k("str")}, {"SINTERSTORE", k("d"), k("set"), k("str")},
            {"SUNION", k("set"), k("str")}, {"SUNIONSTORE", k("d"), k("str")}, {"SDIFF", k("str")},
            {"SDIFFSTORE", k("d"), k("set"), k("str")}, {"SSCAN", k("str"), "0"},
            {"SSCAN", k("str"), "0", "COUNT", "0"},
        }) {
            same(c);
        }
        for (String[] c : new String[][] {
            {"SADD", k("set")}, {"SREM", k("set")}, {"SCARD"}, {"SCARD", "a", "b"}, {"SISMEMBER", k("set")},
            {"SMISMEMBER", k("set")}, {"SMEMBERS"}, {"SPOP"}, {"SRANDMEMBER"}, {"SMOVE", "a", "b"},
            {"SINTER"}, {"SINTERCARD", "1"}, {"SINTERSTORE", "d"}, {"SUNION"}, {"SUNIONSTORE", "d"}, {"SDIFF"},
            {"SDIFFSTORE", "d"}, {"SSCAN", k("set")},
        }) {
            same(c);
        }
        same("SPOP", k("set"), "-1");
        same("SPOP", k("set"), "x");
        same("SPOP", k("missing"), "-1");
        same("SPOP", k("set"), "1", "2");
        same("SRANDMEMBER", k("set"), "x");
        same("SRANDMEMBER", k("set"), "-9223372036854775808");
        same("SRANDMEMBER", k("set"), "9223372036854775808");
        same("SRANDMEMBER", k("set"), "1", "2");
        same("SINTERCARD", "0", k("set"));
        same("SINTERCARD", "-1", k("set"));
        same("SINTERCARD", "x", k("set"));
        same("SINTERCARD", "2", k("set"));
        same("SINTERCARD", "1", k("set"), "LIMIT");
        same("SINTERCARD", "1", k("set"), "LIMIT", "-1");
        same("SINTERCARD", "1", k("set"), "LIMIT", "x");
        same("SINTERCARD", "1", k("set"), "FOO", "1");
        same("SSCAN", k("set"), "x");
        same("SADD", k("ints"), "3", "1", "2");
        same("SSCAN", k("ints"), "-1");
        same("SSCAN", k("set"), "18446744073709551616");
        same("SSCAN", k("set"), "0", "COUNT", "0");
        same("SSCAN", k("set"), "0", "COUNT", "x");
        same("SSCAN", k("set"), "0", "MATCH");
        same("SSCAN", k("set"), "0", "TYPE", "set");
        same("SSCAN", k("set"), "0", "FOO", "bar");
        same("SSCAN", k("missing"), "x");
        same("SSCAN", k("ints"), "0", "count", "5", "match", "*");
        same("TYPE", k("set"));
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void commandInfo_matchesRedis(int proto) throws IOException {
        protocol(proto);
        for (String name : Arrays.asList("sadd", "srem", "scard", "sismember", "smismember", "smembers", "spop",
                "srandmember", "smove", "sinter", "sinterstore", "sunion", "sunionstore", "sdiff", "sdiffstore",
                "sscan")) {
            String expected = r().call("COMMAND", "INFO", name);
            String actual = t().call("COMMAND", "INFO", name);
            // Compare name, arity, flags and key positions, not the order of ACL categories, key specs or tips.
            assertThat(head(actual)).as(name).isEqualTo(head(expected));
        }
        same("COMMAND", "GETKEYS", "SINTERCARD", "2", "a", "b", "LIMIT", "1");
        same("COMMAND", "GETKEYS", "SINTERSTORE", "d", "a", "b");
        same("COMMAND", "GETKEYS", "SMOVE", "a", "b", "m");
    }

    /** COMMAND INFO's reply up to the key step: header, name, arity, flags, first key, last key, step. */
    private static String head(String reply) {
        String[] parts = reply.split("\r\n");
        int flags = Integer.parseInt(parts[5].substring(1));
        return String.join("\r\n", Arrays.copyOf(parts, 6 + flags + 3));
    }
}
