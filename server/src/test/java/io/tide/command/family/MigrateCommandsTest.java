package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.journal.CapturingSink;
import io.tide.journal.Effect;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * MIGRATE between Tide and redis-server 7.0.15 in both directions, and between two Tide servers: every type with its
 * TTL, COPY, REPLACE, KEYS over several shards, AUTH/AUTH2, NOKEY, the errors (compared byte for byte with what Redis
 * replies in the same situation), the retry on a dead cached connection, and the journal's DEL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MigrateCommandsTest {

    private static final String HOST = "127.0.0.1";
    private static final String TIMEOUT = "5000";

    private RealRedis redis;
    private RealRedis redisWithPass;
    private Server tide1;
    private Server tide4;
    private Server tideWithPass;

    @BeforeAll
    void start() throws Exception {
        redis = RealRedis.start();
        redisWithPass = RealRedis.startWith("--requirepass", "secret");
        tide1 = TestServers.start(1);
        tide4 = TestServers.start(4);
        tideWithPass = TestServers.start(2, "--requirepass", "tidepass");
    }

    @AfterAll
    void stop() {
        for (Server s : new Server[] {tide1, tide4, tideWithPass}) if (s != null) s.close();
        if (redis != null) redis.close();
        if (redisWithPass != null) redisWithPass.close();
    }

    @BeforeEach
    void flush() throws IOException {
        call(redis.port(), "FLUSHALL");
        callAuth(redisWithPass.port(), "secret", "FLUSHALL");
        call(tide1.port(), "FLUSHALL");
        call(tide4.port(), "FLUSHALL");
        callAuth(tideWithPass.port(), "tidepass", "FLUSHALL");
    }

    // ------------------------------------------------------------------ helpers

    private static String call(int port, String... args) throws IOException {
        try (RawClient c = new RawClient(port)) {
            return c.call(args);
        }
    }

    private static String callAuth(int port, String password, String... args) throws IOException {
        try (RawClient c = new RawClient(port)) {
            assertThat(c.call("AUTH", password)).isEqualTo("+OK\r\n");
            return c.call(args);
        }
    }

    private static String[] migrate(int targetPort, String key, String db, String... options) {
        List<String> a = new ArrayList<>(List.of("MIGRATE", HOST, Integer.toString(targetPort), key, db, TIMEOUT));
        a.addAll(List.of(options));
        return a.toArray(new String[0]);
    }

    /** One key of each type under {@code p}: two with a TTL; the stream has a group with a pending entry. */
    private static List<String> fill(Jedis j, String p) {
        j.set(p + "str", "hello");
        j.pexpire(p + "str", 100_000);
        j.set(p + "int", "12345");
        j.rpush(p + "list", "a", "b", "1", "c".repeat(100));
        j.pexpire(p + "list", 200_000);
        j.hset(p + "hash", "f1", "v1");
        j.hset(p + "hash", "f2", "2");
        j.sadd(p + "set", "x", "y", "z");
        j.sadd(p + "intset", "1", "2", "300000");
        j.zadd(p + "zset", 1.5, "m1");
        j.zadd(p + "zset", -2, "m2");
        j.sendCommand(() -> "XADD".getBytes(), p + "stream", "1-1", "f", "v");
        j.sendCommand(() -> "XADD".getBytes(), p + "stream", "2-1", "g", "w");
        j.sendCommand(() -> "XGROUP".getBytes(), "CREATE", p + "stream", "grp", "0");
        j.sendCommand(() -> "XREADGROUP".getBytes(), "GROUP", "grp", "alice", "COUNT", "1", "STREAMS", p + "stream", ">");
        return List.of(p + "str", p + "int", p + "list", p + "hash", p + "set", p + "intset", p + "zset", p + "stream");
    }

    /** A key's type, contents (in an order independent of encodings) and TTL rounded to 10 s, read with plain commands. */
    private static String describe(int port, String password, String key) throws IOException {
        try (RawClient c = new RawClient(port)) {
            if (password != null) c.call("AUTH", password);
            String type = c.call("TYPE", key);
            String contents = switch (type) {
                case "+string\r\n" -> c.call("GET", key);
                case "+list\r\n" -> c.call("LRANGE", key, "0", "-1");
                case "+hash\r\n" -> new TreeSet<>(List.of(c.call("HGETALL", key).split("\r\n"))).toString();
                case "+set\r\n" -> new TreeSet<>(List.of(c.call("SMEMBERS", key).split("\r\n"))).toString();
                case "+zset\r\n" -> c.call("ZRANGE", key, "0", "-1", "WITHSCORES");
                case "+stream\r\n" -> c.call("XRANGE", key, "-", "+") + c.call("XPENDING", key, "grp")
                        + c.call("XINFO", "GROUPS", key).replaceAll("(entries-read|lag)\r\n:\\d+", "$1");
                default -> "";
            };
            long pttl = Long.parseLong(c.call("PTTL", key).trim().substring(1));
            return type + contents + " ttl=" + (pttl < 0 ? pttl : (pttl + 9_999) / 10_000 * 10);
        }
    }

    private static TreeMap<String, String> describeAll(int port, String password, List<String> keys)
            throws IOException {
        TreeMap<String, String> out = new TreeMap<>();
        for (String k : keys) out.put(k, describe(port, password, k));
        return out;
    }

    // ------------------------------------------------------------------ every type, both directions

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void migrate_tideToRedis_everyTypeWithTtl(int shards) throws Exception {
        Server tide = shards == 1 ? tide1 : tide4;
        List<String> keys;
        try (Jedis jt = TestServers.jedis(tide.port(), 2)) {
            keys = fill(jt, "t:");
        }
        TreeMap<String, String> before = describeAll(tide.port(), null, keys);
        assertThat(before.get("t:str")).isEqualTo("+string\r\n$5\r\nhello\r\n ttl=100");
        assertThat(before.get("t:stream")).contains("alice");
        for (String k : keys) assertThat(call(tide.port(), migrate(redis.port(), k, "0"))).isEqualTo("+OK\r\n");
        assertThat(describeAll(redis.port(), null, keys)).isEqualTo(before);
        for (String k : keys) assertThat(call(tide.port(), "EXISTS", k)).isEqualTo(":0\r\n");
    }

    @Test
    void migrate_redisToTide_everyTypeWithTtl() throws Exception {
        List<String> keys;
        try (Jedis jr = new Jedis(HOST, redis.port())) {
            keys = fill(jr, "r:");
        }
        TreeMap<String, String> before = describeAll(redis.port(), null, keys);
        for (String k : keys) assertThat(call(redis.port(), migrate(tide4.port(), k, "0"))).isEqualTo("+OK\r\n");
        assertThat(describeAll(tide4.port(), null, keys)).isEqualTo(before);
        for (String k : keys) assertThat(call(redis.port(), "EXISTS", k)).isEqualTo(":0\r\n");
    }

    @Test
    void migrate_tideToTide_keysFormAcrossShards_movesEverything() throws Exception {
        List<String> keys;
        try (Jedis jt = TestServers.jedis(tide4.port(), 2)) {
            keys = fill(jt, "tt:");
        }
        Set<Integer> owners = new HashSet<>();
        for (String k : keys) owners.add(tide4.context().shards().shardOf(k.getBytes(StandardCharsets.UTF_8)).id());
        assertThat(owners).hasSizeGreaterThan(1);
        TreeMap<String, String> before = describeAll(tide4.port(), null, keys);
        List<String> a = new ArrayList<>(List.of(migrate(tide1.port(), "", "0", "KEYS")));
        a.addAll(keys);
        a.add("tt:missing");
        assertThat(call(tide4.port(), a.toArray(new String[0]))).isEqualTo("+OK\r\n");
        assertThat(describeAll(tide1.port(), null, keys)).isEqualTo(before);
        assertThat(call(tide4.port(), "DBSIZE")).isEqualTo(":0\r\n");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4})
    void migrate_keysForm_fromTide_toRedis(int shards) throws Exception {
        Server tide = shards == 1 ? tide1 : tide4;
        String[] ab = TestServers.keysOnDifferentShards(tide, "kf");
        call(tide.port(), "SET", ab[0], "1");
        call(tide.port(), "SET", ab[1], "2");
        call(tide.port(), "SET", "kf:c", "3");
        assertThat(call(tide.port(), migrate(redis.port(), "", "0", "KEYS", ab[0], "kf:nope", ab[1], "kf:c")))
                .isEqualTo("+OK\r\n");
        assertThat(call(redis.port(), "MGET", ab[0], ab[1], "kf:c"))
                .isEqualTo("*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
        assertThat(call(tide.port(), "EXISTS", ab[0], ab[1], "kf:c")).isEqualTo(":0\r\n");
    }

    // ------------------------------------------------------------------ options

    @Test
    void migrate_copy_keepsTheSource_andReplaceOverwrites() throws Exception {
        call(tide4.port(), "SET", "c:k", "one");
        assertThat(call(tide4.port(), migrate(redis.port(), "c:k", "0", "COPY"))).isEqualTo("+OK\r\n");
        assertThat(call(tide4.port(), "GET", "c:k")).isEqualTo("$3\r\none\r\n");
        assertThat(call(redis.port(), "GET", "c:k")).isEqualTo("$3\r\none\r\n");

        call(tide4.port(), "SET", "c:k", "two");
        String busy = "-ERR Target instance replied with error: BUSYKEY Target key name already exists.\r\n";
        assertThat(call(tide4.port(), migrate(redis.port(), "c:k", "0"))).isEqualTo(busy);
        assertThat(call(tide4.port(), "GET", "c:k")).isEqualTo("$3\r\ntwo\r\n"); // not deleted on error
        assertThat(call(redis.port(), "GET", "c:k")).isEqualTo("$3\r\none\r\n");

        assertThat(call(tide4.port(), migrate(redis.port(), "c:k", "0", "COPY", "REPLACE"))).isEqualTo("+OK\r\n");
        assertThat(call(redis.port(), "GET", "c:k")).isEqualTo("$3\r\ntwo\r\n");
        assertThat(call(tide4.port(), "GET", "c:k")).isEqualTo("$3\r\ntwo\r\n");
        assertThat(call(tide4.port(), migrate(redis.port(), "c:k", "0", "REPLACE"))).isEqualTo("+OK\r\n");
        assertThat(call(tide4.port(), "EXISTS", "c:k")).isEqualTo(":0\r\n");

        // Redis gives the same text for the same situation.
        call(redis.port(), "SET", "c:k2", "x");
        call(tide1.port(), "SET", "c:k2", "y");
        assertThat(call(redis.port(), migrate(tide1.port(), "c:k2", "0"))).isEqualTo(busy);
    }

    @Test
    void migrate_keysForm_someBusy_deletesOnlyTheAcknowledged() throws Exception {
        call(tide1.port(), "SET", "b:1", "a");
        call(tide1.port(), "SET", "b:2", "b");
        call(redis.port(), "SET", "b:2", "theirs");
        assertThat(call(tide1.port(), migrate(redis.port(), "", "0", "KEYS", "b:1", "b:2")))
                .isEqualTo("-ERR Target instance replied with error: BUSYKEY Target key name already exists.\r\n");
        assertThat(call(tide1.port(), "EXISTS", "b:1")).isEqualTo(":0\r\n");
        assertThat(call(tide1.port(), "GET", "b:2")).isEqualTo("$1\r\nb\r\n");
        assertThat(call(redis.port(), "MGET", "b:1", "b:2")).isEqualTo("*2\r\n$1\r\na\r\n$6\r\ntheirs\r\n");
    }

    @Test
    void migrate_toAnotherDb_selectsIt_andSwitchesBackOnTheCachedConnection() throws Exception {
        call(tide1.port(), "SET", "d:k", "v3");
        assertThat(call(tide1.port(), migrate(redis.port(), "d:k", "3"))).isEqualTo("+OK\r\n");
        call(tide1.port(), "SET", "d:k", "v0");
        assertThat(call(tide1.port(), migrate(redis.port(), "d:k", "0"))).isEqualTo("+OK\r\n");
        try (RawClient c = new RawClient(redis.port())) {
            assertThat(c.call("GET", "d:k")).isEqualTo("$2\r\nv0\r\n");
            c.call("SELECT", "3");
            assertThat(c.call("GET", "d:k")).isEqualTo("$2\r\nv3\r\n");
        }
        call(tide1.port(), "SET", "d:k", "v");
        assertThat(call(tide1.port(), migrate(redis.port(), "d:k", "99")))
                .isEqualTo("-ERR Target instance replied with error: ERR DB index is out of range\r\n");
    }

    @Test
    void migrate_nothingThere_repliesNokey() throws Exception {
        assertThat(call(tide4.port(), migrate(redis.port(), "n:none", "0"))).isEqualTo("+NOKEY\r\n");
        assertThat(call(tide4.port(), migrate(redis.port(), "", "0", "KEYS", "n:a", "n:b"))).isEqualTo("+NOKEY\r\n");
        assertThat(call(tide4.port(), migrate(redis.port(), "", "0", "KEYS"))).isEqualTo("+NOKEY\r\n");
        assertThat(call(redis.port(), migrate(tide4.port(), "n:none", "0"))).isEqualTo("+NOKEY\r\n");
    }

    // ------------------------------------------------------------------ AUTH

    @Test
    void migrate_tideToRedisWithRequirepass_authAndAuth2() throws Exception {
        int target = redisWithPass.port();
        call(tide4.port(), "SET", "a:1", "x");
        call(tide4.port(), "SET", "a:2", "y");
        assertThat(call(tide4.port(), migrate(target, "a:1", "0")))
                .isEqualTo("-ERR Target instance replied with error: NOAUTH Authentication required.\r\n");
        String wrongpass = "-ERR Target instance replied with error: WRONGPASS invalid username-password pair or "
                + "user is disabled.\r\n";
        assertThat(call(tide4.port(), migrate(target, "a:1", "0", "AUTH", "nope"))).isEqualTo(wrongpass);
        assertThat(call(tide4.port(), migrate(target, "a:1", "0", "AUTH2", "default", "nope"))).isEqualTo(wrongpass);
        assertThat(call(tide4.port(), "EXISTS", "a:1")).isEqualTo(":1\r\n");
        assertThat(call(tide4.port(), migrate(target, "a:1", "0", "AUTH", "secret"))).isEqualTo("+OK\r\n");
        assertThat(call(tide4.port(), migrate(target, "a:2", "0", "AUTH2", "default", "secret", "COPY")))
                .isEqualTo("+OK\r\n");
        assertThat(callAuth(target, "secret", "MGET", "a:1", "a:2")).isEqualTo("*2\r\n$1\r\nx\r\n$1\r\ny\r\n");
        assertThat(call(tide4.port(), "MGET", "a:1", "a:2")).isEqualTo("*2\r\n$-1\r\n$1\r\ny\r\n");
    }

    @Test
    void migrate_redisToTideWithRequirepass_auth() throws Exception {
        int target = tideWithPass.port();
        call(redis.port(), "SET", "ra:1", "x");
        call(redis.port(), "RPUSH", "ra:2", "p", "q");
        assertThat(call(redis.port(), migrate(target, "ra:1", "0")))
                .isEqualTo("-ERR Target instance replied with error: NOAUTH Authentication required.\r\n");
        assertThat(call(redis.port(), migrate(target, "", "0", "AUTH", "tidepass", "KEYS", "ra:1", "ra:2")))
                .isEqualTo("+OK\r\n");
        assertThat(callAuth(target, "tidepass", "GET", "ra:1")).isEqualTo("$1\r\nx\r\n");
        assertThat(callAuth(target, "tidepass", "LRANGE", "ra:2", "0", "-1")).isEqualTo("*2\r\n$1\r\np\r\n$1\r\nq\r\n");
    }

    // ------------------------------------------------------------------ errors, as Redis has them

    @Test
    void migrate_malformed_repliesAsRedis() throws Exception {
        call(redis.port(), "SET", "e:k", "v");
        call(tide4.port(), "SET", "e:k", "v");
        String p = Integer.toString(redisWithPass.port());
        List<String[]> cases = List.of(
                new String[] {"MIGRATE", HOST, p, "e:k", "x", "1000"},
                new String[] {"MIGRATE", HOST, p, "e:k", "0", "1.5"},
                new String[] {"MIGRATE", HOST, p, "e:k", "0", "1000", "BOGUS"},
                new String[] {"MIGRATE", HOST, p, "e:k", "x", "1000", "BOGUS"},
                new String[] {"MIGRATE", HOST, p, "e:k", "0", "1000", "AUTH"},
                new String[] {"MIGRATE", HOST, p, "e:k", "0", "1000", "AUTH2", "u"},
                new String[] {"MIGRATE", HOST, p, "e:k", "0", "1000", "KEYS", "e:k"},
                new String[] {"MIGRATE", HOST, p, "e:k", "0", "1000", "KEYS"},
                new String[] {"MIGRATE", HOST, p, "e:k", "0"},
                new String[] {"MIGRATE", HOST, p, "", "0", "1000", "COPY", "KEYS", "e:none"});
        for (String[] c : cases) {
            assertThat(call(tide4.port(), c)).as(String.join(" ", c)).isEqualTo(call(redis.port(), c));
        }
        assertThat(call(tide4.port(), cases.get(6)))
                .isEqualTo("-ERR When using MIGRATE KEYS option, the key argument must be set to the empty string\r\n");
        assertThat(call(tide4.port(), cases.get(0))).isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(call(tide4.port(), cases.get(2))).isEqualTo("-ERR syntax error\r\n");
    }

    @Test
    void migrate_toAClosedPort_repliesIoerrAsRedis() throws Exception {
        int closed = RealRedis.freePort();
        call(redis.port(), "SET", "io:k", "v");
        call(tide1.port(), "SET", "io:k", "v");
        String[] c = {"MIGRATE", HOST, Integer.toString(closed), "io:k", "0", "500"};
        String expected = call(redis.port(), c);
        // Redis's non-blocking connect learns of the refusal at its first write.
        assertThat(expected).isEqualTo("-IOERR error or timeout writing to target instance\r\n");
        assertThat(call(tide1.port(), c)).isEqualTo(expected);
        assertThat(call(tide1.port(), "GET", "io:k")).isEqualTo("$1\r\nv\r\n");
        String[] unresolvable = {"MIGRATE", "no-such-host.invalid", "6379", "io:k", "0", "500"};
        assertThat(call(tide1.port(), unresolvable))
                .isEqualTo("-IOERR error or timeout connecting to the client\r\n")
                .isEqualTo(call(redis.port(), unresolvable));
    }

    @Test
    void migrate_targetThatNeverAnswers_timesOutWithIoerrReading() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            call(tide1.port(), "SET", "to:k", "v");
            long t0 = System.nanoTime();
            assertThat(call(tide1.port(), "MIGRATE", HOST, Integer.toString(silent.getLocalPort()), "to:k", "0", "300"))
                    .isEqualTo("-IOERR error or timeout reading to target instance\r\n");
            assertThat((System.nanoTime() - t0) / 1_000_000).isBetween(250L, 3_000L);
            assertThat(call(tide1.port(), "GET", "to:k")).isEqualTo("$1\r\nv\r\n");
        }
    }

    @Test
    void migrate_cachedConnectionClosedByTheTarget_isRetriedOnce() throws Exception {
        call(tide1.port(), "SET", "re:1", "a");
        call(tide1.port(), "SET", "re:2", "b");
        assertThat(call(tide1.port(), migrate(redis.port(), "re:1", "0"))).isEqualTo("+OK\r\n");
        try (RawClient c = new RawClient(redis.port())) {
            // Kills the cached MIGRATE connection (every normal client but this one).
            assertThat(Long.parseLong(c.call("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes").trim().substring(1)))
                    .isPositive();
        }
        assertThat(call(tide1.port(), migrate(redis.port(), "re:2", "0"))).isEqualTo("+OK\r\n");
        assertThat(call(redis.port(), "MGET", "re:1", "re:2")).isEqualTo("*2\r\n$1\r\na\r\n$1\r\nb\r\n");
    }

    // ------------------------------------------------------------------ journal, command table

    @Test
    void migrate_isJournalledAsDelOfTheMovedKeys() throws Exception {
        CapturingSink[] one = CapturingSink.attach(tide1);
        call(tide1.port(), "SET", "j:a", "1");
        call(tide1.port(), "SET", "j:b", "2");
        call(tide1.port(), "SET", "j:c", "3");
        one[0].clear();
        assertThat(call(tide1.port(), migrate(redis.port(), "j:c", "0", "COPY"))).isEqualTo("+OK\r\n");
        assertThat(call(tide1.port(), migrate(redis.port(), "", "0", "KEYS", "j:a", "j:none", "j:b")))
                .isEqualTo("+OK\r\n");
        assertThat(records(one)).containsExactly("0 DEL j:a j:b");

        CapturingSink[] four = CapturingSink.attach(tide4);
        String[] ab = TestServers.keysOnDifferentShards(tide4, "j4");
        call(tide4.port(), "SET", ab[0], "1");
        call(tide4.port(), "SET", ab[1], "2");
        for (CapturingSink s : four) s.clear();
        assertThat(call(tide4.port(), migrate(redis.port(), "", "0", "KEYS", ab[0], ab[1]))).isEqualTo("+OK\r\n");
        assertThat(records(four)).containsExactlyInAnyOrder("0 DEL " + ab[0], "0 DEL " + ab[1]);
    }

    @Test
    void migrate_deletesThroughTheKeyspace_withDelEvents() throws Exception {
        call(tide1.port(), "CONFIG", "SET", "notify-keyspace-events", "Eg");
        try (RawClient sub = new RawClient(tide1.port())) {
            sub.call("SUBSCRIBE", "__keyevent@0__:del");
            call(tide1.port(), "SET", "ev:k", "v");
            assertThat(call(tide1.port(), migrate(redis.port(), "ev:k", "0", "COPY"))).isEqualTo("+OK\r\n");
            assertThat(call(tide1.port(), migrate(redis.port(), "ev:k", "0", "REPLACE"))).isEqualTo("+OK\r\n");
            assertThat(sub.readReply())
                    .isEqualTo("*3\r\n$7\r\nmessage\r\n$18\r\n__keyevent@0__:del\r\n$4\r\nev:k\r\n");
        } finally {
            call(tide1.port(), "CONFIG", "SET", "notify-keyspace-events", "");
        }
    }

    private static List<String> records(CapturingSink[] sinks) {
        List<String> out = new ArrayList<>();
        for (CapturingSink s : sinks) {
            for (CapturingSink.Rec r : s.records()) {
                for (Effect e : r.effects()) {
                    StringBuilder b = new StringBuilder().append(e.db());
                    for (byte[] a : e.argv()) b.append(' ').append(new String(a, StandardCharsets.UTF_8));
                    out.add(b.toString());
                }
            }
        }
        return out;
    }

    @Test
    void migrate_commandInfoAndGetkeys_asRedis() throws Exception {
        String info = call(tide4.port(), "COMMAND", "INFO", "migrate");
        assertThat(info).contains("$7\r\nmigrate\r\n:-6\r\n*2\r\n+write\r\n+movablekeys\r\n:3\r\n:3\r\n:1\r\n"
                + "*4\r\n+@keyspace\r\n+@write\r\n+@slow\r\n+@dangerous\r\n");
        String[] getkeys = {"COMMAND", "GETKEYS", "MIGRATE", HOST, "1", "", "0", "5", "COPY", "KEYS", "a", "b"};
        assertThat(call(tide4.port(), getkeys)).isEqualTo("*2\r\n$1\r\na\r\n$1\r\nb\r\n")
                .isEqualTo(call(redis.port(), getkeys));
    }
}
