package io.tide.journal;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Replay equivalence: a long seeded random workload (several pipelining clients, MULTI/EXEC, scripts, SELECT,
 * expiries, blocking commands served by other clients) runs against a server whose every shard journal is
 * captured; the captured effects are then replayed into a fresh server with the same shard count, and both
 * datasets must be equal key by key in every database (absolute expiries exactly). Runs on the test thread and a
 * few client threads of its own.
 *
 * <p>Limits, by construction of the replay (an ordinary client, later in time, not the journal loader):
 * <ul>
 *   <li>Each shard's records are replayed through one client, shard after shard; a group's parts touch only their
 *       own shard's keys, so that order is enough. Whole-database commands (FLUSHDB, FLUSHALL, SWAPDB) sent
 *       through a client act on every shard, so they are in the mix only with one shard.
 *   <li>The replay runs after the workload, when short TTLs have passed: a key given a short TTL is touched by
 *       nobody until it has expired (then the next command notices it and the journal holds its DEL first).
 *       Keys of the shared pool get only long TTLs, or times in the past (which delete).
 *   <li>Multi-key commands on collections stay within one hash tag: a cross-shard write journals the state of
 *       collections with RESTORE, which needs the RDB codec (not in this tree yet). Strings cross tags (MSET).
 *   <li>Consumer seen/idle times and encodings are not compared; stream delivery times are, within 50 ms.
 * </ul>
 */
class JournalReplayTest {

    private static final String[] TAGS = {"{a}", "{b}", "{c}", "{d}"};
    private static final int CLIENTS = 4;
    private static final int BATCHES_PER_CLIENT = 220;

    @ParameterizedTest(name = "shards={0}")
    @ValueSource(ints = {1, 4})
    void randomWorkload_replayedFromTheJournal_givesTheSameDataset(int shards) throws Exception {
        try (Server source = TestServers.start(shards)) {
            CapturingSink[] sinks = CapturingSink.attach(source);
            runWorkload(source, shards, 20260101L + shards);
            Thread.sleep(150); // every short TTL has passed
            Map<String, String> before;
            try (Jedis j = TestServers.jedis(source.port(), 2)) {
                noticeExpiries(j);
                before = dataset(j);
                Thread.sleep(50);
                // Reading the source must not have written anything new.
                assertEquivalent(before, dataset(j));
            }
            try (Server target = TestServers.start(shards)) {
                List<String> errors = new ArrayList<>();
                int records = 0;
                for (CapturingSink sink : sinks) records += replay(target, sink.records(), errors);
                assertThat(errors).as("replay errors").isEmpty();
                assertThat(records).isGreaterThan(1000);
                try (Jedis j = TestServers.jedis(target.port(), 2)) {
                    Map<String, String> after = dataset(j);
                    explainDifferences(before, after, sinks);
                    assertEquivalent(before, after);
                }
            }
        }
    }

    // ---------------------------------------------------------------- the workload

    private static void runWorkload(Server server, int shards, long seed) throws Exception {
        try (Jedis setup = TestServers.jedis(server.port(), 2)) {
            for (String t : TAGS) {
                call(setup, "XGROUP", "CREATE", t + "bx:0", "g", "$", "MKSTREAM");
                call(setup, "XGROUP", "CREATE", t + "x:0", "g", "0", "MKSTREAM");
                call(setup, "XGROUP", "CREATE", t + "x:1", "g2", "$", "MKSTREAM");
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS + 1);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int id = c;
                fs.add(pool.submit(() -> {
                    client(server, id, shards == 1, new Random(seed * 31 + id));
                    return null;
                }));
            }
            Future<?> blocker = pool.submit(() -> {
                blocker(server, new Random(seed * 17), fs);
                return null;
            });
            for (Future<?> f : fs) f.get();
            blocker.get();
        } finally {
            pool.shutdownNow();
        }
    }

    /** Blocking commands with short timeouts on the {@code bl}/{@code bz}/{@code bx} keys the clients write. */
    private static void blocker(Server server, Random rnd, List<Future<?>> clients) throws Exception {
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            while (!clients.stream().allMatch(Future::isDone)) {
                String t = TAGS[rnd.nextInt(TAGS.length)];
                switch (rnd.nextInt(8)) {
                    case 0 -> call(j, "BLPOP", t + "bl:0", t + "bl:1", "0.05");
                    case 1 -> call(j, "BRPOP", t + "bl:1", "0.05");
                    case 2 -> call(j, "BLMOVE", t + "bl:0", t + "bl:1", "LEFT", "RIGHT", "0.05");
                    case 3 -> call(j, "BZPOPMIN", t + "bz:0", "0.05");
                    case 4 -> call(j, "BZPOPMAX", t + "bz:0", t + "bz:1", "0.05");
                    case 5 -> call(j, "BLMPOP", "0.05", "2", t + "bl:0", t + "bl:1", "RIGHT", "COUNT", "2");
                    case 6 -> call(j, "BZMPOP", "0.05", "1", t + "bz:1", "MIN", "COUNT", "2");
                    default -> call(j, "XREADGROUP", "GROUP", "g", "c" + rnd.nextInt(2), "COUNT", "2", "BLOCK", "50",
                            "STREAMS", t + "bx:0", ">");
                }
            }
        }
    }

    private static final String[] SCRIPTS = {
        "redis.call('SET', KEYS[1], ARGV[1]); redis.call('INCRBY', KEYS[2], 3); return 1",
        "local v = redis.call('SPOP', KEYS[1]); if v then redis.call('SADD', KEYS[2], v) end; return v",
        "redis.call('EXPIRE', KEYS[1], 100000); redis.call('HSET', KEYS[2], 'f', ARGV[1]); return 1",
        "redis.call('RPUSH', KEYS[1], ARGV[1]); return redis.call('LPOP', KEYS[1])",
        "redis.call('INCRBYFLOAT', KEYS[1], '1.5'); return redis.call('XADD', KEYS[2], '*', 'f', ARGV[1])",
    };

    /** One client: batches of pipelined commands, some as MULTI/EXEC or a script, in a random database. */
    private static void client(Server server, int id, boolean wholeDb, Random rnd) throws Exception {
        Map<String, Long> pending = new HashMap<>(); // volatile key -> until when nobody may touch it
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            for (int b = 0; b < BATCHES_PER_CLIENT; b++) {
                List<String[]> batch = new ArrayList<>();
                if (rnd.nextInt(5) == 0) {
                    batch.add(new String[] {"SELECT", "0"});
                    volatileOps(rnd, id, pending, batch);
                } else {
                    batch.add(new String[] {"SELECT", Integer.toString(rnd.nextInt(3))});
                    int kind = rnd.nextInt(10);
                    int n = 1 + rnd.nextInt(8);
                    if (kind == 0) {
                        batch.add(new String[] {"MULTI"});
                        for (int i = 0; i < n; i++) batch.add(command(rnd, wholeDb));
                        batch.add(new String[] {"EXEC"});
                    } else if (kind == 1) {
                        String t1 = TAGS[rnd.nextInt(TAGS.length)];
                        String t2 = TAGS[rnd.nextInt(TAGS.length)];
                        int s = rnd.nextInt(SCRIPTS.length);
                        String[] keys = switch (s) {
                            case 1 -> new String[] {t1 + "st:" + rnd.nextInt(3), t2 + "st:" + rnd.nextInt(3)};
                            case 2 -> new String[] {t1 + "s:" + rnd.nextInt(4), t2 + "h:" + rnd.nextInt(3)};
                            case 3 -> new String[] {t1 + "l:" + rnd.nextInt(3), t1 + "l:0"};
                            case 4 -> new String[] {t1 + "f:0", t2 + "x:" + rnd.nextInt(2)};
                            default -> new String[] {t1 + "s:" + rnd.nextInt(4), t2 + "c:" + rnd.nextInt(3)};
                        };
                        batch.add(new String[] {"EVAL", SCRIPTS[s], "2", keys[0], keys[1], "v" + rnd.nextInt(50)});
                    } else {
                        for (int i = 0; i < n; i++) batch.add(command(rnd, wholeDb));
                    }
                }
                Pipeline p = j.pipelined();
                for (String[] c : batch) p.sendCommand(() -> utf8(c[0]), tail(c));
                p.syncAndReturnAll(); // errors are expected (wrong types, missing keys): they must write nothing
                long now = System.currentTimeMillis();
                for (Map.Entry<String, Long> e : pending.entrySet()) {
                    if (e.getValue() < 0) e.setValue(now - e.getValue()); // armed: ttl counted from the replies
                }
            }
        }
    }

    /**
     * Commands on this client's own volatile keys (db 0): give one a short TTL, or touch one whose TTL has passed
     * (the command notices the expiry: its DEL is journalled first).
     */
    private static void volatileOps(Random rnd, int id, Map<String, Long> pending, List<String[]> batch) {
        long now = System.currentTimeMillis();
        String k = "{v" + id + "}" + "k:" + rnd.nextInt(6);
        Long until = pending.get(k);
        if (until != null && (until < 0 || until + 30 > now)) return; // still live somewhere: leave it alone
        String ttl = Integer.toString(5 + rnd.nextInt(40));
        boolean arm = true;
        switch (rnd.nextInt(9)) {
            case 0 -> batch.add(new String[] {"SET", k, "v", "PX", ttl});
            case 1 -> batch.add(new String[] {"PSETEX", k, ttl, "v"});
            case 2 -> {
                batch.add(new String[] {"RPUSH", k, "a", "b"});
                batch.add(new String[] {"PEXPIRE", k, ttl});
            }
            case 3 -> {
                batch.add(new String[] {"SET", k, "7"});
                batch.add(new String[] {"GETEX", k, "PX", ttl});
            }
            case 4 -> {
                batch.add(new String[] {"DEL", k});
                batch.add(new String[] {"HSET", k, "f1", "a", "f2", "b"});
                batch.add(new String[] {"HPEXPIRE", k, ttl, "FIELDS", "1", "f1"});
            }
            case 5 -> {
                batch.add(new String[] {"SADD", k, "x", "y"});
                batch.add(new String[] {"PEXPIRE", k, ttl, "NX"});
            }
            default -> {
                arm = false;
                String[][] touch = {{"GET", k}, {"INCR", k}, {"EXISTS", k}, {"LPUSH", k, "z"}, {"TYPE", k},
                        {"HSET", k, "f3", "c"}, {"APPEND", k, "q"}};
                batch.add(touch[rnd.nextInt(touch.length)]);
            }
        }
        if (arm) pending.put(k, -(Long.parseLong(ttl) + 30)); // armed once the batch's replies are back
        else pending.remove(k);
    }

    private static String key(Random rnd, String tag, String type) {
        return tag + type + ":" + rnd.nextInt(type.equals("s") ? 4 : 3);
    }

    private static String[] command(Random rnd, boolean wholeDb) {
        String t = TAGS[rnd.nextInt(TAGS.length)];
        String s = key(rnd, t, "s");
        String c = key(rnd, t, "c");
        String h = key(rnd, t, "h");
        String l = key(rnd, t, "l");
        String st = key(rnd, t, "st");
        String z = key(rnd, t, "z");
        String x = key(rnd, t, "x");
        String v = "v" + rnd.nextInt(20);
        String n = Integer.toString(rnd.nextInt(10));
        String longTtl = Integer.toString(100000 + rnd.nextInt(100000));
        int op = rnd.nextInt(wholeDb ? 106 : 103);
        return switch (op) {
            // strings
            case 0 -> a("SET", s, v);
            case 1 -> a("SET", s, v, "EX", longTtl);
            case 2 -> a("SET", s, v, "PX", longTtl + "000", "NX");
            case 3 -> a("SET", s, v, "XX", "KEEPTTL", "GET");
            case 4 -> a("SET", s, v, "EXAT", Long.toString(System.currentTimeMillis() / 1000 + 100000));
            case 5 -> a("SETEX", s, longTtl, v);
            case 6 -> a("PSETEX", s, longTtl + "0", v);
            case 7 -> a("GETEX", s, "EX", longTtl);
            case 8 -> a("GETEX", s, "PERSIST");
            case 9 -> a("GETDEL", s);
            // Past 1 KB a string is changed where it lies (store.RawString): appends and writes far out get it there.
            case 10 -> a("APPEND", s, rnd.nextInt(3) == 0 ? "L".repeat(400) + v : v);
            case 11 -> a("SETRANGE", s, rnd.nextBoolean() ? n : Integer.toString(1000 + rnd.nextInt(2000)), v);
            case 12 -> a("GETSET", s, v);
            case 13 -> a("MSET", s, v, TAGS[rnd.nextInt(4)] + "s:" + rnd.nextInt(4), v);
            case 14 -> a("MSETNX", s, v, TAGS[rnd.nextInt(4)] + "s:" + rnd.nextInt(4), v);
            case 15 -> a("SETNX", s, v);
            // counters
            case 16 -> a("INCR", c);
            case 17 -> a("DECRBY", c, n);
            case 18 -> a("INCRBYFLOAT", c, "0.1");
            case 19 -> a("INCRBY", c, "-" + n);
            // bitmaps, HLL
            case 20 -> a("SETBIT", t + "b:0", Integer.toString(rnd.nextInt(rnd.nextBoolean() ? 64 : 20000)),
                    Integer.toString(rnd.nextInt(2)));
            case 21 -> a("BITFIELD", t + "b:1", "INCRBY", "u8", n, "7", "SET", "i16", "#" + rnd.nextInt(rnd.nextBoolean() ? 2 : 800), n);
            case 22 -> a("BITOP", "OR", t + "b:2", t + "b:0", t + "b:1");
            case 23 -> a("PFADD", t + "p:0", v, "w" + n);
            case 24 -> a("PFMERGE", t + "p:1", t + "p:0");
            case 25 -> a("PFCOUNT", t + "p:0");
            // hashes
            case 26 -> a("HSET", h, "f" + n, v, "g" + n, v);
            case 27 -> a("HDEL", h, "f" + n);
            case 28 -> a("HINCRBY", h, "n", n);
            case 29 -> a("HINCRBYFLOAT", h, "fl", "0.25");
            case 30 -> a("HSETNX", h, "f" + n, v);
            case 31 -> a("HEXPIRE", h, longTtl, "FIELDS", "2", "f" + n, "g" + n);
            case 32 -> a("HPEXPIREAT", h, "1000", "FIELDS", "1", "f" + n);
            case 33 -> a("HPERSIST", h, "FIELDS", "1", "g" + n);
            case 34 -> a("HEXPIRE", h, longTtl, "NX", "FIELDS", "1", "f" + n);
            // lists
            case 35 -> a("RPUSH", l, v, v);
            case 36 -> a("LPUSH", t + "bl:" + rnd.nextInt(2), v);
            case 37 -> a("LPOP", l);
            case 38 -> a("RPOP", l, "2");
            case 39 -> a("LREM", l, "1", v);
            case 40 -> a("LSET", l, "0", v);
            case 41 -> a("LINSERT", l, "BEFORE", v, "ins");
            case 42 -> a("LTRIM", l, "0", n);
            case 43 -> a("LMOVE", l, key(rnd, t, "l"), "LEFT", "RIGHT");
            case 44 -> a("LMPOP", "2", l, key(rnd, t, "l"), "LEFT", "COUNT", "2");
            case 45 -> a("RPUSH", t + "bl:" + rnd.nextInt(2), v, v);
            // sets
            case 46 -> a("SADD", st, v, "m" + n);
            case 47 -> a("SREM", st, v);
            case 48 -> a("SPOP", st);
            case 49 -> a("SPOP", st, "2");
            case 50 -> a("SMOVE", st, key(rnd, t, "st"), v);
            case 51 -> a("SINTERSTORE", key(rnd, t, "st"), st, key(rnd, t, "st"));
            case 52 -> a("SUNIONSTORE", key(rnd, t, "st"), st, key(rnd, t, "st"));
            case 53 -> a("SRANDMEMBER", st, "3");
            // zsets
            case 54 -> a("ZADD", z, n, v);
            case 55 -> a("ZADD", z, "XX", "INCR", "1.5", v);
            case 56 -> a("ZINCRBY", z, "2", v);
            case 57 -> a("ZREM", z, v);
            case 58 -> a("ZPOPMIN", z);
            case 59 -> a("ZMPOP", "1", z, "MAX", "COUNT", "2");
            case 60 -> a("ZADD", t + "bz:" + rnd.nextInt(2), n, v);
            case 61 -> a("ZUNIONSTORE", key(rnd, t, "z"), "2", z, key(rnd, t, "z"), "WEIGHTS", "1", "2");
            case 62 -> a("ZRANGESTORE", key(rnd, t, "z"), z, "0", "1");
            case 63 -> a("ZREMRANGEBYSCORE", z, "0", n);
            case 64 -> a("ZRANDMEMBER", z, "2");
            // geo
            case 65 -> a("GEOADD", t + "geo:0", Double.toString(13 + rnd.nextInt(100) / 100.0), "38.1", v);
            case 66 -> a("GEOSEARCHSTORE", t + "geo:1", t + "geo:0", "FROMLONLAT", "13.5", "38.1", "BYRADIUS",
                    "100", "km", "ASC");
            // streams
            case 67 -> a("XADD", x, "*", "f", v);
            case 68 -> a("XADD", x, "MAXLEN", "~", "3", "*", "f", v);
            case 69 -> a("XADD", x, "MAXLEN", "5", "*", "f", v);
            case 70 -> a("XTRIM", x, "MAXLEN", "~", "2");
            case 71 -> a("XTRIM", x, "MINID", "~", "0-1", "LIMIT", "10");
            case 72 -> a("XDEL", x, "0-1");
            case 73 -> a("XREADGROUP", "GROUP", "g", "c" + rnd.nextInt(3), "COUNT", "2", "STREAMS", t + "x:0", ">");
            case 74 -> a("XREADGROUP", "GROUP", "g", "c" + rnd.nextInt(3), "STREAMS", t + "x:0", "0");
            case 75 -> a("XREADGROUP", "GROUP", "g2", "d" + rnd.nextInt(2), "NOACK", "STREAMS", t + "x:1", ">");
            case 76 -> a("XACK", t + "x:0", "g", "0-1");
            case 77 -> a("XCLAIM", t + "x:0", "g", "c" + rnd.nextInt(3), "0", "0-1", "1-0");
            case 78 -> a("XAUTOCLAIM", t + "x:0", "g", "c" + rnd.nextInt(3), "0", "0", "COUNT", "2");
            case 79 -> a("XGROUP", "CREATECONSUMER", t + "x:0", "g", "c" + rnd.nextInt(5));
            case 80 -> a("XGROUP", "SETID", t + "x:1", "g2", "$");
            case 81 -> a("XADD", t + "bx:0", "*", "f", v);
            case 82 -> a("XCLAIM", t + "x:0", "g", "c" + rnd.nextInt(3), "0", "0-1", "JUSTID");
            case 83 -> a("XADD", x, "MINID", "~", "0-1", "*", "f", v);
            // generic
            case 84 -> a("DEL", s, TAGS[rnd.nextInt(4)] + "s:" + rnd.nextInt(4));
            case 85 -> a("UNLINK", key(rnd, t, "st"));
            case 86 -> a("RENAME", s, key(rnd, t, "s"));
            case 87 -> a("RENAMENX", key(rnd, t, "l"), key(rnd, t, "l"));
            case 88 -> a("COPY", h, key(rnd, t, "h"), "REPLACE");
            case 89 -> a("COPY", z, z, "DB", Integer.toString(rnd.nextInt(3)));
            case 90 -> a("MOVE", l, Integer.toString(rnd.nextInt(3)));
            case 91 -> a("EXPIRE", s, longTtl);
            case 92 -> a("PEXPIRE", h, longTtl + "000", "GT");
            case 93 -> a("EXPIREAT", l, Long.toString(System.currentTimeMillis() / 1000 + 100000));
            case 94 -> a("PEXPIREAT", st, Long.toString(System.currentTimeMillis() + 100000000L));
            case 95 -> a("EXPIRE", key(rnd, t, "s"), "-1");
            case 96 -> a("PERSIST", s);
            case 97 -> a("SORT", l, "ALPHA", "STORE", key(rnd, t, "l"));
            case 98 -> a("EXPIRE", z, longTtl, "NX");
            case 99 -> a("PEXPIREAT", c, "1000");
            case 100 -> a("RESTORE-NONE-PLACEHOLDER".equals(v) ? "PING" : "RANDOMKEY");
            case 101 -> a("SET", s, v, "PXAT", "1000");
            case 102 -> a("RPOPLPUSH", l, key(rnd, t, "l"));
            // whole databases (one shard only: see the class comment)
            case 103 -> a("SWAPDB", "1", "2");
            case 104 -> a("FLUSHDB");
            default -> rnd.nextInt(4) == 0 ? a("FLUSHALL") : a("SWAPDB", "2", "1");
        };
    }

    // ---------------------------------------------------------------- noticing expiry, reading a dataset

    /** Touches every key of every database, so that expiry has deleted (and journalled) all that has expired. */
    private static void noticeExpiries(Jedis j) {
        for (int db = 0; db < 16; db++) {
            call(j, "SELECT", Integer.toString(db));
            for (Object k : (List<?>) call(j, "KEYS", "*")) {
                String key = str(k);
                call(j, "EXISTS", key);
                if ("hash".equals(str(call(j, "TYPE", key)))) call(j, "HLEN", key);
            }
        }
    }

    /** Every key of every database, "db/key" to a description of its type, value and expiry. */
    private static Map<String, String> dataset(Jedis j) {
        Map<String, String> out = new TreeMap<>();
        long now = (Long.parseLong(str(((List<?>) call(j, "TIME")).get(0))) * 1000)
                + Long.parseLong(str(((List<?>) call(j, "TIME")).get(1))) / 1000;
        for (int db = 0; db < 16; db++) {
            call(j, "SELECT", Integer.toString(db));
            for (Object k : (List<?>) call(j, "KEYS", "*")) {
                String key = str(k);
                out.put(db + "/" + key, describe(j, key, now));
            }
        }
        return out;
    }

    private static String describe(Jedis j, String key, long now) {
        String type = str(call(j, "TYPE", key));
        StringBuilder b = new StringBuilder(type).append(" exp=").append(call(j, "PEXPIRETIME", key)).append(' ');
        switch (type) {
            case "string" -> b.append(render(call(j, "GET", key)));
            case "list" -> b.append(render(call(j, "LRANGE", key, "0", "-1")));
            case "set" -> {
                TreeSet<String> m = new TreeSet<>();
                for (Object o : (List<?>) call(j, "SMEMBERS", key)) m.add(str(o));
                b.append(m);
            }
            case "zset" -> b.append(render(call(j, "ZRANGE", key, "0", "-1", "WITHSCORES")));
            case "hash" -> {
                TreeMap<String, String> m = new TreeMap<>();
                List<?> all = (List<?>) call(j, "HGETALL", key);
                for (int i = 0; i < all.size(); i += 2) {
                    String f = str(all.get(i));
                    m.put(f, str(all.get(i + 1)) + "@" + render(call(j, "HPEXPIRETIME", key, "FIELDS", "1", f)));
                }
                b.append(m);
            }
            case "stream" -> {
                b.append(render(call(j, "XRANGE", key, "-", "+")));
                Map<String, Object> info = pairs(call(j, "XINFO", "STREAM", key));
                for (String f : List.of("length", "last-generated-id", "max-deleted-entry-id", "entries-added")) {
                    b.append(' ').append(f).append('=').append(render(info.get(f)));
                }
                for (Object g : (List<?>) call(j, "XINFO", "GROUPS", key)) {
                    Map<String, Object> gi = pairs(g);
                    String name = str(gi.get("name"));
                    b.append(" group ").append(name);
                    for (String f : List.of("consumers", "pending", "last-delivered-id", "entries-read", "lag")) {
                        b.append(' ').append(f).append('=').append(render(gi.get(f)));
                    }
                    for (Object c : (List<?>) call(j, "XINFO", "CONSUMERS", key, name)) {
                        Map<String, Object> ci = pairs(c);
                        b.append(" consumer ").append(str(ci.get("name"))).append(" pending=").append(ci.get("pending"));
                    }
                    List<?> time = (List<?>) call(j, "TIME");
                    long at = Long.parseLong(str(time.get(0))) * 1000 + Long.parseLong(str(time.get(1))) / 1000;
                    for (Object p : (List<?>) call(j, "XPENDING", key, name, "-", "+", "100000")) {
                        List<?> e = (List<?>) p;
                        long deliveredAt = at - (Long) e.get(2);
                        b.append(" pel ").append(str(e.get(0))).append(' ').append(str(e.get(1)))
                                .append(" count=").append(e.get(3)).append(" at~").append(deliveredAt);
                    }
                }
            }
            default -> b.append("?");
        }
        return b.toString();
    }

    /** Equal datasets, with stream delivery times ("at~") within 50 ms (they are read at different moments). */
    private static void assertEquivalent(Map<String, String> expected, Map<String, String> actual) {
        List<String> diffs = new ArrayList<>();
        TreeSet<String> keys = new TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        for (String k : keys) {
            String want = expected.get(k);
            String got = actual.get(k);
            if (!same(want, got)) diffs.add(k + "\n  source: " + want + "\n  replay: " + got);
        }
        assertThat(diffs).as("keys that differ (of " + expected.size() + ")").isEmpty();
    }

    /** On a difference, prints the journal records that mention each differing key (to find the culprit). */
    private static void explainDifferences(Map<String, String> expected, Map<String, String> actual,
                                           CapturingSink[] sinks) {
        TreeSet<String> keys = new TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        for (String k : keys) {
            if (same(expected.get(k), actual.get(k))) continue;
            String key = k.substring(k.indexOf('/') + 1);
            System.err.println("== " + k + " source: " + expected.get(k) + " replay: " + actual.get(k));
            for (int i = 0; i < sinks.length; i++) {
                for (CapturingSink.Rec r : sinks[i].records()) {
                    for (Effect e : r.effects()) {
                        for (byte[] a : e.argv()) {
                            if (key.equals(new String(a, StandardCharsets.UTF_8))) {
                                System.err.println("   shard " + i + (r.tx() ? " tx" + r.seq() + "/" + r.parts() : "")
                                        + " " + show(e));
                                break;
                            }
                        }
                    }
                }
            }
        }
    }

    private static boolean same(String want, String got) {
        if (want == null || got == null) return want == got;
        if (!want.contains(" at~")) return want.equals(got);
        String[] w = want.split(" at~");
        String[] g = got.split(" at~");
        if (g.length != w.length || !g[0].equals(w[0])) return false;
        for (int i = 1; i < w.length; i++) {
            String[] ws = w[i].split(" ", 2);
            String[] gs = g[i].split(" ", 2);
            if (Math.abs(Long.parseLong(ws[0]) - Long.parseLong(gs[0])) > 50) return false;
            if (!(gs.length > 1 ? gs[1] : "").equals(ws.length > 1 ? ws[1] : "")) return false;
        }
        return true;
    }

    // ---------------------------------------------------------------- replay

    /** Replays one shard's records through one client; returns how many records it sent. */
    static int replay(Server target, List<CapturingSink.Rec> records, List<String> errors) {
        try (Jedis j = TestServers.jedis(target.port(), 2)) {
            int[] db = {0};
            for (CapturingSink.Rec r : records) {
                if (!r.tx()) {
                    send(j, r.effects().get(0), db, errors);
                    continue;
                }
                call(j, "MULTI");
                for (Effect e : r.effects()) {
                    if (e.db() != db[0]) {
                        call(j, "SELECT", Integer.toString(e.db()));
                        db[0] = e.db();
                    }
                    Object queued = sendRaw(j, e.argv());
                    if (queued instanceof JedisDataException x) errors.add(show(e) + " -> " + x.getMessage());
                }
                Object res = call(j, "EXEC");
                if (res instanceof List<?> l) {
                    for (Object o : l) if (o instanceof JedisDataException x) errors.add("in EXEC: " + x.getMessage());
                } else {
                    errors.add("EXEC -> " + render(res));
                }
            }
            return records.size();
        }
    }

    private static void send(Jedis j, Effect e, int[] db, List<String> errors) {
        if (e.db() != db[0]) {
            call(j, "SELECT", Integer.toString(e.db()));
            db[0] = e.db();
        }
        Object r = sendRaw(j, e.argv());
        if (r instanceof JedisDataException x) errors.add(show(e) + " -> " + x.getMessage());
    }

    static String show(Effect e) {
        StringBuilder b = new StringBuilder("db" + e.db() + ":");
        for (byte[] a : e.argv()) b.append(' ').append(new String(a, StandardCharsets.UTF_8));
        return b.toString();
    }

    // ---------------------------------------------------------------- raw commands

    private static String[] a(String... args) {
        return args;
    }

    static Object call(Jedis j, String... argv) {
        byte[][] raw = new byte[argv.length][];
        for (int i = 0; i < argv.length; i++) raw[i] = utf8(argv[i]);
        Object r = sendRaw(j, raw);
        return r;
    }

    /** Sends argv as it is; an error reply comes back as the exception object. */
    static Object sendRaw(Jedis j, byte[][] argv) {
        byte[] name = argv[0];
        byte[][] rest = java.util.Arrays.copyOfRange(argv, 1, argv.length);
        try {
            return j.sendCommand(() -> name, rest);
        } catch (JedisDataException e) {
            return e;
        }
    }

    private static byte[][] tail(String[] c) {
        byte[][] out = new byte[c.length - 1][];
        for (int i = 1; i < c.length; i++) out[i - 1] = utf8(c[i]);
        return out;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String str(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.ISO_8859_1) : String.valueOf(o);
    }

    private static Map<String, Object> pairs(Object o) {
        List<?> l = (List<?>) o;
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i + 1 < l.size(); i += 2) m.put(str(l.get(i)), l.get(i + 1));
        return m;
    }

    static String render(Object o) {
        if (o == null) return "nil";
        if (o instanceof byte[] b) return '"' + new String(b, StandardCharsets.ISO_8859_1) + '"';
        if (o instanceof List<?> l) {
            StringBuilder b = new StringBuilder("[");
            for (Object x : l) b.append(render(x)).append(',');
            return b.append(']').toString();
        }
        if (o instanceof JedisDataException e) return "ERR(" + e.getMessage() + ")";
        return o.toString();
    }
}
