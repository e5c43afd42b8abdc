package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ValueScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.Server;
import io.tide.shard.Shard;
import io.tide.store.Database;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/** Set commands through real sockets with Jedis and Lettuce, RESP2 and RESP3, on one and two shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class SetCommandsTest {

    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    @Parameter
    int shards;

    static Server server;
    static Jedis j2;
    static Jedis j3;

    @BeforeParameterizedClassInvocation
    static void start(int shardCount) {
        server = TestServers.start(shardCount);
        j2 = TestServers.jedis(server.port(), 2);
        j3 = TestServers.jedis(server.port(), 3);
    }

    @AfterParameterizedClassInvocation
    static void stop() {
        j2.close();
        j3.close();
        server.close();
        server = null;
    }

    @BeforeEach
    void clean() {
        j2.select(0);
        j2.configSet("set-max-intset-entries", "512");
        j2.configSet("set-max-listpack-entries", "128");
        j2.configSet("set-max-listpack-value", "64");
        j2.flushAll();
    }

    private static List<Jedis> both() {
        return List.of(j2, j3);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Key names with this prefix living on {@code n} different shards when there are several. */
    private String[] onDifferentShards(String prefix, int n) {
        List<String> out = new ArrayList<>();
        Set<Integer> used = new HashSet<>();
        for (int i = 0; out.size() < n; i++) {
            String k = prefix + i;
            int s = server.context().shards().shardOf(b(k)).id();
            if (used.add(s) || used.size() >= shards) out.add(k);
        }
        return out.toArray(new String[0]);
    }

    private static String encoding(String key) {
        return j2.objectEncoding(key);
    }

    private static String[] range(String prefix, int from, int to) {
        String[] out = new String[to - from];
        for (int i = from; i < to; i++) out[i - from] = prefix + i;
        return out;
    }

    /** A multi-bulk reply in wire order (Jedis's typed set methods return unordered sets). */
    @SuppressWarnings("unchecked")
    private static List<String> ordered(Protocol.Command cmd, String... args) {
        List<String> out = new ArrayList<>();
        for (Object o : (List<Object>) j2.sendCommand(cmd, args)) out.add(new String((byte[]) o, StandardCharsets.UTF_8));
        return out;
    }

    private static void assertError(Runnable r, String message) {
        assertThatThrownBy(r::run).isInstanceOf(JedisDataException.class).hasMessage(message);
    }

    // ---------------------------------------------------------------- SADD, SREM, SCARD, SISMEMBER, SMISMEMBER

    @Test
    void sadd_countsOnlyNewMembers_bothProtocols() {
        for (Jedis j : both()) {
            String k = j == j2 ? "sadd2" : "sadd3";
            assertThat(j.sadd(k, "a", "b", "a")).isEqualTo(2);
            assertThat(j.sadd(k, "b", "c")).isEqualTo(1);
            assertThat(j.scard(k)).isEqualTo(3);
            assertThat(j.smembers(k)).containsExactlyInAnyOrder("a", "b", "c");
            assertThat(j.type(k)).isEqualTo("set");
        }
    }

    @Test
    void srem_lastMember_deletesKey_andStopsThere() {
        j2.sadd("s", "a", "b");
        assertThat(j2.srem("s", "x", "a")).isEqualTo(1);
        assertThat(j2.srem("s", "b", "b", "c")).isEqualTo(1);
        assertThat(j2.exists("s")).isFalse();
        assertThat(j2.srem("s", "a")).isZero();
    }

    @Test
    void sismember_smismember_onMissingKey_areZeros() {
        for (Jedis j : both()) {
            assertThat(j.sismember("nokey", "a")).isFalse();
            assertThat(j.smismember("nokey", "a", "b")).containsExactly(false, false);
            assertThat(j.scard("nokey")).isZero();
            assertThat(j.smembers("nokey")).isEmpty();
        }
        j2.sadd("m", "1", "x");
        assertThat(j3.smismember("m", "x", "y", "1")).containsExactly(true, false, true);
        assertThat(j3.sismember("m", "01")).isFalse();
        // SMISMEMBER answers integers in RESP3 too, not booleans.
        assertThat(j3.sendCommand(Protocol.Command.SMISMEMBER, "m", "x", "y")).isEqualTo(List.of(1L, 0L));
    }

    @Test
    void everyCommand_onWrongType_repliesWrongType() {
        j2.set("str", "v");
        j2.sadd("set", "a");
        for (Jedis j : both()) {
            assertError(() -> j.sadd("str", "a"), WRONGTYPE);
            assertError(() -> j.srem("str", "a"), WRONGTYPE);
            assertError(() -> j.scard("str"), WRONGTYPE);
            assertError(() -> j.sismember("str", "a"), WRONGTYPE);
            assertError(() -> j.smismember("str", "a"), WRONGTYPE);
            assertError(() -> j.smembers("str"), WRONGTYPE);
            assertError(() -> j.spop("str"), WRONGTYPE);
            assertError(() -> j.spop("str", 2), WRONGTYPE);
            assertError(() -> j.srandmember("str"), WRONGTYPE);
            assertError(() -> j.srandmember("str", -2), WRONGTYPE);
            assertError(() -> j.sscan("str", "0"), WRONGTYPE);
            assertError(() -> j.smove("str", "set", "a"), WRONGTYPE);
            assertError(() -> j.smove("set", "str", "a"), WRONGTYPE);
            assertError(() -> j.sinter("set", "str"), WRONGTYPE);
            assertError(() -> j.sinter("nokey", "str"), WRONGTYPE);   // checked even after a missing key
            assertError(() -> j.sintercard("set", "str"), WRONGTYPE);
            assertError(() -> j.sunion("set", "str"), WRONGTYPE);
            assertError(() -> j.sdiff("str", "set"), WRONGTYPE);
            assertError(() -> j.sunionstore("d", "set", "str"), WRONGTYPE);
        }
        assertThat(j2.smembers("set")).containsExactly("a");
        assertThat(j2.exists("d")).isFalse();
        // A STORE destination of another type is simply replaced.
        assertThat(j2.sunionstore("str", "set")).isEqualTo(1);
        assertThat(j2.type("str")).isEqualTo("set");
        // SMOVE from a missing key answers 0 before looking at the destination's type.
        j2.set("str2", "v");
        assertThat(j2.smove("nokey", "str2", "a")).isZero();
    }

    // ---------------------------------------------------------------- encodings

    @Test
    void encoding_intsetThenListpackThenHashtable_asRedis74() {
        j2.sadd("e", "3", "1", "2");
        assertThat(encoding("e")).isEqualTo("intset");
        assertThat(ordered(Protocol.Command.SMEMBERS, "e")).containsExactly("1", "2", "3");
        j2.sadd("e", "b", "a");
        assertThat(encoding("e")).isEqualTo("listpack");
        // The intset's sorted members come first, then insertion order.
        assertThat(ordered(Protocol.Command.SMEMBERS, "e")).containsExactly("1", "2", "3", "b", "a");
        j2.sadd("e", "v".repeat(65));
        assertThat(encoding("e")).isEqualTo("hashtable");
        j2.srem("e", "v".repeat(65), "a", "b", "1");
        assertThat(encoding("e")).isEqualTo("hashtable");   // never converts back down
    }

    @Test
    void encoding_thresholds_applyAtRedisLimits_andFollowConfigSet() {
        j2.sadd("ints", range("", 0, 512));
        assertThat(encoding("ints")).isEqualTo("intset");
        j2.sadd("ints", "512");
        assertThat(encoding("ints")).isEqualTo("hashtable");

        j2.sadd("lp", range("m", 0, 128));
        assertThat(encoding("lp")).isEqualTo("listpack");
        j2.sadd("lp", "m128");
        assertThat(encoding("lp")).isEqualTo("hashtable");

        j2.sadd("big", range("m", 0, 129));                  // the argument count alone picks the hashtable
        assertThat(encoding("big")).isEqualTo("hashtable");
        j2.sadd("small", "a");
        j2.sadd("small", range("a", 0, 129));                // also for an existing listpack (setTypeMaybeConvert)
        assertThat(encoding("small")).isEqualTo("hashtable");

        j2.configSet("set-max-intset-entries", "4");
        j2.configSet("set-max-listpack-entries", "3");
        j2.sadd("c1", "1", "2", "3", "4");
        assertThat(encoding("c1")).isEqualTo("intset");
        j2.sadd("c1", "5");
        assertThat(encoding("c1")).isEqualTo("hashtable");
        j2.sadd("c2", "1", "2", "3");
        j2.sadd("c2", "x");                                  // 3 ints + 1 > set-max-listpack-entries
        assertThat(encoding("c2")).isEqualTo("hashtable");
        j2.configSet("set-max-listpack-value", "2");
        j2.sadd("c3", "ab");
        assertThat(encoding("c3")).isEqualTo("listpack");
        j2.sadd("c3", "abc");
        assertThat(encoding("c3")).isEqualTo("hashtable");
    }

    @Test
    void copy_isIndependent_andKeepsEncoding() {
        j2.sadd("src", "1", "2");
        assertThat(j2.copy("src", "dst", false)).isTrue();
        j2.sadd("dst", "x");
        assertThat(j2.smembers("src")).containsExactlyInAnyOrder("1", "2");
        assertThat(encoding("src")).isEqualTo("intset");
        assertThat(encoding("dst")).isEqualTo("listpack");
        assertThat(j2.scan("0", new ScanParams().match("*").count(100), "set").getResult())
                .containsExactlyInAnyOrder("src", "dst");
    }

    // ---------------------------------------------------------------- SMEMBERS reply shape

    @Test
    void smembers_isASetInResp3_andAnArrayInResp2() throws Exception {
        j2.sadd("shape", "1", "2");
        try (RawClient raw = new RawClient(server.port())) {
            assertThat(raw.call("SMEMBERS", "shape")).isEqualTo("*2\r\n$1\r\n1\r\n$1\r\n2\r\n");
            assertThat(raw.call("SMEMBERS", "none")).isEqualTo("*0\r\n");
            raw.call("HELLO", "3");
            assertThat(raw.call("SMEMBERS", "shape")).isEqualTo("~2\r\n$1\r\n1\r\n$1\r\n2\r\n");
            assertThat(raw.call("SMEMBERS", "none")).isEqualTo("~0\r\n");
            assertThat(raw.call("SINTER", "shape", "shape")).isEqualTo("~2\r\n$1\r\n1\r\n$1\r\n2\r\n");
            assertThat(raw.call("SPOP", "none", "3")).isEqualTo("~0\r\n");
            assertThat(raw.call("SPOP", "none")).isEqualTo("_\r\n");
            assertThat(raw.call("SRANDMEMBER", "none", "3")).isEqualTo("*0\r\n");
            assertThat(raw.call("SRANDMEMBER", "shape", "-3")).startsWith("*3\r\n");
        }
    }

    // ---------------------------------------------------------------- SPOP

    @Test
    void spop_single_removesAndReturnsMember_deletingTheKeyAtTheEnd() {
        j2.sadd("p", "a", "b");
        Set<String> popped = new HashSet<>();
        popped.add(j3.spop("p"));
        popped.add(j2.spop("p"));
        assertThat(popped).containsExactlyInAnyOrder("a", "b");
        assertThat(j2.exists("p")).isFalse();
        assertThat(j2.spop("p")).isNull();
        assertThat(j3.spop("p")).isNull();
    }

    @Test
    void spop_withCount_everyStrategy_popsDistinctMembers() {
        // (name, members, count): count >= size, few from a listpack, few from an intset, most of a hashtable
        Object[][] cases = {
            {"all", range("m", 0, 10), 10},
            {"allPlus", range("m", 0, 10), 50},
            {"fewLp", range("m", 0, 100), 7},
            {"fewInt", range("", 0, 300), 11},
            {"fewHt", range("m", 0, 300), 20},
            {"mostLp", range("m", 0, 100), 90},
            {"mostInt", range("", 0, 300), 280},
            {"mostHt", range("m", 0, 300), 290},
        };
        for (Object[] c : cases) {
            String k = (String) c[0];
            String[] ms = (String[]) c[1];
            int count = (Integer) c[2];
            j2.sadd(k, ms);
            String enc = encoding(k);
            Set<String> popped = j3.spop(k, count);
            int expected = Math.min(count, ms.length);
            assertThat(popped).as(k).hasSize(expected);
            assertThat(List.of(ms)).containsAll(popped);
            Set<String> left = j2.smembers(k);
            assertThat(left).as(k).hasSize(ms.length - expected).doesNotContainAnyElementsOf(popped);
            if (expected == ms.length) {
                assertThat(j2.exists(k)).isFalse();
            } else if (k.startsWith("few")) {
                assertThat(encoding(k)).isEqualTo(enc);
            }
        }
        // The "keep the rest" strategy builds the kept set afresh: intset from an intset, listpack otherwise.
        assertThat(encoding("mostInt")).isEqualTo("intset");
        assertThat(encoding("mostHt")).isEqualTo("listpack");
        assertThat(encoding("mostLp")).isEqualTo("listpack");
    }

    @Test
    void spop_keepTheRestStrategy_keepsTheTtl() {
        j2.sadd("ttl", range("m", 0, 300));
        j2.expire("ttl", 1000);
        j2.spop("ttl", 295);
        assertThat(j2.scard("ttl")).isEqualTo(5);
        assertThat(j2.ttl("ttl")).isBetween(990L, 1000L);
    }

    @Test
    void spop_badArguments_repliesRedisErrors() {
        j2.sadd("p", "a");
        for (Jedis j : both()) {
            assertThat(j.spop("p", 0)).isEmpty();
            assertThat(j.spop("nokey", 0)).isEmpty();
            assertError(() -> j.sendCommand(Protocol.Command.SPOP, "p", "-1"),
                    "ERR value is out of range, must be positive");
            assertError(() -> j.sendCommand(Protocol.Command.SPOP, "nokey", "x"),
                    "ERR value is out of range, must be positive");
            assertError(() -> j.sendCommand(Protocol.Command.SPOP, "p", "1", "2"), "ERR syntax error");
        }
        assertThat(j2.smembers("p")).containsExactly("a");
    }

    // ---------------------------------------------------------------- SRANDMEMBER

    @Test
    void srandmember_withCount_everyStrategy() {
        j2.sadd("lp", range("m", 0, 100));
        j2.sadd("ints", range("", 0, 300));
        j2.sadd("ht", range("m", 0, 1000));
        for (Jedis j : both()) {
            for (String k : new String[] {"lp", "ints", "ht"}) {
                Set<String> all = j.smembers(k);
                for (int count : new int[] {1, 5, 60, 99, 250, 400, 2000}) {
                    List<String> got = j.srandmember(k, count);
                    assertThat(got).as(k + " " + count).hasSize(Math.min(count, all.size())).doesNotHaveDuplicates();
                    assertThat(all).containsAll(got);
                }
                List<String> repeated = j.srandmember(k, -3000);
                assertThat(repeated).hasSize(3000);
                assertThat(all).containsAll(repeated);
                assertThat(new HashSet<>(repeated).size()).isGreaterThan(1);
                assertThat(j.scard(k)).isEqualTo(all.size());
            }
        }
        j2.sadd("one", "x");
        assertThat(j2.srandmember("one", -5)).containsExactly("x", "x", "x", "x", "x");
        assertThat(j2.srandmember("one")).isEqualTo("x");
        assertThat(j2.srandmember("nokey")).isNull();
        assertThat(j3.srandmember("nokey", 5)).isEmpty();
        assertThat(j2.srandmember("one", 0)).isEmpty();
    }

    @Test
    void srandmember_badArguments_repliesRedisErrors() {
        j2.sadd("r", "a");
        assertError(() -> j2.sendCommand(Protocol.Command.SRANDMEMBER, "r", "x"),
                "ERR value is not an integer or out of range");
        assertError(() -> j2.sendCommand(Protocol.Command.SRANDMEMBER, "r", "-9223372036854775808"),
                "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
        assertError(() -> j2.sendCommand(Protocol.Command.SRANDMEMBER, "r", "1", "2"), "ERR syntax error");
        assertThat(j2.srandmember("r", Integer.MAX_VALUE)).containsExactly("a");
    }

    // ---------------------------------------------------------------- SMOVE

    @Test
    void smove_acrossShards_movesAndCreatesAndDeletes() {
        String[] k = onDifferentShards("mv:", 2);
        j2.sadd(k[0], "a", "5");
        assertThat(j2.smove(k[0], k[1], "5")).isEqualTo(1);
        assertThat(encoding(k[1])).isEqualTo("intset");              // created for the moved member
        assertThat(j2.smove(k[0], k[1], "nope")).isZero();
        assertThat(j3.smove(k[0], k[1], "a")).isEqualTo(1);
        assertThat(j2.exists(k[0])).isFalse();
        assertThat(j2.smembers(k[1])).containsExactlyInAnyOrder("a", "5");
        assertThat(j2.smove(k[0], k[1], "a")).isZero();              // missing source
        j2.sadd(k[0], "a");
        assertThat(j2.smove(k[0], k[1], "a")).isEqualTo(1);          // already in the destination
        assertThat(j2.exists(k[0])).isFalse();
        assertThat(j2.scard(k[1])).isEqualTo(2);
        assertThat(j2.smove(k[1], k[1], "a")).isEqualTo(1);          // same key: membership only
        assertThat(j2.smove(k[1], k[1], "zz")).isZero();
        assertThat(j2.scard(k[1])).isEqualTo(2);
    }

    // ---------------------------------------------------------------- SINTER, SUNION, SDIFF and STORE forms

    @Test
    void algebra_acrossShards_matchesJavaSets() {
        String[] k = onDifferentShards("alg:", 3);
        j2.sadd(k[0], "1", "2", "3", "a", "b");
        j2.sadd(k[1], "2", "3", "4", "b");
        j2.sadd(k[2], "3", "b", "z");
        for (Jedis j : both()) {
            assertThat(j.sinter(k[0], k[1], k[2])).containsExactlyInAnyOrder("3", "b");
            assertThat(j.sinter(k[0], k[1], "nokey")).isEmpty();
            assertThat(j.sunion(k[0], k[1], k[2], "nokey"))
                    .containsExactlyInAnyOrder("1", "2", "3", "4", "a", "b", "z");
            assertThat(j.sdiff(k[0], k[1], "nokey")).containsExactlyInAnyOrder("1", "a");
            assertThat(j.sdiff(k[0], k[2], k[0])).isEmpty();
            assertThat(j.sdiff("nokey", k[0])).isEmpty();
            assertThat(j.sintercard(k[0], k[1])).isEqualTo(3);
            assertThat(j.sintercard(2, k[0], k[1])).isEqualTo(2);
        }
        assertThat(j2.sinterstore(k[2], k[0], k[1])).isEqualTo(3);      // the destination is also a source
        assertThat(j2.smembers(k[2])).containsExactlyInAnyOrder("2", "3", "b");
        assertThat(j2.sunionstore(k[1], k[0], k[2])).isEqualTo(5);
        assertThat(j2.sdiffstore(k[0], k[0], k[1])).isZero();
        assertThat(j2.exists(k[0])).isFalse();                            // an empty result deletes the destination
        assertThat(j2.sinterstore(k[1], k[0], k[2])).isZero();
        assertThat(j2.exists(k[1])).isFalse();
    }

    @Test
    void algebra_intsetResults_areSortedAndStoredAsIntset() {
        j2.sadd("i1", "30", "10", "20", "5");
        j2.sadd("i2", "20", "5", "99", "30");
        assertThat(ordered(Protocol.Command.SINTER, "i1", "i2")).containsExactly("5", "20", "30");
        assertThat(ordered(Protocol.Command.SUNION, "i1", "i2")).containsExactly("5", "10", "20", "30", "99");
        assertThat(ordered(Protocol.Command.SDIFF, "i2", "i1")).containsExactly("99");
        j2.sinterstore("d1", "i1", "i2");
        assertThat(encoding("d1")).isEqualTo("intset");
        // A hashtable of integers intersected down to a few: SINTERSTORE converts the result to an intset.
        j2.sadd("h", range("", 0, 600));
        j2.sadd("l", "1", "2", "x");
        j2.sinterstore("d2", "h", "l");
        assertThat(encoding("d2")).isEqualTo("intset");
        j2.sunionstore("d3", "i1", "l");
        assertThat(encoding("d3")).isEqualTo("listpack");
        j2.sunionstore("d4", "h");
        assertThat(encoding("d4")).isEqualTo("hashtable");
        j2.sdiffstore("d5", "h", "l");
        assertThat(j2.scard("d5")).isEqualTo(598);
    }

    @Test
    void store_replacesDestination_andDropsItsTtl() {
        j2.sadd("src", "a");
        j2.set("dst", "x");
        j2.expire("dst", 100);
        assertThat(j2.sunionstore("dst", "src")).isEqualTo(1);
        assertThat(j2.ttl("dst")).isEqualTo(-1);
        j2.expire("dst", 100);
        assertThat(j2.sinterstore("dst", "src", "src")).isEqualTo(1);
        assertThat(j2.ttl("dst")).isEqualTo(-1);
    }

    @Test
    void sintercard_limitAndErrors() {
        j2.sadd("c1", range("", 0, 50));
        j2.sadd("c2", range("", 25, 100));
        assertThat(j2.sintercard("c1", "c2")).isEqualTo(25);
        assertThat(j2.sendCommand(Protocol.Command.SINTERCARD, "2", "c1", "c2", "LIMIT", "10")).isEqualTo(10L);
        assertThat(j2.sendCommand(Protocol.Command.SINTERCARD, "2", "c1", "c2", "limit", "0")).isEqualTo(25L);
        assertThat(j2.sendCommand(Protocol.Command.SINTERCARD, "2", "c1", "nokey")).isEqualTo(0L);
        assertError(() -> j2.sendCommand(Protocol.Command.SINTERCARD, "0", "c1"), "ERR numkeys should be greater than 0");
        assertError(() -> j2.sendCommand(Protocol.Command.SINTERCARD, "x", "c1"), "ERR numkeys should be greater than 0");
        assertError(() -> j2.sendCommand(Protocol.Command.SINTERCARD, "3", "c1", "c2"),
                "ERR Number of keys can't be greater than number of args");
        assertError(() -> j2.sendCommand(Protocol.Command.SINTERCARD, "1", "c1", "LIMIT", "-1"),
                "ERR LIMIT can't be negative");
        assertError(() -> j2.sendCommand(Protocol.Command.SINTERCARD, "1", "c1", "LIMIT"), "ERR syntax error");
        assertError(() -> j2.sendCommand(Protocol.Command.SINTERCARD, "1", "c1", "c2"), "ERR syntax error");
    }

    // ---------------------------------------------------------------- SSCAN

    @Test
    void sscan_compactEncodings_returnEverythingWithCursorZero() {
        j2.sadd("sc", "3", "1", "2");
        ScanResult<String> r = j2.sscan("sc", "0", new ScanParams().count(1));
        assertThat(r.getCursor()).isEqualTo("0");
        assertThat(r.getResult()).containsExactly("1", "2", "3");
        assertThat(j2.sscan("sc", "99").getResult()).hasSize(3);
        assertThat(j3.sscan("sc", "0", new ScanParams().match("[12]")).getResult()).containsExactly("1", "2");
        ScanResult<String> none = j2.sscan("nokey", "0");
        assertThat(none.getCursor()).isEqualTo("0");
        assertThat(none.getResult()).isEmpty();
    }

    @Test
    void sscan_hashtable_walksEveryMemberOnce_withMatchAndCount() {
        j2.sadd("big", range("m", 0, 2000));
        for (Jedis j : both()) {
            List<String> seen = new ArrayList<>();
            String cursor = "0";
            int calls = 0;
            do {
                ScanResult<String> r = j.sscan("big", cursor, new ScanParams().count(50));
                seen.addAll(r.getResult());
                cursor = r.getCursor();
                calls++;
            } while (!cursor.equals("0"));
            assertThat(calls).isGreaterThan(10);
            assertThat(new TreeSet<>(seen)).hasSize(2000);
            Set<String> matched = new HashSet<>();
            cursor = "0";
            do {
                ScanResult<String> r = j.sscan("big", cursor, new ScanParams().match("m1?").count(100));
                matched.addAll(r.getResult());
                cursor = r.getCursor();
            } while (!cursor.equals("0"));
            assertThat(matched).containsExactlyInAnyOrder(range("m1", 0, 10));
        }
    }

    @Test
    void sscan_badArguments_repliesRedisErrors() {
        j2.sadd("sc", "a");
        assertError(() -> j2.sendCommand(Protocol.Command.SSCAN, "sc", "x"), "ERR invalid cursor");
        assertError(() -> j2.sendCommand(Protocol.Command.SSCAN, "sc", "0", "COUNT", "0"), "ERR syntax error");
        assertError(() -> j2.sendCommand(Protocol.Command.SSCAN, "sc", "0", "COUNT", "x"),
                "ERR value is not an integer or out of range");
        assertError(() -> j2.sendCommand(Protocol.Command.SSCAN, "sc", "0", "TYPE", "set"), "ERR syntax error");
        assertError(() -> j2.sendCommand(Protocol.Command.SSCAN, "sc", "0", "NOVALUES"),
                "ERR NOVALUES option can only be used in HSCAN");
        assertError(() -> j2.sendCommand(Protocol.Command.SSCAN, "sc", "0", "MATCH"), "ERR syntax error");
    }

    // ---------------------------------------------------------------- Lettuce

    @Test
    void lettuce_resp2AndResp3_readSetReplies() {
        for (int proto : new int[] {2, 3}) {
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> c = TestServers.connect(client)) {
                RedisCommands<String, String> r = c.sync();
                String k = "lt" + proto;
                String[] other = onDifferentShards("lto" + proto + ":", 2);
                assertThat(r.sadd(k, "1", "2", "x")).isEqualTo(3);
                assertThat(r.smembers(k)).containsExactlyInAnyOrder("1", "2", "x");
                assertThat(r.smismember(k, "x", "y")).containsExactly(true, false);
                assertThat(r.sismember(k, "2")).isTrue();
                assertThat(r.srandmember(k, -4)).hasSize(4);
                assertThat(r.spop(k, 0)).isEmpty();
                r.sadd(other[0], "x", "q");
                r.sadd(other[1], "x", "2", "w");
                assertThat(r.sinter(k, other[0], other[1])).containsExactly("x");
                assertThat(r.sintercard(k, other[1])).isEqualTo(2);
                assertThat(r.sintercard(1, k, other[1])).isEqualTo(1);
                assertThat(r.sunionstore(other[0], k, other[1])).isEqualTo(4);
                assertThat(r.sdiff(other[0], k)).containsExactlyInAnyOrder("w");
                assertThat(r.smove(other[1], k, "w")).isTrue();
                ValueScanCursor<String> sc = r.sscan(k, ScanCursor.INITIAL, ScanArgs.Builder.limit(10));
                assertThat(sc.isFinished()).isTrue();
                assertThat(sc.getValues()).containsExactlyInAnyOrder("1", "2", "x", "w");
                r.set("ls" + proto, "v");
                assertThatThrownBy(() -> r.smembers("ls" + proto))
                        .isInstanceOf(RedisCommandExecutionException.class).hasMessage(WRONGTYPE);
            } finally {
                client.shutdown();
            }
        }
    }

    // ---------------------------------------------------------------- memory accounting

    @Test
    void memoryAccounting_returnsToEmpty_afterMutationsAndDeletes() throws Exception {
        j2.select(7);
        try {
            String[] k = onDifferentShards("mem:", 2);
            j2.sadd(k[0], range("", 0, 100));
            j2.sadd(k[0], "x");                                    // intset -> listpack
            j2.sadd(k[0], range("y", 0, 100));                     // -> hashtable
            j2.srem(k[0], range("y", 0, 50));
            j2.spop(k[0], 3);
            j2.spop(k[0]);
            j2.smove(k[0], k[1], "x");                             // creates k[1]
            j2.sadd(k[1], range("z", 0, 30));
            j2.spop(k[1], 28);                                     // keep-the-rest strategy replaces the value
            j2.sinterstore(k[0], k[0], k[0]);
            j2.sdiffstore(k[1], k[1], "nokey");
            assertThat(usedBytesInDb7()).allMatch(v -> v > emptyDbBytes());
            j2.srem(k[1], j2.smembers(k[1]).toArray(new String[0]));   // emptied by SREM
            j2.del(k[0]);
            assertThat(usedBytesInDb7()).allMatch(v -> v == emptyDbBytes());
        } finally {
            j2.flushDB();
            j2.select(0);
        }
    }

    private static long emptyDbBytes() {
        return new Database(7).usedBytes();
    }

    private static List<Long> usedBytesInDb7() throws Exception {
        List<Long> out = new ArrayList<>();
        for (Shard s : server.context().shards().all()) {
            out.add(s.loop().submit(() -> io.tide.testing.SettledMemory.usedBytes(s.db(7))).get(10, TimeUnit.SECONDS));
        }
        return out;
    }
}
