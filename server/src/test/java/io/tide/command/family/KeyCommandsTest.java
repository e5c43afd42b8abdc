package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.Server;
import io.tide.shard.Shard;
import io.tide.store.Database;
import io.tide.store.SharedIntegers;
import io.tide.testing.TestServers;
import io.tide.util.Crc16;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ExpiryOption;
import redis.clients.jedis.args.FlushMode;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Generic keyspace commands over sockets, with one and two shards, through Jedis (RESP2 and RESP3) and
 * Lettuce. String commands are not in this tree yet, so keys are seeded straight into the owning
 * shard's database, on that shard's thread.
 */
@ParameterizedClass
@ValueSource(ints = {1, 2})
class KeyCommandsTest {


    @Parameter
    int shards;

    static Server server;
    static Jedis j2;
    static Jedis j3;
    static RedisClient lettuce2;
    static RedisClient lettuce3;

    @BeforeParameterizedClassInvocation
    static void start(int shardCount) {
        server = TestServers.start(shardCount);
        j2 = TestServers.jedis(server.port(), 2);
        j3 = TestServers.jedis(server.port(), 3);
        lettuce2 = TestServers.lettuce(server.port(), 2);
        lettuce3 = TestServers.lettuce(server.port(), 3);
    }

    @AfterParameterizedClassInvocation
    static void stop() {
        j2.close();
        j3.close();
        lettuce2.shutdown();
        lettuce3.shutdown();
        server.close();
    }

    @BeforeEach
    void clean() {
        j2.select(0);
        j3.select(0);
        j2.flushAll();
    }

    List<Jedis> both() {
        return List.of(j2, j3);
    }

    // ---------------------------------------------------------------- seeding (no SET in this tree yet)

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Puts a key straight into database {@code db} of its shard; {@code expireAt} 0 = none. */
    static void seed(int db, String key, Object value, long expireAt) {
        seed(db, key, value, expireAt, System.currentTimeMillis());
    }

    static void seed(int db, String key, Object value, long expireAt, long accessedAt) {
        Shard s = server.context().shards().shardOf(b(key));
        onShard(s, () -> s.db(db).put(b(key), value instanceof String str ? b(str) : value, expireAt, accessedAt));
    }

    static void seed(String key, String value) {
        seed(0, key, value, 0);
    }

    /** Many keys at once: one task per shard. */
    static void seedMany(int db, List<String> keys, Object value, long expireAt) {
        Map<Shard, List<byte[]>> byShard = new HashMap<>();
        for (String k : keys) {
            byShard.computeIfAbsent(server.context().shards().shardOf(b(k)), x -> new ArrayList<>()).add(b(k));
        }
        long now = System.currentTimeMillis();
        byShard.forEach((s, ks) -> onShard(s, () -> {
            Database d = s.db(db);
            for (byte[] k : ks) d.put(k, value instanceof String str ? b(str) : value, expireAt, now);
        }));
    }

    /** The stored value of a key (null if absent or expired), read on its shard without side effects on the clock. */
    static Object value(int db, String key) {
        Shard s = server.context().shards().shardOf(b(key));
        Object[] out = new Object[1];
        onShard(s, () -> out[0] = s.db(db).peek(b(key), System.currentTimeMillis()));
        return out[0];
    }

    static String str(int db, String key) {
        Object v = value(db, key);
        return v == null ? null : v instanceof byte[] bs ? new String(bs, StandardCharsets.UTF_8) : v.toString();
    }

    static void onShard(Shard s, Runnable r) {
        try {
            s.loop().submit(r).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Two key names with this prefix that live on different shards (any two with one shard). */
    String[] onDifferentShards(String prefix) {
        int first = shardOfName(prefix + 0);
        for (int i = 1; ; i++) {
            if (shards == 1 || shardOfName(prefix + i) != first) return new String[] {prefix + 0, prefix + i};
        }
    }

    int shardOfName(String key) {
        return Crc16.slot(b(key)) * shards / 16384;
    }

    // ---------------------------------------------------------------- DEL, UNLINK, EXISTS, TYPE

    @Test
    void del_countsOnlyExistingKeys_acrossShards() {
        String[] k = onDifferentShards("del:");
        seed(k[0], "a");
        seed(k[1], "b");
        assertThat(j2.del(k[0], k[1], "del:missing", k[0])).isEqualTo(2);
        assertThat(value(0, k[0])).isNull();
        assertThat(value(0, k[1])).isNull();
        assertThat(j3.del("del:missing")).isZero();
    }

    @Test
    void unlink_deletesLikeDel() {
        String[] k = onDifferentShards("unlink:");
        seed(k[0], "a");
        seed(k[1], "b");
        assertThat(j3.unlink(k[0], k[1], "unlink:x")).isEqualTo(2);
        assertThat(j3.exists(k[0], k[1])).isZero();
    }

    @Test
    void del_onExpiredKey_countsNothing() {
        seed(0, "del:exp", "v", System.currentTimeMillis() - 1);
        assertThat(j2.del("del:exp")).isZero();
    }

    @Test
    void exists_countsRepeats_acrossShards() {
        String[] k = onDifferentShards("ex:");
        seed(k[0], "a");
        seed(k[1], "b");
        for (Jedis j : both()) {
            assertThat(j.exists(k[0], k[0], k[1], "ex:none")).isEqualTo(3);
            assertThat(j.exists("ex:none")).isFalse();
        }
    }

    @Test
    void type_reportsStringForBothRepresentationsAndNoneWhenMissing() {
        seed("t:s", "hello");
        seed(0, "t:i", SharedIntegers.valueOf(42), 0);
        for (Jedis j : both()) {
            assertThat(j.type("t:s")).isEqualTo("string");
            assertThat(j.type("t:i")).isEqualTo("string");
            assertThat(j.type("t:none")).isEqualTo("none");
        }
    }

    // ---------------------------------------------------------------- RENAME, RENAMENX

    @Test
    void rename_movesValueAndTtl_acrossShards() {
        String[] k = onDifferentShards("ren:");
        long at = System.currentTimeMillis() + 100_000;
        seed(0, k[0], "v", at);
        seed(k[1], "old");
        assertThat(j2.rename(k[0], k[1])).isEqualTo("OK");
        assertThat(value(0, k[0])).isNull();
        assertThat(str(0, k[1])).isEqualTo("v");
        assertThat(j2.pexpireTime(k[1])).isEqualTo(at);
    }

    @Test
    void rename_overPersistentDestination_dropsItsOldTtl() {
        String[] k = onDifferentShards("ren2:");
        seed(k[0], "v");
        seed(0, k[1], "old", System.currentTimeMillis() + 100_000);
        j3.rename(k[0], k[1]);
        assertThat(j3.ttl(k[1])).isEqualTo(-1);
    }

    @Test
    void rename_errorsAndSameKey() {
        for (Jedis j : both()) {
            assertThatThrownBy(() -> j.rename("ren:none", "ren:x")).hasMessage("ERR no such key");
            assertThatThrownBy(() -> j.renamenx("ren:none", "ren:x")).hasMessage("ERR no such key");
            assertThatThrownBy(() -> j.rename("ren:none", "ren:none")).hasMessage("ERR no such key");
        }
        seed("ren:same", "v");
        assertThat(j2.rename("ren:same", "ren:same")).isEqualTo("OK");
        assertThat(j2.renamenx("ren:same", "ren:same")).isZero();
        assertThat(str(0, "ren:same")).isEqualTo("v");
    }

    @Test
    void renamenx_onlyWhenDestinationAbsent_acrossShards() {
        String[] k = onDifferentShards("rnx:");
        seed(k[0], "a");
        seed(k[1], "b");
        assertThat(j3.renamenx(k[0], k[1])).isZero();
        assertThat(str(0, k[0])).isEqualTo("a");
        j3.del(k[1]);
        assertThat(j3.renamenx(k[0], k[1])).isEqualTo(1);
        assertThat(str(0, k[1])).isEqualTo("a");
        assertThat(j3.exists(k[0])).isFalse();
    }

    // ---------------------------------------------------------------- COPY, MOVE

    @Test
    void copy_acrossShardsAndDatabases_withReplace() {
        String[] k = onDifferentShards("cp:");
        long at = System.currentTimeMillis() + 100_000;
        seed(0, k[0], "v", at);
        assertThat(j2.copy(k[0], k[1], false)).isTrue();
        assertThat(str(0, k[1])).isEqualTo("v");
        assertThat(j2.pexpireTime(k[1])).isEqualTo(at);
        assertThat(j2.copy(k[0], k[1], false)).isFalse();
        seed(k[0], "w");
        assertThat(j2.copy(k[0], k[1], true)).isTrue();
        assertThat(str(0, k[1])).isEqualTo("w");
        assertThat(j2.ttl(k[1])).isEqualTo(-1);
        // Same name, other database: allowed.
        assertThat(j3.copy(k[0], k[0], 5, false)).isTrue();
        assertThat(str(5, k[0])).isEqualTo("w");
        assertThat(j3.copy(k[0], k[1], 5, true)).isTrue();
        assertThat(str(5, k[1])).isEqualTo("w");
        // The copy is independent of the source.
        assertThat(value(5, k[1])).isNotSameAs(value(0, k[0]));
    }

    @Test
    void copy_missingSourceAndErrors() {
        assertThat(j2.copy("cp:none", "cp:x", false)).isFalse();
        seed("cp:a", "v");
        for (Jedis j : both()) {
            assertThatThrownBy(() -> j.copy("cp:a", "cp:a", false))
                    .hasMessage("ERR source and destination objects are the same");
            assertThatThrownBy(() -> j.copy("cp:a", "cp:a", 0, true))
                    .hasMessage("ERR source and destination objects are the same");
            assertThatThrownBy(() -> j.copy("cp:a", "cp:b", 16, false)).hasMessage("ERR DB index is out of range");
            assertThatThrownBy(() -> j.copy("cp:a", "cp:b", -1, false)).hasMessage("ERR DB index is out of range");
            assertThatThrownBy(() -> call(j, "COPY", "cp:a", "cp:b", "DB")).hasMessage("ERR syntax error");
            assertThatThrownBy(() -> call(j, "COPY", "cp:a", "cp:b", "FOO")).hasMessage("ERR syntax error");
            assertThatThrownBy(() -> call(j, "COPY", "cp:a", "cp:b", "DB", "x"))
                    .hasMessage("ERR value is not an integer or out of range");
        }
        assertThat(call(j2, "COPY", "cp:a", "cp:b", "replace", "db", "0", "REPLACE")).isEqualTo(1L);
    }

    @Test
    void copy_keepsIntegerValuesShared() {
        seed(0, "cp:i", SharedIntegers.valueOf(7), 0);
        j2.copy("cp:i", "cp:j", false);
        assertThat(j2.objectRefcount("cp:j")).isEqualTo(2147483647L);
        assertThat(j2.objectEncoding("cp:j")).isEqualTo("int");
    }

    @Test
    void move_toOtherDatabase_keepsTtl() {
        long at = System.currentTimeMillis() + 100_000;
        seed(0, "mv:a", "v", at);
        assertThat(j2.move("mv:a", 3)).isEqualTo(1);
        assertThat(value(0, "mv:a")).isNull();
        assertThat(str(3, "mv:a")).isEqualTo("v");
        j3.select(3);
        assertThat(j3.pexpireTime("mv:a")).isEqualTo(at);
        // Destination taken, or source missing: 0.
        seed("mv:a", "again");
        assertThat(j2.move("mv:a", 3)).isZero();
        assertThat(str(0, "mv:a")).isEqualTo("again");
        assertThat(j2.move("mv:none", 3)).isZero();
    }

    @Test
    void move_errors() {
        seed("mv:b", "v");
        for (Jedis j : both()) {
            assertThatThrownBy(() -> j.move("mv:b", 0)).hasMessage("ERR source and destination objects are the same");
            assertThatThrownBy(() -> j.move("mv:b", 16)).hasMessage("ERR DB index is out of range");
            assertThatThrownBy(() -> call(j, "MOVE", "mv:b", "x"))
                    .hasMessage("ERR value is not an integer or out of range");
            assertThatThrownBy(() -> call(j, "MOVE", "mv:b", "4294967296"))
                    .hasMessage("ERR value is out of range, value must between -2147483648 and 2147483647");
        }
    }

    // ---------------------------------------------------------------- KEYS, SCAN, RANDOMKEY, DBSIZE

    @Test
    void keys_matchesGlobAcrossShards_skipsExpired() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 50; i++) names.add("kk:" + i);
        seedMany(0, names, "v", 0);
        seed("other", "v");
        seed(0, "kk:expired", "v", System.currentTimeMillis() - 1);
        for (Jedis j : both()) {
            assertThat(j.keys("kk:*")).containsExactlyInAnyOrderElementsOf(names);
            assertThat(j.keys("kk:?")).hasSize(10);
            assertThat(j.keys("kk:[1-2]")).containsExactlyInAnyOrder("kk:1", "kk:2");
            assertThat(j.keys("*")).hasSize(51);
            assertThat(j.keys("other")).containsExactly("other");
            assertThat(j.keys("kk:expired")).isEmpty();
            assertThat(j.keys("nomatch*")).isEmpty();
        }
    }

    @Test
    void scan_tenThousandKeys_eachReturnedWithMatchCountType() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) names.add("sc:" + i);
        seedMany(0, names, "v", 0);
        seedMany(0, List.of("x:1", "x:2", "x:3"), "v", 0);

        Set<String> all = scanAll(j2, new ScanParams().count(100), null);
        assertThat(all).hasSize(10_003);

        Set<String> ones = scanAll(j3, new ScanParams().match("sc:1*").count(500), null);
        Set<String> expected = new HashSet<>();
        for (String n : names) if (n.startsWith("sc:1")) expected.add(n);
        assertThat(ones).isEqualTo(expected);

        assertThat(scanAll(j2, new ScanParams().count(1000), "string")).hasSize(10_003);
        assertThat(scanAll(j3, new ScanParams().count(1000), "STRING")).hasSize(10_003);
        assertThat(scanAll(j2, new ScanParams().count(1000), "hash")).isEmpty();
        assertThat(scanAll(j2, new ScanParams(), null)).hasSize(10_003); // default COUNT 10
    }

    Set<String> scanAll(Jedis j, ScanParams p, String type) {
        Set<String> seen = new HashSet<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        int calls = 0;
        do {
            ScanResult<String> r = type == null ? j.scan(cursor, p) : j.scan(cursor, p, type);
            seen.addAll(r.getResult());
            cursor = r.getCursor();
            assertThat(++calls).isLessThan(100_000);
        } while (!cursor.equals("0"));
        return seen;
    }

    @Test
    void scan_withLettuce_resp2AndResp3() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 300; i++) names.add("ls:" + i);
        seedMany(0, names, "v", 0);
        for (RedisClient c : List.of(lettuce2, lettuce3)) {
            try (StatefulRedisConnection<String, String> conn = c.connect()) {
                RedisCommands<String, String> r = conn.sync();
                Set<String> seen = new HashSet<>();
                ScanCursor cursor = ScanCursor.INITIAL;
                do {
                    KeyScanCursor<String> page = r.scan(cursor, ScanArgs.Builder.matches("ls:*").limit(37));
                    seen.addAll(page.getKeys());
                    cursor = page;
                } while (!cursor.isFinished());
                assertThat(seen).containsExactlyInAnyOrderElementsOf(names);
                assertThat(r.type("ls:1")).isEqualTo("string");
                assertThat(r.objectEncoding("ls:1")).isEqualTo("embstr");
                assertThat(r.dbsize()).isEqualTo(300);
                assertThat(r.ttl("ls:1")).isEqualTo(-1);
                assertThat(r.exists("ls:1", "ls:2", "nope")).isEqualTo(2);
                assertThat(r.randomkey()).startsWith("ls:");
            }
        }
    }

    @Test
    void scan_errorsAndEdgeCursors() {
        for (Jedis j : both()) {
            assertThatThrownBy(() -> call(j, "SCAN", "abc")).hasMessage("ERR invalid cursor");
            assertThatThrownBy(() -> call(j, "SCAN", " 1")).hasMessage("ERR invalid cursor");
            assertThatThrownBy(() -> call(j, "SCAN", "18446744073709551616")).hasMessage("ERR invalid cursor");
            assertThatThrownBy(() -> call(j, "SCAN", "0", "COUNT", "0")).hasMessage("ERR syntax error");
            assertThatThrownBy(() -> call(j, "SCAN", "0", "COUNT", "-1")).hasMessage("ERR syntax error");
            assertThatThrownBy(() -> call(j, "SCAN", "0", "COUNT", "x"))
                    .hasMessage("ERR value is not an integer or out of range");
            assertThatThrownBy(() -> call(j, "SCAN", "0", "MATCH")).hasMessage("ERR syntax error");
            assertThatThrownBy(() -> call(j, "SCAN", "0", "FOO", "bar")).hasMessage("ERR syntax error");
            // strtoul accepts these: an empty string, a sign, the full unsigned range.
            assertThat(j.scan("").getCursor()).isEqualTo("0");
            assertThat(j.scan("+0").getCursor()).isEqualTo("0");
            j.scan("18446744073709551615");
            j.scan("-1");
        }
    }

    @Test
    void scan_skipsExpiredKeys() {
        seed(0, "se:gone", "v", System.currentTimeMillis() - 1);
        seed("se:here", "v");
        assertThat(scanAll(j2, new ScanParams().count(100), null)).containsExactly("se:here");
        assertThat(j2.dbSize()).isEqualTo(1); // the expired key was reclaimed by the scan
    }

    @Test
    void randomkey_nullWhenEmpty_elseAnExistingKey() {
        for (Jedis j : both()) assertThat(j.randomKey()).isNull();
        List<String> names = List.of("rk:a", "rk:b", "rk:c", "rk:d", "rk:e", "rk:f");
        seedMany(0, names, "v", 0);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) seen.add(j2.randomKey());
        assertThat(names).containsAll(seen);
        assertThat(seen.size()).isGreaterThan(1);
    }

    @Test
    void randomkey_skipsExpiredKeys() {
        List<String> dead = new ArrayList<>();
        for (int i = 0; i < 100; i++) dead.add("rkx:" + i);
        seedMany(0, dead, "v", System.currentTimeMillis() - 1);
        seed("rk:live", "v");
        assertThat(j3.randomKey()).isEqualTo("rk:live");
        j2.del("rk:live");
        assertThat(j2.randomKey()).isNull();
    }

    @Test
    void dbsize_sumsShards_perDatabase() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 100; i++) names.add("ds:" + i);
        seedMany(0, names, "v", 0);
        seedMany(2, names.subList(0, 7), "v", 0);
        assertThat(j2.dbSize()).isEqualTo(100);
        j3.select(2);
        assertThat(j3.dbSize()).isEqualTo(7);
    }

    // ---------------------------------------------------------------- FLUSHDB, FLUSHALL, SWAPDB

    @Test
    void flushdb_clearsOnlySelectedDatabase_allModes() {
        List<String> names = List.of("f:1", "f:2", "f:3", "f:4");
        for (FlushMode mode : new FlushMode[] {null, FlushMode.SYNC, FlushMode.ASYNC}) {
            seedMany(0, names, "v", 0);
            seedMany(1, names, "v", 0);
            assertThat(mode == null ? j2.flushDB() : j2.flushDB(mode)).isEqualTo("OK");
            assertThat(j2.dbSize()).isZero();
            assertThat(str(1, "f:1")).isEqualTo("v");
        }
        assertThatThrownBy(() -> call(j2, "FLUSHDB", "LATER")).hasMessage("ERR syntax error");
        assertThatThrownBy(() -> call(j2, "FLUSHDB", "SYNC", "ASYNC")).hasMessage("ERR syntax error");
        assertThat(call(j2, "FLUSHDB", "async")).isEqualTo("OK");
    }

    @Test
    void flushall_clearsEveryDatabaseOnEveryShard() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 40; i++) names.add("fa:" + i);
        for (FlushMode mode : new FlushMode[] {null, FlushMode.SYNC, FlushMode.ASYNC}) {
            seedMany(0, names, "v", 0);
            seedMany(15, names, "v", 0);
            assertThat(mode == null ? j3.flushAll() : j3.flushAll(mode)).isEqualTo("OK");
            assertThat(j3.dbSize()).isZero();
            assertThat(value(15, "fa:1")).isNull();
        }
        assertThatThrownBy(() -> call(j3, "FLUSHALL", "NOW")).hasMessage("ERR syntax error");
    }

    @Test
    void swapdb_exchangesDatabasesOnEveryShard() {
        List<String> a = new ArrayList<>();
        for (int i = 0; i < 30; i++) a.add("swA:" + i);
        seedMany(3, a, "in3", 0);
        seed(4, "swB", "in4", 0);
        assertThat(j2.swapDB(3, 4)).isEqualTo("OK");
        assertThat(str(4, "swA:7")).isEqualTo("in3");
        assertThat(str(3, "swB")).isEqualTo("in4");
        assertThat(value(3, "swA:7")).isNull();
        j3.select(4);
        assertThat(j3.dbSize()).isEqualTo(30);
        assertThat(j2.swapDB(4, 4)).isEqualTo("OK");
        assertThat(j3.dbSize()).isEqualTo(30);
        for (Jedis j : both()) {
            assertThatThrownBy(() -> j.swapDB(0, 16)).hasMessage("ERR DB index is out of range");
            assertThatThrownBy(() -> j.swapDB(-1, 0)).hasMessage("ERR DB index is out of range");
            assertThatThrownBy(() -> call(j, "SWAPDB", "a", "0")).hasMessage("ERR invalid first DB index");
            assertThatThrownBy(() -> call(j, "SWAPDB", "0", "b")).hasMessage("ERR invalid second DB index");
            assertThatThrownBy(() -> call(j, "SWAPDB", "0", "99999999999"))
                    .hasMessage("ERR invalid second DB index");
        }
    }

    // ---------------------------------------------------------------- TOUCH, OBJECT

    @Test
    void touch_countsExistingKeys_andResetsIdleTime() {
        String[] k = onDifferentShards("to:");
        long tenSecondsAgo = System.currentTimeMillis() - 10_000;
        seed(0, k[0], "a", 0, tenSecondsAgo);
        seed(0, k[1], "b", 0, tenSecondsAgo);
        assertThat(j2.objectIdletime(k[0])).isBetween(9L, 11L);
        assertThat(j2.objectIdletime(k[0])).isBetween(9L, 11L); // OBJECT does not touch
        assertThat(j2.type(k[0])).isEqualTo("string");          // nor does TYPE
        assertThat(j2.objectIdletime(k[0])).isBetween(9L, 11L);
        assertThat(j2.touch(k[0], k[1], k[0], "to:none")).isEqualTo(3);
        assertThat(j2.objectIdletime(k[0])).isLessThanOrEqualTo(1L);
        assertThat(j2.objectIdletime(k[1])).isLessThanOrEqualTo(1L);
    }

    @Test
    void object_encodingRefcountFreqIdletime() {
        seed("o:short", "x".repeat(44));
        seed("o:long", "x".repeat(45));
        seed(0, "o:shared", SharedIntegers.valueOf(9999), 0);
        seed(0, "o:big", Long.valueOf(10_000), 0);
        for (Jedis j : both()) {
            assertThat(j.objectEncoding("o:short")).isEqualTo("embstr");
            assertThat(j.objectEncoding("o:long")).isEqualTo("raw");
            assertThat(j.objectEncoding("o:shared")).isEqualTo("int");
            assertThat(j.objectEncoding("o:big")).isEqualTo("int");
            assertThat(j.objectEncoding("o:none")).isNull();
            assertThat(j.objectRefcount("o:shared")).isEqualTo(2147483647L);
            assertThat(j.objectRefcount("o:big")).isEqualTo(1L);
            assertThat(j.objectRefcount("o:short")).isEqualTo(1L);
            assertThat(j.objectRefcount("o:none")).isNull();
            assertThat(j.objectIdletime("o:short")).isBetween(0L, 1L);
            assertThat(j.objectIdletime("o:none")).isNull();
            assertThat(j.objectFreq("o:none")).isNull();
            assertThatThrownBy(() -> j.objectFreq("o:short"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageStartingWith("ERR An LFU maxmemory policy is not selected");
            assertThat(j.objectHelp()).first().isEqualTo(
                    "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
            assertThat(j.objectHelp()).last().isEqualTo("    Prints this help.");
            assertThatThrownBy(() -> call(j, "OBJECT", "nope"))
                    .hasMessage("ERR unknown subcommand 'nope'. Try OBJECT HELP.");
            assertThatThrownBy(() -> call(j, "OBJECT", "encoding"))
                    .hasMessage("ERR wrong number of arguments for 'object|encoding' command");
        }
    }

    // ---------------------------------------------------------------- EXPIRE family

    @Test
    void expire_setsTtl_inAllFourForms() {
        seed("e:1", "v");
        seed("e:2", "v");
        seed("e:3", "v");
        seed("e:4", "v");
        long now = System.currentTimeMillis();
        assertThat(j2.expire("e:1", 100)).isEqualTo(1);
        assertThat(j2.ttl("e:1")).isBetween(99L, 100L);
        assertThat(j3.pexpire("e:2", 100_000)).isEqualTo(1);
        assertThat(j3.pttl("e:2")).isBetween(98_000L, 100_000L);
        assertThat(j2.expireAt("e:3", now / 1000 + 200)).isEqualTo(1);
        assertThat(j2.expireTime("e:3")).isEqualTo(now / 1000 + 200);
        assertThat(j3.pexpireAt("e:4", now + 300_000)).isEqualTo(1);
        assertThat(j3.pexpireTime("e:4")).isEqualTo(now + 300_000);
        assertThat(j3.expireTime("e:4")).isEqualTo((now + 300_000 + 500) / 1000);
        assertThat(j2.expire("e:none", 100)).isZero();
    }

    @Test
    void expire_inThePast_deletesAndRepliesOne() {
        seed("e:p1", "v");
        seed("e:p2", "v");
        seed("e:p3", "v");
        assertThat(j2.expire("e:p1", -5)).isEqualTo(1);
        assertThat(j2.exists("e:p1")).isFalse();
        assertThat(j2.pexpireAt("e:p2", 1)).isEqualTo(1);
        assertThat(value(0, "e:p2")).isNull();
        assertThat(j3.expireAt("e:p3", 0)).isEqualTo(1);
        assertThat(j3.exists("e:p3")).isFalse();
    }

    @Test
    void expire_options_nxXxGtLt() {
        seed("eo", "v");
        assertThat(j2.expire("eo", 100, ExpiryOption.XX)).isZero();  // no ttl yet
        assertThat(j2.expire("eo", 100, ExpiryOption.GT)).isZero();  // none counts as infinite
        assertThat(j2.expire("eo", 100, ExpiryOption.NX)).isEqualTo(1);
        assertThat(j2.expire("eo", 200, ExpiryOption.NX)).isZero();
        assertThat(j2.expire("eo", 200, ExpiryOption.XX)).isEqualTo(1);
        assertThat(j2.expire("eo", 150, ExpiryOption.GT)).isZero();
        assertThat(j2.expire("eo", 300, ExpiryOption.GT)).isEqualTo(1);
        assertThat(j2.expire("eo", 400, ExpiryOption.LT)).isZero();
        assertThat(j2.expire("eo", 50, ExpiryOption.LT)).isEqualTo(1);
        assertThat(j2.ttl("eo")).isBetween(49L, 50L);
        j2.persist("eo");
        assertThat(j2.expire("eo", 50, ExpiryOption.LT)).isEqualTo(1);         // none is infinite: less
        assertThat(call(j2, "EXPIRE", "eo", "40", "xx", "lt")).isEqualTo(1L); // combinable
        assertThat(call(j2, "PEXPIRE", "eo", "1000000", "XX", "GT")).isEqualTo(1L);
        assertThat(j2.pttl("eo")).isGreaterThan(900_000L);
    }

    @Test
    void expire_errors() {
        seed("ee", "v");
        for (Jedis j : both()) {
            assertThatThrownBy(() -> call(j, "EXPIRE", "ee", "10", "NX", "XX"))
                    .hasMessage("ERR NX and XX, GT or LT options at the same time are not compatible");
            assertThatThrownBy(() -> call(j, "EXPIRE", "ee", "10", "NX", "GT"))
                    .hasMessage("ERR NX and XX, GT or LT options at the same time are not compatible");
            assertThatThrownBy(() -> call(j, "PEXPIRE", "ee", "10", "gt", "lt"))
                    .hasMessage("ERR GT and LT options at the same time are not compatible");
            assertThatThrownBy(() -> call(j, "EXPIREAT", "ee", "10", "foo"))
                    .hasMessage("ERR Unsupported option foo");
            assertThatThrownBy(() -> call(j, "EXPIRE", "ee", "x"))
                    .hasMessage("ERR value is not an integer or out of range");
            assertThatThrownBy(() -> call(j, "EXPIRE", "ee", "x", "nx", "xx")) // options are checked first
                    .hasMessage("ERR NX and XX, GT or LT options at the same time are not compatible");
            assertThatThrownBy(() -> call(j, "EXPIRE", "ee", "9223372036854775807"))
                    .hasMessage("ERR invalid expire time in 'expire' command");
            assertThatThrownBy(() -> call(j, "PEXPIRE", "ee", "9223372036854775807"))
                    .hasMessage("ERR invalid expire time in 'pexpire' command");
            assertThatThrownBy(() -> call(j, "EXPIREAT", "ee", "-9223372036854775807"))
                    .hasMessage("ERR invalid expire time in 'expireat' command");
            assertThatThrownBy(() -> call(j, "PEXPIREAT", "nokey", "x"))
                    .hasMessage("ERR value is not an integer or out of range");
        }
        assertThat(call(j2, "PEXPIREAT", "ee", "9223372036854775807")).isEqualTo(1L);
        assertThat(j2.ttl("ee")).isGreaterThan(1L << 40);
    }

    @Test
    void ttl_family_onMissingPersistentAndVolatileKeys() {
        seed("tt:p", "v");
        long at = System.currentTimeMillis() + 10_400;
        seed(0, "tt:v", "v", at);
        for (Jedis j : both()) {
            assertThat(j.ttl("tt:none")).isEqualTo(-2);
            assertThat(j.pttl("tt:none")).isEqualTo(-2);
            assertThat(j.expireTime("tt:none")).isEqualTo(-2);
            assertThat(j.pexpireTime("tt:none")).isEqualTo(-2);
            assertThat(j.ttl("tt:p")).isEqualTo(-1);
            assertThat(j.pttl("tt:p")).isEqualTo(-1);
            assertThat(j.expireTime("tt:p")).isEqualTo(-1);
            assertThat(j.pexpireTime("tt:p")).isEqualTo(-1);
            assertThat(j.ttl("tt:v")).isBetween(9L, 10L);
            assertThat(j.pttl("tt:v")).isBetween(9_000L, 10_400L);
            assertThat(j.pexpireTime("tt:v")).isEqualTo(at);
            assertThat(j.expireTime("tt:v")).isEqualTo((at + 500) / 1000);
        }
    }

    @Test
    void persist_removesTtl() {
        seed(0, "ps:v", "v", System.currentTimeMillis() + 100_000);
        seed("ps:p", "v");
        assertThat(j2.persist("ps:v")).isEqualTo(1);
        assertThat(j2.ttl("ps:v")).isEqualTo(-1);
        assertThat(j2.persist("ps:v")).isZero();
        assertThat(j3.persist("ps:p")).isZero();
        assertThat(j3.persist("ps:none")).isZero();
    }

    // ---------------------------------------------------------------- expiry in time

    @Test
    void keysWithTtl_disappearByThemselves_activeExpiry() throws InterruptedException {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 200; i++) names.add("ax:" + i);
        seedMany(9, names, "v", System.currentTimeMillis() + 100);
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            j.select(9);
            assertThat(j.dbSize()).isEqualTo(200);
            long deadline = System.currentTimeMillis() + 3_000;
            Thread.sleep(1_500);
            while (j.dbSize() != 0 && System.currentTimeMillis() < deadline) Thread.sleep(50);
            assertThat(j.dbSize()).isZero();
        }
    }

    @Test
    void keysWithTtl_disappearOnAccess() throws InterruptedException {
        seed(0, "lx:1", "v", System.currentTimeMillis() + 50);
        Thread.sleep(80);
        for (Jedis j : both()) {
            assertThat(j.exists("lx:1")).isFalse();
            assertThat(j.ttl("lx:1")).isEqualTo(-2);
            assertThat(j.type("lx:1")).isEqualTo("none");
        }
    }

    @Test
    void rename_ofExpiredKey_isNoSuchKey() {
        seed(0, "rx", "v", System.currentTimeMillis() - 1);
        assertThatThrownBy(() -> j2.rename("rx", "ry")).hasMessage("ERR no such key");
    }

    // ---------------------------------------------------------------- helpers

    /** Sends a raw command; integers come back as Long, status and bulk replies as String. */
    static Object call(Jedis j, String... args) {
        byte[][] rest = new byte[args.length - 1][];
        for (int i = 1; i < args.length; i++) rest[i - 1] = b(args[i]);
        Object r = j.sendCommand(() -> b(args[0]), rest);
        return r instanceof byte[] bs ? new String(bs, StandardCharsets.UTF_8) : r;
    }
}
