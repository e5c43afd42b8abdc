package io.tide.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/**
 * Generators of random commands (strings, bits, lists, hashes, sets, sorted sets, streams and their groups,
 * HyperLogLogs, geo, keys, TTLs, scripts, MULTI/EXEC/WATCH) with valid and invalid arguments over the six keys of
 * {@link #KEYS}, drawn from one seeded {@link Random}: the same seed gives the same commands. TTLs are never short
 * enough to run out between two servers' replies. Used by the differential fuzzes (replies compared with
 * redis-server's; a primary's data compared with its replica's).
 */
public final class RandomCommands {
    public static final String[] KEYS = {"k0", "k1", "k2", "k3", "k4", "k5"};

    private final Random rnd;

    public RandomCommands(Random rnd) {
        this.rnd = rnd;
    }

    public String pick(String... options) {
        return options[rnd.nextInt(options.length)];
    }

    private String[] maybe(String[]... options) {
        return options[rnd.nextInt(options.length)];
    }

    public String k() {
        return pick(KEYS);
    }

    public String m() {
        return pick("a", "b", "c", "d", "e", "1", "2", "10", "-3", "", "xyz", "xyzxyz", "3.5");
    }

    private String num() {
        return pick("0", "1", "-1", "2", "5", "-5", "100", "3.5", "abc", "", "9223372036854775807",
                "-9223372036854775808", "1e3", "inf", "-inf", "+inf", "nan", "0x10", " 1", "01");
    }

    private String idx() {
        return pick("0", "1", "-1", "2", "-2", "5", "-100", "100", "x", "1.5");
    }

    private String intIdx() {
        return pick("0", "1", "-1", "2", "-2", "5", "-100", "100");
    }

    private String bitType() {
        return pick("u8", "i8", "u1", "i16", "u63", "i64", "u64", "x8", "i0");
    }

    private String bitOffset() {
        return pick("0", "3", "#1", "#0", "100", "-1", "x", "#-1");
    }

    /** Milliseconds: none so short that it could run out between the two servers' replies. */
    private String ttlMs() {
        return pick("100000", "100000000", "-1", "0", "abc", "9223372036854775807", "", "1.5");
    }

    /** Seconds, or unix seconds for EXAT (those in the past delete at once). */
    private String ttl() {
        return pick("100", "100000", "-1", "0", "abc", "9223372036854775807", "", "1.5", "-100", "4000000000");
    }

    private String score() {
        return pick("0", "1", "-1", "2.5", "-inf", "+inf", "inf", "(1", "(2.5", "[a", "nan", "x", "1e2", "3");
    }

    private String lex() {
        return pick("-", "+", "[a", "(a", "[c", "(e", "a", "[", "(");
    }

    private String sid() {
        return pick("1-1", "2-0", "5", "5-3", "0-1", "0-0", "10-*", "x", "-", "+",
                "18446744073709551615-18446744073709551615", "1-18446744073709551615", "(1-1", "7-1");
    }

    private String rid() {
        return pick("-", "0", "1", "2-0", "5", "(1-1", "(5", "x", "10-0", "0-0", "$", ">");
    }

    public static String[] cat(Object... parts) {
        List<String> out = new ArrayList<>();
        for (Object p : parts) {
            if (p instanceof String s) out.add(s);
            else out.addAll(Arrays.asList((String[]) p));
        }
        return out.toArray(new String[0]);
    }

    /** One generator per command shape; each call of a generator draws a new command. */
    public List<Supplier<String[]>> commands() {
        String[] none = {};
        List<Supplier<String[]>> g = new ArrayList<>();
        // strings and bits
        g.add(() -> cat("SET", k(), m(), maybe(none, new String[] {"NX"}, new String[] {"XX"}, new String[] {"GET"},
                new String[] {"KEEPTTL"}, new String[] {"EX", ttl()}, new String[] {"PX", ttlMs()},
                new String[] {"NX", "GET"}, new String[] {"EXAT", ttl()})));
        g.add(() -> cat("GET", k()));
        g.add(() -> cat("GETDEL", k()));
        g.add(() -> cat("GETEX", k(), maybe(none, new String[] {"PERSIST"}, new String[] {"EX", ttl()})));
        g.add(() -> cat("APPEND", k(), m()));
        g.add(() -> cat("STRLEN", k()));
        g.add(() -> cat("INCR", k()));
        g.add(() -> cat("INCRBY", k(), num()));
        g.add(() -> cat("INCRBYFLOAT", k(), num()));
        g.add(() -> cat("DECRBY", k(), num()));
        g.add(() -> cat("GETRANGE", k(), idx(), idx()));
        g.add(() -> cat("SETRANGE", k(), pick("0", "1", "3", "-1", "x"), m()));
        g.add(() -> cat("MSETNX", k(), m(), k(), m()));
        g.add(() -> cat("MGET", k(), k(), k()));
        g.add(() -> cat("SETNX", k(), m()));
        g.add(() -> cat("SETBIT", k(), pick("0", "7", "100", "-1"), pick("0", "1", "2")));
        g.add(() -> cat("GETBIT", k(), idx()));
        g.add(() -> cat("BITCOUNT", k(), maybe(none, new String[] {intIdx(), intIdx()},
                new String[] {intIdx(), intIdx(), pick("BIT", "BYTE")})));
        g.add(() -> cat("BITPOS", k(), pick("0", "1"), maybe(none, new String[] {intIdx()},
                new String[] {intIdx(), intIdx()})));
        g.add(() -> cat("PFADD", k(), m()));
        g.add(() -> cat("PFCOUNT", k()));
        g.add(() -> cat("BITFIELD", k(), maybe(new String[] {"GET", bitType(), bitOffset()},
                new String[] {"SET", bitType(), bitOffset(), num()},
                new String[] {"INCRBY", bitType(), bitOffset(), num()},
                new String[] {"OVERFLOW", pick("WRAP", "SAT", "FAIL", "X"), "INCRBY", bitType(), bitOffset(), num()})));
        g.add(() -> cat("BITOP", pick("AND", "OR", "XOR", "NOT", "X"), k(), k(), maybe(none, new String[] {k()})));
        g.add(() -> cat("LCS", k(), k(), maybe(none, new String[] {"LEN"}, new String[] {"IDX"},
                new String[] {"IDX", "MINMATCHLEN", idx()}, new String[] {"IDX", "WITHMATCHLEN"})));
        g.add(() -> cat("SETEX", k(), ttl(), m()));
        g.add(() -> cat("MSET", k(), m(), k(), m()));
        // geo, over whatever the keys hold
        g.add(() -> cat("GEOADD", k(), maybe(none, new String[] {"NX"}, new String[] {"XX"}, new String[] {"CH"}),
                pick("13.361389", "15.087269", "200", "-180", "x", "0", "179.9"),
                pick("38.115556", "37.502669", "90", "85.05112878", "-85", "0"), m()));
        g.add(() -> cat("GEODIST", k(), m(), m(), maybe(none, new String[] {"km"}, new String[] {"mi"},
                new String[] {"x"})));
        g.add(() -> cat("GEOPOS", k(), m(), m()));
        g.add(() -> cat("GEOHASH", k(), m(), m()));
        g.add(() -> cat("GEOSEARCH", k(), "FROMLONLAT", pick("15", "0", "-179"), pick("37", "0"), "BYRADIUS",
                pick("200", "1000", "-1", "x", "0", "20000"), pick("km", "m", "mi"), maybe(none,
                new String[] {"ASC"}, new String[] {"DESC", "COUNT", idx()},
                new String[] {"WITHCOORD", "WITHDIST", "ASC"},
                new String[] {"WITHHASH", "DESC"})));
        g.add(() -> cat("GEOSEARCH", k(), "FROMMEMBER", m(), "BYBOX", pick("400", "4000", "0"), "400", "km",
                maybe(none, new String[] {"ASC", "WITHHASH"}, new String[] {"DESC", "WITHDIST"})));
        g.add(() -> cat("GEOSEARCHSTORE", k(), k(), "FROMLONLAT", "15", "37", "BYRADIUS", "500", "km",
                maybe(none, new String[] {"ASC", "COUNT", "2"})));
        // lists
        g.add(() -> cat("LPUSH", k(), m(), m()));
        g.add(() -> cat("RPUSH", k(), m()));
        g.add(() -> cat("LPOP", k(), maybe(none, new String[] {idx()})));
        g.add(() -> cat("RPOP", k(), maybe(none, new String[] {idx()})));
        g.add(() -> cat("LRANGE", k(), idx(), idx()));
        g.add(() -> cat("LINDEX", k(), idx()));
        g.add(() -> cat("LSET", k(), idx(), m()));
        g.add(() -> cat("LREM", k(), idx(), m()));
        g.add(() -> cat("LTRIM", k(), idx(), idx()));
        g.add(() -> cat("LINSERT", k(), pick("BEFORE", "AFTER", "X"), m(), m()));
        g.add(() -> cat("LLEN", k()));
        g.add(() -> cat("LPOS", k(), m(), maybe(none, new String[] {"RANK", idx()}, new String[] {"COUNT", idx()},
                new String[] {"MAXLEN", idx()}, new String[] {"RANK", idx(), "COUNT", idx()})));
        g.add(() -> cat("LMOVE", k(), k(), pick("LEFT", "RIGHT"), pick("LEFT", "RIGHT", "UP")));
        g.add(() -> cat("LMPOP", pick("1", "2", "0"), k(), k(), pick("LEFT", "RIGHT"),
                maybe(none, new String[] {"COUNT", idx()})));
        // hashes
        g.add(() -> cat("HSET", k(), m(), m(), maybe(none, new String[] {m(), m()})));
        g.add(() -> cat("HGET", k(), m()));
        g.add(() -> cat("HDEL", k(), m(), m()));
        g.add(() -> cat("HINCRBY", k(), m(), num()));
        g.add(() -> cat("HINCRBYFLOAT", k(), m(), num()));
        g.add(() -> cat("HGETALL", k()));
        g.add(() -> cat("HMGET", k(), m(), m()));
        g.add(() -> cat("HKEYS", k()));
        g.add(() -> cat("HLEN", k()));
        g.add(() -> cat("HSETNX", k(), m(), m()));
        g.add(() -> cat("HSTRLEN", k(), m()));
        // sets
        g.add(() -> cat("SADD", k(), m(), m()));
        g.add(() -> cat("SREM", k(), m()));
        g.add(() -> cat("SMEMBERS", k()));
        g.add(() -> cat("SISMEMBER", k(), m()));
        g.add(() -> cat("SCARD", k()));
        g.add(() -> cat("SINTER", k(), k()));
        g.add(() -> cat("SUNION", k(), k()));
        g.add(() -> cat("SDIFF", k(), k()));
        g.add(() -> cat("SINTERSTORE", k(), k(), k()));
        g.add(() -> cat("SDIFFSTORE", k(), k(), k()));
        g.add(() -> cat("SMOVE", k(), k(), m()));
        g.add(() -> cat("SMISMEMBER", k(), m(), m()));
        g.add(() -> cat("SINTERCARD", pick("1", "2", "0", "3"), k(), k(), maybe(none, new String[] {"LIMIT", idx()})));
        // sorted sets
        g.add(() -> cat("ZADD", k(), maybe(none, new String[] {"NX"}, new String[] {"XX"}, new String[] {"GT"},
                new String[] {"LT"}, new String[] {"CH"}, new String[] {"INCR"}, new String[] {"XX", "CH"},
                new String[] {"NX", "GT"}), score(), m()));
        g.add(() -> cat("ZADD", k(), score(), m(), score(), m()));
        g.add(() -> cat("ZINCRBY", k(), num(), m()));
        g.add(() -> cat("ZSCORE", k(), m()));
        g.add(() -> cat("ZRANK", k(), m()));
        g.add(() -> cat("ZREVRANK", k(), m()));
        g.add(() -> cat("ZRANGE", k(), idx(), idx(), maybe(none, new String[] {"WITHSCORES"}, new String[] {"REV"},
                new String[] {"REV", "WITHSCORES"})));
        g.add(() -> cat("ZRANGE", k(), score(), score(), "BYSCORE", maybe(none, new String[] {"REV"},
                new String[] {"LIMIT", idx(), idx()}, new String[] {"WITHSCORES"})));
        g.add(() -> cat("ZRANGE", k(), lex(), lex(), "BYLEX", maybe(none, new String[] {"REV"},
                new String[] {"LIMIT", idx(), idx()})));
        g.add(() -> cat("ZRANGEBYSCORE", k(), score(), score(), maybe(none, new String[] {"WITHSCORES"},
                new String[] {"LIMIT", idx(), idx()})));
        g.add(() -> cat("ZREVRANGEBYSCORE", k(), score(), score()));
        g.add(() -> cat("ZRANGEBYLEX", k(), lex(), lex()));
        g.add(() -> cat("ZCOUNT", k(), score(), score()));
        g.add(() -> cat("ZLEXCOUNT", k(), lex(), lex()));
        g.add(() -> cat("ZREM", k(), m()));
        g.add(() -> cat("ZREMRANGEBYSCORE", k(), score(), score()));
        g.add(() -> cat("ZREMRANGEBYRANK", k(), idx(), idx()));
        g.add(() -> cat("ZREMRANGEBYLEX", k(), lex(), lex()));
        g.add(() -> cat("ZPOPMIN", k(), maybe(none, new String[] {idx()})));
        g.add(() -> cat("ZPOPMAX", k(), maybe(none, new String[] {idx()})));
        g.add(() -> cat("ZCARD", k()));
        g.add(() -> cat("ZMSCORE", k(), m(), m()));
        g.add(() -> cat("ZUNIONSTORE", k(), "2", k(), k(), maybe(none, new String[] {"WEIGHTS", num(), num()},
                new String[] {"AGGREGATE", pick("MIN", "MAX", "SUM", "X")})));
        g.add(() -> cat("ZINTER", "2", k(), k(), maybe(none, new String[] {"WITHSCORES"})));
        g.add(() -> cat("ZDIFF", "2", k(), k()));
        g.add(() -> cat("ZMPOP", "1", k(), pick("MIN", "MAX"), maybe(none, new String[] {"COUNT", idx()})));
        g.add(() -> cat("ZRANGESTORE", k(), k(), idx(), idx()));
        // keys
        g.add(() -> cat("DEL", k()));
        g.add(() -> cat("EXISTS", k(), k()));
        g.add(() -> cat("TYPE", k()));
        g.add(() -> cat("RENAME", k(), k()));
        g.add(() -> cat("RENAMENX", k(), k()));
        g.add(() -> cat("COPY", k(), k(), maybe(none, new String[] {"REPLACE"})));
        g.add(() -> cat("EXPIRE", k(), ttl(), maybe(none, new String[] {"NX"}, new String[] {"XX"},
                new String[] {"GT"}, new String[] {"LT"})));
        g.add(() -> cat("PERSIST", k()));
        g.add(() -> cat("SORT", k(), maybe(none, new String[] {"ALPHA"}, new String[] {"DESC", "ALPHA"},
                new String[] {"LIMIT", idx(), idx()})));
        // streams
        for (int twice = 0; twice < 2; twice++) {
            g.add(() -> cat("XADD", k(), maybe(none, new String[] {"NOMKSTREAM"}, new String[] {"MAXLEN", idx()},
                    new String[] {"MAXLEN", "~", idx()}, new String[] {"MINID", sid()}), sid(),
                    maybe(new String[] {"f", "v"}, new String[] {"a", "1", "b", "2"}, new String[] {"f"})));
            g.add(() -> cat("XRANGE", k(), rid(), rid(), maybe(none, new String[] {"COUNT", idx()})));
            g.add(() -> cat("XREVRANGE", k(), rid(), rid(), maybe(none, new String[] {"COUNT", idx()})));
            g.add(() -> cat("XLEN", k()));
            g.add(() -> cat("XDEL", k(), sid(), sid()));
            g.add(() -> cat("XTRIM", k(), pick("MAXLEN", "MINID", "X"), maybe(none, new String[] {"~"},
                    new String[] {"="}), idx()));
            g.add(() -> cat("XREAD", "COUNT", idx(), "STREAMS", k(), rid()));
            g.add(() -> cat("XGROUP", "CREATE", k(), pick("g", "h"), rid(), maybe(none, new String[] {"MKSTREAM"},
                    new String[] {"ENTRIESREAD", idx()})));
            g.add(() -> cat("XGROUP", "SETID", k(), pick("g", "h"), rid()));
            g.add(() -> cat("XGROUP", "DESTROY", k(), pick("g", "h")));
            g.add(() -> cat("XGROUP", "CREATECONSUMER", k(), "g", pick("c1", "c2")));
            g.add(() -> cat("XREADGROUP", "GROUP", pick("g", "h"), pick("c1", "c2"), maybe(none,
                    new String[] {"COUNT", idx()}, new String[] {"NOACK"}), "STREAMS", k(), rid()));
            g.add(() -> cat("XACK", k(), "g", sid(), sid()));
            g.add(() -> cat("XPENDING", k(), "g"));
            g.add(() -> cat("XCLAIM", k(), "g", "c2", "0", sid(), maybe(none, new String[] {"JUSTID"},
                    new String[] {"RETRYCOUNT", idx()})));
            g.add(() -> cat("XINFO", "STREAM", k()));
            g.add(() -> cat("XSETID", k(), sid()));
        }
        // scripts and transactions
        g.add(() -> cat("EVAL", pick("return redis.call('GET', KEYS[1])", "return redis.pcall('INCR', KEYS[1])",
                "return {1, 2.5, 'x', {3}}", "return redis.call('nope')", "return redis.error_reply('MY err')",
                "return tonumber(ARGV[1]) * 2",
                "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('TYPE', KEYS[1])",
                "return #redis.call('LRANGE', KEYS[1], 0, -1)", "return redis.call('HGETALL', KEYS[1])", "return false",
                "return ARGV[1] .. nil"), "1", k(), m()));
        for (String c : new String[] {"MULTI", "EXEC", "DISCARD", "UNWATCH"}) g.add(() -> new String[] {c});
        g.add(() -> cat("WATCH", k()));
        return g;
    }

    /** {@link #commands} and, weighed up to about half of the draws, {@link #effects}. */
    public List<Supplier<String[]>> withEffects() {
        List<Supplier<String[]>> g = new ArrayList<>(commands());
        List<Supplier<String[]>> effects = effects();
        for (int w = 0; w < 3; w++) g.addAll(effects);
        return g;
    }

    /**
     * Commands whose journalled and replicated form is not their own text (random choices, clock IDs, relative TTLs,
     * served blocking pops, consumer-group deliveries, other databases): their effects are what is recorded. They
     * work on keys of their own (sets s0-s2, lists l0-l1, sorted sets z0-z1, streams x0-x1), which the other
     * generators do not turn into strings every few commands, besides the shared ones.
     */
    public List<Supplier<String[]>> effects() {
        RandomCommands rc = this; // the generators below read as the tests' own do
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
}
