package io.tide.command.family;

import static io.tide.testing.TestServers.onShard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.store.Database;
import io.tide.store.HashValue;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/** Hash commands through real sockets with Jedis and Lettuce, RESP2 and RESP3, on one and two shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class HashCommandsTest extends ServerPerShardCount {

    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Database db(String key) {
        return server.context().shards().shardOf(bytes(key)).db(0);
    }

    private static Object raw(Jedis j, Protocol.Command cmd, String... args) {
        return j.sendCommand(cmd, args);
    }

    // ------------------------------------------------------------------ basics

    @Test
    void hsetHget_roundTrip_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "basic" + proto;
                Map<String, String> m = new LinkedHashMap<>();
                m.put("a", "1");
                m.put("b", "2");
                m.put("c", "3");
                assertThat(j.hset(k, m)).isEqualTo(3);
                assertThat(j.hset(k, "a", "10")).isZero();
                assertThat(j.hget(k, "a")).isEqualTo("10");
                assertThat(j.hget(k, "zz")).isNull();
                assertThat(j.hget("nokey" + proto, "a")).isNull();
                assertThat(j.hmget(k, "a", "zz", "c")).containsExactly("10", null, "3");
                assertThat(j.hgetAll(k)).containsExactly(Map.entry("a", "10"), Map.entry("b", "2"), Map.entry("c", "3"));
                assertThat(j.hgetAll("nokey" + proto)).isEmpty();
                assertThat(j.hkeys(k)).containsExactlyInAnyOrder("a", "b", "c");
                assertThat(j.hvals(k)).containsExactly("10", "2", "3");
                assertThat(j.hlen(k)).isEqualTo(3);
                assertThat(j.hstrlen(k, "a")).isEqualTo(2);
                assertThat(j.hstrlen(k, "zz")).isZero();
                assertThat(j.hexists(k, "b")).isTrue();
                assertThat(j.hexists(k, "zz")).isFalse();
                assertThat(j.hsetnx(k, "b", "x")).isZero();
                assertThat(j.hsetnx(k, "d", "4")).isEqualTo(1);
                assertThat(j.hmset(k, Map.of("e", "5"))).isEqualTo("OK");
                assertThat(j.type(k)).isEqualTo("hash");
                assertThat(j.objectEncoding(k)).isEqualTo("listpack");
                byte[] binField = {0, (byte) 0xff, '\r', '\n'};
                byte[] binValue = {1, 0, 2};
                j.hset(bytes(k), binField, binValue);
                assertThat(j.hget(bytes(k), binField)).isEqualTo(binValue);
            }
        }
    }

    @Test
    void hdel_lastField_deletesKey() {
        try (Jedis j = jedis(2)) {
            j.hset("hd", Map.of("a", "1", "b", "2"));
            assertThat(j.hdel("hd", "a", "zz", "a")).isEqualTo(1);
            assertThat(j.hdel("hd", "b")).isEqualTo(1);
            assertThat(j.exists("hd")).isFalse();
            assertThat(j.hdel("hd", "b")).isZero();
            assertThat(j.hlen("hd")).isZero();
        }
    }

    @Test
    void hset_onWrongType_repliesWrongType_forEveryCommand() {
        try (Jedis j = jedis(3)) {
            j.set("wt", "x");
            String[][] calls = {
                {"HSET", "wt", "f", "v"}, {"HMSET", "wt", "f", "v"}, {"HSETNX", "wt", "f", "v"}, {"HGET", "wt", "f"},
                {"HMGET", "wt", "f"}, {"HDEL", "wt", "f"}, {"HLEN", "wt"}, {"HSTRLEN", "wt", "f"}, {"HEXISTS", "wt", "f"},
                {"HKEYS", "wt"}, {"HVALS", "wt"}, {"HGETALL", "wt"}, {"HINCRBY", "wt", "f", "1"},
                {"HINCRBYFLOAT", "wt", "f", "1"}, {"HRANDFIELD", "wt"}, {"HRANDFIELD", "wt", "3"}, {"HSCAN", "wt", "0"},
                {"HEXPIRE", "wt", "10", "FIELDS", "1", "f"}, {"HTTL", "wt", "FIELDS", "1", "f"},
                {"HPERSIST", "wt", "FIELDS", "1", "f"},
            };
            for (String[] c : calls) {
                String[] args = java.util.Arrays.copyOfRange(c, 1, c.length);
                assertThatThrownBy(() -> j.sendCommand(Protocol.Command.valueOf(c[0]), args)).as(c[0])
                        .isInstanceOf(JedisDataException.class).hasMessage(WRONGTYPE);
            }
            assertThat(j.get("wt")).isEqualTo("x");
        }
    }

    @Test
    void hset_oddArguments_repliesArityError() {
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> raw(j, Protocol.Command.HSET, "ar", "f", "v", "g"))
                    .hasMessage("ERR wrong number of arguments for 'hset' command");
            assertThatThrownBy(() -> raw(j, Protocol.Command.HMSET, "ar", "f", "v", "g"))
                    .hasMessage("ERR wrong number of arguments for 'hmset' command");
            assertThat(j.exists("ar")).isFalse();
        }
    }

    // ------------------------------------------------------------------ counters

    @Test
    void hincrby_andHincrbyfloat_valuesAndErrors() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "cnt" + proto;
                assertThat(j.hincrBy(k, "n", 5)).isEqualTo(5);
                assertThat(j.hincrBy(k, "n", -7)).isEqualTo(-2);
                assertThat(j.hincrByFloat(k, "f", 10.5)).isEqualTo(10.5);
                assertThat(j.hincrByFloat(k, "f", 0.1)).isEqualTo(10.6);
                assertThat(j.hget(k, "f")).isEqualTo("10.6");
                j.hset(k, "max", Long.toString(Long.MAX_VALUE));
                assertThatThrownBy(() -> j.hincrBy(k, "max", 1)).hasMessage("ERR increment or decrement would overflow");
                j.hset(k, "txt", "abc");
                assertThatThrownBy(() -> j.hincrBy(k, "txt", 1)).hasMessage("ERR hash value is not an integer");
                assertThatThrownBy(() -> j.hincrByFloat(k, "txt", 1)).hasMessage("ERR hash value is not a float");
                assertThatThrownBy(() -> raw(j, Protocol.Command.HINCRBY, k, "n", "1.5"))
                        .hasMessage("ERR value is not an integer or out of range");
                assertThatThrownBy(() -> raw(j, Protocol.Command.HINCRBYFLOAT, k, "n", "x"))
                        .hasMessage("ERR value is not a valid float");
                assertThatThrownBy(() -> raw(j, Protocol.Command.HINCRBYFLOAT, k, "n", "inf"))
                        .hasMessage("ERR value is NaN or Infinity");
                j.hset(k, "huge", "1e4932");
                assertThatThrownBy(() -> raw(j, Protocol.Command.HINCRBYFLOAT, k, "huge", "1e4932"))
                        .hasMessage("ERR increment would produce NaN or Infinity");
                assertThat(raw(j, Protocol.Command.HINCRBYFLOAT, k, "x", "1e2")).isEqualTo(bytes("100"));
            }
        }
    }

    // ------------------------------------------------------------------ encodings and memory

    @Test
    void objectEncoding_listpackToHashtable_atThresholds() {
        try (Jedis j = jedis(2)) {
            for (int i = 0; i < 512; i++) j.hset("enc", "f" + i, "v" + i);
            assertThat(j.objectEncoding("enc")).isEqualTo("listpack");
            j.hset("enc", "f512", "v");
            assertThat(j.objectEncoding("enc")).isEqualTo("hashtable");
            j.hset("long", "f", "x".repeat(65));
            assertThat(j.objectEncoding("long")).isEqualTo("hashtable");
            // Redis 7.2+: more pairs announced than the threshold convert up front, even if they repeat a field.
            j.configSet("hash-max-listpack-entries", "2");
            try {
                assertThat(raw(j, Protocol.Command.HSET, "dup", "a", "1", "a", "2", "a", "3")).isEqualTo(1L);
                assertThat(j.objectEncoding("dup")).isEqualTo("hashtable");
                j.hset("pair", Map.of("a", "1", "b", "2"));
                assertThat(j.objectEncoding("pair")).isEqualTo("listpack");
            } finally {
                j.configSet("hash-max-listpack-entries", "512");
            }
        }
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void hashtable_wholeReplies_matchWhatWasWritten(int proto) {
        try (Jedis j = jedis(proto)) {
            String k = "whole" + proto;
            Map<String, String> written = new HashMap<>();
            for (int i = 0; i < 1000; i++) written.put("field:" + i, "value:" + i);
            written.put("", "");
            written.put("long:" + "f".repeat(300), "v".repeat(500));
            j.hset(k, written);
            assertThat(j.objectEncoding(k)).isEqualTo("hashtable");
            Map<String, String> before = j.hgetAll(k);
            j.hset(k, "field:1", "changed"); // a new entry: the reply made before stays as it was
            assertThat(before).isEqualTo(written);
            written.put("field:1", "changed");
            assertThat(j.hgetAll(k)).isEqualTo(written);
            assertThat(j.hkeys(k)).isEqualTo(written.keySet());
            assertThat(j.hvals(k)).containsExactlyInAnyOrderElementsOf(written.values());
        }
    }

    @Test
    void memoryAccounting_returnsToBaseline_afterHashIsEmptied() throws Exception {
        String k = "mem";
        long base = onShard(server, k, () -> db(k).usedBytes());
        try (Jedis j = jedis(2)) {
            for (int i = 0; i < 700; i++) j.hset(k, "field" + i, "value" + i);
            j.hset(k, "field1", "1");
            j.hincrBy(k, "field1", 1);
            j.hincrByFloat(k, "field2x", 1.5);
            j.hpexpire(k, 100_000, "field3", "field4");
            j.hpersist(k, "field4");
            long full = onShard(server, k, () -> db(k).usedBytes());
            HashValue h = onShard(server, k, () -> (HashValue) db(k).peek(bytes(k), System.currentTimeMillis()));
            long valueBytes = onShard(server, k, h::memoryBytes);
            assertThat(full - base).isGreaterThanOrEqualTo(valueBytes);
            j.hdel(k, "field2x");
            for (int i = 0; i < 700; i++) j.hdel(k, "field" + i);
            assertThat(j.exists(k)).isFalse();
        }
        assertThat(onShard(server, k, () -> db(k).usedBytes())).isEqualTo(base);
    }

    @Test
    void copyRenameDel_workOnHashes() {
        try (Jedis j = jedis(2)) {
            j.hset("{c}src", Map.of("a", "1", "b", "2"));
            assertThat(j.copy("{c}src", "{c}dst", false)).isTrue();
            j.hset("{c}src", "a", "changed");
            assertThat(j.hget("{c}dst", "a")).isEqualTo("1");
            assertThat(j.objectEncoding("{c}dst")).isEqualTo("listpack");
            j.rename("{c}dst", "{c}moved");
            assertThat(j.hgetAll("{c}moved")).isEqualTo(Map.of("a", "1", "b", "2"));
            assertThat(j.del("{c}moved", "{c}src")).isEqualTo(2);
        }
    }

    // ------------------------------------------------------------------ HRANDFIELD

    @Test
    void hrandfield_shapesAndCounts_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            for (int size : new int[] {5, 1000}) {
                try (Jedis j = jedis(proto)) {
                    String k = "rnd" + proto + "_" + size;
                    Map<String, String> m = new HashMap<>();
                    for (int i = 0; i < size; i++) m.put("f" + i, "v" + i);
                    j.hset(k, m);
                    assertThat(m).containsKey(j.hrandfield(k));
                    assertThat(j.hrandfield("none" + proto)).isNull();
                    assertThat(j.hrandfield("none" + proto, 3)).isEmpty();
                    // Distinct fields, as many as asked for or the whole hash.
                    for (int count : new int[] {1, 3, size / 2, size - 1, size, size + 10}) {
                        List<String> got = j.hrandfield(k, count);
                        assertThat(got).hasSize(Math.min(count, size)).doesNotHaveDuplicates();
                        assertThat(m.keySet()).containsAll(got);
                        List<Map.Entry<String, String>> pairs = j.hrandfieldWithValues(k, count);
                        assertThat(pairs).hasSize(Math.min(count, size));
                        for (Map.Entry<String, String> e : pairs) assertThat(m).containsEntry(e.getKey(), e.getValue());
                    }
                    // Negative counts: exactly that many, repeats allowed.
                    int picks = size == 5 ? 200 : 3 * size;
                    List<String> rep = j.hrandfield(k, -picks);
                    assertThat(rep).hasSize(picks);
                    assertThat(m.keySet()).containsAll(rep);
                    if (size == 5) assertThat(new HashSet<>(rep)).hasSize(5);
                    List<Map.Entry<String, String>> repPairs = j.hrandfieldWithValues(k, -7);
                    assertThat(repPairs).hasSize(7);
                    for (Map.Entry<String, String> e : repPairs) assertThat(m).containsEntry(e.getKey(), e.getValue());
                    assertThat(j.hrandfield(k, 0)).isEmpty();
                }
            }
        }
    }

    @Test
    void hrandfield_resp3WithValues_isArrayOfPairs() {
        try (Jedis j = jedis(3)) {
            j.hset("pairs", Map.of("a", "1"));
            Object reply = raw(j, Protocol.Command.HRANDFIELD, "pairs", "-2", "WITHVALUES");
            assertThat(reply).isInstanceOf(List.class);
            List<?> items = (List<?>) reply;
            assertThat(items).hasSize(2);
            for (Object pair : items) {
                assertThat(pair).isInstanceOf(List.class);
                assertThat((List<?>) pair).hasSize(2);
                assertThat((byte[]) ((List<?>) pair).get(0)).isEqualTo(bytes("a"));
                assertThat((byte[]) ((List<?>) pair).get(1)).isEqualTo(bytes("1"));
            }
        }
        try (Jedis j = jedis(2)) {
            List<?> flat = (List<?>) raw(j, Protocol.Command.HRANDFIELD, "pairs", "-2", "WITHVALUES");
            assertThat(flat).hasSize(4);
            assertThat((byte[]) flat.get(3)).isEqualTo(bytes("1"));
        }
    }

    @Test
    void hrandfield_badArguments_repliesRedisErrors() {
        try (Jedis j = jedis(2)) {
            j.hset("rb", "a", "1");
            assertThatThrownBy(() -> raw(j, Protocol.Command.HRANDFIELD, "rb", "x"))
                    .hasMessage("ERR value is not an integer or out of range");
            assertThatThrownBy(() -> raw(j, Protocol.Command.HRANDFIELD, "rb", "1", "withvalue"))
                    .hasMessage("ERR syntax error");
            assertThatThrownBy(() -> raw(j, Protocol.Command.HRANDFIELD, "rb", "-4611686018427387904", "WITHVALUES"))
                    .hasMessage("ERR value is out of range");
            assertThatThrownBy(() -> raw(j, Protocol.Command.HRANDFIELD, "rb", "-9223372036854775808"))
                    .hasMessage("ERR value is out of range, value must between -9223372036854775807 and "
                            + "9223372036854775807");
            // Tide's bound on repeated picks (Redis would stream until the output buffer limit).
            assertThatThrownBy(() -> raw(j, Protocol.Command.HRANDFIELD, "rb", "-100000000"))
                    .hasMessage("ERR value is out of range");
        }
    }

    // ------------------------------------------------------------------ HSCAN

    @Test
    void hscan_largeHash_returnsEveryField_withMatchCountAndNoValues() {
        try (Jedis j = jedis(3)) {
            Map<String, String> m = new HashMap<>();
            for (int i = 0; i < 3000; i++) m.put("key:" + i, "val:" + i);
            j.hset("scan", m);
            assertThat(j.objectEncoding("scan")).isEqualTo("hashtable");
            Map<String, String> seen = new HashMap<>();
            String cursor = ScanParams.SCAN_POINTER_START;
            int calls = 0;
            do {
                ScanResult<Map.Entry<String, String>> page = j.hscan("scan", cursor, new ScanParams().count(100));
                for (Map.Entry<String, String> e : page.getResult()) seen.put(e.getKey(), e.getValue());
                cursor = page.getCursor();
                calls++;
            } while (!cursor.equals("0"));
            assertThat(seen).isEqualTo(m);
            assertThat(calls).isGreaterThan(10);

            Set<String> matched = new HashSet<>();
            cursor = "0";
            do {
                ScanResult<String> page = j.hscanNoValues("scan", cursor, new ScanParams().match("key:1??").count(500));
                matched.addAll(page.getResult());
                cursor = page.getCursor();
            } while (!cursor.equals("0"));
            assertThat(matched).hasSize(100).allMatch(f -> f.matches("key:1\\d\\d"));
        }
    }

    @Test
    void hscan_listpack_returnsAllAtOnce_andNoValuesDropsValues() {
        try (Jedis j = jedis(2)) {
            j.hset("small", "a", "1");
            j.hset("small", "b", "2");
            ScanResult<Map.Entry<String, String>> page = j.hscan("small", "0", new ScanParams().count(1));
            assertThat(page.getCursor()).isEqualTo("0");
            assertThat(page.getResult()).containsExactly(Map.entry("a", "1"), Map.entry("b", "2"));
            ScanResult<String> keys = j.hscanNoValues("small", "0");
            assertThat(keys.getResult()).containsExactly("a", "b");
            assertThat(j.hscan("nope", "0").getResult()).isEmpty();
            assertThatThrownBy(() -> raw(j, Protocol.Command.HSCAN, "small", "0", "COUNT", "0"))
                    .hasMessage("ERR syntax error");
            assertThatThrownBy(() -> raw(j, Protocol.Command.HSCAN, "small", "x"))
                    .hasMessage("ERR invalid cursor");
        }
    }

    // ------------------------------------------------------------------ Lettuce

    @Test
    void lettuce_hashCommands_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> r = c.sync();
                String k = "lt" + proto;
                assertThat(r.hset(k, Map.of("a", "1", "b", "2"))).isEqualTo(2);
                assertThat(r.hset(k, "c", "3")).isTrue();
                assertThat(r.hget(k, "a")).isEqualTo("1");
                assertThat(r.hgetall(k)).isEqualTo(Map.of("a", "1", "b", "2", "c", "3"));
                List<KeyValue<String, String>> mget = r.hmget(k, "a", "zz");
                assertThat(mget.get(0).getValue()).isEqualTo("1");
                assertThat(mget.get(1).hasValue()).isFalse();
                assertThat(r.hkeys(k)).containsExactlyInAnyOrder("a", "b", "c");
                assertThat(r.hvals(k)).containsExactlyInAnyOrder("1", "2", "3");
                assertThat(r.hlen(k)).isEqualTo(3);
                assertThat(r.hstrlen(k, "a")).isEqualTo(1);
                assertThat(r.hexists(k, "a")).isTrue();
                assertThat(r.hsetnx(k, "a", "x")).isFalse();
                assertThat(r.hincrby(k, "n", 4)).isEqualTo(4);
                assertThat(r.hincrbyfloat(k, "f", 2.5)).isEqualTo(2.5);
                assertThat(r.hdel(k, "n", "f")).isEqualTo(2);
                KeyValue<String, String> one = r.hrandfieldWithvalues(k);
                assertThat(Map.of("a", "1", "b", "2", "c", "3")).containsEntry(one.getKey(), one.getValue());
                List<KeyValue<String, String>> pairs = r.hrandfieldWithvalues(k, -4);
                assertThat(pairs).hasSize(4);
                assertThat(r.hrandfield(k, 10)).containsExactlyInAnyOrder("a", "b", "c");
                MapScanCursor<String, String> scan = r.hscan(k);
                assertThat(scan.isFinished()).isTrue();
                assertThat(scan.getMap()).isEqualTo(Map.of("a", "1", "b", "2", "c", "3"));
                KeyScanCursor<String> novalues = r.hscanNovalues(k, ScanCursor.INITIAL, ScanArgs.Builder.matches("a*"));
                assertThat(novalues.getKeys()).containsExactly("a");
                r.set(k + "s", "x");
                assertThatThrownBy(() -> r.hget(k + "s", "a")).isInstanceOf(RedisCommandExecutionException.class)
                        .hasMessage(WRONGTYPE);
                List<String> all = new ArrayList<>(r.hgetall(k).keySet());
                assertThat(all).hasSize(3);
            } finally {
                client.shutdown();
            }
        }
    }
}
