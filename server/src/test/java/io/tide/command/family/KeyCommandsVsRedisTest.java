package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.shard.Shard;
import io.tide.store.SharedIntegers;
import io.tide.testing.RawClient;
import io.tide.testing.VsRedis;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Byte-for-byte replies of the generic keyspace commands, Tide against a real redis-server, in RESP2 and
 * RESP3: error texts and the shapes clients parse. Tide has no SET in this tree yet, so its keys are
 * seeded straight into the keyspace, the same values Redis gets through SET.
 */
class KeyCommandsVsRedisTest extends VsRedis {

    /** Commands whose whole reply must be identical. Keys: k = "v", n = 100, big = 100000, long = 45 bytes. */
    static final List<String[]> SAME = List.of(
            // OBJECT
            cmd("OBJECT", "HELP"),
            cmd("object", "help"),
            cmd("OBJECT", "ENCODING", "k"),
            cmd("OBJECT", "ENCODING", "n"),
            cmd("OBJECT", "ENCODING", "big"),
            cmd("OBJECT", "ENCODING", "long"),
            cmd("OBJECT", "ENCODING", "missing"),
            // encodings follow the value through APPEND, SETRANGE, RENAME, COPY and MOVE, as in Redis
            cmd("SET", "enc", "12345"), cmd("OBJECT", "ENCODING", "enc"),
            cmd("APPEND", "enc", "x"), cmd("OBJECT", "ENCODING", "enc"),
            cmd("RENAME", "enc", "enc2"), cmd("OBJECT", "ENCODING", "enc2"),
            cmd("COPY", "enc2", "enc3"), cmd("OBJECT", "ENCODING", "enc3"),
            cmd("MOVE", "enc3", "2"), cmd("SELECT", "2"), cmd("OBJECT", "ENCODING", "enc3"), cmd("DEL", "enc3"),
            cmd("SELECT", "0"),
            cmd("SET", "enc4", "short"), cmd("SETRANGE", "enc4", "0", "S"), cmd("OBJECT", "ENCODING", "enc4"),
            cmd("SET", "enc5", "short"), cmd("RENAME", "enc5", "enc6"), cmd("OBJECT", "ENCODING", "enc6"),
            cmd("DEL", "enc2", "enc4", "enc6"),
            cmd("OBJECT", "REFCOUNT", "n"),
            cmd("OBJECT", "REFCOUNT", "big"),
            cmd("OBJECT", "REFCOUNT", "k"),
            cmd("OBJECT", "REFCOUNT", "missing"),
            cmd("OBJECT", "FREQ", "k"),
            cmd("OBJECT", "FREQ", "missing"),
            cmd("OBJECT", "IDLETIME", "missing"),
            cmd("OBJECT", "NOPE"),
            cmd("OBJECT"),
            cmd("OBJECT", "ENCODING"),
            cmd("OBJECT", "HELP", "extra"),
            // TYPE, EXISTS, DEL, TOUCH
            cmd("TYPE", "k"),
            cmd("TYPE", "n"),
            cmd("TYPE", "missing"),
            cmd("EXISTS", "k", "k", "missing", "n"),
            cmd("TOUCH", "k", "missing", "k"),
            cmd("DEL"),
            cmd("DEL", "missing", "missing2"),
            // TTL family on missing and persistent keys
            cmd("TTL", "missing"),
            cmd("PTTL", "missing"),
            cmd("EXPIRETIME", "missing"),
            cmd("PEXPIRETIME", "missing"),
            cmd("TTL", "k"),
            cmd("PTTL", "k"),
            cmd("EXPIRETIME", "k"),
            cmd("PEXPIRETIME", "k"),
            // the last millisecond: Redis's (ttl+500)/1000 comes out unsigned
            cmd("SET", "far", "v", "PXAT", "9223372036854775807"), cmd("EXPIRETIME", "far"), cmd("PEXPIRETIME", "far"),
            cmd("SET", "far", "v", "PXAT", "9223372036854775307"), cmd("EXPIRETIME", "far"),
            cmd("SET", "far", "v", "PXAT", "9223372036854775308"), cmd("EXPIRETIME", "far"), cmd("DEL", "far"),
            cmd("TTL"),
            cmd("PERSIST", "k"),
            cmd("PERSIST", "missing"),
            // EXPIRE options and errors
            cmd("EXPIRE", "k", "10", "NX", "XX"),
            cmd("EXPIRE", "k", "10", "nx", "gt"),
            cmd("EXPIRE", "k", "10", "NX", "LT"),
            cmd("EXPIRE", "k", "10", "GT", "LT"),
            cmd("PEXPIRE", "k", "10", "xx", "gt", "lt"),
            cmd("EXPIRE", "k", "10", "foo"),
            cmd("EXPIREAT", "k", "10", "NX", "bar"),
            cmd("EXPIRE", "k", "abc"),
            cmd("EXPIRE", "k", "abc", "NX", "XX"),
            cmd("EXPIRE", "k", "1.5"),
            cmd("EXPIRE", "k", "9223372036854775807"),
            cmd("EXPIRE", "k", "-9223372036854775807"),
            cmd("PEXPIRE", "k", "9223372036854775807"),
            cmd("EXPIREAT", "k", "9223372036854775807"),
            cmd("PEXPIREAT", "missing", "9223372036854775807"),
            cmd("EXPIRE", "missing", "100"),
            cmd("EXPIRE", "k", "100", "XX"),
            cmd("EXPIRE", "k", "100", "GT"),
            cmd("EXPIRE", "k"),
            // COPY
            cmd("COPY", "k", "k"),
            cmd("COPY", "k", "k", "DB", "0"),
            cmd("COPY", "k", "k", "REPLACE"),
            cmd("COPY", "k", "x", "DB", "16"),
            cmd("COPY", "k", "x", "DB", "-1"),
            cmd("COPY", "k", "x", "DB", "abc"),
            cmd("COPY", "k", "x", "DB", "99999999999"),
            cmd("COPY", "k", "x", "DB"),
            cmd("COPY", "k", "x", "FOO"),
            cmd("COPY", "missing", "x"),
            cmd("COPY", "k"),
            // MOVE
            cmd("MOVE", "k", "0"),
            cmd("MOVE", "missing", "0"),
            cmd("MOVE", "k", "16"),
            cmd("MOVE", "k", "-1"),
            cmd("MOVE", "k", "abc"),
            cmd("MOVE", "k", "99999999999"),
            // SELECT parses a 32-bit integer first, as getIntFromObjectOrReply does
            cmd("SELECT", "2147483648"), cmd("SELECT", "-9223372036854775808"), cmd("SELECT", "16"), cmd("SELECT", "1.0"),
            cmd("MOVE", "missing", "3"),
            // RENAME
            cmd("RENAME", "missing", "x"),
            cmd("RENAME", "missing", "missing"),
            cmd("RENAMENX", "missing", "x"),
            cmd("RENAME", "k", "k"),
            cmd("RENAMENX", "k", "k"),
            cmd("RENAMENX", "k", "n"),
            // SWAPDB
            cmd("SWAPDB", "a", "0"),
            cmd("SWAPDB", "0", "b"),
            cmd("SWAPDB", "99999999999", "0"),
            cmd("SWAPDB", "0", "99999999999"),
            cmd("SWAPDB", "0", "16"),
            cmd("SWAPDB", "-1", "0"),
            cmd("SWAPDB", "5", "5"),
            cmd("SWAPDB", "0"),
            // SCAN errors and edge cursors
            cmd("SCAN", "abc"),
            cmd("SCAN", " 0"),
            cmd("SCAN", "0x10"),
            cmd("SCAN", "-"),
            cmd("SCAN", "18446744073709551616"),
            cmd("SCAN", "abc", "COUNT", "0"),
            cmd("SCAN", "0", "COUNT", "0"),
            cmd("SCAN", "0", "COUNT", "-3"),
            cmd("SCAN", "0", "COUNT", "abc"),
            cmd("SCAN", "0", "COUNT"),
            cmd("SCAN", "0", "MATCH"),
            cmd("SCAN", "0", "TYPE"),
            cmd("SCAN", "0", "FOO", "bar"),
            cmd("SCAN"),
            cmd("SCAN", "0", "MATCH", "k", "COUNT", "1000"),
            cmd("SCAN", "0", "MATCH", "nothing*", "COUNT", "1000"),
            cmd("SCAN", "0", "MATCH", "k", "TYPE", "hash", "COUNT", "1000"),
            cmd("SCAN", "0", "MATCH", "k", "TYPE", "STRING", "COUNT", "1000"),
            // KEYS
            cmd("KEYS", "k"),
            cmd("KEYS", "nothing*"),
            cmd("KEYS", "[k]"),
            // FLUSH options
            cmd("FLUSHDB", "LATER"),
            cmd("FLUSHDB", "SYNC", "ASYNC"),
            cmd("FLUSHALL", "NOW"),
            // Empty database 9
            cmd("SELECT", "9"),
            cmd("RANDOMKEY"),
            cmd("DBSIZE"),
            cmd("KEYS", "*"),
            cmd("SCAN", "0"),
            cmd("SCAN", "0", "COUNT", "5", "MATCH", "*", "TYPE", "string"),
            cmd("FLUSHDB"),
            cmd("FLUSHDB", "async"),
            cmd("FLUSHDB", "SYNC"),
            cmd("SELECT", "0"),
            // Deleting through EXPIRE in the past, then checking
            cmd("EXPIRE", "long", "-1"),
            cmd("EXISTS", "long"),
            cmd("PEXPIREAT", "big", "1", "GT"),
            cmd("PEXPIREAT", "big", "1"),
            cmd("TYPE", "big"));

    @ParameterizedTest(name = "RESP{0}")
    @ValueSource(ints = {2, 3})
    void repliesAreIdentical(int protocol) throws Exception {
        if (protocol == 3) {
            r().call("HELLO", "3");
            t().call("HELLO", "3");
        }
        prepare(r());
        for (String[] c : SAME) {
            String expected = r().call(c);
            String actual = t().call(c);
            assertThat(actual).as("%s in RESP%d", String.join(" ", c), protocol).isEqualTo(expected);
        }
    }

    /** Reply shapes that carry time or order: compared after normalising what legitimately differs. */
    @ParameterizedTest(name = "RESP{0}")
    @ValueSource(ints = {2, 3})
    void shapesMatch(int protocol) throws Exception {
        if (protocol == 3) {
            r().call("HELLO", "3");
            t().call("HELLO", "3");
        }
        prepare(r());
        for (String[] c : List.of(cmd("EXPIRE", "k", "100"), cmd("TTL", "k"), cmd("EXPIRE", "k", "100", "LT"),
                cmd("PEXPIRE", "k", "50000", "LT"), cmd("TTL", "k"), cmd("PERSIST", "k"), cmd("TTL", "k"),
                cmd("OBJECT", "IDLETIME", "k"), cmd("DBSIZE"))) {
            assertThat(t().call(c)).as(String.join(" ", c)).isEqualTo(r().call(c));
        }
        // SCAN over several keys: same key set, both ending with cursor 0 for a large COUNT.
        String expected = r().call("SCAN", "0", "COUNT", "1000");
        String actual = t().call("SCAN", "0", "COUNT", "1000");
        assertThat(actual.length()).isEqualTo(expected.length());
        assertThat(sortedLines(actual)).isEqualTo(sortedLines(expected));
        assertThat(t().call("KEYS", "*").length()).isEqualTo(r().call("KEYS", "*").length());
        // A non-zero cursor is a bulk string in both.
        String page = t().call("SCAN", "0", "COUNT", "1");
        assertThat(page).startsWith("*2\r\n$");
    }

    private static List<String> sortedLines(String raw) {
        return raw.lines().sorted().toList();
    }

    /** Both servers: empty, then k = "v", n = 100, big = 100000, long = 45 x's. */
    private void prepare(RawClient r) throws Exception {
        assertThat(r.call("FLUSHALL")).isEqualTo("+OK\r\n");
        r.call("SET", "k", "v");
        r.call("SET", "n", "100");
        r.call("SET", "big", "100000");
        r.call("SET", "long", "x".repeat(45));
        try (RawClient t = new RawClient(tide().port())) {
            assertThat(t.call("FLUSHALL")).isEqualTo("+OK\r\n");
        }
        seed("k", b("v"));
        seed("n", SharedIntegers.valueOf(100));
        seed("big", Long.valueOf(100_000));
        seed("long", b("x".repeat(45)));
    }

    private void seed(String key, Object value) throws Exception {
        Shard s = tide().context().shards().shardOf(b(key));
        s.loop().submit(() -> s.db(0).put(b(key), value, 0)).get(10, TimeUnit.SECONDS);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String[] cmd(String... args) {
        return args;
    }
}
