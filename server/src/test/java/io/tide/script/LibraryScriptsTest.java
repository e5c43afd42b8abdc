package io.tide.script;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.tide.Server;
import io.tide.testing.TestServers;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * Lua scripts as real libraries write them, run unchanged through Jedis and Lettuce in RESP2 and RESP3, with
 * one shard and with four (where their undeclared keys live on other shards): a Redisson-style reentrant lock,
 * a sliding-window rate limiter and BullMQ's job-add pattern; plus a transfer between counters on different
 * shards that concurrent readers never see half done.
 */
@ParameterizedClass
@ValueSource(ints = {1, 4})
class LibraryScriptsTest {

    @Parameter
    int shards;

    private static final Map<Integer, Server> SERVERS = new java.util.concurrent.ConcurrentHashMap<>();
    private static final AtomicInteger ROUND = new AtomicInteger();

    static final String LOCK_ACQUIRE = """
            if (redis.call('exists', KEYS[1]) == 0) then
                redis.call('hincrby', KEYS[1], ARGV[2], 1);
                redis.call('pexpire', KEYS[1], ARGV[1]);
                return nil;
            end;
            if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
                redis.call('hincrby', KEYS[1], ARGV[2], 1);
                redis.call('pexpire', KEYS[1], ARGV[1]);
                return nil;
            end;
            return redis.call('pttl', KEYS[1]);""";
    static final String LOCK_RENEW = """
            if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
                redis.call('pexpire', KEYS[1], ARGV[1]);
                return 1;
            end;
            return 0;""";
    static final String LOCK_RELEASE = """
            if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then
                return nil;
            end;
            local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
            if (counter > 0) then
                redis.call('pexpire', KEYS[1], ARGV[2]);
                return 0;
            else
                redis.call('del', KEYS[1]);
                return 1;
            end;
            return nil;""";
    static final String RATE_LIMIT = """
            local key = KEYS[1]
            local now = tonumber(ARGV[1])
            local window = tonumber(ARGV[2])
            local limit = tonumber(ARGV[3])
            redis.call('ZREMRANGEBYSCORE', key, 0, now - window)
            local count = redis.call('ZCARD', key)
            if count < limit then
                redis.call('ZADD', key, now, ARGV[4])
                redis.call('PEXPIRE', key, window)
                return 1
            end
            return 0""";
    /** BullMQ's addStandardJob shape: a prefix key, msgpack'd arguments and options, keys built in the script. */
    static final String BULL_ADD = """
            local rcall = redis.call
            local prefix = KEYS[1]
            local args = cmsgpack.unpack(ARGV[1])
            local data = ARGV[2]
            local opts = cmsgpack.unpack(ARGV[3])
            local jobCounter = rcall("INCR", prefix .. "id")
            local jobId = args[2]
            if jobId == "" then jobId = jobCounter .. "" end
            local jobIdKey = prefix .. jobId
            if rcall("EXISTS", jobIdKey) == 1 then
                return jobId .. ""
            end
            rcall("HMSET", jobIdKey, "name", args[3], "data", data, "opts", cjson.encode(opts),
                "timestamp", args[4], "delay", opts["delay"] or 0, "priority", opts["priority"] or 0)
            rcall("LPUSH", prefix .. "wait", jobId)
            rcall("XADD", prefix .. "events", "MAXLEN", "~", 10000, "*", "event", "added", "jobId", jobId,
                "name", args[3])
            local meta = rcall("HGET", prefix .. "meta", "paused")
            return jobId .. ""
            """;

    @BeforeAll
    static void noop() { }

    @AfterAll
    static void stop() {
        SERVERS.values().forEach(Server::close);
        SERVERS.clear();
    }

    private int port() {
        return SERVERS.computeIfAbsent(shards, TestServers::start).port();
    }

    private String p() {
        return "lib" + ROUND.incrementAndGet() + ":";
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void redissonLock_acquireRenewRelease_withJedis(int proto) {
        try (Jedis a = TestServers.jedis(port(), proto)) {
            String lock = p() + "lock";
            assertThat(a.eval(LOCK_ACQUIRE, List.of(lock), List.of("30000", "client-a:1"))).isNull();
            assertThat(a.eval(LOCK_ACQUIRE, List.of(lock), List.of("30000", "client-a:1"))).isNull(); // reentrant
            Object ttl = a.eval(LOCK_ACQUIRE, List.of(lock), List.of("30000", "client-b:1"));
            assertThat((Long) ttl).isBetween(1L, 30000L);
            assertThat(a.hget(lock, "client-a:1")).isEqualTo("2");
            assertThat(a.eval(LOCK_RENEW, List.of(lock), List.of("60000", "client-a:1"))).isEqualTo(1L);
            assertThat(a.pttl(lock)).isGreaterThan(30000L);
            assertThat(a.eval(LOCK_RENEW, List.of(lock), List.of("60000", "client-b:1"))).isEqualTo(0L);
            assertThat(a.eval(LOCK_RELEASE, List.of(lock), List.of("0", "30000", "client-b:1"))).isNull();
            assertThat(a.eval(LOCK_RELEASE, List.of(lock), List.of("0", "30000", "client-a:1"))).isEqualTo(0L);
            assertThat(a.eval(LOCK_RELEASE, List.of(lock), List.of("0", "30000", "client-a:1"))).isEqualTo(1L);
            assertThat(a.exists(lock)).isFalse();
            assertThat(a.eval(LOCK_ACQUIRE, List.of(lock), List.of("30000", "client-b:1"))).isNull();
        }
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void redissonLock_withLettuce(int proto) {
        RedisClient client = TestServers.lettuce(port(), proto);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            RedisCommands<String, String> s = c.sync();
            String[] lock = {p() + "lock"};
            assertThat((Object) s.eval(LOCK_ACQUIRE, ScriptOutputType.INTEGER, lock, "30000", "x:1")).isNull();
            Long ttl = s.eval(LOCK_ACQUIRE, ScriptOutputType.INTEGER, lock, "30000", "y:1");
            assertThat(ttl).isBetween(1L, 30000L);
            String sha = s.scriptLoad(LOCK_RELEASE);
            assertThat((Long) s.evalsha(sha, ScriptOutputType.INTEGER, lock, "0", "30000", "x:1")).isEqualTo(1L);
            assertThat(s.exists(lock)).isZero();
        } finally {
            client.shutdown();
        }
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void slidingWindowRateLimiter_allowsLimitPerWindow(int proto) {
        try (Jedis j = TestServers.jedis(port(), proto)) {
            String key = p() + "rate";
            long now = 1_000_000;
            int allowed = 0;
            for (int i = 0; i < 8; i++) {
                Object r = j.eval(RATE_LIMIT, List.of(key), List.of(Long.toString(now + i), "1000", "5", "req" + i));
                allowed += ((Long) r).intValue();
            }
            assertThat(allowed).isEqualTo(5);
            assertThat(j.zcard(key)).isEqualTo(5);
            assertThat(j.pttl(key)).isBetween(1L, 1000L);
            // After the window slides past the old requests, new ones pass again.
            Object later = j.eval(RATE_LIMIT, List.of(key), List.of(Long.toString(now + 2000), "1000", "5", "late"));
            assertThat(later).isEqualTo(1L);
            assertThat(j.zcard(key)).isEqualTo(1);
        }
        RedisClient client = TestServers.lettuce(port(), proto);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            String[] key = {p() + "rate"};
            long ok = 0;
            for (int i = 0; i < 4; i++) {
                Long r = c.sync().eval(RATE_LIMIT, ScriptOutputType.INTEGER, key, "100" + i, "1000", "3", "m" + i);
                ok += r;
            }
            assertThat(ok).isEqualTo(3);
        } finally {
            client.shutdown();
        }
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void bullmqAddJob_touchesUndeclaredKeys_withCjsonAndCmsgpack(int proto) {
        String prefix = "bull:" + p();
        byte[] args = msgpackArray(prefix, "", "email", "1700000000000");
        byte[] opts = msgpackMap("delay", 0, "priority", 0, "attempts", 3);
        try (Jedis j = TestServers.jedis(port(), proto)) {
            for (int i = 1; i <= 3; i++) {
                Object id = j.eval(BULL_ADD.getBytes(StandardCharsets.UTF_8), List.of(prefix.getBytes(StandardCharsets.UTF_8)),
                        List.of(args, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8), opts));
                assertThat(new String((byte[]) id, StandardCharsets.UTF_8)).isEqualTo(Integer.toString(i));
            }
            assertThat(j.lrange(prefix + "wait", 0, -1)).containsExactly("3", "2", "1");
            assertThat(j.hget(prefix + "2", "data")).isEqualTo("{\"n\":2}");
            assertThat(j.hget(prefix + "2", "name")).isEqualTo("email");
            assertThat(j.hget(prefix + "2", "opts")).contains("\"attempts\":3").startsWith("{").endsWith("}");
            assertThat(j.xlen(prefix + "events")).isEqualTo(3);
            assertThat(j.get(prefix + "id")).isEqualTo("3");
        }
        RedisClient client = TestServers.lettuce(port(), proto);
        try (StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE)) {
            byte[] id = c.sync().eval(BULL_ADD.getBytes(StandardCharsets.UTF_8), ScriptOutputType.VALUE,
                    new byte[][] {prefix.getBytes(StandardCharsets.UTF_8)}, args, "{}".getBytes(StandardCharsets.UTF_8), opts);
            assertThat(new String(id, StandardCharsets.UTF_8)).isEqualTo("4");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void transferScript_acrossShards_neverShowsAHalfDoneTransfer() throws Exception {
        String p = p();
        String a = p + "acct:a";
        String b = p + "acct:b";
        String transfer = "redis.call('decrby', KEYS[1], ARGV[1]); redis.call('incrby', KEYS[2], ARGV[1]); return 1";
        String sum = "return tonumber(redis.call('get', KEYS[1]) or 0) + tonumber(redis.call('get', KEYS[2]) or 0)";
        try (Jedis j = TestServers.jedis(port(), 2)) {
            j.set(a, "1000");
            j.set(b, "1000");
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> violation = new AtomicReference<>();
        AtomicInteger reads = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            int dir = w;
            threads.add(Thread.ofPlatform().start(() -> {
                try (Jedis j = TestServers.jedis(port(), 2)) {
                    for (int i = 0; i < 300; i++) {
                        if (dir % 2 == 0) j.eval(transfer, List.of(a, b), List.of("7"));
                        else j.eval(transfer, List.of(b, a), List.of("5"));
                    }
                }
            }));
        }
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            boolean viaScript = r == 1;
            readers.add(Thread.ofPlatform().start(() -> {
                try (Jedis j = TestServers.jedis(port(), 2)) {
                    while (!stop.get()) {
                        long total;
                        if (viaScript) total = (Long) j.eval(sum, List.of(a, b), List.of());
                        else {
                            List<String> v = j.mget(a, b);
                            total = Long.parseLong(v.get(0)) + Long.parseLong(v.get(1));
                        }
                        reads.incrementAndGet();
                        if (total != 2000) violation.compareAndSet(null, "saw sum " + total);
                    }
                }
            }));
        }
        for (Thread t : threads) t.join();
        stop.set(true);
        for (Thread t : readers) t.join();
        assertThat(violation.get()).isNull();
        assertThat(reads.get()).isPositive();
        try (Jedis j = TestServers.jedis(port(), 2)) {
            assertThat(Long.parseLong(j.get(a)) + Long.parseLong(j.get(b))).isEqualTo(2000);
            assertThat(Long.parseLong(j.get(a))).isEqualTo(1000 - 2 * 300 * 7 + 300 * 5);
        }
    }

    private static byte[] msgpackArray(String... items) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0x90 | items.length);
        for (String s : items) str(s, out);
        return out.toByteArray();
    }

    private static byte[] msgpackMap(Object... kv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0x80 | (kv.length / 2));
        for (Object o : kv) {
            if (o instanceof String s) str(s, out);
            else out.write((Integer) o); // positive fixint
        }
        return out.toByteArray();
    }

    private static void str(String s, ByteArrayOutputStream out) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.write(0xa0 | b.length);
        out.writeBytes(b);
    }
}
