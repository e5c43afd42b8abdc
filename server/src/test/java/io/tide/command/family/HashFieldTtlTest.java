package io.tide.command.family;

import static io.tide.testing.TestServers.onShard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ExpireArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.args.ExpiryOption;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Redis 7.4's hash field expiration (HEXPIRE, HPEXPIRE, HEXPIREAT, HPEXPIREAT, HTTL, HPTTL, HEXPIRETIME,
 * HPEXPIRETIME, HPERSIST) through real sockets with Jedis and Lettuce, RESP2 and RESP3, on one and two shards.
 * The installed redis-server (7.0) predates these commands, so expectations come from Redis 7.4's t_hash.c.
 */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class HashFieldTtlTest extends ServerPerShardCount {

    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    /** A field given this TTL (ms) is expired after {@link #WAIT_MS}. */
    private static final long SHORT_MS = 100;
    private static final long WAIT_MS = 300;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static long usedBytes(String key) throws Exception {
        return onShard(server, key,
                () -> io.tide.testing.SettledMemory.usedBytes(server.context().shards().shardOf(bytes(key)).db(0)));
    }

    private static Object raw(Jedis j, Protocol.Command cmd, String... args) {
        return j.sendCommand(cmd, args);
    }

    /** HKEYS in reply order (Jedis's hkeys answers an unordered set). */
    private static List<String> keysInOrder(Jedis j, String key) {
        List<String> out = new ArrayList<>();
        for (Object o : (List<?>) raw(j, Protocol.Command.HKEYS, key)) out.add(new String((byte[]) o, StandardCharsets.UTF_8));
        return out;
    }

    private static void hsetMany(Jedis j, String key, int n) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < n; i++) m.put("f" + i, "v" + i);
        j.hset(key, m);
    }

    // ------------------------------------------------------------------ setting and reading TTLs

    @Test
    void activeExpiry_reclaimsExpiredFields_ofHashesNobodyReads() throws Exception {
        try (Jedis j = jedis(2)) {
            for (int size : new int[] {3, 600}) {
                String all = "active:all:" + size;
                String some = "active:some:" + size;
                for (int i = 0; i < size; i++) {
                    j.hset(all, "f" + i, "v");
                    j.hset(some, "f" + i, "v");
                }
                j.hpexpire(all, SHORT_MS, fieldNames(size));
                j.hpexpire(some, SHORT_MS, "f0");
                // Renamed after the TTLs were set: the keyspace registers the value under its new name.
                j.rename(all, all + ":renamed");
                long deadline = System.currentTimeMillis() + 10_000;
                // EXISTS and DBSIZE never look at fields: only the shard's cron can make these change.
                while (j.exists(all + ":renamed") && System.currentTimeMillis() < deadline) Thread.sleep(20);
                assertThat(j.exists(all + ":renamed")).isFalse();
                assertThat(j.exists(some)).isTrue();
                j.del(some);
            }
        }
    }

    private static String[] fieldNames(int n) {
        String[] out = new String[n];
        for (int i = 0; i < n; i++) out[i] = "f" + i;
        return out;
    }

    @Test
    void hexpire_setsTtls_andTtlCommandsReportThem_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "ttl" + proto;
                j.hset(k, Map.of("a", "1", "b", "2", "c", "3"));
                long before = System.currentTimeMillis();
                assertThat(j.hexpire(k, 100, "a", "b", "nope")).containsExactly(1L, 1L, -2L);
                long after = System.currentTimeMillis();
                assertThat(j.objectEncoding(k)).isEqualTo("listpackex");
                List<Long> ttl = j.httl(k, "a", "c", "nope");
                assertThat(ttl.get(0)).isBetween(99L, 100L);
                assertThat(ttl.subList(1, 3)).containsExactly(-1L, -2L);
                assertThat(j.hpttl(k, "b").get(0)).isBetween(99_000L - (after - before), 100_000L);
                long at = j.hpexpireTime(k, "a").get(0);
                assertThat(at).isBetween(before + 100_000, after + 100_000);
                assertThat(j.hexpireTime(k, "a", "c")).containsExactly((at + 999) / 1000, -1L);
                assertThat(j.hpersist(k, "a", "c", "nope")).containsExactly(1L, -1L, -2L);
                assertThat(j.httl(k, "a")).containsExactly(-1L);
                assertThat(j.hpexpireAt(k, 4_000_000_000_000L, "c")).containsExactly(1L);
                assertThat(j.hpexpireTime(k, "c")).containsExactly(4_000_000_000_000L);
                assertThat(j.hexpireAt(k, 4_000_000_001L, "c")).containsExactly(1L);
                assertThat(j.hexpireTime(k, "c")).containsExactly(4_000_000_001L);
                assertThat(j.hpexpire(k, 5000, "c")).containsExactly(1L);
                assertThat(j.hpttl(k, "c").get(0)).isBetween(4000L, 5000L);
                // A missing key: every field is -2.
                assertThat(j.hexpire("none" + proto, 10, "a", "b")).containsExactly(-2L, -2L);
                assertThat(j.httl("none" + proto, "a")).containsExactly(-2L);
                assertThat(j.hpersist("none" + proto, "a")).containsExactly(-2L);
                assertThat(j.exists("none" + proto)).isFalse();
            }
        }
    }

    @Test
    void hexpire_conditions_NxXxGtLt() {
        try (Jedis j = jedis(2)) {
            for (int size : new int[] {3, 600}) {
                String k = "cond" + size;
                hsetMany(j, k, size);
                // No TTL: NX and LT set; XX and GT do not (no TTL counts as infinite).
                assertThat(j.hexpire(k, 100, ExpiryOption.XX, "f0")).containsExactly(0L);
                assertThat(j.hexpire(k, 100, ExpiryOption.GT, "f0")).containsExactly(0L);
                assertThat(j.hexpire(k, 100, ExpiryOption.NX, "f0")).containsExactly(1L);
                assertThat(j.hexpire(k, 100, ExpiryOption.LT, "f1")).containsExactly(1L);
                // With a TTL: NX does not; XX does; GT and LT compare with the current expiry.
                assertThat(j.hexpire(k, 200, ExpiryOption.NX, "f0")).containsExactly(0L);
                assertThat(j.hexpire(k, 200, ExpiryOption.XX, "f0")).containsExactly(1L);
                assertThat(j.hexpire(k, 150, ExpiryOption.GT, "f0")).containsExactly(0L);
                assertThat(j.hexpire(k, 300, ExpiryOption.GT, "f0")).containsExactly(1L);
                assertThat(j.hexpire(k, 400, ExpiryOption.LT, "f0")).containsExactly(0L);
                assertThat(j.hexpire(k, 50, ExpiryOption.LT, "f0")).containsExactly(1L);
                assertThat(j.httl(k, "f0").get(0)).isBetween(49L, 50L);
                // The same field twice in one command: the second sees the first's result.
                assertThat(j.hexpire(k, 1000, ExpiryOption.GT, "f2", "f2")).containsExactly(0L, 0L);
                assertThat(j.hexpire(k, 1000, ExpiryOption.NX, "f2", "f2")).containsExactly(1L, 0L);
            }
        }
    }

    @Test
    void hexpire_zeroOrPastTime_deletesFields_andTheKeyWithTheLast() throws Exception {
        try (Jedis j = jedis(3)) {
            String k = "past";
            long base = usedBytes(k);
            j.hset(k, Map.of("a", "1", "b", "2", "c", "3"));
            assertThat(j.hexpire(k, 0, "a")).containsExactly(2L);
            assertThat(j.hpexpireAt(k, 1, "b", "b")).containsExactly(2L, -2L);
            assertThat(j.hgetAll(k)).isEqualTo(Map.of("c", "3"));
            assertThat(j.hexpireAt(k, System.currentTimeMillis() / 1000 - 10, "c")).containsExactly(2L);
            assertThat(j.exists(k)).isFalse();
            assertThat(usedBytes(k)).isEqualTo(base);
        }
    }

    @Test
    void hexpire_onHashtable_sameCodes_andEncodingStaysHashtable() {
        try (Jedis j = jedis(2)) {
            hsetMany(j, "bigttl", 700);
            assertThat(j.objectEncoding("bigttl")).isEqualTo("hashtable");
            assertThat(j.hpexpire("bigttl", 100_000, "f1", "f2", "nope")).containsExactly(1L, 1L, -2L);
            assertThat(j.hpttl("bigttl", "f1", "f3").get(1)).isEqualTo(-1L);
            assertThat(j.hpersist("bigttl", "f1", "f3")).containsExactly(1L, -1L);
            assertThat(j.hexpire("bigttl", 0, "f2")).containsExactly(2L);
            assertThat(j.hlen("bigttl")).isEqualTo(699);
            assertThat(j.objectEncoding("bigttl")).isEqualTo("hashtable");
        }
    }

    // ------------------------------------------------------------------ encodings and order

    @Test
    void listpackex_staysAfterPersist_convertsToHashtableKeepingTtls() {
        try (Jedis j = jedis(2)) {
            j.hset("lpx", Map.of("a", "1"));
            assertThat(j.objectEncoding("lpx")).isEqualTo("listpack");
            // Touching an existing listpack hash gives it the TTL column even when no field is set.
            assertThat(j.hexpire("lpx", 100, "nope")).containsExactly(-2L);
            assertThat(j.objectEncoding("lpx")).isEqualTo("listpackex");
            j.hexpire("lpx", 100, "a");
            j.hpersist("lpx", "a");
            assertThat(j.objectEncoding("lpx")).isEqualTo("listpackex");
            j.hexpire("lpx", 100, "a");
            j.hset("lpx", "long", "x".repeat(65));
            assertThat(j.objectEncoding("lpx")).isEqualTo("hashtable");
            assertThat(j.httl("lpx", "a").get(0)).isBetween(99L, 100L);
            // HTTL and HPERSIST on a plain listpack leave it as it is.
            j.hset("plain", "a", "1");
            assertThat(j.httl("plain", "a", "b")).containsExactly(-1L, -2L);
            assertThat(j.hpersist("plain", "a")).containsExactly(-1L);
            assertThat(j.objectEncoding("plain")).isEqualTo("listpack");
        }
    }

    @Test
    void listpackex_ordersFieldsWithTtlFirstByExpiry_asRedis() {
        try (Jedis j = jedis(2)) {
            for (String f : new String[] {"a", "b", "c", "d"}) j.hset("order", f, f.toUpperCase());
            j.hexpire("order", 300, "c");
            j.hexpire("order", 200, "d");
            assertThat(keysInOrder(j, "order")).containsExactly("d", "c", "a", "b");
            j.hpersist("order", "d");
            assertThat(keysInOrder(j, "order")).containsExactly("c", "a", "b", "d");
            j.hset("order", "c", "new");
            assertThat(keysInOrder(j, "order")).containsExactly("a", "b", "d", "c");
            assertThat(j.httl("order", "c")).containsExactly(-1L);
        }
    }

    @Test
    void hset_clearsFieldTtl_hincrbyAndHincrbyfloatKeepIt() {
        try (Jedis j = jedis(3)) {
            for (int size : new int[] {3, 600}) {
                String k = "keep" + size;
                hsetMany(j, k, size);
                j.hset(k, Map.of("n", "1", "x", "1.5"));
                j.hexpire(k, 100, "n", "x", "f0", "f1");
                j.hincrBy(k, "n", 2);
                j.hincrByFloat(k, "x", 1);
                assertThat(j.httl(k, "n", "x")).allMatch(t -> t >= 99 && t <= 100);
                assertThat(j.hget(k, "n")).isEqualTo("3");
                j.hset(k, "f0", "over");
                j.hmset(k, Map.of("f1", "over"));
                assertThat(j.httl(k, "f0", "f1")).containsExactly(-1L, -1L);
                assertThat(j.hsetnx(k, "n", "z")).isZero();
                assertThat(j.httl(k, "n").get(0)).isBetween(99L, 100L);
            }
        }
    }

    // ------------------------------------------------------------------ expiry makes fields disappear

    @Test
    void expiredFields_areInvisibleToEveryCommand_inBothEncodings() throws Exception {
        for (int size : new int[] {4, 700}) {
            try (Jedis j = jedis(2)) {
                String k = "gone" + size;
                hsetMany(j, k, size);
                assertThat(j.hpexpire(k, SHORT_MS, "f0", "f1")).containsExactly(1L, 1L);
                j.hexpire(k, 1000, "f2");
                Thread.sleep(WAIT_MS);
                assertThat(j.hget(k, "f0")).isNull();
                assertThat(j.hmget(k, "f0", "f1", "f2")).containsExactly(null, null, "v2");
                assertThat(j.hexists(k, "f1")).isFalse();
                assertThat(j.hstrlen(k, "f1")).isZero();
                assertThat(j.hlen(k)).isEqualTo(size - 2);
                assertThat(j.hgetAll(k)).hasSize(size - 2).doesNotContainKeys("f0", "f1");
                assertThat(j.hkeys(k)).hasSize(size - 2).doesNotContain("f0", "f1");
                assertThat(j.hvals(k)).hasSize(size - 2).doesNotContain("v0", "v1");
                assertThat(j.hrandfield(k, -500)).doesNotContain("f0", "f1");
                assertThat(j.hrandfield(k, size)).hasSize(size - 2).doesNotContain("f0", "f1");
                List<String> scanned = new ArrayList<>();
                String cursor = "0";
                do {
                    ScanResult<String> page = j.hscanNoValues(k, cursor, new ScanParams().count(50));
                    scanned.addAll(page.getResult());
                    cursor = page.getCursor();
                } while (!cursor.equals("0"));
                assertThat(scanned).hasSize(size - 2).doesNotContain("f0", "f1");
                assertThat(j.httl(k, "f0", "f2").get(0)).isEqualTo(-2L);
                assertThat(j.hpersist(k, "f0")).containsExactly(-2L);
                assertThat(j.hexpire(k, 100, "f0")).containsExactly(-2L);
                assertThat(j.hdel(k, "f0")).isZero();
                assertThat(j.hincrBy(k, "f1", 5)).isEqualTo(5); // starts from 0, without a TTL
                assertThat(j.httl(k, "f1")).containsExactly(-1L);
                assertThat(j.hset(k, "f0", "back")).isEqualTo(1);
                assertThat(j.hsetnx(k, "f0", "again")).isZero();
            }
        }
    }

    @Test
    void lastFieldExpiring_deletesTheKeyOnAccess_andFreesItsMemory() throws Exception {
        try (Jedis j = jedis(2)) {
            String k = "vanish";
            long base = usedBytes(k);
            j.hset(k, Map.of("a", "1", "b", "2"));
            j.hpexpire(k, SHORT_MS, "a", "b");
            Thread.sleep(WAIT_MS);
            assertThat(j.hget(k, "a")).isNull();
            assertThat(j.exists(k)).isFalse();
            assertThat(j.type(k)).isEqualTo("none");
            assertThat(usedBytes(k)).isEqualTo(base);
            // Through a write command too; HSETNX then creates a fresh hash.
            j.hset(k, Map.of("a", "1"));
            j.hpexpire(k, SHORT_MS, "a");
            Thread.sleep(WAIT_MS);
            assertThat(j.hsetnx(k, "a", "new")).isEqualTo(1);
            assertThat(j.hgetAll(k)).isEqualTo(Map.of("a", "new"));
            assertThat(j.objectEncoding(k)).isEqualTo("listpack");
        }
    }

    // ------------------------------------------------------------------ errors

    @Test
    void errors_haveRedis74Texts() {
        try (Jedis j = jedis(2)) {
            j.hset("err", "f", "v");
            j.set("str", "x");
            String numFields = "ERR Parameter `numFields` should be greater than 0";
            String mismatch = "ERR The `numfields` parameter must match the number of arguments";
            String missing = "ERR Mandatory argument FIELDS is missing or not at the right position";
            String positive = "ERR Number of fields must be a positive integer";
            Object[][] cases = {
                {Protocol.Command.HEXPIRE, new String[] {"err", "10", "FIELDS", "0", "f"}, numFields},
                {Protocol.Command.HEXPIRE, new String[] {"err", "10", "FIELDS", "x", "f"}, numFields},
                {Protocol.Command.HEXPIRE, new String[] {"err", "10", "FIELDS", "-1", "f"}, numFields},
                {Protocol.Command.HEXPIRE, new String[] {"err", "10", "FIELDS", "2", "f"}, mismatch},
                {Protocol.Command.HEXPIRE, new String[] {"err", "10", "FIELDS", "1", "f", "g"}, mismatch},
                {Protocol.Command.HEXPIRE, new String[] {"err", "10", "FIELDZ", "1", "f"}, missing},
                {Protocol.Command.HEXPIRE, new String[] {"err", "10", "NX", "XX", "FIELDS", "1", "f"}, missing},
                {Protocol.Command.HEXPIRE, new String[] {"err", "10", "BOGUS", "FIELDS", "1", "f"}, missing},
                {Protocol.Command.HEXPIRE, new String[] {"err", "abc", "FIELDS", "1", "f"},
                    "ERR value is not an integer or out of range"},
                {Protocol.Command.HEXPIRE, new String[] {"err", "-1", "FIELDS", "1", "f"},
                    "ERR invalid expire time, must be >= 0"},
                {Protocol.Command.HEXPIRE, new String[] {"err", "70368744178", "FIELDS", "1", "f"},
                    "ERR invalid expire time in 'hexpire' command"},
                {Protocol.Command.HEXPIRE, new String[] {"err", "70368744177", "FIELDS", "1", "f"},
                    "ERR invalid expire time in 'hexpire' command"},
                {Protocol.Command.HPEXPIRE, new String[] {"err", "70368744177663", "FIELDS", "1", "f"},
                    "ERR invalid expire time in 'hpexpire' command"},
                {Protocol.Command.HEXPIREAT, new String[] {"err", "70368744178", "FIELDS", "1", "f"},
                    "ERR invalid expire time in 'hexpireat' command"},
                {Protocol.Command.HPEXPIREAT, new String[] {"err", "70368744177664", "FIELDS", "1", "f"},
                    "ERR invalid expire time in 'hpexpireat' command"},
                {Protocol.Command.HTTL, new String[] {"err", "FIELDS", "0", "f"}, positive},
                {Protocol.Command.HPTTL, new String[] {"err", "FIELDS", "two", "f"}, positive},
                {Protocol.Command.HEXPIRETIME, new String[] {"err", "FIELDS", "2", "f"}, mismatch},
                {Protocol.Command.HPEXPIRETIME, new String[] {"err", "FIELD", "1", "f"}, missing},
                {Protocol.Command.HPERSIST, new String[] {"err", "FIELDS", "0", "f"}, positive},
                {Protocol.Command.HPERSIST, new String[] {"err", "1", "FIELDS", "f"}, missing},
                {Protocol.Command.HEXPIRE, new String[] {"err", "10", "FIELDS", "1"},
                    "ERR wrong number of arguments for 'hexpire' command"},
                {Protocol.Command.HTTL, new String[] {"err", "FIELDS", "1"},
                    "ERR wrong number of arguments for 'httl' command"},
                // The type is checked first, then the arguments, whether or not the key exists.
                {Protocol.Command.HEXPIRE, new String[] {"str", "abc", "FIELDS", "0", "f"}, WRONGTYPE},
                {Protocol.Command.HTTL, new String[] {"str", "FIELDZ", "0", "f"}, WRONGTYPE},
                {Protocol.Command.HPERSIST, new String[] {"str", "FIELDS", "0", "f"}, WRONGTYPE},
                {Protocol.Command.HEXPIRE, new String[] {"nokey", "10", "FIELDS", "0", "f"}, numFields},
                {Protocol.Command.HTTL, new String[] {"nokey", "FIELDS", "2", "f"}, mismatch},
            };
            for (Object[] c : cases) {
                Protocol.Command cmd = (Protocol.Command) c[0];
                String[] args = (String[]) c[1];
                assertThatThrownBy(() -> j.sendCommand(cmd, args)).as(cmd + " " + String.join(" ", args))
                        .hasMessage((String) c[2]);
            }
            // The largest accepted times.
            assertThat(raw(j, Protocol.Command.HEXPIREAT, "err", "70368744177", "FIELDS", "1", "f"))
                    .isEqualTo(List.of(1L));
            assertThat(raw(j, Protocol.Command.HPEXPIREAT, "err", "70368744177663", "FIELDS", "1", "f"))
                    .isEqualTo(List.of(1L));
            assertThat(raw(j, Protocol.Command.HPEXPIRETIME, "err", "fields", "1", "f")).isEqualTo(List.of(70368744177663L));
            assertThat(raw(j, Protocol.Command.HEXPIRE, "err", "10", "gt", "fields", "1", "f")).isEqualTo(List.of(0L));
            assertThat(raw(j, Protocol.Command.HEXPIRE, "err", "10", "lt", "fields", "1", "f")).isEqualTo(List.of(1L));
        }
    }

    // ------------------------------------------------------------------ Lettuce

    @Test
    void lettuce_fieldTtlCommands_bothProtocols() throws Exception {
        for (int proto : new int[] {2, 3}) {
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> r = c.sync();
                String k = "lt" + proto;
                r.hset(k, Map.of("a", "1", "b", "2", "c", "3"));
                assertThat(r.hexpire(k, 100, "a", "zz")).containsExactly(1L, -2L);
                assertThat(r.hexpire(k, 50, ExpireArgs.Builder.gt(), "a")).containsExactly(0L);
                assertThat(r.hpexpire(k, 200_000, ExpireArgs.Builder.nx(), "b")).containsExactly(1L);
                assertThat(r.httl(k, "a", "c").get(0)).isBetween(99L, 100L);
                assertThat(r.httl(k, "c")).containsExactly(-1L);
                assertThat(r.hpttl(k, "b").get(0)).isBetween(199_000L, 200_000L);
                assertThat(r.hexpireat(k, 4_000_000_000L, "c")).containsExactly(1L);
                assertThat(r.hexpiretime(k, "c")).containsExactly(4_000_000_000L);
                assertThat(r.hpexpireat(k, 4_000_000_000_123L, "c")).containsExactly(1L);
                assertThat(r.hpexpiretime(k, "c")).containsExactly(4_000_000_000_123L);
                assertThat(r.hpersist(k, "a", "b", "c", "zz")).containsExactly(1L, 1L, 1L, -2L);
                r.hpexpire(k, SHORT_MS, "a");
                Thread.sleep(WAIT_MS);
                assertThat(r.hgetall(k)).isEqualTo(Map.of("b", "2", "c", "3"));
                assertThat(r.hlen(k)).isEqualTo(2);
            } finally {
                client.shutdown();
            }
        }
    }

    private static Object cmd(Jedis j, String... args) {
        return j.sendCommand(() -> bytes(args[0]), java.util.Arrays.copyOfRange(args, 1, args.length));
    }

    private static List<String> texts(Object reply) {
        List<String> out = new ArrayList<>();
        for (Object o : (List<?>) reply) out.add(o == null ? null : new String((byte[]) o, StandardCharsets.UTF_8));
        return out;
    }

    @Test
    void hgetdel_returnsValues_deletesFields_andTheKeyWithTheLast_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "gd" + proto;
                j.hset(k, Map.of("a", "1", "b", "2", "c", "3"));
                assertThat(texts(cmd(j, "HGETDEL", k, "FIELDS", "2", "a", "zz"))).containsExactly("1", null);
                assertThat(j.hgetAll(k)).isEqualTo(Map.of("b", "2", "c", "3"));
                assertThat(texts(cmd(j, "HGETDEL", k, "fields", "3", "b", "c", "b"))).containsExactly("2", "3", null);
                assertThat(j.exists(k)).isFalse();
                assertThat(texts(cmd(j, "HGETDEL", k, "FIELDS", "1", "a"))).containsExactly((String) null);
            }
        }
    }

    @Test
    void hgetex_returnsValues_andSetsOrRemovesTtls() throws Exception {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "ge" + proto;
                j.hset(k, Map.of("a", "1", "b", "2", "c", "3"));
                assertThat(texts(cmd(j, "HGETEX", k, "FIELDS", "2", "a", "zz"))).containsExactly("1", null);
                assertThat(j.httl(k, "a")).containsExactly(-1L);
                assertThat(texts(cmd(j, "HGETEX", k, "EX", "100", "FIELDS", "2", "a", "zz"))).containsExactly("1", null);
                assertThat(j.httl(k, "a").get(0)).isBetween(99L, 100L);
                assertThat(j.httl(k, "zz")).containsExactly(-2L);
                assertThat(texts(cmd(j, "HGETEX", k, "PX", "5000", "FIELDS", "1", "b"))).containsExactly("2");
                assertThat(j.hpttl(k, "b").get(0)).isBetween(4000L, 5000L);
                assertThat(texts(cmd(j, "HGETEX", k, "EXAT", "4000000001", "FIELDS", "1", "b"))).containsExactly("2");
                assertThat(j.hexpireTime(k, "b")).containsExactly(4_000_000_001L);
                assertThat(texts(cmd(j, "HGETEX", k, "PXAT", "4000000000123", "FIELDS", "1", "b"))).containsExactly("2");
                assertThat(j.hpexpireTime(k, "b")).containsExactly(4_000_000_000_123L);
                assertThat(texts(cmd(j, "HGETEX", k, "PERSIST", "FIELDS", "2", "a", "c"))).containsExactly("1", "3");
                assertThat(j.hexpireTime(k, "a", "b", "c")).containsExactly(-1L, 4_000_000_001L, -1L);
                // A time not in the future deletes the fields after returning them; the last one takes the key.
                assertThat(texts(cmd(j, "HGETEX", k, "EX", "0", "FIELDS", "1", "a"))).containsExactly("1");
                assertThat(j.hexists(k, "a")).isFalse();
                assertThat(texts(cmd(j, "HGETEX", k, "PXAT", "1", "FIELDS", "2", "b", "c"))).containsExactly("2", "3");
                assertThat(j.exists(k)).isFalse();
                assertThat(texts(cmd(j, "HGETEX", k, "EX", "10", "FIELDS", "1", "a"))).containsExactly((String) null);
                assertThat(j.exists(k)).isFalse();
                // A short TTL expires the field.
                j.hset(k, Map.of("a", "1", "b", "2"));
                cmd(j, "HGETEX", k, "PX", String.valueOf(SHORT_MS), "FIELDS", "1", "a");
                Thread.sleep(WAIT_MS);
                assertThat(j.hgetAll(k)).isEqualTo(Map.of("b", "2"));
            }
        }
    }

    @Test
    void hsetex_conditionsAndTtls() throws Exception {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "se" + proto;
                assertThat(cmd(j, "HSETEX", k, "FXX", "FIELDS", "1", "a", "1")).isEqualTo(0L);
                assertThat(j.exists(k)).isFalse();
                assertThat(cmd(j, "HSETEX", k, "FNX", "EX", "100", "FIELDS", "2", "a", "1", "b", "2")).isEqualTo(1L);
                assertThat(j.httl(k, "a").get(0)).isBetween(99L, 100L);
                assertThat(j.hgetAll(k)).isEqualTo(Map.of("a", "1", "b", "2"));
                assertThat(cmd(j, "HSETEX", k, "FNX", "FIELDS", "2", "a", "x", "c", "3")).isEqualTo(0L);
                assertThat(cmd(j, "HSETEX", k, "FXX", "FIELDS", "2", "a", "x", "c", "3")).isEqualTo(0L);
                assertThat(j.hget(k, "a")).isEqualTo("1");
                // KEEPTTL keeps a field's TTL; no option discards it, as HSET does.
                assertThat(cmd(j, "HSETEX", k, "FXX", "KEEPTTL", "FIELDS", "1", "a", "y")).isEqualTo(1L);
                assertThat(j.httl(k, "a").get(0)).isBetween(99L, 100L);
                assertThat(cmd(j, "HSETEX", k, "FIELDS", "1", "a", "z")).isEqualTo(1L);
                assertThat(j.httl(k, "a", "b").get(0)).isEqualTo(-1L);
                assertThat(cmd(j, "HSETEX", k, "PXAT", "4000000000123", "FIELDS", "1", "c", "3")).isEqualTo(1L);
                assertThat(j.hpexpireTime(k, "c")).containsExactly(4_000_000_000_123L);
                assertThat(cmd(j, "HSETEX", k, "PX", String.valueOf(SHORT_MS), "FIELDS", "1", "b", "9")).isEqualTo(1L);
                Thread.sleep(WAIT_MS);
                assertThat(j.hgetAll(k)).isEqualTo(Map.of("a", "z", "c", "3"));
                // A time not in the future sets and deletes; a new key is not left behind.
                assertThat(cmd(j, "HSETEX", k, "EX", "0", "FIELDS", "1", "a", "1")).isEqualTo(1L);
                assertThat(j.hgetAll(k)).isEqualTo(Map.of("c", "3"));
                assertThat(cmd(j, "HSETEX", "new" + k, "PXAT", "1", "FIELDS", "1", "a", "1")).isEqualTo(1L);
                assertThat(j.exists("new" + k)).isFalse();
                assertThat(cmd(j, "HSETEX", "ttl" + k, "EX", "100", "FIELDS", "1", "a", "1")).isEqualTo(1L);
                assertThat(j.objectEncoding("ttl" + k)).isEqualTo("listpackex");
            }
        }
    }

    @Test
    void hgetdelHgetexHsetex_errors_haveRedis80Texts() {
        try (Jedis j = jedis(2)) {
            j.set("str", "v");
            j.hset("h", "a", "1");
            String[][] cases = {
                    {"HGETDEL", "str", "FIELDS", "1", "a"}, {WRONGTYPE},
                    {"HGETDEL", "h", "FIELD", "1", "a"}, {"ERR Mandatory argument FIELDS is missing or not at the right position"},
                    {"HGETDEL", "h", "FIELDS", "0", "a"}, {"ERR Number of fields must be a positive integer"},
                    {"HGETDEL", "h", "FIELDS", "x", "a"}, {"ERR Number of fields must be a positive integer"},
                    {"HGETDEL", "h", "FIELDS", "2", "a"}, {"ERR The `numfields` parameter must match the number of arguments"},
                    {"HGETDEL", "h", "FIELDS", "1"}, {"ERR wrong number of arguments for 'hgetdel' command"},
                    {"HGETEX", "str", "FIELDS", "1", "a"}, {WRONGTYPE},
                    {"HGETEX", "h", "EX", "x", "FIELDS", "1", "a"}, {"ERR value is not an integer or out of range"},
                    {"HGETEX", "h", "EX", "-1", "FIELDS", "1", "a"}, {"ERR invalid expire time, must be >= 0"},
                    {"HGETEX", "h", "EX", "99999999999999", "FIELDS", "1", "a"}, {"ERR invalid expire time in 'hgetex' command"},
                    {"HGETEX", "h", "PERSIST", "FIELDS", "2", "a"}, {"ERR The `numfields` parameter must match the number of arguments"},
                    {"HGETEX", "h", "KEEPTTL", "FIELDS", "1", "a"}, {"ERR Mandatory argument FIELDS is missing or not at the right position"},
                    {"HSETEX", "h", "FIELDS", "1", "a"}, {"ERR wrong number of arguments for 'hsetex' command"},
                    {"HSETEX", "h", "FIELDS", "2", "a", "1"}, {"ERR wrong number of arguments for 'hsetex' command"},
                    {"HSETEX", "h", "FIELDS", "0", "a", "1"}, {"ERR invalid number of fields"},
                    {"HSETEX", "h", "FNX", "FXX", "FIELDS", "1", "a", "1"}, {"ERR Only one of FXX or FNX arguments can be specified"},
                    {"HSETEX", "h", "EX", "1", "KEEPTTL", "FIELDS", "1", "a", "1"},
                    {"ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified"},
                    {"HSETEX", "h", "EX", "-1", "FIELDS", "1", "a", "1"}, {"ERR invalid expire time, must be >= 0"},
                    {"HSETEX", "h", "PXAT", "9999999999999999", "FIELDS", "1", "a", "1"}, {"ERR invalid expire time in 'hsetex' command"},
                    {"HSETEX", "h", "NOPE", "FIELDS", "1", "a", "1"}, {"ERR unknown argument: NOPE"},
                    {"HSETEX", "str", "FIELDS", "1", "a", "1"}, {WRONGTYPE},
            };
            for (int i = 0; i < cases.length; i += 2) {
                String[] c = cases[i];
                String expected = cases[i + 1][0];
                assertThatThrownBy(() -> cmd(j, c)).as(String.join(" ", c)).hasMessage(expected);
            }
            assertThat(j.hgetAll("h")).isEqualTo(Map.of("a", "1"));
        }
    }

    @Test
    void jedisAndLettuce_typedHgetexHsetexHgetdel_bothProtocols() throws Exception {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "jt" + proto;
                assertThat(j.hsetex(k, redis.clients.jedis.params.HSetExParams.hSetExParams().fnx().ex(100),
                        Map.of("a", "1", "b", "2"))).isEqualTo(1L);
                assertThat(j.httl(k, "a").get(0)).isBetween(99L, 100L);
                assertThat(j.hgetex(k, redis.clients.jedis.params.HGetExParams.hGetExParams().persist(), "a", "zz"))
                        .containsExactly("1", null);
                assertThat(j.httl(k, "a")).containsExactly(-1L);
                assertThat(j.hgetdel(k, "a", "b")).containsExactly("1", "2");
                assertThat(j.exists(k)).isFalse();
            }
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> r = c.sync();
                String k = "lt6" + proto;
                assertThat(r.hsetex(k, new io.lettuce.core.HSetExArgs().px(java.time.Duration.ofSeconds(50)),
                        Map.of("a", "1"))).isEqualTo(1L);
                assertThat(r.hsetex(k, new io.lettuce.core.HSetExArgs().fxx().keepttl(), Map.of("a", "2", "b", "3")))
                        .isZero();
                assertThat(r.hpttl(k, "a").get(0)).isBetween(49_000L, 50_000L);
                var got = r.hgetex(k, new io.lettuce.core.HGetExArgs().ex(java.time.Duration.ofSeconds(10)), "a", "zz");
                assertThat(got).hasSize(2);
                assertThat(got.get(0).getValue()).isEqualTo("1");
                assertThat(got.get(1).hasValue()).isFalse();
                assertThat(r.httl(k, "a").get(0)).isBetween(9L, 10L);
                assertThat(r.hgetdel(k, "a").get(0).getValue()).isEqualTo("1");
                assertThat(r.exists(k)).isZero();
            } finally {
                client.shutdown();
            }
        }
    }
}
