package io.tide.command.family;

import static io.tide.testing.TestServers.onShard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScoredValueScanCursor;
import io.lettuce.core.ZAddArgs;
import io.lettuce.core.ZAggregateArgs;
import io.lettuce.core.ZPopArgs;
import io.lettuce.core.ZStoreArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.shard.Shard;
import io.tide.store.Database;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.args.SortedSetOption;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.ZAddParams;
import redis.clients.jedis.params.ZParams;
import redis.clients.jedis.params.ZRangeParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.KeyValue;

/** Sorted-set commands through real sockets with Jedis and Lettuce, RESP2 and RESP3, on one and two shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class ZSetCommandsTest extends ServerPerShardCount {

    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> tuples(List<Tuple> ts) {
        List<String> out = new ArrayList<>();
        for (Tuple t : ts) out.add(t.getElement() + "=" + t.getScore());
        return out;
    }

    private static List<String> scored(List<ScoredValue<String>> vs) {
        List<String> out = new ArrayList<>();
        for (ScoredValue<String> v : vs) out.add(v.getValue() + "=" + v.getScore());
        return out;
    }

    // ------------------------------------------------------------------ ZADD family

    @Test
    void zadd_optionsWithJedis_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "za" + proto;
                Map<String, Double> m = new LinkedHashMap<>();
                m.put("a", 1.0);
                m.put("b", 2.0);
                assertThat(j.zadd(k, m)).isEqualTo(2);
                assertThat(j.zadd(k, 5, "a", ZAddParams.zAddParams().nx())).isZero();
                assertThat(j.zadd(k, 5, "a", ZAddParams.zAddParams().xx().ch())).isEqualTo(1);
                assertThat(j.zadd(k, 1, "a", ZAddParams.zAddParams().gt().ch())).isZero();
                assertThat(j.zadd(k, 9, "c", ZAddParams.zAddParams().xx())).isZero();
                assertThat(j.zincrby(k, 0.5, "b")).isEqualTo(2.5);
                assertThat(j.zscore(k, "a")).isEqualTo(5.0);
                assertThat(j.zcard(k)).isEqualTo(2);
                assertThat(tuples(j.zrangeWithScores(k, 0, -1))).containsExactly("b=2.5", "a=5.0");
                assertThatThrownBy(() -> j.sendCommand(Protocol.Command.ZADD, k, "GT", "LT", "1", "a"))
                        .hasMessage("ERR GT, LT, and/or NX options at the same time are not compatible");
                assertThatThrownBy(() -> j.sendCommand(Protocol.Command.ZADD, k, "INCR", "1", "a", "2", "b"))
                        .hasMessage("ERR INCR option supports a single increment-element pair");
                j.zadd(k, Double.POSITIVE_INFINITY, "inf");
                assertThatThrownBy(() -> j.zincrby(k, Double.NEGATIVE_INFINITY, "inf"))
                        .hasMessage("ERR resulting score is not a number (NaN)");
                assertThat(j.zscore(k, "inf")).isEqualTo(Double.POSITIVE_INFINITY);
            }
        }
    }

    @Test
    void zadd_withLettuce_incrAndArgs() {
        for (int proto : new int[] {2, 3}) {
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> r = c.sync();
                String k = "zl" + proto;
                assertThat(r.zadd(k, 1.0, "a", 2.0, "b", 3.0, "c")).isEqualTo(3);
                assertThat(r.zaddincr(k, 2.5, "a")).isEqualTo(3.5);
                assertThat(r.zaddincr(k, ZAddArgs.Builder.nx(), 1, "a")).isNull();
                assertThat(r.zadd(k, ZAddArgs.Builder.ch().lt(), 0.5, "c")).isEqualTo(1);
                assertThat(scored(r.zrangeWithScores(k, 0, -1))).containsExactly("c=0.5", "b=2.0", "a=3.5");
                assertThat(r.zrangebyscore(k, Range.create(1, 3))).containsExactly("b");
                assertThat(r.zrangebyscore(k, Range.unbounded(), Limit.create(1, 1))).containsExactly("b");
                assertThat(r.zmscore(k, "a", "nope", "c")).containsExactly(3.5, null, 0.5);
                assertThat(r.zrank(k, "a")).isEqualTo(2);
                assertThat(r.zrevrank(k, "a")).isZero();
                assertThat(r.zrem(k, "a", "nope")).isEqualTo(1);
                assertThat(r.zcount(k, Range.create(0, 10))).isEqualTo(2);
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void zrank_withScore_isRedis72Reply() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "rk" + proto;
                j.zadd(k, 1.5, "a");
                j.zadd(k, 2.5, "b");
                KeyValue<Long, Double> kv = j.zrankWithScore(k, "b");
                assertThat(kv.getKey()).isEqualTo(1L);
                assertThat(kv.getValue()).isEqualTo(2.5);
                assertThat(j.zrevrankWithScore(k, "b").getKey()).isZero();
                assertThat(j.zrankWithScore(k, "nope")).isNull();
                assertThat(j.zrankWithScore("missing" + proto, "a")).isNull();
                assertThatThrownBy(() -> j.sendCommand(Protocol.Command.ZRANK, k, "a", "withscores"))
                        .hasMessage("ERR syntax error");
                assertThatThrownBy(() -> j.sendCommand(Protocol.Command.ZRANK, k, "a", "withscore", "x"))
                        .hasMessage("ERR wrong number of arguments for 'zrank' command");
            }
        }
    }

    @Test
    void wrongType_everyCommandRepliesWrongType() {
        try (Jedis j = jedis(2)) {
            j.set("wt", "x");
            String[][] cmds = {
                {"ZADD", "wt", "1", "a"}, {"ZINCRBY", "wt", "1", "a"}, {"ZREM", "wt", "a"}, {"ZCARD", "wt"},
                {"ZCOUNT", "wt", "0", "1"}, {"ZLEXCOUNT", "wt", "-", "+"}, {"ZSCORE", "wt", "a"},
                {"ZMSCORE", "wt", "a"}, {"ZRANK", "wt", "a"}, {"ZRANGE", "wt", "0", "1"},
                {"ZRANGEBYSCORE", "wt", "0", "1"}, {"ZRANGEBYLEX", "wt", "-", "+"},
                {"ZREMRANGEBYRANK", "wt", "0", "1"}, {"ZPOPMIN", "wt"}, {"ZRANDMEMBER", "wt"},
                {"ZSCAN", "wt", "0"}, {"ZUNION", "1", "wt"}, {"ZINTERCARD", "1", "wt"}, {"ZDIFF", "1", "wt"},
                {"ZMPOP", "1", "wt", "MIN"}, {"BZPOPMIN", "wt", "0"}, {"ZRANGESTORE", "d", "wt", "0", "1"},
            };
            for (String[] c : cmds) {
                String[] args = java.util.Arrays.copyOfRange(c, 1, c.length);
                assertThatThrownBy(() -> j.sendCommand(Protocol.Command.valueOf(c[0]), args))
                        .as(String.join(" ", c)).hasMessage(WRONGTYPE);
            }
            assertThat(j.get("wt")).isEqualTo("x");
            assertThat(j.type("wt")).isEqualTo("string");
        }
    }

    // ------------------------------------------------------------------ ranges

    @Test
    void zrange_rankScoreLex_resp2AndResp3Shapes() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "rg" + proto;
                for (int i = 0; i < 6; i++) j.zadd(k, i, "m" + i);
                assertThat(j.zrange(k, 1, 3)).containsExactly("m1", "m2", "m3");
                assertThat(j.zrevrange(k, 0, 1)).containsExactly("m5", "m4");
                assertThat(tuples(j.zrangeWithScores(k, ZRangeParams.zrangeByScoreParams(2, 4).rev())))
                        .isEmpty();
                assertThat(tuples(j.zrangeWithScores(k, ZRangeParams.zrangeByScoreParams(4, 2).rev())))
                        .containsExactly("m4=4.0", "m3=3.0", "m2=2.0");
                assertThat(j.zrangeByScore(k, "(1", "+inf", 1, 2)).containsExactly("m3", "m4");
                assertThat(tuples(j.zrevrangeByScoreWithScores(k, 5, 0, 0, 2))).containsExactly("m5=5.0", "m4=4.0");
                assertThat(j.zcount(k, "(1", "3")).isEqualTo(2);
                String lex = "lx" + proto;
                for (String m : new String[] {"a", "b", "c", "d"}) j.zadd(lex, 0, m);
                assertThat(j.zrangeByLex(lex, "[b", "+")).containsExactly("b", "c", "d");
                assertThat(j.zrevrangeByLex(lex, "(d", "-", 0, 2)).containsExactly("c", "b");
                assertThat(j.zlexcount(lex, "-", "(c")).isEqualTo(2);
                assertThat(j.zremrangeByLex(lex, "[a", "[b")).isEqualTo(2);
                assertThat(j.zrange(lex, 0, -1)).containsExactly("c", "d");
                assertThat(j.zrangestore("dst" + proto + "{" + k + "}", k, ZRangeParams.zrangeParams(0, 2)))
                        .isEqualTo(3);
                assertThatThrownBy(() -> j.sendCommand(Protocol.Command.ZRANGE, k, "0", "1", "LIMIT", "0", "1"))
                        .hasMessage("ERR syntax error, LIMIT is only supported in combination with either BYSCORE "
                                + "or BYLEX");
                assertThatThrownBy(() -> j.zrangeByScore(k, "x", "1")).hasMessage("ERR min or max is not a float");
                assertThatThrownBy(() -> j.zrangeByLex(k, "a", "b"))
                        .hasMessage("ERR min or max not valid string range item");
            }
        }
    }

    @Test
    void zremrange_deletesKeyWhenEmpty() {
        try (Jedis j = jedis(2)) {
            for (int i = 0; i < 10; i++) j.zadd("rm", i, "m" + i);
            assertThat(j.zremrangeByRank("rm", 0, 1)).isEqualTo(2);
            assertThat(j.zremrangeByScore("rm", "(7", "+inf")).isEqualTo(2);
            assertThat(j.zrange("rm", 0, -1)).containsExactly("m2", "m3", "m4", "m5", "m6", "m7");
            assertThat(j.zremrangeByRank("rm", 0, -1)).isEqualTo(6);
            assertThat(j.exists("rm")).isFalse();
            j.zadd("rm2", 1, "a");
            assertThat(j.zrem("rm2", "a")).isEqualTo(1);
            assertThat(j.exists("rm2")).isFalse();
        }
    }

    // ------------------------------------------------------------------ pops and random members

    @Test
    void pops_jedisAndLettuce_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "pp" + proto;
                for (int i = 1; i <= 5; i++) j.zadd(k, i, "m" + i);
                assertThat(j.zpopmin(k).getElement()).isEqualTo("m1");
                assertThat(tuples(j.zpopmax(k, 2))).containsExactly("m5=5.0", "m4=4.0");
                KeyValue<String, List<Tuple>> mp = j.zmpop(SortedSetOption.MIN, "nokey" + proto, k);
                assertThat(mp.getKey()).isEqualTo(k);
                assertThat(tuples(mp.getValue())).containsExactly("m2=2.0");
                assertThat(j.zmpop(SortedSetOption.MAX, "nokey" + proto)).isNull();
                KeyValue<String, Tuple> b = j.bzpopmax(1, "nokey" + proto, k);
                assertThat(b.getKey()).isEqualTo(k);
                assertThat(b.getValue().getElement()).isEqualTo("m3");
                assertThat(j.exists(k)).isFalse();
            }
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> r = c.sync();
                String k = "lp" + proto;
                r.zadd(k, 1.0, "a", 2.0, "b", 3.0, "c");
                assertThat(r.zpopmin(k).getValue()).isEqualTo("a");
                assertThat(scored(r.zpopmax(k, 5))).containsExactly("c=3.0", "b=2.0");
                r.zadd(k, 1.0, "a", 2.0, "b", 3.0, "c");
                var kv = r.zmpop(2, ZPopArgs.Builder.max(), k);
                assertThat(kv.getKey()).isEqualTo(k);
                assertThat(scored(kv.getValue())).containsExactly("c=3.0", "b=2.0");
                var bz = r.bzpopmin(1, k);
                assertThat(bz.getValue().getValue()).isEqualTo("a");
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void zrandmember_countsAndShapes() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "rnd" + proto;
                for (int i = 0; i < 200; i++) j.zadd(k, i, "m" + i);
                assertThat(j.zrandmember(k)).startsWith("m");
                List<String> uniq = j.zrandmember(k, 50);
                assertThat(new HashSet<>(uniq)).hasSize(50);
                List<String> rep = j.zrandmember(k, -300);
                assertThat(rep).hasSize(300);
                List<Tuple> ws = j.zrandmemberWithScores(k, 150);
                assertThat(ws).hasSize(150);
                for (Tuple t : ws) assertThat(t.getElement()).isEqualTo("m" + (int) t.getScore());
                assertThat(j.zrandmember(k, 500)).hasSize(200);
                assertThat(j.zrandmember("nokey" + proto, 5)).isEmpty();
                String small = "rs" + proto;
                j.zadd(small, 1, "a");
                j.zadd(small, 2, "b");
                j.zadd(small, 3, "c");
                List<String> two = j.zrandmember(small, 2);
                assertThat(two).hasSize(2).doesNotHaveDuplicates();
            }
        }
    }

    // ------------------------------------------------------------------ set operations across shards

    @Test
    void setOperations_keysOnDifferentShards() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String a = "ua" + proto;
                String b = "ub-other" + proto;
                String c = "uc-third" + proto;
                j.zadd(a, 1, "x");
                j.zadd(a, 2, "y");
                j.zadd(b, 10, "y");
                j.zadd(b, 20, "z");
                assertThat(j.zunion(new ZParams(), a, b)).containsExactly("x", "y", "z");
                assertThat(tuples(j.zunionWithScores(new ZParams().weights(2, 1), a, b)))
                        .containsExactly("x=2.0", "y=14.0", "z=20.0");
                assertThat(tuples(j.zinterWithScores(new ZParams().aggregate(ZParams.Aggregate.MIN), a, b)))
                        .containsExactly("y=2.0");
                assertThat(j.zintercard(a, b)).isEqualTo(1);
                assertThat(tuples(j.zdiffWithScores(a, b))).containsExactly("x=1.0");
                assertThat(j.zunionstore(c, a, b)).isEqualTo(3);
                assertThat(tuples(j.zrangeWithScores(c, 0, -1))).containsExactly("x=1.0", "y=12.0", "z=20.0");
                assertThat(j.zinterstore(c, a, b)).isEqualTo(1);
                assertThat(j.zdiffstore(c, b, a)).isEqualTo(1);
                assertThat(j.zrange(c, 0, -1)).containsExactly("z");
                assertThat(j.zinterstore(c, a, "nokey" + proto)).isZero();
                assertThat(j.exists(c)).isFalse();
                assertThatThrownBy(() -> j.sendCommand(Protocol.Command.ZUNION, "0", a))
                        .hasMessage("ERR at least 1 input key is needed for 'zunion' command");
            }
        }
        RedisClient client = TestServers.lettuce(server.port(), 3);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            RedisCommands<String, String> r = c.sync();
            r.zadd("la", 1.0, "x", 2.0, "y");
            r.zadd("lb-other", 3.0, "y");
            assertThat(r.zinter(ZAggregateArgs.Builder.max(), "la", "lb-other")).containsExactly("y");
            assertThat(r.zunionstore("lc", ZStoreArgs.Builder.sum(), "la", "lb-other")).isEqualTo(2);
            assertThat(scored(r.zrangeWithScores("lc", 0, -1))).containsExactly("x=1.0", "y=5.0");
        } finally {
            client.shutdown();
        }
    }

    // ------------------------------------------------------------------ ZSCAN

    @Test
    void zscan_largeSet_returnsEveryMemberWithScores() {
        try (Jedis j = jedis(3)) {
            Map<String, Double> m = new LinkedHashMap<>();
            for (int i = 0; i < 1000; i++) m.put("s" + i, (double) i);
            j.zadd("scan", m);
            Set<String> seen = new HashSet<>();
            String cursor = "0";
            do {
                ScanResult<Tuple> page = j.zscan("scan", cursor, new ScanParams().count(50));
                for (Tuple t : page.getResult()) {
                    assertThat(t.getElement()).isEqualTo("s" + (int) t.getScore());
                    seen.add(t.getElement());
                }
                cursor = page.getCursor();
            } while (!cursor.equals("0"));
            assertThat(seen).hasSize(1000);
            ScanResult<Tuple> matched = j.zscan("scan", "0", new ScanParams().match("s99*").count(2000));
            assertThat(matched.getResult()).extracting(Tuple::getElement)
                    .containsExactlyInAnyOrder("s99", "s990", "s991", "s992", "s993", "s994", "s995", "s996",
                            "s997", "s998", "s999");
        }
        RedisClient client = TestServers.lettuce(server.port(), 2);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            RedisCommands<String, String> r = c.sync();
            r.zadd("scan-small", 1.0, "a", 2.5, "b");
            ScoredValueScanCursor<String> cur = r.zscan("scan-small");
            assertThat(cur.isFinished()).isTrue();
            assertThat(scored(cur.getValues())).containsExactly("a=1.0", "b=2.5");
        } finally {
            client.shutdown();
        }
    }

    // ------------------------------------------------------------------ encodings, keyspace integration, memory

    @Test
    void encodings_switchAtThresholds_andConfigSetAppliesToLaterWrites() {
        try (Jedis j = jedis(2)) {
            for (int i = 0; i < 128; i++) j.zadd("enc", i, "m" + i);
            assertThat(j.objectEncoding("enc")).isEqualTo("listpack");
            j.zadd("enc", 500, "m128");
            assertThat(j.objectEncoding("enc")).isEqualTo("btree");
            j.zadd("encv", 1, "x".repeat(65));
            assertThat(j.objectEncoding("encv")).isEqualTo("btree");
            // Redis 7.2+: ZADD with more pairs than the limit converts an existing listpack up front.
            j.configSet("zset-max-listpack-entries", "4");
            try {
                j.zadd("pre", 1, "a");
                j.sendCommand(Protocol.Command.ZADD, "pre", "1", "a", "1", "a", "1", "a", "1", "a", "1", "a");
                assertThat(j.zcard("pre")).isEqualTo(1);
                assertThat(j.objectEncoding("pre")).isEqualTo("btree");
                assertThat(j.objectEncoding("enc")).isEqualTo("btree");
                j.zadd("after", 1, "a");
                for (int i = 0; i < 4; i++) j.zadd("after", i, "n" + i);
                assertThat(j.objectEncoding("after")).isEqualTo("btree");
            } finally {
                j.configSet("zset-max-listpack-entries", "128");
            }
        }
    }

    @Test
    void keyspace_typeCopyRenameAndScanType() {
        try (Jedis j = jedis(2)) {
            j.zadd("ks{1}", 1, "a");
            j.zadd("ks{1}", 2, "b");
            assertThat(j.type("ks{1}")).isEqualTo("zset");
            assertThat(j.copy("ks{1}", "ks-copy{1}", false)).isTrue();
            j.zadd("ks-copy{1}", 3, "c");
            assertThat(j.zcard("ks{1}")).isEqualTo(2);
            assertThat(j.zcard("ks-copy{1}")).isEqualTo(3);
            j.rename("ks-copy{1}", "ks-moved{1}");
            assertThat(j.zrange("ks-moved{1}", 0, -1)).containsExactly("a", "b", "c");
            List<String> keys = j.scan("0", new ScanParams().match("ks*").count(1000),
                    "zset").getResult();
            assertThat(keys).contains("ks{1}", "ks-moved{1}");
            j.expire("ks{1}", 100);
            j.zadd("ks{1}", 3, "c");
            assertThat(j.ttl("ks{1}")).isPositive();
            assertThat(j.zunionstore("ks{1}", "ks-moved{1}")).isEqualTo(3);
            assertThat(j.ttl("ks{1}")).isEqualTo(-1);
        }
    }

    @Test
    void memoryAccounting_returnsToZeroWhenKeysGo() throws Exception {
        try (Jedis j = jedis(2)) {
            j.select(7);
            for (int i = 0; i < 300; i++) j.zadd("mem", i % 17, "member-" + i);
            j.zadd("mem-small", 1, "a");
            j.zincrby("mem", 5, "member-3");
            j.zremrangeByScore("mem", 0, 3);
            j.zpopmin("mem", 10);
            j.zunionstore("mem-u", "mem", "mem-small");
            j.zrangestore("mem-r", "mem", ZRangeParams.zrangeParams(0, 10));
            j.zadd("mem-small", 2, "b".repeat(100));
            j.zrem("mem-small", "a");
            j.sendCommand(Protocol.Command.ZMPOP, "1", "mem-u", "MAX", "COUNT", "7");
            for (String k : new String[] {"mem", "mem-small", "mem-u", "mem-r"}) {
                assertThat(onShard(server, k, () -> server.context().shards().shardOf(bytes(k)).db(7).usedBytes()))
                        .isPositive();
            }
            j.del("mem", "mem-small", "mem-u", "mem-r");
            for (Shard s : server.context().shards().all()) {
                Database d = s.loop().submit(() -> s.db(7)).get();
                long used = s.loop().submit(() -> io.tide.testing.SettledMemory.usedBytes(d)).get();
                long size = s.loop().submit(d::size).get();
                assertThat(size).isZero();
                long emptyTable = s.loop().submit(() -> new Database(7).usedBytes()).get();
                assertThat(used).isEqualTo(emptyTable);
            }
        }
    }
}
