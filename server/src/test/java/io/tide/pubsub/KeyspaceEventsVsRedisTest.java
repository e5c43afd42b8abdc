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
}
