package io.tide.replication;

import static io.tide.replication.RedisReplicaOfTideTest.awaitLinkUp;
import static io.tide.replication.RedisReplicaOfTideTest.field;
import static io.tide.testing.RandomCommands.cat;
import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RandomCommands;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * A differential fuzz of the replication stream: seeded random commands (those of {@link RandomCommands}, plus the
 * ones whose effect is not their text: SPOP, XADD with clock IDs, relative TTLs, XREADGROUP and XAUTOCLAIM, served
 * blocking pops, MOVE, COPY to another database, SWAPDB, scripts that pop at random) go to a Tide primary, and a real
 * redis-server replicates from it. Every ten commands, once the replica has caught up, both hold the same
 * data: every key of databases 0 and 1 with its type, absolute expiry and content (a stream with its groups,
 * consumers and pending entries). A difference names the seed, the command count and the last commands.
 */
class ReplicationFuzzVsRedisTest {

    private static final int COMMANDS = 2000;
    /** Often: a key a divergent command wrote is soon overwritten (six keys), and the difference with it. */
    private static final int CHECK_EVERY = 10;

    @ParameterizedTest(name = "{0} shards")
    @ValueSource(ints = {1, 2})
    void aRedisReplicaOfTide_holdsTheSameData_afterRandomCommands(int shards) throws Exception {
        if (RealRedis.binary() == null) Assumptions.abort("redis-server is not installed");
        try (Server tide = TestServers.start(shards, "--repl-diskless-sync-delay", "0");
             RealRedis replica = RealRedis.startWith("--replicaof", "127.0.0.1", Integer.toString(tide.port()));
             Jedis tj = TestServers.jedis(tide.port(), 2);
             Jedis rj = TestServers.jedis(replica.port(), 2);
             RawClient t = new RawClient(tide.port())) {
            awaitLinkUp(rj);
            for (int seed = 1; seed <= 3; seed++) {
                Random rnd = new Random(shards * 1000 + seed);
                for (String[] reset : new String[][] {{"DISCARD"}, {"UNWATCH"}, {"FLUSHALL"}}) t.call(reset);
                RandomCommands rc = new RandomCommands(rnd);
                List<Supplier<String[]>> gen = new ArrayList<>(rc.commands());
                List<Supplier<String[]>> effects = effectsNotText(rc, rnd);
                for (int w = 0; w < 3; w++) gen.addAll(effects); // weighed up: about half the commands
                List<String> recent = new ArrayList<>();
                for (int i = 1; i <= COMMANDS; i++) {
                    String[] cmd = gen.get(rnd.nextInt(gen.size())).get();
                    t.call(cmd);
                    recent.add(String.join(" ", cmd));
                    if (recent.size() > 20) recent.remove(0);
                    if (i % CHECK_EVERY == 0) {
                        assertSameData(tj, rj, "seed " + (shards * 1000 + seed) + ", after command " + i
                                + " (the last: " + recent + ")");
                    }
                }
            }
            assertThat(field(rj, "replication", "master_link_status")).isEqualTo("up");
        }
    }

    /**
     * Commands whose replicated form is not their own text: their effects go down the stream. They work on keys of
     * their own (sets s0-s2, lists l0-l1, sorted sets z0-z1, streams x0-x1), which the other generators do not
     * turn into strings every few commands, besides the shared ones.
     */
    private static List<Supplier<String[]>> effectsNotText(RandomCommands rc, Random rnd) {
        Supplier<String> s = () -> rc.pick("s0", "s1", "s2");
        Supplier<String> l = () -> rc.pick("l0", "l1");
        Supplier<String> z = () -> rc.pick("z0", "z1");
        Supplier<String> x = () -> rc.pick("x0", "x1");
        Supplier<String> any = () -> rnd.nextBoolean() ? rc.k() : rc.pick("s0", "l0", "z0", "x0");
        List<Supplier<String[]>> g = new ArrayList<>();
        g.add(() -> cat("SADD", s.get(), rc.m(), rc.m(), rc.m(), rc.m()));
        g.add(() -> cat("SADD", s.get(), rc.pick("1", "2", "3"), rc.pick("4", "5", "6")));
        g.add(() -> cat("SPOP", s.get()));
        g.add(() -> cat("SPOP", s.get(), rc.pick("1", "2", "3", "5")));
        g.add(() -> cat("SPOP", rc.k()));
        g.add(() -> cat("SMOVE", s.get(), s.get(), rc.m()));
        g.add(() -> cat("SINTERSTORE", s.get(), s.get(), s.get()));
        g.add(() -> cat("EVAL", rc.pick("return redis.call('SPOP', KEYS[1])",
                "return redis.call('SRANDMEMBER', KEYS[1])",
                "local m = redis.call('SPOP', KEYS[1]); if m then redis.call('RPUSH', KEYS[2], m) end; return m",
                "return redis.call('INCRBYFLOAT', KEYS[2], '0.1')",
                "return redis.call('EXPIRE', KEYS[1], 500)"), "2", s.get(), rc.pick("l0", "l1", "k0")));
        g.add(() -> cat("RPUSH", l.get(), rc.m(), rc.m()));
        g.add(() -> cat("BLPOP", l.get(), l.get(), "0.01"));
        g.add(() -> cat("BLMOVE", l.get(), l.get(), rc.pick("LEFT", "RIGHT"), rc.pick("LEFT", "RIGHT"), "0.01"));
        g.add(() -> cat("BRPOPLPUSH", l.get(), l.get(), "0.01"));
        g.add(() -> cat("BLMPOP", "0.01", "2", l.get(), l.get(), rc.pick("LEFT", "RIGHT"), "COUNT", "2"));
        g.add(() -> cat("ZADD", z.get(), rc.pick("1", "2.5", "3"), rc.m()));
        g.add(() -> cat("BZPOPMIN", z.get(), "0.01"));
        g.add(() -> cat("BZMPOP", "0.01", "1", z.get(), "MAX"));
        g.add(() -> cat("ZINCRBY", z.get(), "0.1", rc.m()));
        g.add(() -> cat("XADD", x.get(), "*", "f", rc.m()));
        g.add(() -> cat("XADD", x.get(), "MAXLEN", rc.pick("~", "="), rc.pick("1", "3"), "*", "f", rc.m()));
        g.add(() -> cat("XGROUP", "CREATE", x.get(), rc.pick("g", "h"), rc.pick("0", "$"), "MKSTREAM"));
        g.add(() -> cat("XREADGROUP", "GROUP", rc.pick("g", "h"), rc.pick("c1", "c2"), "COUNT",
                rc.pick("1", "2"), "STREAMS", x.get(), ">"));
        g.add(() -> cat("XREADGROUP", "GROUP", rc.pick("g", "h"), rc.pick("c1", "c2"), "NOACK", "STREAMS", x.get(),
                ">"));
        g.add(() -> cat("XAUTOCLAIM", x.get(), rc.pick("g", "h"), rc.pick("c1", "c3"), "0", "0-0", "COUNT", "2"));
        g.add(() -> cat("XACK", x.get(), rc.pick("g", "h"), rc.pick("1-1", "0-1")));
        g.add(() -> cat("XGROUP", "DELCONSUMER", x.get(), rc.pick("g", "h"), rc.pick("c1", "c2")));
        g.add(() -> cat("XTRIM", x.get(), "MAXLEN", "2"));
        g.add(() -> cat("EXPIRE", any.get(), rc.pick("200", "300"), rc.pick("NX", "XX", "GT", "LT", "")));
        g.add(() -> cat("PEXPIRE", any.get(), "250000"));
        g.add(() -> cat("SET", rc.k(), rc.m(), "EX", rc.pick("200", "400")));
        g.add(() -> cat("SET", rc.k(), rc.m(), "PX", "300000", "GET"));
        g.add(() -> cat("GETEX", rc.k(), "PX", "300000"));
        g.add(() -> cat("SETEX", rc.k(), "250", rc.m()));
        g.add(() -> cat("INCRBYFLOAT", rc.k(), rc.pick("0.1", "1.5", "-2.25")));
        g.add(() -> cat("HINCRBYFLOAT", rc.k(), rc.m(), rc.pick("0.1", "3")));
        g.add(() -> cat("MOVE", any.get(), "1"));
        g.add(() -> cat("COPY", any.get(), any.get(), "DB", "1", rc.pick("REPLACE", "")));
        g.add(() -> rnd.nextInt(10) == 0 ? cat("SWAPDB", "0", "1") : cat("PING"));
        g.add(() -> cat("SORT", s.get(), "ALPHA", "STORE", l.get()));
        g.add(() -> cat("RENAME", any.get(), any.get()));
        g.add(() -> cat("PFADD", rc.k(), rc.m(), rc.m()));
        g.add(() -> rnd.nextInt(40) == 0 ? cat("FLUSHDB") : cat("PING"));
        return g;
    }

    private static void assertSameData(Jedis tide, Jedis replica, String where) throws InterruptedException {
        // WAIT on a connection that wrote nothing: Tide's target is the whole stream at that point (decision 0010),
        // so the replica has applied every command the test sent. (INFO's master_repl_offset may trail the
        // replies by a few milliseconds: the replication thread numbers the stream after the shards record it.)
        assertThat(tide.waitReplicas(1, 20_000)).as("the replica acknowledged everything (%s)", where).isEqualTo(1);
        for (int db = 0; db <= 1; db++) {
            tide.select(db);
            replica.select(db);
            assertThat(dump(replica)).as("database %d, %s", db, where).isEqualTo(dump(tide));
        }
        tide.select(0);
        replica.select(0);
    }

    /** Every key of the selected database: type, absolute expiry and content, in a form both servers print alike. */
    private static Map<String, String> dump(Jedis j) {
        Map<String, String> all = new TreeMap<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        TreeSet<String> keys = new TreeSet<>();
        do {
            ScanResult<String> page = j.scan(cursor, new ScanParams().count(100));
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        for (String k : keys) {
            String type = j.type(k);
            String content = switch (type) {
                case "string" -> {
                    String v = j.get(k);
                    // A HyperLogLog's bytes are each server's own encoding of the same set: compare the estimate.
                    yield v.startsWith("HYLL") ? "hll " + pfcount(j, k) : v;
                }
                case "list" -> j.lrange(k, 0, -1).toString();
                case "hash" -> new TreeMap<>(j.hgetAll(k)).toString();
                case "set" -> new TreeSet<>(j.smembers(k)).toString();
                case "zset" -> j.zrangeWithScores(k, 0, -1).stream().map(x -> x.getElement() + "=" + x.getScore())
                        .toList().toString();
                case "stream" -> stream(j, k);
                default -> "?";
            };
            all.put(k, type + " expires " + j.pexpireTime(k) + ": " + content);
        }
        return all;
    }

    /** PFCOUNT, or its error (a string that begins as an HLL's may be one no longer). */
    private static String pfcount(Jedis j, String k) {
        try {
            return Long.toString(j.pfcount(k));
        } catch (redis.clients.jedis.exceptions.JedisDataException e) {
            return e.getMessage() + " (" + j.strlen(k) + " bytes)";
        }
    }

    private static String stream(Jedis j, String k) {
        StringBuilder sb = new StringBuilder();
        for (Object e : (List<?>) j.sendCommand(redis.clients.jedis.Protocol.Command.XRANGE, k, "-", "+")) {
            sb.append(text(e));
        }
        Map<String, Object> info = pairs((List<?>) j.sendCommand(redis.clients.jedis.Protocol.Command.XINFO, "STREAM",
                k));
        sb.append(" length ").append(info.get("length")).append(" last ").append(text(info.get("last-generated-id")))
                .append(" max-deleted ").append(text(info.get("max-deleted-entry-id")))
                .append(" added ").append(info.get("entries-added"));
        for (Object g : (List<?>) j.sendCommand(redis.clients.jedis.Protocol.Command.XINFO, "GROUPS", k)) {
            Map<String, Object> gi = pairs((List<?>) g);
            String name = text(gi.get("name"));
            sb.append(" group ").append(name).append(" pending ").append(gi.get("pending"))
                    .append(" delivered ").append(text(gi.get("last-delivered-id")))
                    .append(" read ").append(gi.get("entries-read"));
            List<String> consumers = new ArrayList<>();
            for (Object c : (List<?>) j.sendCommand(redis.clients.jedis.Protocol.Command.XINFO, "CONSUMERS", k,
                    name)) {
                Map<String, Object> ci = pairs((List<?>) c);
                consumers.add(text(ci.get("name")) + "/" + ci.get("pending"));
            }
            consumers.sort(null);
            sb.append(" consumers ").append(consumers);
            for (Object p : (List<?>) j.sendCommand(redis.clients.jedis.Protocol.Command.XPENDING, k, name, "-", "+",
                    "1000")) {
                List<?> entry = (List<?>) p; // id, consumer, idle time (each server's own clock), deliveries
                sb.append(" pel ").append(text(entry.get(0))).append('@').append(text(entry.get(1)))
                        .append('x').append(entry.get(3));
            }
        }
        return sb.toString();
    }

    private static Map<String, Object> pairs(List<?> flat) {
        Map<String, Object> m = new TreeMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) m.put(text(flat.get(i)), flat.get(i + 1));
        return m;
    }

    private static String text(Object o) {
        if (o instanceof byte[] b) return new String(b, java.nio.charset.StandardCharsets.UTF_8);
        if (o instanceof List<?> l) {
            List<String> parts = new ArrayList<>();
            for (Object x : l) parts.add(text(x));
            return parts.toString();
        }
        return String.valueOf(o);
    }
}
