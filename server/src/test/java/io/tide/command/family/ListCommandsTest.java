package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.KeyValue;
import io.lettuce.core.LMPopArgs;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.LPosArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.Server;
import io.tide.shard.Shard;
import io.tide.testing.RawClient;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.args.ListPosition;
import redis.clients.jedis.params.LPosParams;

/** List commands through real sockets with Jedis and Lettuce, RESP2 and RESP3, on one and two shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class ListCommandsTest extends ServerPerShardCount {

    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Object raw(Jedis j, Protocol.Command cmd, String... args) {
        return j.sendCommand(cmd, args);
    }

    /** Two keys owned by different shards when there are two (by hash slot), with the given prefix. */
    private static String[] keysOnTwoShards(String prefix) {
        String first = prefix + "0";
        Shard s0 = server.context().shards().shardOf(bytes(first));
        for (int i = 1; ; i++) {
            String k = prefix + i;
            if (server.context().shards().size() == 1 || server.context().shards().shardOf(bytes(k)) != s0) {
                return new String[] {first, k};
            }
        }
    }

    /** Bytes the keyspace accounts on every shard's database 0, summed (read on each shard's thread). */
    private static long usedBytes(Server on) throws Exception {
        long total = 0;
        for (Shard s : on.context().shards().all()) total += s.loop().submit(() -> s.db(0).usedBytes()).get();
        return total;
    }

    private static String repeat(char c, int n) {
        return String.valueOf(c).repeat(n);
    }

    // ------------------------------------------------------------------ pushes and pops

    @Test
    void pushAndPop_roundTrip_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "pp" + proto;
                assertThat(j.rpush(k, "b", "c")).isEqualTo(2);
                assertThat(j.lpush(k, "a", "z")).isEqualTo(4);
                assertThat(j.lrange(k, 0, -1)).containsExactly("z", "a", "b", "c");
                assertThat(j.lpushx(k, "y")).isEqualTo(5);
                assertThat(j.rpushx(k, "d", "e")).isEqualTo(7);
                assertThat(j.lpushx(k + "none", "y")).isZero();
                assertThat(j.rpushx(k + "none", "y")).isZero();
                assertThat(j.exists(k + "none")).isFalse();
                assertThat(j.type(k)).isEqualTo("list");
                assertThat(j.llen(k)).isEqualTo(7);
                assertThat(j.lpop(k)).isEqualTo("y");
                assertThat(j.rpop(k)).isEqualTo("e");
                assertThat(j.lpop(k, 2)).containsExactly("z", "a");
                assertThat(j.rpop(k, 2)).containsExactly("d", "c");
                assertThat(j.lpop(k, 0)).isEmpty();
                assertThat(j.rpop(k, 10)).containsExactly("b");
                assertThat(j.exists(k)).isFalse();
                assertThat(j.lpop(k)).isNull();
                assertThat(j.rpop(k)).isNull();
                assertThat(j.lpop(k, 3)).isNull();
                assertThat(j.rpop(k, 0)).isNull();
                assertThat(j.llen(k)).isZero();
                assertThat(j.lrange(k, 0, -1)).isEmpty();
            }
        }
    }

    @Test
    void lpopWithCount_onMissingKey_isANullArray_andWithoutCountANullBulk() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            assertThat(c.call("LPOP", "nullshape")).isEqualTo("$-1\r\n");
            assertThat(c.call("LPOP", "nullshape", "1")).isEqualTo("*-1\r\n");
            assertThat(c.call("LMPOP", "1", "nullshape", "LEFT")).isEqualTo("*-1\r\n");
            assertThat(c.call("LPOS", "nullshape", "x")).isEqualTo("$-1\r\n");
            assertThat(c.call("LPOS", "nullshape", "x", "COUNT", "0")).isEqualTo("*0\r\n");
            assertThat(c.call("LINDEX", "nullshape", "0")).isEqualTo("$-1\r\n");
            assertThat(c.call("BLPOP", "nullshape", "0.01")).isEqualTo("*-1\r\n");
            assertThat(c.call("BLMOVE", "nullshape", "x", "LEFT", "LEFT", "0.01")).isEqualTo("*-1\r\n");
            assertThat(c.call("HELLO", "3")).startsWith("%");
            assertThat(c.call("LPOP", "nullshape")).isEqualTo("_\r\n");
            assertThat(c.call("LPOP", "nullshape", "1")).isEqualTo("_\r\n");
            assertThat(c.call("LMPOP", "1", "nullshape", "LEFT")).isEqualTo("_\r\n");
            assertThat(c.call("BRPOP", "nullshape", "0.01")).isEqualTo("_\r\n");
            assertThat(c.call("BRPOPLPUSH", "nullshape", "x", "0.01")).isEqualTo("_\r\n");
        }
    }

    @Test
    void lpush_onWrongType_repliesWrongType() {
        try (Jedis j = jedis(2)) {
            j.set("wt", "v");
            assertThatThrownBy(() -> j.lpush("wt", "a")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.rpush("wt", "a")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.lpushx("wt", "a")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.lpop("wt")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.rpop("wt", 2)).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.llen("wt")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.lrange("wt", 0, -1)).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.lindex("wt", 0)).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.lset("wt", 0, "x")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.linsert("wt", ListPosition.BEFORE, "a", "b")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.lrem("wt", 0, "a")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.ltrim("wt", 0, 1)).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.lpos("wt", "a")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.lmove("wt", "wt2", ListDirection.LEFT, ListDirection.LEFT))
                    .hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.lmpop(ListDirection.LEFT, "wtnone", "wt")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.blpop(0.5, "wt")).hasMessage(WRONGTYPE);
            assertThat(j.get("wt")).isEqualTo("v");
            j.rpush("wtl", "a");
            assertThatThrownBy(() -> j.get("wtl")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.rpoplpush("wtl", "wt")).hasMessage(WRONGTYPE);
            assertThat(j.lrange("wtl", 0, -1)).containsExactly("a"); // nothing moved
        }
    }

    @Test
    void popAndPushErrors_areRedisTexts() {
        try (Jedis j = jedis(2)) {
            j.rpush("perr", "a");
            assertThatThrownBy(() -> raw(j, Protocol.Command.LPOP, "perr", "-1"))
                    .hasMessage("ERR value is out of range, must be positive");
            assertThatThrownBy(() -> raw(j, Protocol.Command.LPOP, "perr", "1", "2"))
                    .hasMessage("ERR wrong number of arguments for 'lpop' command");
            assertThatThrownBy(() -> raw(j, Protocol.Command.RPUSH, "perr"))
                    .hasMessage("ERR wrong number of arguments for 'rpush' command");
            // Redis 7.2+ bounds RANK and LREM's count to +-LONG_MAX.
            String range = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807";
            assertThatThrownBy(() -> raw(j, Protocol.Command.LPOS, "perr", "a", "RANK", "-9223372036854775808"))
                    .hasMessage(range);
            assertThatThrownBy(() -> raw(j, Protocol.Command.LREM, "perr", "-9223372036854775808", "a"))
                    .hasMessage(range);
            assertThat(j.lpos("perr", "a", LPosParams.lPosParams().rank(Integer.MIN_VALUE + 1))).isNull();
            assertThat(j.lrem("perr", -Long.MAX_VALUE, "a")).isEqualTo(1);
        }
    }

    // ------------------------------------------------------------------ index and range commands

    @Test
    void lrangeLindexLset_withNegativeAndOutOfRangeIndexes() {
        try (Jedis j = jedis(3)) {
            j.rpush("ri", "0", "1", "2", "3", "4");
            assertThat(j.lrange("ri", 1, 3)).containsExactly("1", "2", "3");
            assertThat(j.lrange("ri", -2, -1)).containsExactly("3", "4");
            assertThat(j.lrange("ri", -100, 100)).containsExactly("0", "1", "2", "3", "4");
            assertThat(j.lrange("ri", 3, 1)).isEmpty();
            assertThat(j.lrange("ri", 5, 10)).isEmpty();
            assertThat(j.lindex("ri", 0)).isEqualTo("0");
            assertThat(j.lindex("ri", -1)).isEqualTo("4");
            assertThat(j.lindex("ri", 5)).isNull();
            assertThat(j.lindex("ri", -6)).isNull();
            assertThat(j.lset("ri", -2, "three")).isEqualTo("OK");
            assertThat(j.lindex("ri", 3)).isEqualTo("three");
            assertThatThrownBy(() -> j.lset("ri", 5, "x")).hasMessage("ERR index out of range");
            assertThatThrownBy(() -> j.lset("ri-none", 0, "x")).hasMessage("ERR no such key");
        }
    }

    @Test
    void linsertLremLtrim_editInPlace() {
        try (Jedis j = jedis(2)) {
            j.rpush("ed", "a", "b", "a", "c", "a");
            assertThat(j.linsert("ed", ListPosition.BEFORE, "a", "x")).isEqualTo(6);
            assertThat(j.linsert("ed", ListPosition.AFTER, "c", "y")).isEqualTo(7);
            assertThat(j.linsert("ed", ListPosition.AFTER, "nope", "y")).isEqualTo(-1);
            assertThat(j.linsert("ed-none", ListPosition.AFTER, "a", "y")).isZero();
            assertThat(j.lrange("ed", 0, -1)).containsExactly("x", "a", "b", "a", "c", "y", "a");
            assertThat(j.lrem("ed", -1, "a")).isEqualTo(1);
            assertThat(j.lrem("ed", 1, "a")).isEqualTo(1);
            assertThat(j.lrange("ed", 0, -1)).containsExactly("x", "b", "a", "c", "y");
            assertThat(j.lrem("ed", 0, "a")).isEqualTo(1);
            assertThat(j.ltrim("ed", 1, -2)).isEqualTo("OK");
            assertThat(j.lrange("ed", 0, -1)).containsExactly("b", "c");
            assertThat(j.ltrim("ed", 2, 1)).isEqualTo("OK");
            assertThat(j.exists("ed")).isFalse();
            j.rpush("ed", "q", "q");
            assertThat(j.lrem("ed", 0, "q")).isEqualTo(2);
            assertThat(j.exists("ed")).isFalse();
        }
    }

    @Test
    void lpos_rankCountMaxlen_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "lp" + proto;
                j.rpush(k, "a", "b", "c", "1", "2", "3", "c", "c");
                assertThat(j.lpos(k, "c")).isEqualTo(2);
                assertThat(j.lpos(k, "c", LPosParams.lPosParams().rank(-1))).isEqualTo(7);
                assertThat(j.lpos(k, "c", LPosParams.lPosParams().rank(2))).isEqualTo(6);
                assertThat(j.lpos(k, "c", LPosParams.lPosParams(), 0)).containsExactly(2L, 6L, 7L);
                assertThat(j.lpos(k, "c", LPosParams.lPosParams().rank(-1), 2)).containsExactly(7L, 6L);
                assertThat(j.lpos(k, "c", LPosParams.lPosParams().maxlen(3), 0)).containsExactly(2L);
                assertThat(j.lpos(k, "zz")).isNull();
                assertThat(j.lpos(k, "zz", LPosParams.lPosParams(), 5)).isEmpty();
                assertThat(j.lpos(k, "1")).isEqualTo(3);
                assertThatThrownBy(() -> j.lpos(k, "c", LPosParams.lPosParams().rank(0))).hasMessageStartingWith(
                        "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second");
                assertThatThrownBy(() -> raw(j, Protocol.Command.LPOS, k, "c", "COUNT", "-1"))
                        .hasMessage("ERR COUNT can't be negative");
                assertThatThrownBy(() -> raw(j, Protocol.Command.LPOS, k, "c", "MAXLEN", "x"))
                        .hasMessage("ERR MAXLEN can't be negative");
                assertThatThrownBy(() -> raw(j, Protocol.Command.LPOS, k, "c", "RANK"))
                        .hasMessage("ERR syntax error");
            }
        }
    }

    // ------------------------------------------------------------------ moves between keys, maybe across shards

    @Test
    void lmoveAndRpoplpush_acrossShards() {
        String[] k = keysOnTwoShards("mv");
        try (Jedis j = jedis(2)) {
            j.rpush(k[0], "1", "2", "3");
            assertThat(j.lmove(k[0], k[1], ListDirection.LEFT, ListDirection.RIGHT)).isEqualTo("1");
            assertThat(j.rpoplpush(k[0], k[1])).isEqualTo("3");
            assertThat(j.lrange(k[1], 0, -1)).containsExactly("3", "1");
            assertThat(j.lmove(k[0], k[1], ListDirection.RIGHT, ListDirection.RIGHT)).isEqualTo("2");
            assertThat(j.exists(k[0])).isFalse();
            assertThat(j.lmove(k[0], k[1], ListDirection.RIGHT, ListDirection.RIGHT)).isNull();
            assertThat(j.lmove(k[1], k[1], ListDirection.LEFT, ListDirection.RIGHT)).isEqualTo("3");
            assertThat(j.lrange(k[1], 0, -1)).containsExactly("1", "2", "3");
            assertThatThrownBy(() -> raw(j, Protocol.Command.LMOVE, k[1], k[0], "UP", "LEFT"))
                    .hasMessage("ERR syntax error");
        }
    }

    @Test
    void lmpop_firstNonEmptyKey_acrossShards() {
        String[] k = keysOnTwoShards("mp");
        try (Jedis j = jedis(3)) {
            j.rpush(k[1], "a", "b", "c");
            var r = j.lmpop(ListDirection.LEFT, k[0], k[1]);
            assertThat(r.getKey()).isEqualTo(k[1]);
            assertThat(r.getValue()).containsExactly("a");
            r = j.lmpop(ListDirection.RIGHT, 5, k[0], k[1]);
            assertThat(r.getValue()).containsExactly("c", "b");
            assertThat(j.lmpop(ListDirection.RIGHT, k[0], k[1])).isNull();
            assertThat(j.exists(k[1])).isFalse();
            assertThatThrownBy(() -> raw(j, Protocol.Command.LMPOP, "0", k[0], "LEFT"))
                    .hasMessage("ERR numkeys should be greater than 0");
            assertThatThrownBy(() -> raw(j, Protocol.Command.LMPOP, "1", k[0], "LEFT", "COUNT", "0"))
                    .hasMessage("ERR count should be greater than 0");
        }
    }

    @Test
    void blockingForms_serveAtOnceWhenDataIsThere() {
        String[] k = keysOnTwoShards("bf");
        try (Jedis j = jedis(2)) {
            j.rpush(k[1], "a", "b", "c", "d", "e");
            var kv = j.blpop(1.0, k[0], k[1]);
            assertThat(kv.getKey()).isEqualTo(k[1]);
            assertThat(kv.getValue()).isEqualTo("a");
            assertThat(j.brpop(1.0, k[0], k[1]).getValue()).isEqualTo("e");
            assertThat(j.blmove(k[1], k[0], ListDirection.LEFT, ListDirection.LEFT, 1.0)).isEqualTo("b");
            assertThat(j.brpoplpush(k[1], k[0], 1)).isEqualTo("d");
            var m = j.blmpop(1.0, ListDirection.LEFT, 2, k[1], k[0]);
            assertThat(m.getKey()).isEqualTo(k[1]);
            assertThat(m.getValue()).containsExactly("c");
            assertThat(j.lrange(k[0], 0, -1)).containsExactly("d", "b");
            assertThatThrownBy(() -> j.blpop(-1.0, k[0])).hasMessage("ERR timeout is negative");
            assertThatThrownBy(() -> raw(j, Protocol.Command.BLPOP, k[0], "abc"))
                    .hasMessage("ERR timeout is not a float or out of range");
        }
    }

    // ------------------------------------------------------------------ encodings, TTL, COPY, memory

    @Test
    void objectEncoding_followsListMaxListpackSize() {
        try (Jedis j = jedis(2)) {
            String old = j.configGet("list-max-listpack-size").get("list-max-listpack-size");
            try {
                j.configSet("list-max-listpack-size", "3");
                j.rpush("enc", "a", "b", "c");
                assertThat(j.objectEncoding("enc")).isEqualTo("listpack");
                j.rpush("enc", "d");
                assertThat(j.objectEncoding("enc")).isEqualTo("quicklist");
                j.rpop("enc", 3);
                assertThat(j.objectEncoding("enc")).isEqualTo("listpack");
                // LINSERT and LSET convert before they know whether they insert, as Redis does.
                j.rpush("enc2", "a", "b", "c");
                assertThat(j.linsert("enc2", ListPosition.AFTER, "missing", "x")).isEqualTo(-1);
                assertThat(j.objectEncoding("enc2")).isEqualTo("quicklist");
                j.ltrim("enc2", 0, -1); // 3 elements: more than half the limit, so it stays
                assertThat(j.objectEncoding("enc2")).isEqualTo("quicklist");
                j.ltrim("enc2", 0, 0);
                assertThat(j.objectEncoding("enc2")).isEqualTo("listpack");
                // The old name of the parameter works too.
                j.configSet("list-max-ziplist-size", "-1");
                j.rpush("enc3", "a", "b", "c", repeat('x', 8192));
                assertThat(j.objectEncoding("enc3")).isEqualTo("quicklist");
                j.rpop("enc3");
                assertThat(j.objectEncoding("enc3")).isEqualTo("listpack");
                j.configSet("list-max-listpack-size", "-2");
                j.rpush("enc4", repeat('y', 8000));
                assertThat(j.objectEncoding("enc4")).isEqualTo("listpack");
                j.rpush("enc4", repeat('y', 500));
                assertThat(j.objectEncoding("enc4")).isEqualTo("quicklist");
            } finally {
                j.configSet("list-max-listpack-size", old);
            }
        }
    }

    @Test
    void lmove_intoAListThatWouldOverflow_convertsTheDestination() {
        String[] k = keysOnTwoShards("lmc");
        try (Jedis j = jedis(2)) {
            String old = j.configGet("list-max-listpack-size").get("list-max-listpack-size");
            try {
                j.configSet("list-max-listpack-size", "3");
                j.rpush(k[0], "a", "b", "c", "hello");
                j.rpush(k[1], "d", "e", "f");
                assertThat(j.objectEncoding(k[1])).isEqualTo("listpack");
                j.lmove(k[0], k[1], ListDirection.RIGHT, ListDirection.RIGHT);
                assertThat(j.objectEncoding(k[1])).isEqualTo("quicklist");
                // The source keeps one node of 3 elements: more than half of 3, so it stays a quicklist.
                assertThat(j.objectEncoding(k[0])).isEqualTo("quicklist");
            } finally {
                j.configSet("list-max-listpack-size", old);
            }
        }
    }

    @Test
    void pushesKeepTheTtl_andCopyIsDeep() {
        try (Jedis j = jedis(2)) {
            j.rpush("ttl", "a");
            j.expire("ttl", 100);
            j.rpush("ttl", "b");
            j.lpop("ttl");
            j.lset("ttl", 0, "c");
            assertThat(j.ttl("ttl")).isBetween(90L, 100L);
            j.rpush("{cp}src", "1", "2", "3", "4");
            assertThat(j.copy("{cp}src", "{cp}dst", false)).isTrue();
            j.rpush("{cp}dst", "5");
            assertThat(j.lrange("{cp}src", 0, -1)).containsExactly("1", "2", "3", "4");
            assertThat(j.lrange("{cp}dst", 0, -1)).containsExactly("1", "2", "3", "4", "5");
            assertThat(j.objectEncoding("{cp}dst")).isEqualTo("listpack");
        }
    }

    @Test
    void memoryAccounting_returnsToItsStartOnceTheListsAreGone() throws Exception {
        // A server of its own, whose hash tables hold only these keys and never resize meanwhile.
        try (Server own = TestServers.start(shards); Jedis j = TestServers.jedis(own.port(), 2)) {
            String a = "mem0";
            String b = "mem1";
            for (int i = 2; own.context().shards().size() > 1
                    && own.context().shards().shardOf(bytes(b)) == own.context().shards().shardOf(bytes(a)); i++) {
                b = "mem" + i;
            }
            j.rpush(a, "seed");
            j.rpush(b, "seed");
            long before = usedBytes(own);
            for (int i = 0; i < 3000; i++) j.rpush(a, "element-" + i, Integer.toString(i));
            j.lpush(b, repeat('z', 20_000));
            for (int i = 0; i < 100; i++) j.lmove(a, b, ListDirection.LEFT, ListDirection.RIGHT);
            j.linsert(a, ListPosition.AFTER, "element-1500", repeat('q', 9000));
            j.lset(a, 10, repeat('r', 9000));
            j.lrem(a, 0, "7");
            j.ltrim(a, 10, -10);
            j.lmpop(ListDirection.RIGHT, 50, b);
            assertThat(usedBytes(own)).isGreaterThan(before + 50_000);
            j.del(a, b);
            j.rpush(a, "seed");
            j.rpush(b, "seed");
            assertThat(usedBytes(own)).isEqualTo(before);
        }
    }

    @Test
    void longQuicklist_indexAndRangeFromBothEnds() {
        try (Jedis j = jedis(2)) {
            List<String> batch = new ArrayList<>();
            for (int i = 0; i < 50_000; i++) {
                batch.add("v" + i);
                if (batch.size() == 1000) {
                    j.rpush("long", batch.toArray(new String[0]));
                    batch.clear();
                }
            }
            assertThat(j.objectEncoding("long")).isEqualTo("quicklist");
            assertThat(j.llen("long")).isEqualTo(50_000);
            assertThat(j.lindex("long", 25_000)).isEqualTo("v25000");
            assertThat(j.lindex("long", -25_001)).isEqualTo("v24999");
            assertThat(j.lrange("long", 30_000, 30_002)).containsExactly("v30000", "v30001", "v30002");
            assertThat(j.lset("long", 40_000, "changed")).isEqualTo("OK");
            assertThat(j.lindex("long", 40_000)).isEqualTo("changed");
            assertThat(j.lpos("long", "v49999")).isEqualTo(49_999);
            j.ltrim("long", 49_998, -1);
            assertThat(j.lrange("long", 0, -1)).containsExactly("v49998", "v49999");
            assertThat(j.objectEncoding("long")).isEqualTo("listpack");
        }
    }

    // ------------------------------------------------------------------ Lettuce

    @Test
    void lettuce_listCommands_bothProtocols() {
        String[] k = keysOnTwoShards("lt");
        for (int proto : new int[] {2, 3}) {
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> r = c.sync();
                String a = k[0] + ":" + proto;
                String b = k[1] + ":" + proto;
                assertThat(r.rpush(a, "1", "2", "3", "4")).isEqualTo(4);
                assertThat(r.lpush(a, "0")).isEqualTo(5);
                assertThat(r.lrange(a, 0, -1)).containsExactly("0", "1", "2", "3", "4");
                assertThat(r.lpop(a)).isEqualTo("0");
                assertThat(r.rpop(a, 2)).containsExactly("4", "3");
                assertThat(r.lpop(a + "none")).isNull();
                assertThat(r.lpop(a + "none", 2)).isEmpty();
                assertThat(r.lindex(a, 1)).isEqualTo("2");
                assertThat(r.linsert(a, true, "2", "x")).isEqualTo(3);
                assertThat(r.lset(a, 0, "one")).isEqualTo("OK");
                assertThat(r.lpos(a, "x")).isEqualTo(1);
                assertThat(r.lpos(a, "zz")).isNull();
                assertThat(r.lpos(a, "x", 0, LPosArgs.Builder.rank(-1))).containsExactly(1L);
                assertThat(r.lmove(a, b, LMoveArgs.Builder.leftRight())).isEqualTo("one");
                assertThat(r.rpoplpush(a, b)).isEqualTo("2");
                KeyValue<String, List<String>> m = r.lmpop(LMPopArgs.Builder.left().count(5), a + "none", b);
                assertThat(m.getKey()).isEqualTo(b);
                assertThat(m.getValue()).containsExactly("2", "one");
                assertThat(r.lmpop(LMPopArgs.Builder.left(), a + "none", b)).isNull();
                assertThat(r.blpop(1.0, a).getValue()).isEqualTo("x");
                assertThat(r.exists(a)).isZero();
                assertThat(r.rpush(a, "p", "q")).isEqualTo(2);
                assertThat(r.lrem(a, 0, "p")).isEqualTo(1);
                assertThat(r.ltrim(a, 0, 0)).isEqualTo("OK");
                assertThat(r.llen(a)).isEqualTo(1);
                assertThat(r.blmove(a, b, LMoveArgs.Builder.rightLeft(), 1.0)).isEqualTo("q");
                assertThat(r.brpoplpush(1.0, b, a)).isEqualTo("q");
                assertThat(r.blmpop(1.0, LMPopArgs.Builder.right(), b, a).getValue()).containsExactly("q");
                r.set(a, "s");
                assertThatThrownBy(() -> r.rpush(a, "x")).isInstanceOf(RedisCommandExecutionException.class)
                        .hasMessage(WRONGTYPE);
                r.del(a, b);
            } finally {
                client.shutdown();
            }
        }
    }
}
