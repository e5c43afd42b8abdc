package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which writes touch a watched key, against redis-server 7.0: a client WATCHes a key in one of ten states (absent, a
 * string, a list, a set, a sorted set, a hash, a stream, a key with a TTL, ...), another client sends one command on
 * it, and the first one's EXEC must fail exactly when Redis's does (Redis's signalModifiedKey, which also drives the
 * tracking invalidations). Both the reply and the EXEC outcome are compared, for about a hundred commands, including
 * those that change nothing (LTRIM keeping the whole list touches in Redis; SETBIT of an unchanged bit, SADD of a
 * member already there, EXPIRE NX on a key with a TTL do not).
 *
 * <p>Left out on purpose: the stream consumer-group commands (XGROUP CREATE/SETID/DESTROY/CREATECONSUMER/DELCONSUMER,
 * XREADGROUP, XACK, XCLAIM, XAUTOCLAIM, XSETID) touch the key in Tide but not in Redis 7.0; Valkey made them touch in
 * 2026 (valkey-io/valkey#3459) so that WATCH sees a group change, and Tide does the same.
 */
class WatchTouchVsRedisTest extends VsRedis {

    WatchTouchVsRedisTest() {
        super("wt");
    }

    private static final Map<String, String[]> STATES = new LinkedHashMap<>();

    static {
        STATES.put("absent", new String[] {});
        STATES.put("string", new String[] {"SET K 1"});
        STATES.put("bits", new String[] {"SETBIT K 6 1"});
        STATES.put("list", new String[] {"RPUSH K a b"});
        STATES.put("set", new String[] {"SADD K a b"});
        STATES.put("zset", new String[] {"ZADD K 1 a 2 b"});
        STATES.put("hash", new String[] {"HSET K f 1 n 2"});
        STATES.put("stream", new String[] {"XADD K 1-1 f v"});
        STATES.put("volatile", new String[] {"SET K 1 EX 50"});
        STATES.put("hll", new String[] {"PFADD K a"});
    }

    private static final String[] COMMANDS = {
        "INCRBY K 0", "SETRANGE K 0 1", "APPEND K x", "SETBIT K 6 1", "SETBIT K 7 0", "SETBIT K 7 1", "PFADD K a",
        "PFADD K z", "GETEX K", "GETEX K PERSIST", "GETEX K EX 100", "EXPIRE K 100 NX", "EXPIRE K 100 XX",
        "EXPIRE K 100 GT", "EXPIRE K 100 LT", "EXPIRE K 100", "PERSIST K", "PEXPIREAT K 1", "LMOVE K K RIGHT LEFT",
        "LREM K 0 z", "LREM K 0 a", "LINSERT K BEFORE z x", "LSET K 0 a", "LPUSHX K a", "LTRIM K 0 -1", "LTRIM K 5 6",
        "SMOVE K K a", "SREM K z", "SADD K a", "SADD K z", "HSETNX K f 1", "HSET K f 1", "HINCRBY K f 0", "HDEL K z",
        "ZADD K XX 3 z", "ZADD K NX 1 a", "ZADD K GT 0 a", "ZADD K LT 5 a", "ZADD K 1 a", "ZINCRBY K 0 a", "ZREM K z",
        "ZREMRANGEBYSCORE K 5 6", "ZREMRANGEBYRANK K 5 6", "XADD K 2-1 f v", "XTRIM K MAXLEN 5", "XTRIM K MAXLEN 0",
        "XDEL K 9-9", "XDEL K 1-1", "TOUCH K", "SETNX K 1", "GETSET K 1", "SET K 1 KEEPTTL", "SET K 1 NX", "MSETNX K 1",
        "SORT K ALPHA STORE K", "SUNIONSTORE K K", "SINTERSTORE K nokey", "ZUNIONSTORE K 1 K",
        "ZUNIONSTORE K 1 nokey", "ZRANGESTORE K K 0 -1", "ZRANGESTORE K K 5 6", "BITOP OR K K", "BITOP OR K nokey",
        "BITFIELD K SET u8 0 0", "BITFIELD K GET u8 0", "COPY K O", "COPY O K", "RENAME K K", "RENAME K O",
        "MOVE K 1", "DEL K", "GETDEL K", "LPOP K 0", "SPOP K 0", "ZPOPMIN K 0", "LMPOP 1 K LEFT", "ZMPOP 1 K MIN",
        "SWAPDB 0 1", "FLUSHDB", "GEOADD K XX 1 1 a", "GEOADD K NX 1 1 a", "OBJECT FREQ K", "EXISTS K",
    };

    @Test
    void execFailsAfterExactlyTheWritesThatFailItInRedis() throws IOException {
        List<String> differences = new ArrayList<>();
        for (String command : COMMANDS) {
            for (Map.Entry<String, String[]> state : STATES.entrySet()) {
                String expected = probe(redis().port(), state.getValue(), command);
                String actual = probe(tide().port(), state.getValue(), command);
                if (!expected.equals(actual)) {
                    differences.add(command + " on " + state.getKey() + ": Redis " + expected + ", Tide " + actual);
                }
            }
        }
        assertThat(differences).isEmpty();
    }

    /** The command's reply and whether the watching client's EXEC then failed. */
    private String probe(int port, String[] setup, String command) throws IOException {
        try (RawClient watcher = new RawClient(port); RawClient writer = new RawClient(port)) {
            watcher.call("FLUSHALL");
            for (String s : setup) watcher.call(keys(s));
            watcher.call("WATCH", k("key"));
            String reply = writer.call(keys(command));
            watcher.call("MULTI");
            watcher.call("PING");
            String exec = watcher.call("EXEC");
            watcher.call("FLUSHALL");
            return reply.replace("\r\n", " ").trim() + (exec.startsWith("*-1") ? " [touched]" : " [not touched]");
        }
    }

    private String[] keys(String command) {
        String[] args = command.split(" ");
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("K")) args[i] = k("key");
            else if (args[i].equals("O")) args[i] = k("other");
        }
        return args;
    }
}
