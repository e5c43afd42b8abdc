package io.tide.persistence.rdb;

import static io.tide.persistence.rdb.RdbValues.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.testing.RealRedis;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Whole RDB files between Tide and redis-server 7.0.15: a file written by {@link RdbFileWriter} passes
 * redis-check-rdb and loads into Redis with identical contents; Redis's own dump.rdb reads back through
 * {@link RdbFileReader}; corruption and truncation are errors.
 */
class RdbFileVsRedisTest {

    @TempDir
    Path dir;

    record Stored(Object value, long expireAt) {}

    /** db -> key -> value: every type and encoding spread over the 16 databases, some keys with expiries. */
    private static Map<Integer, Map<String, Stored>> dataset() {
        Map<Integer, Map<String, Stored>> dbs = new TreeMap<>();
        Object[] values = {b("hello"), 42L, -7_000_000_000L, b("z".repeat(3000)), list(10, 3), list(2000, 30),
            hash(8, 4), hash(700, 4), set(7, true), set(700, true), set(9, false), set(400, false), zset(12), zset(300),
            stream(250, true), stream(3, false)};
        long future = System.currentTimeMillis() + 3_600_000;
        for (int db = 0; db < 16; db++) {
            Map<String, Stored> keys = new LinkedHashMap<>();
            for (int i = 0; i < values.length; i++) {
                if ((i + db) % 3 == 0 || db == 0) keys.put("k" + db + ":" + i, new Stored(values[i], i % 4 == 1 ? future + i : 0));
            }
            dbs.put(db, keys);
        }
        return dbs;
    }

    private static long write(Path file, Map<Integer, Map<String, Stored>> dbs) throws IOException {
        return RdbFileWriter.writeAtomically(file, w -> {
            w.header(RdbVersion.WRITE).standardAux("7.0.15", System.currentTimeMillis() / 1000, 1_000_000, false);
            for (var db : dbs.entrySet()) {
                // Two chunks per database, each with its own SELECTDB, as per-shard snapshot buffers come.
                List<Map.Entry<String, Stored>> entries = new ArrayList<>(db.getValue().entrySet());
                for (int half = 0; half < 2; half++) {
                    RdbOutput chunk = new RdbOutput(true);
                    RdbEncoder.writeSelectDb(chunk, db.getKey());
                    if (half == 0) RdbEncoder.writeResizeDb(chunk, entries.size(), 0);
                    for (int i = half; i < entries.size(); i += 2) {
                        var e = entries.get(i);
                        RdbEncoder.writeEntry(chunk, b(e.getKey()), e.getValue().value(), e.getValue().expireAt(), RdbVersion.WRITE);
                    }
                    w.raw(chunk);
                }
            }
            w.functions(List.of(b("#!lua name=tidelib\nredis.register_function('tidef', function() return 1 end)")));
            w.finish(true);
        });
    }

    private static void awaitLoaded(Jedis j) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            try {
                j.ping();
                return;
            } catch (JedisDataException e) {
                Thread.sleep(20);
            }
        }
    }

    @Test
    void tideFile_passesRedisCheckRdb_andLoadsIntoRedisWithSameContents() throws Exception {
        var dbs = dataset();
        Path file = dir.resolve("tide.rdb");
        long size = write(file, dbs);
        assertThat(Files.size(file)).isEqualTo(size);
        assertThat(Files.list(dir).filter(p -> p.getFileName().toString().startsWith("temp-")).count()).isZero();

        if (Files.isExecutable(Path.of("/usr/bin/redis-check-rdb"))) {
            Process p = new ProcessBuilder("/usr/bin/redis-check-rdb", file.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(out).isZero();
            assertThat(out).contains("RDB looks OK");
        }

        try (RealRedis redis = RealRedis.startWithFile(dir, "tide.rdb"); Jedis j = new Jedis("127.0.0.1", redis.port())) {
            awaitLoaded(j);
            for (var db : dbs.entrySet()) {
                j.select(db.getKey());
                assertThat(j.dbSize()).isEqualTo(db.getValue().size());
                for (var e : db.getValue().entrySet()) {
                    Object back = Dump.deserialize(j.dump(e.getKey()), L);
                    assertThat(describe(back)).as(e.getKey()).isEqualTo(describe(e.getValue().value()));
                    long pttl = j.pttl(e.getKey());
                    if (e.getValue().expireAt() > 0) assertThat(pttl).isBetween(3_000_000L, 3_700_000L);
                    else assertThat(pttl).isEqualTo(-1);
                }
            }
            assertThat(j.fcall("tidef", List.of(), List.of())).isEqualTo(1L);
        }
    }

    @Test
    void redisDumpRdb_readsBackWithSameContents() throws Exception {
        Map<String, Object> dumps = new TreeMap<>();
        try (RealRedis redis = RealRedis.startWithFile(dir, "dump.rdb"); Jedis j = new Jedis("127.0.0.1", redis.port())) {
            for (int db = 0; db < 16; db += 5) {
                j.select(db);
                String p = "d" + db + ":";
                j.set(p + "s", "text");
                j.set(p + "i", "123");
                j.setex(p + "ttl", 1000, "x".repeat(100));
                j.rpush(p + "l", "a", "b", "3");
                for (int i = 0; i < 300; i++) j.rpush(p + "bl", "elem" + i + "y".repeat(80));
                j.hset(p + "h", Map.of("f", "v", "g", "1"));
                for (int i = 0; i < 600; i++) j.hset(p + "bh", "f" + i, "v" + i);
                j.sadd(p + "is", "1", "2", "-3");
                j.sadd(p + "ss", "a", "b");
                j.zadd(p + "z", Map.of("a", 1.5, "b", -2.0));
                for (int i = 0; i < 200; i++) j.zadd(p + "bz", i / 7.0, "m" + i);
                j.xadd(p + "x", StreamEntryID.NEW_ENTRY, Map.of("f", "v"));
                j.xgroupCreate(p + "x", "g", new StreamEntryID(0, 0), false);
                j.sendCommand(Protocol.Command.XREADGROUP, "GROUP", "g", "c", "STREAMS", p + "x", ">");
                for (String k : j.keys(p + "*")) dumps.put(db + "/" + k, Dump.deserialize(j.dump(k), L));
            }
            j.functionLoad("#!lua name=rlib\nredis.register_function('rf', function() return 2 end)");
            assertThat(j.save()).isEqualTo("OK");
        }
        Map<String, Object> read = new TreeMap<>();
        Map<String, Long> expiries = new TreeMap<>();
        List<String> functions = new ArrayList<>();
        Map<String, String> aux = new TreeMap<>();
        int version = RdbFileReader.read(dir.resolve("dump.rdb"), L, new RdbFileReader.Visitor() {
            @Override
            public void aux(byte[] name, byte[] value) {
                aux.put(s(name), s(value));
            }

            @Override
            public void entry(int db, byte[] key, Object value, long expireAtMs, long idleSecs, int freq) {
                read.put(db + "/" + s(key), value);
                if (expireAtMs > 0) expiries.put(db + "/" + s(key), expireAtMs);
            }

            @Override
            public void function(byte[] code) {
                functions.add(s(code));
            }
        });
        assertThat(version).isEqualTo(10);
        assertThat(aux).containsKey("redis-ver").containsEntry("redis-bits", "64");
        assertThat(read.keySet()).isEqualTo(dumps.keySet());
        for (var e : dumps.entrySet()) assertThat(describe(read.get(e.getKey()))).as(e.getKey()).isEqualTo(describe(e.getValue()));
        assertThat(expiries.keySet()).containsExactly("0/d0:ttl", "10/d10:ttl", "15/d15:ttl", "5/d5:ttl");
        assertThat(functions).hasSize(1).first().asString().contains("rlib");
    }

    @Test
    void flippedByte_isAChecksumError_andTruncation_isAnError() throws Exception {
        Path file = dir.resolve("t.rdb");
        write(file, dataset());
        byte[] good = Files.readAllBytes(file);
        RdbFileReader.Visitor none = (db, key, value, expireAt, idle, freq) -> { };
        byte[] flipped = good.clone();
        // Inside a long string value, so the structure still parses and only the checksum can tell.
        int at = indexOf(good, b("hello"));
        flipped[at] = (byte) 'j';
        Files.write(file, flipped);
        assertThatThrownBy(() -> RdbFileReader.read(file, L, none)).isInstanceOf(RdbFormatException.class)
                .hasMessageContaining("RDB checksum mismatch in " + file);
        for (int cut : new int[] {5, 9, 100, good.length / 2, good.length - 9, good.length - 1}) {
            Files.write(file, java.util.Arrays.copyOf(good, cut));
            assertThatThrownBy(() -> RdbFileReader.read(file, L, none)).as("cut at " + cut).isInstanceOf(RdbFormatException.class);
        }
        Files.write(file, java.util.Arrays.copyOf(good, good.length / 2));
        assertThatThrownBy(() -> RdbFileReader.read(file, L, none)).hasMessageContaining("unexpected end of file at offset");
        Files.write(file, good);
        int[] n = {0};
        RdbFileReader.read(file, L, (db, key, value, expireAt, idle, freq) -> n[0]++);
        assertThat(n[0]).isEqualTo(dataset().values().stream().mapToInt(Map::size).sum());
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int k = 0; k < needle.length; k++) if (hay[i + k] != needle[k]) continue outer;
            return i;
        }
        throw new AssertionError("not found");
    }
}
