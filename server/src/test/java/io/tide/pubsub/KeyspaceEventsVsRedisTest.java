package io.tide.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the same scripted commands on redis-server and Tide (two shards) with every notification class on,
 * and asserts the same keyspace and keyevent messages, in the same order, byte for byte.
 */
class KeyspaceEventsVsRedisTest {

    private static RealRedis redis;
    private static Server tide;
    private static int round;

    @BeforeAll
    static void startServers() throws Exception {
        redis = RealRedis.start();
        tide = TestServers.start(2);
    }

    @AfterAll
    static void stopServers() {
        if (tide != null) tide.close();
        if (redis != null) redis.close();
    }

    /**
     * The notifications one server sends for {@code commands} (each a whitespace-separated command; {@code @}
     * is the key prefix; a leading {@code ~} drops the command's reply, for random ones).
     */
    private static List<String> events(int port, String classes, String prefix, String... commands)
            throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient sub = new RawClient(port); RawClient c = new RawClient(port)) {
            c.call("CONFIG", "SET", "notify-keyspace-events", classes);
            sub.call("PSUBSCRIBE", "__key*__:*");
            sub.call("SUBSCRIBE", prefix + "end");
            for (String cmd : commands) {
                String[] argv = cmd.replace("@", prefix).split(" ");
                if (argv[0].equals("SLEEP")) {
                    Thread.sleep(Long.parseLong(argv[1]));
                    continue;
                }
                if (argv[0].startsWith("~")) { // a random reply: only its events are compared
                    argv[0] = argv[0].substring(1);
                    c.call(argv);
                    continue;
                }
                out.add("reply " + c.call(argv).replace("\r\n", "|"));
            }
            c.call("PUBLISH", prefix + "end", "x");
            while (true) {
                String frame = sub.readReply();
                if (frame.contains(prefix + "end")) break;
                out.add(frame.replace("\r\n", "|"));
            }
            c.call("CONFIG", "SET", "notify-keyspace-events", "");
        }
        return out;
    }

    private static void same(String classes, String... commands) throws Exception {
        String p = "ks" + (round++) + ":";
        List<String> expected = events(redis.port(), classes, p, commands);
        List<String> actual = events(tide.port(), classes, p, commands);
        assertThat(String.join("\n", actual)).isEqualTo(String.join("\n", expected));
    }

    @Test
    void configGet_normalisesClasses_asRedis() throws Exception {
        for (String v : new String[] {"KEA", "", "gK", "nKE", "Em", "A$", "KEAm", "Kxe", "lsKE", "X"}) {
            List<String> exp = new ArrayList<>();
            List<String> act = new ArrayList<>();
            for (var pair : List.of(List.of(redis.port(), exp), List.of(tide.port(), act))) {
                try (RawClient c = new RawClient((Integer) pair.get(0))) {
                    @SuppressWarnings("unchecked")
                    List<String> log = (List<String>) pair.get(1);
                    log.add(c.call("CONFIG", "SET", "notify-keyspace-events", v));
                    log.add(c.call("CONFIG", "GET", "notify-keyspace-events"));
                    c.call("CONFIG", "SET", "notify-keyspace-events", "");
                }
            }
            assertThat(act).as(v).isEqualTo(exp);
        }
    }

    @Test
    void strings_emitRedisEvents() throws Exception {
        same("KEA", "SET @a 1", "SET @a 2 EX 100", "SETNX @a 3", "SETNX @b 3", "GETSET @b 4", "MSET @c 1 @d 2",
                "MSETNX @c 1 @e 2", "APPEND @a x", "APPEND @f y", "SETRANGE @f 3 zz", "SETRANGE @g 0 ''",
                "INCR @h", "DECRBY @h 5", "INCRBYFLOAT @h 1.5", "GETDEL @h", "GETDEL @h", "GETEX @a PERSIST",
                "GETEX @a EX 100", "GETEX @a PERSIST", "GETEX @a PXAT 1", "SETEX @i 100 v", "PSETEX @j 100 v",
                "SET @k v GET");
    }

    @Test
    void keys_emitRedisEvents() throws Exception {
        same("KEA", "SET @a 1", "SET @b 2", "RENAME @a @c", "RENAMENX @c @b", "RENAMENX @c @d", "EXPIRE @d 100",
                "PEXPIRE @d 100000 XX", "PERSIST @d", "PERSIST @d", "EXPIRE @d 0", "COPY @b @e", "COPY @b @e REPLACE",
                "MOVE @e 1", "DEL @b @e @zz", "UNLINK @c", "SET @x 1 PX 1", "SLEEP 20", "GET @x");
    }

    @Test
    void newAndKeyMissClasses_emitRedisEvents() throws Exception {
        same("KEAnm", "SET @a 1", "SET @a 2", "GET @zz", "LPUSH @l a", "RENAME @l @m", "GET @a");
    }

    @Test
    void lists_emitRedisEvents() throws Exception {
        same("KEA", "RPUSH @l a b c d", "LPUSH @l z", "LPUSHX @none x", "RPUSHX @l e", "LINSERT @l BEFORE c x",
                "LINSERT @l BEFORE nope x", "LSET @l 0 y", "LPOP @l", "RPOP @l 2", "LREM @l 1 x", "LREM @l 1 nope",
                "LTRIM @l 0 0", "LMOVE @l @m LEFT RIGHT", "RPUSH @l a b", "RPOPLPUSH @l @l", "LMOVE @l @m RIGHT LEFT",
                "LMPOP 2 @none @m LEFT COUNT 5", "RPUSH @l q", "BLPOP @l 0", "LTRIM @m 5 10", "RPUSH @m 1",
                "LTRIM @m 5 10", "LPOP @none");
    }

    @Test
    void hashes_emitRedisEvents() throws Exception {
        same("KEA", "HSET @h a 1 b 2", "HSET @h a 1", "HMSET @h c 3", "HSETNX @h a 9", "HSETNX @h d 4",
                "HINCRBY @h n 5", "HINCRBYFLOAT @h f 1.5", "HDEL @h a zz", "HDEL @h zz", "HDEL @h b c d n f",
                "HGET @h a");
    }

    @Test
    void sets_emitRedisEvents() throws Exception {
        same("KEA", "SADD @s a b c", "SADD @s a", "SREM @s a zz", "SREM @s zz", "SMOVE @s @t b", "SMOVE @s @t zz",
                "SADD @t c", "SMOVE @s @t c", "SADD @u 1 2 3 4 5", "~SPOP @u", "SPOP @u 0", "~SPOP @u 1", "~SPOP @u 2",
                "~SPOP @u 10", "SADD @a 1 2", "SADD @b 2 3", "SINTERSTORE @{d} @a @b", "SUNIONSTORE @d @a @b",
                "SDIFFSTORE @d @a @a", "SDIFFSTORE @d @a @a", "SINTERSTORE @d @a @missing");
    }

    @Test
    void smove_emitsDestinationEventsOnlyWhenTheMemberWasAdded() throws Exception {
        same("KEA", "SADD @s a b", "SADD @t a", "SMOVE @s @t a", "SMOVE @s @t b", "SADD @s c", "SMOVE @s @s c",
                "SMOVE @s @s zz", "SMOVE @t @u a", "SADD @u b", "SMOVE @t @u b", "SMOVE @missing @t a");
    }

    @Test
    void sortedSetsAndGeo_emitRedisEvents() throws Exception {
        same("KEA", "ZADD @z 1 a 2 b 3 c 4 d", "ZADD @z 1 a", "ZADD @z XX CH 5 a", "ZINCRBY @z 1 a", "ZADD @z INCR 1 b",
                "ZREM @z zz", "ZREM @z d", "ZREMRANGEBYRANK @z 5 9", "ZREMRANGEBYRANK @z 0 0", "ZADD @z 0 x 0 y",
                "ZREMRANGEBYLEX @z [x [y", "ZREMRANGEBYSCORE @z 100 200", "ZPOPMIN @z", "ZPOPMAX @z 5", "ZPOPMIN @z",
                "ZADD @{a} 1 a 2 b", "ZADD @b 2 b 3 c", "ZUNIONSTORE @d 2 @a @b", "ZINTERSTORE @d 2 @a @b",
                "ZDIFFSTORE @d 2 @a @a", "ZDIFFSTORE @d 2 @a @a", "ZRANGESTORE @d @a 0 -1", "ZRANGESTORE @d @a 5 9",
                "ZMPOP 1 @a MIN COUNT 9", "BZPOPMAX @b 0", "GEOADD @g 13.361389 38.115556 Palermo",
                "GEOADD @g 15.087269 37.502669 Catania", "GEOSEARCHSTORE @gs @g FROMLONLAT 15 37 BYRADIUS 200 km ASC",
                "GEOSEARCHSTORE @gs @g FROMLONLAT 0 0 BYRADIUS 1 km ASC",
                "GEORADIUS @g 15 37 200 km STORE @gr", "GEORADIUS @g 0 0 1 km STORE @gr");
    }

    @Test
    void streams_emitRedisEvents() throws Exception {
        same("KEA", "XADD @x 1-1 a 1", "XADD @x 2-1 b 2", "XADD @x MAXLEN 1 3-1 c 3", "XADD @x MAXLEN 5 4-1 d 4",
                "XTRIM @x MAXLEN 5", "XTRIM @x MAXLEN 1", "XDEL @x 1-1", "XDEL @x 4-1", "XGROUP CREATE @x g 0",
                "XGROUP CREATE @y g $ MKSTREAM", "XGROUP SETID @x g 0", "XGROUP CREATECONSUMER @x g c1",
                "XGROUP CREATECONSUMER @x g c1", "XGROUP DELCONSUMER @x g c1", "XGROUP DELCONSUMER @x g c9",
                "XGROUP DESTROY @x g", "XGROUP DESTROY @x g", "XSETID @x 10-1", "XADD @none NOMKSTREAM * a 1");
    }

    @Test
    void bitmapsHyperLogLogAndSort_emitRedisEvents() throws Exception {
        same("KEA", "SETBIT @b 7 1", "SETBIT @b 100 1", "SETBIT @b 7 1", "SET @e ab", "SETBIT @e 1 1",
                "SETBIT @e 0 0", "SETBIT @e 0 1", "BITOP OR @{d} @b @b", "BITOP AND @d @none @none",
                "BITFIELD @f SET u8 0 255", "BITFIELD @f GET u8 0", "PFADD @h a b", "PFADD @h a", "PFADD @h2 c",
                "PFMERGE @h3 @h @h2", "PFCOUNT @h", "RPUSH @l 3 1 2", "SORT @l STORE @s", "SORT @none STORE @s",
                "SORT @l");
    }

    @Test
    void offOrPartialClasses_filterEvents() throws Exception {
        same("", "SET @a 1", "DEL @a");
        same("K$", "SET @a 1", "DEL @a", "LPUSH @l a");
        same("Eg", "SET @a 1", "DEL @a", "EXPIRE @zz 1");
        same("El", "LPUSH @l a", "SET @a 1");
    }
}
