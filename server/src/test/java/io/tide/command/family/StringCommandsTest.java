package io.tide.command.family;

import static io.tide.testing.TestServers.onShard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.GetExArgs;
import io.lettuce.core.KeyValue;
import io.lettuce.core.LcsArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.SetArgs;
import io.lettuce.core.StringMatchResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.shard.Shard;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.GetExParams;
import redis.clients.jedis.params.LCSParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.LCSMatchResult;

/** String commands through real sockets with Jedis and Lettuce, RESP2 and RESP3, on one and two shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class StringCommandsTest extends ServerPerShardCount {

    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    private static final String NOT_INTEGER = "ERR value is not an integer or out of range";


    /** Stores a value of a non-string type under {@code key} (no other type exists yet). */
    private static void putNonString(String key) throws Exception {
        Shard s = server.context().shards().shardOf(bytes(key));
        onShard(server, key, () -> {
            s.db(0).put(bytes(key), new Object(), 0);
            return null;
        });
    }

    /** The key's absolute expiry in unix ms (0 = none), read from the keyspace. */
    private static long expireAt(String key) throws Exception {
        Shard s = server.context().shards().shardOf(bytes(key));
        return onShard(server, key, () -> s.db(0).expireAt(bytes(key)));
    }

    /** The stored value object (to check the integer encoding). */
    private static Object stored(String key) throws Exception {
        Shard s = server.context().shards().shardOf(bytes(key));
        return onShard(server, key, () -> s.db(0).peek(bytes(key), System.currentTimeMillis()));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Object raw(Jedis j, Protocol.Command cmd, String... args) {
        return j.sendCommand(cmd, args);
    }

    // ------------------------------------------------------------------ GET / SET

    @Test
    void getSet_roundTrip_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "gs" + proto;
                assertThat(j.get(k)).isNull();
                assertThat(j.set(k, "hello")).isEqualTo("OK");
                assertThat(j.get(k)).isEqualTo("hello");
                assertThat(j.set(k, "")).isEqualTo("OK");
                assertThat(j.get(k)).isEmpty();
                byte[] binary = {0, 1, (byte) 0xff, '\r', '\n'};
                j.set(bytes(k), binary);
                assertThat(j.get(bytes(k))).isEqualTo(binary);
            }
        }
    }

    @Test
    void set_integerText_isStoredAsSharedLong() throws Exception {
        try (Jedis j = jedis(2)) {
            j.set("int1", "42");
            j.set("int2", "-9223372036854775808");
            j.set("int3", "042");
            j.set("int4", "123456789012345678901");
            assertThat(stored("int1")).isSameAs(stored("int1")).isEqualTo(42L);
            assertThat(stored("int2")).isEqualTo(Long.MIN_VALUE);
            assertThat(stored("int3")).isInstanceOf(byte[].class);
            assertThat(stored("int4")).isInstanceOf(byte[].class);
            assertThat(j.get("int2")).isEqualTo("-9223372036854775808");
            assertThat(j.get("int3")).isEqualTo("042");
        }
    }

    @Test
    void set_nxXx_conditions() {
        try (Jedis j = jedis(2)) {
            assertThat(j.set("nx1", "a", SetParams.setParams().xx())).isNull();
            assertThat(j.get("nx1")).isNull();
            assertThat(j.set("nx1", "a", SetParams.setParams().nx())).isEqualTo("OK");
            assertThat(j.set("nx1", "b", SetParams.setParams().nx())).isNull();
            assertThat(j.get("nx1")).isEqualTo("a");
            assertThat(j.set("nx1", "c", SetParams.setParams().xx())).isEqualTo("OK");
            assertThat(j.get("nx1")).isEqualTo("c");
        }
        try (Jedis j = jedis(3)) {
            assertThat(j.set("nx3", "a", SetParams.setParams().xx())).isNull();
        }
    }

    @Test
    void set_withGet_returnsOldValue() {
        try (Jedis j = jedis(3)) {
            assertThat(j.setGet("sg", "v1")).isNull();
            assertThat(j.setGet("sg", "v2")).isEqualTo("v1");
            assertThat(j.get("sg")).isEqualTo("v2");
            // NX + GET on an existing key: old value, no write.
            assertThat(j.setGet("sg", "v3", SetParams.setParams().nx())).isEqualTo("v2");
            assertThat(j.get("sg")).isEqualTo("v2");
            // XX + GET on a missing key: null, no write.
            assertThat(j.setGet("sg-missing", "x", SetParams.setParams().xx())).isNull();
            assertThat(j.get("sg-missing")).isNull();
        }
    }

    @Test
    void set_onWrongTypeWithGet_repliesWrongTypeAndKeepsValue() throws Exception {
        putNonString("wt-set");
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> j.setGet("wt-set", "v")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.get("wt-set")).hasMessage(WRONGTYPE);
            // plain SET overwrites any type
            assertThat(j.set("wt-set", "v")).isEqualTo("OK");
            assertThat(j.get("wt-set")).isEqualTo("v");
        }
    }

    @Test
    void set_expiryOptions_setAbsoluteExpiry() throws Exception {
        try (Jedis j = jedis(2)) {
            long before = System.currentTimeMillis();
            j.set("ex1", "v", SetParams.setParams().ex(100));
            assertThat(expireAt("ex1")).isBetween(before + 100_000, System.currentTimeMillis() + 100_000);
            j.set("ex2", "v", SetParams.setParams().px(5000));
            assertThat(expireAt("ex2")).isBetween(before + 5000, System.currentTimeMillis() + 5000);
            long at = System.currentTimeMillis() / 1000 + 1000;
            j.set("ex3", "v", SetParams.setParams().exAt(at));
            assertThat(expireAt("ex3")).isEqualTo(at * 1000);
            j.set("ex4", "v", SetParams.setParams().pxAt(at * 1000 + 7));
            assertThat(expireAt("ex4")).isEqualTo(at * 1000 + 7);
            // SET without KEEPTTL clears the TTL, with KEEPTTL keeps it
            j.set("ex4", "w", SetParams.setParams().keepTtl());
            assertThat(expireAt("ex4")).isEqualTo(at * 1000 + 7);
            j.set("ex4", "w");
            assertThat(expireAt("ex4")).isZero();
            // last EX wins, as in Redis
            raw(j, Protocol.Command.SET, "ex5", "v", "EX", "10", "EX", "20");
            assertThat(expireAt("ex5")).isGreaterThanOrEqualTo(before + 20_000);
        }
    }

    @Test
    void set_ex1_keyGoneAfterASecond() throws Exception {
        try (Jedis j = jedis(2)) {
            j.set("gone-ex", "v", SetParams.setParams().ex(1));
            j.set("gone-px", "v", SetParams.setParams().px(100));
            j.psetex("gone-psetex", 100, "v");
            assertThat(j.get("gone-ex")).isEqualTo("v");
            Thread.sleep(200);
            assertThat(j.get("gone-px")).isNull();
            assertThat(j.get("gone-psetex")).isNull();
            assertThat(j.get("gone-ex")).isEqualTo("v");
            Thread.sleep(950);
            assertThat(j.get("gone-ex")).isNull();
            // an EXAT in the past is accepted and the key is gone at once
            raw(j, Protocol.Command.SET, "gone-exat", "v", "EXAT", "1");
            assertThat(j.get("gone-exat")).isNull();
        }
    }

    @Test
    void set_invalidOptions_repliesSyntaxOrExpireErrors() {
        try (Jedis j = jedis(2)) {
            String[][] syntax = {
                {"k", "v", "NX", "XX"}, {"k", "v", "XX", "NX"}, {"k", "v", "EX", "10", "PX", "100"},
                {"k", "v", "EX", "10", "KEEPTTL"}, {"k", "v", "KEEPTTL", "PX", "1"}, {"k", "v", "EXAT", "1", "PXAT", "1"},
                {"k", "v", "EX"}, {"k", "v", "PERSIST"}, {"k", "v", "FOO"}, {"k", "v", "EX", "abc", "NX", "XX"},
            };
            for (String[] args : syntax) {
                assertThatThrownBy(() -> raw(j, Protocol.Command.SET, args)).as(String.join(" ", args))
                        .isInstanceOf(JedisDataException.class).hasMessage("ERR syntax error");
            }
            String[][] expire = {
                {"k", "v", "EX", "0"}, {"k", "v", "PX", "-1"}, {"k", "v", "EXAT", "0"}, {"k", "v", "PXAT", "-5"},
                {"k", "v", "EX", "9223372036854776"}, {"k", "v", "PX", "9223372036854775807"},
            };
            for (String[] args : expire) {
                assertThatThrownBy(() -> raw(j, Protocol.Command.SET, args)).as(String.join(" ", args))
                        .hasMessage("ERR invalid expire time in 'set' command");
            }
            assertThatThrownBy(() -> raw(j, Protocol.Command.SET, "k", "v", "EX", "1.5")).hasMessage(NOT_INTEGER);
            assertThatThrownBy(() -> raw(j, Protocol.Command.SET, "k")).hasMessage(
                    "ERR wrong number of arguments for 'set' command");
            assertThat(j.get("k")).isNull();
        }
    }

    @Test
    void setnxSetexPsetex_behaveAsRedis() throws Exception {
        try (Jedis j = jedis(2)) {
            assertThat(j.setnx("snx", "a")).isEqualTo(1);
            assertThat(j.setnx("snx", "b")).isZero();
            assertThat(j.get("snx")).isEqualTo("a");
            long before = System.currentTimeMillis();
            assertThat(j.setex("sex", 50, "v")).isEqualTo("OK");
            assertThat(expireAt("sex")).isBetween(before + 50_000, System.currentTimeMillis() + 50_000);
            assertThat(j.psetex("psex", 1500, "v")).isEqualTo("OK");
            assertThat(expireAt("psex")).isBetween(before + 1500, System.currentTimeMillis() + 1500);
            assertThatThrownBy(() -> raw(j, Protocol.Command.SETEX, "sex", "0", "v"))
                    .hasMessage("ERR invalid expire time in 'setex' command");
            assertThatThrownBy(() -> raw(j, Protocol.Command.SETEX, "sex", "-3", "v"))
                    .hasMessage("ERR invalid expire time in 'setex' command");
            assertThatThrownBy(() -> raw(j, Protocol.Command.PSETEX, "sex", "0", "v"))
                    .hasMessage("ERR invalid expire time in 'psetex' command");
            assertThatThrownBy(() -> raw(j, Protocol.Command.SETEX, "sex", "x", "v")).hasMessage(NOT_INTEGER);
        }
    }

    @Test
    void getsetGetdel_returnOldValue() throws Exception {
        try (Jedis j = jedis(3)) {
            assertThat(j.getSet("gs1", "a")).isNull();
            j.set("gs1", "b", SetParams.setParams().ex(100));
            assertThat(j.getSet("gs1", "c")).isEqualTo("b");
            assertThat(expireAt("gs1")).isZero(); // GETSET clears the TTL
            assertThat(j.getDel("gs1")).isEqualTo("c");
            assertThat(j.get("gs1")).isNull();
            assertThat(j.getDel("gs1")).isNull();
        }
    }

    @Test
    void getsetGetdel_onWrongType_repliesWrongType() throws Exception {
        putNonString("wt-gs");
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> j.getSet("wt-gs", "x")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.getDel("wt-gs")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.getEx("wt-gs", GetExParams.getExParams().ex(10))).hasMessage(WRONGTYPE);
        }
    }

    @Test
    void getex_options_changeTtl() throws Exception {
        try (Jedis j = jedis(2)) {
            assertThat(j.getEx("gx-missing", GetExParams.getExParams().ex(10))).isNull();
            j.set("gx", "v");
            long before = System.currentTimeMillis();
            assertThat(j.getEx("gx", GetExParams.getExParams().ex(100))).isEqualTo("v");
            assertThat(expireAt("gx")).isBetween(before + 100_000, System.currentTimeMillis() + 100_000);
            j.getEx("gx", GetExParams.getExParams().px(2000));
            assertThat(expireAt("gx")).isBetween(before + 2000, System.currentTimeMillis() + 2000);
            long at = System.currentTimeMillis() / 1000 + 500;
            j.getEx("gx", GetExParams.getExParams().exAt(at));
            assertThat(expireAt("gx")).isEqualTo(at * 1000);
            j.getEx("gx", GetExParams.getExParams().pxAt(at * 1000 + 3));
            assertThat(expireAt("gx")).isEqualTo(at * 1000 + 3);
            assertThat(j.getEx("gx", GetExParams.getExParams())).isEqualTo("v");
            assertThat(expireAt("gx")).isEqualTo(at * 1000 + 3);
            j.getEx("gx", GetExParams.getExParams().persist());
            assertThat(expireAt("gx")).isZero();
            // PXAT in the past deletes the key after replying its value
            assertThat(j.getEx("gx", GetExParams.getExParams().pxAt(1))).isEqualTo("v");
            assertThat(j.get("gx")).isNull();
        }
    }

    @Test
    void getex_invalidOptions_repliesErrors() {
        try (Jedis j = jedis(3)) {
            j.set("gxe", "v");
            for (String[] args : new String[][] {
                {"gxe", "KEEPTTL"}, {"gxe", "NX"}, {"gxe", "GET"}, {"gxe", "EX", "1", "PERSIST"},
                {"gxe", "PERSIST", "EX", "1"}, {"gxe", "EX"}, {"gxe", "EX", "1", "PX", "1"},
            }) {
                assertThatThrownBy(() -> raw(j, Protocol.Command.GETEX, args)).as(String.join(" ", args))
                        .hasMessage("ERR syntax error");
            }
            assertThatThrownBy(() -> raw(j, Protocol.Command.GETEX, "gxe", "EX", "0"))
                    .hasMessage("ERR invalid expire time in 'getex' command");
            assertThatThrownBy(() -> raw(j, Protocol.Command.GETEX, "gxe", "EX", "z")).hasMessage(NOT_INTEGER);
            // a missing key answers null before the expire time is checked
            assertThat(raw(j, Protocol.Command.GETEX, "gxe-missing", "EX", "0")).isNull();
        }
    }

    // ------------------------------------------------------------------ MGET / MSET / MSETNX

    @Test
    void msetMget_manyKeys_acrossShards() {
        try (Jedis j = jedis(2)) {
            List<String> kv = new ArrayList<>();
            String[] keys = new String[200];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = "mk:" + i;
                kv.add(keys[i]);
                kv.add("val" + i);
            }
            assertThat(j.mset(kv.toArray(new String[0]))).isEqualTo("OK");
            List<String> got = j.mget(keys);
            for (int i = 0; i < keys.length; i++) assertThat(got.get(i)).isEqualTo("val" + i);
            assertThat(j.mget("mk:0", "mk-missing", "mk:199")).containsExactly("val0", null, "val199");
        }
    }

    @Test
    void mget_nonStringValue_isNull() throws Exception {
        putNonString("wt-mget");
        try (Jedis j = jedis(3)) {
            j.set("mg-ok", "x");
            assertThat(j.mget("wt-mget", "mg-ok")).containsExactly(null, "x");
        }
    }

    @Test
    void msetnx_allOrNothing() {
        try (Jedis j = jedis(2)) {
            assertThat(j.msetnx("mnx:a", "1", "mnx:b", "2", "mnx:c", "3")).isEqualTo(1);
            assertThat(j.msetnx("mnx:d", "4", "mnx:b", "x")).isZero();
            assertThat(j.mget("mnx:a", "mnx:b", "mnx:c", "mnx:d")).containsExactly("1", "2", "3", null);
        }
    }

    @Test
    void mset_oddArguments_repliesWrongArity() {
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> raw(j, Protocol.Command.MSET, "a", "1", "b"))
                    .hasMessage("ERR wrong number of arguments for 'mset' command");
            assertThatThrownBy(() -> raw(j, Protocol.Command.MSETNX, "a", "1", "b"))
                    .hasMessage("ERR wrong number of arguments for 'msetnx' command");
            assertThatThrownBy(() -> raw(j, Protocol.Command.MGET))
                    .hasMessage("ERR wrong number of arguments for 'mget' command");
        }
    }

    @Test
    void mset_clearsTtl() throws Exception {
        try (Jedis j = jedis(2)) {
            j.set("mttl", "v", SetParams.setParams().ex(100));
            j.mset("mttl", "w", "mttl2", "z");
            assertThat(expireAt("mttl")).isZero();
        }
    }

    // ------------------------------------------------------------------ APPEND / STRLEN / ranges

    @Test
    void appendStrlen_buildStrings() throws Exception {
        try (Jedis j = jedis(2)) {
            assertThat(j.strlen("ap")).isZero();
            assertThat(j.append("ap", "Hello")).isEqualTo(5);
            assertThat(j.append("ap", " World")).isEqualTo(11);
            assertThat(j.get("ap")).isEqualTo("Hello World");
            assertThat(j.strlen("ap")).isEqualTo(11);
            j.set("apn", "-123");
            assertThat(j.strlen("apn")).isEqualTo(4);
            assertThat(j.append("apn", "4")).isEqualTo(5);
            assertThat(j.get("apn")).isEqualTo("-1234");
            assertThat(j.incr("apn")).isEqualTo(-1233);
            j.set("apt", "x", SetParams.setParams().ex(100));
            j.append("apt", "y");
            assertThat(expireAt("apt")).isPositive();
        }
    }

    @Test
    void appendStrlen_onWrongType_repliesWrongType() throws Exception {
        putNonString("wt-ap");
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> j.append("wt-ap", "x")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.strlen("wt-ap")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.getrange("wt-ap", 0, 1)).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.setrange("wt-ap", 0, "x")).hasMessage(WRONGTYPE);
        }
    }

    @Test
    void getrangeSubstr_clampIndexes() {
        try (Jedis j = jedis(3)) {
            j.set("gr", "This is a string");
            assertThat(j.getrange("gr", 0, 3)).isEqualTo("This");
            assertThat(j.getrange("gr", -3, -1)).isEqualTo("ing");
            assertThat(j.getrange("gr", 0, -1)).isEqualTo("This is a string");
            assertThat(j.getrange("gr", 10, 100)).isEqualTo("string");
            assertThat(j.getrange("gr", -100, 3)).isEqualTo("This");
            assertThat(j.getrange("gr", 5, 3)).isEmpty();
            assertThat(j.getrange("gr", -1, -5)).isEmpty();
            assertThat(j.getrange("gr-missing", 0, -1)).isEmpty();
            assertThat(j.substr("gr", 5, 6)).isEqualTo("is");
            j.set("grn", "12345");
            assertThat(j.getrange("grn", 1, 2)).isEqualTo("23");
            assertThatThrownBy(() -> raw(j, Protocol.Command.GETRANGE, "gr", "a", "1")).hasMessage(NOT_INTEGER);
        }
    }

    @Test
    void setrange_padsAndOverwrites() throws Exception {
        try (Jedis j = jedis(2)) {
            assertThat(j.setrange("sr", 5, "x")).isEqualTo(6);
            assertThat(j.get(bytes("sr"))).isEqualTo(new byte[] {0, 0, 0, 0, 0, 'x'});
            j.set("sr2", "Hello World");
            assertThat(j.setrange("sr2", 6, "Redis")).isEqualTo(11);
            assertThat(j.get("sr2")).isEqualTo("Hello Redis");
            assertThat(j.setrange("sr2", 0, "")).isEqualTo(11);
            assertThat(j.setrange("sr-empty", 3, "")).isZero();
            assertThat(j.get("sr-empty")).isNull();
            j.set("sr3", "1234");
            assertThat(j.setrange("sr3", 1, "9")).isEqualTo(4);
            assertThat(j.incr("sr3")).isEqualTo(1935);
            assertThatThrownBy(() -> j.setrange("sr2", -1, "x")).hasMessage("ERR offset is out of range");
            assertThatThrownBy(() -> j.setrange("sr2", 536870912, "x"))
                    .hasMessage("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
            assertThatThrownBy(() -> j.setrange("sr-new", 536870912, "x"))
                    .hasMessage("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        }
    }

    @Test
    void setrange_sharedArraysAreNotMutated() {
        try (Jedis j = jedis(2)) {
            j.set("shr", "abc");
            String before = j.get("shr");
            j.setrange("shr", 0, "X");
            j.append("shr", "Y");
            assertThat(before).isEqualTo("abc");
            assertThat(j.get("shr")).isEqualTo("XbcY");
        }
    }

    // ------------------------------------------------------------------ counters

    @Test
    void incrDecr_countAndKeepTtl() throws Exception {
        try (Jedis j = jedis(2)) {
            assertThat(j.incr("cnt")).isEqualTo(1);
            assertThat(j.incrBy("cnt", 41)).isEqualTo(42);
            assertThat(j.decr("cnt")).isEqualTo(41);
            assertThat(j.decrBy("cnt", 50)).isEqualTo(-9);
            assertThat(j.get("cnt")).isEqualTo("-9");
            j.set("cntt", "10", SetParams.setParams().ex(100));
            j.incr("cntt");
            assertThat(expireAt("cntt")).isPositive();
            assertThat(stored("cnt")).isEqualTo(-9L);
        }
        try (Jedis j = jedis(3)) {
            assertThat(j.incrBy("cnt3", -5)).isEqualTo(-5);
        }
    }

    @Test
    void incr_onNonInteger_repliesNotInteger() {
        try (Jedis j = jedis(2)) {
            j.set("ni", "abc");
            j.set("ni2", " 1");
            j.set("ni3", "01");
            j.set("ni4", "1.0");
            for (String k : new String[] {"ni", "ni2", "ni3", "ni4"}) {
                assertThatThrownBy(() -> j.incr(k)).hasMessage(NOT_INTEGER);
            }
            assertThatThrownBy(() -> raw(j, Protocol.Command.INCRBY, "cn", "1x")).hasMessage(NOT_INTEGER);
            assertThatThrownBy(() -> raw(j, Protocol.Command.DECRBY, "cn", "")).hasMessage(NOT_INTEGER);
        }
    }

    @Test
    void incr_onWrongType_repliesWrongType() throws Exception {
        putNonString("wt-incr");
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> j.incr("wt-incr")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.incrByFloat("wt-incr", 1.5)).hasMessage(WRONGTYPE);
        }
    }

    @Test
    void incr_overflow_repliesOverflow() {
        try (Jedis j = jedis(2)) {
            j.set("of", "9223372036854775807");
            assertThatThrownBy(() -> j.incr("of")).hasMessage("ERR increment or decrement would overflow");
            j.set("of2", "-9223372036854775808");
            assertThatThrownBy(() -> j.decr("of2")).hasMessage("ERR increment or decrement would overflow");
            assertThatThrownBy(() -> j.decrBy("of3", Long.MIN_VALUE)).hasMessage("ERR decrement would overflow");
            assertThat(j.incrBy("of4", Long.MIN_VALUE)).isEqualTo(Long.MIN_VALUE);
            assertThat(j.get("of")).isEqualTo("9223372036854775807");
        }
    }

    @Test
    void incrbyfloat_formatsLikeRedis() {
        try (Jedis j = jedis(2)) {
            j.set("f", "10.5");
            assertThat(raw(j, Protocol.Command.INCRBYFLOAT, "f", "0.1")).isEqualTo(bytes("10.6"));
            j.set("f2", "5.0e3");
            assertThat(raw(j, Protocol.Command.INCRBYFLOAT, "f2", "2.0e2")).isEqualTo(bytes("5200"));
            assertThat(raw(j, Protocol.Command.INCRBYFLOAT, "f3", "-3.0")).isEqualTo(bytes("-3"));
            assertThat(j.get("f3")).isEqualTo("-3");
            assertThat(j.incrBy("f3", 1)).isEqualTo(-2);
            assertThat(j.incrByFloat("f4", 1.5)).isEqualTo(1.5);
        }
        try (Jedis j = jedis(3)) {
            assertThat(j.incrByFloat("f5", 0.25)).isEqualTo(0.25);
        }
    }

    @Test
    void incrbyfloat_errors() throws Exception {
        try (Jedis j = jedis(2)) {
            j.set("fe", "abc");
            assertThatThrownBy(() -> raw(j, Protocol.Command.INCRBYFLOAT, "fe", "1"))
                    .hasMessage("ERR value is not a valid float");
            assertThatThrownBy(() -> raw(j, Protocol.Command.INCRBYFLOAT, "fe2", "x"))
                    .hasMessage("ERR value is not a valid float");
            assertThatThrownBy(() -> raw(j, Protocol.Command.INCRBYFLOAT, "fe2", "nan"))
                    .hasMessage("ERR value is not a valid float");
            assertThatThrownBy(() -> raw(j, Protocol.Command.INCRBYFLOAT, "fe2", "inf"))
                    .hasMessage("ERR increment would produce NaN or Infinity");
            j.set("fe3", "1e4932");
            assertThatThrownBy(() -> raw(j, Protocol.Command.INCRBYFLOAT, "fe3", "1e4932"))
                    .hasMessage("ERR increment would produce NaN or Infinity");
            j.set("fe4", "7", SetParams.setParams().ex(100));
            j.incrByFloat("fe4", 1);
            assertThat(expireAt("fe4")).isPositive();
        }
    }

    // ------------------------------------------------------------------ LCS

    @Test
    void lcs_stringLenAndIdx_jedis() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                j.mset("{l}1", "ohmytext", "{l}2", "mynewtext");
                assertThat(j.lcs("{l}1", "{l}2", LCSParams.LCSParams()).getMatchString()).isEqualTo("mytext");
                assertThat(j.lcs("{l}1", "{l}2", LCSParams.LCSParams().len()).getLen()).isEqualTo(6);
                LCSMatchResult r = j.lcs("{l}1", "{l}2", LCSParams.LCSParams().idx().withMatchLen());
                assertThat(r.getLen()).isEqualTo(6);
                assertThat(r.getMatches()).hasSize(2);
                assertThat(r.getMatches().get(0).getA().getStart()).isEqualTo(4);
                assertThat(r.getMatches().get(0).getA().getEnd()).isEqualTo(7);
                assertThat(r.getMatches().get(0).getB().getStart()).isEqualTo(5);
                assertThat(r.getMatches().get(0).getB().getEnd()).isEqualTo(8);
                assertThat(r.getMatches().get(0).getMatchLen()).isEqualTo(4);
                assertThat(r.getMatches().get(1).getA().getStart()).isEqualTo(2);
                assertThat(r.getMatches().get(1).getMatchLen()).isEqualTo(2);
                LCSMatchResult min = j.lcs("{l}1", "{l}2", LCSParams.LCSParams().idx().minMatchLen(4));
                assertThat(min.getMatches()).hasSize(1);
            }
        }
    }

    @Test
    void lcs_acrossShards_andMissingKeys() {
        try (Jedis j = jedis(2)) {
            j.set("lcs-a", "ohmytext");
            j.set("lcs-b", "mynewtext");
            assertThat(j.lcs("lcs-a", "lcs-b", LCSParams.LCSParams()).getMatchString()).isEqualTo("mytext");
            assertThat(j.lcs("lcs-a", "lcs-missing", LCSParams.LCSParams()).getMatchString()).isEmpty();
            assertThat(j.lcs("lcs-missing", "lcs-missing2", LCSParams.LCSParams().len()).getLen()).isZero();
        }
    }

    @Test
    void lcs_errors() throws Exception {
        putNonString("wt-lcs");
        try (Jedis j = jedis(2)) {
            j.set("le1", "abc");
            assertThatThrownBy(() -> raw(j, Protocol.Command.LCS, "le1", "wt-lcs"))
                    .hasMessage("ERR The specified keys must contain string values");
            assertThatThrownBy(() -> raw(j, Protocol.Command.LCS, "le1", "le1", "IDX", "LEN"))
                    .hasMessage("ERR If you want both the length and indexes, please just use IDX.");
            assertThatThrownBy(() -> raw(j, Protocol.Command.LCS, "le1", "le1", "MINMATCHLEN"))
                    .hasMessage("ERR syntax error");
            assertThatThrownBy(() -> raw(j, Protocol.Command.LCS, "le1", "le1", "MINMATCHLEN", "x"))
                    .hasMessage(NOT_INTEGER);
            assertThatThrownBy(() -> raw(j, Protocol.Command.LCS, "le1")).hasMessage(
                    "ERR wrong number of arguments for 'lcs' command");
        }
    }

    // ------------------------------------------------------------------ Lettuce

    @Test
    void lettuce_stringCommands_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> r = c.sync();
                String p = "lt" + proto + ":";
                assertThat(r.set(p + "a", "1")).isEqualTo("OK");
                assertThat(r.set(p + "a", "2", SetArgs.Builder.nx())).isNull();
                assertThat(r.setGet(p + "a", "3")).isEqualTo("1");
                assertThat(r.get(p + "a")).isEqualTo("3");
                assertThat(r.incrby(p + "a", 7)).isEqualTo(10);
                assertThat(r.incrbyfloat(p + "a", 0.5)).isEqualTo(10.5);
                Map<String, String> m = new LinkedHashMap<>();
                for (int i = 0; i < 50; i++) m.put(p + "m" + i, "v" + i);
                assertThat(r.mset(m)).isEqualTo("OK");
                List<KeyValue<String, String>> got = r.mget(p + "m0", p + "m49", p + "nope");
                assertThat(got.get(0).getValue()).isEqualTo("v0");
                assertThat(got.get(1).getValue()).isEqualTo("v49");
                assertThat(got.get(2).hasValue()).isFalse();
                assertThat(r.msetnx(Map.of(p + "m0", "x", p + "new", "y"))).isFalse();
                assertThat(r.getex(p + "m1", GetExArgs.Builder.ex(100))).isEqualTo("v1");
                assertThat(r.getdel(p + "m1")).isEqualTo("v1");
                assertThat(r.append(p + "m2", "!")).isEqualTo(3);
                assertThat(r.strlen(p + "m2")).isEqualTo(3);
                assertThat(r.getrange(p + "m2", 0, 0)).isEqualTo("v");
                assertThat(r.setrange(p + "m2", 1, "X")).isEqualTo(3);
                assertThat(r.setnx(p + "m2", "z")).isFalse();
                assertThat(r.setex(p + "ex", 100, "z")).isEqualTo("OK");
                assertThat(r.psetex(p + "px", 100_000, "z")).isEqualTo("OK");
                assertThat(r.getset(p + "ex", "w")).isEqualTo("z");
                assertThat(r.decr(p + "cnt")).isEqualTo(-1);
                assertThat(r.decrby(p + "cnt", 2)).isEqualTo(-3);
                assertThat(r.incr(p + "cnt")).isEqualTo(-2);
                r.set(p + "x1", "ohmytext");
                r.set(p + "x2", "mynewtext");
                StringMatchResult lcs = r.lcs(LcsArgs.Builder.keys(p + "x1", p + "x2").withIdx().withMatchLen());
                assertThat(lcs.getLen()).isEqualTo(6);
                assertThat(lcs.getMatches()).hasSize(2);
                assertThat(r.lcs(LcsArgs.Builder.keys(p + "x1", p + "x2")).getMatchString()).isEqualTo("mytext");
                assertThatThrownBy(() -> r.incr(p + "m2")).isInstanceOf(RedisCommandExecutionException.class)
                        .hasMessage(NOT_INTEGER);
            } finally {
                client.shutdown();
            }
        }
    }

    // ------------------------------------------------------------------ Valkey's SET IFEQ and DELIFEQ

    /** Sends each command on one raw connection (RESP3 after HELLO 3 when {@code proto} is 3) and returns the replies. */
    private List<String> rawSession(int proto, String[]... commands) throws Exception {
        List<String> out = new ArrayList<>();
        try (io.tide.testing.RawClient c = new io.tide.testing.RawClient(server.port())) {
            if (proto == 3) c.call("HELLO", "3");
            for (String[] cmd : commands) out.add(c.call(cmd));
        }
        return out;
    }

    private static String[] c(String... args) {
        return args;
    }

    @Test
    void setIfeq_setsOnlyOverAnEqualString_asValkeyDocuments() throws Exception {
        for (int proto : new int[] {2, 3}) {
            String k = "ifeq" + proto + shards;
            String nil = proto == 3 ? "_\r\n" : "$-1\r\n";
            List<String> r = rawSession(proto,
                    c("SET", k, "v1"),
                    c("SET", k, "v2", "IFEQ", "v1"),
                    c("GET", k),
                    c("SET", k, "v3", "IFEQ", "nope"),
                    c("SET", k + "missing", "v", "IFEQ", "x"),
                    c("EXISTS", k + "missing"),
                    c("SET", k, "v4", "IFEQ", "v2", "GET"),
                    c("SET", k, "v5", "IFEQ", "wrong", "GET"),
                    c("SET", k + "missing", "v", "IFEQ", "x", "GET"),
                    c("GET", k),
                    c("RPUSH", k + "list", "a"),
                    c("SET", k + "list", "v", "IFEQ", "a"),
                    c("SET", k + "list", "v", "IFEQ", "a", "GET"),
                    c("SET", k, "v", "IFEQ", "v4", "NX"),
                    c("SET", k, "v", "NX", "IFEQ", "v4"),
                    c("SET", k, "v", "XX", "IFEQ", "v4"),
                    c("SET", k, "v", "IFEQ"),
                    c("SET", k, "v", "IFEQ", "v4", "EX", "0"),
                    c("SET", k, "v6", "IFEQ", "v4", "EX", "100"),
                    c("TTL", k),
                    c("SET", k, "v7", "IFEQ", "v6", "KEEPTTL"),
                    c("TTL", k),
                    c("SET", k, "v8", "IFEQ", "v7"),
                    c("TTL", k),
                    c("SET", k + "n", "10"),
                    c("SET", k + "n", "11", "IFEQ", "10"),
                    c("GET", k + "n"));
            assertThat(r).containsExactly(
                    "+OK\r\n", "+OK\r\n", "$2\r\nv2\r\n", nil, nil, ":0\r\n",
                    "$2\r\nv2\r\n", "$2\r\nv4\r\n", nil, "$2\r\nv4\r\n",
                    ":1\r\n", "-" + WRONGTYPE + "\r\n", "-" + WRONGTYPE + "\r\n",
                    "-ERR syntax error\r\n", "-ERR syntax error\r\n", "-ERR syntax error\r\n", "-ERR syntax error\r\n",
                    "-ERR invalid expire time in 'set' command\r\n",
                    "+OK\r\n", ":100\r\n", "+OK\r\n", ":100\r\n", "+OK\r\n", ":-1\r\n",
                    "+OK\r\n", "+OK\r\n", "$2\r\n11\r\n");
        }
    }

    @Test
    void delifeq_deletesOnlyAnEqualString_asValkeyDocuments() throws Exception {
        for (int proto : new int[] {2, 3}) {
            String k = "delifeq" + proto + shards;
            List<String> r = rawSession(proto,
                    c("SET", k, "tok"),
                    c("DELIFEQ", k, "other"),
                    c("GET", k),
                    c("DELIFEQ", k, "tok"),
                    c("EXISTS", k),
                    c("DELIFEQ", k, "tok"),
                    c("SADD", k + "set", "tok"),
                    c("DELIFEQ", k + "set", "tok"),
                    c("SET", k + "n", "5"),
                    c("DELIFEQ", k + "n", "5"),
                    c("DELIFEQ", k),
                    c("DELIFEQ", k, "a", "b"));
            assertThat(r).containsExactly("+OK\r\n", ":0\r\n", "$3\r\ntok\r\n", ":1\r\n", ":0\r\n", ":0\r\n",
                    ":1\r\n", "-" + WRONGTYPE + "\r\n", "+OK\r\n", ":1\r\n",
                    "-ERR wrong number of arguments for 'delifeq' command\r\n",
                    "-ERR wrong number of arguments for 'delifeq' command\r\n");
        }
        try (Jedis j = jedis(2)) {
            j.set("lockj" + shards, "me");
            Object deleted = j.sendCommand(() -> "DELIFEQ".getBytes(StandardCharsets.US_ASCII), "lockj" + shards, "me");
            assertThat(deleted).isEqualTo(1L);
        }
    }
}
